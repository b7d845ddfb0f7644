"""srcset parsing (core/content/srcset.py) by the HTML standard's algorithm: commas in
URLs, descriptors, candidates a browser drops; garbage never raises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.content.srcset import parse_srcset


@pytest.mark.parametrize(
    ("value", "urls"),
    [
        ("a.jpg 1x, b.jpg 2x", ["a.jpg", "b.jpg"]),
        ("a,b.jpg 1x", ["a,b.jpg"]),  # a URL runs to whitespace, commas and all
        ("a.jpg,b.jpg", ["a.jpg,b.jpg"]),
        ("a.jpg 1x,b.jpg 2x", ["a.jpg", "b.jpg"]),  # a comma after descriptors ends one
        ("a.jpg, b.jpg", ["a.jpg", "b.jpg"]),  # ...and one right after the URL
        (
            "small.jpg 480w, medium.jpg 800w, large.jpg 1200w",
            ["small.jpg", "medium.jpg", "large.jpg"],
        ),
        ("one.jpg", ["one.jpg"]),
        ("  \n one.jpg \t ", ["one.jpg"]),
        (" , ,a.jpg,, b.jpg", ["a.jpg", "b.jpg"]),
        (
            "img.php?w=100,h=50 1x, img.php?w=200,h=100 2x",
            ["img.php?w=100,h=50", "img.php?w=200,h=100"],
        ),
        ("a.jpg 1.5x, b.jpg .5x, c.jpg 1e1x", ["a.jpg", "b.jpg", "c.jpg"]),
        ("w.jpg 100w 50h", ["w.jpg"]),
        # what a browser drops: two densities, a width and a density, a width of 0, a
        # height alone, a negative density, an unknown descriptor, a future one in ()
        ("bad.jpg 1x 2x, ok.jpg", ["ok.jpg"]),
        ("bad.jpg 100w 2x, ok.jpg 2x", ["ok.jpg"]),
        ("bad.jpg 0w, ok.jpg 10w", ["ok.jpg"]),
        ("bad.jpg 50h, ok.jpg", ["ok.jpg"]),
        ("bad.jpg -1x, ok.jpg", ["ok.jpg"]),
        ("bad.jpg 2y, ok.jpg", ["ok.jpg"]),
        ("bad.jpg (future, thing) 2x, ok.jpg", ["ok.jpg"]),
        ("bad.jpg 1x (never closed, ok.jpg 2x", []),  # the parentheses run to the end
        ("", []),
        (",,,", []),
        ("   ", []),
        (f"huge.jpg {'9' * 5000}w", ["huge.jpg"]),  # past int()'s 4,300 digits
    ],
)
def test_srcset(value: str, urls: list[str]) -> None:
    assert parse_srcset(value) == urls


@given(
    st.text(alphabet=st.sampled_from(list("ab.jpg ,()\t\n1x2w0h-e")), max_size=120)
    | st.text(max_size=120)
)
@settings(max_examples=300, deadline=None)
def test_any_value_parses_to_urls_written_in_it(value: str) -> None:
    urls = parse_srcset(value)
    for url in urls:
        assert url
        assert url in value
        assert not any(space in url for space in "\t\n\f\r ")
        assert not url.startswith(",") and not url.endswith(",")
