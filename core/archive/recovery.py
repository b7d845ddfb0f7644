"""What a killed writer leaves behind, finished or undone before anything else writes.

Runs under the project lock: when a crawl or a compaction starts, and when a project is
opened while no other process holds it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.compaction import recover_compactions
from recrawl.core.archive.segment_writer import recover_open_segments
from recrawl.core.errors import StoreBusy


def recover(project_dir: Path, now: datetime) -> list[str]:
    """Interrupted compactions first (they may own segment folders), then open segments."""
    try:
        # on PostgreSQL, not one that another machine is running (DESIGN.md §12)
        with store.exclusive(store.COMPACTION, "compacting"):
            messages = recover_compactions(project_dir, now)
    except StoreBusy:
        messages = []  # its compactor is alive and will finish its own work
    messages += [
        f"recovered segment {name} of an interrupted crawl"
        for name in recover_open_segments(project_dir, now)
    ]
    return messages
