"""Compaction (docs/design.md §7): fold low-liveness segments into one without losing a capture.

The live records of the chosen segments are copied byte for byte (gzip members as they
are) into one new segment; superseded captures go to ``history/<name>-history.warc.gz`` or, with
``drop``, away. A journal row in the store makes every step recoverable:

1. journal ``copying``; the new WARCs and indexes are written under temporary names
   (``.open``) and fsynced. No page points at them yet.
2. One transaction: pages repointed, the old segments' rows deleted, the new one's
   added, journal ``committed``.
3. Temporary names renamed; old segment folders deleted; journal ``done``.

A kill before 2 leaves the old segments untouched and still pointed at: recovery deletes
the temporary files. A kill after 2 leaves pages pointing at the new WARC, which
:func:`recrawl.core.archive.segments.resolve` finds under its temporary name until
recovery renames it and deletes what is left of the old folders. Either way every latest
capture is readable.

A revisit never loses its target: a live revisit's target is live (docs/design.md §7), so it
is copied too; and ``drop`` keeps (in history) a superseded response that a revisit
outside the compacted segments still refers to, rather than leave that revisit dangling.

    plan       choosing segments; sorting each capture into kept, history or dropped
    copying    step 1: the new files under temporary names, durably
    journal    steps 2 and 3, the rollback before 2, and recovery after a kill
    run        :func:`compact`: the steps in order, under the project lock
    progress   what a compaction reports while it runs
"""

from recrawl.core.archive.compaction.journal import recover_compactions
from recrawl.core.archive.compaction.plan import Plan, Source, choose_segments, make_plan
from recrawl.core.archive.compaction.progress import CompactionProgress, Progress
from recrawl.core.archive.compaction.run import (
    CompactionStopped,
    CompactionSummary,
    ProjectFolder,
    compact,
)

__all__ = [
    "CompactionProgress",
    "CompactionStopped",
    "CompactionSummary",
    "Plan",
    "Progress",
    "ProjectFolder",
    "Source",
    "choose_segments",
    "compact",
    "make_plan",
    "recover_compactions",
]
