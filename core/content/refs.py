"""What a document embeds, as written: one reference, the set of a document's references.

A reference is kept as the document writes it (entities or CSS escapes decoded by the
parser, surrounding whitespace trimmed), never resolved: the engine resolves and
canonicalises it against the document's base. References a crawl cannot fetch (``data:``,
``javascript:``, a fragment of the document itself) are left out here, so a page of
100,000 inline images costs nothing downstream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

#: What asked for a reference: the element, attribute or rule that loads it.
Context = Literal[
    "img",
    "srcset",
    "stylesheet",
    "icon",
    "preload",
    "modulepreload",
    "manifest",
    "script",
    "video",
    "audio",
    "poster",
    "source",
    "track",
    "object",
    "embed",
    "input",
    "background",
    "svg-image",
    "svg-use",
    "style-attr",
    "style-block",
    "iframe",
    "frame",
    "css-import",
    "css-url",
    "font-face",
    "image-set",
    "link-header",
    "script-guess",
]


class EmbedRef(NamedTuple):
    # a tuple, not a dataclass: a page's embeds cross from its analysis process to the
    # crawl's loop by the hundreds
    url: str
    context: Context
    #: Reserved: None resolves against the document's own base; the engine fills bases.
    base: str | None = None


@dataclass
class Embeds:
    """A document's distinct references in document order, the first ``limit`` of them."""

    refs: list[EmbedRef] = field(default_factory=list)
    #: Distinct references past the limit: counted, not kept.
    dropped: int = 0
    #: One line for each bound the extraction hit (the limit, a stylesheet cut...).
    notes: list[str] = field(default_factory=list)


#: Notes of one document kept at most (the first of each kind is what a reader needs).
MAX_NOTES = 20
#: What a URL parser strips from both ends of a URL (C0 controls and space).
_TRIM = "".join(map(chr, range(0x21)))
#: Schemes that load nothing a crawl can fetch.
_NOT_FETCHED = ("data:", "javascript:", "vbscript:", "about:", "blob:", "mailto:", "tel:")
#: A URL parser removes tabs and newlines anywhere: ``java\tscript:`` is ``javascript:``.
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")


def fetchable(url: str) -> str | None:
    """``url`` trimmed, or None if it loads nothing a crawl fetches: empty, a fragment of
    the document itself, or a scheme of :data:`_NOT_FETCHED`."""
    url = url.strip(_TRIM)
    if not url or url[0] == "#":
        return None
    head = url[:12]
    if ":" not in head and "\t" not in head and "\n" not in head and "\r" not in head:
        return url  # a relative or http(s) URL: most of them, decided without a case fold
    head = url[:256].translate(_TAB_NEWLINE)[:12].lower()
    if head.startswith(_NOT_FETCHED) or head.startswith("#"):
        return None
    return url


class EmbedSet:
    """The distinct references of one document, in the order first seen: the first
    ``limit`` kept, the rest counted. A reference met again keeps its first context."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 0)
        self.refs: list[EmbedRef] = []
        self.notes: list[str] = []
        self.dropped = 0
        # every distinct URL met, kept or dropped, so that ``dropped`` counts each once;
        # bounded by the document's size, which the caller bounds
        self._seen: set[str] = set()

    def add(self, url: str, context: Context) -> None:
        kept = fetchable(url)
        if kept is None or kept in self._seen:
            return
        self._seen.add(kept)
        if len(self.refs) < self.limit:
            self.refs.append(EmbedRef(kept, context))
        else:
            self.dropped += 1

    def note(self, line: str) -> None:
        # a page of 100,000 bad frames says so in a few lines, not 100,000
        if line not in self.notes and len(self.notes) < MAX_NOTES:
            self.notes.append(line)

    def embeds(self) -> Embeds:
        notes = list(self.notes)
        if self.dropped:
            notes.append(
                f"{self.dropped:,} more embedded references past the limit of {self.limit:,}"
            )
        return Embeds(self.refs, self.dropped, notes)
