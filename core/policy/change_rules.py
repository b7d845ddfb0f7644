"""Change rules (docs/design.md §17): what counts as a change on a site or a section of one.

The default signature is right about ordinary noise (clocks, counters, shuffled lists);
a site's own noise inside its content (a ticker in the article, a rotating quote, a live
score) it cannot know. A rule, kept in the project per URL prefix, says it:

- ``remove``: CSS selectors of elements dropped before the signature reads the page;
- ``only``: CSS selectors of the elements the signature reads, and nothing else;
- ``ignore``: regular expressions (RE2 first, else a backtracking engine with a time
  limit, as in filters) taken out of each line of the text;
- ``added_only``: a change counts only when a line was added (removals are not news);
- ``notify``: whether its pages' news goes to the notification services (§17).

The longest matching prefix applies (a rule on ``example.org/news/`` beats one on
``example.org``). A page under a rule is signed by :class:`RuledSignature`, whose kind
names the project's signature and the rule's digest: a page signed under another rule
(or none) is of another kind, so its next fetch says ``unknown`` unless it was re-signed
(:mod:`recrawl.core.engine.re_signing`) — like with like, never a false change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import Any, ClassVar
from urllib.parse import urlsplit

from recrawl.core.content.maintext import main_text, visible_text
from recrawl.core.content.noise import normalised_lines, without_ads
from recrawl.core.content.text_rule import only_selected, without_selected
from recrawl.core.errors import InvalidArgument
from recrawl.core.filters.patterns import BACKTRACK_TIMEOUT, Pattern, compile_pattern
from recrawl.core.policy.maintext_signature import MAX_MARKUP_CHARS, MAX_TEXT_CHARS
from recrawl.core.policy.signature import Signature
from selectolax.lexbor import LexborHTMLParser, SelectolaxError
from w3lib.encoding import html_to_unicode
from w3lib.url import safe_url_string

#: The project setting that keeps the rules (a list of :meth:`ChangeRule.to_json`).
SETTING_KEY = "change_rules"

_UNSEEN_TAGS = ("script", "style", "noscript", "template")
_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _schemeless(prefix_or_url: str) -> str:
    """``host[:port]/path`` of a prefix or URL, the host lower-cased; a bare host gets
    its ``/`` so that ``example.org`` never matches ``example.org.evil``."""
    text = prefix_or_url.strip()
    if not text.isascii():
        # as the store keeps URLs (core/net/urls.py): the host in IDNA, the path
        # percent-encoded; else a prefix typed as the user reads it matches no page
        found = "://" in text
        text = safe_url_string(text if found else "http://" + text)
        text = text if found else text.partition("://")[2]
    if "://" in text:
        parts = urlsplit(text)
        netloc = parts.netloc.lower()
        if netloc.endswith(_DEFAULT_PORTS.get(parts.scheme.lower(), "\0")):
            # the store keeps URLs without their scheme's own port (core/net/urls.py)
            netloc = netloc.rsplit(":", 1)[0]
        rest = netloc + (parts.path or "/")
        if parts.query:
            rest += "?" + parts.query
        return rest
    # a query right after the host (example.org?lang=de) is the site's root's
    ends = [at for at in (text.find("/"), text.find("?")) if at >= 0]
    cut = min(ends, default=len(text))
    host, path = text[:cut], text[cut:].removeprefix("/")
    return host.lower() + "/" + path


def _host_and_path(schemeless: str) -> tuple[str, str]:
    host, _, path = schemeless.partition("/")
    return host, "/" + path


def _port(host: str) -> str | None:
    """The port a ``host[:port]`` names (an IPv6 address's colons are no port)."""
    tail = host.rsplit("]", 1)[-1]
    return tail.rsplit(":", 1)[1] if ":" in tail else None


def _without_port(host: str) -> str:
    return host if _port(host) is None else host.rsplit(":", 1)[0]


def _prefix_key(prefix: str) -> tuple[str, str]:
    """What a prefix covers, however written: its scheme (none: both) and the rest."""
    own = prefix.strip()
    scheme = own.split("://", 1)[0].lower() if "://" in own else ""
    return scheme, _schemeless(own)


@dataclass(frozen=True)
class ChangeRule:
    """What counts as a change for the pages whose URL starts with ``prefix``."""

    prefix: str
    remove: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    added_only: bool = False
    notify: bool = True

    # -- reading and checking -------------------------------------------------------------

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> ChangeRule:
        return cls(
            prefix=str(value["prefix"]),
            remove=tuple(value.get("remove", ())),
            only=tuple(value.get("only", ())),
            ignore=tuple(value.get("ignore", ())),
            added_only=bool(value.get("added_only", False)),
            notify=bool(value.get("notify", True)),
        )

    def to_json(self) -> dict[str, Any]:
        value = asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}

    def check(self) -> None:
        """InvalidArgument, one line naming the rule and what is wrong, if any part is."""
        if not self.prefix.strip() or " " in self.prefix.strip():
            raise InvalidArgument(f"change rule {self.prefix!r}: not a URL prefix")
        if "://" in self.prefix and not urlsplit(self.prefix).netloc:
            raise InvalidArgument(f"change rule {self.prefix!r}: not a URL prefix (no host)")
        probe = LexborHTMLParser("<p></p>")
        for option, selectors in (("remove", self.remove), ("only", self.only)):
            for selector in selectors:
                try:
                    probe.css(selector)
                except (SelectolaxError, ValueError, TypeError):
                    raise InvalidArgument(
                        f"change rule {self.prefix}: --{option} {selector!r} is not a CSS selector"
                    ) from None
        for pattern in self.ignore:
            try:
                _pattern(pattern)
            except ValueError as exc:
                raise InvalidArgument(f"change rule {self.prefix}: --ignore {exc}") from None

    @property
    def changes_text(self) -> bool:
        """Whether it changes what the signature reads (``notify`` alone does not)."""
        return bool(self.remove or self.only or self.ignore or self.added_only)

    @property
    def digest(self) -> str:
        """12 hex digits naming what the rule does to the text (not its prefix, not
        ``notify``): the same rule on two prefixes signs alike."""
        what = [list(self.remove), list(self.only), list(self.ignore), self.added_only]
        encoded = json.dumps(what, separators=(",", ":")).encode("utf-8")
        return hashlib.blake2b(encoded, digest_size=6).hexdigest()

    def matches(self, url: str) -> bool:
        """Whether the rule covers ``url``: its scheme if the prefix names one, its host on
        the prefix's port (any port when the prefix names none: a site on a port of its
        own is still that site), its path from the prefix's on."""
        own = self.prefix.strip()
        if "://" in own:
            scheme = own.split("://", 1)[0].lower()
            if not url.lower().startswith(scheme + "://"):
                return False
        own_host, own_path = _host_and_path(_schemeless(own))
        host, path = _host_and_path(_schemeless(url))
        if host != own_host and not (_port(own_host) is None and _without_port(host) == own_host):
            return False
        return path.startswith(own_path)

    @property
    def starts(self) -> tuple[str, ...]:
        """The URL beginnings the prefix covers, for a store query to narrow by (case
        aside: :meth:`matches` decides)."""
        own = self.prefix.strip()
        schemes = [own.split("://", 1)[0].lower()] if "://" in own else ["http", "https"]
        host, _ = _host_and_path(_schemeless(own))
        starts = [f"{scheme}://{_schemeless(own)}" for scheme in schemes]
        if _port(host) is None:  # the host on any port
            starts += [f"{scheme}://{host}:" for scheme in schemes]
        return tuple(starts)

    @property
    def specificity(self) -> tuple[int, int]:
        """Longest prefix first; of equal ones, the one naming its scheme."""
        return (len(_schemeless(self.prefix)), int("://" in self.prefix))

    # -- what it does to a page's text (core/content/text_rule.py's TextRule) -----------------

    def markup(self, html: str) -> str:
        # both may be set: what ``remove`` drops is gone from what ``only`` keeps too
        html = without_selected(html, self.remove)
        if not self.only:
            return html
        # a page where ``only`` selects nothing is read whole: signed as empty text, its
        # every later edit would be unchanged for good, and nothing would say so
        kept = only_selected(html, self.only)
        return html if kept is None else kept

    def lines(self, lines: Sequence[str]) -> list[str]:
        if not self.ignore:
            return [line for line in lines if line.strip()]
        patterns = [_pattern(source) for source in self.ignore]
        # a backtracking pattern that ran out of time on one line is a miss for the rest
        # of the page: its time limit is per match, and a page has thousands of lines
        # (a catastrophic pattern cost 50 ms each: a 2,000-line page, 100 s per fetch)
        timed_out: set[int] = set()
        out = []
        for line in lines:
            for index, pattern in enumerate(patterns):
                if index in timed_out:
                    continue
                kept = _without(pattern, line)
                if kept is None:
                    timed_out.add(index)
                else:
                    line = kept
            line = " ".join(line.split())
            if line:
                out.append(line)
        return out


@cache
def _pattern(source: str) -> Pattern:
    """A compiled ignore pattern (kept per process: rules travel to analysis processes
    as text, and a pattern is compiled once there)."""
    if not source:
        raise ValueError("an empty pattern would remove nothing")
    return compile_pattern(source)


def _space(match: Any) -> str:
    # an empty match replaces nothing: `\d*` matches between every two letters, and a
    # space there spelt "Score" as "S c o r e" in diffs and messages
    return " " if match.group(0) else ""


def _without(pattern: Pattern, line: str) -> str | None:
    """``line`` without what ``pattern`` matches; None when it ran out of time (as a
    filter's timeout is a miss: the line is kept whole)."""
    compiled: Any = pattern.compiled
    if pattern.engine == "re2":
        return str(compiled.sub(_space, line))
    try:
        return str(compiled.sub(_space, line, timeout=BACKTRACK_TIMEOUT))
    except TimeoutError:
        return None


@dataclass(frozen=True)
class ChangeRules:
    """A project's change rules; the longest matching prefix applies."""

    rules: tuple[ChangeRule, ...] = ()

    def rule_for(self, url: str) -> ChangeRule | None:
        best: ChangeRule | None = None
        for rule in self.rules:
            if rule.matches(url) and (best is None or rule.specificity > best.specificity):
                best = rule
        return best

    def get(self, prefix: str) -> ChangeRule | None:
        return next((r for r in self.rules if r.prefix == prefix), None)

    def with_rule(self, rule: ChangeRule) -> ChangeRules:
        """These rules with ``rule`` set (in place of one on the same prefix, however
        written: ``example.org/`` replaces ``Example.org``, or the older of the two, as
        long and first in order, would go on deciding for the newer)."""
        kept = tuple(r for r in self.rules if _prefix_key(r.prefix) != _prefix_key(rule.prefix))
        return ChangeRules(tuple(sorted((*kept, rule), key=lambda r: r.prefix)))

    def without(self, prefix: str) -> ChangeRules:
        key = _prefix_key(prefix)
        kept = tuple(r for r in self.rules if _prefix_key(r.prefix) != key)
        if len(kept) == len(self.rules):
            raise InvalidArgument(f"no change rule on {prefix!r}")
        return ChangeRules(kept)

    def to_json(self) -> list[dict[str, Any]]:
        return [rule.to_json() for rule in self.rules]

    @classmethod
    def from_json(cls, value: Iterable[dict[str, Any]] | None) -> ChangeRules:
        return cls(tuple(ChangeRule.from_json(v) for v in value or ()))


# -- the project's rules ------------------------------------------------------------------


def project_rules() -> ChangeRules:
    # the store imported here: analysis processes sign under rules and need none
    from recrawl.core import store

    return ChangeRules.from_json(store.get_setting(SETTING_KEY))


def text_rule_for(url: str) -> ChangeRule | None:
    """The project's rule that changes what ``url``'s text is (what diffs apply), if any."""
    rule = project_rules().rule_for(url)
    return rule if rule is not None and rule.changes_text else None


def save_rules(rules: ChangeRules) -> None:
    """Keep ``rules`` (every one checked first: a bad one saves nothing)."""
    from recrawl.core import store

    for rule in rules.rules:
        rule.check()
    store.set_setting(SETTING_KEY, rules.to_json())


# -- signatures under a rule ----------------------------------------------------------------


@dataclass(frozen=True)
class RuledSignature:
    """The project's signature of a page under a change rule.

    Reads the page's lines with the rule applied — an HTML page's main text (the
    ``main-text`` signature's reading, ads left out as it leaves them out; its visible
    text for the other kinds) after the rule's selectors, ``only`` reading the selected
    elements' visible text; a text file's
    lines — takes the ``ignore`` patterns out, masks the noise as ``main-text`` does and
    hashes them. ``added_only``: the sorted hashes of the lines, and a fetch is the same
    when it added no line. A binary payload is signed as without a rule.
    """

    base: Signature
    rule: ChangeRule
    line_hash_bytes: ClassVar[int] = 8

    @property
    def kind(self) -> str:
        return f"{self.base.kind}+rule:{self.rule.digest}"

    @property
    def deferrable(self) -> bool:
        return self.base.deferrable

    def text_lines(self, payload: bytes, text: str | None) -> list[str] | None:
        """The lines signed (None: a binary payload, signed by the base signature)."""
        if text is None:  # text that is not HTML
            decoded = payload.decode("utf-8", errors="replace")[:MAX_TEXT_CHARS]
            return self.rule.lines(decoded.splitlines())
        if not text:
            return None
        _, markup = html_to_unicode(None, payload)
        markup = _without_unseen(markup)
        if len(markup) > MAX_MARKUP_CHARS:  # as main-text: the crawl's parsed text
            if not (self.rule.remove or self.rule.only):
                return self.rule.lines(["<large page>", *text.splitlines()])
            # no extractor over it, but the selectors still apply (as the diff applies
            # them): a ticker a rule removes changed a page of over 1 MB at every fetch
            return self.rule.lines(["<large page>", *visible_text(self.rule.markup(markup))])
        if self.base.kind == "main-text":
            # before the selectors: an ad inside what ``only`` keeps is no more a change
            # than it is without a rule
            markup = without_ads(markup)
        markup = self.rule.markup(markup)
        if self.rule.only or self.base.kind != "main-text":
            return self.rule.lines(list(visible_text(markup)))
        try:
            found = main_text(markup)
        except Exception:  # the extractor's bug must not cost the fetch
            return self.rule.lines(["<no main text>", *visible_text(markup)])
        title = [f"<title> {found.title}"] if found.title else []
        return self.rule.lines([*title, *found.paragraphs])

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        lines = self.text_lines(payload, text)
        if lines is None:
            return self.base.compute(payload, text, links)
        normalised = normalised_lines(lines)
        if self.rule.added_only:
            hashes = {
                hashlib.blake2b(line.encode("utf-8"), digest_size=self.line_hash_bytes).digest()
                for line in normalised
            }
            return b"".join(sorted(hashes))
        if self.base.kind == "main-text" or self.base.kind == "md5":
            joined = "\n".join(normalised).encode("utf-8")
            return hashlib.md5(joined, usedforsecurity=False).digest()
        joined_text = "\n".join(lines)
        return self.base.compute(joined_text.encode("utf-8"), joined_text, links)

    def same(self, old: bytes, new: bytes) -> bool:
        if not self.rule.added_only:
            return (
                old == new if self.base.kind in ("main-text", "md5") else self.base.same(old, new)
            )
        size = self.line_hash_bytes
        if len(old) % size or len(new) % size:
            return False  # a malformed stored value cannot vouch for "nothing added"
        before = {old[i : i + size] for i in range(0, len(old), size)}
        return all(new[i : i + size] in before for i in range(0, len(new), size))


def _without_unseen(markup: str) -> str:
    tree = LexborHTMLParser(markup)
    found = tree.css(",".join(_UNSEEN_TAGS))
    if not found:
        return markup
    for node in found:
        node.decompose()
    return tree.html or ""


@dataclass(frozen=True)
class RuledSignatures:
    """The project's signature with its change rules: a page's signature is
    :meth:`for_url`'s. As a :class:`Signature` itself it is the base, for callers that
    sign no page in particular."""

    base: Signature
    rules: ChangeRules = field(default_factory=ChangeRules)

    @property
    def kind(self) -> str:
        return self.base.kind

    @property
    def deferrable(self) -> bool:
        return self.base.deferrable

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        return self.base.compute(payload, text, links)

    def same(self, old: bytes, new: bytes) -> bool:
        return self.base.same(old, new)

    def for_url(self, url: str) -> Signature:
        rule = self.rules.rule_for(url)
        if rule is None or not rule.changes_text:
            return self.base
        return RuledSignature(self.base, rule)


def signature_for(signature: Signature, url: str) -> Signature:
    """The signature that signs ``url``: its change rule's, when ``signature`` carries rules."""
    return signature.for_url(url) if isinstance(signature, RuledSignatures) else signature


def kind_for(signature: Signature, url: str) -> str:
    return signature_for(signature, url).kind
