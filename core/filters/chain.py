"""Filter chains (docs/design.md §6): TOML files of ``[[filter]]`` tables, run in order.

:meth:`Chain.check` is the reference evaluation: filters one after another, disabled
ones skipped, reject or shortcircuit stopping the chain. A chain is loaded whole or not
at all: any bad rule raises :class:`ChainError` naming the filter and the line.

The same file holds the **embed rules** (docs/design.md §14) as ``[[embed]]`` tables of the
same keys and rule syntax: they decide what a page embeds (its images, styles, fonts),
which the ``[[filter]]`` tables, deciding pages, never see. No embed rule: every embed
is fetched. :attr:`Chain.embeds` is a chain of its own, checked like any.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from recrawl.core.errors import RecrawlError
from recrawl.core.filters.hosts import host_and_domain
from recrawl.core.filters.kinds import (
    ACCEPT,
    KINDS,
    REJECT,
    SHORTCIRCUIT,
    FilterResult,
    ParsedFilter,
    Rule,
    RuleError,
    rule_matches,
)


class ChainError(RecrawlError):
    """A chain that cannot be loaded: names the filter (and line) at fault."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A chain's decision with its provenance.

    ``filter`` is the deciding filter's index (0-based, disabled ones counted) and
    ``line`` its deciding rule line (1-based, None when no rule matched); both are None
    for a plain accept (no filter rejected or short-circuited).
    """

    accepted: bool
    shortcircuit: bool = False
    filter: int | None = None
    line: int | None = None
    filter_name: str | None = None

    @property
    def word(self) -> str:
        return "accept" if self.accepted else "reject"

    def describe(self) -> str:
        """``reject by filter 1 (scope), line 3``: what decided, in words (CLI and GUI)."""
        if self.filter is None:
            return "accept (no filter rejected it)"
        line = f"line {self.line}" if self.line is not None else "no rule matched"
        word = "accept (short-circuit)" if self.shortcircuit else self.word
        return f"{word} by filter {self.filter} ({self.filter_name}), {line}"

    def to_json(self, url: str) -> dict[str, Any]:
        return {
            "url": url,
            "verdict": self.word,
            "shortcircuit": self.shortcircuit,
            "filter": self.filter,
            "line": self.line,
        }


PLAIN_ACCEPT = Verdict(accepted=True)


@dataclass
class Filter:
    kind: str
    name: str
    enabled: bool
    rules_text: str
    impl: ParsedFilter = field(repr=False)

    def decide(self, url: str) -> FilterResult:
        return self.impl.decide(url)

    @property
    def rules(self) -> Sequence[Rule]:
        return self.impl.rules


@dataclass(frozen=True)
class Step:
    """One filter's part in an explanation."""

    index: int
    name: str
    kind: str
    status: str  # "ran", "skipped" (after a short-circuit or a reject), "disabled"
    outcome: str | None = None  # accept / reject / shortcircuit when it ran
    line: int | None = None
    rule: str | None = None  # the deciding rule's text


class Chain:
    def __init__(self, filters: Sequence[Filter], embeds: Sequence[Filter] = ()) -> None:
        self.filters = list(filters)
        #: The embed rules, a chain of their own (no embed rules of their own).
        self.embeds: Chain | None = Chain(embeds) if embeds else None

    @property
    def embed_rules(self) -> Chain:
        """The embed rules as a chain (empty: every embed accepted)."""
        return self.embeds if self.embeds is not None else Chain([])

    # -- evaluation ------------------------------------------------------------------

    def check(self, url: str) -> Verdict:
        for index, flt in enumerate(self.filters):
            if not flt.enabled:
                continue
            result = flt.decide(url)
            if result.outcome == REJECT:
                return Verdict(False, False, index, result.line, flt.name)
            if result.outcome == SHORTCIRCUIT:
                return Verdict(True, True, index, result.line, flt.name)
        return PLAIN_ACCEPT

    def explain(self, url: str) -> tuple[Verdict, list[Step]]:
        """The verdict and, for every filter, whether it ran and what it decided."""
        steps: list[Step] = []
        verdict: Verdict | None = None
        for index, flt in enumerate(self.filters):
            if not flt.enabled:
                steps.append(Step(index, flt.name, flt.kind, "disabled"))
                continue
            if verdict is not None:
                steps.append(Step(index, flt.name, flt.kind, "skipped"))
                continue
            result = flt.decide(url)
            rule = next((r.text for r in flt.rules if r.line == result.line), None)
            steps.append(Step(index, flt.name, flt.kind, "ran", result.outcome, result.line, rule))
            if result.outcome == REJECT:
                verdict = Verdict(False, False, index, result.line, flt.name)
            elif result.outcome == SHORTCIRCUIT:
                verdict = Verdict(True, True, index, result.line, flt.name)
        return verdict or PLAIN_ACCEPT, steps

    # -- files -----------------------------------------------------------------------

    def to_toml(self) -> str:
        out = []
        embeds = self.embeds.filters if self.embeds is not None else []
        for table, flt in [("filter", f) for f in self.filters] + [("embed", f) for f in embeds]:
            out.append(f"[[{table}]]")
            out.append(f"kind = {_toml_str(flt.kind)}")
            out.append(f"name = {_toml_str(flt.name)}")
            out.append(f"enabled = {'true' if flt.enabled else 'false'}")
            out.append(f"rules = {_toml_multiline(flt.rules_text)}")
            out.append("")
        return "\n".join(out)


def _toml_str(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_multiline(text: str) -> str:
    if "'''" not in text:
        # a literal string keeps regex backslashes as they are; the newline after the
        # opening quotes is not part of the value, so line numbers stay the same
        return "'''\n" + text + "'''"
    escaped = text.replace("\\", "\\\\").replace('"""', '\\"""')
    return '"""\n' + escaped + '"""'


def build_filter(index: int, table: dict[str, Any], where: str | None = None) -> Filter:
    """One ``[[filter]]`` table as a filter; ChainError naming it (or ``where``) and the line."""
    kind = table.get("kind")
    name = table.get("name", kind)
    label = where or f"filter {index} ({name or 'unnamed'})"
    if not isinstance(kind, str) or kind not in KINDS:
        raise ChainError(f"{label}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    unknown = set(table) - {"kind", "name", "enabled", "rules"}
    if unknown:
        raise ChainError(f"{label}: unknown key {', '.join(sorted(unknown))}")
    enabled = table.get("enabled", True)
    rules = table.get("rules", "")
    if not isinstance(enabled, bool) or not isinstance(rules, str) or not isinstance(name, str):
        raise ChainError(f"{label}: enabled is true/false, name and rules are strings")
    try:
        impl = KINDS[kind].parse(rules)
    except RuleError as exc:
        quoted = rules.split("\n")[exc.line - 1].strip()
        raise ChainError(f"{label}, line {exc.line}: {quoted!r}: {exc}") from None
    return Filter(kind, name, enabled, rules, impl)


def parse_chain(text: str) -> Chain:
    """A chain from TOML text; ChainError (naming filter and line) on any problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ChainError(f"not a valid TOML chain: {exc}") from None
    tables = data.get("filter", [])
    embed_tables = data.get("embed", [])
    if (
        set(data) - {"filter", "embed"}
        or not isinstance(tables, list)
        or not isinstance(embed_tables, list)
    ):
        raise ChainError(
            "a chain is a list of [[filter]] tables (and [[embed]] rules) and nothing else"
        )
    filters = [build_filter(i, t) for i, t in enumerate(tables)]
    embeds = [
        build_filter(i, t, f"embed rule {i} ({t.get('name', t.get('kind')) or 'unnamed'})")
        for i, t in enumerate(embed_tables)
    ]
    return Chain(filters, embeds)


__all__ = ["ACCEPT", "PLAIN_ACCEPT", "REJECT", "SHORTCIRCUIT", "Chain", "ChainError", "Verdict"]


@dataclass(frozen=True)
class RuleOutcome:
    """One rule's part in an explanation (the GUI's rule checker).

    ``outcome``: "decided" (this rule gave its filter's outcome), "matched" (matched,
    but a longer entry decided), "missed", "not tried" (a regex rule after the deciding
    one), "other host" (a regex rule in a ``> HOST`` block for another host), "skipped"
    (its filter did not run: the chain had decided) or "disabled".
    """

    line: int
    text: str
    shortcircuit: bool
    outcome: str


def explain_rules(chain: Chain, url: str) -> tuple[Verdict, list[Step], list[list[RuleOutcome]]]:
    """:meth:`Chain.explain` plus, for every filter, each rule's outcome for ``url``."""
    verdict, steps = chain.explain(url)
    outcomes: list[list[RuleOutcome]] = []
    for flt, step in zip(chain.filters, steps, strict=True):
        rows = []
        for rule in flt.rules:
            if step.status != "ran":
                outcome = step.status
            elif rule.line == step.line:
                outcome = "decided"
            elif (
                flt.kind in ("regex", "automaton")
                and step.line is not None
                and rule.line > step.line
            ):
                outcome = "not tried"
            elif rule.host is not None and not rule.applies(host_and_domain(url)):
                outcome = "other host"
            else:
                outcome = "matched" if rule_matches(flt.impl, rule, url) else "missed"
            rows.append(RuleOutcome(rule.line, rule.text, rule.shortcircuit, outcome))
        outcomes.append(rows)
    return verdict, steps, outcomes
