"""The six filter kinds of docs/design.md §6, each parsed from Nutch's file syntax.

Every kind (a :class:`FilterKind`, registered in :data:`KINDS`) parses its ``rules``
text into a :class:`ParsedFilter`: :class:`Rule` values with their 1-based line numbers,
and a decision for a URL in plain rule order. That is the reference evaluation the
compiled fast path (:mod:`recrawl.core.filters.compiled`) must agree with, verdict and line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, Self
from urllib.parse import urlsplit

from recrawl.core.filters.hosts import host_and_domain, url_host
from recrawl.core.filters.patterns import Pattern, compile_pattern

ACCEPT = "accept"
REJECT = "reject"
SHORTCIRCUIT = "shortcircuit"
MARK = "SHORTCIRCUIT:"


class RuleError(ValueError):
    """A rule that cannot be used; carries its line (1-based) within the filter."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True, slots=True)
class FilterResult:
    """One filter's outcome: accept (go on), reject or shortcircuit (stop), and the rule line."""

    outcome: str
    line: int | None = None


@dataclass(frozen=True)
class Rule:
    line: int
    text: str  # the prefix, suffix, domain entry or pattern, markers removed
    accept: bool = True  # regex/automaton: "+" or "-"
    shortcircuit: bool = False
    pattern: Pattern | None = field(default=None, compare=False)
    #: regex/automaton: the HOST of the ``> HOST`` block the rule is in (None: every URL)
    host: str | None = None

    def applies(self, scope: tuple[str, str]) -> bool:
        """Whether the rule runs for a URL of this (host, domain name)."""
        return self.host is None or self.host in scope


class ParsedFilter(Protocol):
    """One filter's parsed rules and its reference decision (what a kind's parse returns)."""

    @property
    def rules(self) -> Sequence[Rule]:
        """The rules in line order (blank and comment lines left out)."""
        ...

    def decide(self, url: str) -> FilterResult:
        """Accept (go on), reject or shortcircuit, with the deciding rule's line."""
        ...


class FilterKind(Protocol):
    """A filter kind: its rules text parsed, or RuleError naming the line at fault."""

    def parse(self, text: str) -> ParsedFilter: ...


def rule_lines(rules: str) -> list[tuple[int, str]]:
    """(line number, trimmed text) of every line that is not blank or a # comment."""
    out = []
    for number, raw in enumerate(rules.split("\n"), start=1):
        text = raw.strip()
        if text and not text.startswith("#"):
            out.append((number, text))
    return out


def _marked(text: str) -> tuple[bool, str]:
    if text.startswith(MARK):
        return True, text[len(MARK) :].strip()
    return False, text


@dataclass
class PrefixFilter:
    """Longest matching literal prefix decides; no prefix matches → reject."""

    rules: list[Rule]
    kind = "prefix"

    @classmethod
    def parse(cls, text: str) -> Self:
        rules = []
        for line, item in rule_lines(text):
            short, prefix = _marked(item)
            if not prefix:
                raise RuleError(line, "empty prefix")
            rules.append(Rule(line, prefix, shortcircuit=short))
        return cls(rules)

    def decide(self, url: str) -> FilterResult:
        best: Rule | None = None
        for rule in self.rules:
            if url.startswith(rule.text) and (best is None or len(rule.text) > len(best.text)):
                best = rule
        if best is None:
            return FilterResult(REJECT)
        return FilterResult(SHORTCIRCUIT if best.shortcircuit else ACCEPT, best.line)


@dataclass
class SuffixFilter:
    """Nutch's suffix filter: mode ``-`` (default) accepts listed suffixes, ``+`` rejects them.

    ``I`` after the mode compares case-insensitively, ``P`` looks at the URL's path only.
    The deciding line is the longest matching suffix.
    """

    rules: list[Rule]
    listed_accept: bool = True
    ignore_case: bool = False
    path_only: bool = False
    kind = "suffix"

    @classmethod
    def parse(cls, text: str) -> Self:
        rules: list[Rule] = []
        sign, letters = "-", ""
        for line, item in rule_lines(text):
            if item[0] in "+-" and set(item[1:]) <= {"I", "P"}:
                # Nutch's own template spreads the mode over lines ("+I", then "+P"):
                # the flags add up, the last sign holds.
                sign, letters = item[0], letters + item[1:]
                continue
            if item.startswith(MARK):
                raise RuleError(line, "SHORTCIRCUIT: has no meaning in a suffix filter")
            rules.append(Rule(line, item))
        ignore_case = "I" in letters
        if ignore_case:
            rules = [Rule(r.line, r.text.lower()) for r in rules]
        return cls(rules, sign == "-", ignore_case, "P" in letters)

    def subject(self, url: str) -> str:
        text = urlsplit(url).path if self.path_only else url
        return text.lower() if self.ignore_case else text

    def decide(self, url: str) -> FilterResult:
        subject = self.subject(url)
        best: Rule | None = None
        for rule in self.rules:
            if subject.endswith(rule.text) and (best is None or len(rule.text) > len(best.text)):
                best = rule
        if best is None:
            return FilterResult(ACCEPT if not self.listed_accept else REJECT)
        return FilterResult(ACCEPT if self.listed_accept else REJECT, best.line)


@dataclass
class RegexFilter:
    """``+pattern`` / ``-pattern`` / ``+SHORTCIRCUIT:pattern``; the first found decides.

    Nutch's host blocks (NUTCH-1838): the rules after a ``> HOST`` line, up to a ``<`` line
    (or the next ``>``), run only for URLs whose host or domain name is HOST
    (:mod:`~recrawl.core.filters.hosts`); for other URLs they are skipped.
    """

    rules: list[Rule]
    kind = "regex"
    full_match = False

    @classmethod
    def parse(cls, text: str) -> Self:
        rules = []
        block: str | None = None
        for line, item in rule_lines(text):
            sign, body = item[0], item[1:]
            if sign == ">":
                block = _block_host(line, item)
                continue
            if sign == "<":  # Nutch ignores what follows it
                block = None
                continue
            if sign not in "+-":
                raise RuleError(
                    line,
                    "a rule starts with + or - (then the pattern); a host block starts "
                    "with > HOST and ends with <",
                )
            short, pattern = _marked(body)
            if short and sign == "-":
                raise RuleError(line, "SHORTCIRCUIT: is only for + rules")
            if not pattern:
                raise RuleError(line, "empty pattern")
            try:
                compiled = compile_pattern(pattern, cls.full_match)
            except ValueError as exc:
                raise RuleError(line, str(exc)) from None
            rules.append(Rule(line, pattern, sign == "+", short, compiled, block))
        return cls(rules)

    def decide(self, url: str) -> FilterResult:
        scope: tuple[str, str] | None = None
        for rule in self.rules:
            if rule.host is not None:
                if scope is None:
                    scope = host_and_domain(url)
                if rule.host not in scope:
                    continue
            assert rule.pattern is not None
            if rule.pattern.matches(url):
                if not rule.accept:
                    return FilterResult(REJECT, rule.line)
                return FilterResult(SHORTCIRCUIT if rule.shortcircuit else ACCEPT, rule.line)
        return FilterResult(REJECT)


def _block_host(line: int, item: str) -> str:
    host = item[1:].strip()
    if not host or any(ch in host for ch in "/@ \t"):
        raise RuleError(line, "a host block starts with > and one host or domain name")
    return host


@dataclass
class AutomatonFilter(RegexFilter):
    """As :class:`RegexFilter`, but a pattern must match the whole URL."""

    kind = "automaton"
    full_match = True


def _host_matches(host: str, entry: str) -> bool:
    return host == entry or host.endswith("." + entry)


@dataclass
class DomainFilter:
    """Hosts, domains or suffixes; the longest matching entry decides.

    No entries → accept; entries but no match → reject.
    """

    rules: list[Rule]
    kind = "domain"

    @classmethod
    def parse(cls, text: str) -> Self:
        rules = []
        for line, item in rule_lines(text):
            short, entry = _marked(item)
            entry = entry.lower().strip(".")
            if not entry or any(ch in entry for ch in "/: "):
                raise RuleError(line, f"not a host, domain or suffix: {item!r}")
            rules.append(Rule(line, entry, shortcircuit=short))
        return cls(rules)

    def best(self, url: str) -> Rule | None:
        host = url_host(url)
        found: Rule | None = None
        for rule in self.rules:
            if _host_matches(host, rule.text) and (
                found is None or len(rule.text) > len(found.text)
            ):
                found = rule
        return found

    def decide(self, url: str) -> FilterResult:
        if not self.rules:
            return FilterResult(ACCEPT)
        rule = self.best(url)
        if rule is None:
            return FilterResult(REJECT)
        return FilterResult(SHORTCIRCUIT if rule.shortcircuit else ACCEPT, rule.line)


@dataclass
class DomainDenyFilter(DomainFilter):
    """A matching entry rejects (the longest one is named); otherwise accept."""

    kind = "domain-deny"

    def decide(self, url: str) -> FilterResult:
        rule = self.best(url)
        return FilterResult(REJECT, rule.line) if rule is not None else FilterResult(ACCEPT)


KINDS: dict[str, FilterKind] = {
    "prefix": PrefixFilter,
    "suffix": SuffixFilter,
    "regex": RegexFilter,
    "automaton": AutomatonFilter,
    "domain": DomainFilter,
    "domain-deny": DomainDenyFilter,
}


# -- rule-line helpers for editors (the GUI's rule table) ------------------------------


def _regex_kind(kind: str) -> bool:
    return kind in ("regex", "automaton")


def can_shortcircuit(kind: str, line_text: str) -> bool:
    """Whether this rule line may carry the ``SHORTCIRCUIT:`` mark (§6)."""
    text = line_text.strip()
    if not text or text.startswith("#") or kind in ("suffix", "domain-deny"):
        return False
    if _regex_kind(kind):
        return text.startswith("+")
    return True


def is_shortcircuit(kind: str, line_text: str) -> bool:
    text = line_text.strip()
    if _regex_kind(kind):
        return text.startswith("+") and text[1:].startswith(MARK)
    return kind in ("prefix", "domain") and text.startswith(MARK)


def set_shortcircuit(kind: str, line_text: str, on: bool) -> str:
    """The rule line with its ``SHORTCIRCUIT:`` mark added or removed."""
    text = line_text.strip()
    if on == is_shortcircuit(kind, text) or (on and not can_shortcircuit(kind, text)):
        return text
    if _regex_kind(kind):
        body = text[1:]
        return "+" + (MARK + body if on else body[len(MARK) :].strip())
    return MARK + text if on else text[len(MARK) :].strip()


def line_errors(kind: str, rules: str) -> dict[int, str]:
    """Every bad line of a filter's rules (line → reason), not only the first one."""
    parser = KINDS[kind]
    errors: dict[int, str] = {}
    for line, text in rule_lines(rules):
        # each line alone (a later one behind one blank line, so it is never taken for
        # a mode line): re-parsing every line's predecessors made long filters quadratic
        probe, shift = (text, 0) if line == 1 else ("\n" + text, line - 2)
        try:
            parser.parse(probe)
        except RuleError as exc:
            errors[exc.line + shift] = str(exc)
    return errors


def rule_matches(impl: ParsedFilter, rule: Rule, url: str) -> bool:
    """Whether one rule of a parsed filter matches ``url`` (whether or not it decides)."""
    if isinstance(impl, RegexFilter):
        return (
            (rule.host is None or rule.applies(host_and_domain(url)))
            and rule.pattern is not None
            and rule.pattern.matches(url)
        )
    if isinstance(impl, PrefixFilter):
        return url.startswith(rule.text)
    if isinstance(impl, SuffixFilter):
        return impl.subject(url).endswith(rule.text)
    if isinstance(impl, DomainFilter):
        return _host_matches(url_host(url), rule.text)
    return False
