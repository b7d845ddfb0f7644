"""A long job's progress on stderr: rewritten in place on a terminal, a line now and then
in a log file."""

from __future__ import annotations

import time
from typing import TextIO

from recrawl.core.words import plural

#: Seconds between progress lines when stderr is no terminal (a log file).
LOG_EVERY = 10.0


class ProgressLine:
    """``DOING: 12,400 of 1,000,000 pages (1 %)`` on ``out``: rewritten in place on a
    terminal, a line every :data:`LOG_EVERY` seconds elsewhere (and the last one)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.live = out.isatty()
        self.last = 0.0
        self.shown = False

    def show(self, doing: str, done: int, total: int, unit: str, stopped: bool = False) -> None:
        """``DOING: DONE of TOTAL UNITs (P %)``."""
        if total == 0:
            return
        now = time.monotonic()
        final = done >= total or stopped
        if not self.live and not final and now - self.last < LOG_EVERY:
            return
        self.last = now
        percent = 100 * done // total
        line = f"{doing}: {done:,} of {plural(total, unit)} ({percent} %)"
        self.out.write(f"\r{line}\033[K" if self.live else f"recrawl: {line}\n")
        self.shown = True
        self.out.flush()

    def end(self) -> None:
        if self.live and self.shown:
            self.out.write("\n")
            self.out.flush()
