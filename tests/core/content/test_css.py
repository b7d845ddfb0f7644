"""What stylesheets and style attributes load (core/content/css.py): imports, url()s,
fonts and image sets at any depth, nothing from comments, strings or at-rule conditions;
bounded by a limit of references and of characters; never raising on hostile CSS."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.content.css import (
    MAX_STYLESHEET_CHARS,
    declaration_embeds,
    gather_declarations,
    gather_stylesheet,
    stylesheet_embeds,
)
from recrawl.core.content.refs import EmbedRef, EmbedSet

from tests.support.realdocs import python_docs

#: What a reference is trimmed of (a URL parser's C0 controls and space).
TRIMMED = "".join(map(chr, range(0x21)))


def pairs(refs: list[EmbedRef]) -> list[tuple[str, str]]:
    return [(ref.url, ref.context) for ref in refs]


# -- what is read -----------------------------------------------------------------------

SHEET = r"""
@charset "utf-8";
@import "reset.css";
@import url(print.css) print;
@import url("grid.css") supports(display: grid) screen and (min-width: 40em);
@import 'theme.css' layer(theme);
@namespace svg url(http://www.w3.org/2000/svg);

/* url(commented-out.png) @import "commented.css"; */
@font-face {
  font-family: "Body";
  src: local("Body Regular"), local(BodyRegular),
       url(/fonts/body.woff2) format("woff2"),
       url('/fonts/body.woff') format('woff');
}
body { background: #fff url("img/paper.png") repeat; color: #222 }
.hero {
  background-image: image-set("hero.avif" type("image/avif"), url(hero.jpg) 1x, "hero@2x.jpg" 2x);
  background-image: -webkit-image-set(url(hero-webkit.jpg) 1x);
}
a::after { content: "url(not-a-url.png)"; }
@media (min-width: 600px) {
  @supports (background: url(condition.png)) {
    .wide { background: URL( wide.png ) }
  }
}
@layer components { @container card (min-width: 1px) { .card { border-image: url(border.svg) 30 } } }
.menu { & > li { list-style-image: url(bullet.gif) } &:hover { cursor: url(hand.cur), pointer } }
@-moz-document url-prefix(http://example.org/) { .moz { background: url(moz.png) } }
.escaped { background: u\72l(escaped.png); mask: url(a\(b\).svg) }
.modern { mask-image: src("mask.svg"); --icon: url(icon-var.svg) }
.inline { background: url(data:image/png;base64,iVBORw0KGgo=) }
"""


def test_a_stylesheet_loads_its_imports_urls_fonts_and_image_sets_in_order() -> None:
    embeds = stylesheet_embeds(SHEET, 100)
    assert pairs(embeds.refs) == [
        ("reset.css", "css-import"),
        ("print.css", "css-import"),
        ("grid.css", "css-import"),
        ("theme.css", "css-import"),
        ("/fonts/body.woff2", "font-face"),
        ("/fonts/body.woff", "font-face"),
        ("img/paper.png", "css-url"),
        ("hero.avif", "image-set"),
        ("hero.jpg", "image-set"),
        ("hero@2x.jpg", "image-set"),
        ("hero-webkit.jpg", "image-set"),
        ("wide.png", "css-url"),
        ("border.svg", "css-url"),
        ("bullet.gif", "css-url"),
        ("hand.cur", "css-url"),
        ("moz.png", "css-url"),  # the rules inside @-moz-document apply, its condition not
        ("escaped.png", "css-url"),
        ("a(b).svg", "css-url"),
        ("mask.svg", "css-url"),
        ("icon-var.svg", "css-url"),
    ]
    assert embeds.dropped == 0
    assert embeds.notes == []


def test_what_loads_nothing_is_not_read() -> None:
    urls = {ref.url for ref in stylesheet_embeds(SHEET, 100).refs}
    # comments, strings, local() fonts, @namespace, conditions, an image set's type(), data:
    for nothing in (
        "commented-out.png",
        "commented.css",
        "Body Regular",
        "BodyRegular",
        "not-a-url.png",
        "http://www.w3.org/2000/svg",
        "condition.png",
        "http://example.org/",
        "image/avif",
    ):
        assert nothing not in urls
    assert not any(url.startswith("data:") for url in urls)


def test_the_python_docs_stylesheets() -> None:
    def refs(name: str) -> list[tuple[str, str]]:
        return pairs(stylesheet_embeds((python_docs() / "_static" / name).read_text(), 100).refs)

    assert refs("pydoctheme.css") == [
        ("default.css", "css-import"),
        ("../_static/caret-down.svg", "css-url"),  # in a nested @media
    ]
    assert refs("classic.css") == [("basic.css", "css-import")]
    assert refs("basic.css") == [("file.png", "css-url")]


def test_a_stylesheet_importing_itself_gives_the_reference_once() -> None:
    css = '@import "self.css";\n@import url(self.css);\n.a { background: url(self.css) }'
    assert pairs(stylesheet_embeds(css, 10).refs) == [("self.css", "css-import")]


def test_references_skipped_as_a_crawl_cannot_fetch_them() -> None:
    css = (
        "a { b: url(data:image/gif;base64,R0lGOD); c: url('javascript:alert(1)');"
        " d: url(#filter); e: url(' about:blank '); f: url(BLOB:x); g: url(  kept.png  ) }"
    )
    assert pairs(stylesheet_embeds(css, 10).refs) == [("kept.png", "css-url")]


@pytest.mark.parametrize(
    ("css", "urls"),
    [
        ("a{background:url(eof.png", ["eof.png"]),  # the sheet's end closes a URL, as in a browser
        ("a{background:url()}", []),
        ("a{background:url(   )}", []),
        ('a{background:url("")}', []),
        ("a{b:url(a b)} c{d:url(after-bad.png)}", ["after-bad.png"]),  # a bad URL token
        ('a{b:url(a"b)} c{d:url(after-quote.png)}', ["after-quote.png"]),
        ("a{b:url((x.png)} c{d:url(after-paren.png)}", ["after-paren.png"]),
        ("a{b:url(a\\)b.png)}", ["a)b.png"]),  # an escaped parenthesis is the URL's
        ("a{b:url(a\\\nb)} c{d:url(after-escape.png)}", ["after-escape.png"]),  # not an escape
        ("a{b:url(x.png))}", ["x.png"]),
        (".a{ .b{ background:url(open.png)", ["open.png"]),  # blocks left open
        ("}}}} a{b:url(stray.png)} ))) ]]]", ["stray.png"]),
        ('a{b:url("unterminated)}\nc{d:url(lost.png)}', []),  # a browser loses it too
        ("@import", []),
        ("@import ;", []),
        ("@import url(", []),
        ('@import "', []),
        ('a{b: url( "quoted.png" )}', ["quoted.png"]),
        ("a{b:url(end\\", ["end\ufffd"]),  # an escaped end of the sheet, as a browser reads it
    ],
)
def test_malformed_urls(css: str, urls: list[str]) -> None:
    assert [ref.url for ref in stylesheet_embeds(css, 10).refs] == urls


def test_deeply_nested_blocks_and_functions() -> None:
    depth = 20_000  # a recursive walk would fail past 1,000
    blocks = "a{" * depth + "b{background:url(deep.png)}" + "}" * depth
    functions = "a{b:" + "f(" * depth + "url(deeper.png)" + ")" * depth + "}"
    open_ended = "@media x{" * depth + "c{d:url(never-closed.png)"
    assert [r.url for r in stylesheet_embeds(blocks, 10).refs] == ["deep.png"]
    assert [r.url for r in stylesheet_embeds(functions, 10).refs] == ["deeper.png"]
    assert [r.url for r in stylesheet_embeds(open_ended, 10).refs] == ["never-closed.png"]


# -- bounds -----------------------------------------------------------------------------


def test_ten_thousand_imports_keep_the_limit_and_count_the_rest() -> None:
    css = "".join(f'@import "sheet-{i}.css";\n' for i in range(10_000))
    embeds = stylesheet_embeds(css, 100)
    assert [ref.url for ref in embeds.refs] == [f"sheet-{i}.css" for i in range(100)]
    assert embeds.dropped == 9_900
    assert embeds.notes == ["9,900 more embedded references past the limit of 100"]


def test_a_reference_repeated_is_counted_once_past_the_limit() -> None:
    css = "a{b:url(1.png)} c{d:url(2.png)} e{f:url(2.png)} g{h:url(3.png)} i{j:url(3.png)}"
    embeds = stylesheet_embeds(css, 1)
    assert pairs(embeds.refs) == [("1.png", "css-url")]
    assert embeds.dropped == 2


def test_a_50_mb_stylesheet_is_read_up_to_its_bound() -> None:
    bound = 300_000
    head = ".first { background: url(first.png) }\n"
    filler = ".filler { color: red; background: url(same.png) }\n"
    # the bound falls inside this rule's URL: no cut URL ("straddl...") may come out
    straddling = ".s { background: url(straddling-the-bound.png) }\n"
    before = head + filler * ((bound - len(head) - 30) // len(filler))
    before += " " * (bound - 30 - len(before))
    tail = ".last { background: url(last.png) }\n"
    css = before + straddling + filler * (50_000_000 // len(filler)) + tail
    assert len(css) > 50_000_000
    embeds = stylesheet_embeds(css, 100, max_chars=bound)
    assert [ref.url for ref in embeds.refs] == ["first.png", "same.png"]
    [note] = embeds.notes
    assert note == (
        f"stylesheet of {len(css):,} characters read up to character "
        f"{css.index('url(straddling'):,} (at most {bound:,}): references past it not extracted"
    )


def test_a_bound_inside_one_long_rule_reads_the_rule_up_to_it() -> None:
    # a whole sheet inside one @media: the rule is longer than a window, and the bound
    rules = "".join(f".r{i} {{ background: url(r{i}.png) }}\n" for i in range(40_000))
    css = f"@media screen {{\n{rules}}}"
    embeds = stylesheet_embeds(css, 100_000, max_chars=300_000)
    # every URL whole before the bound, none after
    assert [ref.url for ref in embeds.refs] == re.findall(r"url\((r\d+\.png)\)", css[:300_000])
    assert len(embeds.refs) > 7_000


def test_the_default_bound() -> None:
    # blanks past the first rule: a sheet the bound cuts, quick to read
    css = "a{b:url(in.png)}" + " " * MAX_STYLESHEET_CHARS + "c{d:url(past.png)}"
    embeds = stylesheet_embeds(css, 10)
    assert [ref.url for ref in embeds.refs] == ["in.png"]
    assert f"at most {MAX_STYLESHEET_CHARS:,}" in embeds.notes[0]


def test_a_window_at_a_time_reads_what_one_window_reads() -> None:
    static = python_docs() / "_static"
    css = "".join(path.read_text() for path in sorted(static.glob("*.css"))) + SHEET
    whole = EmbedSet(1_000)
    gather_stylesheet(css, whole, max_chars=len(css), window=len(css))
    for window in (1, 64, 1000):
        windowed = EmbedSet(1_000)
        gather_stylesheet(css, windowed, max_chars=len(css), window=window)
        assert windowed.refs == whole.refs
    assert len(whole.refs) > 20


_PIECES = st.sampled_from(
    [
        "a{",
        "}",
        ";",
        "b:url(x.png)",
        "url(",
        ")",
        '"',
        "'",
        "/*",
        "*/",
        "\\",
        "\n",
        "\r\n",
        " ",
        "@import ",
        "@font-face",
        "@media x",
        "image-set(",
        '"s.png"',
        "url('q.png')",
        "src(",
        ",",
        "u\\72l(e.png)",
        "(",
    ]
)


@given(st.lists(_PIECES, max_size=60), st.integers(1, 40))
@settings(max_examples=300, deadline=None)
def test_windows_never_change_what_is_read(pieces: list[str], window: int) -> None:
    css = "".join(pieces)
    whole, windowed = EmbedSet(1_000), EmbedSet(1_000)
    gather_stylesheet(css, whole, max_chars=len(css), window=len(css) + 1)
    gather_stylesheet(css, windowed, max_chars=len(css), window=window)
    assert windowed.refs == whole.refs


@given(st.lists(_PIECES, max_size=60), st.integers(0, 2_000))
@settings(max_examples=200, deadline=None)
def test_a_bound_never_makes_up_a_reference(pieces: list[str], bound: int) -> None:
    css = "".join(pieces)
    cut = stylesheet_embeds(css, 1_000, max_chars=bound)
    whole = {ref.url for ref in stylesheet_embeds(css, 1_000).refs}
    assert {ref.url for ref in cut.refs} <= whole  # nothing a cut made up
    assert bool(cut.notes) == (len(css) > bound)


# -- style attributes -------------------------------------------------------------------


def test_declarations_of_a_style_attribute() -> None:
    style = (
        "background: url(bg.png) no-repeat; color: red;"
        " background-image: image-set('a.png' 1x, 'b.png' 2x) !important;"
        " not a declaration url(dropped.png); --custom: url(custom.png);"
        " .nested { background: url(nested-rule.png) }; cursor: url(last.cur"
    )
    assert pairs(declaration_embeds(style, 10)) == [
        ("bg.png", "css-url"),
        ("a.png", "image-set"),
        ("b.png", "image-set"),
        ("custom.png", "css-url"),
        ("last.cur", "css-url"),
    ]
    assert declaration_embeds("display: none", 10) == []
    assert len(declaration_embeds("a:url(1) url(2) url(3)", 2)) == 2


def test_a_long_style_attribute_is_read_up_to_its_bound() -> None:
    style = "a: url(one.png); b: url(two.png); c: url(three.png); d: url(past.png)"
    # the bound cuts three.png short: "url(thr" is not read
    bound = style.index("three") + 3
    assert [ref.url for ref in declaration_embeds(style, 10, max_chars=bound)] == [
        "one.png",
        "two.png",
    ]
    refs = EmbedSet(10)
    gather_declarations(style, refs, max_chars=bound)
    assert refs.notes == [
        f"style attribute of {len(style):,} characters read up to character "
        f"{style.index('url(three'):,} (at most {bound:,}): references past it not extracted"
    ]


# -- totality ---------------------------------------------------------------------------

_HOSTILE = st.lists(
    st.sampled_from([*"url(){}[]\"';:@\\/*,! \n\r\f\t\0xé-", "image-set(", "@import", "url("]),
    max_size=100,
).map("".join) | st.text(max_size=200)


@given(_HOSTILE, st.integers(-2, 5))
@settings(max_examples=200, deadline=None)
def test_any_text_reads_without_raising_within_the_limit(text: str, limit: int) -> None:
    embeds = stylesheet_embeds(text, limit)
    assert len(embeds.refs) <= max(limit, 0)
    assert len(declaration_embeds(text, limit)) <= max(limit, 0)
    urls = [ref.url for ref in embeds.refs]
    assert len(urls) == len(set(urls))
    assert all(url and url == url.strip(TRIMMED) for url in urls)
