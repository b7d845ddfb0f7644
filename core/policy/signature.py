"""Signatures (docs/design.md §5): the pluggable "page equality" that decides a change.

Each kind turns a fetched page into bytes stored with the page (``signature`` plus
``signature_kind``); the next fetch of the page computes a new signature and the kind's
``same`` decides whether the content changed. Kinds:

- ``md5``: any byte of the (content-decoded) payload changed.
- ``text-profile``: Nutch's TextProfileSignature; ignores rare words, so counters and
  timestamps on an otherwise stable page do not count as a change.
- ``outlinks``: a change is a new outgoing link (the original post's definition).
- ``simhash``: Charikar's 64-bit simhash; pages within a few bits are near-duplicates.
- ``main-text``: the page's main text with its noise masked, hashed exactly
  (:mod:`.maintext_signature`); the default for new projects.

Every kind is a plain, picklable value: a process pool may compute signatures.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar, Protocol

from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.maintext_signature import MainTextSignature
from recrawl.core.policy.schedule import Change


class Signature(Protocol):
    # A read-only property, so that frozen dataclasses satisfy the protocol.
    @property
    def kind(self) -> str: ...

    @property
    def deferrable(self) -> bool:
        """Whether the crawl may leave it uncomputed until a comparison needs it (a
        costly kind: core/engine/analysis.py says when); False for cheap kinds."""
        ...

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        """The page's signature from its decoded payload (and text and links when HTML)."""
        ...

    def same(self, old: bytes, new: bytes) -> bool:
        """Whether two signatures mean the content did not change."""
        ...


def _md5(data: bytes) -> bytes:
    return hashlib.md5(data, usedforsecurity=False).digest()


def _hash64(data: bytes) -> bytes:
    """A stable 8-byte hash: Python's hash() is salted per process, signatures are stored."""
    return hashlib.blake2b(data, digest_size=8).digest()


def _page_text(payload: bytes, text: str | None) -> str:
    # The engine only extracts text from HTML; plain text, CSS, JSON and the like still
    # have words worth profiling, and "replace" keeps a stray non-UTF-8 byte from
    # discarding the rest of the page.
    return payload.decode("utf-8", errors="replace") if text is None else text


# Java's Character.isLetterOrDigit: the letter categories plus decimal digits only.
# Python's str.isalnum() (and regex \w) also admit Nl and No (², ½, Ⅻ), which Nutch
# treats as separators.
_JAVA_LETTER_OR_DIGIT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_ALNUM_RUN = re.compile(r"[^\W_]+")


def _java_lower(ch: str) -> str:
    # Java's Character.toLowerCase maps one char to one char; str.lower() maps "İ" to
    # two code points, which would lengthen the token.
    return ch.lower()[0]


def _words(text: str) -> Iterator[str]:
    """Lower-cased runs of letters and digits, as Nutch's TextProfileSignature splits them.

    Unlike Java, which walks UTF-16 units, characters outside the BMP are judged by
    their own category (a CJK Extension B ideograph is a letter, not a separator).
    """
    for match in _ALNUM_RUN.finditer(text):
        run = match.group()
        if run.isascii():
            yield run.lower()
            continue
        # The regex run is a superset of Java's letters and digits; split it further.
        token: list[str] = []
        for ch in run:
            if unicodedata.category(ch) in _JAVA_LETTER_OR_DIGIT:
                token.append(_java_lower(ch))
            elif token:
                yield "".join(token)
                token = []
        if token:
            yield "".join(token)


#: Characters of text tokenised at once (a list of its words is ~10 times its size).
PIECE = 1 << 20
_SPACE = re.compile(r"\s")


def _pieces(text: str) -> Iterator[str]:
    """``text`` in pieces of about :data:`PIECE` characters, cut at white space (which no
    word holds), so the words of the pieces are the words of the text."""
    start = 0
    while start < len(text):
        space = _SPACE.search(text, start + PIECE)
        end = space.start() if space else len(text)
        yield text[start:end]
        start = end


def _float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _java_round_float(value: float) -> int:
    # Math.round(float) rounds half up (towards positive infinity), not half to even.
    return math.floor(value + 0.5)


@dataclass(frozen=True)
class Md5Signature:
    """MD5 of the decoded payload: any byte changed is a change."""

    kind: str = "md5"
    deferrable: ClassVar[bool] = False

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        return _md5(payload)

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new


@dataclass(frozen=True)
class TextProfileSignature:
    """Nutch's TextProfileSignature: MD5 of the page's quantised word-frequency profile.

    Words of at most ``min_token_len`` characters are dropped; counts are rounded down
    to a multiple of QUANT = round(max count × ``quant_rate``), at least 2 once any word
    repeats, so words seen only once (a visit counter, a date, a session id) never reach
    the profile. The flip side, inherited from Nutch: an edit that only adds or removes
    once-seen words, and leaves every repeated word's quantised count as it was, is not
    a change either.

    With no text at all Nutch falls back to MD5 of the content, and so does this.
    """

    kind: str = "text-profile"
    deferrable: ClassVar[bool] = False
    #: db.signature.text_profile.min_token_len
    min_token_len: int = 2
    #: db.signature.text_profile.quant_rate
    quant_rate: float = 0.01

    def __post_init__(self) -> None:
        if self.min_token_len < 0:
            raise InvalidArgument(f"min_token_len must be >= 0, not {self.min_token_len}")
        if not 0 <= self.quant_rate < 1:
            raise InvalidArgument(f"quant_rate must be in [0, 1), not {self.quant_rate}")

    def profile(self, text: str) -> str:
        """The text Nutch hashes: "word count" lines, most frequent first."""
        counts: Counter[str] = Counter()
        if text.isascii():  # the common case, an order of magnitude faster
            pattern = re.compile(f"[a-z0-9]{{{self.min_token_len + 1},}}")
            for piece in _pieces(text):  # a piece at a time: 10 MB of text, 1.3 M words
                counts.update(pattern.findall(piece.lower()))
        else:
            counts.update(w for w in _words(text) if len(w) > self.min_token_len)
        if not counts:
            return ""
        max_freq = max(counts.values())
        # Nutch multiplies an int by a Java float, so the product is a float32; emulate it
        # so that the rare product just under x.5 rounds the same way.
        quant = _java_round_float(_float32(_float32(max_freq) * _float32(self.quant_rate)))
        if quant < 2:
            quant = 2 if max_freq > 1 else 1
        kept = [(word, count // quant * quant) for word, count in counts.items()]
        kept = [(word, count) for word, count in kept if count >= quant]
        # Ties are broken by the word (NUTCH-2381, db.signature.text_profile.sec_sort_lex,
        # on by default); Java compares strings by UTF-16 code units.
        if text.isascii():  # UTF-16 order is code point order for ASCII
            kept.sort(key=lambda wc: (-wc[1], wc[0]))
        else:
            kept.sort(key=lambda wc: (-wc[1], wc[0].encode("utf-16-be")))
        return "\n".join(f"{word} {count}" for word, count in kept)

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        page_text = _page_text(payload, text)
        if not page_text:
            return _md5(payload)
        return _md5(self.profile(page_text).encode("utf-8"))

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new


@dataclass(frozen=True)
class OutlinksSignature:
    """The set of outgoing links; a change is a link that was not there before.

    Stored as the sorted, de-duplicated 8-byte hashes of the link URLs: a page with
    hundreds of links costs a few kB rather than the URLs themselves, and 64 bits make
    a collision within one page's links negligible. A page without links (including
    every non-HTML page) therefore never changes under this signature.
    """

    kind: str = "outlinks"
    deferrable: ClassVar[bool] = False

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        # surrogatepass: a lone surrogate from a broken href must not abort the fetch.
        return b"".join(sorted({_hash64(url.encode("utf-8", "surrogatepass")) for url in links}))

    @staticmethod
    def _hashes(signature: bytes) -> set[bytes] | None:
        if len(signature) % 8:
            return None
        return {signature[i : i + 8] for i in range(0, len(signature), 8)}

    @classmethod
    def new_links(cls, old: bytes, new: bytes) -> int | None:
        """How many links of ``new`` were not in ``old`` (None: a malformed value)."""
        old_links, new_links = cls._hashes(old), cls._hashes(new)
        if old_links is None or new_links is None:
            return None
        return len(new_links - old_links)

    def same(self, old: bytes, new: bytes) -> bool:
        old_links, new_links = self._hashes(old), self._hashes(new)
        # A malformed stored value cannot vouch for "nothing new": call it a change.
        if old_links is None or new_links is None:
            return False
        return new_links <= old_links


@dataclass(frozen=True)
class SimhashSignature:
    """Charikar's 64-bit simhash of the page's words; within ``max_distance`` bits is same.

    Features are ``shingle_size``-word shingles of the lower-cased words, weighted by
    how often they occur. The default is single words: on 300-word windows of English
    prose, replacing one word moved a 3-word-shingle simhash by more than 3 bits about
    one time in five, single words about one time in a hundred, while unrelated windows
    stayed 12 or more bits apart. The price is that word order is ignored.

    A page without words is hashed by its payload instead, so that two different
    images or empty pages are not mistaken for the same one.
    """

    kind: str = "simhash"
    deferrable: ClassVar[bool] = False
    max_distance: int = 3
    shingle_size: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.max_distance <= 64:
            raise InvalidArgument(f"max_distance must be in [0, 64], not {self.max_distance}")
        if self.shingle_size < 1:
            raise InvalidArgument(f"shingle_size must be >= 1, not {self.shingle_size}")

    def _features(self, words: list[str]) -> Counter[str]:
        n = self.shingle_size
        if len(words) <= n:
            return Counter([" ".join(words)])
        return Counter(" ".join(words[i : i + n]) for i in range(len(words) - n + 1))

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        words = list(_words(_page_text(payload, text)))
        if not words:
            return _hash64(payload)
        totals = [0] * 64
        for feature, weight in self._features(words).items():
            bits = int.from_bytes(_hash64(feature.encode("utf-8")), "big")
            for i in range(64):
                totals[i] += weight if bits >> i & 1 else -weight
        value = sum(1 << i for i, total in enumerate(totals) if total > 0)
        return value.to_bytes(8, "big")

    def same(self, old: bytes, new: bytes) -> bool:
        if len(old) != 8 or len(new) != 8:
            return False
        distance = (int.from_bytes(old, "big") ^ int.from_bytes(new, "big")).bit_count()
        return distance <= self.max_distance


#: By name; the default (main-text) first, as menus and help list them.
SIGNATURES: dict[str, Callable[[], Signature]] = {
    "main-text": MainTextSignature,
    "text-profile": TextProfileSignature,
    "md5": Md5Signature,
    "outlinks": OutlinksSignature,
    "simhash": SimhashSignature,
}


def make_signature(kind: str = "md5") -> Signature:
    try:
        return SIGNATURES[kind]()
    except KeyError:
        raise InvalidArgument(
            f"unknown signature {kind!r} (known: {', '.join(sorted(SIGNATURES))})"
        ) from None


def compare(signature: Signature, old: bytes | None, old_kind: str | None, new: bytes) -> Change:
    """Changed/unchanged against the stored signature; unknown without a comparable one."""
    if old is None or old_kind != signature.kind:
        return Change.UNKNOWN
    return Change.UNCHANGED if signature.same(old, new) else Change.CHANGED
