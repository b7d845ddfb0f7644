"""A hostile web server on 127.0.0.1, run as its own process, every misbehaviour by path.

Run by :class:`HostileServer` (``python tests/support/hostile.py`` prints its ports as JSON);
its own process, so the crawl under test shares no GIL with it. It speaks raw bytes over
asyncio streams, so it can break HTTP in ways no library server would: hang before or
after its headers, drip a byte a second, lie about lengths, reset mid-body, answer in
HTTP/1.0, send bombs. Stdlib only: it never imports Recrawl.

Origins (each a port; robots.txt is per origin): ``main`` (the paths below, robots.txt
denies ``/denied/``), ``robots_html`` (robots.txt is an HTML page with rules in it),
``robots_5xx`` (robots.txt answers 503), ``robots_hang`` (robots.txt never answers),
``throttle`` (answers 429 with an absurd Retry-After; crawl it as ``localhost`` so its
politeness slot is not 127.0.0.1's), and ``down`` (a port nothing listens on).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import random
import socket
import struct
import subprocess
import sys
import zlib
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

MiB = 1 << 20
#: Bombs inflate to this much.
BOMB_BYTES = 1 << 30
#: Links on /links/many (all to /denied/…, which robots.txt denies).
MANY_LINKS = 100_000
NESTED_DIVS = 100_000
REDIRECT_CHAIN = 50
CALENDAR_START = date(2027, 1, 1)
HUGE_RETRY_AFTER = "999999999"
#: A body longer than its declared length (/length/short) sends this after the declared part.
EXCESS = b" and these bytes were never declared, so they spill into the next answer"

#: The main origin's paths, each one behaviour; ``main`` seeds a crawl with all of them.
PATHS = (
    "/plain/1",
    "/plain/2",
    "/plain/3",
    "/hang/before-headers",
    "/hang/after-headers",
    "/hang/mid-body",
    "/drip",
    "/slow-headers",
    "/endless",
    "/endless/chunked",
    "/length/2gb",
    "/length/short",
    "/length/long",
    "/length/long-hang",
    "/http10",
    "/reset/mid-body",
    "/bomb/gzip",
    "/bomb/gzip-in-gzip",
    "/bomb/deflate",
    "/bomb/brotli",
    "/bomb/corrupt-gzip",
    "/redirect/loop-a",
    "/redirect/chain/0",
    "/status/500",
    "/status/502",
    "/status/500-hang",
    "/charset/invalid-utf8",
    "/charset/lying",
    "/charset/lying-meta",
    "/binary-as-html",
    "/links/malformed",
    "/links/many",
    f"/calendar/{CALENDAR_START.isoformat()}",
    "/nested-divs",
    "/headers/200",
    "/headers/100kb-line",
    "/headers/300kb",
    "/cookies/storm",
)

ROBOTS = b"User-agent: *\nDisallow: /denied/\n"
ROBOTS_HTML = (
    b"<!DOCTYPE html>\n<html><head><title>robots</title></head><body>\n<pre>\n"
    b"User-agent: *\nDisallow: /private\n</pre>\n</body></html>\n"
)
#: Hrefs a parser must survive: a 10 kB URL, an unclosed IPv6 literal, IDN hosts, junk.
MALFORMED_HREFS = (
    "/long/" + "a" * 10_000,
    "http://[::1",
    "http://[::1]:99999/",
    "http://bücher.example/",
    "http://xn--bcher-kva.example/",
    "http://xn--/",
    "http://%zz/",
    "http://exa mple.com/",
    "http://a..b/",
    "http://127.0.0.1:99999/",
    "\x00javascript:alert(1)",
)


# -- payloads ------------------------------------------------------------------------


def _repeated_deflate(total: int) -> tuple[bytes, int]:
    """Raw deflate of ``total`` zero bytes (about 1 KB per MiB), built without them.

    One MiB compressed and fully flushed is a run of blocks that refer to nothing
    before it, so repeating it and closing with an empty final block is a valid stream.
    Returns the stream and the zeros' CRC-32.
    """
    co = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    piece = co.compress(bytes(MiB)) + co.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    zeros = bytes(MiB)
    for _ in range(total // MiB):
        crc = zlib.crc32(zeros, crc)
    return piece * (total // MiB) + b"\x03\x00", crc  # 03 00: an empty final block


def gzip_bomb(total: int = BOMB_BYTES) -> bytes:
    deflated, crc = _repeated_deflate(total)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + deflated + struct.pack("<II", crc, total & 0xFFFFFFFF)


def deflate_bomb(total: int = BOMB_BYTES) -> bytes:
    deflated, _ = _repeated_deflate(total)
    adler = 1
    zeros = bytes(MiB)
    for _ in range(total // MiB):
        adler = zlib.adler32(zeros, adler)
    return b"\x78\xda" + deflated + struct.pack(">I", adler)


def brotli_bomb(total: int = BOMB_BYTES) -> bytes:
    """A brotli stream (RFC 7932) of ``total`` zero bytes, under a kilobyte for 1 GiB.

    Each meta-block of up to 16 MiB holds one command (one literal zero the first time,
    then a copy at distance 1 of up to 16 MiB) with one-symbol prefix codes, which cost
    no bits: only the lengths' extra bits are written.
    """
    bits, count = 0, 0

    def put(value: int, width: int) -> None:
        nonlocal bits, count
        bits |= value << count
        count += width

    put(0, 1)  # WBITS = 16
    done = 0
    while done < total:
        length = min(1 << 24, total - done)
        nibbles = max(4, -(-(length - 1).bit_length() // 4))
        put(0, 1)  # ISLAST
        put(nibbles - 4, 2)  # MNIBBLES
        put(length - 1, 4 * nibbles)  # MLEN - 1
        put(0, 1)  # ISUNCOMPRESSED
        put(0, 3)  # one block type for literals, for commands, for distances
        put(0, 6)  # NPOSTFIX, NDIRECT
        put(0, 2)  # the literal block type's context mode
        put(0, 2)  # one literal tree, one distance tree
        first = done == 0
        insert = 1 if first else 0
        copy = length - insert
        # the literal 0; insert code 0/1 with copy code 23 (explicit distance); distance
        # code 16 (1 extra bit: distance 1), then 0 (the last distance, still 1)
        for symbol, width in ((0, 8), (384 + (insert << 3) + 7, 10), (16 if first else 0, 6)):
            put(1, 2)  # a simple prefix code...
            put(0, 2)  # ...of one symbol
            put(symbol, width)
        put(copy - 2118, 24)  # copy length code 23: 2118 + 24 extra bits
        if first:
            put(0, 1)
        done += length
    put(3, 2)  # ISLAST, ISLASTEMPTY
    return bits.to_bytes((count + 7) // 8, "little")


def html(body: str, title: str = "hostile") -> bytes:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>".encode()


def _many_links() -> bytes:
    links = "".join(f'<a href="/denied/{i}">{i}</a>\n' for i in range(MANY_LINKS))
    return html(links, "100,000 links")


def _malformed_links() -> bytes:
    from html import escape

    hrefs = "".join(f'<a href="{escape(h)}">x</a>\n' for h in MALFORMED_HREFS)
    return html(hrefs + '<a href="/plain/1">fine</a>', "malformed links")


def _nested_divs() -> bytes:
    return html("<div>" * NESTED_DIVS + '<a href="/plain/2">deep</a>' + "</div>" * NESTED_DIVS)


# -- the server ------------------------------------------------------------------------

Writer = asyncio.StreamWriter
Handler = Callable[[Writer, str], Awaitable[bool]]  # returns: keep the connection open


class Hostile:
    """The behaviours, each a coroutine writing raw bytes; payloads are built once."""

    def __init__(self) -> None:
        self.bombs = {
            "gzip": (gzip_bomb(), "gzip"),
            "gzip-in-gzip": (gzip.compress(gzip_bomb(), mtime=0), "gzip, gzip"),
            "deflate": (deflate_bomb(), "deflate"),
            "brotli": (brotli_bomb(), "br"),
            "corrupt-gzip": (b"\x1f\x8b\x08\x00" + random.Random(8).randbytes(4000), "gzip"),
        }
        self.many_links = _many_links()
        self.malformed_links = _malformed_links()
        self.nested_divs = _nested_divs()
        self.binary = random.Random(1).randbytes(MiB)

    # helpers

    @staticmethod
    async def head(
        w: Writer, status: str, headers: list[tuple[str, str]], version: str = "HTTP/1.1"
    ) -> None:
        lines = [f"{version} {status}"] + [f"{k}: {v}" for k, v in headers]
        w.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await w.drain()

    async def page(
        self,
        w: Writer,
        body: bytes,
        ctype: str = "text/html; charset=utf-8",
        status: str = "200 OK",
        extra: list[tuple[str, str]] | None = None,
    ) -> bool:
        headers = [("Content-Type", ctype), ("Content-Length", str(len(body))), *(extra or [])]
        await self.head(w, status, headers)
        w.write(body)
        await w.drain()
        return True

    @staticmethod
    async def forever() -> None:
        # a timer, not an Event nobody else holds: the loop keeps the sleeping task alive
        await asyncio.sleep(86400)

    @staticmethod
    async def endless(w: Writer, chunked: bool) -> None:
        piece = b"<p>" + b"endless " * 8000 + b"</p>\n"
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
        while True:
            w.write(frame)
            await w.drain()

    # dispatch

    async def main(self, w: Writer, path: str) -> bool:
        if path == "/robots.txt":
            return await self.page(w, ROBOTS, "text/plain")
        if path.startswith(("/plain/", "/denied/", "/private", "/public", "/long/")):
            return await self.page(w, html(f'<p>{path}</p><a href="/plain/3">3</a>'))
        if path.startswith("/calendar/"):
            day = date.fromisoformat(path.rsplit("/", 1)[1]) + timedelta(days=1)
            return await self.page(w, html(f'<a href="/calendar/{day.isoformat()}">next day</a>'))
        if path.startswith("/redirect/"):
            return await self.redirect(w, path)
        if path.startswith("/bomb/"):
            body, coding = self.bombs[path.rsplit("/", 1)[1]]
            return await self.page(w, body, extra=[("Content-Encoding", coding)])
        if path.startswith(("/drip", "/slow-headers")):
            # ?every=S: seconds between bytes (lines); 1 by default, as the issue saw it
            every = float(parse_qs(urlsplit(path).query).get("every", ["1"])[0])
            if path.startswith("/drip"):
                return await self.drip(w, every)
            return await self.slow_headers(w, every)
        handler = getattr(self, "do_" + path.strip("/").replace("/", "_").replace("-", "_"), None)
        if handler is None:
            return await self.page(w, html("<p>not found</p>"), status="404 Not Found")
        keep: bool = await handler(w)
        return keep

    async def redirect(self, w: Writer, path: str) -> bool:
        if path == "/redirect/loop-a":
            target = "/redirect/loop-b"
        elif path == "/redirect/loop-b":
            target = "/redirect/loop-a"
        else:
            hop = int(path.rsplit("/", 1)[1])
            target = f"/redirect/chain/{hop + 1}" if hop < REDIRECT_CHAIN else "/plain/1"
        await self.head(w, "302 Found", [("Location", target), ("Content-Length", "0")])
        return True

    # behaviours (do_<path with / and - as _>)

    async def do_hang_before_headers(self, w: Writer) -> bool:
        await self.forever()
        return False

    async def do_hang_after_headers(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", "1000")])
        await self.forever()
        return False

    async def do_hang_mid_body(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", "100000")])
        w.write(b"<html><body><p>the first part, then nothing" + b"." * 1000)
        await w.drain()
        await self.forever()
        return False

    async def drip(self, w: Writer, every: float) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Connection", "close")])
        while True:  # a byte at a time: never idle long enough for a read timeout
            w.write(b".")
            await w.drain()
            await asyncio.sleep(every)

    async def slow_headers(self, w: Writer, every: float) -> bool:
        w.write(b"HTTP/1.1 200 OK\r\n")
        for n in range(10**9):  # a header line at a time, never the blank line
            w.write(f"X-Slow-{n}: {n}\r\n".encode())
            await w.drain()
            await asyncio.sleep(every)
        return False

    async def do_endless(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Connection", "close")])
        await self.endless(w, chunked=False)
        return False

    async def do_endless_chunked(self, w: Writer) -> bool:
        await self.head(
            w, "200 OK", [("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")]
        )
        await self.endless(w, chunked=True)
        return False

    async def do_length_2gb(self, w: Writer) -> bool:
        await self.head(
            w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", str(2 << 30))]
        )
        await self.endless(w, chunked=False)
        return False

    async def do_length_short(self, w: Writer) -> bool:
        body = html('<p>declared</p><a href="/plain/2">2</a>')
        await self.head(
            w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))]
        )
        w.write(body + EXCESS)  # kept alive: the excess is where the next answer should be
        await w.drain()
        return True

    async def do_length_long(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", "100000")])
        w.write(html("<p>far less than declared</p>"))
        await w.drain()
        return False  # and hang up

    async def do_length_long_hang(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", "100000")])
        w.write(html("<p>far less than declared, and then silence</p>"))
        await w.drain()
        await self.forever()
        return False

    async def do_http10(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html")], version="HTTP/1.0")
        w.write(
            html(
                '<p>HTTP/1.0, no length: the body ends when the server hangs up</p><a href="/plain/1">1</a>'
            )
        )
        await w.drain()
        return False

    async def do_reset_mid_body(self, w: Writer) -> bool:
        await self.head(w, "200 OK", [("Content-Type", "text/html"), ("Content-Length", "100000")])
        w.write(b"<html><body><p>reset after this" + b"." * 5000)
        await w.drain()
        sock = w.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        w.transport.abort()  # SO_LINGER 0: the close is a RST
        return False

    async def do_status_500(self, w: Writer) -> bool:
        return await self.page(
            w, html("<h1>Internal Server Error</h1>"), status="500 Internal Server Error"
        )

    async def do_status_502(self, w: Writer) -> bool:
        return await self.page(w, html("<h1>Bad Gateway</h1>"), status="502 Bad Gateway")

    async def do_status_500_hang(self, w: Writer) -> bool:
        await self.head(
            w,
            "500 Internal Server Error",
            [("Content-Type", "text/html"), ("Content-Length", "1000")],
        )
        await self.forever()
        return False

    async def do_charset_invalid_utf8(self, w: Writer) -> bool:
        body = b'<html><body><p>caf\xc3 \xff\xfe \xed\xa0\x80 \xc0\xaf</p><a href="/plain/1">1</a></body></html>'
        return await self.page(w, body, "text/html; charset=utf-8")

    async def do_charset_lying(self, w: Writer) -> bool:
        body = '<html><body><p>naïve café, not UTF-16</p><a href="/plain/2">2</a></body></html>'
        return await self.page(w, body.encode(), "text/html; charset=utf-16")

    async def do_charset_lying_meta(self, w: Writer) -> bool:
        body = '<html><head><meta charset="shift_jis"></head><body><p>Ünïcödé</p><a href="/plain/3">3</a></body></html>'
        return await self.page(w, body.encode(), "text/html; charset=bogus-charset-9")

    async def do_binary_as_html(self, w: Writer) -> bool:
        return await self.page(w, self.binary, "text/html")

    async def do_links_malformed(self, w: Writer) -> bool:
        return await self.page(w, self.malformed_links)

    async def do_links_many(self, w: Writer) -> bool:
        return await self.page(w, self.many_links)

    async def do_nested_divs(self, w: Writer) -> bool:
        return await self.page(w, self.nested_divs)

    async def do_headers_200(self, w: Writer) -> bool:
        extra = [(f"X-Header-{i}", f"value {i}") for i in range(200)]
        return await self.page(w, html("<p>two hundred headers</p>"), extra=extra)

    async def do_headers_100kb_line(self, w: Writer) -> bool:
        return await self.page(w, html("<p>one huge header</p>"), extra=[("X-Huge", "h" * 100_000)])

    async def do_headers_300kb(self, w: Writer) -> bool:
        extra = [(f"X-Big-{i}", "b" * 1000) for i in range(300)]  # past httpcore's 100 KiB
        return await self.page(w, html("<p>300 kB of headers</p>"), extra=extra)

    async def do_cookies_storm(self, w: Writer) -> bool:
        cookies = [("Set-Cookie", f"c{i}={'v' * 40}; Path=/") for i in range(1000)]
        return await self.page(w, html("<p>a thousand cookies</p>"), extra=cookies)

    # the other origins

    async def robots_html(self, w: Writer, path: str) -> bool:
        if path == "/robots.txt":
            return await self.page(w, ROBOTS_HTML)
        return await self.page(
            w, html(f'<p>{path}</p><a href="/private/x">p</a> <a href="/public">q</a>')
        )

    async def robots_5xx(self, w: Writer, path: str) -> bool:
        if path == "/robots.txt":
            return await self.page(w, b"overloaded", "text/plain", "503 Service Unavailable")
        return await self.page(w, html(f"<p>{path}</p>"))

    async def robots_hang(self, w: Writer, path: str) -> bool:
        if path == "/robots.txt":
            await self.forever()
        return await self.page(w, html(f"<p>{path}</p>"))

    async def throttle(self, w: Writer, path: str) -> bool:
        if path == "/robots.txt":
            return await self.page(w, b"", "text/plain", "404 Not Found")
        return await self.page(
            w,
            b"slow down",
            "text/plain",
            "429 Too Many Requests",
            [("Retry-After", HUGE_RETRY_AFTER)],
        )


async def _serve_connection(
    handler: Callable[[Writer, str], Awaitable[bool]], reader: asyncio.StreamReader, writer: Writer
) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                return
            path = head.split(b" ", 2)[1].decode("latin-1")
            if not await handler(writer, path):
                return
    except (ConnectionError, OSError):
        return  # the client hung up: part of the game
    finally:
        writer.close()


async def _serve() -> None:
    hostile = Hostile()
    origins: dict[str, Callable[[Writer, str], Awaitable[bool]]] = {
        "main": hostile.main,
        "robots_html": hostile.robots_html,
        "robots_5xx": hostile.robots_5xx,
        "robots_hang": hostile.robots_hang,
        "throttle": hostile.throttle,
    }
    ports: dict[str, int] = {}
    servers = []
    for name, handler in origins.items():

        async def connected(r: asyncio.StreamReader, w: Writer, handler: Handler = handler) -> None:
            await _serve_connection(handler, r, w)

        server = await asyncio.start_server(connected, "127.0.0.1", 0, limit=MiB)
        servers.append(server)
        ports[name] = server.sockets[0].getsockname()[1]
    # bound but never listening, as long as the server runs: a connection is refused, and
    # no other server (a test running in parallel) can take the port meanwhile
    with socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))
        ports["down"] = dead.getsockname()[1]
        print(json.dumps(ports), flush=True)
        await asyncio.gather(*(server.serve_forever() for server in servers))


class HostileServer:
    """The hostile server in its own process; ``url(path)`` and friends give its URLs."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())], stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._process.wait(10)
            raise RuntimeError("the hostile server did not start")
        self.ports: dict[str, int] = json.loads(line)

    def origin(self, name: str = "main", host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.ports[name]}"

    def url(self, path: str, origin: str = "main") -> str:
        host = "localhost" if origin == "throttle" else "127.0.0.1"
        return self.origin(origin, host) + path

    def seeds(self) -> list[str]:
        """Every behaviour's URL, all origins."""
        return [
            *(self.url(path) for path in PATHS),
            self.url("/", "robots_html"),
            self.url("/", "robots_5xx"),
            self.url("/", "robots_hang"),
            self.url("/", "down"),
            self.url("/retry-after", "throttle"),
        ]

    def stop(self) -> None:
        self._process.kill()
        self._process.communicate(timeout=10)


if __name__ == "__main__":
    asyncio.run(_serve())
