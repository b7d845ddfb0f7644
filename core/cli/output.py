"""What commands read and print: URL lists in; a JSON array or one line per row out."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from recrawl.core.words import human_size

__all__ = ["human_size"]

#: The help of every command's DIR argument.
DIR_HELP = "the project folder (made by `recrawl init`)"
#: The help of every command's --json option.
JSON_HELP = "print JSON (keys as documented; times ISO 8601 UTC, durations in seconds)"


def warn(message: str) -> None:
    """One line on stderr that does not stop the command."""
    print(f"recrawl: warning: {message}", file=sys.stderr)


def print_rows(
    rows: Sequence[dict[str, Any]], as_json: bool, line: Callable[[dict[str, Any]], str]
) -> None:
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        print(line(row))


def write_json_array(out: TextIO, rows: Iterable[dict[str, Any]]) -> None:
    """Stream a JSON array, one object per line, without holding all rows."""
    out.write("[")
    for index, row in enumerate(rows):
        out.write(("\n" if index == 0 else ",\n") + json.dumps(row))
    out.write("\n]\n")


def url_lines(text: str) -> list[str]:
    """One URL per line; blank lines and # comments skipped."""
    return [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
