"""The captures the indexes list, read with their WARCs held open, and those an export chooses
(with the responses its revisits stand for): see :mod:`recrawl.core.archive.wacz`."""

from __future__ import annotations

import bisect
import contextlib
import io
import json
import os
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from recrawl.core import store
from recrawl.core.archive.captures import REVISIT_MIME
from recrawl.core.archive.index_keys import needs_rekey
from recrawl.core.archive.replay import capture_stamp
from recrawl.core.archive.segments import index_files
from recrawl.core.archive.wacz.options import (
    ATTEMPTS,
    LATEST,
    ExportOptions,
    ExportStopped,
    never,
)
from recrawl.core.config import EmbedSettings
from recrawl.core.errors import MissingFile, ProjectError, WarcError
from warcio.archiveiterator import ArchiveIterator

# -- what the indexes say ----------------------------------------------------------------


@dataclass(eq=False)
class Capture:
    """One index line of a source WARC, and the stretch of bytes that goes with it."""

    line: str
    url: str
    stamp: str
    mime: str
    status: str
    digest: str
    warc: Source
    offset: int
    length: int
    end: int = 0  # where the next capture of the WARC starts (or the WARC ends)

    @property
    def revisit(self) -> bool:
        return self.mime == REVISIT_MIME


@dataclass(eq=False)
class Source:
    """A source WARC: opened when first read, then held open for the rest of the export
    (see :func:`take_snapshot`); one never read is never opened."""

    path: Path
    size: int
    captures: list[Capture] = field(default_factory=list)
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
class Snapshot:
    sources: list[Source]
    open_segments: list[str]
    choice: Choice
    #: Some indexes may still carry an older Recrawl's keys (:mod:`.index_keys`).
    old_keys: bool = False

    def close(self) -> None:
        for source in self.sources:
            source.close()


def _store_state() -> tuple[set[str], bool]:
    """The segments the store knows, and whether a compaction is between commit and end."""
    committing = any(job.state == "committed" for job in store.unfinished_compactions())
    return store.segment_names(), committing


def take_snapshot(
    project_dir: Path, options: ExportOptions, stop: Callable[[], bool] = never
) -> Snapshot:
    """The indexes read, the captures chosen, and every WARC they are copied from open;
    ``stop`` is asked between index files and while waiting for a compaction."""
    for attempt in range(ATTEMPTS):
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


def _read_indexes(project_dir: Path, options: ExportOptions, stop: Callable[[], bool]) -> Snapshot:
    sources: list[Source] = []
    # read before the indexes: the setting says "surt" only once every index has them
    old_keys = needs_rekey()
    try:
        for index in index_files(project_dir):
            if stop():  # a big project's indexes take a while: Cancel works meanwhile
                raise ExportStopped
            sources.extend(_read_index(index))
        open_names = sorted(s.name for s in store.open_segments())
        choice = choose(sources, options)
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
    return Snapshot(sources, open_names, choice, old_keys)


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


def _read_index(index: Path) -> Iterator[Source]:
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


def _source(path: Path, entries: list[tuple[str, dict[str, Any]]]) -> Source:
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
    source = Source(path, size, warcinfo=_warcinfo_length(head))
    for line, url, stamp, mime, status, digest, offset, length in captures:
        source.captures.append(
            Capture(line, url, stamp, mime, status, digest, source, offset, length)
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
class Choice:
    chosen: list[Capture]
    #: Every capture to copy: the chosen ones and the responses their revisits need.
    copied: set[Capture]
    #: A chosen revisit's response (None: not in the project).
    targets: dict[Capture, Capture | None]
    #: The chosen captures that are pages' (not what pages embed): pages.jsonl's.
    pages: list[Capture] = field(default_factory=list)


def choose(sources: list[Source], options: ExportOptions) -> Choice:
    """The captures the options ask for, with what each chosen page embeds (docs/design.md
    §14): of each of its embeds, the capture nearest in time to the page's, wherever it
    is hosted and whenever it was fetched (an embed not due is not fetched again)."""
    everything = [c for source in sources for c in source.captures]
    of_site = _site_filter(options.site) if options.site else None
    since = capture_stamp(options.since) if options.since else None
    embeds = store.embeds_among({c.url for c in everything})
    chosen = [
        c
        for c in everything
        if c.url not in embeds
        and (of_site is None or of_site(c.url))
        and (since is None or c.stamp >= since)
    ]
    order = {id(source): n for n, source in enumerate(sources)}

    def when(c: Capture) -> tuple[str, int, int]:
        return (c.stamp, order[id(c.warc)], c.offset)

    if options.pages == LATEST:
        latest: dict[str, Capture] = {}
        for capture in chosen:
            held = latest.get(capture.url)
            if held is None or when(capture) > when(held):
                latest[capture.url] = capture
        chosen = list(latest.values())
    pages = sorted(chosen, key=lambda c: (c.url, when(c)))
    chosen = pages + _embedded(pages, everything, when)
    chosen.sort(key=lambda c: (c.url, when(c)))
    responses: dict[str, list[Capture]] = {}
    for capture in everything:
        if not capture.revisit:
            responses.setdefault(capture.url, []).append(capture)
    for found in responses.values():
        found.sort(key=when)
    targets = {c: _target(c, responses) for c in chosen if c.revisit}
    copied = set(chosen) | {t for t in targets.values() if t is not None}
    return Choice(chosen, copied, targets, pages)


def _embedded(
    pages: list[Capture],
    everything: list[Capture],
    when: Callable[[Capture], tuple[str, int, int]],
) -> list[Capture]:
    """Of each embed of each page capture, its capture nearest in time (the earlier of
    two as near), each once and none of ``pages``. What a page embeds may be a page too
    (a frame's document is a link as well; on a host in scope it is crawled as a page):
    it comes along all the same, wherever it is hosted and whatever the options chose."""
    # each capture's embeds as they were then (a page that moved to a new stylesheet
    # gets the old one with its older captures), and of those, their embeds then
    taken_at = {id(c): datetime.strptime(c.stamp, "%Y%m%d%H%M%S") for c in pages}
    trees = store.embed_trees(
        # embeds of embeds as deep as a crawl fetches them by default
        [(c.url, taken_at[id(c)]) for c in pages],
        EmbedSettings().max_hops,
    )
    wanted = {url for tree in trees.values() for url in tree}
    by_url: dict[str, tuple[list[float], list[Capture]]] = {}
    for capture in sorted((c for c in everything if c.url in wanted), key=when):
        instants, captures = by_url.setdefault(capture.url, ([], []))
        instants.append(_seconds(capture.stamp))
        captures.append(capture)
    taken: dict[int, Capture] = {}
    for page in pages:
        instant = _seconds(page.stamp)
        for url in trees.get((page.url, taken_at[id(page)]), ()):
            found = by_url.get(url)
            if found is None:
                continue
            instants, captures = found
            at = bisect.bisect_left(instants, instant)
            near = [i for i in (at - 1, at) if 0 <= i < len(captures)]
            best = min(near, key=lambda i: (abs(instants[i] - instant), i))
            taken[id(captures[best])] = captures[best]
    chosen = {id(c) for c in pages}  # a frame's document of the same site, say
    return [capture for key, capture in taken.items() if key not in chosen]


def _seconds(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC).timestamp()


def _target(revisit: Capture, responses: dict[str, list[Capture]]) -> Capture | None:
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
        stamp = capture_stamp(instant)
        for candidate in candidates:
            if candidate.stamp == stamp:
                return candidate
    for candidate in reversed(candidates):
        if digest and candidate.digest == digest and candidate.stamp <= revisit.stamp:
            return candidate
    return None


def _record_headers(capture: Capture) -> dict[str, str]:
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
