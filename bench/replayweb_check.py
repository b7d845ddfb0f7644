"""Manual check: do the WACZ packages `recrawl export` writes open in ReplayWeb.page, each
page as a user would see it, with everything it embeds? And does `recrawl replay` (pywb)
show the same project the same way?

    python bench/replayweb_check.py --rwp DIR --node-modules DIR [--chromium /usr/bin/chromium]
                                    [--capture http|browser] [--out DIR] [--timeout S]
                                    [--verbose] [--keep]

Not a test (it needs a browser and npm packages the project does not depend on), and it
installs nothing: get them first, once, outside the project::

    apt-get install -y chromium
    mkdir /tmp/rwp && cd /tmp/rwp && npm install playwright-core
    npm pack replaywebpage && mkdir rwp && tar xzf replaywebpage-*.tgz -C rwp
    # --rwp /tmp/rwp/rwp/package --node-modules /tmp/rwp/node_modules

(``npm pack`` takes the package's own files, ``ui.js`` and ``sw.js`` built: an ``npm
install replaywebpage`` also resolves its build dependencies, which may not all exist.)
pywb comes with the project's replay extra (``pip install -e '.[replay]'``, in ``.[test]``);
without it the pywb column says so and the rest runs.

1. Builds a project by two real crawls, a month apart, of a small site on two hosts
   (tests/support/httpserver.py): pages on 127.0.0.1 (a home page, a page that changed between the
   crawls, a page answered 304 the second time, one that never changes, one with a query
   string) and one on 127.0.0.2; each page on 127.0.0.1 embeds, from 127.0.0.2, a
   stylesheet (changed between the crawls: its heading colour) that imports another
   (``@import``) and names a background image and a web font (``@font-face``: a TrueType font of boxes
   written here), an ``<img>``, a ``<script src>`` that writes a line into the page, and an
   ``<iframe>`` whose document embeds its own image. The changed page also links a
   stylesheet of its own version (``changing.css?v=1``, then ``?v=2``: a cache-busting
   query, as after a redesign). The unchanged embeds are revisits the second time (304 for
   the imported stylesheet and the font, which have ETags; identical payloads for the
   rest). No ``[[embed]]`` table nor chain edit: the project's defaults. The iframe's
   document is a page too (an ``<iframe src>`` is a link as well as an embed, and
   127.0.0.2 is in scope): the check says so and expects it in ``pages.jsonl``, which
   must list exactly the store's pages.
2. Runs the per-capture checks on the live site first (the latest version only), to show
   they hold where nothing is archived; then stops both servers.
3. Exports ``--pages all``, ``--pages latest`` and ``--site 127.0.0.1`` (the pages of one
   host, latest: their embeds on 127.0.0.2 must come along), checks each ``pages.jsonl``
   lists the pages only, serves ReplayWeb.page's files and the packages on 127.0.0.1 (with
   byte ranges, as ReplayWeb.page reads a WACZ) and opens each package in headless
   Chromium, driven by playwright-core through Node.js: the app's page list, each capture
   in the app (``index.html?source=...#view=replay&url=...&ts=...``) and the home page
   embedded as the Embedding Guide says (``<replay-web-page source=... url=... ts=...>``).
4. Serves the project with ``recrawl replay`` (pywb) and opens each capture in its ``mp_``
   mode inside an iframe of a page on pywb's own origin (a top-level ``mp_`` page is sent
   to pywb's framed view).
5. For each capture, in the replayed frame: its text (the changed page's older capture the
   old one, not the new); on the changed page, its version's own stylesheet applied (the
   colour ``?v=1`` or ``?v=2`` gives a line); the stylesheet applied (the heading's
   computed colour: the one of the stylesheet's capture nearest in time); the imported
   stylesheet applied (a border colour only it sets); the background image loaded
   (requested by the page, as its resource timing says, and decoded at its size); the font
   loaded (its ``FontFace`` loaded, ``document.fonts.check``, and text in it laid out as
   boxes: eight ``i`` as wide as eight ``M``); the script ran (the line it writes); the
   ``<img>`` loaded at its size; the iframe's image loaded at its size; and no request of
   the replayed page left the replay (none, a service worker's included, to the live
   hosts; none of the page's or its frame's failed or was answered >= 400; the viewer's own
   files under ``/static/`` are said apart, not counted: ReplayWeb.page's ``ruffle.js``,
   which its npm package leaves out, pywb's ``wombat.js``).
6. Prints a table, a column per way of seeing (live, ReplayWeb.page with each package,
   pywb) and a row per check, then what failed and why (``--verbose``: every check's
   detail), saves a PNG screenshot of each view under ``--out``, and exits 1 if a check
   failed.

``--capture browser`` checks browser capture (docs/design.md §16) instead: the script-built
site of tests/support/scriptsite.py (pages whose HTML says "Loading…" and whose script
writes their stories from a JSON API and adds an image) is crawled twice, a month apart, in
``capture.mode`` ``browser``, the home page's JSON edited between; exported ``--pages all``
and ``--pages latest`` (the count of rendered DOMs and screenshots each keeps is printed);
and each capture is opened in ReplayWeb.page and pywb as above, where its script must run
again against the archived JSON: the text of that capture's JSON shown (the other
version's and "Loading…" not), the image it added loaded, no request failed or left.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recrawl.core.archive.replay import capture_stamp
from recrawl.core.config import CaptureSettings
from recrawl.core.engine import inject
from recrawl.core.project import Project
from recrawl.core.store.models import Page as StoredPage
from recrawl.core.store.models import PageKind

from tests.support import httpserver
from tests.support.crawling import T0, clock_at, crawl, fast_settings
from tests.support.httpserver import Reply
from tests.support.scriptsite import ScriptSite, script_site

BIN = Path(sys.executable).parent
#: The picture each page of the script-built site adds by script (tests/support/scriptsite.py).
PICTURE_SIZE = (4, 4)
MONTH = timedelta(days=31)
#: The texts the pages show; each check looks for one of them in the replayed page.
HOME_TEXT = "Welcome to the Recrawl check site"
#: Each version of the changed page has a word of its own (herons, otters): ReplayWeb.page's
#: search finds the version by it, in the text pages.jsonl carries (not in a title or URL).
OLD_TEXT = "The first version of this page, on herons"
NEW_TEXT = "The second version of this page, on otters"
STATIC_TEXT = "This page never changes"
COND_TEXT = "Served with an ETag, then 304 Not Modified"
QUERY_TEXT = "Search results for apples"
ABOUT_TEXT = "A page on the second host"
#: What the script writes into the page (in place of SCRIPT_MISSING).
SCRIPT_TEXT = "This line was written by the page's script."
SCRIPT_MISSING = "The page's script did not run."
#: The heading's colour, by crawl: the stylesheet changed between the two.
HEADING_COLOURS = ("rgb(170, 34, 51)", "rgb(34, 85, 170)")
#: The border colour only the imported stylesheet sets.
IMPORTED_COLOUR = "rgb(0, 128, 64)"
#: The changed page's own stylesheet, by version: another URL each (a cache-busting
#: query, as after a redesign), each colouring a line of the page its own way.
VERSION_CSS = "/css/changing.css?v={}"
VERSION_COLOURS = ("rgb(204, 102, 0)", "rgb(102, 0, 204)")
FONT_FAMILY = "CheckFont"
FONT_PX = 20
SAMPLE_CHARS = 8  # "iiiiiiii" and "MMMMMMMM": as wide in the box font, not in a fallback
LOGO_SIZE = (48, 32)
BANNER_SIZE = (96, 32)
FRAME_IMAGE_SIZE = (40, 24)
#: The embeds on the second host, by path (the stylesheet's references are relative).
CSS_PATH, IMPORTED_PATH = "/css/site.css", "/css/more.css"
BANNER_PATH, FONT_PATH = "/img/banner.png", "/fonts/check.ttf"
LOGO_PATH, FRAME_IMAGE_PATH, SCRIPT_PATH = "/img/logo.png", "/img/frame.png", "/js/app.js"
#: The iframe's document, on the second host too.
FRAME_PATH = "/frame.html"
#: Embeds whose server answers a conditional GET with 304 (the others: identical payloads).
WITH_ETAG = frozenset({IMPORTED_PATH, FONT_PATH})


# -- what the site serves ---------------------------------------------------------------


def png(
    width: int, height: int, colours: tuple[bytes, bytes] = (b"\xc0\x30\x30", b"\x30\x60\xc0")
) -> bytes:
    """A small opaque PNG (a two-colour stripe), written by hand: no imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00" + (colours[0] if y < height // 2 else colours[1]) * width for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _checksum(data: bytes) -> int:
    data += b"\0" * (-len(data) % 4)
    return sum(struct.unpack(f">{len(data) // 4}I", data)) & 0xFFFFFFFF


def box_font(family: str) -> bytes:
    """A TrueType font (under 1 KB) whose every printable ASCII character but the space is
    one glyph, a box 1 em wide: text in it is a row of boxes, a string of n characters n em
    wide, unlike in any fallback font. Its tables as the OpenType spec lays them out
    (Chromium's font sanitizer checks them), written by hand: no font library."""
    upm, adv, first, last = 1000, 1000, 0x20, 0x7E
    xmin, ymin, xmax, ymax = 100, 0, 900, 700
    # glyphs: 0 .notdef and 1 space (empty), 2 the box (one contour of four on-curve
    # points, clockwise; coordinates as int16 deltas)
    glyph = struct.pack(">hhhhhHH", 1, xmin, ymin, xmax, ymax, 3, 0) + bytes([1, 1, 1, 1])
    glyph += struct.pack(">4h", xmin, 0, xmax - xmin, 0)
    glyph += struct.pack(">4h", ymin, ymax - ymin, 0, ymin - ymax)
    glyph += b"\0" * (-len(glyph) % 4)
    loca = struct.pack(">4H", 0, 0, 0, len(glyph) // 2)  # short offsets (halved)
    hmtx = struct.pack(">HhHhHh", 500, 0, 500, 0, adv, xmin)  # (advance, left side bearing)
    head = struct.pack(
        ">IIIIHHqqhhhhHHhhh", 0x00010000, 0x00010000, 0, 0x5F0F3CF5, 0x000B, upm, 0, 0,
        xmin, ymin, xmax, ymax, 0, 8, 2, 0, 0,
    )  # fmt: skip
    hhea = struct.pack(
        ">IhhhHhhhhhhhhhhhH", 0x00010000, 800, -200, 0, adv, xmin, adv - xmax, xmax,
        1, 0, 0, 0, 0, 0, 0, 0, 3,
    )  # fmt: skip
    maxp = struct.pack(">IHHHHHHHHHHHHHH", 0x00010000, 3, 4, 1, 0, 0, 2, *[0] * 8)
    # cmap: one format 4 subtable (Windows, Unicode BMP): the space to glyph 1 by its
    # delta, '!'..'~' to glyph 2 through the glyph id array (two segments on), 0xFFFF last
    count, seg = last - first, 3
    sub = struct.pack(">3H", first, last, 0xFFFF) + b"\0\0"
    sub += struct.pack(">3H", first, first + 1, 0xFFFF) + struct.pack(">3h", 1 - first, 0, 1)
    sub += struct.pack(">3H", 0, 2 * 2, 0) + struct.pack(f">{count}H", *[2] * count)
    sub = struct.pack(">7H", 4, 14 + len(sub), 0, seg * 2, 4, 1, seg * 2 - 4) + sub
    cmap = struct.pack(">HHHHI", 0, 1, 3, 1, 12) + sub
    os2 = struct.pack(
        ">HhHHHhhhhhhhhhhh10sIIII4sHHHhhhHHIIhhHHH", 4, adv, 400, 5, 0, 650, 600, 0, 75,
        650, 600, 0, 350, 50, 250, 0, b"\0" * 10, 1, 0, 0, 0, b"RCRL", 0x40, first, last,
        800, -200, 0, 800, 200, 1, 0, 0, 700, 0, 0x20, 2,
    )  # fmt: skip
    post = struct.pack(">IIhhIIIII", 0x00030000, 0, -100, 50, 1, 0, 0, 0, 0)
    names = [(1, family), (2, "Regular"), (3, f"{family} Regular"), (4, family), (6, family)]
    records, strings = b"", b""
    for name_id, text in names:
        data = text.encode("utf-16-be")
        records += struct.pack(">6H", 3, 1, 0x409, name_id, len(data), len(strings))
        strings += data
    name = struct.pack(">HHH", 0, len(names), 6 + len(records)) + records + strings
    tables = {
        b"OS/2": os2, b"cmap": cmap, b"glyf": glyph, b"head": head, b"hhea": hhea,
        b"hmtx": hmtx, b"loca": loca, b"maxp": maxp, b"name": name, b"post": post,
    }  # fmt: skip
    n = len(tables)
    search = 16 * 2 ** (n.bit_length() - 1)
    font = bytearray(
        struct.pack(">IHHHH", 0x00010000, n, search, n.bit_length() - 1, n * 16 - search)
    )
    offset, body, head_at = 12 + 16 * n, b"", 0
    for tag in sorted(tables):
        data = tables[tag]
        if tag == b"head":
            head_at = offset + len(body)
        font += struct.pack(">4sIII", tag, _checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    font += body
    adjustment = (0xB1B0AFBA - _checksum(bytes(font))) & 0xFFFFFFFF
    font[head_at + 8 : head_at + 12] = struct.pack(">I", adjustment)  # checkSumAdjustment
    return bytes(font)


def css(version: int) -> bytes:
    """The stylesheet of crawl ``version`` (0, 1): only the heading's colour differs."""
    return f"""@import "more.css";
h1 {{ color: {HEADING_COLOURS[version]}; }}
#banner {{ width: {BANNER_SIZE[0]}px; height: {BANNER_SIZE[1]}px;
  background: url("../img/banner.png") no-repeat; }}
@font-face {{ font-family: "{FONT_FAMILY}"; src: url("../fonts/check.ttf") format("truetype"); }}
.font-sample {{ font-family: "{FONT_FAMILY}", sans-serif; font-size: {FONT_PX}px; }}
""".encode()


IMPORTED_CSS = (
    f"#imported {{ border-left: 8px solid {IMPORTED_COLOUR}; padding-left: 6px; }}\n".encode()
)
SCRIPT = f'document.getElementById("scripted").textContent = {json.dumps(SCRIPT_TEXT)};\n'.encode()


def page_html(cdn: str, title: str, text: str, extra: str = "", head: str = "") -> bytes:
    """A page of the pages' host: its text, and everything it embeds (``cdn``: the second
    host's origin)."""
    sample = "i" * SAMPLE_CHARS, "M" * SAMPLE_CHARS
    return f"""<!DOCTYPE html><html><head><meta charset=utf-8><title>{title}</title>
<link rel="stylesheet" href="{cdn}{CSS_PATH}">{head}</head>
<body><h1>{title}</h1><p>{text}.</p>{extra}
<p id="imported">This line's green border comes from a stylesheet the first one imports.</p>
<div id="banner"></div>
<p class="font-sample"><span id="font-narrow">{sample[0]}</span> <span id="font-wide">{sample[1]}</span></p>
<p><img id="logo" src="{cdn}{LOGO_PATH}" alt="logo"></p>
<p id="scripted">{SCRIPT_MISSING}</p>
<iframe id="frame" src="{cdn}{FRAME_PATH}" width="240" height="90"></iframe>
<script src="{cdn}{SCRIPT_PATH}"></script>
</body></html>""".encode()


def frame_html(cdn: str) -> bytes:
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>frame</title></head>"
        f'<body style="margin:4px"><img id="frame-image" src="{cdn}{FRAME_IMAGE_PATH}" '
        'alt="framed"><p style="margin:2px 0">Inside the frame</p></body></html>'
    ).encode()


def _etagged(body: bytes, headers: dict[str, str]) -> Callable[[BaseHTTPRequestHandler], Reply]:
    etag = f'"{zlib.crc32(body):08x}"'

    def answer(handler: BaseHTTPRequestHandler) -> Reply:
        if handler.headers.get("If-None-Match") == etag:
            return Reply(304, b"", {"ETag": etag})
        return Reply(200, body, {**headers, "ETag": etag})

    return answer


def _cond(body: bytes) -> Callable[[BaseHTTPRequestHandler], Reply]:
    return _etagged(body, {"Content-Type": "text/html; charset=utf-8"})


@dataclass
class Site:
    """The two hosts: pages on 127.0.0.1, most of what they embed on 127.0.0.2."""

    pages: httpserver.TestServer
    cdn: httpserver.TestServer

    @classmethod
    def start(cls) -> Site:
        site = cls(
            httpserver.TestServer().start(), httpserver.TestServer(address="127.0.0.2").start()
        )
        site.serve(0)
        return site

    def serve(self, version: int) -> None:
        """The site as it is at crawl ``version`` (0, 1)."""
        cdn, typed = self.cdn.origin, {"Content-Type": "text/html; charset=utf-8"}
        links = (
            '<ul><li><a href="/changing">changing</a></li><li><a href="/static">static</a></li>'
            '<li><a href="/cond">conditional</a></li>'
            '<li><a href="/search?q=apples">search</a></li></ul>'
        )
        routes = self.pages.routes
        routes["/"] = Reply(200, page_html(cdn, "Recrawl check home", HOME_TEXT, links), typed)
        versions = [("Changing page, version 1", OLD_TEXT), ("Changing page, version 2", NEW_TEXT)]
        own = f'<link rel="stylesheet" href="{cdn}{VERSION_CSS.format(version + 1)}">'
        line = (
            f'<p id="version-styled">Version {version + 1}\'s own stylesheet colours this line.</p>'
        )
        page = page_html(cdn, *versions[version], extra=line, head=own)
        routes["/changing"] = Reply(200, page, typed)
        routes["/static"] = Reply(200, page_html(cdn, "Static page", STATIC_TEXT), typed)
        routes["/cond"] = _cond(page_html(cdn, "Conditional page", COND_TEXT))
        # routes match the query too
        routes["/search?q=apples"] = Reply(200, page_html(cdn, "Search", QUERY_TEXT), typed)
        files = {
            CSS_PATH: (css(version), "text/css"),
            IMPORTED_PATH: (IMPORTED_CSS, "text/css"),
            BANNER_PATH: (png(*BANNER_SIZE, (b"\xe0\xb0\x20", b"\x20\x90\x50")), "image/png"),
            FONT_PATH: (box_font(FONT_FAMILY), "font/ttf"),
            LOGO_PATH: (png(*LOGO_SIZE), "image/png"),
            FRAME_IMAGE_PATH: (
                png(*FRAME_IMAGE_SIZE, (b"\x70\x20\xa0", b"\xf0\xf0\x40")),
                "image/png",
            ),
            SCRIPT_PATH: (SCRIPT, "text/javascript"),
        }
        for n, colour in enumerate(VERSION_COLOURS):  # both served: an old one may linger
            rule = f"#version-styled {{ color: {colour}; font-weight: bold; }}\n"
            files[VERSION_CSS.format(n + 1)] = (rule.encode(), "text/css")
        for path, (body, kind) in files.items():
            # live, a page of 127.0.0.1 may use the font only if its host says so (CORS)
            headers = {"Content-Type": kind, "Access-Control-Allow-Origin": "*"}
            if path in WITH_ETAG:
                self.cdn.routes[path] = _etagged(body, headers)
            else:
                self.cdn.routes[path] = Reply(200, body, headers)
        self.cdn.routes[FRAME_PATH] = Reply(200, frame_html(cdn), typed)
        about = html_page("About the second host", ABOUT_TEXT)
        self.cdn.routes["/about"] = Reply(200, about, typed)

    @property
    def page_urls(self) -> list[str]:
        """Every page the crawls fetch (embeds apart), those of 127.0.0.1 first."""
        paths = ["/", "/changing", "/cond", "/static", "/search?q=apples"]
        return [self.pages.url(p) for p in paths] + [self.cdn.url("/about")]

    @property
    def live_origins(self) -> list[str]:
        return [self.pages.origin, self.cdn.origin]

    def stop(self) -> None:
        self.pages.stop()
        self.cdn.stop()


def html_page(title: str, text: str) -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}.</p></body></html>"
    ).encode()


def build_project(folder: Path, site: Site) -> list[str]:
    """Two crawls of the site a month apart, with the project's defaults; returns the
    URLs the store holds as pages (not embeds)."""
    project = Project.init(folder)
    try:
        inject([site.pages.url("/"), site.cdn.url("/about")], T0)
        for version in (0, 1):
            site.serve(version)
            summary = crawl(project, clock=clock_at(version * MONTH))
            print(
                f"crawl {version + 1}: {summary.fetched} pages fetched, "
                f"{summary.embeds_fetched} embeds fetched ({summary.embed_errors} failed)"
            )
        query = StoredPage.select(StoredPage.url).where(StoredPage.kind == PageKind.PAGE)
        return sorted(url for (url,) in query.tuples())
    finally:
        project.close()


def export(project: Path, out: Path, *flags: str) -> dict[str, object]:
    result = subprocess.run(
        [str(BIN / "recrawl"), "export", str(project), str(out), *flags, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"recrawl export failed: {result.stderr.strip()}")
    summary: dict[str, object] = json.loads(result.stdout)
    return summary


# -- serving ReplayWeb.page and the packages ---------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Static files with single byte ranges (ReplayWeb.page reads a WACZ by ranges)."""

    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "application/javascript; charset=utf-8",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        ranged = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        path = Path(self.translate_path(self.path))
        if not ranged or not path.is_file():
            return super().send_head()
        size = path.stat().st_size
        first, last = ranged.groups()
        start = int(first) if first else max(0, size - int(last))
        end = min(int(last), size - 1) if first and last else size - 1
        if start >= size or start > end:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        fh = open(path, "rb")  # noqa: SIM115 - closed by copyfile's caller
        fh.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self._remaining = end - start + 1
        return fh

    def copyfile(self, source, outputfile):  # type: ignore[no-untyped-def]
        remaining = getattr(self, "_remaining", None)
        if remaining is None:
            return super().copyfile(source, outputfile)
        while remaining > 0:
            data = source.read(min(remaining, 1 << 16))
            if not data:
                break
            outputfile.write(data)
            remaining -= len(data)
        self._remaining = None
        return None

    def end_headers(self) -> None:
        if not self.headers.get("Range"):
            self.send_header("Accept-Ranges", "bytes")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve(root: Path) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


#: The page that embeds one archive as ReplayWeb.page's Embedding Guide says: ui.js, and
#: a ``<replay-web-page>`` whose attributes are the query's (its service worker is
#: ``replay/sw.js``, the element's default ``replayBase``).
EMBED_HTML = """<!doctype html><html><head><meta charset="utf-8"><script src="./ui.js"></script>
</head><body style="margin:0"><script>
const element = document.createElement("replay-web-page");
for (const [name, value] of new URLSearchParams(location.search)) element.setAttribute(name, value);
element.style.cssText = "display:block;width:100%;height:100vh";
document.body.appendChild(element);
</script></body></html>
"""

#: pywb's page of one capture: its ``mp_`` URL in a frame filling the viewport, served at
#: FRAME_PAGE on pywb's own origin (the driver answers it), as the fidelity bench does.
FRAME_PAGE = "/__replayweb_check_frame__.html"

#: The browser side, run by Node.js: reads the checks (JSON) from argv, prints one JSON
#: line per check. A replayed page lives in a frame whose URL is ``.../<ts>mp_/<url>``
#: (in ReplayWeb.page, nested inside shadow roots): found among the page's frames.
DRIVER_JS = r"""
const { chromium } = require("playwright-core");
const fs = require("fs");
const config = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const REPLAYED = /\/(\d{14})mp_\/(.*)$/;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, seconds, probe) {
  const deadline = Date.now() + seconds * 1000;
  let last = null;
  for (;;) {
    try { last = await probe(); if (last && last.ok) return last; } catch (e) { last = { ok: false, detail: String(e).split("\n")[0] }; }
    if (Date.now() > deadline) return { ...(last || {}), ok: false, detail: `${what}: ${last ? last.detail : "nothing"}` };
    await sleep(250);
  }
}

function replayFrame(page, check) {
  if (check.kind === "live") return page.mainFrame();
  for (const frame of page.frames()) {
    const found = frame.url().match(REPLAYED);
    if (found && found[2] === check.url) return frame;
  }
  return null;
}

// Run in the replayed page: what it shows of each embed, one [ok, detail] per part.
async function inspect(exp) {
  const parts = {};
  const put = (name, ok, detail) => { parts[name] = { ok: !!ok, detail }; };
  const byId = (id) => document.getElementById(id);
  const styleOf = (id) => (byId(id) ? getComputedStyle(byId(id)) : null);
  const text = document.body ? document.body.innerText : "";
  const shown = exp.absent.filter((t) => text.includes(t));
  put("text", text.includes(exp.text) && !shown.length,
    text.includes("Archived Page Not Found") ? "Archived Page Not Found"
      : shown.length ? `shows ${JSON.stringify(shown[0])}`
      : text.includes(exp.text) ? `shows ${JSON.stringify(exp.text)}` : `text: ${JSON.stringify(text.slice(0, 100))}`);
  if (exp.versionColour) {
    const own = styleOf("version-styled") ? styleOf("version-styled").color : null;
    put("version's stylesheet", own === exp.versionColour,
      `line colour ${own}` + (own === exp.versionColour ? "" : `, not ${exp.versionColour}`));
  }
  const h1 = document.querySelector("h1");
  const colour = h1 ? getComputedStyle(h1).color : null;
  put("stylesheet", colour === exp.colour, `heading colour ${colour}` + (colour === exp.colour ? "" : `, not ${exp.colour}`));
  const border = styleOf("imported") ? styleOf("imported").borderLeftColor : null;
  put("imported stylesheet", border === exp.importedColour, `border colour ${border}` + (border === exp.importedColour ? "" : `, not ${exp.importedColour}`));
  const decode = (url) => new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve([img.naturalWidth, img.naturalHeight]);
    img.onerror = () => resolve(null);
    img.src = url;
  });
  // the image the stylesheet names, as the page requested it (its resource timing entry;
  // live, a cross-origin stylesheet's requests have none: the URL it names)
  const background = styleOf("banner") ? styleOf("banner").backgroundImage : "none";
  const entry = performance.getEntriesByType("resource").find((e) => e.name.endsWith(exp.bannerPath));
  const named = (background.match(/^url\("?(.*?)"?\)$/) || [])[1];
  const requested = entry ? entry.name : exp.live ? named : null;
  if (!requested) {
    put("background image", false, `${background}: not requested`);
  } else {
    const size = await decode(requested);
    const status = !entry || entry.responseStatus === undefined ? "" : `, status ${entry.responseStatus}`;
    const ok = size && size[0] === exp.bannerSize[0] && size[1] === exp.bannerSize[1] && ((entry && entry.responseStatus) || 200) < 400;
    put("background image", ok, `${size ? size.join("x") : "not an image"}${status}, from ${background.slice(0, 90)}`);
  }
  await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 2000))]);
  const faces = [...document.fonts].filter((f) => f.family.replace(/["']/g, "") === exp.fontFamily);
  const narrow = byId("font-narrow") ? byId("font-narrow").getBoundingClientRect().width : 0;
  const wide = byId("font-wide") ? byId("font-wide").getBoundingClientRect().width : 0;
  const fontOk = faces.some((f) => f.status === "loaded")
    && document.fonts.check(`${exp.fontPx}px "${exp.fontFamily}"`)
    && Math.abs(narrow - wide) < 0.5 && Math.abs(narrow - exp.sampleWidth) < 0.5;
  put("font", fontOk, `${exp.fontFamily} ${faces.map((f) => f.status).join(",") || "not declared"}; ` +
    `8 i ${narrow.toFixed(1)} px, 8 M ${wide.toFixed(1)} px`);
  const scripted = byId("scripted") ? byId("scripted").textContent : null;
  put("script", scripted === exp.scriptText, `line: ${JSON.stringify(scripted)}`);
  const logo = byId("logo");
  const logoSize = logo && logo.complete && logo.naturalWidth ? [logo.naturalWidth, logo.naturalHeight] : null;
  put("image", logoSize && logoSize[0] === exp.logoSize[0] && logoSize[1] === exp.logoSize[1],
    logoSize ? `${logoSize.join("x")} loaded` : "not loaded");
  return parts;
}

// Run in a replayed page of the script-built site (--capture browser): the text its
// script wrote from the archived JSON (the shell's "Loading…" gone), and the picture it added.
async function inspectScripted(exp) {
  const parts = {};
  const put = (name, ok, detail) => { parts[name] = { ok: !!ok, detail }; };
  const text = document.body ? document.body.innerText : "";
  const shown = exp.absent.filter((t) => text.includes(t));
  put("text", text.includes(exp.text) && !shown.length,
    text.includes("Archived Page Not Found") ? "Archived Page Not Found"
      : shown.length ? `shows ${JSON.stringify(shown[0])}`
      : text.includes(exp.text) ? `shows ${JSON.stringify(exp.text)}` : `text: ${JSON.stringify(text.slice(0, 100))}`);
  const picture = document.querySelector('img[alt="picture"]');
  const size = picture && picture.complete && picture.naturalWidth ? [picture.naturalWidth, picture.naturalHeight] : null;
  put("picture", size && size[0] === exp.pictureSize[0] && size[1] === exp.pictureSize[1],
    !picture ? "no <img> added" : size ? `${size.join("x")} loaded` : "not loaded");
  return parts;
}

async function inspectFrameImage(frame, exp) {
  const child = frame.childFrames().find((f) => f.url().endsWith(exp.framePath));
  if (!child) return { ok: false, detail: `no frame of ${exp.framePath} (${frame.childFrames().map((f) => f.url()).join(", ")})` };
  const size = await child.evaluate(() => {
    const img = document.getElementById("frame-image");
    return img && img.complete && img.naturalWidth ? [img.naturalWidth, img.naturalHeight] : null;
  });
  const ok = size && size[0] === exp.frameImageSize[0] && size[1] === exp.frameImageSize[1];
  return { ok, detail: size ? `${size.join("x")} loaded` : "not loaded" };
}

function watch(context) {
  const log = [];
  const entries = new Map();
  context.on("request", (request) => {
    let frame = null;
    try { frame = request.frame(); } catch (e) { /* a service worker's own request */ }
    const entry = { url: request.url(), frame, status: null, failure: null };
    entries.set(request, entry);
    log.push(entry);
  });
  context.on("response", (response) => {
    const entry = entries.get(response.request());
    if (entry) entry.status = response.status();
  });
  context.on("requestfailed", (request) => {
    const entry = entries.get(request);
    if (entry) entry.failure = request.failure() ? request.failure().errorText : "failed";
  });
  return log;
}

// No request of the replayed page (its frame or those inside it) failed or was answered
// >= 400, and no request at all (a service worker's too) went to the live hosts. The
// viewer's own files (under /static/ of its origin: ReplayWeb.page's ruffle.js, which its
// npm package leaves out, pywb's wombat.js) are not the page's: said, not counted.
function requestsVerdict(log, frame, check) {
  const within = (f) => { for (let x = f; x; x = x.parentFrame()) if (x === frame) return true; return false; };
  const origin = (url) => { try { return new URL(url).origin; } catch (e) { return ""; } };
  const viewer = check.kind === "live" ? null : origin(frame.url()) + "/static/";
  const own = log.filter((e) => viewer && e.url.startsWith(viewer) && e.frame && within(e.frame));
  const mine = log.filter((e) => e.frame && within(e.frame) && !own.includes(e));
  const escaped = check.kind === "live" ? [] : log.filter((e) => config.live.includes(origin(e.url)));
  const failed = mine.filter((e) => !escaped.includes(e) && (e.failure || (e.status && e.status >= 400)));
  const bad = [...escaped.map((e) => `to the live site: ${e.url}`),
    ...failed.map((e) => `${e.failure || e.status}: ${e.url}`)];
  if (bad.length) return { ok: false, detail: `${bad.length} of ${mine.length}: ${bad.slice(0, 3).join("; ")}` };
  const ownFailed = own.filter((e) => e.failure || (e.status && e.status >= 400)).length;
  const note = own.length ? ` (and ${own.length} of the viewer's own files, ${ownFailed} failed)` : "";
  return { ok: true, detail: `${mine.length} requests, none failed, none to the live site${note}` };
}

async function checkCapture(page, check, log) {
  let frame = null;
  const result = await until(`${check.url} at ${check.ts}`, config.timeout, async () => {
    frame = replayFrame(page, check);
    if (!frame) return { ok: false, detail: "no replay frame yet" };
    const parts = await frame.evaluate(check.expect.scripted ? inspectScripted : inspect, check.expect);
    if (!check.expect.scripted) parts["iframe's image"] = await inspectFrameImage(frame, check.expect);
    const failed = Object.entries(parts).filter(([, p]) => !p.ok).map(([name]) => name);
    return { ok: !failed.length, parts, detail: failed.length ? `failed: ${failed.join(", ")}` : "all shown" };
  });
  await sleep(500); // what is still loading lands (or fails) before the count
  result.parts = result.parts || {};
  result.parts.requests = frame ? requestsVerdict(log, frame, check) : { ok: false, detail: "no replay frame" };
  if (!result.parts.requests.ok) result.ok = false;
  const ts = frame ? frame.url().match(/\/(\d{14})mp_\//) : null;
  result.replayed = check.kind === "live" ? null : ts ? ts[1] : "?";
  return result;
}

// the list lives in nested shadow roots: their text, gathered by walking them
async function shownText(page) {
  return page.evaluate(() => {
    const parts = [];
    const walk = (node) => {
      if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent);
      if (node.shadowRoot) walk(node.shadowRoot);
      for (const child of node.childNodes) walk(child);
    };
    walk(document.body);
    return parts.join(" ").replace(/\s+/g, " ");
  });
}

async function checkPages(page, check) {
  return until("the pages list", config.timeout, async () => {
    const count = page.getByText(new RegExp(`^\\s*${check.count} pages?\\s*$`, "i"));
    if (!(await count.count())) return { ok: false, detail: `no "${check.count} pages" shown` };
    const text = await shownText(page);
    for (const wanted of [...check.titles, ...check.urls]) {
      if (!text.includes(wanted)) return { ok: false, detail: `no entry ${JSON.stringify(wanted)}` };
    }
    for (const unwanted of check.absent) {
      if (text.includes(unwanted)) return { ok: false, detail: `lists ${JSON.stringify(unwanted)}` };
    }
    return { ok: true, detail: `${check.count} pages listed, titles ${check.titles.join(", ")}` };
  });
}

// The pages list's search box (its full-text search: URL, title and pages.jsonl's text):
// each query typed in lists the titles it must and none of those it must not (the whole
// list is shown until the text index is loaded: the check waits for it).
async function checkSearch(page, check) {
  const listed = await checkPages(page, check.list);
  if (!listed.ok) return listed;
  const box = page.getByPlaceholder("Search by Page URL, Title, or Text");
  const said = [];
  for (const asked of check.queries) {
    await box.fill(asked.query);
    const found = await until(`searching ${JSON.stringify(asked.query)}`, config.timeout, async () => {
      const text = await shownText(page);
      for (const wanted of asked.titles) {
        if (!text.includes(wanted)) return { ok: false, detail: `no ${JSON.stringify(wanted)} listed` };
      }
      for (const unwanted of asked.absent) {
        if (text.includes(unwanted)) return { ok: false, detail: `lists ${JSON.stringify(unwanted)}` };
      }
      return { ok: true };
    });
    if (!found.ok) return found;
    said.push(`${JSON.stringify(asked.query)} lists ${asked.titles.length ? asked.titles.join(", ") : "nothing"}`);
  }
  return { ok: true, detail: said.join("; ") };
}

// pywb's capture page: its mp_ URL in a frame of a page on pywb's own origin; any other
// origin's request is blocked (and counted by requestsVerdict).
async function routePywb(context, check) {
  const base = new URL(check.url_to_open).origin;
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(base + config.framePage)) {
      return route.fulfill({ status: 200, contentType: "text/html", body: check.frameHtml });
    }
    if (new URL(url).origin === base) return route.continue();
    return route.abort("blockedbyclient");
  });
}

(async () => {
  const browser = await chromium.launch({ executablePath: config.chromium, args: FLAGS });
  try {
    for (const check of config.checks) {
      // a context per check: a fresh service worker and storage, nothing cached
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const log = watch(context);
      if (check.kind === "pywb") await routePywb(context, check);
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      let result;
      try {
        await page.goto(check.url_to_open);
        result = check.kind === "pages" ? await checkPages(page, check)
          : check.kind === "search" ? await checkSearch(page, check)
          : await checkCapture(page, check, log);
        await page.waitForTimeout(300); // let the last paint land before the screenshot
      } catch (e) {
        result = { ok: false, detail: String(e).split("\n")[0] };
      }
      await page.screenshot({ path: check.screenshot });
      if (errors.length) result.errors = errors.join("; ").slice(0, 300);
      console.log(JSON.stringify({ id: check.id, ...result }));
      await context.close();
    }
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(2); });
"""


# -- what each view must show ------------------------------------------------------------

#: The columns of the report: the ways a capture is seen.
LIVE, PYWB = "live", "pywb"
PACKAGES = {  # column -> the export's flags
    "RWP all": ("--pages", "all"),
    "RWP latest": ("--pages", "latest"),
    "RWP site": ("--site", "127.0.0.1"),
}
#: The parts of a capture's check, in the report's order.
PARTS = (
    "text",
    "version's stylesheet",
    "stylesheet",
    "imported stylesheet",
    "background image",
    "font",
    "script",
    "image",
    "iframe's image",
    "requests",
)
PART_LABELS = {
    "text": "text",
    "version's stylesheet": "this version's own stylesheet (?v=N)",
    "stylesheet": "stylesheet applied (heading colour)",
    "imported stylesheet": "@import applied (border colour)",
    "background image": "CSS background image loaded",
    "font": "@font-face font loaded and used",
    "script": "<script src> ran",
    "image": "<img> loaded",
    "iframe's image": "<iframe>'s own <img> loaded",
    "requests": "no request failed or left the replay",
}


@dataclass(frozen=True)
class Page:
    url: str
    stamp: str  # 14 digits
    title: str | None


def pages_of(wacz: Path) -> list[Page]:
    with zipfile.ZipFile(wacz) as zf:
        lines = zf.read("pages/pages.jsonl").decode().splitlines()[1:]
    found = []
    for line in lines:
        entry = json.loads(line)
        found.append(Page(entry["url"], re.sub(r"\D", "", entry["ts"])[:14], entry.get("title")))
    return found


@dataclass(frozen=True)
class Capture:
    """One capture to look at: a page, which of its captures, what it must show."""

    label: str
    path: str
    text: str
    which: int  # index into the page's captures, oldest first (-1: the latest)


CAPTURES = (
    Capture("home page (identical-payload revisit)", "/", HOME_TEXT, -1),
    Capture("changed page, newer capture", "/changing", NEW_TEXT, -1),
    Capture("changed page, older capture", "/changing", OLD_TEXT, 0),
    Capture("304 revisit", "/cond", COND_TEXT, -1),
    Capture("identical-payload revisit", "/static", STATIC_TEXT, -1),
    Capture("page with a query string", "/search?q=apples", QUERY_TEXT, -1),
)
EMBEDDED = "home page in an embedded <replay-web-page>"


def expectation(capture: Capture, stamp: str | None, site: Site) -> dict[str, Any]:
    """What the replayed (or live) page must show; ``stamp``: the capture's (None: live)."""
    second = capture_stamp(T0 + MONTH)
    version = 1 if stamp is None or stamp >= second else 0
    absent = (
        [OLD_TEXT] if capture.text == NEW_TEXT else [NEW_TEXT] if capture.text == OLD_TEXT else []
    )
    own = VERSION_COLOURS[version] if capture.path == "/changing" else None
    return {
        "versionColour": own,
        "live": stamp is None,
        "text": capture.text,
        "absent": absent,
        "colour": HEADING_COLOURS[version],
        "importedColour": IMPORTED_COLOUR,
        "bannerPath": site.cdn.origin + BANNER_PATH,
        "bannerSize": BANNER_SIZE,
        "fontFamily": FONT_FAMILY,
        "fontPx": FONT_PX,
        "sampleWidth": SAMPLE_CHARS * FONT_PX,  # a box is 1 em wide
        "scriptText": SCRIPT_TEXT,
        "logoSize": LOGO_SIZE,
        "framePath": site.cdn.origin + FRAME_PATH,
        "frameImageSize": FRAME_IMAGE_SIZE,
    }


@dataclass
class Plan:
    """The checks to run, each a dict the driver reads, with its column and row."""

    out: Path
    checks: list[dict[str, Any]]

    def add(self, column: str, row: str, **check: Any) -> None:
        check["id"] = len(self.checks)
        check["column"], check["row"] = column, row
        slug = re.sub(r"[^a-z0-9]+", "-", f"{column} {row}".lower()).strip("-")
        check["screenshot"] = str(self.out / f"{len(self.checks):02d}-{slug}.png")
        self.checks.append(check)


def stamps_of(pages: list[Page]) -> dict[str, list[str]]:
    stamps: dict[str, list[str]] = {}
    for page in pages:
        stamps.setdefault(page.url, []).append(page.stamp)
    return {url: sorted(found) for url, found in stamps.items()}


def plan_live(plan: Plan, site: Site) -> None:
    for capture in CAPTURES:
        if capture.which == -1:
            plan.add(
                LIVE,
                capture.label,
                kind="live",
                url=site.pages.url(capture.path),
                ts=None,
                expect=expectation(capture, None, site),
                url_to_open=site.pages.url(capture.path),
            )


def plan_package(
    plan: Plan,
    column: str,
    wacz: Path,
    site: Site,
    base: str,
    expected_pages: list[str],
    all_pages: list[str],
) -> None:
    """A package's checks: its page list, and each capture as it replays."""
    pages = pages_of(wacz)
    source = f"{base}/wacz/{wacz.name}"
    stamps = stamps_of(pages)
    titles = sorted({p.title for p in pages if p.title})
    plan.add(
        column,
        "pages list",
        kind="pages",
        count=len(pages),
        titles=titles,
        urls=expected_pages,
        # the other host's page (--site), and embeds: the iframe's document, a stylesheet
        absent=[
            *sorted(set(all_pages) - set(expected_pages)),
            site.cdn.url(CSS_PATH),
        ],
        url_to_open=f"{base}/index.html?source={source}#view=pages",
    )
    plan.add(
        column,
        SEARCH_ROW,
        kind="search",
        list=plan.checks[-1],
        queries=search_queries(len(stamps.get(site.pages.url("/changing"), [])) > 1),
        url_to_open=f"{base}/index.html?source={source}#view=pages",
    )
    for capture in CAPTURES:
        url = site.pages.url(capture.path)
        if capture.which == 0 and len(stamps.get(url, [])) < 2:
            continue  # a latest package: no older capture to show
        ts = stamps[url][capture.which]
        plan.add(
            column,
            capture.label,
            kind="replay",
            url=url,
            ts=ts,
            expect=expectation(capture, ts, site),
            url_to_open=f"{base}/index.html?source={source}"
            f"#view=replay&url={quote(url, safe=':/')}&ts={ts}",
        )
    if column == "RWP all":
        home = site.pages.url("/")
        plan.add(
            column,
            EMBEDDED,
            kind="replay",
            url=home,
            ts=stamps[home][-1],
            expect=expectation(CAPTURES[0], stamps[home][-1], site),
            url_to_open=f"{base}/embed.html?"
            + urlencode({"source": source, "url": home, "ts": stamps[home][-1]}),
        )


SEARCH_ROW = "pages list's search: a word of a version's text"
OLD_TITLE, NEW_TITLE = "Changing page, version 1", "Changing page, version 2"


def search_queries(both_versions: bool) -> list[dict[str, Any]]:
    """What ReplayWeb.page's search must list for words found only in the pages' texts:
    each version of the changed page by its own word (the older one only in a package
    that has it), the 304-revisited page by a word of the response it repeats."""
    home = "Recrawl check home"
    return [
        {
            "query": "herons",
            "titles": [OLD_TITLE] if both_versions else [],
            "absent": [NEW_TITLE, home] if both_versions else [OLD_TITLE, NEW_TITLE, home],
        },
        {"query": "otters", "titles": [NEW_TITLE], "absent": [OLD_TITLE, home]},
        {"query": "modified", "titles": ["Conditional page"], "absent": ["Static page", home]},
    ]


def plan_pywb(plan: Plan, base: str, stamps: dict[str, list[str]], site: Site) -> None:
    for capture in CAPTURES:
        url = site.pages.url(capture.path)
        ts = stamps[url][capture.which]
        inner = f"{base}/project/{ts}mp_/{url}"
        plan.add(
            PYWB,
            capture.label,
            kind="pywb",
            url=url,
            ts=ts,
            expect=expectation(capture, ts, site),
            url_to_open=base + FRAME_PAGE,
            frameHtml=pywb_frame(inner),
        )


def pywb_frame(inner: str) -> str:
    """The page of one pywb capture: its ``mp_`` URL in a frame filling the viewport."""
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>frame</title></head>"
        '<body style="margin:0;overflow:hidden"><iframe src="'
        + inner.replace("&", "&amp;").replace('"', "&quot;")
        + '" style="position:fixed;top:0;left:0;width:100%;height:100%;border:0">'
        "</iframe></body></html>"
    )


def check_pages_jsonl(wacz: Path, expected: list[str]) -> tuple[bool, str]:
    """``pages.jsonl`` lists the pages only, those expected."""
    listed = {page.url for page in pages_of(wacz)}
    extra, missing = sorted(listed - set(expected)), sorted(set(expected) - listed)
    if extra or missing:
        return False, f"lists {extra or 'no other URL'}, lacks {missing or 'no page'}"
    return True, f"{len(expected)} pages, no embed"


def run_browser(
    checks: list[dict[str, Any]], live: list[str], args: argparse.Namespace, scratch: Path
) -> dict[int, dict[str, Any]]:
    """Each check in headless Chromium; ``live``: the site's origins, which nothing
    replayed may reach."""
    driver = scratch / "driver.cjs"
    driver.write_text(DRIVER_JS, encoding="utf-8")
    config = scratch / f"checks-{checks[0]['id']}.json"
    config.write_text(
        json.dumps(
            {
                "chromium": args.chromium,
                "timeout": args.timeout,
                "live": live,
                "framePage": FRAME_PAGE,
                "checks": checks,
            }
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "NODE_PATH": str(args.node_modules)}
    proc = subprocess.run(
        ["node", str(driver), str(config)], capture_output=True, text=True, env=env, check=False
    )
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        raise SystemExit(f"the browser driver failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return {result["id"]: result for result in results}


def start_pywb(project: Path) -> Any:
    from recrawl.core.errors import ReplayError
    from recrawl.core.replay.server import ReplayServer

    try:
        return ReplayServer(project)
    except ReplayError as exc:  # ReplayUnavailable among them: pywb is not installed
        print(f"pywb: {exc}")
        return None


# -- the report ----------------------------------------------------------------------------


def report(
    plan: Plan,
    results: dict[int, dict[str, Any]],
    columns: list[str],
    verbose: bool,
    parts: tuple[str, ...] = PARTS,
    labels: dict[str, str] = PART_LABELS,
) -> int:
    """The table (a row per check, a column per view), then what failed; the failures."""
    cells: dict[tuple[str, str], str] = {}
    rows: list[str] = []

    def row(name: str) -> None:
        if name not in rows:
            rows.append(name)

    for check in plan.checks:
        result = results.get(check["id"])
        column = check["column"]
        if check["kind"] in ("pages", "search"):
            name = "pages list" if check["kind"] == "pages" else SEARCH_ROW
            row(name)
            cells[name, column] = "ok" if result and result["ok"] else "FAIL"
            continue
        for part in parts:
            if part == "version's stylesheet" and not check["expect"]["versionColour"]:
                continue  # the changed page's alone
            name = f"{check['row']}: {labels[part]}"
            row(name)
            got = (result or {}).get("parts", {}).get(part)
            cells[name, column] = "ok" if got and got["ok"] else "FAIL"
    width = max(len(r) for r in rows) + 2
    print("\n" + "".ljust(width) + "".join(c.ljust(12) for c in columns))
    for name in rows:
        print(name.ljust(width) + "".join(cells.get((name, c), "-").ljust(12) for c in columns))
    failed = 0
    print()
    for check in plan.checks:
        result = results.get(check["id"]) or {"ok": False, "detail": "no result"}
        failed += not result["ok"]
        where = f" (replayed at {result['replayed']})" if result.get("replayed") else ""
        mark = "ok  " if result["ok"] else "FAIL"
        print(f"{mark} {check['column']}: {check['row']}{where}: {result['detail']}")
        for part in parts:
            got = result.get("parts", {}).get(part)
            if got and (verbose or not got["ok"]):
                print(f"       {'ok  ' if got['ok'] else 'FAIL'} {part}: {got['detail']}")
        if result.get("errors"):
            print(f"       page errors: {result['errors']}")
        print(f"       {check['screenshot']}")
    return failed


# -- --capture browser: the script-built site, captured in Chromium -------------------------

#: The home page's first story, by crawl: only its JSON changes between the two.
SCRIPT_VERSIONS = (
    "The harbour wall will close for repairs.",
    "The harbour wall is open again after its repairs.",
)
#: What a story page's script writes (tests/support/scriptsite.py), and the shell's own
#: text, which a page whose script ran against the archived JSON no longer shows.
STORY_TEXT = "The whole of story1, told by script."
SHELL_TEXT = "Loading…"
BROWSER_PARTS = ("text", "picture", "requests")
BROWSER_LABELS = {
    "text": "script-loaded text (from the archived JSON)",
    "picture": "<img> the script added loaded",
    "requests": PART_LABELS["requests"],
}


@dataclass(frozen=True)
class Scripted:
    """One capture of the script-built site to look at, and what it must show."""

    label: str
    path: str
    text: str
    absent: tuple[str, ...]
    which: int  # index into the page's captures, oldest first (-1: the latest)


SCRIPTED = (
    Scripted(
        "script-built home page, newer capture",
        "/",
        SCRIPT_VERSIONS[1],
        (SCRIPT_VERSIONS[0], SHELL_TEXT),
        -1,
    ),
    Scripted(
        "script-built home page, older capture",
        "/",
        SCRIPT_VERSIONS[0],
        (SCRIPT_VERSIONS[1], SHELL_TEXT),
        0,
    ),
    Scripted("script-built story page", "/story1", STORY_TEXT, (SHELL_TEXT,), -1),
)


def scripted_expectation(capture: Scripted) -> dict[str, Any]:
    return {
        "scripted": True,
        "text": capture.text,
        "absent": list(capture.absent),
        "pictureSize": list(PICTURE_SIZE),
    }


def build_browser_project(folder: Path, site: ScriptSite) -> list[str]:
    """Two crawls of the script-built site in ``browser`` capture mode, a month apart,
    the home page's JSON edited between; returns the URLs the store holds as pages."""
    capture = replace(CaptureSettings(), mode="browser", idle=0.2)
    project = Project.init(folder)
    try:
        inject([site.url("/")], T0)
        for version, text in enumerate(SCRIPT_VERSIONS):
            site.stories["index"][0] = ("Harbour news", text, None)
            summary = crawl(
                project, fast_settings(capture=capture), clock=clock_at(version * MONTH)
            )
            print(
                f"browser crawl {version + 1}: {summary.fetched} pages fetched, "
                f"{summary.embeds_fetched} loaded by them ({summary.embed_errors} failed), "
                f"{summary.changed_pages} changed"
            )
        query = StoredPage.select(StoredPage.url).where(StoredPage.kind == PageKind.PAGE)
        return sorted(url for (url,) in query.tuples())
    finally:
        project.close()


def renderings_in(wacz: Path) -> tuple[int, int]:
    """The browser's DOMs and screenshots (urn:dom:, urn:screenshot: records) a package keeps."""
    from warcio.archiveiterator import ArchiveIterator

    doms = shots = 0
    with zipfile.ZipFile(wacz) as zf:
        for name in zf.namelist():
            if not name.startswith("archive/"):
                continue
            with zf.open(name) as stream:
                for record in ArchiveIterator(stream):
                    uri = record.rec_headers.get_header("WARC-Target-URI") or ""
                    doms += uri.startswith("urn:dom:")
                    shots += uri.startswith("urn:screenshot:")
    return doms, shots


def check_browser_capture(args: argparse.Namespace, plan: Plan, scratch: Path) -> int:
    """``--capture browser``: the script-built site crawled in Chromium, exported, its
    captures opened in ReplayWeb.page (and pywb): the text its scripts loaded from the
    archived JSON, the picture they added, no request leaving the replay."""
    results: dict[int, dict[str, Any]] = {}
    server = httpserver.TestServer().start()
    site = script_site(server, pages=3)
    live = [server.origin]
    try:
        project = scratch / "project"
        stored_pages = build_browser_project(project, site)
        for capture in SCRIPTED:
            if capture.which == -1:
                plan.add(
                    LIVE,
                    capture.label,
                    kind="live",
                    url=site.url(capture.path),
                    ts=None,
                    expect=scripted_expectation(capture),
                    url_to_open=site.url(capture.path),
                )
        results.update(run_browser(plan.checks, live, args, scratch))
    finally:
        server.stop()  # nothing replayed may reach the live site
    failed = 0
    web = _web_root(args, scratch)
    packages = {}
    for column in ("RWP all", "RWP latest"):
        flags = PACKAGES[column]
        wacz = web / "wacz" / f"{column.split()[-1]}.wacz"
        summary = export(project, wacz, *flags)
        packages[column] = wacz
        doms, shots = renderings_in(wacz)
        print(
            f"recrawl export {' '.join(flags)}: {summary['captures']} captures, "
            f"{summary['pages']} pages, {summary['bytes']} bytes; "
            f"{doms} rendered DOMs, {shots} screenshots"
        )
        ok, detail = check_pages_jsonl(wacz, stored_pages)
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {column}: pages.jsonl: {detail}")
    http = serve(web)
    base = f"http://127.0.0.1:{http.server_address[1]}"
    first = len(plan.checks)
    try:
        for column, wacz in packages.items():
            source = f"{base}/wacz/{wacz.name}"
            stamps = stamps_of(pages_of(wacz))
            for capture in SCRIPTED:
                url = site.url(capture.path)
                if capture.which == 0 and len(stamps.get(url, [])) < 2:
                    continue  # a latest package: no older capture to show
                ts = stamps[url][capture.which]
                plan.add(
                    column,
                    capture.label,
                    kind="replay",
                    url=url,
                    ts=ts,
                    expect=scripted_expectation(capture),
                    url_to_open=f"{base}/index.html?source={source}"
                    f"#view=replay&url={quote(url, safe=':/')}&ts={ts}",
                )
        results.update(run_browser(plan.checks[first:], live, args, scratch))
    finally:
        http.shutdown()
    columns = [LIVE, *packages]
    replay = start_pywb(project)
    if replay is not None:
        columns.append(PYWB)
        first = len(plan.checks)
        stamps = stamps_of(pages_of(packages["RWP all"]))
        try:
            for capture in SCRIPTED:
                url = site.url(capture.path)
                ts = stamps[url][capture.which]
                plan.add(
                    PYWB,
                    capture.label,
                    kind="pywb",
                    url=url,
                    ts=ts,
                    expect=scripted_expectation(capture),
                    url_to_open=replay.base + FRAME_PAGE,
                    frameHtml=pywb_frame(f"{replay.base}/project/{ts}mp_/{url}"),
                )
            results.update(run_browser(plan.checks[first:], live, args, scratch))
        finally:
            replay.stop()
    failed += report(plan, results, columns, args.verbose, BROWSER_PARTS, BROWSER_LABELS)
    version = json.loads((args.rwp / "package.json").read_text())["version"]
    total = len(plan.checks) + len(packages)
    print(
        f"ReplayWeb.page {version}, pywb, browser capture: {total - failed} of {total} checks passed"
    )
    return failed


def _web_root(args: argparse.Namespace, scratch: Path) -> Path:
    """ReplayWeb.page's files and a folder for the packages, to serve."""
    web = scratch / "web"
    (web / "wacz").mkdir(parents=True)
    (web / "replay").mkdir()
    for name in ("ui.js", "sw.js", "index.html"):
        shutil.copy(args.rwp / name, web / name)
    shutil.copy(args.rwp / "sw.js", web / "replay" / "sw.js")
    (web / "embed.html").write_text(EMBED_HTML, encoding="utf-8")
    return web


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rwp", type=Path, required=True, help="the replaywebpage package folder (ui.js, sw.js)"
    )
    parser.add_argument(
        "--node-modules",
        type=Path,
        required=True,
        help="a node_modules folder holding playwright-core",
    )
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("replayweb-check"),
        help="where the screenshots go (default: ./replayweb-check)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds each view may take to show what it should",
    )
    parser.add_argument(
        "--capture",
        choices=("http", "browser"),
        default="http",
        help="http: the check site above, crawled over HTTP (the default); browser: a site "
        "whose pages build their content from a JSON API (tests/support/scriptsite.py), "
        "crawled in capture.mode browser",
    )
    parser.add_argument("--verbose", action="store_true", help="every check's detail")
    parser.add_argument("--keep", action="store_true", help="keep the project and web root")
    args = parser.parse_args()
    for need in (args.rwp / "ui.js", args.rwp / "sw.js", args.node_modules / "playwright-core"):
        if not need.exists():
            parser.error(f"{need} is missing (see the instructions at the top of this file)")
    if not shutil.which("node") or not Path(args.chromium).exists():
        parser.error("needs node and Chromium (see the instructions at the top of this file)")
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="replayweb-check-"))
    plan = Plan(out, [])
    results: dict[int, dict[str, Any]] = {}
    failed = 0
    try:
        if args.capture == "browser":
            failed = check_browser_capture(args, plan, scratch)
            if args.keep:
                print(f"kept: {scratch}")
            return 1 if failed else 0
        site = Site.start()
        try:
            project = scratch / "project"
            stored_pages = build_project(project, site)
            plan_live(plan, site)
            results.update(run_browser(plan.checks, site.live_origins, args, scratch))
        finally:
            site.stop()  # nothing replayed may reach the live site
        web = _web_root(args, scratch)
        packages = {}
        for column, flags in PACKAGES.items():
            wacz = web / "wacz" / f"{column.split()[-1]}.wacz"
            summary = export(project, wacz, *flags)
            packages[column] = wacz
            print(
                f"recrawl export {' '.join(flags)}: {summary['captures']} captures, "
                f"{summary['pages']} pages, {summary['bytes']} bytes"
            )
        if also := sorted(set(stored_pages) - set(site.page_urls)):
            # an <iframe src> is a link as well as an embed (core/engine/parse.py)
            print(f"note: the store holds these as pages too: {', '.join(also)}")
        expected = {
            "RWP all": stored_pages,
            "RWP latest": stored_pages,
            "RWP site": [u for u in stored_pages if u.startswith(site.pages.origin + "/")],
        }
        for column, wacz in packages.items():
            ok, detail = check_pages_jsonl(wacz, expected[column])
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {column}: pages.jsonl: {detail}")
        server = serve(web)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        first = len(plan.checks)
        try:
            for column, wacz in packages.items():
                plan_package(plan, column, wacz, site, base, expected[column], stored_pages)
            results.update(run_browser(plan.checks[first:], site.live_origins, args, scratch))
        finally:
            server.shutdown()
        columns = [LIVE, *PACKAGES]
        replay = start_pywb(project)
        if replay is not None:
            columns.append(PYWB)
            first = len(plan.checks)
            try:
                plan_pywb(plan, replay.base, stamps_of(pages_of(packages["RWP all"])), site)
                results.update(run_browser(plan.checks[first:], site.live_origins, args, scratch))
            finally:
                replay.stop()
        failed += report(plan, results, columns, args.verbose)
        version = json.loads((args.rwp / "package.json").read_text())["version"]
        total = len(plan.checks) + len(packages)
        print(f"ReplayWeb.page {version}, pywb: {total - failed} of {total} checks passed")
        if args.keep:
            print(f"kept: {scratch}")
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
