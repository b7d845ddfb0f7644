"""Long-watch benchmark (issue 29): a news site watched for a simulated year, scored against
what really happened on it.

    python bench/longwatch_bench.py [--days 365] [--step-hours 6] [--articles 1000]
                                    [--seed 0] [--schedule discovery] [--param K=V]
                                    [--set NAME=VALUE] [--no-rule] [--keep] [--out DIR]

**The site** (a threaded server in this process, bench/simulated_site.py) lives in
simulated time: its clock is set to T before each crawl. ``--articles`` articles, 10 % of
them published in the month before the first crawl, the rest at uniform random instants
over ``--days``, each by one route only: 70 % in one of 20 **hub** (section) pages, each
listing its latest 30 (section rates spread log-uniformly over 25×), 15 % in the
**sitemap** only (named by robots.txt, ``lastmod`` = the latest edit), 15 % in the RSS
**feed** only (its latest 30; advertised by the home page). URLs are dated with an id
(``/2027/03/01/council-approves-plans-417023.html``), as news sites name them.
**Meaningful edits** at known instants (change_bench.py's edit kinds: a corrected number,
an added sentence, an added or removed paragraph, a new headline): 1.5 an article on
average, 70 % within hours of publication (exponential, mean 12 h), the rest later
(mean 30 d). **Deletions**: 5 % of the articles, 1 d + an exponential mean 20 d after
publication, answering 404 or 410 (alternately) from then on and dropped from every list.
**Noise on every render**: a clock, "updated N minutes ago", a visitor counter, a CSRF
token and a rotating ad in the header, sidebar and footer (the ``main-text`` signature
leaves them out by default: change_bench.py's boilerplate kinds), and a "Trending now"
ticker *inside* the article (change_bench.py's site noise "ticker"), which no default can
know: the bench sets the change rule an archivist would write for it, before the first
crawl (``recrawl changes DIR --set 127.0.0.1 --remove .trending-now``; ``--no-rule``
leaves it out, to see what the rule saves).

**The watch**: ``recrawl init``, ``recrawl schedule --set discovery`` (the schedule for a
site whose news arrives through hubs: the default aronsson revisits a section after 12
days), the rule, ``inject`` the home page, then ``recrawl crawl DIR --now T --delay 0``
(the real command as a subprocess) every ``--step-hours`` of simulated time, nothing else
per round. Everything is scored once at the end, from ``recrawl urls --json`` and the
store's fetch events (their ``change`` verdicts).

**Scores** (a fetch at simulated instant T saw the site as it was at T; a fetch event is
placed at the crawl instant it belongs to):

- *discovery delay* by route: ``first_seen`` − publication, for articles published after
  the first crawl (mean, median, max); articles never seen are "missed". A step of S hours
  adds about S/2 to every delay. Articles the site never showed during the watch
  (published in the month before it, deleted before the first crawl) are left out.
- *change recall and false alarms* per pair of consecutive 200 fetches of a page: the pair
  is changed in truth when what the page shows apart from noise (an article's version, a
  hub's listed titles and teasers; the home page never changes) differs between the two
  instants; the crawl's verdict is the later fetch's ``change``. Recall = changed verdicts /
  changed pairs; false alarms = changed verdicts / unchanged pairs; "unknown" verdicts are
  counted apart.
- *freshness* (articles): the share of article-time, over every instant an article is
  live within the watch (published, not deleted, up to the last crawl), at which its latest
  capture shows its current version; before its first capture an article is stale. It is
  the share of (article, check instant) pairs with check instants infinitely dense.
- *gone pages found*: deleted articles whose deletion the watch saw (a 404/410 fetch after
  it), and the delay (that fetch's instant − the deletion).
- *fetches per page per day*, segments, bytes (WARC files on disk, segments and history).
- *command times* at the end, as whole processes: ``urls --json``, ``news --json``,
  ``storage --json`` (n/a where the command does not exist), ``show --at`` of 20 random
  captures; and replay: ``recrawl replay`` started (core/replay/server.py) and 100 random
  captures' ``id_`` URLs fetched from it (median and p95; one first request not counted;
  an answer that is not that capture, by its ``Memento-Datetime``, is a failure).
- each crawl's wall time and CPU time (user + system of the crawl process and its analysis
  processes: what the machine's other load does not change), and a least-squares fit of
  its wall time as a fixed cost + a cost a page fetched.

Targets (issue 29, for a simulated year of 6-hourly crawls of a 1,000-article site) are
printed beside the figures; exit status 1 if one is missed. Until automatic compaction
(s18-compact) lands, every round adds a segment and the segment target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime, parsedate_to_datetime
from pathlib import Path
from typing import Any

from bench.change_bench import (
    ADS,
    TRENDING,
    Content,
    clock_text,
    counter_text,
    edited,
    make_content,
    relative_text,
)
from bench.simulated_site import (
    Answer,
    crawl_at,
    iso,
    parse_iso,
    recrawl,
    serve,
    stop,
    timed_recrawl,
)

START = datetime(2027, 1, 4, tzinfo=UTC)
SITE = "Valley Courier"
HUBS = 20
LISTED = 30
SECTIONS = [
    "news", "sport", "culture", "weather", "opinion", "travel", "business", "science",
    "health", "education", "politics", "local", "world", "tech", "food", "music", "film",
    "books", "motoring", "property",
]  # fmt: skip
ROUTES = (("hub", 0.70), ("sitemap", 0.15), ("feed", 0.15))
PREEXISTING = 0.10
EDITS_MEAN = 1.5
SOON_SHARE, SOON_MEAN, LATER_MEAN = 0.7, 12 * 3600.0, 30 * 86400.0
DELETED_SHARE, DELETE_AFTER, DELETE_MEAN = 0.05, 86400.0, 20 * 86400.0
EDIT_KINDS = ("number", "sentence", "paragraph added", "paragraph removed", "headline")
TICKER_SELECTOR = ".trending-now"
#: An article not seen by the end is missed if published this long before the last crawl
#: (a slow section's page may be visited every few days; one published since is not yet due).
GRACE = timedelta(days=7)
SHOW_SAMPLES = 20
REPLAY_SAMPLES = 100


# --- the site's ground truth --------------------------------------------------------------


@dataclass
class Article:
    path: str
    via: str  # the route it is listed by: hub, sitemap, feed
    hub: int
    published: datetime
    #: Meaningful edits, in order (before any deletion).
    edits: list[datetime] = field(default_factory=list)
    deleted: datetime | None = None
    gone_status: int = 404
    #: Its content at each version: versions[0] as published, versions[k] after k edits.
    versions: list[Content] = field(default_factory=list)

    def version(self, at: datetime) -> int:
        return bisect_right(self.edits, at)

    def live(self, at: datetime) -> bool:
        return self.published <= at and (self.deleted is None or at < self.deleted)

    def shown(self, first: datetime, last: datetime) -> bool:
        """Whether the site showed it at some instant of [first, last] (an article of the
        month before deleted before the first crawl never was)."""
        return self.published <= last and (self.deleted is None or self.deleted > first)

    def content(self, at: datetime) -> Content:
        return self.versions[self.version(at)]

    def modified(self, at: datetime) -> datetime:
        k = self.version(at)
        return self.edits[k - 1] if k else self.published


def new_article(
    rng: random.Random, via: str, hub: int, published: datetime, edits: list[datetime]
) -> Article:
    """An article with its versions made: one edit kind after another on its content."""
    content = make_content("article", rng)
    ident = rng.randrange(100_000, 1_000_000)
    slug = "-".join(
        "".join(c for c in word.lower() if c.isalnum()) for word in content.headline.split()[:6]
    ).strip("-")
    path = f"/{published:%Y/%m/%d}/{slug}-{ident}.html"
    versions = [content]
    for _ in edits:
        kind = rng.choice(EDIT_KINDS)
        if kind == "paragraph removed" and len(versions[-1].blocks) <= 3:
            kind = "sentence"
        versions.append(edited(versions[-1], kind, rng))
    return Article(path, via, hub, published, sorted(edits), versions=versions)


def _poisson(rng: random.Random, mean: float) -> int:
    # Knuth's: means here are small
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def build_world(days: float, count: int, seed: int) -> list[Article]:
    """The site's articles over ``days`` from START, with their edits and deletions."""
    rng = random.Random(seed)
    weights = [math.exp(rng.uniform(0, math.log(25))) for _ in range(HUBS)]
    span = days * 86400
    out: list[Article] = []
    for n in range(count):
        via = rng.choices([r for r, _ in ROUTES], [w for _, w in ROUTES])[0]
        hub = rng.choices(range(HUBS), weights)[0] if via == "hub" else -1
        if n < count * PREEXISTING:
            published = START - timedelta(seconds=rng.uniform(0, 30 * 86400))
        else:
            published = START + timedelta(seconds=rng.uniform(0, span))
        edits = [
            published
            + timedelta(
                seconds=rng.expovariate(
                    1 / (SOON_MEAN if rng.random() < SOON_SHARE else LATER_MEAN)
                )
            )
            for _ in range(_poisson(rng, EDITS_MEAN))
        ]
        article = new_article(rng, via, hub, published, edits)
        if rng.random() < DELETED_SHARE:
            article.deleted = published + timedelta(
                seconds=DELETE_AFTER + rng.expovariate(1 / DELETE_MEAN)
            )
            article.gone_status = 404 if len(out) % 2 else 410
            keep = [e for e in article.edits if e < article.deleted]
            article.versions = article.versions[: len(keep) + 1]
            article.edits = keep
        out.append(article)
    return sorted(out, key=lambda a: a.published)


class Site:
    """What the site shows at its simulated instant ``now``; every render has new noise."""

    def __init__(self, articles: list[Article]) -> None:
        self.articles = articles
        self.by_path = {a.path: a for a in articles}
        self.by_route: dict[tuple[str, int], list[Article]] = defaultdict(list)
        for a in sorted(articles, key=lambda a: a.published):
            self.by_route[(a.via, a.hub)].append(a)
        self.now = START
        self._renders = itertools.count(1)

    # the truth: what a page shows at an instant, noise apart (None: not a page of the site)

    def listed(self, via: str, hub: int, at: datetime, limit: int | None) -> list[Article]:
        """The route's articles live at ``at``, newest first, at most ``limit``."""
        items = self.by_route.get((via, hub), [])
        out = []
        for a in reversed(items[: bisect_right([x.published for x in items], at)]):
            if a.live(at):
                out.append(a)
                if limit is not None and len(out) == limit:
                    break
        return out

    def state(self, path: str, at: datetime) -> object:
        """What ``path`` shows at ``at`` apart from noise: a change in truth is a change of it."""
        article = self.by_path.get(path)
        if article is not None:
            return ("article", article.version(at)) if article.live(at) else ("gone",)
        if path == "/":
            return ("home",)
        hub = section_of(path)
        if hub is not None:
            return tuple(
                (a.path, a.content(at).headline, teaser(a.content(at)))
                for a in self.listed("hub", hub, at, LISTED)
            )
        return None

    # the pages

    def page(self, path: str) -> Answer:
        now = self.now
        n = next(self._renders)
        if path == "/robots.txt":
            return 200, "text/plain", b"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n"
        if path in ("/", "/index.html"):
            links = "".join(
                f'<li><a href="/section/{name}/">{name.title()}</a></li>' for name in SECTIONS
            )
            body = (
                f"<h1>{SITE}</h1><p>News from the valley and the towns around it, every day, "
                f"from our reporters in {len(SECTIONS)} sections.</p><ul>{links}</ul>"
            )
            return 200, "text/html; charset=utf-8", render(SITE, body, now, n).encode()
        hub = section_of(path)
        if hub is not None:
            items = "".join(
                f'<li><h2><a href="{a.path}">{a.content(now).headline}</a></h2>'
                f"<p>{teaser(a.content(now))}</p></li>"
                for a in self.listed("hub", hub, now, LISTED)
            )
            title = SECTIONS[hub].title()
            body = f"<h1>{title}</h1><ul class='stories'>{items}</ul>"
            return 200, "text/html; charset=utf-8", render(title, body, now, n).encode()
        if path == "/sitemap.xml":
            urls = "".join(
                f"<url><loc>{{base}}{a.path}</loc><lastmod>{a.modified(now).isoformat()}</lastmod></url>"
                for a in self.listed("sitemap", -1, now, None)
            )
            body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
            return 200, "application/xml", body.encode()
        if path == "/feed.xml":
            items = "".join(
                f"<item><title>{a.content(now).headline}</title><link>{{base}}{a.path}</link>"
                f"<pubDate>{format_datetime(a.published)}</pubDate></item>"
                for a in self.listed("feed", -1, now, LISTED)
            )
            body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>{SITE}</title>{items}</channel></rss>'
            return 200, "application/rss+xml", body.encode()
        article = self.by_path.get(path)
        if article is None or article.published > now:
            return 404, "text/html", b"<html><body><h1>Not found</h1></body></html>"
        if not article.live(now):
            return article.gone_status, "text/html", b"<html><body><h1>Gone</h1></body></html>"
        content = article.content(now)
        blocks = list(content.blocks)
        picks = [TRENDING[(n * 7 + k * 5) % len(TRENDING)] for k in range(3)]
        ticker = (
            f'<div class="trending-now"><strong>Trending now</strong> {" · ".join(picks)}</div>'
        )
        blocks.insert(min(2, len(blocks)), ticker)
        meta = f'<meta property="article:published_time" content="{article.published.isoformat()}">'
        body = (
            f'<h1 class="title">{content.headline}</h1>'
            f'<p class="byline">Published {article.published:%d %B %Y}</p>' + "\n".join(blocks)
        )
        html = render(content.headline, body, now, n, meta, article.hub)
        return 200, "text/html; charset=utf-8", html.encode()


def section_of(path: str) -> int | None:
    if path.startswith("/section/") and path.endswith("/"):
        name = path[len("/section/") : -1]
        if name in SECTIONS:
            return SECTIONS.index(name)
    return None


def teaser(content: Content) -> str:
    first = content.blocks[0].removeprefix("<p>").removesuffix("</p>")
    return first.split(". ")[0].rstrip(".") + "."


def render(title: str, main: str, now: datetime, n: int, head: str = "", hub: int = -1) -> str:
    """A page of the site around ``main``: the noise (clock, "updated", counter, token, ad,
    footer year) in the boilerplate, new at every render ``n``."""
    token = hashlib.sha1(str(n).encode()).hexdigest()
    nav = " ".join(
        f'<a href="/section/{SECTIONS[h]}/">{SECTIONS[h].title()}</a>'
        for h in sorted({hub % HUBS, 0, 1, 2, 3} - {-1})
    )
    clock = clock_text(now + timedelta(seconds=n % 60), 3)
    updated = relative_text(n % 58 + 1, 0)
    hits = counter_text(1000 + n * 3, 0)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | {SITE}</title>
<meta name="csrf-token" content="{token}">{head}
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<script>window.__state = {{"ts": {n}}};</script>
</head><body>
<header class="site-header"><div class="logo"><a href="/">{SITE}</a></div>
<nav class="main-nav">{nav}</nav><div class="clock">{clock}</div></header>
<div class="layout"><main class="content" id="main">
{main}
</main>
<aside class="sidebar"><p class="latest">{updated}</p>
<div class="ad-slot"><small>Advertisement</small> {ADS[n % len(ADS)]}</div></aside></div>
<footer class="site-footer"><p>© {now.year} {SITE}</p><span class="hits">{hits}</span></footer>
</body></html>"""


# --- the watch ----------------------------------------------------------------------------


@dataclass
class Watch:
    project: Path
    base: str
    instants: list[datetime]
    crawl_seconds: list[float]
    #: pages each crawl fetched (its summary's ``fetched``)
    crawl_fetched: list[int]
    rule: bool
    schedule: str
    #: CPU seconds of each crawl (its process and the analysis processes it ran: user + system)
    crawl_cpu: list[float] = field(default_factory=list)

    @property
    def fetched(self) -> int:
        return sum(self.crawl_fetched)

    def cost_fit(self) -> tuple[float, float]:
        """A crawl's seconds as ``a + b × pages fetched`` (least squares): what a crawl
        costs however little it fetches, and what a page adds."""
        n = len(self.crawl_seconds)
        if n < 2 or len(set(self.crawl_fetched)) < 2:
            return statistics.mean(self.crawl_seconds), 0.0
        mx, my = statistics.mean(self.crawl_fetched), statistics.mean(self.crawl_seconds)
        sxx = sum((x - mx) ** 2 for x in self.crawl_fetched)
        sxy = sum(
            (x - mx) * (y - my) for x, y in zip(self.crawl_fetched, self.crawl_seconds, strict=True)
        )
        b = sxy / sxx
        return my - b * mx, b


def watch(
    site: Site,
    base: str,
    project: Path,
    days: float,
    step_hours: float,
    schedule: str = "discovery",
    params: tuple[str, ...] = (),
    rule: bool = True,
    progress: bool = False,
    settings: tuple[str, ...] = (),
) -> Watch:
    """Set the project up as an archivist would, then crawl it every step of simulated time."""
    recrawl("init", str(project))
    if settings:
        recrawl("settings", str(project), *(f"--set={s}" for s in settings))
    if schedule:
        recrawl("schedule", str(project), "--set", schedule, *(f"--param={p}" for p in params))
    if rule:
        recrawl("changes", str(project), "--set", "127.0.0.1", "--remove", TICKER_SELECTOR)
    recrawl("inject", str(project), base + "/")
    steps = int(days * 24 / step_hours)
    instants, seconds, counts, cpu = [], [], [], []
    began = time.perf_counter()
    for k in range(steps + 1):
        site.now = START + timedelta(hours=k * step_hours)
        t0, cpu0 = time.perf_counter(), children_cpu()
        counts.append(crawl_at(project, site.now)["fetched"])
        seconds.append(time.perf_counter() - t0)
        cpu.append(children_cpu() - cpu0)
        instants.append(site.now)
        fetched = sum(counts)
        if progress and k and k % max(1, steps // 20) == 0:
            spent = time.perf_counter() - began
            print(
                f"  … crawl {k:,}/{steps:,} ({site.now:%Y-%m-%d}): {fetched:,} fetches, "
                f"{spent:.0f} s so far",
                file=sys.stderr,
                flush=True,
            )
    return Watch(project, base, instants, seconds, counts, rule, schedule, cpu)


def children_cpu() -> float:
    """CPU seconds of this process's ended children and theirs (user + system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- scoring ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fetch:
    url: str
    path: str
    at: datetime  # the crawl instant it belongs to
    fetched_at: datetime  # as stored
    status: int | None
    change: str


@dataclass
class Pairs:
    changed: int = 0
    detected: int = 0
    unchanged: int = 0
    false_alarms: int = 0
    unknown: int = 0

    def add(self, truth: bool, verdict: str) -> None:
        if verdict == "unknown":
            self.unknown += 1
        elif truth:
            self.changed += 1
            self.detected += verdict == "changed"
        else:
            self.unchanged += 1
            self.false_alarms += verdict == "changed"

    @property
    def recall(self) -> float:
        return self.detected / self.changed if self.changed else math.nan

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.unchanged if self.unchanged else math.nan


@dataclass
class Score:
    #: route → {path: delay in hours} for articles published during the watch
    delays: dict[str, dict[str, float]]
    #: articles never seen, published over GRACE before the last crawl / within it; seen
    #: but never captured
    missed: list[str]
    unseen_yet: list[str]
    uncaptured: list[str]
    #: kind (article, hub, home) → pair counts
    pairs: dict[str, Pairs]
    #: (path, earlier instant, later instant, changed in truth, verdict), every pair
    pair_list: list[tuple[str, datetime, datetime, bool, str]]
    freshness: float
    #: deleted path → delay in hours (None: not seen gone)
    gone: dict[str, float | None]
    #: a 404/410 before a page's deletion (never should be)
    wrongly_gone: list[str]
    fetches_by_kind: dict[str, int]
    pages_by_kind: dict[str, int]
    days: float
    unplaced: int


def kind_of(site: Site, path: str) -> str:
    if path in site.by_path:
        return "article"
    if path == "/":
        return "home"
    return "hub" if section_of(path) is not None else "other"


def fetch_events(project: Path, base: str, instants: list[datetime]) -> list[Fetch]:
    """The store's fetch events, each placed at the crawl instant it belongs to (a crawl's
    clock starts at its instant and runs on for the seconds it takes)."""
    from recrawl.core.project import Project
    from recrawl.core.store.models import FetchEvent, Page

    opened = Project.open(project)
    try:
        rows = list(
            FetchEvent.select(
                Page.url, FetchEvent.fetched_at, FetchEvent.http_status, FetchEvent.change
            )
            .join(Page)
            .order_by(FetchEvent.id)
            .tuples()
        )
    finally:
        opened.close()
    out = []
    for url, fetched_at, status, change in rows:
        at = fetched_at.replace(tzinfo=UTC)
        k = bisect_right(instants, at) - 1
        if k < 0 or not url.startswith(base):
            continue
        out.append(Fetch(url, url[len(base) :] or "/", instants[k], at, status, change))
    return out


def freshness(site: Site, fetches: dict[str, list[Fetch]], begin: datetime, end: datetime) -> float:
    """Share of article-time within [begin, end) whose latest capture is the current version."""
    live_total = stale_total = 0.0
    for a in site.articles:
        lo = max(a.published, begin)
        hi = min(a.deleted or end, end)
        if hi <= lo:
            continue
        captures = [f.at for f in fetches.get(a.path, []) if f.status == 200]
        points = sorted(
            {lo, *(e for e in a.edits if lo < e < hi), *(c for c in captures if lo < c < hi)}
        )
        for start, until in itertools.pairwise([*points, hi]):
            k = bisect_right(captures, start) - 1
            fresh = k >= 0 and a.version(captures[k]) == a.version(start)
            if not fresh:
                stale_total += (until - start).total_seconds()
        live_total += (hi - lo).total_seconds()
    return 1 - stale_total / live_total if live_total else math.nan


def score(site: Site, run: Watch, pages: list[dict[str, Any]], events: list[Fetch]) -> Score:
    first, last = run.instants[0], run.instants[-1]
    by_path: dict[str, list[Fetch]] = defaultdict(list)
    for f in events:
        by_path[f.path].append(f)
    known = {p["url"][len(run.base) :] or "/": p for p in pages if p["url"].startswith(run.base)}

    delays: dict[str, dict[str, float]] = {route: {} for route, _ in ROUTES}
    missed, unseen_yet, uncaptured = [], [], []
    for a in site.articles:
        if not a.shown(first, last):
            continue
        page = known.get(a.path)
        if page is None:
            (missed if a.published <= last - GRACE else unseen_yet).append(a.path)
            continue
        if not any(f.status == 200 for f in by_path[a.path]):
            uncaptured.append(a.path)
        if a.published >= first:
            seen = parse_iso(page["first_seen"])
            delays[a.via][a.path] = (seen - a.published).total_seconds() / 3600

    pairs: dict[str, Pairs] = defaultdict(Pairs)
    pair_list = []
    unplaced = 0
    for path, fs in by_path.items():
        ok = [f for f in fs if f.status == 200]
        if site.state(path, first) is None:
            unplaced += len(fs)
            continue
        for before, after in itertools.pairwise(ok):
            truth = site.state(path, before.at) != site.state(path, after.at)
            pairs[kind_of(site, path)].add(truth, after.change)
            pair_list.append((path, before.at, after.at, truth, after.change))

    gone: dict[str, float | None] = {}
    wrongly = []
    for a in site.articles:
        bad = [f for f in by_path.get(a.path, []) if f.status in (404, 410)]
        if any(a.deleted is None or f.at < a.deleted for f in bad):
            wrongly.append(a.path)
        if a.deleted is None or a.deleted > last or not a.shown(first, last):
            continue
        seen = [f.at for f in bad if f.at >= a.deleted]
        gone[a.path] = (min(seen) - a.deleted).total_seconds() / 3600 if seen else None

    fetches_by_kind: dict[str, int] = defaultdict(int)
    for f in events:
        fetches_by_kind[kind_of(site, f.path)] += 1
    pages_by_kind: dict[str, int] = defaultdict(int)
    for path in known:
        pages_by_kind[kind_of(site, path)] += 1
    return Score(
        delays,
        missed,
        unseen_yet,
        uncaptured,
        dict(pairs),
        pair_list,
        freshness(site, by_path, first, last),
        gone,
        wrongly,
        dict(fetches_by_kind),
        dict(pages_by_kind),
        (last - first).total_seconds() / 86400,
        unplaced,
    )


# --- the commands at the end --------------------------------------------------------------


@dataclass
class Timings:
    urls: float
    news: float
    storage: float | None  # None: no such command
    show: list[float]
    show_failures: int
    replay: list[float]
    replay_failures: int
    replay_error: str | None


def quantile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def time_commands(
    project: Path, events: list[Fetch], rng: random.Random
) -> tuple[Timings, list[dict[str, Any]]]:
    """Time what an archivist asks at the end, each as a whole process; also returns
    ``urls --json``'s pages (what scoring reads)."""
    urls_s, done = timed_recrawl("urls", str(project), "--json")
    if done.returncode != 0:
        raise RuntimeError(f"recrawl urls failed: {done.stderr[-2000:]}")
    pages = json.loads(done.stdout)
    news_s, done = timed_recrawl("news", str(project), "--json")
    if done.returncode != 0:
        raise RuntimeError(f"recrawl news failed: {done.stderr[-2000:]}")
    storage_s: float | None
    storage_s, done = timed_recrawl("storage", str(project), "--json")
    if done.returncode != 0:
        storage_s = None  # no `recrawl storage` on this branch (s18-storage adds it)
    captures = [f for f in events if f.status == 200]
    show, show_failures = [], 0
    for f in rng.sample(captures, min(SHOW_SAMPLES, len(captures))):
        seconds, done = timed_recrawl("show", str(project), f.url, "--at", iso(f.fetched_at))
        if done.returncode != 0 or not done.stdout:
            show_failures += 1
        show.append(seconds)
    replay, replay_failures, error = time_replay(project, captures, rng)
    return (
        Timings(urls_s, news_s, storage_s, show, show_failures, replay, replay_failures, error),
        pages,
    )


def time_replay(
    project: Path, captures: list[Fetch], rng: random.Random
) -> tuple[list[float], int, str | None]:
    from recrawl.core.errors import ReplayError
    from recrawl.core.replay.server import ReplayServer

    try:
        server = ReplayServer(project)
    except ReplayError as exc:  # pywb not installed, or it would not start
        return [], 0, str(exc)
    times, failures = [], 0
    try:
        sample = rng.sample(captures, min(REPLAY_SAMPLES + 1, len(captures)))
        for i, f in enumerate(sample):
            url = server.url(f.fetched_at.strftime("%Y%m%d%H%M%S"), f.url, raw=True)
            began = time.perf_counter()
            try:
                with urllib.request.urlopen(url, timeout=30) as answer:
                    body = answer.read()
                    memento = parsedate_to_datetime(answer.headers.get("Memento-Datetime", ""))
                # the capture asked for, not a neighbour: its instant, to the second
                ok = bool(body) and memento == f.fetched_at.replace(microsecond=0)
            except (OSError, ValueError, TypeError):
                ok = False
            spent = time.perf_counter() - began
            if i:  # the first warms pywb up
                times.append(spent)
                failures += not ok
    finally:
        server.stop()
    return times, failures, None


# --- the report ---------------------------------------------------------------------------


def disk(project: Path) -> tuple[int, int, int]:
    """Segments, WARC bytes (segments and history), store bytes."""
    segments = [p for p in (project / "segments").glob("*") if p.is_dir()]
    warcs = sum(
        p.stat().st_size
        for folder in ("segments", "history")
        for p in (project / folder).rglob("*.warc.gz")
    )
    store = sum(p.stat().st_size for p in project.glob("recrawl.sqlite*"))
    return len(segments), warcs, store


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(site: Site, run: Watch, result: Score, timings: Timings, wall: float) -> list[bool]:
    """Print the figures with their targets; returns each target's verdict."""
    verdicts: list[bool] = []

    def target(ok: bool, text: str) -> str:
        verdicts.append(ok)
        return f"(target {text}: {verdict(ok)})"

    crawls = len(run.crawl_seconds)
    mean_crawl = statistics.mean(run.crawl_seconds)
    tenth = max(1, crawls // 10)
    print(
        f"watch: {crawls:,} crawls over {result.days:g} days, {run.fetched:,} fetches, "
        f"schedule {run.schedule or 'default'}, change rule {'set' if run.rule else 'not set'}; "
        f"crawl {mean_crawl:.2f} s each (first tenth {statistics.mean(run.crawl_seconds[:tenth]):.2f} s, "
        f"last tenth {statistics.mean(run.crawl_seconds[-tenth:]):.2f} s, slowest "
        f"{max(run.crawl_seconds):.2f} s); bench wall time {wall:.0f} s"
    )
    fixed, per_page = run.cost_fit()
    cpu = statistics.mean(run.crawl_cpu) if run.crawl_cpu else math.nan
    # a year of crawls at this step, from the wall times and from the CPU times (on a busy
    # machine the wall times say more about the other load than about the crawl)
    year = 365 * 24 / (result.days / max(1, crawls - 1) * 24) if result.days else math.nan
    fit = (
        f"{fixed:.2f} s + {1000 * per_page:.1f} ms a page fetched (least squares)"
        if per_page > 0
        else "no fit (wall times not rising with pages: the machine's other load)"
    )
    print(
        f"crawl cost: {fit}; {run.fetched / crawls:.1f} pages a crawl; CPU {cpu:.2f} s a crawl "
        f"(user + system, its analysis processes included); a year of such crawls "
        f"({year:,.0f}): {year * mean_crawl / 60:,.0f} min at this wall time, "
        f"{year * cpu / 60:,.0f} CPU-min"
    )
    print("discovery delay (first_seen - published, hours):")
    for route, _ in ROUTES:
        values = list(result.delays[route].values())
        wanted = sum(
            1
            for a in site.articles
            if a.via == route and run.instants[0] <= a.published <= run.instants[-1]
        )
        figures = (
            f"mean {statistics.mean(values):6.1f}, median {statistics.median(values):6.1f}, "
            f"max {max(values):6.1f}"
            if values
            else "none seen"
        )
        print(
            f"  {route:<8} {len(values):>5,} of {wanted:>5,} published during the watch: {figures}"
        )
    articles = sum(1 for a in site.articles if a.shown(run.instants[0], run.instants[-1] - GRACE))
    print(
        f"articles missed (never seen, published {GRACE.days} d or more before the last crawl): "
        f"{len(result.missed):,} of {articles:,} "
        + target(not result.missed, "none missed")
        + f"; not seen yet, published since: {len(result.unseen_yet):,}; seen, never captured: "
        f"{len(result.uncaptured):,}"
    )
    total = Pairs()
    print("change per pair of consecutive 200 fetches (truth: content apart from noise):")
    for kind in ("article", "hub", "home"):
        p = result.pairs.get(kind, Pairs())
        for name in ("changed", "detected", "unchanged", "false_alarms", "unknown"):
            setattr(total, name, getattr(total, name) + getattr(p, name))
        print(
            f"  {kind:<8} {p.changed + p.unchanged + p.unknown:>7,} pairs: recall "
            f"{p.detected:,}/{p.changed:,} = {100 * p.recall:5.1f} %, false alarms "
            f"{p.false_alarms:,}/{p.unchanged:,} = {100 * p.false_alarm_rate:5.2f} %, unknown {p.unknown:,}"
        )
    print(
        f"  all      recall {100 * total.recall:5.1f} % "
        + target(total.recall >= 0.99, ">= 99 %")
        + f", false alarms {100 * total.false_alarm_rate:5.2f} % "
        + target(total.false_alarm_rate <= 0.01, "<= 1 %")
    )
    print(
        f"freshness (share of article-time whose latest capture is the current version): "
        f"{100 * result.freshness:5.1f} % " + target(result.freshness >= 0.95, ">= 95 %")
    )
    delays = [d for d in result.gone.values() if d is not None]
    figures = (
        f"delay mean {statistics.mean(delays):.1f} h, median {statistics.median(delays):.1f} h, "
        f"max {max(delays):.1f} h"
        if delays
        else "no delay"
    )
    print(
        f"gone pages found: {len(delays):,} of {len(result.gone):,} deleted, {figures}; "
        f"wrongly gone: {len(result.wrongly_gone):,}"
    )
    per_day = ", ".join(
        f"{kind} {result.fetches_by_kind.get(kind, 0) / result.pages_by_kind[kind] / result.days:.3f}"
        for kind in ("article", "hub", "home")
        if result.pages_by_kind.get(kind) and result.days
    )
    pages = sum(result.pages_by_kind.values())
    fetches = sum(result.fetches_by_kind.values())
    print(
        f"fetches per page per day: {fetches / pages / result.days:.3f} over {pages:,} pages "
        f"({per_day})"
        if pages and result.days
        else "fetches per page per day: n/a"
    )
    segments, warc_bytes, store_bytes = disk(run.project)
    print(
        f"segments: {segments:,} "
        + target(segments <= 60, "<= 60")
        + f"; WARC bytes on disk: {warc_bytes / 1e6:,.1f} MB; store: {store_bytes / 1e6:,.1f} MB"
    )
    print(
        f"urls --json {timings.urls:.2f} s "
        + target(timings.urls < 0.5, "< 0.5 s")
        + f"; news --json {timings.news:.2f} s "
        + target(timings.news < 0.5, "< 0.5 s")
        + "; storage --json "
        + (
            f"{timings.storage:.2f} s " + target(timings.storage < 0.5, "< 0.5 s")
            if timings.storage is not None
            else "n/a (no such command yet)"
        )
    )
    print(
        f"show --at of {len(timings.show)} random captures: median "
        f"{statistics.median(timings.show):.2f} s, p95 {quantile(timings.show, 0.95):.2f} s, "
        f"failed {timings.show_failures}"
        if timings.show
        else "show --at: no captures"
    )
    if timings.replay_error:
        print(f"replay lookup: n/a ({timings.replay_error})")
    elif timings.replay:
        p95 = quantile(timings.replay, 0.95)
        print(
            f"replay lookup (id_) of {len(timings.replay)} random captures: median "
            f"{1000 * statistics.median(timings.replay):.1f} ms, p95 {1000 * p95:.1f} ms "
            + target(p95 < 0.05, "< 50 ms")
            + f", failed {timings.replay_failures}"
        )
    return verdicts


def run_bench(args: argparse.Namespace) -> int:
    began = time.perf_counter()
    site = Site(build_world(args.days, args.articles, args.seed))
    counts = {r: sum(a.via == r for a in site.articles) for r, _ in ROUTES}
    print(
        f"site: {len(site.articles):,} articles ({counts['hub']:,} in {HUBS} hubs, "
        f"{counts['sitemap']:,} in the sitemap only, {counts['feed']:,} in the feed only; "
        f"{sum(a.published < START for a in site.articles):,} before the first crawl), "
        f"{sum(len(a.edits) for a in site.articles):,} edits, "
        f"{sum(a.deleted is not None for a in site.articles):,} deletions; a crawl every "
        f"{args.step_hours:g} h for {args.days:g} days; noise on every render (clock, "
        f"'updated', counter, token, ad; a ticker in the article"
        + (", under a change rule)" if not args.no_rule else ", no rule)")
    )
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="recrawl-longwatch-"))
    work.mkdir(parents=True, exist_ok=True)
    project = work / "project"
    if project.exists():
        shutil.rmtree(project)
    server, base = serve(site.page)
    try:
        run = watch(
            site,
            base,
            project,
            args.days,
            args.step_hours,
            args.schedule,
            tuple(args.param),
            rule=not args.no_rule,
            progress=True,
            settings=tuple(args.set),
        )
        site.now = run.instants[-1]
        events = fetch_events(project, base, run.instants)
        timings, pages = time_commands(project, events, random.Random(args.seed))
        result = score(site, run, pages, events)
        verdicts = report(site, run, result, timings, time.perf_counter() - began)
    finally:
        stop(server)
        if args.keep or args.out:
            print(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if all(verdicts) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=float, default=365.0)
    parser.add_argument("--step-hours", type=float, default=6.0)
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--schedule", default="discovery", help="the project's schedule ('' keeps the default)"
    )
    parser.add_argument("--param", action="append", default=[], help="schedule K=V")
    parser.add_argument(
        "--set", action="append", default=[], help="a project setting NAME=VALUE (recrawl settings)"
    )
    parser.add_argument("--no-rule", action="store_true", help="set no change rule for the ticker")
    parser.add_argument("--keep", action="store_true", help="keep the project")
    parser.add_argument("--out", help="work in DIR (DIR/project), kept")
    return run_bench(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
