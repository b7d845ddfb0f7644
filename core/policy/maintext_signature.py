"""The ``main-text`` signature: a hash of what a reader reads, noise masked (docs/design.md §5).

The page's main text (:mod:`recrawl.core.content.maintext`: trafilatura, else all
visible text) leaves out navigation, sidebars, footers and ads; its lines are normalised
(:mod:`recrawl.core.content.noise`: clocks, dates, relative times, counters, tokens and
copyright years masked by their context, shuffled lists sorted) and hashed exactly. So
a corrected number in a sentence, an added sentence, a new or removed paragraph, a
changed headline or price is a change, and what changes on every fetch is not.

It runs on every fetched page, so its input is bounded: scripts and styles are dropped
from the markup first (no reader sees them, and inline JSON makes many pages large),
and markup still longer than :attr:`MainTextSignature.max_markup_chars` is not given to
the extractor (whose time grows with the markup: about 1 s a megabyte of prose) but
hashed from the text the crawl's parse already extracted, noise masked just the same.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import ClassVar

from recrawl.core.content.maintext import main_text
from recrawl.core.content.noise import normalised_lines, without_ads
from recrawl.core.errors import InvalidArgument
from w3lib.encoding import html_to_unicode

#: Markup characters (scripts and styles removed) given to the main-text extractor.
MAX_MARKUP_CHARS = 1_000_000
#: Characters of a non-HTML text payload hashed (the rest of a huge text file is cut).
MAX_TEXT_CHARS = 4_000_000

_UNSEEN = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL
)


def _digest(lines: list[str]) -> bytes:
    return hashlib.md5("\n".join(lines).encode("utf-8"), usedforsecurity=False).digest()


@dataclass(frozen=True)
class MainTextSignature:
    """MD5 of the page's main text with its noise masked: what a reader reads, exactly.

    An HTML page is hashed by its title and main text; a text payload that is not HTML
    by its lines, noise masked; a binary payload (no text) by its bytes.
    """

    kind: str = "main-text"
    #: ~8 ms a page (trafilatura): computed only when a fetch is compared (analysis.py)
    deferrable: ClassVar[bool] = True
    max_markup_chars: int = MAX_MARKUP_CHARS

    def __post_init__(self) -> None:
        if self.max_markup_chars < 0:
            raise InvalidArgument(f"max_markup_chars must be >= 0, not {self.max_markup_chars}")

    def lines(self, payload: bytes, text: str | None) -> list[str] | None:
        """The normalised lines hashed (None: the payload's bytes are hashed instead)."""
        if text is None:  # text that is not HTML
            decoded = payload.decode("utf-8", errors="replace")[:MAX_TEXT_CHARS]
            return normalised_lines(decoded.splitlines())
        if not text:  # binary, or HTML without a body
            return None
        _, markup = html_to_unicode(None, payload)
        markup = _UNSEEN.sub(" ", markup)
        if len(markup) > self.max_markup_chars:
            return ["<large page>", *normalised_lines(text.splitlines())]
        try:
            found = main_text(without_ads(markup))
        except Exception:  # the extractor's bug must not cost the fetch: the parsed text
            return ["<no main text>", *normalised_lines(text.splitlines())]
        title = [f"<title> {found.title}"] if found.title else []
        return normalised_lines([*title, *found.paragraphs])

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        lines = self.lines(payload, text)
        if lines is None:
            return hashlib.md5(payload, usedforsecurity=False).digest()
        return _digest(lines)

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new
