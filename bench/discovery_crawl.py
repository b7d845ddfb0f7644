"""Discovery benchmark (issue 14), part (b): a real crawl of a site that grows for a month.

    python bench/discovery_crawl.py [--days 30] [--step-hours 6] [--seed 0]

A loopback site (a threaded Python server in this process, bench/simulated_site.py) publishes articles over a
simulated month, each at a known instant, by three paths:

- **hubs**: 20 section pages, each listing its latest 30 articles (only there), new ones
  arriving as Poisson processes at rates from one every five days to eight a day;
- **sitemap**: articles listed only in ``/sitemap.xml`` (named by robots.txt), with their
  ``lastmod``;
- **feed**: articles listed only in ``/feed.xml`` (RSS, advertised by the home page's
  ``<link rel="alternate">``), with their ``pubDate``.

An article's URL answers 404 until it is published. For each schedule (the project
default, aronsson, and discovery), a new project is seeded with the home page and
crawled with ``recrawl crawl --now T`` every ``--step-hours`` of simulated time (the
server's clock set to T first), as a watcher would come back. At the end, each article's
first-seen delay (its ``first_seen`` − its real publication instant) is averaged per path;
articles never seen are counted apart. A step of S hours adds about S/2 to every delay
(a page published between two visits waits for the next), the same for every path.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path
from statistics import mean, median

from bench.simulated_site import crawl_at, recrawl, serve, stop

START = datetime(2027, 3, 1, tzinfo=UTC)
HUBS = 20
LISTED = 30


@dataclass(frozen=True)
class Article:
    path: str
    published: datetime
    via: str  # the path it is published by: hub, sitemap, feed
    hub: int = -1


def articles(days: float, seed: int) -> list[Article]:
    rng = random.Random(seed)
    out: list[Article] = []
    end = days * 86400
    for hub in range(HUBS):
        per_day = math.exp(rng.uniform(math.log(0.2), math.log(8.0)))
        t = rng.expovariate(per_day / 86400)
        while t < end:
            out.append(
                Article(f"/s{hub}/a{len(out)}.html", START + timedelta(seconds=t), "hub", hub)
            )
            t += rng.expovariate(per_day / 86400)
    for via, count in (("sitemap", 120), ("feed", 120)):
        for _ in range(count):
            at = START + timedelta(seconds=rng.uniform(0, end))
            out.append(Article(f"/{via}/a{len(out)}.html", at, via))
    return sorted(out, key=lambda a: a.published)


class Site:
    """What the site shows at its simulated instant ``now``."""

    def __init__(self, items: list[Article]) -> None:
        self.items = items
        self.by_path = {a.path: a for a in items}
        self.now = START

    def published(self, via: str, hub: int = -1) -> list[Article]:
        return [a for a in self.items if a.via == via and a.hub == hub and a.published <= self.now]

    def page(self, path: str) -> tuple[int, str, bytes]:
        if path == "/robots.txt":
            return 200, "text/plain", b"User-agent: *\nAllow: /\nSitemap: /sitemap.xml\n"
        if path in ("/", "/index.html"):
            links = "".join(f'<li><a href="/s{h}/">Section {h}</a></li>' for h in range(HUBS))
            head = '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
            return (
                200,
                "text/html",
                f"<html><head>{head}</head><body><ul>{links}</ul></body></html>".encode(),
            )
        if path.startswith("/s") and path.endswith("/") and path[2:-1].isdigit():
            latest = self.published("hub", int(path[2:-1]))[-LISTED:][::-1]
            links = "".join(f'<li><a href="{a.path}">{a.path}</a></li>' for a in latest)
            return 200, "text/html", f"<html><body><ul>{links}</ul></body></html>".encode()
        if path == "/sitemap.xml":
            urls = "".join(
                f"<url><loc>{{base}}{a.path}</loc><lastmod>{a.published.isoformat()}</lastmod></url>"
                for a in self.published("sitemap")
            )
            body = f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
            return 200, "application/xml", body.encode()
        if path == "/feed.xml":
            items = "".join(
                f"<item><title>{a.path}</title><link>{{base}}{a.path}</link>"
                f"<pubDate>{format_datetime(a.published)}</pubDate></item>"
                for a in self.published("feed")[-LISTED:][::-1]
            )
            body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>Site</title>{items}</channel></rss>'
            return 200, "application/rss+xml", body.encode()
        article = self.by_path.get(path)
        if article is None or article.published > self.now:
            return 404, "text/html", b"<html><body>Not found</body></html>"
        meta = f'<meta property="article:published_time" content="{article.published.isoformat()}">'
        words = f"Article {path} says something new. " * 40
        return (
            200,
            "text/html",
            f"<html><head>{meta}</head><body><p>{words}</p></body></html>".encode(),
        )


def crawl_month(site: Site, base: str, work: Path, schedule: str, days: float, step: float) -> dict:
    project = work / schedule
    recrawl("init", str(project))
    if schedule != "aronsson":
        recrawl("schedule", str(project), "--set", schedule)
    recrawl("inject", str(project), base + "/")
    fetched = 0
    steps = int(days * 24 / step)
    for k in range(steps + 1):
        site.now = START + timedelta(hours=k * step)
        fetched += crawl_at(project, site.now)["fetched"]
    pages = json.loads(recrawl("urls", str(project), "--json"))
    return {"fetched": fetched, "pages": {p["url"][len(base) :]: p for p in pages}}


def report(site: Site, days: float, schedule: str, result: dict) -> None:
    horizon = START + timedelta(days=days)
    print(f"{schedule}: {result['fetched']:,} fetches in {days:g} days")
    for via in ("hub", "sitemap", "feed"):
        wanted = [a for a in site.items if a.via == via and a.published <= horizon]
        delays, found_via = [], {}
        for article in wanted:
            page = result["pages"].get(article.path)
            if page is None:
                continue
            seen = datetime.fromisoformat(page["first_seen"].replace("Z", "+00:00"))
            delays.append((seen - article.published).total_seconds() / 3600)
            found_via[page["discovered_via"]] = found_via.get(page["discovered_via"], 0) + 1
        ways = ", ".join(f"{k} {v}" for k, v in sorted(found_via.items()))
        figures = (
            f"mean {mean(delays):6.1f} h, median {median(delays):6.1f} h" if delays else "none seen"
        )
        print(
            f"  {via:<8} {len(delays):>4} of {len(wanted):>4} seen; first-seen delay {figures}"
            f" (found via: {ways or '-'})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=float, default=30.0)
    parser.add_argument("--step-hours", type=float, default=6.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--schedules", default="aronsson,discovery")
    args = parser.parse_args(argv)
    site = Site(articles(args.days, args.seed))
    counts = {via: sum(a.via == via for a in site.items) for via in ("hub", "sitemap", "feed")}
    print(
        f"site: {len(site.items)} articles over {args.days:g} days ({counts['hub']} in {HUBS} hubs,"
        f" {counts['sitemap']} in the sitemap only, {counts['feed']} in the feed only); a crawl "
        f"every {args.step_hours:g} h of simulated time (adds ~{args.step_hours / 2:g} h to every delay)"
    )
    server, base = serve(site.page)
    work = Path(tempfile.mkdtemp(prefix="recrawl-discovery-crawl-"))
    try:
        for schedule in args.schedules.split(","):
            report(
                site,
                args.days,
                schedule,
                crawl_month(site, base, work, schedule, args.days, args.step_hours),
            )
    finally:
        stop(server)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
