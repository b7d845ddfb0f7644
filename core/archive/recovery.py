"""What a killed writer leaves behind, finished or undone before anything else writes.

Runs under the project lock: when a crawl or a compaction starts, and when a project is
opened while no other process holds it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from recrawl.core.archive.compaction import recover_compactions
from recrawl.core.archive.segment_writer import recover_open_segments


def recover(project_dir: Path, now: datetime) -> list[str]:
    """Interrupted compactions first (they may own segment folders), then open segments."""
    messages = recover_compactions(project_dir, now)
    messages += [
        f"recovered segment {name} of an interrupted crawl"
        for name in recover_open_segments(project_dir, now)
    ]
    return messages
