"""WACZ export (DESIGN.md §13): chosen captures, and what they need, as one WACZ 1.1.1 file.

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

from __future__ import annotations

import contextlib
import glob
import hashlib
import io
import json
import os
import secrets
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any, BinaryIO
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.index_keys import needs_rekey, rekeyed_line
from recrawl.core.archive.segments import index_files
from recrawl.core.archive.warc import fsync_dir
from recrawl.core.clock import utcnow
from recrawl.core.errors import (
    InvalidArgument,
    MissingFile,
    NotFound,
    ProjectError,
    RecrawlError,
    WarcError,
)
from warcio.archiveiterator import ArchiveIterator

from recrawl import __version__

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

WACZ_VERSION = "1.1.1"
LATEST, ALL = "latest", "all"
PAGE_CHOICES = (LATEST, ALL)
REVISIT_MIME = "warc/revisit"
HTML_TYPES = ("text/html", "application/xhtml+xml")
#: Lines per compressed block of ``index.cdx.gz`` (py-wacz's choice, ArchiveWeb.page's).
INDEX_BLOCK_LINES = 1024
#: Bytes read and written at a time while copying records.
CHUNK = 1 << 20
#: How often the snapshot is taken again when compactions keep moving records.
_ATTEMPTS = 8
PART_SUFFIX = ".part"


class ExportStopped(RecrawlError):
    """Asked to stop: the partial file is gone, and an existing OUT is untouched."""

    def __init__(self) -> None:
        super().__init__("the export stopped; no file was written")


@dataclass(frozen=True)
class ExportOptions:
    #: Only captures of pages on this host (as the Sites list names hosts; with a port,
    #: only that port's; a URL names its host and port).
    site: str | None = None
    #: Only captures at or after this instant (naive UTC).
    since: datetime | None = None
    #: ``latest``: each page's latest capture; ``all``: every capture.
    pages: str = LATEST
    #: The package's title (default: the project folder's name).
    title: str | None = None


@dataclass(frozen=True)
class ExportProgress:
    """Bytes of WARC records copied of those planned, and captures copied of those planned."""

    done: int
    total: int
    captures_done: int
    captures_total: int


@dataclass(frozen=True)
class ExportSummary:
    path: Path
    #: The package's size in bytes.
    bytes: int
    #: Captures in the package: those chosen, and the responses their revisits need.
    captures: int
    chosen: int
    #: Responses added because a chosen revisit refers to them.
    revisit_targets: int
    #: Revisits whose response is nowhere in the project (they will not replay).
    unresolved_revisits: int
    #: Entries of pages/pages.jsonl (the chosen HTML captures).
    pages: int
    warcs: int
    #: Bytes of WARC records copied.
    warc_bytes: int
    #: Segments still being written by a round (no index yet): left out.
    open_segments: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "bytes": self.bytes,
            "captures": self.captures,
            "chosen": self.chosen,
            "revisit_targets": self.revisit_targets,
            "unresolved_revisits": self.unresolved_revisits,
            "pages": self.pages,
            "warcs": self.warcs,
            "warc_bytes": self.warc_bytes,
            "open_segments": self.open_segments,
            "elapsed_s": round(self.elapsed_s, 3),
        }


Progress = Callable[[ExportProgress], None]


def _never() -> bool:
    return False


def _quiet(_: ExportProgress) -> None:
    pass


# -- what the indexes say ----------------------------------------------------------------


@dataclass(eq=False)
class _Capture:
    """One index line of a source WARC, and the stretch of bytes that goes with it."""

    line: str
    url: str
    stamp: str
    mime: str
    status: str
    digest: str
    warc: _Source
    offset: int
    length: int
    end: int = 0  # where the next capture of the WARC starts (or the WARC ends)

    @property
    def revisit(self) -> bool:
        return self.mime == REVISIT_MIME


@dataclass(eq=False)
class _Source:
    """A source WARC: opened when first read, then held open for the rest of the export
    (see :func:`_snapshot`); one never read is never opened."""

    path: Path
    size: int
    captures: list[_Capture] = field(default_factory=list)
    warcinfo: int = 0  # bytes of its leading warcinfo record (0: none)
    fh: BinaryIO | None = None

    def open(self) -> BinaryIO:
        if self.fh is None:
            self.fh = open(self.path, "rb")  # noqa: SIM115 - closed by close()
        return self.fh

    def read(self, offset: int, length: int) -> bytes:
        fh = self.open()
        try:
            fh.seek(offset)
            data = fh.read(length)
        except OSError as exc:  # told apart from the package's writes (export_wacz)
            raise WarcError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        if len(data) != length:
            raise ProjectError(f"{self.path} ends before its index says it does")
        return data

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
            self.fh = None


@dataclass
class _Snapshot:
    sources: list[_Source]
    open_segments: list[str]
    choice: _Choice
    #: Some indexes may still carry an older Recrawl's keys (:mod:`.index_keys`).
    old_keys: bool = False

    def close(self) -> None:
        for source in self.sources:
            source.close()


def _store_state() -> tuple[set[str], bool]:
    """The segments the store knows, and whether a compaction is between commit and end."""
    committing = any(job.state == "committed" for job in store.unfinished_compactions())
    return store.segment_names(), committing


def _snapshot(
    project_dir: Path, options: ExportOptions, stop: Callable[[], bool] = _never
) -> _Snapshot:
    """The indexes read, the captures chosen, and every WARC they are copied from open;
    ``stop`` is asked between index files and while waiting for a compaction."""
    for attempt in range(_ATTEMPTS):
        before, committing = _store_state()
        if not committing:
            try:
                snapshot = _read_indexes(project_dir, options, stop)
            except FileNotFoundError as exc:
                after, committing = _store_state()
                if not committing and after == before:  # no compaction took it: it is lost
                    raise MissingFile(
                        f"{exc.filename} is missing, though an index lists captures in it"
                    ) from None
            else:
                after, committing = _store_state()
                if not committing and before <= after:
                    return snapshot
                snapshot.close()
        _wait(0.05 * 2**attempt, stop)  # the compaction renames and deletes
    raise ProjectError(
        "the project's segments kept changing while the export read them (compactions?); try again"
    )


def _wait(seconds: float, stop: Callable[[], bool]) -> None:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if stop():
            raise ExportStopped
        time.sleep(min(left, 0.05))


def _read_indexes(project_dir: Path, options: ExportOptions, stop: Callable[[], bool]) -> _Snapshot:
    sources: list[_Source] = []
    # read before the indexes: the setting says "surt" only once every index has them
    old_keys = needs_rekey()
    try:
        for index in index_files(project_dir):
            if stop():  # a big project's indexes take a while: Cancel works meanwhile
                raise ExportStopped
            sources.extend(_read_index(index))
        open_names = sorted(s.name for s in store.open_segments())
        choice = _choose(sources, options)
        # open now what will be copied: a compaction deleting a WARC later cannot take
        # it from the export (an open file stays readable); the rest stay closed, so a
        # project of thousands of segments exporting one site opens only that site's
        needed = [s for s in sources if any(c in choice.copied for c in s.captures)]
        _allow_open_files(len(needed))
        for source in needed:
            source.open()
    except BaseException:
        for source in sources:
            source.close()
        raise
    return _Snapshot(sources, open_names, choice, old_keys)


def _allow_open_files(count: int) -> None:
    """Room for ``count`` more open files: the soft limit raised toward the hard one
    (1024 is a common soft limit; a long watch can leave more segments than that)."""
    try:
        import resource
    except ImportError:  # Windows: its C runtime allows thousands already
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # besides the WARCs: what is open now, and a few more while copying (the package, the
    # database's journal); spare room is asked for, but only the need is refused
    needed = _files_open() + count + 16
    if soft == resource.RLIM_INFINITY or needed <= soft:
        return
    too_many = ProjectError(
        f"the export copies from {count} WARC files, {needed} files open at once with its "
        "own, more than this system lets a process open "
        f"({soft if hard == resource.RLIM_INFINITY else hard}); compact the "
        "project first (recrawl compact) or raise the limit (ulimit -n)"
    )
    if hard != resource.RLIM_INFINITY and needed > hard:
        raise too_many
    wanted = needed + 240 if hard == resource.RLIM_INFINITY else min(needed + 240, hard)
    for limit in (wanted, needed):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
            return
        except (ValueError, OSError):  # macOS caps it below an unlimited hard limit
            continue
    raise too_many


def _files_open() -> int:
    """How many files this process has open (Linux, macOS); else a guess."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        with contextlib.suppress(OSError):
            return len(os.listdir(folder))
    return 64


def _read_index(index: Path) -> Iterator[_Source]:
    by_file: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    with open(index, encoding="utf-8", newline="\n") as text:
        for line in text:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            fields = json.loads(line.split(" ", 2)[2])
            by_file.setdefault(fields["filename"], []).append((line, fields))
    for filename, entries in by_file.items():
        yield _source(index.parent / filename, entries)


def _source(path: Path, entries: list[tuple[str, dict[str, Any]]]) -> _Source:
    captures = []
    for line, fields in entries:
        stamp = line.split(" ", 2)[1]
        captures.append(
            (
                line,
                fields.get("url", ""),
                stamp,
                fields.get("mime", ""),
                str(fields.get("status", "-")),
                fields.get("digest", ""),
                int(fields["offset"]),
                int(fields["length"]),
            )
        )
    captures.sort(key=lambda c: c[6])
    first = captures[0][6] if captures else None
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(size if first is None else first)
    source = _Source(path, size, warcinfo=_warcinfo_length(head))
    for line, url, stamp, mime, status, digest, offset, length in captures:
        source.captures.append(
            _Capture(line, url, stamp, mime, status, digest, source, offset, length)
        )
    ends = [c.offset for c in source.captures[1:]] + [source.size]
    for capture, end in zip(source.captures, ends, strict=True):
        capture.end = end
    return source


def _warcinfo_length(head: bytes) -> int:
    """The length of the warcinfo record heading a WARC (``head``: its bytes up to its
    first capture); 0 when it has none."""
    if not head:
        return 0
    iterator = ArchiveIterator(io.BytesIO(head))
    for record in iterator:
        if record.rec_type != "warcinfo":
            return 0
        iterator.read_to_end()
        return int(iterator.get_record_length())
    return 0


# -- choosing ------------------------------------------------------------------------------


def _stamp_of(instant: datetime) -> str:
    return instant.strftime("%Y%m%d%H%M%S")


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _site_filter(site: str) -> Callable[[str], bool]:
    """Whether a URL is of ``site``: a host as the Sites list names it, or as an address
    bar shows it, with a port (then only that port's pages) or as a URL."""
    parts = urlsplit(site if "://" in site else f"//{site}")
    host = (parts.hostname or "").strip(".")
    try:
        port = parts.port
    except ValueError:  # not a port: no URL's either
        return lambda _: False

    def of_site(url: str) -> bool:
        found = urlsplit(url)
        if (found.hostname or "").strip(".") != host:
            return False
        return port is None or (found.port or _DEFAULT_PORTS.get(found.scheme)) == port

    return of_site


@dataclass
class _Choice:
    chosen: list[_Capture]
    #: Every capture to copy: the chosen ones and the responses their revisits need.
    copied: set[_Capture]
    #: A chosen revisit's response (None: not in the project).
    targets: dict[_Capture, _Capture | None]


def _choose(sources: list[_Source], options: ExportOptions) -> _Choice:
    everything = [c for source in sources for c in source.captures]
    of_site = _site_filter(options.site) if options.site else None
    since = _stamp_of(options.since) if options.since else None
    chosen = [
        c
        for c in everything
        if (of_site is None or of_site(c.url)) and (since is None or c.stamp >= since)
    ]
    order = {id(source): n for n, source in enumerate(sources)}

    def when(c: _Capture) -> tuple[str, int, int]:
        return (c.stamp, order[id(c.warc)], c.offset)

    if options.pages == LATEST:
        latest: dict[str, _Capture] = {}
        for capture in chosen:
            held = latest.get(capture.url)
            if held is None or when(capture) > when(held):
                latest[capture.url] = capture
        chosen = list(latest.values())
    chosen.sort(key=lambda c: (c.url, when(c)))
    responses: dict[str, list[_Capture]] = {}
    for capture in everything:
        if not capture.revisit:
            responses.setdefault(capture.url, []).append(capture)
    for found in responses.values():
        found.sort(key=when)
    targets = {c: _target(c, responses) for c in chosen if c.revisit}
    copied = set(chosen) | {t for t in targets.values() if t is not None}
    return _Choice(chosen, copied, targets)


def _target(revisit: _Capture, responses: dict[str, list[_Capture]]) -> _Capture | None:
    """The response a revisit stands for: its WARC-Refers-To-Target-URI at its
    WARC-Refers-To-Date, else (a tool that wrote no date) the latest one before it with
    the same payload digest (as :func:`recrawl.core.archive.captures.capture_payload`)."""
    headers = _record_headers(revisit)
    target = headers.get("WARC-Refers-To-Target-URI", revisit.url)
    refers = headers.get("WARC-Refers-To-Date", "")
    digest = headers.get("WARC-Payload-Digest", revisit.digest)
    candidates = responses.get(target, [])
    if refers:
        instant = datetime.fromisoformat(refers.replace("Z", "+00:00"))
        stamp = instant.strftime("%Y%m%d%H%M%S")
        for candidate in candidates:
            if candidate.stamp == stamp:
                return candidate
    for candidate in reversed(candidates):
        if digest and candidate.digest == digest and candidate.stamp <= revisit.stamp:
            return candidate
    return None


def _record_headers(capture: _Capture) -> dict[str, str]:
    """A revisit's WARC headers, read without warcio (a revisit is a few hundred bytes:
    parsing its HTTP headers too cost more than copying an export's records)."""
    member = capture.warc.read(capture.offset, capture.length)
    try:
        record = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(member)
    except zlib.error:
        record = member  # an uncompressed WARC
    head = record.split(b"\r\n\r\n", 1)[0].decode("utf-8", "replace")
    headers = {}
    for line in head.split("\r\n")[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip()] = value.strip()
    return headers


# -- writing -------------------------------------------------------------------------------


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

    def write_stream(self, path: str, size: int, chunks: Iterable[bytes | memoryview]) -> None:
        """An entry of ``size`` bytes stored as it is (a WARC may pass 4 GB)."""
        with self._open(path, size, deflate=False) as out:
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


def export_wacz(
    project_dir: Path,
    out: Path,
    options: ExportOptions | None = None,
    *,
    progress: Progress | None = None,
    stop: Callable[[], bool] = _never,
) -> ExportSummary:
    """Write the captures ``options`` choose to the WACZ file ``out``; see the module doc.

    ``progress`` hears of the copy (bytes and captures, about a hundred times); ``stop``
    is asked as it goes: yes stops it (:class:`ExportStopped`) with no file written.
    Raises :class:`NotFound` when nothing matches, :class:`InvalidArgument` for an
    ``out`` that cannot be written.
    """
    options = options or ExportOptions()
    report = progress or _quiet
    if options.pages not in PAGE_CHOICES:
        raise InvalidArgument(f"--pages must be one of {', '.join(PAGE_CHOICES)}")
    started = time.perf_counter()
    out = Path(out).absolute()
    _check_output(out, project_dir)
    snapshot = _snapshot(project_dir, options, stop)
    try:
        choice = snapshot.choice
        if not choice.chosen:
            raise NotFound(_nothing(options, snapshot))
        if stop():
            raise ExportStopped
        part, fh = _new_part(out)
        try:
            _remove_dead_parts(out, part)
            with fh:
                summary = _write(fh, snapshot, choice, options, project_dir, report, stop)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(part, out)
        except OSError as exc:  # the disk full, most likely: reads raise WarcError
            part.unlink(missing_ok=True)
            raise InvalidArgument(
                f"cannot write {out}: {exc.strerror or exc}; no file was written"
            ) from None
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        fsync_dir(out.parent)
    finally:
        snapshot.close()
    return ExportSummary(
        path=out,
        bytes=out.stat().st_size,
        captures=len(choice.copied),
        chosen=len(choice.chosen),
        revisit_targets=len(choice.copied) - len(choice.chosen),
        unresolved_revisits=sum(1 for t in choice.targets.values() if t is None),
        pages=summary.pages,
        warcs=summary.warcs,
        warc_bytes=summary.warc_bytes,
        open_segments=snapshot.open_segments,
        elapsed_s=time.perf_counter() - started,
    )


def _new_part(out: Path) -> tuple[Path, BinaryIO]:
    """A part file of this export's own beside ``out``, locked while it is written.

    A name of its own, created afresh: another export to the same OUT meanwhile (the
    app's and a command's) would otherwise write into this one's file. The lock tells a
    later export this one is alive (:func:`_remove_dead_parts`); a part removed by one
    between its creation and its lock is made again.
    """
    while True:
        part = out.with_name(f"{out.name}.{secrets.token_hex(4)}{PART_SUFFIX}")
        try:
            fh = open(part, "xb")  # noqa: SIM115 - closed by export_wacz, removed on failure
        except OSError as exc:
            raise InvalidArgument(f"cannot write {part}: {exc.strerror or exc}") from None
        if fcntl is None:
            return part, fh
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        if os.fstat(fh.fileno()).st_nlink:
            return part, fh
        fh.close()


def _remove_dead_parts(out: Path, ours: Path) -> None:
    """Remove what exports to ``out`` killed mid-copy (kill -9, a power cut) left: part
    files no live export holds locked. Without locks (Windows) they stay."""
    if fcntl is None:
        return
    for part in out.parent.glob(f"{glob.escape(out.name)}.*{PART_SUFFIX}"):
        if part == ours:
            continue
        try:
            with open(part, "rb") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                part.unlink()  # under its lock: its export, if any, is gone
        except OSError:  # held by a live export, or gone already
            continue


def _check_output(out: Path, project_dir: Path) -> None:
    if out.is_dir():
        raise InvalidArgument(f"{out} is a folder; give a file name such as {out / 'export.wacz'}")
    if not out.parent.is_dir():
        raise InvalidArgument(f"no folder {out.parent} to write {out.name} in")
    if not os.access(out.parent, os.W_OK):
        raise InvalidArgument(f"cannot write in {out.parent} (permission denied)")
    try:
        inside = out.resolve().relative_to(Path(project_dir).resolve())
    except ValueError:
        return
    # os.replace would put the package in place of a WARC, an index or the store (and a
    # compaction deletes what lies in a segment's folder): only a .wacz of its own
    # directly in the project folder is safe there
    if len(inside.parts) != 1 or inside.suffix.lower() != ".wacz":
        raise InvalidArgument(
            f"{out} is inside the project folder {project_dir}: write the package outside "
            "it (or as a .wacz file directly in it)"
        )


def _nothing(options: ExportOptions, snapshot: _Snapshot) -> str:
    if not any(source.captures for source in snapshot.sources):
        text = "nothing to export: the project has no indexed captures yet"
    else:
        limits = []
        if options.site:
            limits.append(f"of site {options.site}")
        if options.since:
            limits.append(f"at or after {options.since.isoformat()}Z")
        text = "nothing to export: no captures " + " ".join(limits)
    if snapshot.open_segments:
        text += " (a round still writing is left out until it ends)"
    return text


@dataclass(frozen=True)
class _Written:
    pages: int
    warcs: int
    warc_bytes: int


def _write(
    fh: BinaryIO,
    snapshot: _Snapshot,
    choice: _Choice,
    options: ExportOptions,
    project_dir: Path,
    report: Progress,
    stop: Callable[[], bool],
) -> _Written:
    created = utcnow().replace(microsecond=0)
    package = _Package(fh, created)
    # the zip is closed however this ends: a zip object left open writes its directory
    # to the (by then closed and deleted) file when collected
    with package.zip:
        plans = _plan(snapshot.sources, choice.copied)
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
        package.write_bytes("pages/pages.jsonl", _pages_jsonl(pages, title), deflate=True)
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
    source: _Source
    captures: list[_Capture]

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
        for run in _runs(self.captures):
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


def _runs(captures: list[_Capture]) -> Iterator[list[_Capture]]:
    """Captures in file order, in runs of neighbours (each run copied as one stretch)."""
    run: list[_Capture] = []
    for capture in captures:
        if run and run[-1].end != capture.offset:
            yield run
            run = []
        run.append(capture)
    if run:
        yield run


def _plan(sources: list[_Source], copied: set[_Capture]) -> list[_WarcPlan]:
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


def _pages(choice: _Choice) -> list[_Page]:
    """The chosen captures of HTML pages that answered 2xx (a revisit: its response's)."""
    pages = []
    for capture in choice.chosen:
        shown = choice.targets.get(capture) if capture.revisit else capture
        if shown is None:
            continue
        status = capture.status if capture.status != "-" else shown.status
        if shown.mime not in HTML_TYPES or not status.startswith("2"):
            continue
        pages.append(capture)
    latest: dict[str, str] = {}
    for capture in pages:
        latest[capture.url] = max(latest.get(capture.url, ""), capture.stamp)
    # the store keeps the title of a page's latest HTML fetch: it names the latest capture
    titles = store.page_titles(latest)
    return [
        _Page(c.url, c.stamp, titles.get(c.url) if latest[c.url] == c.stamp else None)
        for c in pages
    ]


def _iso(stamp: str) -> str:
    """``20270101000000`` → ``2027-01-01T00:00:00Z``."""
    s = stamp
    return f"{s[0:4]}-{s[4:6]}-{s[6:8]}T{s[8:10]}:{s[10:12]}:{s[12:14]}Z"


def _pages_jsonl(pages: list[_Page], title: str) -> bytes:
    lines = [json.dumps({"format": "json-pages-1.0", "id": "pages", "title": title})]
    for page in pages:
        entry: dict[str, str] = {
            "id": hashlib.sha256(f"{page.stamp}/{page.url}".encode()).hexdigest()[:32],
            "url": page.url,
            "ts": _iso(page.stamp),
        }
        if page.title:
            entry["title"] = page.title
        lines.append(json.dumps(entry, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")


def _datapackage(
    package: _Package, options: ExportOptions, title: str, created: datetime, choice: _Choice
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


def _main_page(choice: _Choice, options: ExportOptions) -> _Capture | None:
    """With --site, the site's home page (``/``) at its latest exported capture."""
    if not options.site:
        return None
    homes = [
        c
        for c in choice.chosen
        if (urlsplit(c.url).path or "/") == "/" and not urlsplit(c.url).query
    ]
    return max(homes, key=lambda c: c.stamp) if homes else None
