"""Write docs/cli.md, the command-line reference, from the ``recrawl`` argument parser.

    python docs/make_cli_reference.py          # writes docs/cli.md (``make docs``)
    python docs/make_cli_reference.py --check  # exit 1 when docs/cli.md is stale

Every command (and ``filter``'s actions) gets its usage, its description and each
argument's help, as ``recrawl COMMAND --help`` prints them. The output depends on the
parser alone: usage lines are wrapped at a fixed width whatever the terminal's (and never
coloured), and the arguments are listed by this script rather than by argparse's help
layout (which differs between Python versions). tests/docs/test_cli_reference.py fails when docs/cli.md is not
what this script writes.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from recrawl.core.cli.parser import build_parser

#: Where the reference goes, beside this script.
TARGET = Path(__file__).resolve().parent / "cli.md"
#: The width usage lines and epilogs are wrapped at, whatever the terminal.
WIDTH = 88

HEADER = """\
# Command-line reference

Every `recrawl` command with its usage, what it does and each argument, as
`recrawl COMMAND --help` prints them. This page is generated from the argument parser
(`core/cli/parser.py` and the command modules of `core/cli/`) by
`docs/make_cli_reference.py`: do not edit it by hand, change the parser's help and run
`make docs`. The contracts behind the commands (exact JSON keys, what each verdict and
record means) are in [design.md](design.md) §8 and the sections it points to; the
settings the project keeps are in [settings.md](settings.md).

Times are ISO 8601 in UTC (`2026-12-02T03:58:02Z`); durations read `30d`, `12h`, `90m`,
`1800s` or as printed (`6.0 d`). Errors go to stderr in one line with a non-zero exit
(`--debug` shows the traceback).
"""


def render() -> str:
    """The whole reference, as docs/cli.md holds it."""
    parser = build_parser()
    sections = list(_walk(parser, "recrawl"))
    out = [HEADER, "## Commands\n"]
    for name, summary, _ in sections[1:]:
        out.append(f"- [`{name}`](#{_anchor(name)}): {_inline(summary)}")
    out.append("")
    for name, summary, sub in sections:
        out.append(_section(name, summary, sub))
    return "\n".join(out).rstrip("\n") + "\n"


def _walk(
    parser: argparse.ArgumentParser, name: str, summary: str = ""
) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Each parser under ``parser`` (itself first), with its full name and summary line."""
    yield name, summary, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for word, sub in action.choices.items():
                yield from _walk(sub, f"{name} {word}", helps.get(word, ""))


def _section(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    _fix_width(parser)
    lines = [f"## {name}", "", "```text", parser.format_usage().rstrip(), "```", ""]
    description = parser.description or summary
    if description:
        lines += [_inline(" ".join(description.split())), ""]
    formatter = parser._get_formatter()
    arguments = [a for a in parser._actions if a.help != argparse.SUPPRESS]
    arguments = [a for a in arguments if not isinstance(a, argparse._HelpAction)]
    for action in arguments:
        if isinstance(action, argparse._SubParsersAction):
            continue
        text = formatter._expand_help(action) if action.help else ""
        lines.append(f"- `{_invocation(action, formatter)}`: {_inline(' '.join(text.split()))}")
    # the top level's commands are listed once, at the top of the page
    subcommands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if name == "recrawl":
        subcommands = []
    for action in subcommands:
        for choice in action._choices_actions:
            word = f"{name} {choice.dest}"
            lines.append(f"- [`{choice.dest}`](#{_anchor(word)}): {_inline(choice.help or '')}")
    if arguments or subcommands:
        lines.append("")
    if parser.epilog:
        lines += ["```text", parser.epilog.rstrip(), "```", ""]
    return "\n".join(lines)


def _fix_width(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` wrap at :data:`WIDTH`, keeping the formatter class it chose."""
    chosen: Callable[..., argparse.HelpFormatter] = parser.formatter_class

    def fixed(prog: str) -> argparse.HelpFormatter:
        return chosen(prog, width=WIDTH)

    parser.formatter_class = fixed
    if hasattr(parser, "color"):  # Python 3.14 colours help on a terminal: not in a file
        parser.color = False


def _invocation(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if not action.option_strings:
        return formatter._metavar_formatter(action, action.dest)(1)[0]
    words = ", ".join(action.option_strings)
    if action.nargs == 0:
        return words
    return f"{words} {formatter._format_args(action, action.dest.upper())}"


def _inline(text: str) -> str:
    """``text`` as Markdown: code spans kept; outside them, what would start emphasis or
    markup is escaped (GitHub reads no emphasis in ``since_change_days``)."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = re.sub(r"([\\*<])|(?<!\w)_|_(?!\w)", lambda m: "\\" + m[0], parts[i])
    return "`".join(parts)


def _anchor(heading: str) -> str:
    """The anchor GitHub gives the heading ``## heading``."""
    return re.sub(r"[^a-z0-9 -]", "", heading.lower()).replace(" ", "-")


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is stale: run `make docs`", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
