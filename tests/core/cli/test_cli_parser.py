"""The command-line parser: argument types' one-line errors, and commands built on demand."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest
from recrawl.core.cli.parser import LISTED, build_parser, command_word

from recrawl.main import main
from tests.support.interrupted import recrawl


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("crawl", "p", "--rounds", "zero"), "argument --rounds: not a whole number: 'zero'"),
        (("crawl", "p", "--rounds", "0"), "argument --rounds: must be at least 1: '0'"),
        (("crawl", "p", "--delay", "soon"), "argument --delay: not a number of seconds: 'soon'"),
        (("crawl", "p", "--delay", "-1"), "argument --delay: must not be negative: '-1'"),
        (("crawl", "p", "--delay", "inf"), "argument --delay: not a number of seconds: 'inf'"),
        (("crawl", "p", "--timeout", "0"), "argument --timeout: must be more than 0: '0'"),
        (("crawl", "p", "--timeout", "0s"), "argument --timeout: must be more than 0: '0s'"),
        (("show", "p", "u", "--max-bytes", "lots"), "--max-bytes: not a size like 50M"),
        (("show", "p", "u", "--max-bytes", "0"), "--max-bytes: must be at least 1 byte: '0'"),
        (("compact", "p", "--below", "half"), "--below: not a fraction like 0.5 or 50%: 'half'"),
        (("compact", "p", "--below", "150%"), "must be between 0 and 1 (or 0% and 100%): '150%'"),
        (("simulate", "--until", "3q"), "argument --until: not a duration"),
    ],
)
def test_a_bad_value_gets_one_line_naming_the_option(capsys, args, message):
    with pytest.raises(SystemExit) as exit_:
        main(list(args))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert message in err and err.startswith(f"recrawl {args[0]}: error: ")


@pytest.mark.parametrize(
    ("args", "value"),
    [
        (("crawl", "p", "--max-pages", "7"), ("max_pages", 7)),
        (("crawl", "p", "--timeout", "2.5"), ("timeout", 2.5)),
        (("crawl", "p", "--timeout", "0.5s"), ("timeout", 0.5)),
        (("crawl", "p", "--delay", "2m"), ("delay", 120.0)),
        (("crawl", "p", "--delay", "0"), ("delay", 0.0)),
        (("show", "p", "u", "--max-bytes", "50M"), ("max_bytes", 50 << 20)),
        (("show", "p", "u", "--max-bytes", "1GiB"), ("max_bytes", 1 << 30)),
        (("show", "p", "u", "--max-bytes", "4096"), ("max_bytes", 4096)),
        (("compact", "p", "--below", "50%"), ("below", 0.5)),
        (("compact", "p", "--below", "0.25"), ("below", 0.25)),
        (("simulate", "--until", "12h"), ("until", 43200.0)),
    ],
)
def test_a_good_value_is_converted(args, value):
    parsed = build_parser(only=args[0]).parse_args(list(args))
    assert getattr(parsed, value[0]) == value[1]


@pytest.mark.parametrize("name", list(LISTED))
def test_a_command_built_alone_helps_as_in_the_whole_parser(capsys, name):
    def help_of(only: str | None, *args: str) -> str:
        with pytest.raises(SystemExit):
            build_parser(only=only).parse_args(list(args))
        return capsys.readouterr().out

    assert help_of(name, name, "--help") == help_of(None, name, "--help")
    assert name in help_of(name, "--help")  # every command listed, whichever is given
    assert help_of(name, "--help") == help_of(None, "--help")


def test_the_command_is_the_first_word_that_is_not_an_option():
    assert command_word(["--debug", "urls", "p", "--json"]) == "urls"
    assert command_word(["--debug"]) == "gui"
    assert command_word([]) == "gui"


def _every_parser(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _every_parser(child, (*path, name))


#: ``{NAME}`` left by a string that meant to be an f-string, or argparse's own ``%(…)``
#: that a doubled ``%%`` or a formatting slip left in the text.
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}|%\(")
#: What the help shows on purpose: the fields of a trap's pattern as crawls report it
#: (``/cal/{year}/{month}/{day}``, ``/page/{n}``: traps.allowed_patterns takes them).
_PATTERN_FIELDS = {"{n}", "{year}", "{month}", "{day}"}


def test_no_help_shows_an_unformatted_placeholder():
    parsers = list(_every_parser(build_parser()))
    assert {path[0] for path, _ in parsers if path} >= set(LISTED)  # every command walked
    assert any(len(path) > 1 for path, _ in parsers)  # and sub-subcommands (filter …)
    leftovers = {
        " ".join(path) or "recrawl": found
        for path, parser in parsers
        if (found := set(_PLACEHOLDER.findall(parser.format_help())) - _PATTERN_FIELDS)
    }
    assert leftovers == {}


def test_replay_help_says_how_to_install_pywb():
    done = recrawl("replay", "--help")
    assert "Needs pywb: pip install 'recrawl[replay]'." in " ".join(done.stdout.split())
