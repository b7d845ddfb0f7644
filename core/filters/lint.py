"""Lint for filter chains: rules that load but cannot do what their author meant.

Every warning is sound (the rule really is unreachable, duplicated, useless or slow);
lint does not try to find every such rule. One warning is about reach rather than a
fault: a short-circuit rule before the chain's scope filter (:mod:`.scope`) ends the
chain before the scope is asked, so it is warned about unless its text confines it to
hosts the scope accepts (a prefix or an anchored pattern naming such a host, a host
block or a domain entry of one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from recrawl.core.filters.chain import Chain, Filter
from recrawl.core.filters.compiled import prefix_head
from recrawl.core.filters.kinds import Rule, SuffixFilter
from recrawl.core.filters.scope import SCOPE_FILTER

#: Regex (found anywhere) patterns that match every URL: a rule after one never decides.
_ALWAYS_FOUND = frozenset({"", ".", ".*", ".+", "^", "$", "^.", "^.*", "^.+", ".*$", "(?s).*"})
#: Automaton (whole URL) patterns that match every URL.
_ALWAYS_WHOLE = frozenset({".*", ".+", "(?s).*", "(?s).+", "^.*$", "^.+$"})
_SCHEMES = ("http://", "https://")

#: A pattern's start that can only match a URL's scheme and its "://": an anchor, then
#: letters, digits, "+", "-" and groups or alternatives of them ("https?", "(http|ftp)"),
#: which cannot match a ":" or "/" — so the "://" after them is the scheme's own.
_SCHEME_START = re.compile(r"\^?[A-Za-z0-9+\-|()?]*://")
#: Literal host text: letters, digits, "-" and escaped dots, no quantifier.
_LITERAL_HOST = re.compile(r"(?:[A-Za-z0-9\-]|\\\.)+")
#: Inline flags that may turn case-insensitivity on: "(?i)", "(?mi)", "(?i:...)".
_IGNORE_CASE = re.compile(r"\(\?[A-Za-z-]*i")


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


def matches_every_url(kind: str, pattern: str) -> bool:
    """Whether a regex or automaton pattern surely matches every URL (``.``, ``.*``...):
    a rule after it (for the same hosts) never decides."""
    if kind == "automaton":
        return pattern in _ALWAYS_WHOLE
    return kind == "regex" and pattern in _ALWAYS_FOUND


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
    warnings += _scope_bypasses(chain)
    warnings.sort(key=lambda w: (w.filter, w.line if w.line is not None else 0))
    return warnings


def _scope_bypasses(chain: Chain) -> list[LintWarning]:
    """Short-circuit rules before the scope filter that may accept a host it rejects."""
    at = next(
        (i for i, f in enumerate(chain.filters) if f.name == SCOPE_FILTER and f.kind == "domain"),
        None,
    )
    if at is None or not chain.filters[at].enabled or not chain.filters[at].rules:
        return []  # no scope to bypass (an empty scope accepts every URL)
    scope = [rule.text for rule in chain.filters[at].rules]
    out: list[LintWarning] = []
    for index, flt in enumerate(chain.filters[:at]):
        if not flt.enabled:
            continue
        for rule in flt.rules:
            if not rule.shortcircuit:
                continue
            host = _confined_host(flt.kind, rule)
            if host is not None and any(_within(host, entry) for entry in scope):
                continue
            out.append(
                LintWarning(
                    index,
                    flt.name,
                    rule.line,
                    f"short-circuit rule '{rule.text}' accepts URLs before the scope filter: "
                    f"the chain's scope can be bypassed (what it matches skips filter {at} "
                    f"({SCOPE_FILTER}), off-site URLs too; name a scope host in it, or move "
                    "it after the scope filter)",
                )
            )
    return out


def _confined_host(kind: str, rule: Rule) -> str | None:
    """The host (with its subdomains) every URL the rule matches is on (None: unknown)."""
    if rule.host is not None:  # a > HOST block: URLs whose host or domain name is HOST
        return rule.host.lower()
    if kind == "domain":
        return rule.text
    if kind == "prefix":
        head = prefix_head(rule.text)
        if head is None:
            return None
        authority = head[head.index("://") + 3 : -1]
        if "@" in authority or "[" in authority or not authority:
            return None
        return (authority.rpartition(":")[0] if ":" in authority else authority).lower()
    if kind in ("regex", "automaton"):
        host = _pattern_host(kind, rule.text)
        return host.lower() if host is not None else None
    return None


def _within(host: str, entry: str) -> bool:
    """Whether a scope entry covers ``host`` and every subdomain of it."""
    return host == entry or host.endswith("." + entry)


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

    # by (host block, text): a rule is shadowed by an earlier one that runs for every URL
    # or for the URLs of its own host block (None: no block, every URL)
    first_line: dict[tuple[str | None, str], int] = {}
    catch_all: dict[str | None, int] = {}  # regex/automaton: the first rule matching every URL
    for rule in flt.rules:
        scopes = (None,) if rule.host is None else (None, rule.host)
        earlier = min(
            (first_line[(s, rule.text)] for s in scopes if (s, rule.text) in first_line),
            default=None,
        )
        if flt.kind in ("regex", "automaton"):
            shadow = min((catch_all[s] for s in scopes if s in catch_all), default=None)
            if shadow is not None:
                warn(
                    rule.line,
                    f"never decides: the rule on line {shadow} matches every URL first",
                )
            elif earlier is not None:
                warn(rule.line, f"duplicate pattern (line {earlier} has it and decides first)")
            if matches_every_url(flt.kind, rule.text):
                catch_all.setdefault(rule.host, rule.line)
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
        host = _upper_case_host(flt.kind, rule)
        if host is not None:
            warn(
                rule.line,
                f"upper-case host text {host!r}: hosts in canonical URLs are lower case, "
                f"so this {'prefix' if flt.kind == 'prefix' else 'pattern'} never matches",
            )
        first_line.setdefault((rule.host, rule.text), rule.line)
    out += _lint_blocks(index, flt)
    return out


def _upper_case_host(kind: str, rule: Rule) -> str | None:
    """The host text of a prefix or pattern that has upper case where only a host can be.

    Sound, not complete: a pattern is judged only when its start surely reaches the host
    (see ``_SCHEME_START``), it has no case-insensitive flag and no top-level ``|``.
    """
    text = rule.text
    if kind == "prefix":
        head = prefix_head(text)
        if head is None:
            return None
        authority = head[head.index("://") + 3 : -1]
        host = authority.rpartition(":")[0] if authority.count(":") == 1 else authority
        if "@" in authority or "[" in authority or host == host.lower():
            return None
        return host
    if kind not in ("regex", "automaton") or _IGNORE_CASE.search(text):
        return None
    found = _pattern_host(kind, text)
    return found if found is not None and found != found.lower() else None


def _pattern_host(kind: str, text: str) -> str | None:
    """The literal host a regex or automaton pattern's every match is on (None: unknown).

    Only a pattern whose start surely reaches the host (see ``_SCHEME_START``), with no
    top-level ``|``, and whose literal host text ends the authority.
    """
    if _top_level_bar(text):
        return None
    if kind == "regex" and not text.startswith("^"):
        return None  # unanchored: "://" may be found in a query
    start = _SCHEME_START.match(text)
    if start is None or start.group().count("(") != start.group().count(")"):
        return None
    literal = _LITERAL_HOST.match(text, start.end())
    if literal is None:
        return None
    # it must end the authority: then no "@" (user info) or ":" (port) follows in the URL
    rest = text[literal.end() :]
    if not (rest.startswith(("/", "\\/")) or rest == "$" or (rest == "" and kind == "automaton")):
        return None
    return literal.group().replace("\\.", ".")


def _top_level_bar(text: str) -> bool:
    """Whether ``text`` may have a ``|`` outside every group (character classes skipped)."""
    depth, i, size = 0, 0, len(text)
    while i < size:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            i += 1
            if text.startswith("^", i):
                i += 1
            if text.startswith("]", i):
                i += 1
            while i < size and text[i] != "]":
                i += 2 if text[i] == "\\" else 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth <= 0:
            return True
        i += 1
    return False


def _lint_blocks(index: int, flt: Filter) -> list[LintWarning]:
    """Host blocks whose host has upper case: hosts are lower case, the block never runs."""
    out: list[LintWarning] = []
    seen: set[str] = set()
    for rule in flt.rules:
        host = rule.host
        if host is None or host in seen or host == host.lower():
            continue
        seen.add(host)
        out.append(
            LintWarning(
                index,
                flt.name,
                rule.line,
                f"host block > {host}: hosts are lower case, so its rules never run",
            )
        )
    return out


__all__ = ["LintWarning", "lint", "matches_every_url"]
