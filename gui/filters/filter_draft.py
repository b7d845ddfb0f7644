"""The chain being edited in the Filters panel: plain Python, no Qt.

A draft is a list of filters (kind, name, enabled, rules text) that the panel's models
edit. :meth:`ChainDraft.validate` turns it into a real :class:`Chain` through the core's
own loader, so what the editor accepts is exactly what ``policy.set_chain`` accepts; a
draft with any bad line has no chain, and cannot be previewed or applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from recrawl.core.filters import Chain, ChainError, Filter, parse_chain
from recrawl.core.filters.chain import build_filter
from recrawl.core.filters.kinds import KINDS, MARK, RuleError, line_errors, rule_lines
from recrawl.core.filters.lint import LintWarning, lint, matches_every_url
from recrawl.core.policy.embed_why import embed_rule_line
from recrawl.core.store import embed_rule_name


@dataclass
class FilterDraft:
    kind: str
    name: str
    enabled: bool = True
    rules_text: str = ""

    def lines(self) -> list[str]:
        """The rules text split into lines (line n is ``lines()[n - 1]``)."""
        return self.rules_text.split("\n")

    def set_line(self, line: int, text: str) -> None:
        lines = self.lines()
        lines[line - 1] = text
        self.rules_text = "\n".join(lines)

    def add_line(self, text: str) -> int:
        """Add a rule after the last non-blank line, or before a catch-all rule that ends
        the filter (and the comments just above it): after ``+.`` a rule never decides.
        Returns its line number."""
        lines = self.lines()
        at = self.catch_all_line()
        if at is None or matches_every_url(self.kind, _pattern(text)):
            at = max((n for n, t in enumerate(lines, 1) if t.strip()), default=0) + 1
        else:
            while at > 1 and lines[at - 2].strip().startswith("#"):
                at -= 1  # the catch-all's own comment ("# everything else goes on") stays
        lines.insert(at - 1, text)
        if lines[-1] != "":
            lines.append("")  # keep the text ending in a newline, as TOML files do
        self.rules_text = "\n".join(lines)
        return at

    def catch_all_line(self) -> int | None:
        """The line of the regex (automaton) rule that ends the filter and matches every
        URL, ``+.`` or ``-.*`` (None: the last rule is no such rule, or a line is bad)."""
        if self.kind not in ("regex", "automaton"):
            return None
        try:
            rules = KINDS[self.kind].parse(self.rules_text).rules
        except RuleError:
            return None
        if not rules or rules[-1].host is not None:
            return None
        last = rules[-1]
        return last.line if matches_every_url(self.kind, last.text) else None

    def move_shown(self, row: int, to: int) -> bool:
        """Move shown line ``row`` (of :meth:`shown_lines`) to position ``to`` among them.

        The shown lines' texts are reordered in place: blank lines stay where they are,
        so every line keeps its number but the moved ones.
        """
        shown = self.shown_lines()
        if row == to or not (0 <= row < len(shown) and 0 <= to < len(shown)):
            return False
        texts = [text for _, text in shown]
        texts.insert(to, texts.pop(row))
        lines = self.lines()
        for (number, _), text in zip(shown, texts, strict=True):
            lines[number - 1] = text
        self.rules_text = "\n".join(lines)
        return True

    def remove_line(self, line: int) -> None:
        lines = self.lines()
        del lines[line - 1]
        self.rules_text = "\n".join(lines)

    def shown_lines(self) -> list[tuple[int, str]]:
        """(line, text) of every non-blank line: rules, mode lines and comments."""
        return [(n, t) for n, t in enumerate(self.lines(), 1) if t.strip()]


@dataclass
class Validation:
    chain: Chain | None  # None while any line is bad
    errors: dict[int, dict[int, str]] = field(default_factory=dict)  # filter → line → reason
    message: str = ""  # the first problem, naming filter and line, as the core words it
    warnings: list[LintWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.chain is not None


class ChainDraft:
    def __init__(
        self, filters: list[FilterDraft] | None = None, embeds: Sequence[Filter] = ()
    ) -> None:
        self.filters: list[FilterDraft] = filters or []
        #: The chain's embed rules (docs/design.md §14), kept as they are through an edit of
        #: its filters (``filter set`` edits them).
        self.embeds: list[Filter] = list(embeds)

    @classmethod
    def from_toml(cls, text: str) -> ChainDraft:
        chain = parse_chain(text)
        filters = [FilterDraft(f.kind, f.name, f.enabled, f.rules_text) for f in chain.filters]
        return cls(filters, chain.embed_rules.filters)

    def validate(self) -> Validation:
        errors: dict[int, dict[int, str]] = {}
        for index, flt in enumerate(self.filters):
            bad = line_errors(flt.kind, flt.rules_text)
            if bad:
                errors[index] = bad
        filters = []
        try:
            for index, flt in enumerate(self.filters):
                table = {
                    "kind": flt.kind,
                    "name": flt.name,
                    "enabled": flt.enabled,
                    "rules": flt.rules_text,
                }
                filters.append(build_filter(index, table))
        except ChainError as exc:
            return Validation(None, errors, str(exc))
        chain = Chain(filters, self.embeds)
        return Validation(chain, errors, "", lint(chain))

    def to_toml(self) -> str:
        """The draft as a chain file; only meaningful when it validates."""
        chain = self.validate().chain
        if chain is None:
            raise ChainError(self.validate().message)
        return chain.to_toml()

    def same_as(self, other: ChainDraft) -> bool:
        return [vars(f) for f in self.filters] == [vars(f) for f in other.filters]

    def copy(self) -> ChainDraft:
        """A draft to edit without touching this one."""
        return ChainDraft([FilterDraft(**vars(f)) for f in self.filters], self.embeds)

    def line_text(self, name: str, line: int | None) -> str | None:
        """The text of rule ``line`` of the filter named ``name``, or of the embed rule a
        record names ``embed: <name>`` (None: no such line)."""
        rule = embed_rule_name(name)
        if rule is not None:
            return embed_rule_line(Chain([], self.embeds), rule, line)
        flt = next((f for f in self.filters if f.name == name), None)
        if flt is None or line is None:
            return None
        lines = flt.lines()
        return lines[line - 1].strip() if 0 < line <= len(lines) else None

    def embeds_toml(self) -> str:
        """The embed rules as the chain file holds them (``[[embed]]`` tables; empty: none)."""
        return Chain([], self.embeds).to_toml()


def new_filter(kind: str, taken: list[str]) -> FilterDraft:
    """An empty filter of ``kind`` with a name no other filter has."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    name, number = kind, 2
    while name in taken:
        name, number = f"{kind}-{number}", number + 1
    return FilterDraft(kind, name, True, "")


def _pattern(line: str) -> str:
    """A regex rule line's pattern (its sign and SHORTCIRCUIT: mark left out)."""
    body = line.strip()[1:]
    return body[len(MARK) :].strip() if body.startswith(MARK) else body


def rule_count(flt: FilterDraft) -> int:
    return len(rule_lines(flt.rules_text))
