"""What the app says about watching: the sleeping line, the tray tooltip, notifications."""

from __future__ import annotations

from datetime import datetime, timedelta

from recrawl.core.engine import PageFetched, RoundFinished, WatchRound
from recrawl.core.engine.events import BaselineDone
from recrawl.gui.common.formatting import local_time
from recrawl.gui.watch.watch_text import (
    Mode,
    NewsBatcher,
    RoundNews,
    TrayState,
    WatcherHolder,
    news_message,
    sleeping_text,
    tray_tooltip,
    watch_round_text,
    watch_summary_text,
    watched_text,
)

NOW = datetime(2026, 11, 30, 12, 0, 0)


def fetched(
    url: str, change: str, error: str | None = None, kind: str = "page", news: str | None = None
) -> PageFetched:
    return PageFetched(url, "fetched", 200, change, 100, 1.0, error, kind, news)


def finished(new: int, changed: int, *done: BaselineDone, baseline: int = 0) -> RoundFinished:
    return RoundFinished(
        1, "s1", 5, 0, 0, new_pages=new, changed_pages=changed, baseline_pages=baseline,
        baselines_done=done,
    )  # fmt: skip


def test_sleeping_says_when_the_next_page_is_due_in_local_time():
    due = NOW + timedelta(hours=3.2)
    text = sleeping_text(due, NOW)
    assert local_time(due) in text and "(in 3.2 h)" in text
    assert "nothing is due" in sleeping_text(None, NOW)


def test_the_tooltip_says_the_state_and_the_unseen_news():
    due = NOW + timedelta(minutes=30)
    tip = tray_tooltip(TrayState(Mode.SLEEPING, due, None, 4), "/p", NOW)
    assert tip.splitlines() == [
        "Recrawl — /p",
        f"watching — next due {local_time(due)} (in 30 min)",
        "4 unseen news items",
    ]
    holder = WatcherHolder(4242, NOW)
    assert "watched by pid 4242" in tray_tooltip(TrayState(Mode.EXTERNAL, holder=holder), "/p", NOW)
    assert tray_tooltip(TrayState(), "/p", NOW).splitlines()[1:] == ["idle"]
    assert "1 unseen news item" in tray_tooltip(TrayState(Mode.PAUSED, unseen=1), "/p", NOW)
    assert f"since {local_time(NOW)}" in watched_text(holder)


def test_one_message_per_round_with_the_counts_and_the_sites():
    batcher = NewsBatcher()
    batcher.feed(
        [
            fetched("https://example.org/a", "changed", news="changed"),
            fetched("https://example.org/b", "unknown", news="new"),
            fetched("https://example.org/c", "unchanged"),
            fetched("https://other.net/x", "unknown", news="new"),
            fetched("https://third.net/y", "changed", news="changed"),
            fetched("https://broken.net/z", "unknown", error="timeout"),
            # what pages embed is never news: a CDN's images name no site
            *(fetched(f"https://cdn.example/{i}.png", "unknown", kind="embed") for i in range(9)),
            # nor the pages of a first crawl under way (its host's baseline, docs/design.md §15)
            *(fetched(f"https://fresh.org/{i}", "unknown", news="baseline") for i in range(9)),
            finished(12, 2, baseline=9),
        ]
    )
    batcher.feed([finished(0, 1)])  # a second crawl round of the same watch round
    news = batcher.take()
    assert (news.new_pages, news.changed_pages) == (12, 3)
    assert news_message(news) == "12 new pages, 3 changed on example.org and 2 other sites"
    # the next round starts afresh: no news, no message
    batcher.feed([fetched("https://example.org/c", "unchanged"), finished(0, 0)])
    assert news_message(batcher.take()) is None


def test_a_first_crawl_is_said_once_when_done_not_while_under_way():
    batcher = NewsBatcher()
    pages = [fetched(f"https://fresh.org/{i}", "unknown", news="baseline") for i in range(40)]
    batcher.feed([*pages, finished(0, 0, baseline=40)])
    assert news_message(batcher.take()) is None  # under way: its pages are no news
    done = BaselineDone("fresh.org", "https://fresh.org/", 535)
    batcher.feed([*pages[:5], finished(0, 0, done, baseline=5)])
    assert news_message(batcher.take()) == "First crawl of fresh.org done: 535 pages archived"
    # with other news: a line of its own
    batcher.feed([fetched("https://a.org/x", "changed", news="changed"), finished(0, 1, done)])
    assert news_message(batcher.take()) == (
        "1 changed page on a.org\nFirst crawl of fresh.org done: 535 pages archived"
    )


def test_message_wording():
    assert news_message(RoundNews(1, 0)) == "1 new page"
    assert news_message(RoundNews(0, 2)) == "2 changed pages"
    one = RoundNews(0, 1)
    one.hosts["a.org"] += 1
    assert news_message(one) == "1 changed page on a.org"


def test_a_watch_says_what_it_fetched_of_pages_and_embeds_apart():
    from recrawl.core.watch.watcher import WatchSummary

    round_ = WatchRound(NOW, 2, 1, 0, 0, None, embeds_fetched=38)
    assert watch_round_text(round_) == (
        "watch round: 2 pages fetched, 38 embeds fetched, 1 new page, 0 changed, 0 gone, "
        "0 back, 0 errors"
    )
    summary = WatchSummary(3, 5, 2, 1, 0, 3600.0, True, gone_pages=1)
    assert watch_summary_text(summary, 40, 2) == (
        "Watching stopped after 1.0 h: 3 rounds, 5 pages fetched, 40 embeds fetched "
        "(2 failed), 2 new, 1 changed, 1 gone, 0 back, 0 errors"
    )
    assert "embeds" not in watch_summary_text(summary)  # none fetched: not said


def test_a_watch_round_says_pages_gone_back_and_archived_by_a_first_crawl():
    done = BaselineDone("fresh.org", "https://fresh.org/", 12)
    round_ = WatchRound(
        NOW, 20, 0, 1, 0, None, gone_pages=2, back_pages=1, baseline_pages=12,
        baselines_done=(done,),
    )  # fmt: skip
    assert watch_round_text(round_).splitlines() == [
        "watch round: 20 pages fetched, 0 new pages, 1 changed, 2 gone, 1 back, "
        "12 pages archived by first crawls, 0 errors",
        "First crawl of fresh.org done: 12 pages archived",
    ]
