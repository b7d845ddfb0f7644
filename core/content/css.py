"""What a stylesheet or a ``style`` attribute loads: imports, ``url()``s, fonts, image sets.

tinycss2 splits the CSS into component values as a browser does (comments, strings,
escapes, ``url(`` tokens and blocks by the CSS Syntax Level 3 tokenizer) and one walk
over them reads what loads something:

- ``@import "x.css"`` / ``@import url(x.css)``, whatever media, ``supports()`` or
  ``layer`` follow it (context ``css-import``);
- a ``url(x)`` token or ``url("x")`` / ``src("x")`` function in any declaration
  (``css-url``), or in an ``@font-face`` block (``font-face``: ``local()`` names a font
  installed on the reader's machine, no URL);
- ``image-set()`` and ``-webkit-image-set()``, whose candidates may be bare strings
  (``image-set``);
- at any depth: ``@media``, ``@supports``, ``@layer``, ``@container`` and nested style
  rules are blocks like any other.

An at-rule's prelude loads nothing but an ``@import``'s first URL: ``@namespace
url(...)`` names a namespace, ``@-moz-document url(...)`` and ``@supports
(background: url(...))`` state conditions. A URL is kept as written (escapes decoded);
the engine resolves it against the stylesheet's own URL.

The walk keeps its own stack (no recursion: a hostile sheet nests blocks a million
deep). tinycss2 builds ~50 bytes of Python objects a character of CSS and reads ~1 MB a
second, so a stylesheet is read a window of :data:`_WINDOW` characters at a time, each
up to the end of its last complete top-level rule (memory stays that of one window,
unless one rule is bigger: 2 MB of minified CSS took 70 MB in one window, 19 MB in
these), and not past ``max_chars`` (:data:`MAX_STYLESHEET_CHARS`): the token the bound
cuts short (``url(straddl``) is not read, and a note says where the reading stopped.
CSS that cannot load anything (no ``url(``, ``@import``... in it) is not tokenized.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import tinycss2
from recrawl.core.config import ParseSettings
from recrawl.core.content.refs import Context, EmbedRef, Embeds, EmbedSet

#: The characters of one stylesheet read at most (``ParseSettings.max_stylesheet_chars``):
#: tinycss2 reads 0.9 (minified) to 1.5 MB of CSS a second (3.4 MB/s for base64 fonts) on
#: a busy 2-core machine, so a sheet of any size costs at most about 2 s. Few stylesheets
#: are longer; an archive keeps them whole, only the references past the bound are not
#: extracted.
MAX_STYLESHEET_CHARS = ParseSettings().max_stylesheet_chars
#: Characters tokenized at once (~13 MB of tokens); a top-level rule longer than this
#: (a whole sheet inside one ``@media``) doubles it until the rule fits.
_WINDOW = 256 * 1024

#: Text without any of these loads nothing (``url(`` and the rest may also be written
#: with escapes, ``u\72l(``: hence the backslash), and is not tokenized at all.
_MAY_LOAD = re.compile(r"url\(|src\(|image-set\(|@import|\\", re.IGNORECASE)
_URL_FUNCTIONS = frozenset({"url", "src"})
_IMAGE_SETS = frozenset({"image-set", "-webkit-image-set"})
_BLOCKS = frozenset({"{} block", "() block", "[] block"})
#: What an at-rule's prelude is once its ``@import`` URL is read: nothing more to read.
_READ = "-read"


def stylesheet_embeds(text: str, limit: int, *, max_chars: int = MAX_STYLESHEET_CHARS) -> Embeds:
    """What the stylesheet ``text`` loads: its first ``limit`` distinct references in
    order, read up to ``max_chars`` characters (a note says where it stopped)."""
    refs = EmbedSet(limit)
    gather_stylesheet(text, refs, max_chars=max_chars)
    return refs.embeds()


def declaration_embeds(
    text: str, limit: int, *, max_chars: int = MAX_STYLESHEET_CHARS
) -> list[EmbedRef]:
    """What a ``style`` attribute's declarations load: the first ``limit`` distinct
    references, read up to ``max_chars`` characters."""
    refs = EmbedSet(limit)
    gather_declarations(text, refs, max_chars=max_chars)
    return refs.refs


def may_load(text: str) -> bool:
    """Whether the CSS ``text`` may load anything (if not, it need not be tokenized)."""
    return _MAY_LOAD.search(text) is not None


def gather_stylesheet(
    text: str,
    refs: EmbedSet,
    *,
    max_chars: int,
    relabel: Context | None = None,
    window: int = _WINDOW,
) -> int:
    """Add what the stylesheet ``text`` loads to ``refs``; with ``relabel``, every
    reference but an ``@import`` takes that context (a page's ``<style>`` block).
    Returns the characters tokenized (0 for a sheet that cannot load anything)."""
    max_chars = max(max_chars, 0)
    cut = len(text) > max_chars
    tokenized = 0
    if _MAY_LOAD.search(text, 0, max_chars) is not None:
        # tinycss2's own newline and NUL normalisation, done first so that the offsets
        # its tokens give (line and column) are offsets into this text
        css = _normalised(text[:max_chars] if cut else text)
        tokenized = len(css)
        read = _read_windows(css, cut, refs, relabel, max(window, 1))
    else:
        read = min(len(text), max_chars)
    if cut:
        refs.note(
            f"stylesheet of {len(text):,} characters read up to character {read:,} (at most "
            f"{max_chars:,}): references past it not extracted"
        )
    return tokenized


def gather_declarations(
    text: str, refs: EmbedSet, *, max_chars: int, relabel: Context | None = None
) -> int:
    """Add what the declaration list ``text`` (a ``style`` attribute) loads to ``refs``.
    Returns the characters tokenized (0 for declarations that cannot load anything)."""
    max_chars = max(max_chars, 0)
    cut = len(text) > max_chars
    css = _normalised(text[:max_chars]) if cut else text
    read = len(css)
    tokenized = 0
    if _MAY_LOAD.search(css) is not None:
        tokenized = len(css)
        try:
            tokens = tinycss2.parse_component_value_list(css, skip_comments=True)
            dropped = _drop_last_token(tokens) if cut else None  # as a stylesheet's
            if dropped is not None:
                read = _offset(css, dropped)
            # a style attribute is a block's contents; nested rules in one apply to nothing
            items = tinycss2.parse_blocks_contents(tokens)
        except Exception as exc:  # a parser bug must not cost the page its other embeds
            refs.note(f"CSS parser failed on a style attribute: {exc!r}"[:300])
            return tokenized
        for item in items:
            if item.type == "declaration":
                _walk(item.value, refs, relabel)
    if cut:
        refs.note(
            f"style attribute of {len(text):,} characters read up to character {read:,} "
            f"(at most {max_chars:,}): references past it not extracted"
        )
    return tokenized


def _normalised(css: str) -> str:
    return css.replace("\0", "\ufffd").replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n")


def _read_windows(css: str, cut: bool, refs: EmbedSet, relabel: Context | None, window: int) -> int:
    """Walk ``css`` a window at a time; where the reading stopped: ``len(css)``, or if
    ``cut`` (``css`` is the sheet up to its bound) where the token the bound cut starts."""
    start, size = 0, window
    while start < len(css):
        if _MAY_LOAD.search(css, start) is None:
            return len(css)  # nothing past here can load anything: no need to read it
        end = min(start + size, len(css))
        piece = css[start:end]
        try:
            tokens = tinycss2.parse_component_value_list(piece, skip_comments=True)
        except Exception as exc:  # a parser bug must not cost the page its other embeds
            refs.note(f"CSS parser failed past character {start:,}: {exc!r}"[:300])
            return start
        if end == len(css):
            # the sheet's end closes what it left open; the bound's cuts a token short
            # (``url(straddl``), which is not read
            dropped = _drop_last_token(tokens) if cut else None
            _walk(tokens, refs, relabel)
            return end if dropped is None else start + _offset(piece, dropped)
        last = _last_rule_end(tokens)
        if last is None:
            size *= 2  # one rule longer than the window: read it in a longer one
            continue
        _walk(tokens[: last + 1], refs, relabel)
        start += _offset(piece, tokens[last + 1])
        size = window
    return start


def _drop_last_token(tokens: list[Any]) -> Any:
    """Remove the last token of the innermost block or function still open (with the
    parse errors an unterminated token left after it) and return it, if there is one."""
    items = tokens
    while True:
        while items and items[-1].type == "error":
            items.pop()
        if not items:
            return None
        last = items[-1]
        if last.type in _BLOCKS:
            items = last.content
        elif last.type == "function":
            items = last.arguments
        else:
            return items.pop()


def _last_rule_end(tokens: list[Any]) -> int | None:
    """The index of the last top-level ``;`` or ``{}`` block that something follows:
    the window's cut cannot have fallen inside it or before it."""
    for i in range(len(tokens) - 2, -1, -1):
        token = tokens[i]
        kind = token.type
        if kind == "{} block" or (kind == "literal" and token.value == ";"):
            return i
    return None


def _offset(piece: str, token: Any) -> int:
    """Where ``token`` starts in ``piece``, from its line and column (both from 1)."""
    newline = -1
    for _ in range(int(token.source_line) - 1):
        newline = piece.find("\n", newline + 1)
    return newline + int(token.source_column)


#: A list of component values being walked: what is left of it, the context of the
#: URLs in it, and whether a string in it is a URL (an image set's candidates).
_Frame = tuple[Iterator[Any], Context, bool]


def _walk(tokens: list[Any], refs: EmbedSet, relabel: Context | None) -> None:
    """Add the URLs the component values ``tokens`` load, at any depth, to ``refs``."""
    stack: list[_Frame] = [(iter(tokens), "css-url", False)]
    while stack:
        items, context, strings = stack[-1]
        # the at-rule whose prelude is being read; a prelude never holds a block walked
        # into (its own ``{}`` ends it), so a list walked again after one has none
        at: str | None = None
        for token in items:
            kind = token.type
            if kind == "whitespace":
                continue
            if at is not None:
                if kind == "{} block":
                    inner: Context = "font-face" if at == "font-face" else context
                    stack.append((iter(token.content), inner, False))
                    break
                if kind == "literal" and token.value == ";":
                    at = None
                elif at == "import":
                    url = _import_target(token)
                    if url is not None:
                        refs.add(url, "css-import")
                    at = _READ  # media, supports() and layer after it load nothing
                continue
            if kind == "at-keyword":
                at = token.lower_value
            elif kind == "url":
                refs.add(token.value, relabel or context)
            elif kind == "string":
                if strings:
                    refs.add(token.value, relabel or context)
            elif kind == "function":
                name = token.lower_name
                if name in _URL_FUNCTIONS:
                    url = _first_string(token.arguments)
                    if url is not None:
                        refs.add(url, relabel or context)
                elif name in _IMAGE_SETS:
                    stack.append((iter(token.arguments), "image-set", True))
                    break
                else:  # var(), cross-fade(), a gradient...: a URL may be inside
                    stack.append((iter(token.arguments), context, False))
                    break
            elif kind in _BLOCKS:
                stack.append((iter(token.content), context, False))
                break
        else:
            stack.pop()


def _first_string(arguments: list[Any]) -> str | None:
    """A ``url("...")`` function's URL: its first argument, if a string."""
    for token in arguments:
        if token.type != "whitespace":
            return str(token.value) if token.type == "string" else None
    return None


def _import_target(token: Any) -> str | None:
    """The URL an ``@import``'s first component value gives, if any."""
    if token.type in ("string", "url"):
        return str(token.value)
    if token.type == "function" and token.lower_name in _URL_FUNCTIONS:
        return _first_string(token.arguments)
    return None
