"""The capture table from the CDXJ indexes (docs/design.md §7): rows of lines, and the
table built, checked and rebuilt.

The indexes are the record, the table (:mod:`recrawl.core.store.captures`) what lookups
read. It is built from the indexes when a store first gets it (migration 16), and again
whenever a recovery finds it disagreeing with them: a segment's row count that is not its
index's, or a WARC of the table's that no longer has an index, or an index without rows.
"""

from __future__ import annotations

import json
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.cdxj import surt
from recrawl.core.archive.segments import index_files
from recrawl.core.errors import WarcError
from recrawl.core.store.captures import COMPLETE, STALE


def row_of_line(line: str, relpath: str, standard_keys: bool = True) -> store.CaptureRow:
    """The table's row for a CDXJ line of the WARC at ``relpath`` (in the project).

    ``standard_keys`` False: the line may carry the key of before migration 11, and the
    row gets the standard one (pywb's lookups are by it)."""
    key, stamp, fields = line.rstrip("\n").split(" ", 2)
    data = json.loads(fields)
    url = str(data["url"])
    length = data.get("length")
    return store.CaptureRow(
        url,
        key if standard_keys else surt(url),
        stamp,
        relpath,
        int(data["offset"]),
        int(length) if length is not None else None,
        str(data.get("mime", "")),
        str(data.get("status", "")),
        str(data.get("digest", "")),
    )


def warc_of_index(project_dir: Path, index: Path) -> str:
    """The WARC's path in the project for the index at ``index``: the one beside it."""
    return (
        (index.parent / (index.name.removesuffix(".cdxj") + ".warc.gz"))
        .relative_to(project_dir)
        .as_posix()
    )


def rows_of_index(project_dir: Path, index: Path, standard_keys: bool) -> list[store.CaptureRow]:
    """Raises WarcError for an index that cannot be read: the project's commands report
    it (recovery's note) and go on reading the files, as without the table."""
    relpath = warc_of_index(project_dir, index)
    rows: list[store.CaptureRow] = []
    read = 0  # lines: the one that failed is named
    try:
        with open(index, encoding="utf-8", newline="\n") as fh:
            for line in fh:
                read += 1
                if line.strip():
                    rows.append(row_of_line(line, relpath, standard_keys))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        where = f" at line {read}" if read else ""
        raise WarcError(
            f"the index {index.relative_to(project_dir)} is unreadable{where}: {exc}"
        ) from None
    return rows


def needs_build() -> bool:
    return not store.captures_ready()


def build_captures(project_dir: Path) -> list[str]:
    """Fill the table from every index, in one transaction; the rows of open segments
    (committed by a crawl still writing, or a worker's) are kept. Returns the note."""
    standard = store.get_setting(store.INDEX_KEYS, store.STANDARD_KEYS) == store.STANDARD_KEYS
    total = 0
    with store.transaction():
        # In this order, whatever a live worker does meanwhile (docs/design.md §12): a
        # segment it opens after the first look has no rows to drop; one it closes is
        # open at the second (rows kept) or has its index for the third (rows re-read).
        files = set(store.capture_files())
        keep = store.open_segment_files()
        indexes = index_files(project_dir)
        files -= keep
        store.drop_file_captures(files)
        for index in indexes:
            rows = rows_of_index(project_dir, index, standard)
            if rows and rows[0].file not in keep:
                store.add_captures(rows)
                total += len(rows)
        store.mark_captures(COMPLETE)
    if not indexes:  # a project with no capture yet: nothing worth a line
        return []
    return [f"built the capture table: {total:,} captures of {len(indexes):,} index files"]


def disagreement(project_dir: Path) -> str | None:
    """Why the table does not match the indexes (None: it does, as far as counts tell):
    a closed segment whose rows are not its index's lines, or a WARC on one side only."""
    # In this order, whatever a live worker does meanwhile (docs/design.md §12): a segment
    # closed at the first look has all its rows at the second, and one open at the
    # second is open at the third or has its index for the fourth.
    closed = store.closed_segment_records()
    rows = store.capture_files()
    still_open = store.open_segment_files()
    indexed = {warc_of_index(project_dir, index) for index in index_files(project_dir)}
    for file, records in closed.items():
        if rows.get(file, 0) != records:
            return f"{file} has {rows.get(file, 0)} capture row(s), its index {records}"
    extra = set(rows) - indexed - still_open
    if extra:
        return f"{min(extra)} has capture rows but no index"
    missing = {f for f in indexed if f not in rows}
    if missing:
        return f"{min(missing)} has an index but no capture rows"
    return None


def check_captures(project_dir: Path) -> list[str]:
    """Build the table if it is incomplete, or rebuild it if it disagrees with the
    indexes; the notes say which (none: it was fine)."""
    if needs_build():
        return build_captures(project_dir)
    why = disagreement(project_dir)
    if why is None:
        return []
    store.mark_captures(STALE)
    note = f"the capture table disagreed with the indexes ({why}); rebuilding it"
    return [note, *build_captures(project_dir)]
