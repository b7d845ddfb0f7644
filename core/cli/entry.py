"""The ``recrawl`` command line (docs/design.md §8): parse, run the command, report errors.

Errors print one line on stderr and exit non-zero; ``--debug`` adds the traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from recrawl.core.cli.parser import build_parser, command, command_word
from recrawl.core.disk import disk_full, full_disk, no_room
from recrawl.core.errors import DiskFull, InvalidArgument, RecrawlError


class App(Protocol):
    """The desktop app, as the command line starts it (``recrawl.main`` provides it).

    The engine never imports the GUI: whoever runs the command line hands it in.
    """

    def open(self, project_dir: str | None, *, watch: bool = False, hidden: bool = False) -> int:
        """Run the app on a project folder (None: the default project) until it quits;
        ``watch``: watching from the start; ``hidden``: the window starts in the tray."""
        ...

    def self_test(self) -> int:
        """Crawl a loopback site from the app's own window (offscreen); 0 when all is well."""
        ...


def main(argv: Sequence[str] | None = None, app: App | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(only=command_word(words)).parse_args(words)
    try:
        name = args.command or "gui"
        if args.self_test or name == "gui":
            if app is None:
                raise InvalidArgument("this recrawl has no desktop app; use a command (see --help)")
            if args.self_test:
                return app.self_test()
            return app.open(
                getattr(args, "dir", None),
                watch=getattr(args, "watch", False),
                hidden=getattr(args, "hidden", False),
            )
        return command(name).run(args)
    except RecrawlError as exc:
        if args.debug:
            raise
        print(f"recrawl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("recrawl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a full disk met where no one expected it: one line too
        full = _full_disk(exc, args)
        if full is None or args.debug:
            raise
        print(f"recrawl: error: {full}", file=sys.stderr)
        return 1


def _full_disk(exc: Exception, args: argparse.Namespace) -> DiskFull | None:
    # the disk a command writes to: an export's file, else the project's
    written = (getattr(args, name, None) for name in ("out", "out_dir", "dir"))
    where = Path(next((path for path in written if path), "."))
    full = full_disk(exc, where)
    if full is None and "readonly database" in str(exc) and no_room(where):
        # the store opened for reading only, there being no room (core/store/connection.py)
        full = disk_full(where)
    return full
