"""bench/longwatch_bench.py's scoring on a small watch (4 simulated days, 30 articles, a crawl
every 6 h), against the ground truth it built: the real ``recrawl crawl --now`` of the real
site, with a few articles of known fates added and a ``fixed`` schedule of 5 h, so every
page is fetched at every crawl and what the scoring must find is known exactly."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bench.longwatch_bench import (
    START,
    Fetch,
    Score,
    Site,
    Timings,
    Watch,
    build_world,
    fetch_events,
    new_article,
    report,
    score,
    watch,
)
from bench.simulated_site import recrawl, serve, stop

pytestmark = pytest.mark.slow

STEP = 6.0
DAYS = 4.0
H = timedelta(hours=1)
#: published between the first two crawls; edited between the third and fourth
FOUND = "feed-found"
#: published before the first crawl (in the feed's list), deleted before the third: 410
DELETED = "feed-deleted"
#: listed by section 0, edited (a new number) between the fifth and sixth crawls
EDITED = "hub-edited"


@dataclass(frozen=True)
class Watched:
    site: Site
    run: Watch
    events: list[Fetch]
    result: Score
    #: the known articles' paths, by name
    paths: dict[str, str]


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Watched:
    articles = build_world(DAYS, 30, seed=5)
    rng = random.Random(1)
    known = {
        FOUND: new_article(rng, "feed", -1, START + 7 * H, [START + 20 * H]),
        DELETED: new_article(rng, "feed", -1, START - 3 * H, []),
        EDITED: new_article(rng, "hub", 0, START - 30 * H, [START + 27 * H]),
    }
    known[DELETED].deleted = START + 9 * H
    known[DELETED].gone_status = 410
    site = Site(sorted([*articles, *known.values()], key=lambda a: a.published))
    server, base = serve(site.page)
    try:
        project = tmp_path_factory.mktemp("longwatch") / "project"
        run = watch(site, base, project, DAYS, STEP, "fixed", ("initial=5h",))
        events = fetch_events(project, base, run.instants)
        pages = json.loads(recrawl("urls", str(project), "--json"))
    finally:
        stop(server)
    paths = {name: a.path for name, a in known.items()}
    return Watched(site, run, events, score(site, run, pages, events), paths)


def test_every_crawl_instant_has_its_fetches_and_each_fetch_its_instant(
    watched: Watched,
) -> None:
    run, events = watched.run, watched.events
    assert len(run.instants) == DAYS * 24 / STEP + 1
    assert {f.at for f in events} == set(run.instants)  # a 5 h schedule: every crawl fetches
    for f in events:
        assert f.at <= f.fetched_at < f.at + timedelta(hours=STEP)
    home = [f.at for f in events if f.path == "/"]
    assert home == run.instants


def test_an_article_published_between_two_crawls_is_found_at_the_next(
    watched: Watched,
) -> None:
    result = watched.result
    delay = result.delays["feed"][watched.paths[FOUND]]
    assert 5 <= delay <= STEP  # published at 7 h, the crawl of 12 h saw it
    assert not result.missed
    # hubs are fetched at every crawl; the sitemap and the feed are read on their own
    # schedule (6 h at first, from the last read: at times one crawl later)
    for route, most in (("hub", STEP), ("sitemap", 2 * STEP), ("feed", 2 * STEP)):
        delays = result.delays[route]
        assert delays, route
        assert all(0 <= d <= most + 0.1 for d in delays.values()), (route, delays)


def test_a_known_edit_is_a_changed_pair_the_crawl_saw(
    watched: Watched,
) -> None:
    result = watched.result
    for name, before, after in ((FOUND, 18, 24), (EDITED, 24, 30)):
        pairs = [p for p in result.pair_list if p[0] == watched.paths[name]]
        changed = [(b, a) for _, b, a, truth, _ in pairs if truth]
        assert changed == [(START + before * H, START + after * H)], name
        assert all(verdict == ("changed" if truth else "unchanged") for *_, truth, verdict in pairs)
    assert result.pairs["article"].recall == 1.0
    # the hub lists the edited article: its listing (headlines, teasers) changed or not
    assert result.pairs["hub"].changed > 0


def test_noise_on_every_render_is_never_a_change(
    watched: Watched,
) -> None:
    result = watched.result
    unchanged = [p for p in result.pair_list if not p[3]]
    assert len(unchanged) > 100
    assert [p for p in unchanged if p[4] == "changed"] == []
    home = result.pairs["home"]
    assert home.unchanged == DAYS * 24 / STEP and home.false_alarms == 0 and home.changed == 0


def test_a_deleted_page_is_found_gone_at_the_next_crawl(
    watched: Watched,
) -> None:
    events, result = watched.events, watched.result
    gone = watched.paths[DELETED]
    assert result.gone[gone] == pytest.approx(3.0)  # deleted at 9 h, the crawl of 12 h saw it
    assert [f.status for f in events if f.path == gone][:2] == [200, 200]
    assert {f.status for f in events if f.path == gone and f.at >= START + 12 * H} == {410}
    assert not result.wrongly_gone
    assert all(delay is not None and delay <= STEP for delay in result.gone.values())


def test_freshness_is_the_share_of_article_time_before_each_edit_was_recaptured(
    watched: Watched,
) -> None:
    site, run, result = watched.site, watched.run, watched.result
    # stale from an article's publication, and from each edit, to its next capture
    # (computed here apart from the scoring's own walk)
    first, last = run.instants[0], run.instants[-1]
    captures: dict[str, list[datetime]] = {}
    for f in watched.events:
        if f.status == 200:
            captures.setdefault(f.path, []).append(f.at)

    live = stale = 0.0
    for a in site.articles:
        lo, hi = max(a.published, first), min(a.deleted or last, last)
        if hi <= lo:
            continue
        live += (hi - lo).total_seconds()
        # two edits before one capture are stale once: the intervals' union
        reached = lo
        for at in [lo, *(e for e in a.edits if lo < e < hi)]:
            later = [c for c in captures.get(a.path, []) if c >= at]
            until = min([*later, hi])
            stale += max(0.0, (until - max(at, reached)).total_seconds())
            reached = max(reached, until)
    assert result.freshness == pytest.approx(1 - stale / live, abs=1e-9)
    assert 0 < result.freshness < 1
    # every article is fetched at every crawl once found: nearly all time is fresh
    assert result.freshness > 0.8


def test_the_report_prints_each_figure_beside_its_target(
    watched: Watched, capsys: pytest.CaptureFixture[str]
) -> None:
    site, run, result = watched.site, watched.run, watched.result
    timings = Timings(0.1, 0.2, None, [0.3, 0.4], 0, [0.01, 0.02], 0, None)
    verdicts = report(site, run, result, timings, 60.0)
    out = capsys.readouterr().out
    assert "recall 100.0 % (target >= 99 %: ok)" in out
    assert "false alarms  0.00 % (target <= 1 %: ok)" in out
    assert "storage --json n/a" in out
    assert "segments: " in out and "(target <= 60:" in out
    assert "replay lookup (id_) of 2 random captures: median 15.0 ms" in out
    assert len(verdicts) == 8
    assert Path(run.project, "segments").is_dir()
