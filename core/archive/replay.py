"""A project's captures as a pywb collection, in place (docs/design.md §13).

pywb, the standard replay tool, serves the collection ``project`` straight from the
project's folders: no copy, no re-index. Its indexes are the project's own CDXJ files
(each segment's and ``history/``'s), listed afresh for every lookup, so a round that
closes (a new segment) or a compaction (segments folded and deleted, superseded captures
moved to history) shows in the next page opened without telling the server anything.
A CDXJ line names its WARC by file name only; the WARC sits beside the index that lists
it, which is how :func:`warc_paths` finds it (and where a revisit's original is, by its
name alone).

Replay URLs follow pywb's scheme: ``/project/<TIMESTAMP>/<URL>`` for the page as it
looked at the capture closest to TIMESTAMP (14 digits, or a prefix), in pywb's frame
under its banner; ``mp_`` after the timestamp for the page alone (links, images and
styles rewritten to their captures), ``id_`` for the archived bytes as the server sent
them.

Nothing here imports pywb: the server process (:mod:`recrawl.core.replay.pywb_process`)
hands these rules to it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from recrawl.core.layout import HISTORY_DIR, SEGMENTS_DIR, Layout

#: The collection's name in replay URLs.
COLLECTION = "project"
#: The folders holding the indexes, as glob patterns under the project folder: each
#: segment's own folder, and history's.
INDEX_FOLDERS = (f"{SEGMENTS_DIR}/*", HISTORY_DIR)

_WARC_SUFFIX = ".warc.gz"


def capture_stamp(date: datetime) -> str:
    """The 14-digit UTC timestamp replay URLs and CDXJ lines give a capture."""
    return date.strftime("%Y%m%d%H%M%S")


def capture_url(base: str, stamp: str, url: str, raw: bool = False, inner: bool = False) -> str:
    """The replay URL of ``url``'s capture closest to ``stamp`` on the server at ``base``
    (``http://127.0.0.1:P``): the page in pywb's frame, its banner above it; ``inner``:
    the page alone, as that frame shows it (``mp_``); ``raw``: the archived bytes as the
    server sent them (``id_``)."""
    mode = "id_" if raw else "mp_" if inner else ""
    return f"{base.rstrip('/')}/{COLLECTION}/{stamp}{mode}/{url}"


def warc_paths(project_dir: Path, filename: str, index: str | None = None) -> list[Path]:
    """Where the WARC an index line names as ``filename`` may be, likeliest first.

    ``index``: the index that listed it, relative to the project folder, if known (the
    WARC beside it is the one meant). Otherwise by its name: a segment's WARC is
    ``segments/<name>/<name>.warc.gz``, history's are in ``history/``. History files
    of older compactions were named like the compaction's own segment (``<name>.warc.gz``,
    see :func:`recrawl.core.archive.segments.legacy_history_relpath`): by name alone the
    segment's comes first.
    """
    if "/" in filename or "\\" in filename or filename in ("", ".", ".."):
        return []  # not one of ours: never a path out of the project
    paths = []
    if index and ".." not in Path(index).parts and not Path(index).is_absolute():
        paths.append(project_dir / Path(index).parent / filename)
    if filename.endswith(_WARC_SUFFIX):
        name = filename.removesuffix(_WARC_SUFFIX)
        paths.append(Layout(project_dir).segment(name) / filename)
    paths.append(project_dir / HISTORY_DIR / filename)
    return list(dict.fromkeys(paths))  # once each, in order
