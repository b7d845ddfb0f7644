"""What the Change rules editor reads and says, as plain functions (no Qt).

A rule's form holds its selectors and patterns one a line; :func:`rule_from_form` makes
the :class:`~recrawl.core.policy.change_rules.ChangeRule` the core checks and keeps. Text
chosen in a diff becomes ignore patterns matching it literally (:func:`ignore_patterns`).
A preview's counts and the progress of a preview or a re-signing read as sentences here.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from recrawl.core.engine.change_preview import Preview, PreviewProgress
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.policy.change_rules import ChangeRule
from recrawl.core.words import plural

#: What a diff view's selection carries besides the text: Qt's paragraph and line
#: separators, and the zero-width spaces the diff puts in long runs (diff_jobs._text).
_SEPARATORS = re.compile("[\u2029\u2028\r\n]+")
_INVISIBLE = str.maketrans("", "", "\u200b\ufeff")


def form_lines(text: str) -> tuple[str, ...]:
    """The non-empty lines of a box, stripped: one selector or pattern each."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def rule_from_form(
    prefix: str,
    remove: str,
    only: str,
    ignore: str,
    *,
    added_only: bool,
    notify: bool,
) -> ChangeRule:
    """The rule a form holds (not checked: the core's ``check`` says what is wrong)."""
    return ChangeRule(
        prefix=prefix.strip(),
        remove=form_lines(remove),
        only=form_lines(only),
        ignore=form_lines(ignore),
        added_only=added_only,
        notify=notify,
    )


def ignore_patterns(selection: str) -> list[str]:
    """Patterns that take exactly ``selection`` out of the text, one per line of it.

    A rule's patterns apply line by line (a paragraph of the main text each), so a
    selection over several paragraphs gives one pattern each. Every word is escaped
    literally; the spaces between them match any run of white space, as the diff shows
    a run as one space.
    """
    patterns = []
    for line in _SEPARATORS.split(selection.translate(_INVISIBLE)):
        words = line.split()
        if words:
            patterns.append(r"\s+".join(re.escape(word) for word in words))
    return patterns


def host_prefix(url: str) -> str:
    """``example.org`` (with its port, if any) of ``url``: a rule on the whole site."""
    return urlsplit(url).netloc.lower() or url


def rule_summary(rule: ChangeRule) -> str:
    """``remove 2 selectors, ignore 1 pattern, added text only`` (the rules list)."""
    parts = []
    if rule.only:
        parts.append(f"only {plural(len(rule.only), 'selector')}")
    if rule.remove:
        parts.append(f"remove {plural(len(rule.remove), 'selector')}")
    if rule.ignore:
        parts.append(f"ignore {plural(len(rule.ignore), 'pattern')}")
    if rule.added_only:
        parts.append("added text only")
    return ", ".join(parts) or "as without a rule"


def preview_text(preview: Preview) -> str:
    """What a preview found, in a sentence or two."""
    if not preview.judged:
        where = f"{plural(preview.pages, 'page')} under {preview.prefix}"
        text = f"Nothing to judge: {where}, none with two captures to compare."
    else:
        text = (
            f"{plural(preview.to_unchanged, 'past fetch', 'past fetches')} would have been "
            f"unchanged instead of changed, {preview.to_changed:,} the reverse "
            f"({plural(preview.judged, 'pair')} of captures of "
            f"{plural(preview.pages, 'page')} judged again)."
        )
    if preview.unreadable:
        text += f" {plural(preview.unreadable, 'pair')} could not be read (not text, or lost)."
    if preview.stopped:
        text += " Stopped before the end: the counts are of what was judged."
    return text


def preview_progress_text(state: PreviewProgress) -> str:
    return (
        f"Judging the history again: {state.done:,} of {plural(state.captures, 'capture')} "
        f"of {plural(state.pages, 'page')}"
    )


def re_signing_text(state: ReSigningProgress, done: str) -> str:
    """``Re-signing the rule's pages: 120 of 400 pages``, or, once over, what was done
    (``done``: "Saved", "Deleted") and how many pages were re-signed."""
    if not state.finished and not state.stopped:
        return f"Re-signing the rule's pages: {state.done:,} of {plural(state.total, 'page')}"
    if state.total == 0:
        return f"{done}: no page had to be signed again."
    text = f"{done}: {plural(state.recomputed, 'page')} re-signed, so their next fetch compares like with like"
    if state.unreadable:
        text += f"; {state.unreadable:,} without a readable capture say unknown at their next fetch"
    if state.skipped:
        text += f"; {state.skipped:,} fetched meanwhile kept theirs"
    if state.stopped:
        text += f"; stopped with {state.total - state.done:,} left (save the rule again to resume)"
    return text + "."
