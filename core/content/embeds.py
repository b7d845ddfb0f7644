"""What an HTML document embeds: everything a browser loads to show it.

Read from the parsed tree in one pass of one selector (Lexbor's matching is a few
milliseconds on a 2 MB page), in document order:

- images: ``img`` ``src`` and ``srcset``, and the lazy loaders' ``data-src``,
  ``data-srcset``, ``data-lazy-src``, ``data-lazy-srcset``, ``data-original`` (the
  script swaps them in; a replay runs the script and asks for them); ``picture >
  source`` ``srcset``; ``input type=image``; a ``background`` attribute; SVG ``image``
  and ``use`` (``href`` or ``xlink:href``: Lexbor names the attribute ``xlink:href``);
- ``link``: see :mod:`rels` for the relations kept, with a preload's ``imagesrcset``;
- ``script src`` (an SVG script's ``href``), ``video``/``audio`` ``src``, ``video
  poster``, ``source src``, ``track src``, ``object data``, ``embed src``;
- ``iframe`` and ``frame`` ``src``: documents the engine fetches and reads in turn;
  an ``iframe srcdoc`` is a document written in the attribute: what it embeds is read
  here, in its place, as part of this one;
- CSS: a ``<style>`` block (:func:`~css.gather_stylesheet`: context ``style-block``, its
  ``@import`` ``css-import``) and ``style`` attributes (``style-attr``).

Not read: ``<template>`` contents (inert until a script clones them, and Lexbor keeps
them out of the tree), ``<object>``'s ``<param>`` movies, ``<meta>`` images (for sharing,
not showing). ``<noscript>`` contents are: Lexbor parses them as markup, as a browser
with scripts off does.

The CSS of one document (blocks and attributes, its ``srcdoc`` documents included) is
read up to ``max_css_chars`` characters in all; a ``srcdoc`` is cut at the parse bounds
(:mod:`markup_bounds`) and read at most ``parse.max_srcdoc_depth`` documents deep.
"""

from __future__ import annotations

from dataclasses import dataclass

from recrawl.core.config import ParseSettings
from recrawl.core.content.css import (
    MAX_STYLESHEET_CHARS,
    gather_declarations,
    gather_stylesheet,
    may_load,
)
from recrawl.core.content.markup_bounds import find_cut
from recrawl.core.content.refs import Context, Embeds, EmbedSet
from recrawl.core.content.rels import link_context
from recrawl.core.content.scripts import script_guesses
from recrawl.core.content.srcset import parse_srcset
from selectolax.lexbor import LexborHTMLParser

#: Every element that may embed something. ``[style]`` and ``[background]`` match any
#: element; Lexbor yields an element once for each selector it matches (consecutively).
_EMBEDDERS = ", ".join(
    (
        "img",
        "source",
        "link[href]",
        "link[imagesrcset]",
        "script",
        "video",
        "audio",
        "track[src]",
        "object[data]",
        "embed[src]",
        "input[src]",
        "image",
        "use",
        "iframe",
        "frame[src]",
        "style",
        "[style]",
        "[background]",
    )
)
_IMG_URLS = ("src", "data-src", "data-original", "data-lazy-src")
#: ``<script type>``s that are scripts (not data: JSON-LD, templates).
_SCRIPT_TYPES = frozenset(
    {"", "text/javascript", "application/javascript", "module", "text/ecmascript"}
)
_IMG_SRCSETS = ("srcset", "data-srcset", "data-lazy-srcset")
_SVG_HREFS = ("href", "xlink:href")
#: Elements whose one attribute is their one URL: (attribute, context).
_SINGLE: dict[str, tuple[str, Context]] = {
    "audio": ("src", "audio"),
    "track": ("src", "track"),
    "object": ("data", "object"),
    "embed": ("src", "embed"),
    "iframe": ("src", "iframe"),
    "frame": ("src", "frame"),
}


@dataclass
class _Reading:
    """One document's reading, its ``srcdoc`` documents included."""

    refs: EmbedSet
    bounds: ParseSettings
    #: Characters of CSS still to be read.
    css_left: int
    css_total: int
    css_skipped: int = 0
    #: Characters of inline scripts still to be read for guesses (:mod:`.scripts`).
    script_left: int = ParseSettings.max_script_chars


def html_embeds(
    tree: LexborHTMLParser,
    limit: int,
    *,
    max_css_chars: int = MAX_STYLESHEET_CHARS,
    bounds: ParseSettings | None = None,
) -> Embeds:
    """What the document ``tree`` embeds: its first ``limit`` distinct references in
    document order (a reference met again keeps its first context), as written; never
    raises. ``bounds`` are the parse bounds a ``srcdoc`` document is cut at."""
    reading = _Reading(EmbedSet(limit), bounds or ParseSettings(), max_css_chars, max_css_chars)
    _read(tree, reading, 0)
    if reading.css_skipped:
        reading.refs.note(
            f"{reading.css_skipped:,} style blocks and attributes past the "
            f"{reading.css_total:,} characters of CSS read in one page not read"
        )
    return reading.refs.embeds()


def _read(tree: LexborHTMLParser, reading: _Reading, depth: int) -> None:
    refs = reading.refs
    add = refs.add
    last = None
    for node in tree.css(_EMBEDDERS):
        key = node.mem_id
        if key == last:
            continue  # the same element again, for another selector it matches
        last = key
        tag = node.tag or ""
        attrs = node.attributes
        if tag == "img":
            for name in _IMG_URLS:
                if value := attrs.get(name):
                    add(value, "img")
            for name in _IMG_SRCSETS:
                if value := attrs.get(name):
                    for url in parse_srcset(value):
                        add(url, "srcset")
        elif tag == "source":
            for name in ("src", "data-src"):
                if value := attrs.get(name):
                    add(value, "source")
            for name in ("srcset", "data-srcset"):
                if value := attrs.get(name):
                    for url in parse_srcset(value):
                        add(url, "srcset")
        elif tag == "link":
            context = link_context(attrs.get("rel") or "", attrs.get("as"))
            if context is not None:
                if value := attrs.get("href"):
                    add(value, context)
                if context == "preload" and (value := attrs.get("imagesrcset")):
                    for url in parse_srcset(value):
                        add(url, context)
        elif tag == "script":
            named = False
            for name in ("src", *_SVG_HREFS):
                if value := attrs.get(name):
                    add(value, "script")
                    named = True
            kind = (attrs.get("type") or "").strip().lower()
            if not named and reading.script_left > 0 and kind in _SCRIPT_TYPES:
                text = node.text() or ""
                script_guesses(text, refs, max_chars=reading.script_left)
                reading.script_left -= len(text)
        elif tag == "video":
            if value := attrs.get("src"):
                add(value, "video")
            if value := attrs.get("poster"):
                add(value, "poster")
        elif tag == "input":
            if (attrs.get("type") or "").strip().lower() == "image" and (value := attrs.get("src")):
                add(value, "input")
        elif tag == "image" or tag == "use":
            context = "svg-image" if tag == "image" else "svg-use"
            for name in _SVG_HREFS:
                if value := attrs.get(name):
                    add(value, context)
        elif tag == "style":
            _css(node.text(), reading, block=True)
        elif single := _SINGLE.get(tag):
            if value := attrs.get(single[0]):
                add(value, single[1])
            if tag == "iframe" and (value := attrs.get("srcdoc")):
                _srcdoc(value, reading, depth)
        if value := attrs.get("background"):
            add(value, "background")
        if value := attrs.get("style"):
            _css(value, reading, block=False)


def _css(text: str, reading: _Reading, *, block: bool) -> None:
    """Read a style block's or attribute's CSS, within what is left of the page's."""
    if not may_load(text):
        return  # a style="display: none": nothing to read, nothing of the bound spent
    if reading.css_left <= 0:
        reading.css_skipped += 1
        return
    if block:
        read = gather_stylesheet(
            text, reading.refs, max_chars=reading.css_left, relabel="style-block"
        )
    else:
        read = gather_declarations(
            text, reading.refs, max_chars=reading.css_left, relabel="style-attr"
        )
    # a text the bound cut (which says so in a note) ends the page's CSS
    reading.css_left = 0 if len(text) > reading.css_left else reading.css_left - read


def _srcdoc(markup: str, reading: _Reading, depth: int) -> None:
    if depth + 1 > ParseSettings.max_srcdoc_depth:
        reading.refs.note(
            f"iframe srcdoc documents more than {ParseSettings.max_srcdoc_depth} deep not read"
        )
        return
    bounds = reading.bounds
    cut = find_cut(markup, bounds.max_depth, bounds.max_elements)
    if cut is not None:
        reading.refs.note(
            f"an iframe srcdoc document read up to character {cut.at:,} of "
            f"{len(markup):,} ({cut.reason})"
        )
        markup = markup[: cut.at]
    _read(LexborHTMLParser(markup), reading, depth + 1)
