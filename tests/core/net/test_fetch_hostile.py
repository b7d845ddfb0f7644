"""The fetcher against the hostile server (tests/support/hostile.py): every misbehaviour ends in a
result that says what happened, within the read timeout or the whole-request limit."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
from recrawl.core.config import FetchSettings
from recrawl.core.net.fetch import TOO_MANY_REDIRECTS, Fetcher, FetchResult
from recrawl.core.net.robots import policy_from

from tests.support.crawling import T0
from tests.support.hostile import EXCESS, HostileServer, brotli_bomb, deflate_bomb, gzip_bomb

MiB = 1 << 20
CAP = 4 * MiB  # more than a bomb (about 1 MB), far less than it inflates to
#: Read timeout 0.5 s: the whole-request limit follows at ten times that.
SETTINGS = replace(FetchSettings(), read_timeout=0.5, connect_timeout=0.5, max_body_bytes=CAP)
WHOLE = 5.0


@pytest.fixture(scope="module")
def hostile() -> Iterator[HostileServer]:
    server = HostileServer()
    yield server
    server.stop()


async def _fetch_all(urls: list[str], **kwargs: object) -> list[FetchResult]:
    fetcher = Fetcher(SETTINGS, max_connections=64)
    try:
        # a lane each: no fetch waits behind another's connection
        return await asyncio.gather(
            *(fetcher.fetch(url, T0, lane=i, **kwargs) for i, url in enumerate(urls))  # type: ignore[arg-type]
        )
    finally:
        await fetcher.aclose()


@pytest.fixture(scope="module")
def results(hostile: HostileServer) -> dict[str, FetchResult]:
    paths = [
        "/hang/before-headers",
        "/hang/after-headers",
        "/hang/mid-body",
        "/drip?every=0.1",
        "/slow-headers?every=0.1",
        "/endless",
        "/endless/chunked",
        "/length/2gb",
        "/length/long",
        "/length/long-hang",
        "/http10",
        "/reset/mid-body",
        "/bomb/gzip",
        "/bomb/gzip-in-gzip",
        "/bomb/deflate",
        "/bomb/brotli",
        "/bomb/corrupt-gzip",
        "/status/500-hang",
        "/headers/200",
        "/headers/100kb-line",
        "/headers/300kb",
        "/cookies/storm",
    ]
    started = time.monotonic()
    fetched = asyncio.run(_fetch_all([hostile.url(p) for p in paths]))
    # everything at once: the slowest is bounded by the whole-request limit, not 120 s
    assert time.monotonic() - started < WHOLE + 20
    return dict(zip(paths, fetched, strict=True))


def test_the_whole_request_limit_follows_the_read_timeout():
    assert FetchSettings().whole_request_timeout == 120.0  # 30 s read: 300 s, capped
    assert replace(FetchSettings(), read_timeout=5.0).whole_request_timeout == 50.0
    assert replace(FetchSettings(), read_timeout=5.0, total_timeout=7.0).whole_request_timeout == 7
    assert SETTINGS.whole_request_timeout == WHOLE


@pytest.mark.parametrize(
    "path", ["/hang/before-headers", "/hang/after-headers", "/status/500-hang"]
)
def test_a_hang_is_a_read_timeout(results, path):
    result = results[path]
    assert result.error == "timeout (ReadTimeout)"
    assert result.elapsed_ms < WHOLE * 1000


@pytest.mark.parametrize("path", ["/hang/mid-body", "/length/long-hang"])
def test_a_hang_mid_body_keeps_what_came(results, path):
    result = results[path]
    assert result.error is None and result.truncated == "time"
    assert result.response is not None and 0 < len(result.response.body) < 100_000


def test_a_drip_is_cut_by_the_whole_request_limit(results):
    result = results["/drip?every=0.1"]
    assert result.error is None and result.truncated == "time"
    assert result.response is not None and result.response.body.strip(b".") == b""
    assert WHOLE * 1000 <= result.elapsed_ms < (WHOLE + 15) * 1000


def test_slow_headers_are_cut_by_the_whole_request_limit(results):
    result = results["/slow-headers?every=0.1"]
    assert result.error == "timed out after 5 s (whole-request limit)"
    assert result.response is None
    assert WHOLE * 1000 <= result.elapsed_ms < (WHOLE + 15) * 1000


@pytest.mark.parametrize("path", ["/endless", "/endless/chunked", "/length/2gb"])
def test_endless_bodies_stop_at_the_cap(results, path):
    result = results[path]
    assert result.error is None and result.truncated == "length"
    assert result.response is not None and len(result.response.body) == CAP


@pytest.mark.parametrize("path", ["/length/long", "/reset/mid-body"])
def test_a_hang_up_mid_body_keeps_what_came(results, path):
    result = results[path]
    assert result.error is None and result.truncated == "disconnect"
    assert result.response is not None and len(result.response.body) > 0


def test_http10_without_length_reads_to_close(results):
    result = results["/http10"]
    assert result.error is None and result.truncated is None
    assert result.response is not None and result.response.version == "HTTP/1.0"
    assert result.response.body.endswith(b"</html>")


@pytest.mark.parametrize(
    ("path", "bomb"),
    [("/bomb/gzip", gzip_bomb), ("/bomb/deflate", deflate_bomb)],
)
def test_bombs_are_archived_as_sent_and_decoded_up_to_the_cap(results, path, bomb):
    result = results[path]
    assert result.error is None and result.truncated is None
    assert result.response is not None and result.response.body == bomb()
    assert result.decoded is not None and len(result.decoded) == CAP
    assert result.decode_error and "decompression bomb" in result.decode_error


def test_a_bomb_in_a_bomb_stops_at_the_cap_too(results):
    result = results["/bomb/gzip-in-gzip"]
    assert result.decoded is not None and len(result.decoded) <= CAP
    assert result.decode_error and "decompression bomb" in result.decode_error


def test_brotli_is_never_asked_for_and_kept_encoded(results):
    result = results["/bomb/brotli"]
    assert result.response is not None and result.response.body == brotli_bomb()
    assert result.decode_error == "unsupported Content-Encoding 'br'; body kept encoded"
    assert "br" not in SETTINGS.accept_encoding


def test_a_corrupt_gzip_body_says_it_cannot_be_decoded(results):
    result = results["/bomb/corrupt-gzip"]
    assert result.decode_error and result.decode_error.startswith("cannot decode the gzip body")


def test_many_and_long_headers_are_kept(results):
    many, long = results["/headers/200"], results["/headers/100kb-line"]
    assert many.response is not None
    assert sum(1 for k, _ in many.response.headers if k.startswith("X-Header-")) == 200
    assert long.response is not None and len(long.header("x-huge") or "") == 100_000


def test_headers_past_the_parser_limit_are_a_named_error(results):
    assert results["/headers/300kb"].error == "RemoteProtocolError: Receive buffer too long"


def test_a_cookie_storm_is_archived_and_never_sent_back(results, hostile):
    storm = results["/cookies/storm"]
    assert storm.response is not None
    assert sum(1 for k, _ in storm.response.headers if k == "Set-Cookie") == 1000

    async def storm_then_again() -> FetchResult:
        fetcher = Fetcher(SETTINGS)
        try:  # the robots.txt path goes through httpx's client, which keeps cookies
            await fetcher.fetch(hostile.url("/cookies/storm"), T0, follow_redirects=True)
            return await fetcher.fetch(hostile.url("/headers/200"), T0, follow_redirects=True)
        finally:
            await fetcher.aclose()

    again = asyncio.run(storm_then_again())
    assert again.request is not None
    assert not any(k.lower() == "cookie" for k, _ in again.request.headers)


def test_a_response_longer_than_its_length_spoils_no_other_page(hostile):
    async def in_turn() -> list[FetchResult]:
        fetcher = Fetcher(SETTINGS)  # one lane: the pages share its kept-alive connections
        try:
            return [
                await fetcher.fetch(hostile.url(path), T0)
                for path in ("/length/short", "/plain/1", "/length/short", "/plain/2", "/plain/3")
            ]
        finally:
            await fetcher.aclose()

    short, plain1, short_again, plain2, plain3 = asyncio.run(in_turn())
    for result in (short, short_again):
        assert result.error is None and result.response is not None
        assert result.response.body.endswith(b"</html>") and EXCESS not in result.response.body
    for result, path in ((plain1, "/plain/1"), (plain2, "/plain/2"), (plain3, "/plain/3")):
        assert result.error is None, result.error
        assert result.status == 200 and result.response is not None
        assert f"<p>{path}</p>".encode() in result.response.body


@pytest.mark.parametrize("path", ["/redirect/loop-a", "/redirect/chain/0"])
def test_robots_redirects_stop_after_five_hops(hostile, path):
    (result,) = asyncio.run(_fetch_all([hostile.url(path)], follow_redirects=True))
    assert result.error == TOO_MANY_REDIRECTS
    assert policy_from(result.status, None, result.error).mode == "allow-all"
