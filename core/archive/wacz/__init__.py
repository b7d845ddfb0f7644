"""WACZ export (docs/design.md §13): chosen captures, and what they need, as one WACZ 1.1.1 file.

What goes in
------------
The captures are the response and revisit records the CDXJ indexes list (segments and
``history/``; a round still writing has no index yet and is left out, and said so).
``site`` keeps one host's, ``since`` those at or after a time, ``pages`` each page's
latest capture (``latest``) or all of them (``all``). Each chosen revisit brings the
response it stands for (found as :func:`recrawl.core.archive.captures.capture_payload`
finds it), however old, so that every exported capture replays.

A capture's bytes run from its record to the next capture of its WARC (or the WARC's
end): its request record, and a 304's ``metadata`` record, lie in between (that is how
rounds and compactions write them: :mod:`.compaction.plan`). Those stretches are copied
as they are, gzip members and all: not one record is re-serialised. Each source WARC
becomes one WARC of the package, headed by its own ``warcinfo`` record, so every record
stays under the warcinfo that describes where it was written, and the package's file
names are the project's.

The package
-----------
``archive/*.warc.gz`` stored (ZIP_STORED: replay tools read records at their offsets),
``indexes/index.cdx.gz`` with ``indexes/index.idx`` (the compressed, block-indexed CDXJ
py-wacz writes: a replay tool reads the small ``.idx`` and then only the blocks a URL
needs, however big the export), ``pages/pages.jsonl``, ``datapackage.json`` (every
file's size and sha256) and ``datapackage-digest.json``. The index lines are the
project's own, moved to their new file and offset: they equal what cdxj-indexer makes
of the exported WARCs (the tests check it). Each entry's local header has the extra
fields its central directory entry has (a zip64 field only past zipfile's 2 GiB limit):
ReplayWeb.page trusts the central directory for where an entry's data starts.

Written to ``OUT.<random>.part`` beside ``OUT`` and renamed at the end: a failure, a stop
or a kill leaves no partial ``OUT``, an existing ``OUT`` is replaced only on success, and
two exports to one ``OUT`` at once never write into each other's file. A part file is
locked while written; the next export to ``OUT`` removes those a killed export left.

Beside a compaction
-------------------
No lock: a compaction in another process may fold segments while an export reads them.
The export reads the indexes and opens every WARC it needs between two looks at the
store; when a compaction committed in between (a segment gone, or one mid-commit) it
reads again. Once open, a WARC that a later compaction deletes stays readable through
its open file (POSIX), so the copy never races the compaction; crawls go on meanwhile.
"""

from recrawl.core.archive.wacz.export import export_wacz
from recrawl.core.archive.wacz.options import (
    ALL,
    LATEST,
    PAGE_CHOICES,
    WACZ_VERSION,
    ExportOptions,
    ExportProgress,
    ExportStopped,
    ExportSummary,
)

__all__ = [
    "ALL",
    "LATEST",
    "PAGE_CHOICES",
    "WACZ_VERSION",
    "ExportOptions",
    "ExportProgress",
    "ExportStopped",
    "ExportSummary",
    "export_wacz",
]
