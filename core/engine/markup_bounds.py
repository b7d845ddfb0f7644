"""Where a page's HTML passes the parse bounds: nesting depth and element count.

Lexbor's tree builder checks scopes by walking its stack of open elements, so n nested
elements cost O(n²): 100,000 nested ``<div>`` elements took 90 s, with the parser's
tree growing ~300 bytes an element. The markup is therefore scanned first (a cheap
model of the parser's stack of open elements) and cut at the first tag past a bound;
the parser sees only what is before it, so its time and memory are bounded whatever
the page.

The model errs deep: it pops an element for an end tag, or for a start tag that
implicitly closes one (``<li>``, ``<p>``, ``<td>``...), only when the element is within
:data:`LOOKBACK` of the top and no scope boundary lies between, and it never counts a
``/>`` as closing an HTML element (the parser does not either). So a page built to look
shallow to the model is never deep to the parser; a page the model thinks deeper than it
is loses only links past the cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: How far down the stack an end tag (or an implied end) looks for its element.
LOOKBACK = 32

#: A tag's start (its end tag mark and name) or a comment's. Attributes are not read: a
#: tag inside one counts as a tag, which errs deep; a tag's ``>`` is not looked for, as a
#: page of ``<a<a<a``... would make that search quadratic.
_TOKEN = re.compile(r"<(/?)([A-Za-z][^\t\n\f\r />]*)|<!--")
_VOID = frozenset(
    [
        "area",
        "base",
        "basefont",
        "bgsound",
        "br",
        "col",
        "embed",
        "frame",
        "hr",
        "image",
        "img",
        "input",
        "keygen",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
#: Elements whose content is text up to their end tag (``<plaintext>``: to the end).
_RAW_TEXT = frozenset(
    ["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"]
)
_RAW_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in _RAW_TEXT}
#: Elements an end tag may not close across (HTML's "has an element in scope").
_SCOPE = frozenset(
    [
        "applet",
        "caption",
        "html",
        "table",
        "td",
        "th",
        "marquee",
        "object",
        "template",
        "svg",
        "math",
        "button",
    ]
)
_TABLE_PARTS = frozenset({"thead", "tbody", "tfoot"})
_CELLS = frozenset({"td", "th"})
_RUBY = frozenset({"rb", "rt", "rp", "rtc"})
#: Start tags that close an open element of their kind: (the kinds, where the search stops).
_IMPLIED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset({"li"}), frozenset({"ul", "ol", "table", "template"})),
    "dt": (frozenset({"dt", "dd"}), frozenset({"dl", "table", "template"})),
    "dd": (frozenset({"dt", "dd"}), frozenset({"dl", "table", "template"})),
    "p": (frozenset({"p"}), _SCOPE),
    "option": (frozenset({"option"}), frozenset({"select", "datalist", "optgroup"})),
    "optgroup": (frozenset({"option", "optgroup"}), frozenset({"select"})),
    "tr": (frozenset({"tr"}), frozenset({"table", "template"})),
    "td": (_CELLS, frozenset({"tr", "table", "template"})),
    "th": (_CELLS, frozenset({"tr", "table", "template"})),
    **dict.fromkeys(_TABLE_PARTS, (_TABLE_PARTS, frozenset({"table", "template"}))),
    **dict.fromkeys(_RUBY, (_RUBY, frozenset({"ruby"}))),
}


@dataclass(frozen=True)
class Cut:
    """Where the markup passes a bound: the parser reads ``text[:at]``."""

    at: int
    reason: str


def find_cut(text: str, max_depth: int, max_elements: int) -> Cut | None:
    """The first tag of ``text`` past a bound, or None when the whole page is within."""
    if text.count("<") <= min(max_depth, max_elements):
        return None  # fewer tags than either bound: nothing to scan
    stack: list[str] = []
    elements = 0
    pos = 0
    while pos < len(text):
        resume = len(text)  # where to scan on after a comment or raw text
        for match in _TOKEN.finditer(text, pos):
            name = match.group(2)
            if name is None:  # a comment, to its end (or the page's)
                end = text.find("-->", match.end())
                resume = len(text) if end < 0 else end + 3
                break
            name = name.lower()
            if match.group(1):  # an end tag
                if stack and stack[-1] == name:
                    stack.pop()  # well-formed markup: nearly every end tag
                else:
                    _end(stack, name)
                continue
            elements += 1
            if elements > max_elements:
                return Cut(match.start(), f"more than {max_elements:,} elements")
            if name in _VOID:
                continue
            if name == "plaintext":
                return None  # the rest is text
            implied = _IMPLIED.get(name)
            if implied is not None:
                _close(stack, *implied)
            stack.append(name)
            if len(stack) > max_depth:
                return Cut(match.start(), f"elements nested more than {max_depth:,} deep")
            raw_end = _RAW_END.get(name)
            if raw_end is not None:
                found = raw_end.search(text, match.end())
                resume = len(text) if found is None else found.start()
                break
        pos = resume
    return None


def _close(stack: list[str], kinds: frozenset[str], stops: frozenset[str]) -> None:
    """Pop to the nearest element of ``kinds`` near the top, unless a stop comes first."""
    for depth in range(len(stack) - 1, max(len(stack) - 1 - LOOKBACK, -1), -1):
        name = stack[depth]
        if name in kinds:
            del stack[depth:]
            return
        if name in stops:
            return


def _end(stack: list[str], name: str) -> None:
    """An end tag: pop to its element if it is open near the top, within scope."""
    for depth in range(len(stack) - 1, max(len(stack) - 1 - LOOKBACK, -1), -1):
        open_name = stack[depth]
        if open_name == name:
            del stack[depth:]
            return
        if open_name in _SCOPE:
            return
