"""Lint for filter chains: rules that load but cannot do what their author meant.

Every warning is sound (the rule really is unreachable, duplicated, useless or slow);
lint does not try to find every such rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from recrawl.core.filters.chain import Chain, Filter
from recrawl.core.filters.kinds import SuffixFilter

#: Regex (found anywhere) patterns that match every URL: a rule after one never decides.
_ALWAYS_FOUND = frozenset({"", ".", ".*", ".+", "^", "$", "^.", "^.*", "^.+", ".*$", "(?s).*"})
#: Automaton (whole URL) patterns that match every URL.
_ALWAYS_WHOLE = frozenset({".*", ".+", "(?s).*", "(?s).+", "^.*$", "^.+$"})
_SCHEMES = ("http://", "https://")


@dataclass(frozen=True)
class LintWarning:
    filter: int  # the filter's index in the chain (0-based, disabled ones counted)
    name: str
    line: int | None  # the rule's line in the filter's rules (1-based)
    message: str

    def __str__(self) -> str:
        where = f"filter {self.filter} ({self.name})"
        if self.line is not None:
            where += f", line {self.line}"
        return f"{where}: {self.message}"


def lint(chain: Chain) -> list[LintWarning]:
    warnings: list[LintWarning] = []
    first_shortcircuit: tuple[int, str] | None = None
    for index, flt in enumerate(chain.filters):
        warnings += _lint_filter(index, flt)
        if not flt.enabled:
            continue
        if first_shortcircuit is not None:
            at, name = first_shortcircuit
            for line in _reject_lines(flt):
                warnings.append(
                    LintWarning(
                        index,
                        flt.name,
                        line,
                        f"reject rule after a short-circuit: URLs that short-circuit at "
                        f"filter {at} ({name}) never reach this rule",
                    )
                )
        if first_shortcircuit is None and any(r.shortcircuit for r in flt.rules):
            first_shortcircuit = (index, flt.name)
    warnings.sort(key=lambda w: (w.filter, w.line if w.line is not None else 0))
    return warnings


def _reject_lines(flt: Filter) -> list[int]:
    if flt.kind in ("regex", "automaton"):
        return [r.line for r in flt.rules if not r.accept]
    if flt.kind == "domain-deny":
        return [r.line for r in flt.rules]
    if isinstance(flt.impl, SuffixFilter) and not flt.impl.listed_accept:
        return [r.line for r in flt.rules]
    return []


def _lint_filter(index: int, flt: Filter) -> list[LintWarning]:
    out: list[LintWarning] = []

    def warn(line: int | None, message: str) -> None:
        out.append(LintWarning(index, flt.name, line, message))

    first_line: dict[str, int] = {}
    catch_all: int | None = None  # regex/automaton: the first rule that matches every URL
    always = _ALWAYS_WHOLE if flt.kind == "automaton" else _ALWAYS_FOUND
    for rule in flt.rules:
        earlier = first_line.get(rule.text)
        if flt.kind in ("regex", "automaton"):
            if catch_all is not None:
                warn(
                    rule.line,
                    f"never decides: the rule on line {catch_all} matches every URL first",
                )
            elif earlier is not None:
                warn(rule.line, f"duplicate pattern (line {earlier} has it and decides first)")
            if catch_all is None and rule.text in always:
                catch_all = rule.line
            if rule.pattern is not None and rule.pattern.slow:
                warn(
                    rule.line,
                    "slow and unsafe: RE2 cannot run it, so it runs on a backtracking "
                    "engine with a time limit (a timeout counts as no match)",
                )
        elif earlier is not None:
            what = {"prefix": "prefix", "suffix": "suffix"}.get(flt.kind, "entry")
            warn(rule.line, f"duplicate {what} (line {earlier} has it): it never decides")
        if flt.kind == "prefix" and not rule.text.startswith(_SCHEMES):
            warn(
                rule.line,
                f"prefix {rule.text!r} has no http:// or https:// scheme: "
                "it matches no crawled URL",
            )
        first_line.setdefault(rule.text, rule.line)
    return out


__all__ = ["LintWarning", "lint"]
