"""What the Crawl panel asks of the store thread, and how it says the answers.

The functions run inside ``context.jobs.submit`` and return frozen values; the text
functions turn those into the panel's sentences (plain Python, tested without Qt).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from datetime import datetime

from recrawl.core import store
from recrawl.core.clock import human_duration
from recrawl.core.config import CrawlSettings
from recrawl.core.engine import CrawlSummary
from recrawl.core.policy import crawl_settings
from recrawl.core.words import plural
from recrawl.gui.common.formatting import embeds_done, local_time, news_done


@dataclass(frozen=True)
class CrawlOutlook:
    """The last crawl and what is due: the Crawl panel's text while no crawl runs."""

    last_run: store.CrawlRunInfo | None
    #: The last run has no end and its process is alive: it runs elsewhere.
    running_elsewhere: bool
    pages: int
    due: int
    next_due: datetime | None


def crawl_outlook(now: datetime) -> CrawlOutlook:
    run = store.last_crawl_run()
    elsewhere = run is not None and not run.ended and _alive_elsewhere(run.pid)
    return CrawlOutlook(
        run, elsewhere, store.page_count(), store.count_due(now), store.next_due_at(now)
    )


def _alive_elsewhere(pid: int | None) -> bool:
    """Whether another process of this machine has the id ``pid``.

    Only asked on POSIX, where signal 0 checks without touching the process (on
    Windows os.kill would end it): there a run without an end reads as interrupted.
    """
    if pid is None or pid == os.getpid() or sys.platform == "win32":
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True  # it exists, under another user
    except OSError:
        return False
    return True


def load_settings() -> CrawlSettings:
    """The project's crawl settings (the defaults with what it keeps)."""
    return crawl_settings.project_crawl_settings()


# -- sentences ------------------------------------------------------------------------


def last_run_text(outlook: CrawlOutlook, watched: bool = False) -> str:
    """What the last crawl did; ``watched``: another process watches the project."""
    run = outlook.last_run
    if run is None:
        if outlook.pages == 0:
            then = "the watcher fetches them" if watched else "then Start"
            return f"This project is empty: add seed URLs on the left, {then}."
        return "No crawl is recorded for this project yet."
    started = local_time(run.started_at)
    if run.ended_at is None:
        if outlook.running_elsewhere:
            return f"A crawl started {started} is running in another process (pid {run.pid})."
        return (
            f"The last crawl, started {started}, was interrupted: it was closed or killed "
            f"before it ended, after {plural(run.fetched, 'page')} fetched and "
            f"{plural(run.errors, 'error')}. "
            "What it fetched is kept; the pages it did not reach are still due."
        )
    word = "was stopped" if run.stopped else "finished"
    took = human_duration((run.ended_at - run.started_at).total_seconds())
    return (
        f"The last crawl, started {started}, {word} after {took}: {plural(run.rounds, 'round')}, "
        f"{plural(run.fetched, 'page')} fetched, {plural(run.errors, 'error')}, "
        f"{plural(run.new_urls, 'new URL')}."
    )


def due_text(outlook: CrawlOutlook, now: datetime, watched: bool = False) -> str:
    """What is due; ``watched``: another process watches the project and fetches it."""
    if outlook.due:
        pages = "1 page is" if outlook.due == 1 else f"{outlook.due:,} pages are"
        who = "the watcher fetches them" if watched else "Start fetches them"
        return f"{pages} due now: {who}."
    if outlook.next_due is not None:
        wait = human_duration((outlook.next_due - now).total_seconds())
        return (
            f"Nothing is due now; the next page is due {local_time(outlook.next_due)} (in {wait})."
        )
    return "Nothing is due." if outlook.pages else ""


def crawl_summary_text(summary: CrawlSummary) -> str:
    """``Crawl finished: 2 pages in 1 round, 38 embeds fetched, 3 new URLs, …``."""
    word = "stopped" if summary.stopped else "finished"
    return (
        f"Crawl {word}: {plural(summary.fetched, 'page')} in {plural(summary.rounds, 'round')}"
        f"{_and_embeds(summary)}, "
        f"{plural(summary.new_urls, 'new URL')}, {plural(summary.errors, 'error')}, "
        f"{summary.pages_per_s:.1f} pages/s{_and_news(summary)}"
    )


def _and_news(summary: CrawlSummary) -> str:
    text = news_done(
        summary.new_pages, summary.changed_pages, summary.gone_pages, summary.back_pages,
        summary.baseline_pages,
    )  # fmt: skip
    return f"; {text}" if text else ""


def _and_embeds(summary: CrawlSummary) -> str:
    text = embeds_done(summary.embeds_fetched, summary.embed_errors)
    return f", {text}" if text else ""
