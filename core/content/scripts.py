"""What a script may load: string literals that read as a file's path (a guess).

No crawler that reads HTML and CSS sees what a script builds, but many scripts name
their files outright: ``$.getJSON("_static/glossary.json")``, an icon swapped in by
``el.src = `${dir}plus.png```. Heritrix's ExtractorJS takes such literals as
*speculative* references; so does this, narrowly: a quoted string (or a template
literal's text after a ``${…}``) that is one path with a file extension a page loads
(images, styles, scripts, fonts, media, JSON), no spaces, no markup. A guess that turns
out wrong costs one fetch that answers 404; it is never counted as missing
(:mod:`recrawl.core.engine.embeds`).

Guesses from a script file resolve against its own URL (where a relative path in it most
often points), those of an inline script against its document's base.
"""

from __future__ import annotations

import re

from recrawl.core.config import ParseSettings
from recrawl.core.content.refs import EmbedSet

_EXTENSIONS = (
    "png|jpe?g|gif|svg|webp|avif|ico|bmp|css|js|mjs|json|woff2?|ttf|otf|eot|"
    "mp4|webm|ogg|ogv|mp3|wav|vtt"
)
#: A path: no quote, space, markup or template syntax in it; an extension at its end
#: (before an optional query); after a ``}``, a template literal's ``${x}name.png``.
_GUESS = re.compile(
    r"""(?:(["'`])|\})"""
    r"""([\w~%+@=&;,!$./:-]{1,300}?\.(?:"""
    + _EXTENSIONS
    + r""")(?:\?[\w~%+@=&;,!$./:-]{0,200})?)"""
    r"""(?(1)\1|`)""",
    re.IGNORECASE,
)


def script_guesses(
    text: str, refs: EmbedSet, *, max_chars: int = ParseSettings.max_script_chars
) -> int:
    """Add the paths ``text`` (a script) names to ``refs`` as guesses (context
    ``script-guess``), at most ``parse.max_script_guesses``; returns how many were added."""
    added = 0
    for match in _GUESS.finditer(text, 0, max_chars):
        path = match.group(2)
        if "//" in path and not path.startswith(("http://", "https://", "//")):
            continue  # a comment or a regex's text, not a path
        before = len(refs.refs)
        refs.add(path, "script-guess")
        added += len(refs.refs) - before
        if added >= ParseSettings.max_script_guesses:
            break
    return added
