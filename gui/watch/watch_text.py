"""What the app says about watching (docs/design.md §10), apart from its widgets (no Qt).

The Crawl panel, the tray icon's tooltip and the desktop notifications take their
sentences from here, so they read alike and are tested without a window.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from recrawl.core.clock import human_duration
from recrawl.core.engine import Event, PageFetched, RoundFinished, WatchRound
from recrawl.core.engine.events import BaselineDone
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural
from recrawl.gui.common.formatting import baseline_done_text, embeds_done, local_time

if TYPE_CHECKING:  # the watcher (its engine) loads when the app watches
    from recrawl.core.watch.watcher import WatchSummary


class Mode(Enum):
    """What the open project's crawling does now, as the tray says it."""

    IDLE = "idle"
    CRAWLING = "crawling"
    WATCHING = "watching"  # a round of the watch runs
    SLEEPING = "sleeping"  # watching, nothing due yet
    PAUSED = "paused"
    STOPPING = "stopping"
    EXTERNAL = "external"  # another process (`recrawl watch`) holds the project


@dataclass(frozen=True)
class WatcherHolder:
    """Another process watching the project: its pid and since when (naive UTC)."""

    pid: int
    since: datetime | None


@dataclass(frozen=True)
class TrayState:
    mode: Mode = Mode.IDLE
    #: When the watch's next page is due (naive UTC), while it sleeps.
    next_due: datetime | None = None
    holder: WatcherHolder | None = None
    #: News not yet seen (None: not known).
    unseen: int | None = None


def sleeping_text(until: datetime | None, now: datetime, paused: bool = False) -> str:
    """``Watching: the next page is due 2026-11-30 21:40 (in 3.2 h).``"""
    if paused:
        return "Watching is paused: Resume goes on with the pages due."
    if until is None:
        return "Watching: nothing is due; a new seed or a changed schedule wakes the watch."
    wait = human_duration(max(0.0, (until - now).total_seconds()))
    return f"Watching: the next page is due {local_time(until)} (in {wait})."


def _and_embeds(fetched: int, failed: int = 0) -> str:
    """``, 38 embeds fetched`` (what pages embed, counted apart); empty for none."""
    text = embeds_done(fetched, failed)
    return f", {text}" if text else ""


def watch_round_text(event: WatchRound) -> str:
    """The log's line for a watch round (and one for each first crawl it completed)."""
    due = f"; next page due {local_time(event.next_due_at)}" if event.next_due_at else ""
    first = ""
    if event.baseline_pages:
        first = f", {plural(event.baseline_pages, 'page')} archived by first crawls"
    line = (
        f"watch round: {plural(event.fetched, 'page')} fetched"
        f"{_and_embeds(event.embeds_fetched)}, {plural(event.new_pages, 'new page')}, "
        f"{event.changed_pages:,} changed, {event.gone_pages:,} gone, "
        f"{event.back_pages:,} back{first}, {plural(event.errors, 'error')}{due}"
    )
    return "\n".join([line, *(baseline_done_text(d.host, d.pages) for d in event.baselines_done)])


def watch_summary_text(summary: WatchSummary, embeds: int = 0, embed_errors: int = 0) -> str:
    """What a watch did; ``embeds``: what pages embed that it fetched (and failed to)."""
    word = "stopped" if summary.stopped else "ended"
    took = human_duration(summary.elapsed_s)
    return (
        f"Watching {word} after {took}: {plural(summary.rounds, 'round')}, "
        f"{plural(summary.fetched, 'page')} fetched{_and_embeds(embeds, embed_errors)}, "
        f"{summary.new_pages:,} new, {summary.changed_pages:,} changed, "
        f"{summary.gone_pages:,} gone, {summary.back_pages:,} back, "
        f"{plural(summary.errors, 'error')}"
    )


def watched_text(holder: WatcherHolder) -> str:
    since = f" since {local_time(holder.since)}" if holder.since is not None else ""
    return f"This project is watched by `recrawl watch` (pid {holder.pid}){since}."


def tray_tooltip(state: TrayState, project: str, now: datetime) -> str:
    """Two lines: the project and its state, then the unseen news (when known)."""
    mode = state.mode
    if mode is Mode.SLEEPING:
        if state.next_due is None:
            line = "watching — nothing due"
        else:
            wait = human_duration(max(0.0, (state.next_due - now).total_seconds()))
            line = f"watching — next due {local_time(state.next_due)} (in {wait})"
    elif mode is Mode.WATCHING:
        line = "watching — fetching the pages due"
    elif mode is Mode.EXTERNAL and state.holder is not None:
        line = f"watched by pid {state.holder.pid}"
    else:
        line = mode.value
    text = f"Recrawl — {project}\n{line}"
    if state.unseen is not None:
        text += f"\n{state.unseen:,} unseen news item{'s' if state.unseen != 1 else ''}"
    return text


# -- notifications: one message per round with news ------------------------------------


@dataclass
class RoundNews:
    """News of one watch round: counts from RoundFinished, sites from the fetches."""

    new_pages: int = 0
    changed_pages: int = 0
    #: Fetches per host that made news (a new or changed page).
    hosts: Counter[str] = field(default_factory=Counter)
    #: The first crawls (baselines, docs/design.md §15) the round completed: said once, when
    #: done, not round after round while the first crawl archives its pages.
    baselines: list[BaselineDone] = field(default_factory=list)

    @property
    def any(self) -> bool:
        return bool(self.new_pages or self.changed_pages or self.baselines)


class NewsBatcher:
    """Gathers a watch round's news from the event batches; :meth:`take` ends the round.

    The counts are the engine's (RoundFinished's ``new_pages``/``changed_pages`` and
    the first crawls it completed, over the crawl rounds of one watch round). The sites
    are those of the fetches that made the news (PageFetched's ``news``); the message
    names the most frequent one. A page archived by its host's first crawl is none.
    """

    def __init__(self) -> None:
        self._news = RoundNews()

    def feed(self, events: Iterable[Event]) -> None:
        news = self._news
        for event in events:
            if isinstance(event, RoundFinished):
                news.new_pages += event.new_pages
                news.changed_pages += event.changed_pages
                news.baselines += event.baselines_done
            elif isinstance(event, PageFetched) and event.news in (
                NewsKind.NEW,
                NewsKind.CHANGED,
            ):
                host = urlsplit(event.url).hostname
                if host:
                    news.hosts[host] += 1

    def take(self) -> RoundNews:
        """The round's news so far, and a fresh start for the next round."""
        news, self._news = self._news, RoundNews()
        return news


def news_message(news: RoundNews) -> str | None:
    """``12 new pages, 3 changed on example.org and 2 other sites`` (alone: ``3 changed
    pages on example.org``), then the first crawls done (``First crawl of example.org
    done: 535 pages archived``), a line each; None without news."""
    if not news.any:
        return None
    parts = []
    if news.new_pages:
        parts.append(f"{news.new_pages:,} new page{'s' if news.new_pages != 1 else ''}")
    if news.changed_pages:
        changed = news.changed_pages
        # alone it names what changed, as the What's new panel's rows do
        noun = "" if parts else f" page{'s' if changed != 1 else ''}"
        parts.append(f"{changed:,} changed{noun}")
    lines = [", ".join(parts) + _sites(news.hosts.most_common())] if parts else []
    lines += [baseline_done_text(done.host, done.pages) for done in news.baselines]
    return "\n".join(lines)


def _sites(hosts: Sequence[tuple[str, int]]) -> str:
    if not hosts:
        return ""
    first = hosts[0][0]
    others = len(hosts) - 1
    if others == 0:
        return f" on {first}"
    return f" on {first} and {others} other site{'s' if others != 1 else ''}"
