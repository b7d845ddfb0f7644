"""Printing command results: a JSON array for scripts, or one line per row for people."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any


def print_rows(
    rows: Sequence[dict[str, Any]], as_json: bool, line: Callable[[dict[str, Any]], str]
) -> None:
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    for row in rows:
        print(line(row))
