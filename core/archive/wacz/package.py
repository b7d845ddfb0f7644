"""The WACZ file written: the chosen stretches of WARC copied byte for byte, their index,
the pages list and the datapackage (see :mod:`recrawl.core.archive.wacz`)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, BinaryIO
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.index_keys import rekeyed_line
from recrawl.core.archive.wacz.options import (
    CHUNK,
    HTML_TYPES,
    INDEX_BLOCK_LINES,
    LATEST,
    PAGE_BATCH,
    WACZ_VERSION,
    ExportOptions,
    ExportProgress,
    ExportStopped,
    Progress,
)
from recrawl.core.archive.wacz.snapshot import Capture, Choice, Snapshot, Source
from recrawl.core.archive.wacz.texts import PageCapture, page_texts
from recrawl.core.clock import utcnow
from recrawl.core.content.search_text import SearchDocument
from recrawl.core.errors import ProjectError

from recrawl import __version__


class _Hashing:
    """A file-like object for the zip that digests (sha256) and counts what goes through."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes | memoryview) -> None:
        self._out.write(data)
        self.sha256.update(data)
        self.size += len(data)


@dataclass(frozen=True)
class _Entry:
    path: str
    size: int
    sha256: str


class _Package:
    """The zip being written: each entry's size and digest kept for datapackage.json."""

    def __init__(self, fh: BinaryIO, created: datetime) -> None:
        self.zip = zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True)
        self.created = created
        self.entries: list[_Entry] = []

    def _info(self, path: str, deflate: bool) -> zipfile.ZipInfo:
        info = zipfile.ZipInfo(path, self.created.timetuple()[:6])
        info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
        info.external_attr = 0o644 << 16
        return info

    def _open(self, path: str, size: int, *, deflate: bool) -> IO[bytes]:
        """A writer for an entry of ``size`` bytes, with a zip64 field in its local header
        exactly when its central directory entry gets one (its size past zipfile's limit).

        ReplayWeb.page (wabac.js) finds an entry's data at its local header's offset + 30
        + the name's length whenever the central directory entry has no extra field,
        without reading the local header: a zip64 field there alone (``force_zip64`` on
        an entry that turns out small) shifts every record it reads and no page replays.
        The size is known before the copy, so the field is asked for only when needed (the
        ZipInfo's own size is left 0: zipfile would add the field from 95 % of its limit).
        """
        return self.zip.open(self._info(path, deflate), "w", force_zip64=size > zipfile.ZIP64_LIMIT)

    def write_stream(
        self, path: str, size: int, chunks: Iterable[bytes | memoryview], *, deflate: bool = False
    ) -> None:
        """An entry of ``size`` bytes, stored as it is (a WARC may pass 4 GB) or deflated."""
        with self._open(path, size, deflate=deflate) as out:
            hashing = _Hashing(out)
            for chunk in chunks:
                hashing.write(chunk)
            if hashing.size != size:  # its header would say so: a bug, not the disk
                raise ProjectError(f"{path}: {hashing.size} bytes copied of {size} planned")
        self.entries.append(_Entry(path, hashing.size, hashing.sha256.hexdigest()))

    def write_bytes(self, path: str, data: bytes, *, deflate: bool, listed: bool = True) -> None:
        with self._open(path, len(data), deflate=deflate) as out:
            out.write(data)
        if listed:
            self.entries.append(_Entry(path, len(data), hashlib.sha256(data).hexdigest()))


@dataclass(frozen=True)
class _Written:
    pages: int
    warcs: int
    warc_bytes: int


def write_package(
    fh: BinaryIO,
    snapshot: Snapshot,
    choice: Choice,
    options: ExportOptions,
    project_dir: Path,
    report: Progress,
    stop: Callable[[], bool],
    spool: Path | None = None,
) -> _Written:
    """The package written to ``fh``; ``spool``: a folder for what is written whole before
    it goes into the zip (pages.jsonl, whose size its zip entry must know)."""
    created = utcnow().replace(microsecond=0)
    package = _Package(fh, created)
    # the zip is closed however this ends: a zip object left open writes its directory
    # to the (by then closed and deleted) file when collected
    with package.zip:
        plans = plan_warcs(snapshot.sources, choice.copied)
        total = sum(plan.size for plan in plans)
        counter = _Counter(total, len(choice.copied), report, stop)
        lines: list[str] = []
        for plan in plans:
            package.write_stream(f"archive/{plan.name}", plan.size, plan.copy(counter, lines))
        if snapshot.old_keys:  # an upgrade not finished yet: pywb would miss such lines
            lines = [rekeyed_line(line) for line in lines]
        lines.sort()
        cdx, idx = _compressed_index(lines)
        package.write_bytes("indexes/index.cdx.gz", cdx, deflate=False)
        package.write_bytes("indexes/index.idx", idx, deflate=True)
        pages = _pages(choice)
        title = options.title or f"Recrawl export of {project_dir.name}"
        _write_pages(package, pages, title, spool, stop)
        datapackage = _datapackage(package, options, title, created, choice)
        package.write_bytes("datapackage.json", datapackage, deflate=True, listed=False)
        digest = {
            "path": "datapackage.json",
            "hash": "sha256:" + hashlib.sha256(datapackage).hexdigest(),
        }
        package.write_bytes(
            "datapackage-digest.json",
            json.dumps(digest, indent=2).encode(),
            deflate=True,
            listed=False,
        )
    return _Written(len(pages), len(plans), total)


class _Counter:
    """Reports bytes copied, about a hundred times over the export, and asks ``stop``."""

    def __init__(self, total: int, captures: int, report: Progress, stop: Callable[[], bool]):
        self.total, self.done, self.captures_total, self.captures = total, 0, captures, 0
        self._report, self._stop = report, stop
        self._step = max(1, total // 100)
        self._last = -self._step
        report(ExportProgress(0, total, 0, captures))

    def add(self, count: int, captures: int) -> None:
        if self._stop():
            raise ExportStopped
        self.done += count
        self.captures += captures
        if self.done - self._last >= self._step or self.done == self.total:
            self._last = self.done
            self._report(ExportProgress(self.done, self.total, self.captures, self.captures_total))


@dataclass
class _WarcPlan:
    """One WARC of the package: a source WARC's warcinfo and chosen stretches."""

    name: str
    source: Source
    captures: list[Capture]

    @property
    def size(self) -> int:
        return self.source.warcinfo + sum(c.end - c.offset for c in self.captures)

    def copy(self, counter: _Counter, lines: list[str]) -> Iterator[bytes]:
        """The package WARC's bytes, in chunks; its index lines go to ``lines``."""
        source = self.source
        position = 0
        if source.warcinfo:
            yield source.read(0, source.warcinfo)
            position = source.warcinfo
            counter.add(source.warcinfo, 0)
        offsets: list[int] = []
        for run in runs(self.captures):
            for capture in run:
                offsets.append(position + capture.offset - run[0].offset)
            start, end = run[0].offset, run[-1].end
            position += end - start
            for at in range(start, end, CHUNK):
                data = source.read(at, min(CHUNK, end - at))
                yield data
                # a capture counts as copied once the last byte of its stretch is
                copied = sum(1 for c in run if at <= c.end - 1 < at + len(data))
                counter.add(len(data), copied)
        lines.extend(
            _relocated(c.line, offset, self.name)
            for c, offset in zip(self.captures, offsets, strict=True)
        )


def _relocated(line: str, offset: int, filename: str) -> str:
    """An index line for the record copied to ``offset`` of ``filename``, written as
    cdxj-indexer (py-wacz's indexer) writes one: length and offset as strings, JSON with
    its default escaping. A package's index is then what the WACZ tools make of its WARCs."""
    key, stamp, payload = line.split(" ", 2)
    fields = json.loads(payload)
    # our indexes say "-" for a revisit of a 304 (no HTTP block, no status) and "unk" for
    # a response without a Content-Type, where cdxj-indexer leaves the field out
    if fields.get("status") == "-":
        del fields["status"]
    if fields.get("mime") == "unk":
        del fields["mime"]
    fields.update(length=str(fields["length"]), offset=str(offset), filename=filename)
    return f"{key} {stamp} {json.dumps(fields)}"


def runs(captures: list[Capture]) -> Iterator[list[Capture]]:
    """Captures in file order, in runs of neighbours (each run copied as one stretch)."""
    run: list[Capture] = []
    for capture in captures:
        if run and run[-1].end != capture.offset:
            yield run
            run = []
        run.append(capture)
    if run:
        yield run


def plan_warcs(sources: list[Source], copied: set[Capture]) -> list[_WarcPlan]:
    plans = []
    taken: set[str] = set()
    for source in sources:
        captures = [c for c in source.captures if c in copied]
        if not captures:
            continue
        plans.append(_WarcPlan(_unique_name(source.path, taken), source, captures))
    return plans


def _unique_name(path: Path, taken: set[str]) -> str:
    """The source's own file name; a history file from before history files had names of
    their own (``history/<name>.warc.gz`` beside ``segments/<name>/<name>.warc.gz``) is
    renamed as they are now, ``<name>-history.warc.gz``."""
    name = path.name
    stem = name.removesuffix(".warc.gz")
    n = 1
    while name in taken:
        name = f"{stem}-history.warc.gz" if n == 1 else f"{stem}-history-{n}.warc.gz"
        n += 1
    taken.add(name)
    return name


def _compressed_index(lines: list[str]) -> tuple[bytes, bytes]:
    """``index.cdx.gz`` (blocks of lines, each its own gzip member) and ``index.idx``
    (each block's first key and stamp, offset, length and digest), as cdxj-indexer's
    CompressedWriter writes them for py-wacz."""
    data = io.BytesIO()
    idx = ["!meta 0 " + json.dumps({"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}) + "\n"]
    for start in range(0, len(lines), INDEX_BLOCK_LINES):
        block = lines[start : start + INDEX_BLOCK_LINES]
        compressor = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
        member = compressor.compress("".join(f"{line}\n" for line in block).encode("utf-8"))
        member += compressor.flush()
        prefix = block[0].split("{", 1)[0].strip()
        where = {
            "offset": data.tell(),
            "length": len(member),
            "digest": "sha256:" + hashlib.sha256(member).hexdigest(),
        }
        idx.append(f"{prefix} {json.dumps(where)}\n")
        data.write(member)
    return data.getvalue(), "".join(idx).encode("utf-8")


@dataclass(frozen=True)
class _Page:
    url: str
    stamp: str
    title: str | None
    #: The capture, and the response it shows (itself, or the one a revisit repeats).
    of: PageCapture


def _pages(choice: Choice) -> list[_Page]:
    """The chosen captures of HTML pages that answered 2xx (a revisit: its response's)."""
    pages = []
    for capture in choice.pages:
        shown = choice.targets.get(capture) if capture.revisit else capture
        if shown is None:
            continue
        status = capture.status if capture.status != "-" else shown.status
        if shown.mime not in HTML_TYPES or not status.startswith("2"):
            continue
        pages.append(PageCapture(capture, shown))
    latest: dict[str, str] = {}
    for page in pages:
        latest[page.capture.url] = max(latest.get(page.capture.url, ""), page.capture.stamp)
    # the store keeps the title of a page's latest HTML fetch: it names the latest capture
    titles = store.page_titles(latest)
    return [
        _Page(
            p.capture.url,
            p.capture.stamp,
            titles.get(p.capture.url) if latest[p.capture.url] == p.capture.stamp else None,
            p,
        )
        for p in pages
    ]


def _iso(stamp: str) -> str:
    """``20270101000000`` → ``2027-01-01T00:00:00Z``."""
    s = stamp
    return f"{s[0:4]}-{s[4:6]}-{s[6:8]}T{s[8:10]}:{s[10:12]}:{s[12:14]}Z"


def _write_pages(
    package: _Package, pages: list[_Page], title: str, spool: Path | None, stop: Callable[[], bool]
) -> None:
    """``pages/pages.jsonl``: a header, then an entry a page capture with its text (read
    :data:`PAGE_BATCH` at a time: an export of a million pages holds a batch's texts, not
    all of them), written to a temporary file first (its zip entry needs its size)."""
    # hasText: ReplayWeb.page searches the entries' text only when the header says so
    header = {"format": "json-pages-1.0", "id": "pages", "title": title, "hasText": True}
    with tempfile.TemporaryFile(dir=spool) as out:
        out.write(json.dumps(header, ensure_ascii=False).encode("utf-8") + b"\n")
        for start in range(0, len(pages), PAGE_BATCH):
            if stop():
                raise ExportStopped
            batch = pages[start : start + PAGE_BATCH]
            texts = page_texts([page.of for page in batch])
            out.write(b"".join(_page_line(p, t) for p, t in zip(batch, texts, strict=True)))
        size = out.tell()
        out.seek(0)
        package.write_stream(
            "pages/pages.jsonl", size, iter(lambda: out.read(CHUNK), b""), deflate=True
        )


def _page_line(page: _Page, document: SearchDocument | None) -> bytes:
    entry: dict[str, str] = {
        "id": hashlib.sha256(f"{page.stamp}/{page.url}".encode()).hexdigest()[:32],
        "url": page.url,
        "ts": _iso(page.stamp),
    }
    # the store's title names the page's latest capture; an older one has its own text's
    title = page.title or (document.title if document is not None else None)
    if title:
        entry["title"] = title
    if document is not None and document.text:
        entry["text"] = document.text
    return json.dumps(entry, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"


def _datapackage(
    package: _Package, options: ExportOptions, title: str, created: datetime, choice: Choice
) -> bytes:
    data: dict[str, Any] = {
        "profile": "data-package",
        "wacz_version": WACZ_VERSION,
        "title": title,
        "description": _description(options),
        "created": created.isoformat() + "Z",
        "software": f"Recrawl {__version__}",
        "resources": [
            {
                "name": os.path.basename(entry.path).lower(),
                "path": entry.path,
                "hash": f"sha256:{entry.sha256}",
                "bytes": entry.size,
            }
            for entry in package.entries
        ],
    }
    main = _main_page(choice, options)
    if main is not None:
        data["mainPageUrl"], data["mainPageDate"] = main.url, _iso(main.stamp)
    return json.dumps(data, indent=2).encode("utf-8")


def _description(options: ExportOptions) -> str:
    what = "each page's latest capture" if options.pages == LATEST else "every capture"
    if options.site:
        what += f" of {options.site}"
    if options.since:
        what += f" since {options.since.isoformat()}Z"
    return f"Captures exported from a Recrawl project: {what}."


def _main_page(choice: Choice, options: ExportOptions) -> Capture | None:
    """With --site, the site's home page (``/``) at its latest exported capture."""
    if not options.site:
        return None
    homes = [
        c
        for c in choice.chosen
        if (urlsplit(c.url).path or "/") == "/" and not urlsplit(c.url).query
    ]
    return max(homes, key=lambda c: c.stamp) if homes else None
