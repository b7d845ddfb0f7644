"""What an HTML document embeds (core/content/embeds.py): every kind of element and
attribute that loads something, in document order, as written, once each; what loads
nothing left out; bounded by a limit; never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.config import ParseSettings
from recrawl.core.content.css import MAX_STYLESHEET_CHARS
from recrawl.core.content.embeds import html_embeds
from recrawl.core.content.refs import Embeds, EmbedSet, fetchable
from selectolax.lexbor import LexborHTMLParser

from tests.support.realdocs import python_docs


def embeds(
    markup: str,
    limit: int = 1_000,
    *,
    max_css_chars: int = MAX_STYLESHEET_CHARS,
    bounds: ParseSettings | None = None,
) -> Embeds:
    tree = LexborHTMLParser(markup)
    return html_embeds(tree, limit, max_css_chars=max_css_chars, bounds=bounds)


def pairs(markup: str) -> list[tuple[str, str]]:
    return [(ref.url, ref.context) for ref in embeds(markup).refs]


PAGE = """<!doctype html>
<html lang="en"><head>
<meta charset="utf-8"><title>A news article</title>
<base href="https://cdn.example.org/">
<link rel="stylesheet" href="/css/site.css?v=3">
<link rel="alternate stylesheet" title="High contrast" href="/css/contrast.css">
<link rel="shortcut icon" href="/favicon.ico">
<link rel="apple-touch-icon" sizes="180x180" href="/apple-touch-icon.png">
<link rel="mask-icon" href="/safari-pinned-tab.svg" color="#5bbad5">
<link rel="preload" as="font" type="font/woff2" href="/fonts/serif.woff2" crossorigin>
<link rel="preload" as="image" href="/img/hero.jpg" imagesrcset="/img/hero-800.jpg 800w, /img/hero-1600.jpg 1600w">
<link rel="modulepreload" href="/js/vendor.mjs">
<link rel="manifest" href="/site.webmanifest">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="canonical" href="https://example.org/2026/article">
<style>
  @import url("/css/print.css") print;
  .masthead { background: url(/img/masthead.png) no-repeat }
</style>
<script src="/js/app.js" defer></script>
<script>document.write('<img src="/written-by-script.png">')</script>
</head>
<body class="article" style="background-image: url('/img/paper.jpg')">
<header><a href="/"><img src="/img/logo.svg" alt="Example News" width="120"></a></header>
<article>
  <h1>A headline</h1>
  <picture>
    <source type="image/avif" srcset="/img/photo.avif 1x, /img/photo@2x.avif 2x">
    <img src="/img/photo.jpg" srcset="/img/photo.jpg 1x, /img/photo@2x.jpg 2x" alt="">
  </picture>
  <img class="lazyload" src="/img/placeholder.gif" data-src="/img/lazy.jpg"
       data-srcset="/img/lazy-400.jpg 400w, /img/lazy-800.jpg 800w">
  <img data-original="/img/jquery-lazy.jpg"><img data-lazy-src="/img/wp-rocket.jpg">
  <p>Text with an <svg class="icon"><use xlink:href="/icons/sprite.svg#share"></use></svg> icon
  and <svg><use href="#local-symbol"></use><image href="/img/chart.png" /></svg>.</p>
  <video src="/media/clip.mp4" poster="/media/clip-poster.jpg" controls>
    <source src="/media/clip.webm" type="video/webm">
    <track kind="captions" src="/media/clip.en.vtt" srclang="en">
  </video>
  <audio src="/media/podcast.mp3"></audio>
  <object data="/media/legacy.swf" type="application/x-shockwave-flash"></object>
  <embed src="/media/widget.swf">
  <table background="/img/table-bg.gif"><tr><td background="/img/cell-bg.gif">cell</td></tr></table>
  <form><input type="image" src="/img/submit.png" alt="Go"><input type="text" src="/not-loaded.png"></form>
  <iframe src="https://video.example/embed/123" width="560"></iframe>
  <iframe srcdoc="<p>Ad</p><img src='/img/in-srcdoc.png'><style>p{background:url(/img/srcdoc-bg.png)}</style>"></iframe>
  <img src="/img/after-the-frames.png">
  <noscript><img src="/img/noscript-pixel.gif"></noscript>
  <template><img src="/img/in-a-template.png"></template>
</article>
<frameset><frame src="/never.html"></frameset>
</body></html>
"""


def test_a_page_embeds_everything_a_browser_loads_to_show_it_in_order() -> None:
    assert pairs(PAGE) == [
        ("/css/site.css?v=3", "stylesheet"),
        ("/css/contrast.css", "stylesheet"),  # an alternate sheet, for a replay to switch to
        ("/favicon.ico", "icon"),
        ("/apple-touch-icon.png", "icon"),
        ("/safari-pinned-tab.svg", "icon"),
        ("/fonts/serif.woff2", "preload"),
        ("/img/hero.jpg", "preload"),
        ("/img/hero-800.jpg", "preload"),
        ("/img/hero-1600.jpg", "preload"),
        ("/js/vendor.mjs", "modulepreload"),
        ("/site.webmanifest", "manifest"),
        ("/css/print.css", "css-import"),
        ("/img/masthead.png", "style-block"),
        ("/js/app.js", "script"),
        ("/written-by-script.png", "script-guess"),  # a path a script's text names
        ("/img/paper.jpg", "style-attr"),
        ("/img/logo.svg", "img"),
        ("/img/photo.avif", "srcset"),
        ("/img/photo@2x.avif", "srcset"),
        ("/img/photo.jpg", "img"),
        ("/img/photo@2x.jpg", "srcset"),
        ("/img/placeholder.gif", "img"),
        ("/img/lazy.jpg", "img"),
        ("/img/lazy-400.jpg", "srcset"),
        ("/img/lazy-800.jpg", "srcset"),
        ("/img/jquery-lazy.jpg", "img"),
        ("/img/wp-rocket.jpg", "img"),
        ("/icons/sprite.svg#share", "svg-use"),  # as written: the engine drops fragments
        ("/img/chart.png", "svg-image"),
        ("/media/clip.mp4", "video"),
        ("/media/clip-poster.jpg", "poster"),
        ("/media/clip.webm", "source"),
        ("/media/clip.en.vtt", "track"),
        ("/media/podcast.mp3", "audio"),
        ("/media/legacy.swf", "object"),
        ("/media/widget.swf", "embed"),
        ("/img/table-bg.gif", "background"),
        ("/img/cell-bg.gif", "background"),
        ("/img/submit.png", "input"),
        ("https://video.example/embed/123", "iframe"),
        ("/img/in-srcdoc.png", "img"),  # the srcdoc document's, in its place
        ("/img/srcdoc-bg.png", "style-block"),
        ("/img/after-the-frames.png", "img"),
        ("/img/noscript-pixel.gif", "img"),  # as a browser with scripts off loads it
    ]


def test_what_loads_nothing_is_left_out() -> None:
    urls = {url for url, _ in pairs(PAGE)}
    for nothing in (
        "/feed.xml",  # links to other documents, not embeds
        "https://example.org/2026/article",
        "/",
        "/not-loaded.png",  # only an image input loads its src
        "#local-symbol",
        "/img/in-a-template.png",  # inert until a script clones it
        "/never.html",  # a frameset inside a body is no frameset
    ):
        assert nothing not in urls


def test_frames_of_a_frameset() -> None:
    markup = '<frameset cols="20%,*"><frame src="nav.html"><frame src="main.html"></frameset>'
    assert pairs(markup) == [("nav.html", "frame"), ("main.html", "frame")]


def test_the_python_docs() -> None:
    page = (python_docs() / "library" / "stdtypes.html").read_text()
    found = pairs(page)
    assert ("../_static/pydoctheme.css?2022.1", "stylesheet") in found
    assert ("../_static/py.svg", "icon") in found
    assert ("../_static/menu.js", "script") in found
    assert ("../_static/py.svg", "img") not in found  # the icon's context is kept
    assert len(found) == len({url for url, _ in found})


# -- references, as written -------------------------------------------------------------


def test_a_reference_met_again_keeps_its_first_context() -> None:
    markup = (
        '<link rel=preload as=image href="hero.jpg"><img src="hero.jpg">'
        '<img src="hero.jpg" srcset="hero.jpg 2x"><div style="background:url(hero.jpg)"></div>'
    )
    assert pairs(markup) == [("hero.jpg", "preload")]


def test_references_are_as_written_entities_decoded_and_trimmed() -> None:
    markup = (
        '<img src="  /a.png?x=1&amp;y=2\n">'
        '<img src="/caf&eacute;.png"><img src="../up/./x.png"><img src="HTTP://Example.ORG/A">'
    )
    assert [url for url, _ in pairs(markup)] == [
        "/a.png?x=1&y=2",
        "/café.png",
        "../up/./x.png",
        "HTTP://Example.ORG/A",
    ]


@pytest.mark.parametrize(
    "src",
    [
        "data:image/gif;base64,R0lGODlhAQABAAAAACw=",
        "DATA:image/png,x",
        "javascript:alert(1)",
        " JavaScript:void(0)",
        "java\tscript:alert(1)",
        "vbscript:msgbox",
        "about:blank",
        "blob:https://example.org/0d5e",
        "mailto:someone@example.org",
        "#fragment",
        "  #fragment",
        "",
        "   \t\n",
    ],
)
def test_references_that_load_nothing_a_crawl_fetches(src: str) -> None:
    markup = f'<img src="{src}"><script src="{src}"></script><iframe src="{src}"></iframe>'
    assert pairs(markup + '<img src="kept.png">') == [("kept.png", "img")]


def test_valueless_attributes() -> None:
    assert pairs("<img src><img srcset><link rel=stylesheet href><script src><video poster>") == []


# -- links ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "context"),
    [
        ('rel="stylesheet"', "stylesheet"),
        ('rel="STYLESHEET"', "stylesheet"),
        ('rel="alternate stylesheet"', "stylesheet"),
        ('rel="icon"', "icon"),
        ('rel="shortcut icon"', "icon"),
        ('rel="apple-touch-icon-precomposed"', "icon"),
        ('rel="manifest"', "manifest"),
        ('rel="preload" as="style"', "preload"),
        ('rel="preload" as="script"', "preload"),
        ('rel="preload" as="font"', "preload"),
        ('rel="preload" as="IMAGE"', "preload"),
        ('rel="preload" as="fetch"', "preload"),
        ('rel="preload" as="track"', "preload"),
        ('rel="preload" as="document"', None),  # a navigation's, not this page's
        ('rel="preload" as="iframe"', None),
        ('rel="preload"', None),  # no as: the standard does not fetch it
        ('rel="preload" as="nonsense"', None),
        ('rel="modulepreload"', "modulepreload"),
        ('rel="modulepreload" as="worker"', "modulepreload"),
        ('rel="modulepreload" as="document"', None),
        ('rel="prefetch"', None),  # for the next page
        ('rel="dns-prefetch"', None),
        ('rel="next"', None),
        ('rel="alternate"', None),
        ("", None),
    ],
)
def test_link_relations(link: str, context: str | None) -> None:
    expected = [] if context is None else [("x", context)]
    assert pairs(f'<link {link} href="x">') == expected


# -- SVG --------------------------------------------------------------------------------


def test_svg_hrefs_namespaced_or_not() -> None:
    markup = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
      <image xlink:href="old.png" width="10"/><image href="new.png"/>
      <IMAGE XLINK:HREF="upper.png"/><image href="both.png" xlink:href="both-old.png"/>
      <use href="#only-local"/><use xlink:href="#also-local"/><use href="sprite.svg#i"/>
      <script href="svg-script.js"></script>
    </svg>"""
    assert pairs(markup) == [
        ("old.png", "svg-image"),  # Lexbor names the attribute "xlink:href"
        ("new.png", "svg-image"),
        ("upper.png", "svg-image"),
        ("both.png", "svg-image"),
        ("both-old.png", "svg-image"),
        ("sprite.svg#i", "svg-use"),
        ("svg-script.js", "script"),
    ]


# -- CSS in the page --------------------------------------------------------------------


def test_style_blocks_and_attributes() -> None:
    markup = """<style>@import "a.css"; @font-face { src: url(f.woff2) }
      .x { background: image-set("i.png" 1x) }</style>
      <p style="color: red">no URL</p><p style='background: url("attr.png")'>x</p>
      <svg><style>rect { fill: url(gradient.svg#g) }</style></svg>"""
    assert pairs(markup) == [
        ("a.css", "css-import"),  # still a stylesheet: the engine reads it as one
        ("f.woff2", "style-block"),
        ("i.png", "style-block"),
        ("attr.png", "style-attr"),
        ("gradient.svg#g", "style-block"),
    ]


def test_the_css_of_a_page_is_read_up_to_its_bound() -> None:
    styles = "".join(f'<p style="background: url(bg{i}.png)">' for i in range(100))
    found = embeds(styles + "<style>a { background: url(late.png) }</style>", max_css_chars=200)
    urls = [ref.url for ref in found.refs]
    assert urls == [f"bg{i}.png" for i in range(len(urls))]
    assert 3 <= len(urls) < 10
    assert any("not read" in note and "200 characters of CSS" in note for note in found.notes)
    # a style attribute without url( costs nothing of the bound
    plain = '<p style="color: red; margin: 0 auto">' * 1_000
    assert [ref.url for ref in embeds(plain + styles, max_css_chars=200).refs][:3] == [
        "bg0.png",
        "bg1.png",
        "bg2.png",
    ]


# -- iframe srcdoc ----------------------------------------------------------------------


def test_srcdoc_documents_are_read_in_place_down_to_a_depth() -> None:
    inner = "<img src=level-{n}.png>"
    markup = "<img src=level-3.png>"
    for level in range(2, -1, -1):  # nested once more for each level, quoted as HTML
        markup = inner.format(n=level) + f'<iframe srcdoc="{escape(markup)}"></iframe>'
    # levels 0 (the page), 1, 2, 3 (srcdoc documents)
    found = embeds(markup)
    assert [ref.url for ref in found.refs] == [
        f"level-{n}.png" for n in range(ParseSettings.max_srcdoc_depth + 1)
    ]
    deeper = "<img src=level-4.png>"
    for level in range(3, -1, -1):
        deeper = inner.format(n=level) + f'<iframe srcdoc="{escape(deeper)}"></iframe>'
    found = embeds(deeper)
    assert [ref.url for ref in found.refs] == [
        f"level-{n}.png" for n in range(ParseSettings.max_srcdoc_depth + 1)
    ]
    assert found.notes == [
        f"iframe srcdoc documents more than {ParseSettings.max_srcdoc_depth} deep not read"
    ]


def escape(markup: str) -> str:
    return markup.replace("&", "&amp;").replace('"', "&quot;")


def test_a_srcdoc_past_the_parse_bounds_is_cut() -> None:
    srcdoc = "<img src=first.png>" + "<div>" * 100 + "<img src=too-deep.png>"
    found = embeds(
        f'<iframe srcdoc="{srcdoc}"></iframe>',
        bounds=ParseSettings(max_depth=50),
    )
    assert [ref.url for ref in found.refs] == ["first.png"]
    assert "srcdoc document read up to character" in found.notes[0]


# -- bounds -----------------------------------------------------------------------------


def test_a_page_of_100000_images_keeps_the_limit_and_counts_the_rest() -> None:
    markup = "<body>" + "".join(f'<img src="/i/{i}.png">' for i in range(100_000))
    found = embeds(markup, limit=1_000)
    assert [ref.url for ref in found.refs] == [f"/i/{i}.png" for i in range(1_000)]
    assert found.dropped == 99_000
    assert found.notes == ["99,000 more embedded references past the limit of 1,000"]


def test_a_limit_of_nothing() -> None:
    found = embeds('<img src="a.png"><img src="b.png">', limit=0)
    assert found.refs == []
    assert found.dropped == 2


def test_notes_are_few() -> None:
    frames = "".join(
        f'<iframe srcdoc="<p>{i}{"<div>" * 60}<img src=x.png>"></iframe>' for i in range(100)
    )
    found = embeds(frames, bounds=ParseSettings(max_depth=10))
    assert len(found.notes) <= 21  # MAX_NOTES and the dropped count's


# -- totality ---------------------------------------------------------------------------

_MARKUP = st.lists(
    st.sampled_from(
        [
            "<img src=",
            "<img srcset='",
            "<link rel=stylesheet href=",
            "<link rel=preload as=image imagesrcset='",
            "<iframe srcdoc='",
            "<style>",
            "</style>",
            "<svg><use xlink:href=",
            ' style="background:url(',
            "<p style='",
            "a.png",
            " 2x, ",
            "'",
            '"',
            ">",
            "&amp;",
            "&quot;",
            "javascript:",
            "data:",
            "#",
            " ",
            "<",
        ]
    ),
    max_size=40,
).map("".join) | st.text(max_size=200)


@given(_MARKUP, st.integers(-1, 6))
@settings(max_examples=200, deadline=None)
def test_any_markup_reads_without_raising_within_the_limit(markup: str, limit: int) -> None:
    found = embeds(markup, limit=limit)
    assert len(found.refs) <= max(limit, 0)
    urls = [ref.url for ref in found.refs]
    assert len(urls) == len(set(urls))
    assert all(fetchable(url) == url for url in urls)


def test_an_embed_set_counts_each_dropped_reference_once() -> None:
    refs = EmbedSet(1)
    for url in ("a", "b", "b", " b ", "c"):
        refs.add(url, "img")
    assert [ref.url for ref in refs.refs] == ["a"]
    assert refs.dropped == 2
