"""What changed on a page between two of its captures (docs/design.md §10, ``recrawl diff``).

Which two: by default the page's latest change, the latest fetch the crawl judged
``changed`` (its signature differed) and the capture before it; a page with no such
fetch on record (its history predates signatures, or was judged ``unknown``) falls
back to the last two captures whose payload digests differ, then to its last two
captures; captures of error answers (4xx, 5xx) are left out of these. Or the captures at or before two instants (``--from``/``--to``), or the
captures of two fetches (the app's history table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.capture_text import CaptureText, capture_text
from recrawl.core.archive.captures import CaptureRef, all_captures
from recrawl.core.content.diff import TextDiff, diff_lines
from recrawl.core.content.text_rule import TextRule
from recrawl.core.errors import NotFound


@dataclass(frozen=True)
class PageDiff:
    url: str
    old: CaptureText
    new: CaptureText
    diff: TextDiff


def page_diff(
    project_dir: Path, url: str, old: CaptureRef, new: CaptureRef, rule: TextRule | None = None
) -> PageDiff:
    """The texts of two captures of ``url`` and how the second differs from the first;
    under a change ``rule``, what the rule removes is no change (docs/design.md §17)."""
    before = capture_text(project_dir, url, old, rule)
    after = capture_text(project_dir, url, new, rule)
    return PageDiff(url, before, after, diff_lines(before.text.paragraphs, after.text.paragraphs))


def captures_of(project_dir: Path, url: str) -> list[CaptureRef]:
    """The captures of a page the store knows, oldest first (NotFound: none, or one)."""
    captures = all_captures(project_dir, url)
    if not captures:
        raise NotFound(f"{url} has no capture in this project")
    if len(captures) == 1:
        raise NotFound(
            f"{url} has only one capture ({_iso(captures[0].date)}): nothing to compare it with"
        )
    return captures


def latest_change(project_dir: Path, url: str) -> tuple[CaptureRef, CaptureRef]:
    """The captures before and at the page's latest change (the module's rule)."""
    captures = captures_of(project_dir, url)
    # a 404 or 500 archives the server's error page: not a text of the page to compare
    # (a page gone and back would show its error page swapped for its text)
    pages = [c for c in captures if not _is_error(c)]
    captures = pages if len(pages) >= 2 else captures
    page = store.page_by_url(url)
    changed = (
        [] if page is None else [e.fetched_at for e in store.history(page) if e.change == "changed"]
    )
    for fetched_at in reversed(changed):
        at = capture_of_fetch(captures, fetched_at)
        if at is not None:
            index = captures.index(at)
            if index > 0:
                return captures[index - 1], at
    for index in range(len(captures) - 1, 0, -1):
        older, newer = captures[index - 1], captures[index]
        if older.digest and newer.digest and older.digest != newer.digest:
            return older, newer
    return captures[-2], captures[-1]


def _is_error(capture: CaptureRef) -> bool:
    return capture.status[:1] in ("4", "5")


def between(
    project_dir: Path, url: str, since: datetime | None, until: datetime | None
) -> tuple[CaptureRef, CaptureRef]:
    """The captures at or before ``since`` and ``until``; ``until`` unset: the latest
    capture; ``since`` unset: the capture before ``until``'s. Neither: :func:`latest_change`."""
    if since is None and until is None:
        return latest_change(project_dir, url)
    captures = captures_of(project_dir, url)
    new = _at_or_before(captures, until, url, "--to") if until is not None else captures[-1]
    if since is not None:
        return _at_or_before(captures, since, url, "--from"), new
    index = captures.index(new)
    if index == 0:
        raise NotFound(f"no capture of {url} before {_iso(new.date)} (its first) to compare with")
    return captures[index - 1], new


def capture_of_fetch(captures: Sequence[CaptureRef], fetched_at: datetime) -> CaptureRef | None:
    """The capture a fetch made (same instant, to the second), if it made one."""
    second = fetched_at.replace(microsecond=0)
    return next((c for c in reversed(captures) if c.date == second), None)


def fetch_pair(
    project_dir: Path, url: str, first: datetime, second: datetime | None
) -> tuple[CaptureRef, CaptureRef]:
    """The captures of two fetches, older first; ``second`` None: the capture of
    ``first`` and the one before it."""
    captures = all_captures(project_dir, url)
    one = _of_fetch(captures, first, url)
    if second is None:
        index = captures.index(one)
        if index == 0:
            raise NotFound(f"the capture of {_iso(one.date)} is {url}'s first: nothing before it")
        return captures[index - 1], one
    two = _of_fetch(captures, second, url)
    return (one, two) if (one.date, one.offset) <= (two.date, two.offset) else (two, one)


def _of_fetch(captures: Sequence[CaptureRef], fetched_at: datetime, url: str) -> CaptureRef:
    found = capture_of_fetch(captures, fetched_at)
    if found is None:
        raise NotFound(
            f"the fetch of {url} at {_iso(fetched_at)} archived no capture "
            "(it failed, or a compaction dropped superseded captures)"
        )
    return found


def _at_or_before(
    captures: Sequence[CaptureRef], at: datetime, url: str, option: str
) -> CaptureRef:
    before = [c for c in captures if c.date <= at]
    if not before:
        raise NotFound(
            f"no capture of {url} at or before {_iso(at)} ({option}); "
            f"the first is of {_iso(captures[0].date)}"
        )
    return before[-1]


def _iso(instant: datetime) -> str:
    return instant.isoformat() + "Z"
