"""``recrawl show``: archived payloads decoded in bounded pieces, cut at the crawl's cap.

The pages come from a real server that sends decompression bombs (gzip, deflate,
gzip-in-gzip) and a corrupt gzip; the crawl archives them as received.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from recrawl.main import main
from tests.support.httpserver import Reply

MiB = 1 << 20
CRAWL_CAP = 10 * MiB  # FetchSettings.max_body_bytes


def zeros_gzip(size: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [packer.compress(bytes(MiB)) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


def zeros_deflate(size: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS)
    parts = [packer.compress(bytes(MiB)) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


BOMB = zeros_gzip(200 * MiB)  # 200 KiB on the wire


def encoded(body: bytes, encoding: str) -> Reply:
    return Reply(200, body, {"Content-Type": "text/html", "Content-Encoding": encoding})


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from tests.support.httpserver import TestServer

    server = TestServer().start()
    good = gzip.compress(b"<p>fine</p>" * 1000)
    server.routes.update(
        {
            "/": Reply(
                200,
                b"".join(
                    b'<a href="%s">x</a>' % p
                    for p in (b"/bomb", b"/deflate", b"/double", b"/corrupt", b"/fine", b"/br")
                ),
            ),
            "/bomb": encoded(BOMB, "gzip"),
            "/deflate": encoded(zeros_deflate(30 * MiB), "deflate"),
            "/double": encoded(gzip.compress(zeros_gzip(30 * MiB)), "gzip, gzip"),
            "/corrupt": encoded(good[:10] + b"\xff" + good[11:], "gzip"),  # a reserved block type
            "/fine": encoded(good, "gzip"),
            "/br": encoded(b"\x0b\x02\x80hello\x03", "br"),  # a coding the crawl never asks for
        }
    )
    d = tmp_path_factory.mktemp("show") / "p"
    try:
        assert main(["init", str(d)]) == 0
        assert main(["inject", str(d), server.url("/")]) == 0
        assert main(["crawl", str(d), "--delay", "0", "--json"]) == 0
        yield d, server
    finally:
        server.stop()


def show(d: Path, url: str, *flags: str, stdout: int | None = subprocess.PIPE):
    return subprocess.run(
        [sys.executable, "-m", "recrawl", "show", str(d), url, *flags],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[3],
    )


@pytest.mark.parametrize("path", ["/bomb", "/deflate", "/double"])
def test_a_bomb_is_shown_up_to_the_crawls_cap_and_the_cut_is_said(hostile, path):
    d, server = hostile
    result = show(d, server.url(path))
    assert result.returncode == 0
    assert result.stdout == bytes(CRAWL_CAP)
    err = result.stderr.decode()
    assert err.count("\n") == 1
    assert "longer than 10 MiB: cut there (--max-bytes SIZE shows more)" in err


def test_max_bytes_asks_for_more_or_less(hostile):
    d, server = hostile
    result = show(d, server.url("/bomb"), "--max-bytes", "1k")
    assert result.returncode == 0 and result.stdout == bytes(1024)
    assert "longer than 1 KiB" in result.stderr.decode()
    result = show(d, server.url("/deflate"), "--max-bytes", "1G")  # all of it: 30 MiB
    assert result.returncode == 0 and len(result.stdout) == 30 * MiB
    assert result.stderr == b""


# the peak resident memory of this process alone (getrusage's ru_maxrss may carry the
# parent's, from before exec)
PEAK = """
import re, sys
from recrawl.main import main
code = main(sys.argv[1:])
status = open("/proc/self/status").read()
print(code, re.search(r"VmHWM:\\s*(\\d+) kB", status).group(1), file=sys.stderr)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/self/status")
def test_showing_a_whole_bomb_streams_it(hostile, tmp_path):
    # 200 MiB printed: held whole (as before) the process would pass 200 MiB
    d, server = hostile
    out = tmp_path / "out"
    with open(out, "wb") as sink:
        result = subprocess.run(
            [sys.executable, "-c", PEAK, "show", str(d), server.url("/bomb"), "--max-bytes", "1G"],
            stdout=sink,
            stderr=subprocess.PIPE,
            text=True,
        )
    code, peak_kib = result.stderr.splitlines()[-1].split()
    assert code == "0" and out.stat().st_size == 200 * MiB
    assert int(peak_kib) < 150 * 1024, f"peak {int(peak_kib) >> 10} MiB"


def test_corrupt_gzip_is_an_error_and_raw_gives_the_archived_bytes(hostile):
    d, server = hostile
    result = show(d, server.url("/corrupt"))
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0]
    assert lines[0].startswith("recrawl: error: cannot decode the gzip body")
    assert "`recrawl show --raw` prints it as archived" in lines[0]
    raw = show(d, server.url("/corrupt"), "--raw")
    assert raw.returncode == 0 and raw.stdout == server.routes["/corrupt"].body
    fine = show(d, server.url("/fine"), "--raw")
    assert gzip.decompress(fine.stdout) == b"<p>fine</p>" * 1000
    assert show(d, server.url("/fine")).stdout == b"<p>fine</p>" * 1000


def test_a_coding_recrawl_cannot_undo_is_an_error_too(hostile):
    d, server = hostile
    result = show(d, server.url("/br"))
    assert result.returncode == 1 and result.stdout == b""
    assert result.stderr.decode() == (
        f"recrawl: error: unsupported Content-Encoding 'br' ({server.url('/br')}); "
        "`recrawl show --raw` prints it as archived\n"
    )
    assert show(d, server.url("/br"), "--raw").stdout == b"\x0b\x02\x80hello\x03"


def test_raw_and_max_bytes_exclude_each_other(hostile, capsys):
    d, server = hostile
    with pytest.raises(SystemExit):
        main(["show", str(d), server.url("/fine"), "--raw", "--max-bytes", "1M"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_the_crawl_recorded_the_bombs_as_cut(hostile, capsys):
    d, server = hostile
    assert main(["history", str(d), server.url("/bomb"), "--json"]) == 0
    (event,) = json.loads(capsys.readouterr().out)
    assert "decompression bomb" in event["error"]


# -- screenshots: a browser capture's PNG (core/archive/rendering.py) -------------------

#: Bytes a text stream would mangle (a NUL, a lone CR, every byte value).
PNG_FEB = b"\x89PNG\r\n\x1a\n" + b"february" + bytes(range(256))
PNG_MAR = b"\x89PNG\r\n\x1a\n" + b"march\r\x00" + bytes(range(255, -1, -1))


def browser_capture(d: Path, url: str, when: str, png: bytes | None) -> None:
    """A browser capture of ``url`` as the crawl keeps one: its response, then its DOM
    and screenshot, in a segment of its own; the page points at it."""
    from recrawl.core.archive.segment_writer import SegmentWriter
    from recrawl.core.archive.segments import allocate_name
    from recrawl.core.archive.warc import payload_digest
    from recrawl.core.clock import parse_iso
    from recrawl.core.net.http import HttpRequest, HttpResponse
    from recrawl.core.project import Project
    from recrawl.core.store.models import Page

    at = parse_iso(when)
    project = Project.open(d)
    try:
        name = allocate_name(d, at)
        writer = SegmentWriter(d, name, at)
        body = b"<html><body>Loading...</body></html>"
        written = writer.write_response(
            url,
            at,
            HttpRequest("GET", "/page", "HTTP/1.1", [("Host", "127.0.0.1")]),
            HttpResponse("HTTP/1.1", 200, "OK", [("Content-Type", "text/html")], body),
            digest=payload_digest(body),
            mime="text/html",
        )
        dom = b"<html><body><h1>The stories, as built by the page's script</h1></body></html>"
        writer.write_rendering(url, at, written.record_id, dom, png)
        writer.close(at, writer.flush())
        Page.update(segment=name, capture_file=writer.relpath, capture_offset=written.offset).where(
            Page.url == url
        ).execute()
    finally:
        project.close()


@pytest.fixture
def rendered(tmp_path, server):
    """A page fetched over HTTP in January, then captured in a browser in February (with
    a screenshot), in March (another), and in April (with screenshots off)."""
    server.html("/page", "<p>Loading...</p>")
    d = tmp_path / "p"
    assert main(["init", str(d)]) == 0
    assert main(["inject", str(d), server.url("/page")]) == 0
    assert main(["crawl", str(d), "--delay", "0", "--now", "2027-01-01T00:00:00Z"]) == 0
    browser_capture(d, server.url("/page"), "2027-02-01T00:00:00Z", PNG_FEB)
    browser_capture(d, server.url("/page"), "2027-03-01T00:00:00Z", PNG_MAR)
    return d, server.url("/page")


def test_screenshot_writes_the_latest_captures_png_and_at_an_older_one(rendered):
    d, url = rendered
    latest = show(d, url, "--screenshot")
    assert (latest.returncode, latest.stdout, latest.stderr) == (0, PNG_MAR, b"")
    feb = show(d, url, "--screenshot", "--at", "2027-02-20T00:00:00Z")
    assert (feb.returncode, feb.stdout) == (0, PNG_FEB)
    exact = show(d, url, "--screenshot", "--at", "2027-03-01T00:00:00Z")  # at: included
    assert exact.stdout == PNG_MAR


def test_a_capture_without_a_screenshot_is_one_line_and_exit_1(rendered):
    d, url = rendered
    january = show(d, url, "--screenshot", "--at", "2027-01-15T00:00:00Z")
    assert january.returncode == 1 and january.stdout == b""
    assert january.stderr.decode() == (
        f"recrawl: error: the capture of 2027-01-01T00:00:00Z of {url} has no screenshot: "
        "it was fetched over HTTP (a site in capture.mode browser has one per capture)\n"
    )
    before = show(d, url, "--screenshot", "--at", "2026-06-01T00:00:00Z")
    assert before.returncode == 1 and before.stderr.decode().count("\n") == 1
    assert "no capture of" in before.stderr.decode()
    browser_capture(d, url, "2027-04-01T00:00:00Z", None)  # screenshots off
    april = show(d, url, "--screenshot")
    assert april.returncode == 1 and april.stdout == b""
    assert april.stderr.decode() == (
        f"recrawl: error: the latest capture of {url} has no screenshot: it was captured "
        "in a browser with capture.screenshots off\n"
    )


def test_screenshot_and_raw_exclude_each_other(rendered):
    d, url = rendered
    result = show(d, url, "--screenshot", "--raw")
    assert result.returncode == 2 and b"not allowed with argument" in result.stderr
