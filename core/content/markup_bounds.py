"""Where a page's HTML passes the parse bounds: nesting depth and element count.

Lexbor's tree builder checks scopes by walking its stack of open elements, so n nested
elements cost O(n²): 100,000 nested ``<div>`` elements took 90 s, with the parser's
tree growing ~300 bytes an element; and formatting elements (``<b>``, ``<font>``...) that
an end tag pops stay "active", so the parser makes them again inside the next element:
a 200 kB page of ``<div><b id=N></div>`` then ``<p>x</p>`` made millions of elements and
ran out of memory. The markup is therefore scanned first (a cheap model of the parser's
stack of open elements and list of active formatting elements) and cut at the first tag
past a bound; the parser sees only what is before it, so its time and memory are
bounded whatever the page. An ordinary page, its elements nested properly, is shown
within the bounds without the model reading each of its tags: the shortcut at the end
of this module (:func:`skeleton`) takes its well-nested parts out with regular
expressions, and the model reads the rest.

The model errs deep. It pops an element for an end tag, or for a start tag that
implicitly closes one (``<li>``, ``<p>``, ``<td>``...), only where the parser's rules do
and the element is within :data:`LOOKBACK` of the top; it never counts a ``/>`` as
closing an HTML element (the parser does not either); it remakes popped formatting
elements where the parser does, or earlier, and forgets them only where the parser must
(their end tag, a table cell's end, the fourth of the same tag and attributes). It does
not play the parser's "adoption agency" (misnested formatting tags) or all of its table
and select rules, so a page may nest a little deeper or make more elements than the
model says: tests/core/content/test_markup_bounds.py checks against Lexbor, on random
markup repeated up to 200 times, that it stays within twice the depth and three times
the elements, a factor that does not grow with the page. A page the model thinks deeper
than it is loses only links past the cut.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

#: How far down the stack an end tag (or an implied end) looks for its element.
LOOKBACK = 32


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


#: A tag's start (its end tag mark and name), a comment's, or a bogus comment's (``<!x``,
#: ``<?x``, ``</1``). Attributes are not read: a tag inside one counts as a tag, which
#: errs deep; a tag's ``>`` is not looked for, as a page of ``<a<a<a``... would make that
#: search quadratic.
_TOKEN = re.compile(r"<(/?)([A-Za-z][^\t\n\f\r />]*)|<!--|<[!?]|</[^A-Za-z>]")
#: A formatting tag's attributes, for telling copies apart: up to its ``>``, not past the
#: next ``<`` (so every character is read once) nor 256 characters.
_ATTRIBUTES = re.compile(r"[^<>]{0,256}>")
_VOID = _set(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta "
    "param source track wbr"
)
#: Elements whose content is text up to their end tag (``<plaintext>``: to the end).
_RAW_TEXT = _set("script style textarea title xmp iframe noembed noframes")
_RAW_END = {name: re.compile(f"</{name}", re.IGNORECASE) for name in _RAW_TEXT}
#: Elements an end tag may not close across (HTML's "has an element in scope").
#: (``select`` is none, but the parser ignores most end tags in a select.)
_SCOPE = _set("applet caption html table td th marquee object template svg math select")
#: Elements that clear the active formatting elements made inside them when they end.
_MARKERS = _set("applet object marquee template td th caption")
#: Formatting elements: an end tag of another element leaves them active, to be made again.
_FORMATTING = _set("a b big code em font i nobr s small strike strong tt u")
#: Elements a misnested formatting end tag does not close (the parser moves them instead:
#: the "furthest block" of its adoption agency algorithm).
_SPECIAL = _set(
    "address applet area article aside base basefont bgsound blockquote body br button "
    "caption center col colgroup dd details dir div dl dt embed fieldset figcaption "
    "figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html "
    "iframe img input keygen li link listing main marquee menu meta nav noembed noframes "
    "noscript object ol p param plaintext pre script search section select source style "
    "summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp"
)
_SPECIAL_OR_SCOPE = _SPECIAL | _SCOPE
#: End tags that do more than pop the element on top when it is theirs.
_NOT_PLAIN_END = _MARKERS | _FORMATTING | {"body", "html"}
_BUTTON_SCOPE = _SCOPE | {"button"}
_LIST_ITEM_SCOPE = _SCOPE | {"ol", "ul"}
_ITEM_STOPS = _SPECIAL_OR_SCOPE - {"address", "div", "p"}
_HEADINGS = _set("h1 h2 h3 h4 h5 h6")
_TABLE_STRUCTURE = _set("table caption colgroup tbody tfoot thead tr")
_TABLE_SCOPE = _set("html table template")
#: Start tags that end the element right above them (the current node) if of a kind.
_TOP_IMPLIED = {
    **dict.fromkeys(_HEADINGS, _HEADINGS),
    "option": frozenset({"option"}),
    "optgroup": frozenset({"option", "optgroup"}),
}
_TABLE_PARTS = frozenset({"thead", "tbody", "tfoot"})
_CELLS = frozenset({"td", "th"})
_ROWS_AND_CELLS = frozenset({"tr", "td", "th"})
#: Start tags the parser ignores outside a table.
_TABLE_ONLY = _set("caption col colgroup tbody td tfoot th thead tr")
_TABLE_CONTEXTS = frozenset({"table", "tr", "template"} | _TABLE_PARTS)
_RUBY = frozenset({"rb", "rt", "rp", "rtc"})
_P = frozenset({"p"})
#: Start tags that end an open ``<p>``.
_ENDS_P = _set(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 "
    "h5 h6 pre listing form hr xmp li dd dt"
)
#: Start tags that close an open element of their kind: (the kinds, where the search stops).
_IMPLIED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # an item ends the last, unless a special element (not address, div, p) is open in it
    "li": (frozenset({"li"}), _ITEM_STOPS),
    "dt": (frozenset({"dt", "dd"}), _ITEM_STOPS),
    "dd": (frozenset({"dt", "dd"}), _ITEM_STOPS),
    "button": (frozenset({"button"}), _SCOPE),
    "tr": (frozenset({"tr"}), frozenset({"table", "template"})),
    "caption": (_TABLE_PARTS | {"tr"}, frozenset({"table", "template"})),
    "colgroup": (_TABLE_PARTS | {"tr"}, frozenset({"table", "template"})),
    # a table straight in a table (not in a cell) ends it
    "table": (frozenset({"table"}), frozenset({"td", "th", "caption", "template", "html"})),
    "td": (_CELLS, frozenset({"tr", "table", "template"})),
    "th": (_CELLS, frozenset({"tr", "table", "template"})),
    **dict.fromkeys(_TABLE_PARTS, (_TABLE_PARTS, frozenset({"table", "template"}))),
    **dict.fromkeys(_RUBY, (_RUBY, frozenset({"ruby"}))),
}
#: Start tags before which the parser does not remake active formatting elements (it
#: waits for the text inside them, or another tag); all others remake them first.
_KEEPS_PENDING = _set(
    "html head body base basefont bgsound link meta noframes script style template title "
    "address article aside blockquote center details dialog dir div dl fieldset "
    "figcaption figure footer header hgroup main menu nav ol p search section summary ul "
    "h1 h2 h3 h4 h5 h6 pre listing form li dd dt plaintext table hr textarea iframe "
    "noembed noscript frameset caption col colgroup frame tbody td tfoot th thead tr "
    "param source track"
)

#: An open element: its name; for a formatting element the text that tells it from
#: another of the same name (None: unlike any other) and its place in the parser's list
#: of active formatting elements (a number that grows; 0 for other elements).
Open = tuple[str, str | None, int]


@dataclass(frozen=True)
class Cut:
    """Where the markup passes a bound: the parser reads ``text[:at]``."""

    at: int
    reason: str


@dataclass(frozen=True)
class Reach:
    """What the model made of a whole page: its deepest nesting, its elements."""

    depth: int
    elements: int


class _Model:
    """The parser's stack of open elements and the formatting elements it will remake."""

    def __init__(self) -> None:
        self.stack: list[Open] = []
        #: Formatting elements popped while still active, in their list's order.
        self.pending: list[Open] = []
        #: For each marker element on the stack: its index, and the place in the list of
        #: active formatting elements it marks.
        self.markers: list[tuple[int, int]] = []
        self.places = 0
        #: The indexes of the tables, table parts and rows on the stack, all of them (the
        #: parser ignores a row or cell with none open, however deep).
        self.tables: list[int] = []
        self.elements = 0

    def push(self, name: str, key: str | None = None) -> None:
        place = 0
        if name in _MARKERS or name in _FORMATTING:
            self.places += 1
            place = self.places
        if name in _MARKERS:
            self.markers.append((len(self.stack), place))
        if name in _TABLE_CONTEXTS:
            self.tables.append(len(self.stack))
        self.stack.append((name, key, place))

    def _first_after(self, mark: int) -> int:
        """Where the pending elements made after place ``mark`` start."""
        return bisect.bisect_right(self.pending, mark, key=lambda entry: entry[2])

    def pop_to(self, depth: int) -> None:
        """Pop the elements from ``depth`` up; active formatting ones among them wait to
        be made again, unless a marker popped with them clears them."""
        popped = self.stack[depth:]
        del self.stack[depth:]
        while self.tables and self.tables[-1] >= depth:
            self.tables.pop()
        keep_below = len(popped)
        while self.markers and self.markers[-1][0] >= depth:
            index, mark = self.markers.pop()
            keep_below = index - depth
            del self.pending[self._first_after(mark) :]  # made in it: forgotten
        for entry in popped[:keep_below]:
            if entry[0] in _FORMATTING:
                self._pend(entry)

    def _pend(self, entry: Open) -> None:
        name, key, _ = entry
        # the parser keeps three alike at most (the "Noah's Ark" clause)
        if key is not None:
            alike = [i for i, (n, k, _) in enumerate(self.pending) if n == name and k == key]
            if len(alike) >= 3:
                del self.pending[alike[0]]
        bisect.insort(self.pending, entry, key=lambda open_: open_[2])

    def remake(self) -> None:
        """The parser's "reconstruct the active formatting elements" (done early)."""
        first = self._first_after(self.markers[-1][1]) if self.markers else 0  # not before a cell
        if len(self.pending) > first:
            self.stack.extend(self.pending[first:])
            self.elements += len(self.pending) - first
            del self.pending[first:]

    def find(self, kinds: frozenset[str], stops: frozenset[str]) -> int:
        """Where the nearest of ``kinds`` is near the top (-1: not there, or past a stop)."""
        for depth in range(len(self.stack) - 1, max(len(self.stack) - 1 - LOOKBACK, -1), -1):
            name = self.stack[depth][0]
            if name in kinds:
                return depth
            if name in stops:
                return -1
        return -1

    def close(self, kinds: frozenset[str], stops: frozenset[str]) -> bool:
        """Pop to the nearest of ``kinds`` near the top, unless a stop comes first."""
        depth = self.find(kinds, stops)
        if depth >= 0:
            self.pop_to(depth)
        return depth >= 0

    def end(self, name: str) -> None:
        """An end tag (or ``<a>``'s implied one), as the parser's "in body" takes it."""
        if name in _FORMATTING:
            self._end_formatting(name)
            return
        kinds = _HEADINGS if name in _HEADINGS else frozenset({name})
        if name == "br":  # taken for <br>
            self.elements += 1
            self.remake()
        elif name in ("body", "html"):
            pass  # the parser only notes it; what comes after goes in the body still
        elif name == "form":  # the form alone leaves the stack, not what is open in it
            depth = self.find(kinds, _SCOPE)
            if depth >= 0:  # (what is open in it stays in it: the tree keeps its depth)
                self.stack[depth] = ("#form", None, 0)
        elif name == "p":
            if not self.close(kinds, _BUTTON_SCOPE):
                self.elements += 1  # </p> with none open makes an empty one
        elif name == "li":
            self.close(kinds, _LIST_ITEM_SCOPE)
        elif name in _TABLE_STRUCTURE:  # ends the cells and rows open in it
            # (in a caption, the parser ignores a table part's or row's end tag; a
            # table's ends the caption or cell open in it too)
            self.close(kinds, _TABLE_SCOPE | {"caption"} if name != "table" else _TABLE_SCOPE)
        elif name in _SPECIAL or name in _HEADINGS:
            self.close(kinds, _SCOPE)
        else:  # "any other end tag": not across a special element
            self.close(kinds, _SPECIAL_OR_SCOPE)

    def _end_formatting(self, name: str) -> None:
        depth = self.find(frozenset({name}), _SCOPE)
        if depth >= 0:
            above = self.stack[depth + 1 :]
            if any(entry[0] in _SPECIAL for entry in above):
                # the parser moves the blocks above, so nothing gets shallower, and makes
                # copies of the formatting elements among them
                self.elements += len(above) + 1
                return
            self.pop_to(depth + 1)
            del self.stack[depth]  # ended, so not made again
            return
        for index in range(len(self.pending) - 1, -1, -1):
            if self.pending[index][0] == name:
                del self.pending[index]
                return

    def start(self, name: str, key: str | None) -> None:
        if name in _TABLE_ONLY and not self.tables:
            return  # no table open: the parser ignores it
        if name == "nobr":  # (remade first, then ended)
            self.remake()
        if name in ("a", "nobr"):  # a second one ends the first
            self._end_formatting(name)
        if name in _ENDS_P:  # a block ends an open paragraph (a table does not: quirks)
            self.close(_P, _BUTTON_SCOPE)
        implied = _IMPLIED.get(name)
        if implied is not None:
            self.close(*implied)
        top = _TOP_IMPLIED.get(name)  # a heading right in a heading ends it, and so on
        if top is not None and self.stack and self.stack[-1][0] in top:
            self.pop_to(len(self.stack) - 1)
        if name not in _KEEPS_PENDING:
            self.remake()
        if name in _VOID:
            return
        if name in _TABLE_ONLY:
            # what is open in the table (foster-parented) ends first...
            depth = self.tables[-1]
            context = self.stack[depth][0]
            self.pop_to(depth + 1)
            # ...and the parser makes a table's body and a row for a row or cell
            if name in _ROWS_AND_CELLS and context == "table":
                self.push("tbody")
                self.elements += 1
            if name in _CELLS and context != "tr":
                self.push("tr")
                self.elements += 1
        self.push(name, key)


def _text_at(text: str, start: int, end: int, in_tag: bool) -> int:
    """Where character data starts in ``text[start:end]`` (after the tag it begins in,
    if ``in_tag``), or -1 if there is none."""
    if in_tag:
        start = text.find(">", start, end) + 1
        if start == 0:
            return -1
    return start if start < end else -1


def _scan(text: str, max_depth: int, max_elements: int) -> tuple[Cut | None, Reach]:
    model = _Model()
    deepest = 0
    pos, in_tag = 0, False  # where the next token is looked for; inside a tag there?
    while True:
        match = _TOKEN.search(text, pos)
        end = match.start() if match is not None else len(text)
        if model.pending:  # text remakes the active formatting elements
            at = _text_at(text, pos, end, in_tag)
            if at >= 0:
                model.remake()
                deepest = max(deepest, len(model.stack))
                cut = _past(model, max_depth, max_elements, at)
                if cut is not None:
                    return cut, Reach(deepest, model.elements)
        if match is None:
            return None, Reach(deepest, model.elements)
        pos, in_tag = match.end(), True
        name = match.group(2)
        if name is None:  # a comment (to its end, or the page's) or a bogus one
            model.elements += 1
            if match.group() == "<!--":
                close = text.find("-->", pos)
                pos, in_tag = (len(text) if close < 0 else close + 3), False
        elif match.group(1):  # an end tag
            name = name.lower()
            stack = model.stack
            if stack and stack[-1][0] == name and name not in _NOT_PLAIN_END:
                model.pop_to(len(stack) - 1)  # well-formed markup: nearly every end tag
            else:
                model.end(name)
        else:
            name = name.lower()
            model.elements += 1
            if name == "plaintext":  # the rest is text
                return None, Reach(max(deepest, len(model.stack) + 1), model.elements)
            key = None
            if name in _FORMATTING:
                attributes = _ATTRIBUTES.match(text, pos)
                key = attributes.group() if attributes else None
            model.start(name, key)
            raw_end = _RAW_END.get(name)
            if raw_end is not None:  # its text is no markup, and remakes nothing
                found = raw_end.search(text, pos)
                pos, in_tag = (len(text) if found is None else found.start()), False
        deepest = max(deepest, len(model.stack))
        cut = _past(model, max_depth, max_elements, match.start())
        if cut is not None:
            return cut, Reach(deepest, model.elements)


def _past(model: _Model, max_depth: int, max_elements: int, at: int) -> Cut | None:
    if len(model.stack) > max_depth:
        return Cut(at, f"elements nested more than {max_depth:,} deep")
    if model.elements > max_elements:
        return Cut(at, f"more than {max_elements:,} elements")
    return None


def find_cut(text: str, max_depth: int, max_elements: int) -> Cut | None:
    """The first tag of ``text`` past a bound, or None when the whole page is within."""
    tags = text.count("<")
    # each tag nests at most two deep (a table cell makes its body and row) and makes at
    # most a tag's worth of formatting elements again: too few tags to pass a bound
    if 3 * tags <= max_depth and tags * tags <= max_elements:
        return None
    if within(text, max_depth, max_elements, tags):
        return None
    return _scan(text, max_depth, max_elements)[0]


def reach(text: str) -> Reach:
    """How deep the model nests the whole of ``text``, and its elements (for tests)."""
    return _scan(text, len(text) + 1, len(text) + 1)[1]


# -- the shortcut: a page shown within the bounds by its skeleton -------------------------
#
# The model reads every tag in Python: a few milliseconds for an ordinary 100 kB page,
# most of a crawl's analysis. An ordinary page nests its elements properly, and nesting
# can be checked by regular expressions, which run in C: :func:`skeleton` empties, round
# after round, innermost first, each element whose start and end tags enclose only text
# and elements emptied before, and the model then reads what is left (the page's
# skeleton: its head, body, forms and tables, a few hundred tags). Why that is enough:
#
# - Only formatting elements make the parser's work grow faster than the page (they
#   are made again). The model makes one again only once it is popped by another
#   element's end tag or an implied end. A formatting element with nothing but text and
#   quiet elements in it (whose tags start and end themselves and nothing else; an <a>
#   ends an open <a>, so none may be in another) is started and ended by its own tags,
#   never popped otherwise. So when every formatting element goes that way
#   (:data:`_FORMATTING_LEFT` finds none in the skeleton), none is ever made again, and
#   each tag makes at most three elements (a table cell its body and row; its tag starts
#   with "<t"): at most ``count("<") + 2 * count("<t")`` (:func:`elements_bound`).
# - Quiet elements go altogether ("<!>"; "<!a>" when a link is in one). Others are
#   emptied, their start and end tags kept (``<li></li>``): a start tag may end open
#   elements (a block's ends an open <p>, an item's an open item), and the skeleton must
#   end them too, or a later end tag would pop in it what the page left open. An
#   element emptied goes into its parent only where its start ends nothing: a block into
#   a block (which, when it started, ended the <p> it could reach) other than <p>, an
#   item into its list. Inside, an emptied element nested its own height at most, one a
#   round: so the page nests at most the skeleton's depth plus ``height``.
# - Comments, scripts, styles and titles (text to the parser), void elements and bogus
#   comments are replaced first, each by a quiet "<!>": the model scans for the same
#   tokens from left to right, so the two agree on where each begins and ends (a page
#   whose tag names run into a "<", or with a character that case-folds to an ASCII
#   letter in an end tag, is left to the model). Tags in upper case are left as they are.
#
# tests/core/content/test_markup_bounds.py checks both claims against the model on
# random nested markup. The regular expressions are possessive (no backtracking) and
# each reads the text once a round; rounds stop at :data:`MAX_HEIGHT`.

#: Rounds of emptying elements before a page is left to the model (ordinary pages need
#: 10 to 30; a page of 100,000 nested <div> elements would need 100,000).
MAX_HEIGHT = 64


def _names(names: str) -> bytes:
    """``names`` as a regular expression's alternatives, a trie (one test a letter)."""

    def alternatives(words: list[bytes]) -> bytes:
        heads: dict[bytes, list[bytes]] = {}
        for word in words:
            heads.setdefault(word[:1], []).append(word[1:])
        ends = heads.pop(b"", None) is not None
        branches = [re.escape(head) + alternatives(rest) for head, rest in sorted(heads.items())]
        if not branches:
            return b""
        if len(branches) == 1 and not ends:
            return branches[0]
        return b"(?:" + b"|".join(branches) + b")" + (b"?" if ends else b"")

    return alternatives(sorted({name.encode() for name in names.split()}))


#: Formatting elements that go with quiet content (not <a> and <nobr>: each ends an
#: open one of its kind, and the elements above it).
_QUIET_FORMATTING = " ".join(sorted(_FORMATTING - {"a", "nobr"}))
#: Elements whose tags only start and end themselves, as the model reads them.
_QUIET_OTHER = "span kbd var samp abbr cite dfn sub sup q mark label bdi bdo time data ins del"
_QUIET_NAMES = f"{_QUIET_FORMATTING} {_QUIET_OTHER}"
#: Blocks whose start ends an open <p> and nothing else, emptied with any content that
#: went (<p> and the headings hold phrasing only: a block would end them).
_BLOCKS = (
    "div section article aside nav header footer main figure figcaption blockquote "
    "address center details summary dialog fieldset hgroup search pre listing"
)
_LISTS = "ul ol menu dir"
_HEADINGS_NAMES = "h1 h2 h3 h4 h5 h6"
#: Text elements replaced whole (<xmp> too ends an open <p>: left in).
_TEXT_ELEMENTS = " ".join(sorted(_RAW_TEXT - {"xmp"}))
_QUIET_VOID = " ".join(sorted(_VOID - {"hr"}))

_AFTER_NAME = rb"(?=[\t\n\f\r />])"
_TEXT = rb"[^<>]*+"
_REST_OF_TAG = _AFTER_NAME + _TEXT + rb">"


def _content(*items: bytes) -> bytes:
    """Text and any number of ``items``."""
    return _TEXT + rb"(?:(?:" + b"|".join(items) + rb")" + _TEXT + rb")*+"


def _emptied(names: str) -> bytes:
    """An element of ``names`` that was emptied (``<li></li>``). Literal alternatives, no
    group: Python 3.11's re fails on a group repeated possessively ("SystemError: The
    span of capturing group is wrong")."""
    return _names(" ".join(f"<{name}></{name}>" for name in names.split()))


_QUIET = _content(rb"<!>")
_PHRASE = _content(rb"<!a?>")
_FLOW_ITEMS = (
    rb"<!a?>",
    rb"<hr" + _REST_OF_TAG,
    _emptied(f"{_BLOCKS} {_LISTS} {_HEADINGS_NAMES} dl p"),
)
#: What a block other than <p> holds once emptied: phrasing, blocks, lists, headings.
_FLOW = _content(*_FLOW_ITEMS)


def _element(names: str, content: bytes) -> re.Pattern[bytes]:
    """An element of ``names`` holding ``content`` (not one emptied already)."""
    return re.compile(
        rb"<(" + _names(names) + rb")(?!></\1>)" + _REST_OF_TAG + content + rb"</\1" + _REST_OF_TAG
    )


_EMPTIED: dict[bytes, bytes] = {}


def _empty(match: re.Match[bytes]) -> bytes:
    """The element matched, emptied. (A function: Python 3.11 expands a template such as
    ``<\\1></\\1>`` in Python for each match, slower than a dictionary.)"""
    name = match[1]
    emptied = _EMPTIED.get(name)
    if emptied is None:
        emptied = _EMPTIED.setdefault(name, b"<" + name + b"></" + name + b">")
    return emptied


_EMPTY = _empty
_PHRASING_RULES = frozenset({0, 1, 2})
_FLOW_RULES = frozenset({0, 1, 2, 3, 5, 6, 7})
#: Each round's rules, in order: (pattern, what an element it matches becomes, the
#: rules whose results it reads: one none of whose inputs changed since it last ran is
#: skipped). Quiet elements go: "<!>", or "<!a>" when a link is in one (none may be in
#: a link). The others are emptied, each into a parent where its start ends nothing it
#: did not start: blocks into blocks but <p> (and the headings), items into their
#: lists, anything into a table cell (it stops every search for an element to end), a
#: table's parts into it (a row straight in a table makes a body in it: one more level).
_ROUND: tuple[
    tuple[re.Pattern[bytes], bytes | Callable[[re.Match[bytes]], bytes], frozenset[int]], ...
] = (
    (_element(_QUIET_NAMES, _QUIET), b"<!>", frozenset({0})),
    (_element("a", _QUIET), b"<!a>", frozenset({0})),
    (_element(_QUIET_NAMES, _QUIET + rb"<!a>" + _PHRASE), b"<!a>", _PHRASING_RULES),
    (_element(f"p {_HEADINGS_NAMES}", _PHRASE), _EMPTY, _PHRASING_RULES),
    (_element("li dt dd", _FLOW), _EMPTY, _FLOW_RULES),
    (_element(_LISTS, _content(*_FLOW_ITEMS, rb"<li></li>")), _EMPTY, _FLOW_RULES | {4}),
    (
        _element("dl", _content(*_FLOW_ITEMS, rb"<dt></dt>", rb"<dd></dd>")),
        _EMPTY,
        _FLOW_RULES | {4},
    ),
    (_element(f"{_BLOCKS} form", _FLOW), _EMPTY, _FLOW_RULES),
    (
        _element("td th caption", _content(*_FLOW_ITEMS, _emptied("li dt dd table"))),
        _EMPTY,
        _FLOW_RULES | {4, 11},
    ),
    (
        _element("tr", _content(rb"<!a?>", _emptied("td th"))),
        _EMPTY,
        _PHRASING_RULES | {8},
    ),
    (
        _element("tbody thead tfoot", _content(rb"<!a?>", rb"<tr></tr>")),
        _EMPTY,
        _PHRASING_RULES | {9},
    ),
    (
        _element("table", _content(*_FLOW_ITEMS, _emptied("tr tbody thead tfoot caption"))),
        b"<table></table>",
        _FLOW_RULES | {8, 9, 10},
    ),
)
#: Rules after which the page nests a level more than they took out (the table's).
_TWO_LEVELS = frozenset({11})


#: What the model does not read as markup, and quiet elements with text alone: "<!>".
_PREPARED = re.compile(
    rb"<(?:("
    + _names(_QUIET_NAMES)
    + rb")"
    + _REST_OF_TAG
    + _TEXT
    + rb"</\1"
    + _REST_OF_TAG
    + rb"|("
    + _names(_TEXT_ELEMENTS)
    + rb")"
    + _AFTER_NAME
    + rb"[\s\S]*?(?:</(?i:\2)"
    + _TEXT
    + rb">?|\Z)"
    + rb"|!--[\s\S]*?(?:-->|\Z)"
    + rb"|[!?]"
    + _TEXT
    + rb">"
    + rb"|"
    + _names(_QUIET_VOID)
    + _REST_OF_TAG
    + rb")"
)
#: A tag name that runs into a "<": the model reads the "<" as part of the name.
_NAME_WITH_LT = re.compile(rb"<[A-Za-z][^\t\n\f\r /><]*+<")
#: Characters that match an ASCII letter case-insensitively, as the model finds a
#: script's end: a page with one in an end tag is left to the model.
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")
_FOLDED_END = re.compile("</[^\t\n\f\r />]{0,7}[\u0130\u0131\u017f\u212a]")
_FORMATTING_LEFT = re.compile(rb"<(?i:" + _names(" ".join(_FORMATTING)) + rb")" + _AFTER_NAME)


@dataclass(frozen=True)
class Skeleton:
    """What the model must still read of a page (see above): ``text``, which nests at
    most ``height`` less deep than the page."""

    text: str
    height: int


def skeleton(text: str) -> Skeleton | None:
    """The page's skeleton, or None when its formatting elements do not all go (or the
    page is one the shortcut does not read: see above)."""
    if any(char in text for char in _FOLDS_TO_ASCII) and _FOLDED_END.search(text):
        return None
    markup = _PREPARED.sub(b"<!>", text.encode("utf-8", "surrogatepass"))
    height = 1
    changed = frozenset(range(len(_ROUND)))  # (the preparation fed them all)
    while changed:
        now: set[int] = set()
        for rule, (pattern, gone, reads) in enumerate(_ROUND):
            if reads.isdisjoint(changed) and reads.isdisjoint(now):
                continue
            markup, taken = pattern.subn(gone, markup)
            if taken:
                height += 2 if rule in _TWO_LEVELS else 1
                now.add(rule)
        if height > MAX_HEIGHT:
            return None
        changed = frozenset(now)
    # A tag whose name runs into a "<" survives every rule (none reads it as a tag), so
    # the skeleton has it if the page does: where it is, the model and the preparation
    # may not agree on where a comment or a script starts.
    if _FORMATTING_LEFT.search(markup) or _NAME_WITH_LT.search(markup):
        return None
    return Skeleton(markup.decode("utf-8", "surrogatepass"), height)


def elements_bound(text: str, tags: int | None = None) -> int:
    """Elements a page whose formatting elements all go makes, at most (see above);
    ``tags``: its count of "<", when known."""
    tags = text.count("<") if tags is None else tags
    return tags + 2 * (text.count("<t") + text.count("<T"))


def within(text: str, max_depth: int, max_elements: int, tags: int | None = None) -> bool:
    """Whether ``text`` is shown within the bounds without the model reading it all
    (False: it may not be; the model must tell). ``tags``: its count of "<", if known."""
    if elements_bound(text, tags) > max_elements:
        return False
    bones = skeleton(text)
    if bones is None or bones.height >= max_depth:
        return False
    return _scan(bones.text, max_depth - bones.height, max_elements)[0] is None
