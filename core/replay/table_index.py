"""pywb's index over the store's capture table (docs/design.md §13): one query a lookup.

pywb looks a URL up as a range of index lines, ``key <= line < end_key`` (bytewise), and
then sorts, filters and picks what it found (closest capture, the banner's list of
captures, fuzzy matching: a second lookup of another range). The table gives the same
lines as the project's CDXJ files would, in the same order, so all of that is pywb's
own as before; only finding them no longer reads one file per segment and compaction.

SQLite stores only: the replay process is patched for gevent, and the table is read with
the standard library's sqlite3 (a query is short, and blocks the server as briefly as
reading an index file did). For a PostgreSQL store, or while the table is not built
(its ``capture_table`` setting), :func:`table_source` gives None or falls back to the
folders, whose listing is pywb's own.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from recrawl.core.layout import Layout

#: The rows of a key range, bytewise (SQLite compares text with memcmp).
_RANGE = (
    'SELECT "key", "stamp", "url", "mime", "status", "digest", "length", "offset", "file" '
    'FROM "capture" WHERE "key" >= ? AND "key" < ?'
)
_READY = "SELECT value FROM setting WHERE key = 'capture_table'"


def index_line(
    key: str, stamp: str, url: str, mime: str, status: str, digest: str, length: int | None,
    offset: int, file: str,
) -> bytes:  # fmt: skip
    """The CDXJ line the table's row stands for, as the segment writer writes it."""
    fields: dict[str, Any] = {"url": url, "mime": mime, "status": status, "digest": digest}
    if length is not None:
        fields["length"] = length
    fields["offset"] = offset
    fields["filename"] = file.rsplit("/", 1)[-1]
    text = json.dumps(fields, separators=(", ", ": "), ensure_ascii=False)
    return f"{key} {stamp} {text}".encode()


def index_of(file: str) -> str:
    """The index (relative to the project) listing the WARC ``file``: beside it."""
    return file.removesuffix(".warc.gz") + ".cdxj"


class TableLookup:
    """The lines of a key range from the table, or None while it is not complete."""

    def __init__(self, store_file: Path) -> None:
        uri = f"file:{quote(str(store_file))}?mode=ro"
        self._db = sqlite3.connect(uri, uri=True, timeout=10, check_same_thread=False)

    def ready(self) -> bool:
        try:
            row = self._db.execute(_READY).fetchone()
        except sqlite3.Error:  # no such table: a store from before it, not migrated
            return False
        return row is not None and json.loads(row[0]) == "complete"

    def lines(self, start: bytes, end: bytes) -> list[tuple[bytes, str]]:
        """(line, its index) for each line ``start <= line < end``, in the files' order."""
        # a key is the line up to its first space: a line is >= start once its key is
        # >= start's first word, and < end only if its key is (end has no space)
        low = start.split(b" ", 1)[0].decode("utf-8", "replace")
        high = end.decode("utf-8", "replace")
        out = []
        for key, stamp, url, mime, status, digest, length, offset, file in self._db.execute(
            _RANGE, (low, high)
        ):
            line = index_line(key, stamp, url, mime, status, digest, length, offset, file)
            if start <= line < end:
                out.append((line, index_of(file)))
        out.sort()
        return out

    def close(self) -> None:
        self._db.close()


def table_source(project_dir: Path, folders: Any) -> Any:
    """pywb's index source over the table of the SQLite store in ``project_dir``;
    ``folders`` (pywb's listing of the index folders) answers while the table is not
    built. None: no table to read (a PostgreSQL store, or no store file)."""
    layout = Layout(project_dir)
    if layout.project_file.exists() or not layout.store_file.is_file():
        return None
    from pywb.warcserver.index.cdxobject import CDXObject
    from pywb.warcserver.index.indexsource import BaseIndexSource

    try:
        lookup = TableLookup(layout.store_file)
    except sqlite3.Error:
        return None

    class TableIndex(BaseIndexSource):
        def load_index(self, params: dict[str, Any]) -> Iterator[Any]:
            if not lookup.ready():
                cdx_iter, _ = folders.load_index(params)
                return iter(cdx_iter)
            return self._rows(params["key"], params["end_key"])

        def _rows(self, start: bytes, end: bytes) -> Iterator[Any]:
            for line, index in lookup.lines(start, end):
                cdx = CDXObject(line)
                cdx["source"] = index  # the resolver finds the WARC beside it
                yield cdx

        def __str__(self) -> str:
            return "recrawl-capture-table"

    return TableIndex()
