"""Conditional GET, revisit records and `recrawl show` (docs/design.md §3, §5, §7)."""

from __future__ import annotations

from datetime import datetime

from recrawl.core.archive.segments import read_payload
from recrawl.core.archive.warc import IDENTICAL_PAYLOAD, SERVER_NOT_MODIFIED
from recrawl.core.engine import PageFetched, inject
from recrawl.core.store.models import PageStatus

from tests.support.crawling import DAY, T0, Events, clock_at, crawl, events_of, page, settings
from tests.support.httpserver import Reply
from tests.support.warcs import record_at, records_for

ETAG = '"v1-5f3a"'
LAST_MODIFIED = "Wed, 01 Oct 2025 10:00:00 GMT"
BODY = b'<html><body><h1>Edition one</h1><a href="/about">about</a></body></html>'
LATER = 31 * DAY  # pages get a 30-day interval


def conditional(body: bytes = BODY, etag: str | None = ETAG, last_modified=LAST_MODIFIED):
    """A route that honours If-None-Match / If-Modified-Since with a 304."""

    def route(handler):
        validators = {}
        if etag:
            validators["ETag"] = etag
        if last_modified:
            validators["Last-Modified"] = last_modified
        inm = handler.headers.get("If-None-Match")
        ims = handler.headers.get("If-Modified-Since")
        if (etag and inm == etag) or (not etag and last_modified and ims == last_modified):
            return Reply(304, b"", validators)
        return Reply(200, body, {"Content-Type": "text/html; charset=utf-8", **validators})

    return route


def request_headers(server, path: str) -> list[dict[str, str]]:
    return [headers for p, headers in server.hits if p == path]


def test_304_is_notmodified_with_a_server_not_modified_revisit(project, server):
    server.routes["/"] = conditional()
    server.html("/about", "<p>about</p>")
    url = server.url("/")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())

    first = page(url)
    assert first.status == PageStatus.FETCHED
    assert first.etag == ETAG
    assert first.server_last_modified == datetime(2025, 10, 1, 10, 0, 0)
    (original,) = records_for(project.path, url, "response")
    assert original.http_status == 200

    events = Events()
    crawl(project, settings(), clock=clock_at(LATER), observer=events)

    first_request, second_request = request_headers(server, "/")
    assert "If-None-Match" not in first_request and "If-Modified-Since" not in first_request
    assert second_request["If-None-Match"] == ETAG
    assert second_request["If-Modified-Since"] == LAST_MODIFIED

    again = page(url)
    assert again.status == PageStatus.NOTMODIFIED
    last_event = events_of(url)[-1]
    assert (last_event.http_status, last_event.change) == (304, "unchanged")
    (fetched,) = events.fetched(url)
    assert isinstance(fetched, PageFetched) and fetched.change == "unchanged"

    (revisit,) = records_for(project.path, url, "revisit")
    assert revisit.path != original.path  # written into the new round's segment
    # no HTTP block (so replay tools serve the original); the 304's head sits beside it
    assert revisit.http_status is None and revisit.warc["Content-Length"] == "0"
    (head,) = records_for(project.path, url, "metadata")
    assert head.warc["WARC-Concurrent-To"] == revisit.warc["WARC-Record-ID"]
    assert head.payload.startswith(b"http-status-line: HTTP/1.1 304 ")
    assert revisit.warc["WARC-Profile"] == SERVER_NOT_MODIFIED
    assert revisit.warc["WARC-Refers-To"] == original.warc["WARC-Record-ID"]
    assert revisit.warc["WARC-Refers-To-Target-URI"] == url
    assert revisit.warc["WARC-Refers-To-Date"] == original.warc["WARC-Date"]
    assert revisit.warc["WARC-Payload-Digest"] == original.warc["WARC-Payload-Digest"]
    assert revisit.payload == b""

    # the page's capture is the revisit; its payload is still the original response
    capture = record_at(project.path / again.capture_file, again.capture_offset)
    assert (capture.type, capture.offset, capture.path) == (
        "revisit",
        revisit.offset,
        revisit.path,
    )
    assert again.segment == revisit.path.parent.name
    stored = read_payload(project.path, again.payload_file, again.payload_offset)
    assert stored.record_type == "response"
    assert stored.record_id == original.warc["WARC-Record-ID"]
    assert stored.body == BODY


def test_last_modified_alone_drives_if_modified_since(project, server):
    server.routes["/"] = conditional(etag=None)
    url = server.url("/")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())
    assert page(url).etag is None
    crawl(project, settings(), clock=clock_at(LATER))

    second = request_headers(server, "/")[1]
    assert "If-None-Match" not in second
    assert second["If-Modified-Since"] == LAST_MODIFIED
    assert page(url).status == PageStatus.NOTMODIFIED
    (revisit,) = records_for(project.path, url, "revisit")
    assert revisit.warc["WARC-Profile"] == SERVER_NOT_MODIFIED


def test_new_etag_in_a_304_is_used_next_time(project, server):
    state = {"n": 0}

    def route(handler):
        state["n"] += 1
        if state["n"] == 1:
            return Reply(200, BODY, {"Content-Type": "text/html", "ETag": '"a"'})
        # servers may rotate the validator in a 304 (RFC 9110 §15.4.5)
        return Reply(304, b"", {"ETag": f'"r{state["n"]}"'})

    server.routes["/"] = route
    url = server.url("/")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())
    crawl(project, settings(), clock=clock_at(LATER))
    assert page(url).etag == '"r2"'
    crawl(project, settings(), clock=clock_at(2 * LATER))
    assert [h.get("If-None-Match") for h in request_headers(server, "/")] == [None, '"a"', '"r2"']
    (original,) = records_for(project.path, url, "response")
    revisits = records_for(project.path, url, "revisit")
    assert len(revisits) == 2
    assert {r.warc["WARC-Refers-To"] for r in revisits} == {original.warc["WARC-Record-ID"]}


def test_identical_200_is_an_identical_payload_revisit(project, server):
    server.routes["/"] = Reply(200, BODY, {"Content-Type": "text/html"})  # no validators
    url = server.url("/")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())
    crawl(project, settings(), clock=clock_at(LATER))
    crawl(project, settings(), clock=clock_at(2 * LATER))

    assert server.hits_for("/") == 3
    p = page(url)
    assert p.status == PageStatus.FETCHED
    assert [e.change for e in events_of(url)] == ["unknown", "unchanged", "unchanged"]
    (original,) = records_for(project.path, url, "response")
    revisits = records_for(project.path, url, "revisit")
    assert len(revisits) == 2
    for revisit in revisits:
        assert revisit.http_status == 200
        assert revisit.warc["WARC-Profile"] == IDENTICAL_PAYLOAD
        # always the response holding the payload, never the previous revisit
        assert revisit.warc["WARC-Refers-To"] == original.warc["WARC-Record-ID"]
        assert revisit.warc["WARC-Refers-To-Target-URI"] == url
        assert revisit.warc["WARC-Refers-To-Date"] == original.warc["WARC-Date"]
        assert revisit.warc["WARC-Payload-Digest"] == original.warc["WARC-Payload-Digest"]
    assert len({r.path for r in [original, *revisits]}) == 3
    stored = read_payload(project.path, p.payload_file, p.payload_offset)
    assert stored.body == BODY
    assert stored.record_id == original.warc["WARC-Record-ID"]


def test_changed_body_is_a_new_response(project, server):
    bodies = [BODY, b"<html><body><h1>Edition two</h1></body></html>"]
    state = {"n": 0}

    def route(handler):
        body = bodies[min(state["n"], 1)]
        state["n"] += 1
        return Reply(200, body, {"Content-Type": "text/html", "ETag": f'"e{state["n"]}"'})

    server.routes["/"] = route
    url = server.url("/")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())
    first = page(url)
    events = Events()
    crawl(project, settings(), clock=clock_at(LATER), observer=events)

    p = page(url)
    assert p.status == PageStatus.FETCHED
    assert events_of(url)[-1].change == "changed"
    assert events.fetched(url)[0].change == "changed"
    assert p.content_changed_at > first.content_changed_at
    assert p.prev_content_changed_at == first.content_changed_at
    assert records_for(project.path, url, "revisit") == []
    old, new = records_for(project.path, url, "response")
    assert (old.payload, new.payload) == (bodies[0], bodies[1])
    assert new.path != old.path
    stored = read_payload(project.path, p.payload_file, p.payload_offset)
    assert stored.body == bodies[1]
    assert stored.record_id == new.warc["WARC-Record-ID"]
    assert (p.capture_file, p.capture_offset) == (p.payload_file, p.payload_offset)


def test_show_reads_the_payload_of_a_fresh_capture(project, server):
    server.routes["/doc.txt"] = Reply(
        200, b"plain text, not HTML\n", {"Content-Type": "text/plain"}
    )
    url = server.url("/doc.txt")
    inject([url], T0)
    crawl(project, settings(), clock=clock_at())
    p = page(url)
    stored = read_payload(project.path, p.payload_file, p.payload_offset)
    assert stored.body == b"plain text, not HTML\n"
    assert stored.url == url and stored.http_status == 200
    assert p.content_type == "text/plain"
