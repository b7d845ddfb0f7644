"""Segment files after crawls with a mix of real-world responses (docs/design.md §7):
every WARC passes `warcio check`, and every CDXJ is sorted and points at captures."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
import surt
from recrawl.core.engine import inject
from recrawl.core.store.models import Page, PageStatus, Segment

from tests.support.crawling import DAY, T0, clock_at, crawl, page, settings
from tests.support.httpserver import Reply
from tests.support.warcs import (
    cdxj_lines,
    read_warc,
    record_at,
    records_for,
    warc_files,
    warcio_check,
)

MiB = 1024 * 1024
HOME = b"""<html><body>
<a href="/gz">gz</a> <a href="/big">big</a> <a href="/nolen">nolen</a>
<a href="/redir">redir</a> <a href="/missing">missing</a> <a href="/err">err</a>
<a href="/chunked">chunked</a> <a href="/logo.png">png</a> <a href="/cond">cond</a>
<a href="/latin">latin</a>
</body></html>"""
CHUNKED_HTML = b"<html><body><p>sent in chunks</p></body></html>"


def _chunked(data: bytes, size: int = 16) -> bytes:
    out = b""
    for i in range(0, len(data), size):
        part = data[i : i + size]
        out += f"{len(part):x}\r\n".encode() + part + b"\r\n"
    return out + b"0\r\n\r\n"


def _cond(handler) -> Reply:
    if handler.headers.get("If-None-Match") == '"c1"':
        return Reply(304, b"", {"ETag": '"c1"'})
    return Reply(200, b"<p>conditional</p>", {"Content-Type": "text/html", "ETag": '"c1"'})


def mixed_site(server) -> None:
    server.routes["/"] = Reply(200, HOME, {"Content-Type": "text/html"})
    server.routes["/gz"] = Reply(
        200,
        gzip.compress(b"<p>zipped</p>" * 100, mtime=0),
        {"Content-Type": "text/html", "Content-Encoding": "gzip"},
    )
    server.routes["/big"] = Reply(200, b"<p>" + b"y" * (3 * MiB), {"Content-Type": "text/html"})
    server.routes["/nolen"] = Reply(
        200, b"<p>no length</p>" * 100, {"Content-Type": "text/html"}, no_length=True
    )
    server.routes["/redir"] = Reply(301, b"moved", {"Location": "/target"})
    server.html("/target", "<p>target</p>")
    server.routes["/err"] = Reply(500, b"boom")
    server.routes["/chunked"] = Reply(
        200,
        _chunked(CHUNKED_HTML),
        {"Content-Type": "text/html", "Transfer-Encoding": "chunked"},
        no_length=True,
    )
    server.routes["/logo.png"] = Reply(
        200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, {"Content-Type": "image/png"}
    )
    server.routes["/cond"] = _cond
    server.routes["/latin"] = Reply(
        200,
        "<p>caf\u00e9</p>".encode("latin-1"),
        {
            "Content-Type": "text/html; charset=iso-8859-1",
            "Content-Disposition": 'inline; filename="caf\u00e9.html"',
        },
    )


@pytest.fixture
def crawled(project, server):
    """Two crawls a month apart over the mixed site: responses, revisits, truncations."""
    mixed_site(server)
    inject([server.url("/")], T0)
    crawl(project, settings(max_body_bytes=MiB), clock=clock_at())
    crawl(project, settings(max_body_bytes=MiB), clock=clock_at(31 * DAY))
    return project


def test_mixed_crawl_produced_the_expected_record_kinds(crawled, server):
    path = crawled.path
    assert page(server.url("/cond")).status == PageStatus.NOTMODIFIED
    assert records_for(path, server.url("/cond"), "revisit")
    assert records_for(path, server.url("/"), "revisit")  # identical payload
    (big, big2) = records_for(path, server.url("/big"), "response")
    assert big.warc.get("WARC-Truncated") == "length"
    assert big2.warc.get("WARC-Truncated") == "length"
    (chunked,) = records_for(path, server.url("/chunked"), "response")
    # stored de-chunked, so the Transfer-Encoding header is renamed to stay truthful
    assert chunked.payload == CHUNKED_HTML
    assert chunked.header("Transfer-Encoding") is None
    assert chunked.header("X-Recrawl-Transfer-Encoding") == "chunked"
    assert page(server.url("/err")).status == PageStatus.RETRY


def test_every_warc_passes_warcio_check(crawled):
    files = warc_files(crawled.path)
    assert len(files) >= 3  # two rounds in the first crawl, one in the second
    result = warcio_check(*files)
    assert result.returncode == 0, f"{result.stdout}{result.stderr}"


def test_every_warc_is_indexable_by_warcio(crawled):
    exe = Path(sys.executable).parent / "warcio"
    for path in warc_files(crawled.path):
        result = subprocess.run(
            [str(exe), "index", str(path)], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.count("\n") == len(read_warc(path))


def test_segment_folders_hold_a_closed_warc_and_a_sorted_cdxj(crawled):
    segments = sorted(p for p in (crawled.path / "segments").iterdir())
    assert segments
    assert {p.name for p in segments} == {s.name for s in Segment.select()}
    for folder in segments:
        names = sorted(p.name for p in folder.iterdir())
        assert names == [f"{folder.name}.cdxj", f"{folder.name}.warc.gz"], names
        assert Segment.get(Segment.name == folder.name).state == "closed"
        raw = (folder / f"{folder.name}.cdxj").read_bytes()
        lines = raw.splitlines()
        assert lines and raw.endswith(b"\n")
        assert lines == sorted(lines)


def test_cdxj_lines_point_at_their_captures(crawled):
    for folder in sorted((crawled.path / "segments").iterdir()):
        warc = folder / f"{folder.name}.warc.gz"
        records = read_warc(warc)
        assert records[0].type == "warcinfo"
        captures = {r.offset: r for r in records if r.type in ("response", "revisit")}
        indexed = set()
        for key, stamp, fields in cdxj_lines(folder / f"{folder.name}.cdxj"):
            rec = record_at(warc, fields["offset"])
            assert rec.type in ("response", "revisit")
            assert fields["filename"] == warc.name
            assert fields["length"] == rec.length
            assert fields["url"] == rec.url
            # a 304's revisit has no HTTP block, so no status of its own
            assert str(rec.http_status or "-") == fields["status"]
            assert (
                rec.warc["WARC-Date"].replace("-", "").replace("T", "").replace(":", "")[:14]
                == stamp
            )
            # the standard key, as pywb looks it up and cdxj-indexer writes it
            assert key == surt.surt(rec.url) and key.startswith("1,0,0,127:")
            if rec.type == "revisit":
                assert fields["mime"] == "warc/revisit"
            indexed.add(fields["offset"])
        assert indexed == set(captures), "every capture is indexed exactly once"


def test_every_capture_has_its_request_record(crawled):
    for path in warc_files(crawled.path):
        records = read_warc(path)
        ids = {r.warc["WARC-Record-ID"]: r for r in records}
        requests = [r for r in records if r.type == "request"]
        captures = [r for r in records if r.type in ("response", "revisit")]
        assert len(requests) == len(captures)
        for req in requests:
            target = ids[req.warc["WARC-Concurrent-To"]]
            assert target.type in ("response", "revisit") and target.url == req.url


def test_page_pointers_resolve_to_their_records(crawled):
    for p in Page.select().where(Page.capture_file.is_null(False)):
        capture = record_at(crawled.path / p.capture_file, p.capture_offset)
        assert capture.url == p.url and capture.type in ("response", "revisit")
        assert capture.length == p.capture_length
        payload = record_at(crawled.path / p.payload_file, p.payload_offset)
        assert payload.type == "response" and payload.url == p.url
        assert payload.warc["WARC-Record-ID"] == p.payload_record_id
        if capture.type == "revisit":
            assert capture.warc["WARC-Refers-To"] == p.payload_record_id


def test_records_built_ahead_are_the_records_written_in_place(tmp_path):
    """The analysis processes build a response's records (Members); written, they are
    what the crawl's process writes itself, but for their ids."""
    from datetime import datetime

    from recrawl.core.archive.warc import payload_digest
    from recrawl.core.archive.warc_writer import RecordBuilder, RecordWriter
    from recrawl.core.net.http import HttpRequest, HttpResponse

    request = HttpRequest("GET", "/caf%C3%A9", "HTTP/1.1", [("Host", "example.org")])
    response = HttpResponse(
        "HTTP/1.1", 200, "OK", [("Content-Type", "text/html"), ("ETag", '"caf\xe9"')], b"<p>hi</p>"
    )
    at = datetime(2027, 1, 1, 12, 0, 0)
    url = "http://example.org/caf%C3%A9"
    paths = [tmp_path / "direct.warc.gz", tmp_path / "built.warc.gz"]
    with open(paths[0], "wb") as out:
        writer = RecordWriter(out, paths[0].name)
        written = writer.write_response(url, at, response, "length", "127.0.0.1")
        writer.write_request(url, at, request, concurrent_to=written.record_id)
    with open(paths[1], "wb") as out:
        members = RecordBuilder().response_members(
            url, at, request, response, "length", "127.0.0.1"
        )
        built = RecordWriter(out, paths[1].name).write_members(members)
    assert (built.offset, built.record_type) == (0, "response")
    assert built.length == len(members.response) and built.record_id == members.response_id
    direct, ahead = (read_warc(path) for path in paths)

    def comparable(records):
        ids = {"WARC-Record-ID", "WARC-Concurrent-To"}
        return [
            (
                r.type,
                r.url,
                r.http_status,
                r.http_headers,
                r.payload,
                sorted((k, v) for k, v in r.warc.items() if k not in ids),
            )
            for r in records
        ]

    assert comparable(direct) == comparable(ahead)
    assert ahead[1].warc["WARC-Concurrent-To"] == members.response_id
    # the digest the page and the index keep is the record's, and the body's as received
    assert members.payload_digest == ahead[0].warc["WARC-Payload-Digest"]
    assert members.payload_digest == payload_digest(response.body)
    warcio_check(paths[1])
