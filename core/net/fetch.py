"""Fetching one URL with httpx: conditional GET, size caps, timeouts, errors as values.

The body is kept exactly as received (Content-Encoding kept) for the WARC, and decoded
separately under the same size cap, so a gzip bomb stops at the cap instead of filling
memory. Network problems never raise: they come back in :attr:`FetchResult.error`.

Two clocks bound a fetch: the read timeout (no byte for that long) and the whole-request
limit (:attr:`FetchSettings.whole_request_timeout`), which a server dripping a byte a
second or sending headers line by line would otherwise never trip.

A kept-alive connection is only as good as the last response's framing: a server that
sends more than its Content-Length leaves bytes that the next response on the connection
would be read from ("illegal status line"). httpcore cannot tell before reusing it, but
it closes a connection on any protocol error; a request that fails that way on a reused
connection, before any answer, is sent again on a fresh one, so the next page never
pays for the last one's framing (RFC 9112 §9.3.1 allows it for idempotent requests).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from http.cookiejar import CookieJar, DefaultCookiePolicy
from typing import Any
from urllib.parse import urlsplit

import httpx
from recrawl.core.config import FetchSettings
from recrawl.core.net.http import HttpRequest, HttpResponse, decode_body, http_date
from recrawl.core.net.streams import Transport


@dataclass
class FetchResult:
    url: str
    started_at: datetime
    request: HttpRequest | None = None
    response: HttpResponse | None = None
    #: WARC-Truncated reason when the body was cut ("length" or "time").
    truncated: str | None = None
    #: The content-decoded body, capped; None when nothing was received.
    decoded: bytes | None = None
    #: Why decoding stopped short, e.g. a gzip bomb or an unknown coding.
    decode_error: str | None = None
    #: Network/protocol failure; no response then.
    error: str | None = None
    #: The failure came before any connection was made (DNS, refused, no route, connect
    #: timeout): the host was not reached at all. A watcher tells "offline" from "this
    #: host is down" by it (engine/offline.py).
    unreachable: bool = False
    elapsed_ms: float = 0.0
    ip: str | None = None
    #: Body chunks as they arrive; folded into ``response.body`` when the fetch ends.
    parts: list[bytes] = field(default_factory=list)

    @property
    def status(self) -> int | None:
        return self.response.status if self.response else None

    def header(self, name: str) -> str | None:
        if not self.response:
            return None
        name = name.lower()
        for key, value in self.response.headers:
            if key.lower() == name:
                return value
        return None


CONNECTIONS_PER_LANE = 4
#: Request headers the crawler always sends as its own: who it is, what it can decode,
#: no cookies, the whole body (a range would archive a part), the connection's own.
OWN_HEADERS = frozenset(
    {
        "host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade",
        "user-agent", "accept-encoding", "cookie", "range", "if-range", "if-none-match",
        "if-modified-since", "te", "proxy-authorization",
    }
)  # fmt: skip
TOO_MANY_REDIRECTS = "too many redirects"
#: How a followed redirect to a URL httpx cannot request (javascript:, a bad host) starts.
BAD_REDIRECT = "bad redirect target"
#: Errors of a reused connection that say it was spoilt or closed before the request
#: (a previous response's excess bytes, a keep-alive the server dropped).
STALE_CONNECTION_ERRORS = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """One TLS context for every fetcher of the process: loading the system's certificates
    takes 100-150 ms, which a watcher would otherwise pay at each round (an SSLContext
    may be shared by connections of any thread)."""
    return httpx.create_ssl_context()


class Fetcher:
    """httpx async clients with Recrawl's defaults; one fetcher per crawl.

    Requests are spread over several clients ("lanes"): httpcore checks every pooled
    connection of a client on each request, so one pool of 32 connections costs more
    CPU than the requests themselves on a fast network; pools of four don't.
    """

    def __init__(self, settings: FetchSettings, max_connections: int = 16) -> None:
        self.settings = settings
        lanes = max(1, -(-max_connections // CONNECTIONS_PER_LANE))
        tls = shared_tls_context()
        self.transports = [
            Transport(
                tls,
                httpx.Limits(max_connections=None, max_keepalive_connections=CONNECTIONS_PER_LANE),
            )
            for _ in range(lanes)
        ]
        self.clients = [self._client(transport) for transport in self.transports]
        # Each request is built from these, not by the client's build_request: that
        # merges the client's URL, headers, cookies and parameters anew for every page
        # (the same every time: no base URL, no parameters, a jar that keeps nothing).
        self._headers = list(self.clients[0].headers.raw)
        self._timeouts = self.clients[0].timeout.as_dict()

    def _client(self, transport: httpx.AsyncHTTPTransport) -> httpx.AsyncClient:
        settings = self.settings
        return httpx.AsyncClient(
            transport=transport,
            follow_redirects=False,
            max_redirects=settings.max_redirects,
            timeout=httpx.Timeout(
                settings.read_timeout,
                connect=settings.connect_timeout,
                pool=None,
            ),
            headers={
                "User-Agent": settings.user_agent,
                "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                "Accept-Encoding": settings.accept_encoding,
            },
            # no cookies kept: a crawler has no session, and a Set-Cookie storm would
            # otherwise grow the jar and every later request's Cookie header
            cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),
            trust_env=False,
        )

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()

    async def fetch(
        self,
        url: str,
        started_at: datetime,
        *,
        etag: str | None = None,
        last_modified: datetime | None = None,
        max_bytes: int | None = None,
        follow_redirects: bool = False,
        lane: int = 0,
        sent_as: list[tuple[str, str]] | None = None,
    ) -> FetchResult:
        """Fetch ``url``; ``lane`` picks the client (keep one host's requests on few lanes).

        ``sent_as``: headers a browser asked to send (its Accept, Referer, Origin, what a
        script set), in place of the crawler's own of the same names; never those that
        make the response something else than the whole body (:data:`OWN_HEADERS`)."""
        lane %= len(self.clients)
        client, transport = self.clients[lane], self.transports[lane]
        result = FetchResult(url=url, started_at=started_at)
        cap = max_bytes if max_bytes is not None else self.settings.max_body_bytes
        headers: list[tuple[bytes, bytes]] = []
        if etag:
            # sent back byte for byte as it came (latin-1), even when not ASCII
            headers.append((b"If-None-Match", etag.encode("latin-1", "replace")))
        if last_modified:
            headers.append((b"If-Modified-Since", http_date(last_modified).encode("ascii")))
        base = self._headers
        if sent_as:
            extra = [(k, v) for k, v in sent_as if k.lower() not in OWN_HEADERS]
            names = {k.lower().encode("latin-1") for k, _ in extra}
            base = [(k, v) for k, v in base if k.lower() not in names]
            headers += [(k.encode("latin-1"), v.encode("latin-1", "replace")) for k, v in extra]
        limit = self.settings.whole_request_timeout
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(limit):
                await self._fetch_into(
                    client, transport, result, url, base + headers, cap, follow_redirects
                )
        except TimeoutError:
            if result.response is None:
                result.error = f"timed out after {limit:g} s (whole-request limit)"
            else:  # keep what arrived, marked as cut (WARC-Truncated: time)
                result.truncated = "time"
        except httpx.TimeoutException as exc:
            if result.response is None or not result.parts:
                result.error = f"timeout ({type(exc).__name__})"
                result.unreachable = isinstance(exc, httpx.ConnectTimeout)
            else:
                result.truncated = "time"
        except httpx.TooManyRedirects:
            result.error = TOO_MANY_REDIRECTS
        except httpx.InvalidURL as exc:  # a redirect (robots.txt) to a URL httpx can't use
            result.error = f"{BAD_REDIRECT}: {exc}"
        except httpx.HTTPError as exc:
            if result.response is not None and result.parts:
                result.truncated = "disconnect"  # the server hung up mid-body
            else:
                result.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                result.unreachable = isinstance(exc, httpx.ConnectError)
        except (OSError, ValueError, UnicodeError) as exc:
            result.error = f"{type(exc).__name__}: {exc}"
        result.elapsed_ms = (time.perf_counter() - t0) * 1000
        if result.response is not None:
            result.response = replace(result.response, body=b"".join(result.parts)[:cap])
            result.parts = []
        if result.response is not None and result.error is None:
            result.decoded, result.decode_error = decode_body(
                result.response.body,
                result.header("content-encoding"),
                self.settings.max_body_bytes if max_bytes is None else max_bytes,
            )
        return result

    async def _fetch_into(
        self,
        client: httpx.AsyncClient,
        transport: httpx.AsyncHTTPTransport,
        result: FetchResult,
        url: str,
        headers: list[tuple[bytes, bytes]],
        cap: int,
        follow_redirects: bool,
    ) -> None:
        # each failure on a reused connection closes it; a lane pools this many
        for attempt in range(CONNECTIONS_PER_LANE + 1):
            fresh = _FreshConnection()
            request = httpx.Request(
                "GET",
                url,
                headers=headers,
                extensions={"timeout": self._timeouts, "trace": fresh},
            )
            try:
                response = await self._send(client, transport, request, follow_redirects)
            except STALE_CONNECTION_ERRORS:
                if fresh.opened or attempt == CONNECTIONS_PER_LANE:
                    raise  # the server itself, not a spoilt connection
                continue
            break
        try:
            sent = response.request
            parts = urlsplit(str(sent.url))
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            result.request = HttpRequest(
                "GET",
                target,
                "HTTP/1.1",
                [(k.decode("latin-1"), v.decode("latin-1")) for k, v in sent.headers.raw],
            )
            if follow_redirects:
                result.url = str(sent.url)
            status_headers = [
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers.raw
            ]
            # The body arrives in result.parts, so a timeout or a hang-up mid-body still
            # leaves what came (fetch() assembles it and marks the record truncated).
            result.response = HttpResponse(
                response.http_version or "HTTP/1.1",
                response.status_code,
                response.reason_phrase or "",
                status_headers,
                b"",
            )
            size = 0
            async for chunk in response.aiter_raw():
                result.parts.append(chunk)
                size += len(chunk)
                if size > cap:
                    result.truncated = "length"
                    break
            stream = response.extensions.get("network_stream")
            if stream is not None:
                addr = stream.get_extra_info("server_addr")
                if addr:
                    result.ip = str(addr[0])
        finally:
            await response.aclose()

    @staticmethod
    async def _send(
        client: httpx.AsyncClient,
        transport: httpx.AsyncHTTPTransport,
        request: httpx.Request,
        follow_redirects: bool,
    ) -> httpx.Response:
        if follow_redirects:
            return await client.send(request, stream=True, follow_redirects=True)
        # Straight to the transport: httpx's client would parse every Location, even
        # when not following it, and fail on one it can't use (javascript:, mailto:)
        # before we could archive the redirect.
        response = await transport.handle_async_request(request)
        response.request = request
        return response


class _FreshConnection:
    """httpcore's ``trace`` hook: notes whether the request opened a new connection."""

    def __init__(self) -> None:
        self.opened = False

    async def __call__(self, event: str, info: dict[str, Any]) -> None:
        if event.startswith("connection.connect_tcp."):
            self.opened = True
