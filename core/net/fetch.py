"""Fetching one URL with httpx: conditional GET, size caps, timeouts, errors as values.

The body is kept exactly as received (Content-Encoding kept) for the WARC, and decoded
separately under the same size cap, so a gzip bomb stops at the cap instead of filling
memory. Network problems never raise: they come back in :attr:`FetchResult.error`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from urllib.parse import urlsplit

import httpx
from recrawl.core.config import FetchSettings
from recrawl.core.net.http import HttpRequest, HttpResponse, decode_body, http_date


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
#: Hops followed where redirects are followed at all (robots.txt; RFC 9309 §2.3.1.2).
MAX_REDIRECTS = 5
TOO_MANY_REDIRECTS = "too many redirects"


class Fetcher:
    """httpx async clients with Recrawl's defaults; one fetcher per crawl.

    Requests are spread over several clients ("lanes"): httpcore checks every pooled
    connection of a client on each request, so one pool of 32 connections costs more
    CPU than the requests themselves on a fast network; pools of four don't.
    """

    def __init__(self, settings: FetchSettings, max_connections: int = 16) -> None:
        self.settings = settings
        lanes = max(1, -(-max_connections // CONNECTIONS_PER_LANE))
        tls = httpx.create_ssl_context()  # one for all lanes: each costs tens of ms
        self.transports = [
            httpx.AsyncHTTPTransport(
                verify=tls,
                limits=httpx.Limits(
                    max_connections=None, max_keepalive_connections=CONNECTIONS_PER_LANE
                ),
            )
            for _ in range(lanes)
        ]
        self.clients = [self._client(transport) for transport in self.transports]

    def _client(self, transport: httpx.AsyncHTTPTransport) -> httpx.AsyncClient:
        settings = self.settings
        return httpx.AsyncClient(
            transport=transport,
            follow_redirects=False,
            max_redirects=MAX_REDIRECTS,
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
    ) -> FetchResult:
        """Fetch ``url``; ``lane`` picks the client (keep one host's requests on few lanes)."""
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
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(self.settings.total_timeout):
                await self._fetch_into(
                    client, transport, result, url, headers, cap, follow_redirects
                )
        except TimeoutError:
            if result.response is None:
                result.error = f"timed out after {self.settings.total_timeout:g} s"
            else:  # keep what arrived, marked as cut (WARC-Truncated: time)
                result.truncated = "time"
        except httpx.TimeoutException as exc:
            if result.response is None or not result.parts:
                result.error = f"timeout ({type(exc).__name__})"
            else:
                result.truncated = "time"
        except httpx.TooManyRedirects:
            result.error = TOO_MANY_REDIRECTS
        except httpx.InvalidURL as exc:  # a redirect (robots.txt) to a URL httpx can't use
            result.error = f"bad redirect target: {exc}"
        except httpx.HTTPError as exc:
            if result.response is not None and result.parts:
                result.truncated = "disconnect"  # the server hung up mid-body
            else:
                result.error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
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
        request = client.build_request("GET", url, headers=headers)
        if follow_redirects:
            response = await client.send(request, stream=True, follow_redirects=True)
        else:
            # Straight to the transport: httpx's client would parse every Location, even
            # when not following it, and fail on one it can't use (javascript:, mailto:)
            # before we could archive the redirect.
            response = await transport.handle_async_request(request)
            response.request = request
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
