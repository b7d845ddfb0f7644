"""What changed between two versions of a text, one paragraph a line (docs/design.md §10).

One comparison, three readings: the lines added and removed (``recrawl diff --json``), a
unified diff (for people and patch tools), and aligned :class:`Row` s for a side-by-side
view, where a changed paragraph sits beside its new version with the words that differ
marked, so a corrected number inside a long paragraph stands out.

difflib matches the lines, then the words of a changed pair. Its worst case grows with
the product of the sizes compared, so the work is bounded whatever the texts:

- each side is cut at ``view.diff_max_lines`` paragraphs and ``view.diff_max_chars`` characters
  (:attr:`TextDiff.cut` says so);
- lines the two sides share at their start and end are set aside before matching;
  difflib's step (find the longest match) costs up to the number of pairs of equal
  lines, one from each side: a middle with more than :data:`MATCH_WORK` of them (the
  same few lines repeated) is matched with difflib's "popular line" heuristic (a line
  found in more than 1 % of the middle cannot anchor a match), which keeps it linear;
- a block of replaced lines pairs its paragraphs by similarity (the pairs of highest
  total similarity that keep the order) only up to :data:`PAIR_CELLS` candidate pairs;
  a larger block pairs them in order, where they are alike;
- words are compared only in a pair of paragraphs of at most :data:`WORD_CHARS`
  characters each (a longer changed paragraph is marked whole), and within
  :data:`MATCH_WORK` pairs of equal words (past it, what lies between the words both
  share at their start and end is marked).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from recrawl.core.config import VIEW

#: Pairs of equal lines (or words), one from each side, matched exactly; past it lines
#: are matched with difflib's popular-line heuristic and words by shared ends.
MATCH_WORK = 250_000
#: Candidate pairs (removed × added paragraphs of one block) weighed for pairing.
PAIR_CELLS = 10_000
#: Paragraphs this much alike (shared words, Dice coefficient) are one paragraph changed.
ALIKE = 0.5
#: A pair of changed paragraphs is compared word by word up to this length each.
WORD_CHARS = 20_000

Kind = Literal["equal", "added", "removed", "changed"]
#: A character range ``(start, end)`` of a paragraph.
Span = tuple[int, int]
_Opcode = tuple[str, int, int, int, int]

# Numbers keep their separators (``2,345``, ``3.14``), words their apostrophes and hyphens:
# a corrected number is marked as one token, not as its last three digits.
_WORD = r"\w+(?:[.,'’-]\w+)*|[^\w\s]"
_TOKENS = re.compile(r"\s+|" + _WORD)
_WORDS = re.compile(_WORD)


@dataclass(frozen=True)
class Row:
    """One line of a side-by-side view: a paragraph on the left, the right, or both.

    ``old_line``/``new_line`` index the compared lines (None: that side is blank).
    ``old_marks``/``new_marks``: the character ranges of a changed pair that differ.
    ``moved``: an added (or removed) paragraph found, word for word, removed (or added)
    elsewhere: it moved rather than appeared.
    """

    kind: Kind
    old: str | None
    new: str | None
    old_line: int | None
    new_line: int | None
    old_marks: tuple[Span, ...] = ()
    new_marks: tuple[Span, ...] = ()
    moved: bool = False


@dataclass(frozen=True)
class DiffCounts:
    added: int
    removed: int
    changed: int
    moved: int

    def __str__(self) -> str:
        """``3 paragraphs added, 1 removed, 2 changed`` (``no change`` when nothing is)."""
        parts = [
            (count, name)
            for count, name in (
                (self.added, "added"),
                (self.removed, "removed"),
                (self.changed, "changed"),
                (self.moved, "moved"),
            )
            if count
        ]
        if not parts:
            return "no change in the text"
        (count, name), rest = parts[0], parts[1:]
        noun = "paragraph" if count == 1 else "paragraphs"
        return ", ".join([f"{count} {noun} {name}", *(f"{n} {word}" for n, word in rest)])


@dataclass(frozen=True)
class TextDiff:
    old: tuple[str, ...]
    new: tuple[str, ...]
    rows: tuple[Row, ...]
    #: The line matcher's opcodes grouped into the unified diff's hunks.
    hunks: tuple[tuple[_Opcode, ...], ...]
    #: A side was longer than the bounds: only its start was compared.
    cut: bool

    @property
    def added(self) -> list[str]:
        """The new side's lines that are not on the old side at that place, in order."""
        return [r.new for r in self.rows if r.kind in ("added", "changed") and r.new is not None]

    @property
    def removed(self) -> list[str]:
        """The old side's lines that are not on the new side at that place, in order."""
        return [r.old for r in self.rows if r.kind in ("removed", "changed") and r.old is not None]

    @property
    def counts(self) -> DiffCounts:
        kinds = Counter((r.kind, r.moved) for r in self.rows)
        return DiffCounts(
            added=kinds["added", False],
            removed=kinds["removed", False],
            changed=kinds["changed", False],
            moved=kinds["added", True],
        )

    def unified(self, from_label: str = "", to_label: str = "") -> str:
        """A unified diff (``---``/``+++`` naming the sides, ``@@`` hunks), lines joined."""
        return "\n".join(self._unified_lines(from_label, to_label))

    def _unified_lines(self, from_label: str, to_label: str) -> Iterator[str]:
        if not self.hunks:
            return
        yield f"--- {from_label}".rstrip()
        yield f"+++ {to_label}".rstrip()
        for hunk in self.hunks:
            first, last = hunk[0], hunk[-1]
            old_range = _range(first[1], last[2])
            new_range = _range(first[3], last[4])
            yield f"@@ -{old_range} +{new_range} @@"
            for tag, i1, i2, j1, j2 in hunk:
                if tag == "equal":
                    yield from (" " + line for line in self.old[i1:i2])
                    continue
                yield from ("-" + line for line in self.old[i1:i2])
                yield from ("+" + line for line in self.new[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's line range as unified diffs write it (difflib's rules)."""
    length = stop - start
    first = start + 1
    if length == 1:
        return f"{first}"
    if not length:
        first -= 1  # an empty range names the line before it
    return f"{first},{length}"


def diff_lines(old: Sequence[str], new: Sequence[str]) -> TextDiff:
    """Compare two texts given as paragraphs (lines without their line breaks)."""
    old_lines, old_cut = _bounded(old)
    new_lines, new_cut = _bounded(new)
    opcodes = _opcodes(old_lines, new_lines)
    rows: list[Row] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            rows.extend(
                Row("equal", old_lines[i], new_lines[j], i, j)
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
        else:
            rows.extend(_replaced(old_lines, new_lines, i1, i2, j1, j2))
    return TextDiff(
        old=old_lines,
        new=new_lines,
        rows=tuple(_mark_moves(rows)),
        hunks=tuple(tuple(group) for group in _grouped(opcodes, VIEW.diff_context)),
        cut=old_cut or new_cut,
    )


def diff_texts(old: str, new: str) -> TextDiff:
    """Compare two texts, one paragraph a line (blank lines are no paragraphs)."""
    return diff_lines(_paragraphs(old), _paragraphs(new))


def _paragraphs(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _bounded(lines: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    kept: list[str] = []
    chars = 0
    max_lines, max_chars = VIEW.diff_max_lines, VIEW.diff_max_chars
    for line in lines:
        if len(kept) == max_lines or chars + len(line) > max_chars:
            return tuple(kept), True
        kept.append(line)
        chars += len(line)
    return tuple(kept), False


def _opcodes(old: tuple[str, ...], new: tuple[str, ...]) -> list[_Opcode]:
    """difflib's opcodes, with the shared start and end set aside first (cheap, and most
    revisions of a page change a few paragraphs in the middle)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[-1 - end] == new[-1 - end]:
        end += 1
    middle_old, middle_new = old[start : len(old) - end], new[start : len(new) - end]
    exact = _work(middle_old, middle_new) <= MATCH_WORK
    matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=not exact)
    codes: list[_Opcode] = []
    if start:
        codes.append(("equal", 0, start, 0, start))
    if middle_old or middle_new:
        codes.extend(
            (tag, i1 + start, i2 + start, j1 + start, j2 + start)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        )
    if end:
        codes.append(("equal", len(old) - end, len(old), len(new) - end, len(new)))
    return _merged(codes)


def _merged(codes: list[_Opcode]) -> list[_Opcode]:
    """Adjacent equal runs as one (the shared start or end may meet the matcher's)."""
    out: list[_Opcode] = []
    for code in codes:
        if out and code[0] == "equal" and out[-1][0] == "equal":
            _, i1, _, j1, _ = out[-1]
            out[-1] = ("equal", i1, code[2], j1, code[4])
        else:
            out.append(code)
    return out


def _grouped(codes: list[_Opcode], context: int) -> Iterator[list[_Opcode]]:
    """The hunks of a unified diff: changes with ``context`` equal lines around them
    (difflib's ``get_grouped_opcodes``, over opcodes already computed)."""
    if not codes or all(tag == "equal" for tag, *_ in codes):
        return
    codes = list(codes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _replaced(
    old: tuple[str, ...], new: tuple[str, ...], i1: int, i2: int, j1: int, j2: int
) -> Iterator[Row]:
    """The rows of a block where ``old[i1:i2]`` became ``new[j1:j2]``: alike paragraphs
    paired as changed, the others removed or added, in order."""
    pairs = _pairs(old[i1:i2], new[j1:j2])
    i, j = i1, j1
    for pi, pj in [*((i1 + a, j1 + b) for a, b in pairs), (i2, j2)]:
        yield from (Row("removed", old[k], None, k, None) for k in range(i, pi))
        yield from (Row("added", None, new[k], None, k) for k in range(j, pj))
        if pi < i2:
            old_marks, new_marks = _changed_words(old[pi], new[pj])
            yield Row("changed", old[pi], new[pj], pi, pj, old_marks, new_marks)
        i, j = pi + 1, pj + 1


def _pairs(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Which old paragraph became which new one: the order-keeping pairs of alike
    paragraphs with the highest total likeness (in order, for a block too big to weigh)."""
    if not old or not new:
        return []
    if len(old) * len(new) > PAIR_CELLS:
        return [
            (k, k)
            for k in range(min(len(old), len(new)))
            if _likeness(_words(old[k]), _words(new[k])) >= ALIKE
        ]
    old_words = [_words(line) for line in old]
    new_words = [_words(line) for line in new]
    like = [[_likeness(a, b) for b in new_words] for a in old_words]
    # best[i][j]: the highest total likeness pairing old[i:] with new[j:]
    rows, cols = len(old), len(new)
    best = [[0.0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(rows - 1, -1, -1):
        for j in range(cols - 1, -1, -1):
            skip = max(best[i + 1][j], best[i][j + 1])
            pair = like[i][j] + best[i + 1][j + 1] if like[i][j] >= ALIKE else -1.0
            best[i][j] = max(skip, pair)
    pairs = []
    i = j = 0
    while i < rows and j < cols:
        if like[i][j] >= ALIKE and best[i][j] == like[i][j] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _words(line: str) -> Counter[str]:
    return Counter(_WORDS.findall(line))


def _likeness(a: Counter[str], b: Counter[str]) -> float:
    """Shared words over all words (the Dice coefficient of the two word multisets)."""
    total = a.total() + b.total()
    return 2 * (a & b).total() / total if total else 1.0


def _changed_words(old: str, new: str) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """The character ranges of ``old`` and ``new`` that differ, word by word."""
    if len(old) > WORD_CHARS or len(new) > WORD_CHARS:
        return ((0, len(old)),), ((0, len(new)),)
    old_tokens, old_starts = _tokens(old)
    new_tokens, new_starts = _tokens(new)
    if _work(old_tokens, new_tokens) > MATCH_WORK:
        return _changed_middle(old_tokens, old_starts, new_tokens, new_starts)
    # spaces are "junk": they never anchor a match (a run of them would make it quadratic)
    matcher = difflib.SequenceMatcher(str.isspace, old_tokens, new_tokens, autojunk=False)
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        _add_span(old_spans, old_tokens, old_starts, i1, i2)
        _add_span(new_spans, new_tokens, new_starts, j1, j2)
    return tuple(old_spans), tuple(new_spans)


def _work(old: Sequence[str], new: Sequence[str]) -> int:
    """How many pairs of equal items, one from each side (difflib's cost per step)."""
    counts = Counter(new)
    return sum(n * counts[item] for item, n in Counter(old).items() if not item.isspace())


def _changed_middle(
    old_tokens: list[str], old_starts: list[int], new_tokens: list[str], new_starts: list[int]
) -> tuple[tuple[Span, ...], tuple[Span, ...]]:
    """What lies between the words both sides share at their start and end."""
    limit = min(len(old_tokens), len(new_tokens))
    start = 0
    while start < limit and old_tokens[start] == new_tokens[start]:
        start += 1
    end = 0
    while end < limit - start and old_tokens[-1 - end] == new_tokens[-1 - end]:
        end += 1
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    _add_span(old_spans, old_tokens, old_starts, start, len(old_tokens) - end)
    _add_span(new_spans, new_tokens, new_starts, start, len(new_tokens) - end)
    return tuple(old_spans), tuple(new_spans)


def _tokens(text: str) -> tuple[list[str], list[int]]:
    tokens, starts = [], []
    for match in _TOKENS.finditer(text):
        tokens.append(match.group())
        starts.append(match.start())
    return tokens, starts


def _add_span(
    spans: list[Span], tokens: list[str], starts: list[int], first: int, stop: int
) -> None:
    """Mark tokens ``first:stop`` (without the spaces at either end); touching spans join."""
    while first < stop and tokens[first].isspace():
        first += 1
    while stop > first and tokens[stop - 1].isspace():
        stop -= 1
    if first == stop:
        return
    start, end = starts[first], starts[stop - 1] + len(tokens[stop - 1])
    if spans and spans[-1][1] >= start - 1:
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def _mark_moves(rows: list[Row]) -> list[Row]:
    """Added and removed paragraphs that are the same words: moved, not new."""
    removed = Counter(r.old for r in rows if r.kind == "removed")
    added = Counter(r.new for r in rows if r.kind == "added")
    moved = removed & added
    if not moved:
        return rows
    left_old, left_new = Counter(moved), Counter(moved)
    out = []
    for row in rows:
        if row.kind == "removed" and left_old[row.old] > 0:
            left_old[row.old] -= 1
            row = Row(row.kind, row.old, row.new, row.old_line, row.new_line, moved=True)
        elif row.kind == "added" and left_new[row.new] > 0:
            left_new[row.new] -= 1
            row = Row(row.kind, row.old, row.new, row.old_line, row.new_line, moved=True)
        out.append(row)
    return out
