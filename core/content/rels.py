"""Which ``<link>`` relations (and ``Link`` header ones) load something with the page.

- ``stylesheet``, ``alternate stylesheet`` included: a browser loads an alternate sheet
  only when the reader picks it, but a replay that offers the choice needs it, and
  keeping one costs a fetch.
- ``preload`` with an ``as`` a browser preloads (the HTML standard's fetch, font, image,
  script, style and track; json, audio, video and worker, which browsers have taken or
  take). ``as=document`` is a navigation's, frames' and objects' documents are fetched as
  documents: skipped, as is a preload without ``as``, which the standard does not fetch.
- ``modulepreload`` with no ``as`` (a script) or a script-like one.
- ``icon`` (``shortcut icon``), ``apple-touch-icon``, ``apple-touch-icon-precomposed``,
  ``mask-icon``; ``manifest``.

``prefetch``, ``prerender`` and ``dns-prefetch`` are for the next pages, not this one.
"""

from __future__ import annotations

import re

from recrawl.core.content.refs import Context

PRELOAD_AS = frozenset(
    {"fetch", "font", "image", "script", "style", "track", "json", "audio", "video", "worker"}
)
#: The HTML standard's script-like destinations (and json, style for module imports).
MODULE_PRELOAD_AS = frozenset(
    {
        "script",
        "audioworklet",
        "paintworklet",
        "serviceworker",
        "sharedworker",
        "worker",
        "json",
        "style",
    }
)
_ICONS = frozenset({"icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon"})
#: A rel is a set of tokens split on ASCII whitespace (``str.split`` splits on more).
_TOKENS = re.compile(r"[^\t\n\f\r ]+")


def link_context(rel: str, as_: str | None) -> Context | None:
    """What a link of relation ``rel`` (and ``as``) loads as, or None if it loads
    nothing with the page."""
    tokens = set(_TOKENS.findall(rel.lower()))
    if "stylesheet" in tokens:
        return "stylesheet"
    destination = (as_ or "").strip(" \t\n\f\r").lower()
    if "preload" in tokens and destination in PRELOAD_AS:
        return "preload"
    if "modulepreload" in tokens and (not destination or destination in MODULE_PRELOAD_AS):
        return "modulepreload"
    if tokens & _ICONS:
        return "icon"
    if "manifest" in tokens:
        return "manifest"
    return None
