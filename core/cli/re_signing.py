"""``recrawl signature DIR --set KIND``: the switch, with every page's signature recomputed."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import TextIO

from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.interrupts import StopSignals
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.core.words import plural

#: Seconds between progress lines when stderr is no terminal (a log file).
LOG_EVERY = 10.0


class ProgressLine:
    """``recomputing main-text signatures: 12,400 of 1,000,000 pages (1 %)`` on stderr:
    rewritten in place on a terminal, a line every :data:`LOG_EVERY` seconds elsewhere."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.live = out.isatty()
        self.last = 0.0
        self.shown = False

    def __call__(self, state: ReSigningProgress) -> None:
        self.show(
            f"recomputing {state.kind} signatures", state.done, state.total, "page", state.stopped
        )

    def show(self, doing: str, done: int, total: int, unit: str, stopped: bool = False) -> None:
        """``DOING: DONE of TOTAL UNITs (P %)`` (another long job's progress: a preview's)."""
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


def switch_signature_command(project: Project, kind: str, as_json: bool) -> int:
    stop = threading.Event()
    line = ProgressLine(sys.stderr)
    signals = StopSignals(stop.set, "stopping after the batch in hand; --set again resumes")
    try:
        with signals:
            state = Services(project).re_signing.switch(kind, progress=line, stop=stop)
    finally:
        line.end()
    if as_json:
        recompute = {
            "pages": state.total,
            "recomputed": state.recomputed,
            "unreadable": state.unreadable,
            "skipped": state.skipped,
            "stopped": state.stopped,
        }
        print(json.dumps({"signature": kind, "recompute": recompute}))
    else:
        print(kind)
        print(f"recrawl: {state.summary('set it again')}", file=sys.stderr)
    return signals.exit_status if state.stopped else 0
