"""What an HTTP ``Link`` response header asks a browser to load (RFC 8288).

``<style.css>; rel=preload; as=style, </app.js>; rel="modulepreload"``: a URL between
``<`` and ``>`` (commas and semicolons in it are part of it), then parameters, then a
comma before the next link. Kept are the links a browser loads with the page: rel
``stylesheet``, ``preload`` and ``modulepreload`` (as :mod:`embeds` keeps them from
``<link>`` elements) and the icons. A malformed value gives what can be read: a link with
no closing ``>`` ends the value; a parameter that cannot be read is skipped to the next
``;`` or ``,``; a ``<`` where a parameter was expected starts the next link (a comma
forgotten). Each step consumes at least a character, so any value is read in linear time.
"""

from __future__ import annotations

import re

from recrawl.core.config import ParseSettings
from recrawl.core.content.refs import EmbedRef, EmbedSet
from recrawl.core.content.rels import link_context

#: One parameter: ``; name``, then ``= token`` or ``= "quoted"`` (escapes in it).
_PARAMETER = re.compile(
    r"""[ \t]*;[ \t]*([^=;,<"\s]*)[ \t]*(?:=[ \t]*(?:"((?:[^"\\]|\\.)*)"?|([^;,<]*)))?""",
    re.DOTALL,
)
_SPACE = re.compile(r"[ \t\r\n]*")
_GARBAGE = re.compile(r"[^;,<]+")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def link_header_embeds(
    value: str, *, limit: int = ParseSettings.max_header_embeds
) -> list[EmbedRef]:
    """The URLs a ``Link`` header's value asks to load with the page, as written (the
    engine resolves them against the response's URL); never raises."""
    refs = EmbedSet(limit)
    position, end = 0, len(value)
    while position < end:
        opening = value.find("<", position)
        closing = value.find(">", opening + 1) if opening >= 0 else -1
        if closing < 0:
            break
        url = value[opening + 1 : closing]
        parameters, position = _parameters(value, closing + 1)
        context = link_context(parameters.get("rel", ""), parameters.get("as"))
        if context is not None:
            refs.add(url, "link-header")
    return refs.refs


def _parameters(value: str, position: int) -> tuple[dict[str, str], int]:
    """A link's parameters from ``position`` (the first of each name counts, as RFC 8288
    says of ``rel``), and where the next link may start."""
    parameters: dict[str, str] = {}
    end = len(value)
    while position < end:
        match = _PARAMETER.match(value, position)
        if match is not None:
            name, quoted, token = match.groups()
            text = _ESCAPE.sub(r"\1", quoted) if quoted is not None else (token or "").strip()
            parameters.setdefault(name.lower(), text)
            position = match.end()
            continue
        space = _SPACE.match(value, position)
        position = space.end() if space is not None else position
        if position >= end:
            break
        char = value[position]
        if char == ",":
            return parameters, position + 1
        if char == "<":
            return parameters, position
        garbage = _GARBAGE.match(value, position)
        position = garbage.end() if garbage is not None else position + 1
    return parameters, position
