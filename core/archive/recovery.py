"""What a killed writer leaves behind, finished or undone before anything else writes.

Runs under the project lock: when a crawl or a compaction starts, and when a project is
opened while no other process holds it. On a shared (PostgreSQL) store, where workers
take no project lock, an advisory lock keeps two recoverers apart, and only segments
whose writer is dead (its heartbeat ran out) are touched (docs/design.md §12).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.capture_table import check_captures
from recrawl.core.archive.compaction import recover_compactions
from recrawl.core.archive.index_keys import needs_rekey, rekey_indexes
from recrawl.core.archive.segment_writer import recover_open_segments
from recrawl.core.errors import StoreBusy, WarcError
from recrawl.core.words import plural


def recover(project_dir: Path, now: datetime, worker: str | None = None) -> list[str]:
    """Interrupted compactions first (they may own segment folders), then open segments
    (on a shared store, dead workers' and ``worker``'s own: never a live worker's), then
    indexes still carrying old keys (:mod:`.index_keys`)."""
    try:
        # on PostgreSQL, not one that another machine is running (docs/design.md §12)
        with store.exclusive(store.COMPACTION, "compacting"):
            messages = recover_compactions(project_dir, now)
    except StoreBusy:
        messages = []  # its compactor is alive and will finish its own work
    try:
        # two workers finding one dead worker's segment: one cuts it back, once
        with store.exclusive(store.RECOVERY, "recovering segments"):
            recovered = recover_open_segments(project_dir, now, worker)
    except StoreBusy:
        recovered = []  # the other recoverer does it
    messages += [f"recovered segment {name} of an interrupted crawl" for name in recovered]
    # a capture committed before its embeds were: fetched again, with them (§14)
    unfinished = store.unfinished_captures_due(recovered, now) if recovered else 0
    if unfinished:
        messages.append(
            f"{plural(unfinished, 'page')} of the interrupted crawl "
            "made due again: their embeds were not all fetched"
        )
    if needs_rekey():
        try:
            # a compaction rewrites indexes too: not both at once (docs/design.md §12)
            with store.exclusive(store.COMPACTION, "re-keying indexes"):
                messages += rekey_indexes(project_dir)
        except StoreBusy:
            pass  # the compactor re-keys them first (compaction.run)
    try:
        # a compaction moves the table's rows: not while it is rebuilt
        with store.exclusive(store.COMPACTION, "building the capture table"):
            messages += check_captures(project_dir)
    except StoreBusy:
        pass  # the compactor checks it first (compaction.run)
    except WarcError as exc:
        # an index the table cannot be built from stops no crawl: lookups read the files,
        # and the next recovery tries again
        messages.append(f"the capture table is not built: {exc}; lookups read the index files")
    return messages
