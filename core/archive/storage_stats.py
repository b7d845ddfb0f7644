"""What each WARC of a project holds, by site, month and kind (docs/design.md §18), cached.

A capture's bytes run from its indexed record to the next indexed record (its request,
a 304's metadata, a browser capture's DOM and screenshot lie between) or the end of the
file, as compaction copies them; the bytes before a file's first capture (its
``warcinfo``) count with that capture, so a file's figures add up to its size exactly.

Closed segments and history files never change (a compaction writes new files and
deletes the old), so a file's figures are read from its CDXJ index once and kept in
the store, keyed by the file's relative path, size and modification time: a later
look reads only files it has not seen. A capture counts as an embed when its URL is an
embed's in the store when its file is first measured (an embed a page later links to
becomes a page; its earlier captures keep counting as embeds).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.cdxj import parse_line
from recrawl.core.errors import RecrawlError
from recrawl.core.layout import HISTORY_DIR, SEGMENTS_DIR
from recrawl.core.store.models import DB, Page, PageKind

#: The store's settings row holding every measured file's figures.
CACHE_KEY = "storage_figures"
#: Bumped when what a file's figures hold changes: older entries are measured again.
CACHE_VERSION = 1
#: How long (ms) the cache's write waits for another writer's lock on SQLite before it
#: is skipped.
WRITE_WAIT_MS = 200

# our own lines start with the URL and end with the offset and file name (cdxj_line)
_OUR_LINE = re.compile(
    r'^\S+ (\d{14}) \{"url": "((?:[^"\\\n]|\\.)*)".*"offset": (\d+), "filename": "[^"\n]*"\}$',
    re.M,
)


@dataclass(frozen=True, slots=True)
class Tally:
    """The captures of one (host, month) of a file, and their bytes."""

    host: str
    month: str  # yyyy-mm, UTC, of the capture's own date
    embed: bool
    captures: int
    bytes: int


@dataclass(frozen=True, slots=True)
class FileFigures:
    """One closed WARC (a segment's or history's), measured from its index."""

    relpath: str  # as the store names it: segments/NAME/NAME.warc.gz, history/...
    size: int
    mtime_ns: int
    tallies: tuple[Tally, ...]
    #: A segment's capture offsets (file order), with the bytes of each: liveness is
    #: per capture, so superseded bytes are summed over these. Empty for history.
    offsets: tuple[int, ...]
    spans: tuple[int, ...]
    #: The 14-digit times of its earliest and latest capture ("" when it has none).
    earliest: str = ""
    latest: str = ""

    @property
    def history(self) -> bool:
        return self.relpath.startswith(HISTORY_DIR + "/")

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "tallies": [[t.host, t.month, int(t.embed), t.captures, t.bytes] for t in self.tallies],
            "first": self.offsets[0] if self.offsets else 0,
            "spans": list(self.spans),
            "earliest": self.earliest,
            "latest": self.latest,
        }

    @classmethod
    def from_json(cls, relpath: str, value: dict[str, Any]) -> FileFigures:
        # written by to_json: JSON gave the numbers back as ints (a report reads every
        # file's entry, so no per-number conversion)
        spans = tuple(value["spans"])
        if not all(type(n) is int for n in (value["size"], value["mtime_ns"], *spans[:1])):
            raise ValueError("not a cache entry")
        raw = value["tallies"]
        tallies = tuple([Tally(h, m, bool(e), c, b) for h, m, e, c, b in raw])
        # the sums trust the numbers and names: checked in bulk (a file of many hosts has
        # thousands of tallies), a sum of ints being an int and a join taking only text
        counts = sum([t[3] for t in raw]) + sum([t[4] for t in raw])
        "".join([t[0] + t[1] for t in raw])
        if type(counts) is not int:
            raise ValueError("not a cache entry")
        return cls(
            relpath,
            value["size"],
            value["mtime_ns"],
            tallies,
            _offsets_from(int(value["first"]), spans),
            spans,
            str(value["earliest"]),
            str(value["latest"]),
        )


def _offsets_from(first: int, spans: tuple[int, ...]) -> tuple[int, ...]:
    """Capture offsets back from the spans: the first span also covers ``[0, first)``."""
    if not spans:
        return ()
    return (first, *itertools.accumulate(spans[:-1]))


@dataclass(frozen=True, slots=True)
class WarcFile:
    """A closed WARC on disk with its index beside it."""

    relpath: str
    path: Path
    index: Path
    size: int
    mtime_ns: int


def measure(warc: WarcFile, embeds_among: Callable[[Iterable[str]], set[str]]) -> FileFigures:
    """Read ``warc``'s index: its captures' hosts, months, kinds and bytes.

    ``embeds_among(urls)``: those of the URLs that are embeds (asked for segments only:
    history is one kind). Raises RecrawlError for an index that does not fit its WARC.
    """
    try:
        text = warc.index.read_text(encoding="utf-8")
        captures = _our_lines(text)
        if captures is None:
            captures = _any_lines(text)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise RecrawlError(f"cannot read the index {warc.index}: {exc}") from None
    captures.sort()
    offsets = [offset for offset, _, _ in captures]
    if offsets and (offsets[0] < 0 or offsets[-1] >= warc.size):
        raise RecrawlError(f"the index {warc.index} does not fit its WARC")
    ends = [*offsets[1:], warc.size]
    spans = [end - start for start, end in zip(offsets, ends, strict=True)]
    if spans:
        spans[0] += offsets[0]  # the warcinfo before the first capture
    keys = [(url, stamp) for _, url, stamp in captures]
    history = warc.relpath.startswith(HISTORY_DIR + "/")
    embeds = set() if history else embeds_among({url for url, _ in keys})
    sums: dict[tuple[str, str, bool], list[int]] = {}
    for (url, stamp), span in zip(keys, spans, strict=True):
        key = (_host(url), f"{stamp[:4]}-{stamp[4:6]}", url in embeds)
        tally = sums.setdefault(key, [0, 0])
        tally[0] += 1
        tally[1] += span
    tallies = tuple(
        Tally(host, month, embed, captures, size)
        for (host, month, embed), (captures, size) in sorted(sums.items())
    )
    stamps = [stamp for _, stamp in keys]
    earliest, latest = (min(stamps), max(stamps)) if stamps else ("", "")
    if history:  # outside liveness: no capture of it is ever looked up by offset
        offsets, spans = [], []
    return FileFigures(
        warc.relpath,
        warc.size,
        warc.mtime_ns,
        tallies,
        tuple(offsets),
        tuple(spans),
        earliest,
        latest,
    )


def _our_lines(text: str) -> list[tuple[int, str, str]] | None:
    """(offset, URL, stamp) of every line, by one regex over the whole index: lines this
    version wrote (the URL first, the offset last but the file name). None: some line is
    not such a line, or has an escaped URL (:func:`_any_lines` reads those)."""
    found = _OUR_LINE.findall(text)
    if len(found) != text.count("\n") + (0 if text.endswith("\n") or not text else 1):
        return None
    if any("\\" in url for _, url, _ in found):
        return None
    return [(int(offset), url, stamp) for stamp, url, offset in found]


def _any_lines(text: str) -> list[tuple[int, str, str]]:
    out = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        entry = parse_line(line)
        fields = entry.fields()
        out.append((entry.offset, str(fields.get("url", "")), entry.stamp))
    return out


def _host(url: str) -> str:
    """The URL's host as the store keeps it (lower case, no port): a file has thousands of
    captures of a few hosts, so the host is parsed once per authority."""
    rest = url.partition("//")[2]
    end = len(rest)
    for mark in "/?#":
        found = rest.find(mark)
        if 0 <= found < end:
            end = found
    return _authority_host(rest[:end])


@lru_cache(maxsize=4096)
def _authority_host(authority: str) -> str:
    try:
        return urlsplit(f"//{authority}").hostname or ""
    except ValueError:
        return ""


def closed_warcs(folder: Path) -> list[WarcFile]:
    """Every segment's and history's WARC with its index beside it (closed, so fixed)."""
    found: list[WarcFile] = []
    for relpath in _warc_relpaths(folder):
        path = folder / relpath
        index = path.with_suffix("").with_suffix(".cdxj")
        try:
            stat = path.stat()
            if not index.is_file():
                continue
        except OSError:
            continue
        found.append(WarcFile(relpath, path, index, stat.st_size, stat.st_mtime_ns))
    return found


def _warc_relpaths(folder: Path) -> list[str]:
    out: list[str] = []
    try:
        with os.scandir(folder / SEGMENTS_DIR) as segments:
            for entry in segments:
                if entry.is_dir(follow_symlinks=False):
                    name = entry.name
                    if (Path(entry.path) / f"{name}.warc.gz").is_file():
                        out.append(f"{SEGMENTS_DIR}/{name}/{name}.warc.gz")
    except FileNotFoundError:
        pass
    try:
        with os.scandir(folder / HISTORY_DIR) as history:
            out.extend(
                f"{HISTORY_DIR}/{entry.name}"
                for entry in history
                if entry.name.endswith(".warc.gz") and entry.is_file(follow_symlinks=False)
            )
    except FileNotFoundError:
        pass
    return sorted(out)


@dataclass(frozen=True, slots=True)
class Measured:
    """Every closed WARC's figures, and what measuring them took."""

    files: list[FileFigures]
    #: Files measured now (not found in the cache, or changed since).
    measured: int
    #: Files whose index could not be read: their bytes are not in ``files``.
    unreadable: list[str]


def measure_all(folder: Path) -> Measured:
    """The figures of every closed WARC of the project in ``folder``: from the store's
    cache where a file's size and time are as cached, else measured (and the cache
    written, unless the store refuses a write — a full disk: skipped, not an error)."""
    cached = _read_cache()
    files: list[FileFigures] = []
    unreadable: list[str] = []
    fresh = 0
    embeds: set[str] | None = None  # every embed's URL, read once if a segment is measured

    def embeds_among(urls: Iterable[str]) -> set[str]:
        nonlocal embeds
        if embeds is None:
            embeds = _embed_urls()
        return embeds.intersection(urls)

    for warc in closed_warcs(folder):
        entry = cached.get(warc.relpath)
        if entry is not None and entry.size == warc.size and entry.mtime_ns == warc.mtime_ns:
            files.append(entry)
            continue
        try:
            files.append(measure(warc, embeds_among))
        except RecrawlError:
            unreadable.append(warc.relpath)
            continue
        fresh += 1
    if fresh or set(cached) != {f.relpath for f in files}:
        _write_cache(files)
    return Measured(files, fresh, unreadable)


def _embed_urls() -> set[str]:
    """Every embed's URL: one query, where asking per file cost more than reading its index."""
    query = Page.select(Page.url).where(Page.kind == PageKind.EMBED)
    return {url for (url,) in query.tuples().iterator()}


def _read_cache() -> dict[str, FileFigures]:
    try:
        value = store.get_setting(CACHE_KEY)
    except ValueError:  # not JSON (edited by hand): every file is measured again
        return {}
    if not isinstance(value, dict) or value.get("version") != CACHE_VERSION:
        return {}
    files = value.get("files")
    if not isinstance(files, dict):
        return {}
    out: dict[str, FileFigures] = {}
    for relpath, entry in files.items():
        try:
            out[relpath] = FileFigures.from_json(relpath, entry)
        except (KeyError, TypeError, ValueError):
            continue  # measured again
    return out


def _write_cache(files: list[FileFigures]) -> None:
    value = {"version": CACHE_VERSION, "files": {f.relpath: f.to_json() for f in files}}
    try:
        with _short_wait():
            store.set_setting(CACHE_KEY, value)
    except Exception:  # a read-only look works on a full disk or a busy store: no cache then
        return


@contextlib.contextmanager
def _short_wait() -> Iterator[None]:
    """SQLite's wait for the write lock cut to :data:`WRITE_WAIT_MS` meanwhile: another
    process's long transaction would hold a quick look for the store's whole wait (10 s)
    for a cache the next look writes as well."""
    if store.is_server_store():
        yield
        return
    (before,) = DB.execute_sql("PRAGMA busy_timeout").fetchone()
    DB.execute_sql(f"PRAGMA busy_timeout = {WRITE_WAIT_MS}")
    try:
        yield
    finally:
        DB.execute_sql(f"PRAGMA busy_timeout = {int(before)}")
