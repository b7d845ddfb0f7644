"""The ``recrawl`` command: the command line, or the desktop app when asked for.

This module sits above both :mod:`recrawl.core` and :mod:`recrawl.gui`, so the engine
never imports the GUI: the command line gets the app handed in, and Qt is imported only
when the app is started (the other commands start quickly and run without Qt).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from recrawl.core.cli import main as cli_main


class DesktopApp:
    """:class:`recrawl.core.cli.App`: the PySide6 app, checked for before Qt loads."""

    def open(self, project_dir: str | None, *, watch: bool = False, hidden: bool = False) -> int:
        if (problem := _missing_libraries() or _no_display()) is not None:
            print(f"recrawl: error: {problem}", file=sys.stderr)
            return 1
        from recrawl.gui.app import run_app

        return run_app(project_dir, watch=watch, hidden=hidden)

    def self_test(self) -> int:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no screen needed
        if (problem := _missing_libraries()) is not None:
            print(f"recrawl: error: {problem}", file=sys.stderr)
            return 1
        from recrawl.gui.selftest.self_test import run_self_test

        return run_self_test()


def _missing_libraries() -> str | None:
    from recrawl.gui.startup.system_libraries import check

    return check()


def _no_display() -> str | None:
    # after the libraries' check: it connects with libxcb (or libwayland-client) as Qt
    # would, and without a display Qt aborts the process instead of saying so
    from recrawl.gui.startup.display import problem

    return problem()


def main(argv: Sequence[str] | None = None) -> int:
    # A frozen bundle (PyInstaller) starts itself again for a crawl's analysis processes
    # (recrawl.core.engine.pool): in one of those, this runs the worker and exits (at
    # once and silently if the crawl died as it started: quiet_spawn).
    if getattr(sys, "frozen", False):
        from recrawl.core.engine.quiet_spawn import freeze_support

        freeze_support()
    return cli_main(argv, app=DesktopApp())


if __name__ == "__main__":
    sys.exit(main())
