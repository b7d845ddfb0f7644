"""What the diff view asks of a job thread: two captures' texts, compared and laid out.

Runs inside ``context.jobs.compute`` (never on the GUI thread: reading two payloads,
extracting their main text and comparing them can take seconds). The answer is a
frozen :class:`DiffPage`: the core's comparison and the side-by-side HTML built from it,
so the GUI thread only hands a finished document to its view; and, when both captures
were made by a browser, their screenshots decoded and the share of pixels that changed
(:func:`~recrawl.gui.pages.screenshot_jobs.compare_screenshots`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from recrawl.core.archive.captures import CaptureRef
from recrawl.core.archive.page_diff import PageDiff, fetch_pair, latest_change, page_diff
from recrawl.core.config import VIEW
from recrawl.core.content.diff import Row, Span
from recrawl.core.errors import RecrawlError
from recrawl.core.policy.change_rules import text_rule_for
from recrawl.gui.pages.screenshot_jobs import VisualDiff, compare_screenshots

#: Rows laid out at most (a document of many thousands would take the GUI thread long
#: to lay out); past it the view says how many more there are.
MAX_ROWS = 3_000
#: Qt lays out a run of text with nowhere to break in time growing with its length
#: squared (see page_detail.LONGEST_RUN): long runs get a break opportunity this often.
BREAK_EVERY = 80
_LONG_RUN = re.compile(rf"\S{{{BREAK_EVERY},}}")

ADDED_BACKGROUND = "#e6ffec"
ADDED_WORDS = "#9be9a8"
REMOVED_BACKGROUND = "#ffebe9"
REMOVED_WORDS = "#ffaba8"
FOLDED = "#6e7781"
#: The scheme of a fold's link (``fold:12``: the run of unchanged rows from row 12).
FOLD_SCHEME = "fold"


@dataclass(frozen=True)
class DiffPage:
    url: str
    old_date: datetime
    new_date: datetime
    #: ``3 paragraphs added, 1 removed, 2 changed``.
    summary: str
    #: The side-by-side table: old on the left, new on the right, one row a paragraph.
    html: str
    rows: tuple[Row, ...]
    #: What the reader should know (a side cut at the bounds, a main-text fallback).
    notes: tuple[str, ...]
    #: The two captures' screenshots and how much of them changed (None: not both
    #: captures kept one).
    visual: VisualDiff | None = None


def latest_diff(project_dir: Path, url: str) -> DiffPage:
    """The page's latest change (``recrawl diff``'s default)."""
    old, new = latest_change(project_dir, url)
    return _with_screenshots(
        laid_out(page_diff(project_dir, url, old, new, text_rule_for(url))), old, new
    )


def fetches_diff(project_dir: Path, url: str, first: datetime, second: datetime | None) -> DiffPage:
    """The captures of two fetches (``second`` None: ``first``'s and the one before)."""
    old, new = fetch_pair(project_dir, url, first, second)
    return _with_screenshots(
        laid_out(page_diff(project_dir, url, old, new, text_rule_for(url))), old, new
    )


def _with_screenshots(page: DiffPage, old: CaptureRef, new: CaptureRef) -> DiffPage:
    try:
        visual, note = compare_screenshots(old, new)
    except RecrawlError as exc:  # the text diff stands without them
        visual, note = None, f"the screenshots could not be compared: {exc}"
    notes = (*page.notes, note) if note else page.notes
    return replace(page, visual=visual, notes=notes)


def laid_out(result: PageDiff) -> DiffPage:
    notes = []
    for side, label in ((result.old, "left"), (result.new, "right")):
        if side.note:
            notes.append(f"{label}: {side.note}")
        if side.text.source == "visible text":
            notes.append(f"{label}: no main text found, all visible text compared")
    if result.diff.cut:
        notes.append("a text is longer than a diff compares: only its start was compared")
    return DiffPage(
        url=result.url,
        old_date=result.old.date,
        new_date=result.new.date,
        summary=str(result.diff.counts),
        html=side_by_side(result.diff.rows),
        rows=result.diff.rows,
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class Fold:
    """A run of unchanged rows folded into one line: ``rows[start:start + count]``."""

    start: int
    count: int
    #: Shown (the line offers to hide them again) or hidden (it offers to show them).
    open: bool = False


def side_by_side(rows: tuple[Row, ...], unfolded: frozenset[int] = frozenset()) -> str:
    """An HTML table with the old text left and the new right, unchanged runs folded;
    a run whose start is in ``unfolded`` is shown. A fold's line links to ``fold:START``
    (the view shows or hides that run when it is clicked)."""
    cells: list[str] = []
    shown = 0
    for kept in _folded(rows, unfolded):
        if shown == MAX_ROWS:
            cells.append(_note_row(f"… {len(rows) - shown:,} more rows not shown"))
            break
        shown += 1
        if isinstance(kept, Fold):
            cells.append(_fold_row(kept))
            continue
        cells.append(_row(kept))
    return (
        '<table width="100%" cellspacing="0" cellpadding="4" style="border-collapse: collapse">'
        + "".join(cells)
        + "</table>"
    )


def fold_link(start: int) -> str:
    """The link of the fold that starts at row ``start``."""
    return f"{FOLD_SCHEME}:{start}"


def _folded(rows: tuple[Row, ...], unfolded: frozenset[int]) -> list[Row | Fold]:
    """The rows with each run of more than 2 × view.diff_context equal rows cut to its ends and a
    fold for those between (followed by them when the fold is open)."""
    if all(row.kind == "equal" for row in rows):
        return list(rows)  # nothing changed: show it all
    out: list[Row | Fold] = []
    run: list[int] = []  # the run's row indexes

    def flush(first: bool, last: bool) -> None:
        head = 0 if first else VIEW.diff_context
        tail = 0 if last else VIEW.diff_context
        if len(run) > head + tail + 1:
            out.extend(rows[i] for i in run[:head])
            hidden = run[head : len(run) - tail]
            fold = Fold(hidden[0], len(hidden), hidden[0] in unfolded)
            out.append(fold)
            if fold.open:
                out.extend(rows[i] for i in hidden)
            out.extend(rows[i] for i in run[len(run) - tail :])
        else:
            out.extend(rows[i] for i in run)
        run.clear()

    first = True
    for index, row in enumerate(rows):
        if row.kind == "equal":
            run.append(index)
            continue
        flush(first, False)
        first = False
        out.append(row)
    flush(first, True)
    return out


def _fold_row(fold: Fold) -> str:
    word = "paragraph" if fold.count == 1 else "paragraphs"
    if fold.open:
        text = f"▴ hide these {fold.count:,} unchanged {word} ▴"
    else:
        text = f"⋯ {fold.count:,} unchanged {word} (click to show) ⋯"
    return _note_row(f'<a href="{fold_link(fold.start)}" style="color: {FOLDED}">{text}</a>')


def _row(row: Row) -> str:
    left = right = ""
    left_style = right_style = ""
    if row.kind == "equal":
        left, right = _text(row.old or ""), _text(row.new or "")
    if row.kind in ("removed", "changed"):
        left = _marked(row.old or "", row.old_marks, REMOVED_WORDS)
        left_style = f"background-color: {REMOVED_BACKGROUND}"
    if row.kind in ("added", "changed"):
        right = _marked(row.new or "", row.new_marks, ADDED_WORDS)
        right_style = f"background-color: {ADDED_BACKGROUND}"
    if row.moved:
        where = "moved from here" if row.kind == "removed" else "moved here"
        hint = f' <span style="color: {FOLDED}">({where})</span>'
        left, right = (left + hint, right) if row.kind == "removed" else (left, right + hint)
    return (
        f'<tr><td width="50%" valign="top" style="{left_style}">{left}</td>'
        f'<td width="50%" valign="top" style="{right_style}">{right}</td></tr>'
    )


def _note_row(text: str) -> str:
    return f'<tr><td colspan="2" align="center" style="color: {FOLDED}">{text}</td></tr>'


def _marked(text: str, spans: tuple[Span, ...], color: str) -> str:
    parts = []
    at = 0
    for start, end in spans:
        parts.append(_text(text[at:start]))
        parts.append(f'<span style="background-color: {color}">{_text(text[start:end])}</span>')
        at = end
    parts.append(_text(text[at:]))
    return "".join(parts)


def _text(text: str) -> str:
    # a zero-width space now and then in a long run: a place to break no reader sees
    broken = _LONG_RUN.sub(
        lambda m: "\u200b".join(
            m.group()[i : i + BREAK_EVERY] for i in range(0, len(m.group()), BREAK_EVERY)
        ),
        text,
    )
    return html.escape(broken, quote=False)
