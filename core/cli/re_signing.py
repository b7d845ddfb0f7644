"""``recrawl signature DIR --set KIND``: the switch, with every page's signature recomputed."""

from __future__ import annotations

import json
import sys
import threading

from recrawl.core.cli.progress_line import ProgressLine as BaseProgressLine
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.interrupts import StopSignals
from recrawl.core.project import Project
from recrawl.core.services import Services


class ProgressLine(BaseProgressLine):
    """``recomputing main-text signatures: 12,400 of 1,000,000 pages (1 %)`` on stderr."""

    def __call__(self, state: ReSigningProgress) -> None:
        self.show(
            f"recomputing {state.kind} signatures", state.done, state.total, "page", state.stopped
        )


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
