"""Guesses from a script's text (:mod:`recrawl.core.content.scripts`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from recrawl.core.config import ParseSettings
from recrawl.core.content.refs import EmbedSet
from recrawl.core.content.scripts import script_guesses

from tests.support.realdocs import python_docs


def guesses(text: str) -> list[str]:
    refs = EmbedSet(1_000)
    script_guesses(text, refs)
    assert {ref.context for ref in refs.refs} <= {"script-guess"}
    return [ref.url for ref in refs.refs]


def test_quoted_paths_and_a_template_literals_tail_are_guesses():
    script = (
        '$.getJSON("_static/glossary.json", show);\n'
        "el.src = `${el.src.substr(0, el.src.length - 9)}plus.png`;\n"
        "icon = 'img/logo.png?v=2'; cdn = \"//cdn.example/lib.js\";\n"
    )
    assert guesses(script) == [
        "_static/glossary.json",
        "plus.png",
        "img/logo.png?v=2",
        "//cdn.example/lib.js",
    ]


def test_what_is_no_path_is_no_guess():
    script = (
        'alert("Please load jquery.js first"); type = "text/css"; re = /a.png/;\n'
        "x = 'a.b'; w = 'x.docx'; c = '// see a.png';\n"
    )
    assert guesses(script) == []


def test_a_script_names_at_most_its_share():
    script = "".join(f'load("f{i}.png");' for i in range(10 * ParseSettings.max_script_guesses))
    assert len(guesses(script)) == ParseSettings.max_script_guesses


def test_the_python_docs_scripts_guess_what_they_load_and_little_else():
    static = python_docs() / "_static"
    found = {name: guesses((static / name).read_text()) for name in ("doctools.js", "jquery.js")}
    assert found == {"doctools.js": ["minus.png", "plus.png"], "jquery.js": []}


@given(st.text(max_size=2_000))
def test_any_text_is_read_without_error_and_within_the_bound(text: str):
    assert len(guesses(text)) <= ParseSettings.max_script_guesses
