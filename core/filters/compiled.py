"""The compiled fast path of a filter chain (docs/design.md §6).

:func:`compile_chain` turns a :class:`~recrawl.core.filters.chain.Chain` into a
:class:`CompiledChain` whose :meth:`CompiledChain.check` gives exactly the verdict and
provenance of the reference :meth:`Chain.check` (plain in-order evaluation), only faster:

- ``prefix``: rules are bucketed by their ``scheme://authority/`` head (the text up to and
  including the first ``/`` after the first ``://``). A URL that starts with such a prefix
  has the very same head, so only that bucket needs looking at. Prefixes that end inside
  the authority (``http://a.com`` is a prefix of ``http://a.com.evil.org/``) or have no
  ``://`` go to a generic list checked for every URL. Each list is sorted longest first
  (stable, so the first rule in line order wins among equal texts, as in the reference).
- ``domain`` / ``domain-deny``: a dict from entry to its first rule; the host and each of
  its suffixes after a ``.`` are looked up, longest first.
- ``suffix``: a dict from suffix to its first rule, looked up for each distinct suffix
  length, longest first.
- ``regex`` / ``automaton``: every RE2 pattern goes into one ``re2.Set`` (search or full
  match); the lowest matching rule decides. Patterns on the backtracking engine are run one
  by one, in order, only while they come before the set's first match. A rule in a
  ``> HOST`` block counts only when HOST is the URL's host or domain name: those are
  worked out once per URL, and only when a scoped rule matched or is next to run.

Per-URL work never depends on a cache: the verdict is computed for each URL.
"""

from __future__ import annotations

from collections.abc import Callable

import re2
from recrawl.core.filters.chain import PLAIN_ACCEPT, Chain, Verdict
from recrawl.core.filters.hosts import host_and_domain, url_host, url_path
from recrawl.core.filters.kinds import (
    AutomatonFilter,
    DomainDenyFilter,
    DomainFilter,
    PrefixFilter,
    RegexFilter,
    Rule,
    SuffixFilter,
)
from recrawl.core.filters.patterns import Pattern

#: A compiled filter: None means "accept, go on"; a Verdict stops the chain.
Decider = Callable[[str], Verdict | None]
#: "Not in this table": a Verdict no filter gives (filter -1), told apart by identity.
_MISSING = Verdict(False, filter=-1)


def _set_options() -> re2.Options:
    options = re2.Options()  # the same defaults compile_pattern uses ...
    options.log_errors = False
    # ... but room for a large DFA: a Set that runs out of memory would silently miss
    options.max_mem = 64 << 20
    return options


def _stop(accepted: bool, shortcircuit: bool, index: int, line: int | None, name: str) -> Verdict:
    return Verdict(accepted, shortcircuit, index, line, name)


def prefix_head(text: str) -> str | None:
    """``text`` up to and including the first ``/`` after its first ``://`` (else None)."""
    k = text.find("://")
    if k < 0:
        return None
    j = text.find("/", k + 3)
    if j < 0:
        return None
    return text[: j + 1]


def _compile_prefix(flt: PrefixFilter, index: int, name: str) -> Decider:
    reject = _stop(False, False, index, None, name)
    buckets: dict[str, list[tuple[str, Verdict | None]]] = {}
    generic: list[tuple[str, Verdict | None]] = []
    for rule in flt.rules:
        outcome = _stop(True, True, index, rule.line, name) if rule.shortcircuit else None
        head = prefix_head(rule.text)
        (generic if head is None else buckets.setdefault(head, [])).append((rule.text, outcome))
    # longest first; sort is stable, so among equal texts the first line stays first
    generic.sort(key=lambda item: -len(item[0]))
    table = {
        head: tuple(sorted(entries, key=lambda item: -len(item[0])))
        for head, entries in buckets.items()
    }
    generic_t = tuple(generic)
    get = table.get
    missing = _MISSING
    # A generic prefix that matches a URL whose head is H (``scheme://authority/``) is a
    # prefix of H without its slash (it has no '/' after the first '://'), so the best
    # generic match is a function of H alone: memoised per head, bounded. Every bucket
    # entry is longer than H minus its slash, so a bucket match always beats it.
    generic_best: dict[str, Verdict | None] = {}

    def scan(text: str) -> Verdict | None:
        for prefix, outcome in generic_t:
            if text.startswith(prefix):
                return outcome
        return reject

    def decide(url: str) -> Verdict | None:
        k = url.find("://")
        if k >= 0:
            j = url.find("/", k + 3)
            if j >= 0:
                head = url[: j + 1]
                entries = get(head)
                if entries is not None:
                    for text, outcome in entries:
                        if url.startswith(text):
                            return outcome
                if not generic_t:
                    return reject
                best = generic_best.get(head, missing)
                if best is missing:
                    if len(generic_best) >= 65536:
                        generic_best.clear()
                    best = generic_best[head] = scan(head)
                return best
        return scan(url)

    return decide


def _first_by_text(rules: list[Rule]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for rule in rules:
        table.setdefault(rule.text, rule)
    return table


def _domain_lookup(rules: list[Rule]) -> Callable[[str], Rule | None]:
    get = _first_by_text(rules).get

    def best(url: str) -> Rule | None:
        host = url_host(url)
        rule = get(host)
        if rule is not None:
            return rule
        dot = host.find(".")
        while dot >= 0:
            rule = get(host[dot + 1 :])
            if rule is not None:
                return rule
            dot = host.find(".", dot + 1)
        return None

    return best


def _compile_domain(flt: DomainFilter, index: int, name: str) -> Decider | None:
    if not flt.rules:
        return None  # no entries: always accept
    reject = _stop(False, False, index, None, name)
    best = _domain_lookup(flt.rules)
    verdicts = {
        r.line: (_stop(True, True, index, r.line, name) if r.shortcircuit else None)
        for r in flt.rules
    }

    def decide(url: str) -> Verdict | None:
        rule = best(url)
        if rule is None:
            return reject
        return verdicts[rule.line]

    return decide


def _compile_domain_deny(flt: DomainDenyFilter, index: int, name: str) -> Decider | None:
    if not flt.rules:
        return None
    best = _domain_lookup(flt.rules)
    verdicts = {r.line: _stop(False, False, index, r.line, name) for r in flt.rules}

    def decide(url: str) -> Verdict | None:
        rule = best(url)
        return None if rule is None else verdicts[rule.line]

    return decide


def _compile_suffix(flt: SuffixFilter, index: int, name: str) -> Decider:
    table = _first_by_text(flt.rules)
    lengths = tuple(sorted({len(text) for text in table}, reverse=True))
    listed_accept = flt.listed_accept
    # what a matched line yields (None: accept and go on), and what no match yields
    outcomes = {
        text: (None if listed_accept else _stop(False, False, index, rule.line, name))
        for text, rule in table.items()
    }
    unmatched = _stop(False, False, index, None, name) if listed_accept else None
    get = outcomes.get
    ignore_case, path_only = flt.ignore_case, flt.path_only
    missing = _MISSING

    every = tuple(table)

    def decide(url: str) -> Verdict | None:
        subject = url_path(url) if path_only else url
        if ignore_case:
            subject = subject.lower()
        if not subject.endswith(every):
            return unmatched
        size = len(subject)
        for length in lengths:
            if length <= size:
                outcome = get(subject[size - length :], missing)
                if outcome is not missing:
                    return outcome
        return unmatched

    return decide


def _bytes_match(regex_set: re2.Set) -> Callable[[bytes], list[int] | None]:
    """The set's match on UTF-8 bytes, skipping the wrapper's per-call dispatch if it can."""
    match = getattr(getattr(regex_set, "_set", None), "Match", None)
    found: Callable[[bytes], list[int] | None] = match if callable(match) else regex_set.Match
    return found


def _compile_regex(flt: RegexFilter, index: int, name: str) -> Decider:
    full = isinstance(flt, AutomatonFilter)
    reject = _stop(False, False, index, None, name)
    outcomes: list[Verdict | None] = []
    for rule in flt.rules:
        if not rule.accept:
            outcomes.append(_stop(False, False, index, rule.line, name))
        elif rule.shortcircuit:
            outcomes.append(_stop(True, True, index, rule.line, name))
        else:
            outcomes.append(None)
    n = len(flt.rules)
    patterns: list[Pattern] = []
    for rule in flt.rules:
        assert rule.pattern is not None  # parse compiles every regex rule
        patterns.append(rule.pattern)
    fast = [i for i, pattern in enumerate(patterns) if pattern.engine == "re2"]
    fast_set = set(fast)
    slow = [(i, pattern) for i, pattern in enumerate(patterns) if i not in fast_set]

    set_match: Callable[[bytes], list[int] | None] | None = None
    set_rule: list[int] = []  # set index → rule position
    if fast:
        options = _set_options()
        regex_set = re2.Set.FullMatchSet(options) if full else re2.Set.SearchSet(options)
        try:
            for position in fast:
                set_rule.append(position)
                added = regex_set.Add(patterns[position].source)
                assert added == len(set_rule) - 1
            regex_set.Compile()
            set_match = _bytes_match(regex_set)
        except re2.error:
            # the set cannot be built: every rule runs on its own, still in order
            set_match = None
            slow = list(enumerate(patterns))
            set_rule = []

    hosts = tuple(rule.host for rule in flt.rules)
    if any(host is not None for host in hosts):
        return _scoped(hosts, outcomes, reject, set_match, tuple(set_rule), tuple(slow))

    if set_match is None:

        def decide_plain(url: str) -> Verdict | None:
            for position, pattern in slow:
                if pattern.matches(url):
                    return outcomes[position]
            return reject

        return decide_plain

    set_rule_t = tuple(set_rule)
    if not slow and set_rule_t == tuple(range(n)):

        def decide_set(url: str) -> Verdict | None:
            found = set_match(url.encode("utf-8"))
            if not found:
                return reject
            return outcomes[min(found)]

        return decide_set

    slow_t = tuple(slow)

    def decide_mixed(url: str) -> Verdict | None:
        found = set_match(url.encode("utf-8"))
        first = set_rule_t[min(found)] if found else n
        for position, pattern in slow_t:
            if position > first:
                break
            if pattern.matches(url):
                return outcomes[position]
        if first < n:
            return outcomes[first]
        return reject

    return decide_mixed


def _scoped(
    hosts: tuple[str | None, ...],
    outcomes: list[Verdict | None],
    reject: Verdict,
    set_match: Callable[[bytes], list[int] | None] | None,
    set_rule: tuple[int, ...],
    slow: tuple[tuple[int, Pattern], ...],
) -> Decider:
    """A regex filter with host blocks: the first matching rule that applies decides."""
    n = len(hosts)

    def decide(url: str) -> Verdict | None:
        scope: tuple[str, str] | None = None
        first = n  # the first set rule that matches and applies
        found = set_match(url.encode("utf-8")) if set_match is not None else None
        if found:
            for k in sorted(found):  # set indices rise with rule positions
                host = hosts[set_rule[k]]
                if host is not None:
                    if scope is None:
                        scope = host_and_domain(url)
                    if host not in scope:
                        continue
                first = set_rule[k]
                break
        for position, pattern in slow:
            if position > first:
                break
            host = hosts[position]
            if host is not None:
                if scope is None:
                    scope = host_and_domain(url)
                if host not in scope:
                    continue
            if pattern.matches(url):
                return outcomes[position]
        return outcomes[first] if first < n else reject

    return decide


_COMPILERS: dict[type, Callable[..., Decider | None]] = {
    PrefixFilter: _compile_prefix,
    SuffixFilter: _compile_suffix,
    RegexFilter: _compile_regex,
    AutomatonFilter: _compile_regex,
    DomainFilter: _compile_domain,
    DomainDenyFilter: _compile_domain_deny,
}


class CompiledChain:
    """A chain's fast path: :meth:`check` agrees with :meth:`Chain.check` on every URL."""

    def __init__(self, chain: Chain, deciders: list[Decider]) -> None:
        self.chain = chain
        self._deciders = tuple(deciders)

    def check(self, url: str) -> Verdict:
        for decide in self._deciders:
            verdict = decide(url)
            if verdict is not None:
                return verdict
        return PLAIN_ACCEPT


def compile_chain(chain: Chain) -> CompiledChain:
    """The compiled fast path of ``chain`` (disabled filters dropped)."""
    deciders: list[Decider] = []
    for index, flt in enumerate(chain.filters):
        if not flt.enabled:
            continue
        compiler = _COMPILERS.get(type(flt.impl))
        if compiler is None:
            raise TypeError(f"filter {index} ({flt.name}): no fast path for kind {flt.kind!r}")
        decider = compiler(flt.impl, index, flt.name)
        if decider is not None:
            deciders.append(decider)
    return CompiledChain(chain, deciders)


__all__ = ["CompiledChain", "compile_chain", "prefix_head"]
