"""What an HTTP Link header loads with the page (core/content/link_header.py, RFC 8288):
preloads, module preloads, stylesheets, icons; commas and semicolons inside <...> are
the URL's; a malformed value gives what can be read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.content.link_header import link_header_embeds


def urls(value: str) -> list[str]:
    refs = link_header_embeds(value)
    assert {ref.context for ref in refs} <= {"link-header"}
    return [ref.url for ref in refs]


def test_a_cdns_link_header() -> None:
    value = (
        '</assets/app.css>; rel=preload; as=style, </assets/app.js>; rel="modulepreload",'
        " <https://fonts.example/f.woff2>; rel=preload; as=font; crossorigin,"
        ' </theme.css>; rel="stylesheet"; media="screen, print",'
        ' </favicon.ico>; rel="shortcut icon",'
        " </next-page>; rel=prefetch, </about>; rel=preload; as=document,"
        ' <https://example.org/>; rel="canonical", </x>; rel=preload'
    )
    assert urls(value) == [
        "/assets/app.css",
        "/assets/app.js",
        "https://fonts.example/f.woff2",
        "/theme.css",
        "/favicon.ico",
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<a,b;c.css>; rel=stylesheet", ["a,b;c.css"]),  # the URL is all between < and >
        ('<a.css>; rel="preload stylesheet"', ["a.css"]),
        ("<a.css>; REL=Preload; AS=Style", ["a.css"]),
        ('<a.css>; rel="pre\\load"; as=style', ["a.css"]),  # a quoted string's escapes
        ("<a.css>; rel=stylesheet; rel=nothing", ["a.css"]),  # the first rel counts
        ("<a.css>; rel=nothing; rel=stylesheet", []),
        ('<a.css>; title="x, y; z"; rel=stylesheet, <b.css>; rel=stylesheet', ["a.css", "b.css"]),
        ("<a.css>; rel=stylesheet <b.css>; rel=stylesheet", ["a.css", "b.css"]),  # a lost comma
        ("<a.css>; junk junk; rel=stylesheet", ["a.css"]),
        ("junk <a.css>; rel=stylesheet", ["a.css"]),
        ("<unterminated.css; rel=stylesheet", []),
        ("<a.css>; rel=stylesheet, <unterminated; rel=stylesheet", ["a.css"]),
        ('<a.css>; rel="stylesheet', ["a.css"]),  # an unterminated quoted string
        ("<a.css>; rel=stylesheet, <a.css>; rel=preload; as=style", ["a.css"]),
        ("<data:text/css,x>; rel=stylesheet, <#f>; rel=stylesheet, <>; rel=stylesheet", []),
        ("< spaced.css >; rel=stylesheet", ["spaced.css"]),
        ("<m.js>; rel=modulepreload; as=document", []),
        ("", []),
        (";;;,,,<<<>>>", []),
    ],
)
def test_link_header(value: str, expected: list[str]) -> None:
    assert urls(value) == expected


def test_the_limit() -> None:
    value = ", ".join(f"</s{i}.css>; rel=stylesheet" for i in range(500))
    assert urls(value) == [f"/s{i}.css" for i in range(100)]
    assert len(link_header_embeds(value, limit=3)) == 3


@given(
    st.lists(
        st.sampled_from(["<", ">", ";", ",", "=", '"', "\\", " ", "rel", "preload", "as", "style"])
        | st.sampled_from(["stylesheet", "a.css", "\t"]),
        max_size=80,
    ).map("".join)
    | st.text(max_size=200),
    st.integers(-1, 5),
)
@settings(max_examples=300, deadline=None)
def test_any_value_reads_without_raising_within_the_limit(value: str, limit: int) -> None:
    refs = link_header_embeds(value, limit=limit)
    assert len(refs) <= max(limit, 0)
    assert all(ref.url in value for ref in refs)
