"""A deferrable signature (main-text) is computed only when a comparison needs it, and
then judges exactly as one computed at every fetch would (core/engine/analysis.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from recrawl.core.clock import Clock, parse_iso, utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.store.models import FetchEvent, News, Page

from tests.support.crawling import crawl
from tests.support.httpserver import Reply

PARAGRAPH = (
    "The survey measured the glacier's retreat over forty years and found that its "
    "front had moved back by more than two kilometres since the first photographs. "
)


def article(extra: str = "", clock: str = "09:14") -> str:
    return (
        f"<html><body><header>Updated {clock}</header><article><p>{PARAGRAPH * 8}</p>"
        f"<p>{extra}</p></article></body></html>"
    )


def at(day: float) -> Clock:
    return Clock(parse_iso("2027-01-01T00:00:00Z") + timedelta(days=day))


def changes(url: str) -> list[str]:
    page = Page.get(Page.url == url)
    query = FetchEvent.select().where(FetchEvent.page == page).order_by(FetchEvent.id)
    return [event.change for event in query]


def stored(url: str) -> tuple[bytes | None, str | None]:
    page = Page.get(Page.url == url)
    return page.signature, page.signature_kind


def test_main_text_is_signed_only_when_a_fetch_is_compared(project, server):
    assert choices.project_signature().kind == "main-text"
    url = server.url("/glacier")
    server.html("/glacier", article("The peak is 2,345 m high."))
    inject([url], utcnow())
    crawl(project, clock=at(0))
    assert changes(url) == ["unknown"]
    assert stored(url)[0] is None  # a first fetch compares nothing: no main text yet

    crawl(project, clock=at(30))  # the same bytes: unchanged, still without one
    assert changes(url)[-1] == "unchanged" and stored(url)[0] is None

    # other bytes, same text (the clock moved): the archived payload is signed beside the
    # new one, and they agree
    server.html("/glacier", article("The peak is 2,345 m high.", clock="17:02"))
    crawl(project, clock=at(60))
    assert changes(url)[-1] == "unchanged"
    signature, kind = stored(url)
    assert signature is not None and kind == "main-text"

    server.html("/glacier", article("The peak is 2,435 m high.", clock="17:30"))
    crawl(project, clock=at(90))  # compared with the stored signature: a real edit
    assert changes(url)[-1] == "changed"
    assert stored(url)[0] not in (None, signature)


def test_an_unreadable_archived_payload_leaves_the_change_unknown(project, server):
    url = server.url("/glacier")
    server.html("/glacier", article("First version."))
    inject([url], utcnow())
    crawl(project, clock=at(0))
    for warc in project.path.rglob("*.warc.gz"):
        warc.unlink()  # the archive the deferred comparison would read
    server.html("/glacier", article("Second version, quite different."))
    crawl(project, clock=at(30))
    assert changes(url) == ["unknown", "unknown"]  # never a guess
    assert stored(url)[0] is not None  # signed now: the next fetch compares as usual
    server.html("/glacier", article("Second version, quite different.", clock="23:59"))
    crawl(project, clock=at(60))
    assert changes(url)[-1] == "unchanged"


def test_a_cheap_signature_is_signed_at_every_fetch(project, server):
    choices.set_signature("md5")
    url = server.url("/glacier")
    server.html("/glacier", article("First version."))
    inject([url], utcnow())
    crawl(project, clock=at(0))
    assert stored(url)[1] == "md5" and stored(url)[0] is not None


@pytest.mark.parametrize("between", [302, 404])
def test_a_redirect_or_error_between_two_versions_keeps_the_comparison(project, server, between):
    # the redirect's or 404's capture replaces the page's payload pointer: the last 2xx
    # payload, never signed yet, is signed then, so the next 2xx compares with it (as an
    # eager signature's would); it was "unknown", and a real edit made no news
    url = server.url("/glacier")
    server.html("/glacier", article("The peak is 2,345 m high."))
    inject([url], utcnow())
    crawl(project, clock=at(0))
    assert stored(url)[0] is None
    if between == 302:
        server.routes["/glacier"] = Reply(302, b"", {"Location": "/elsewhere"})
    else:
        server.routes["/glacier"] = Reply(404, b"<html><body>not found</body></html>")
    crawl(project, clock=at(30))
    server.html("/glacier", article("The peak is 2,345 m high.", clock="17:02"))
    crawl(project, clock=at(60))
    assert changes(url)[-1] == "unchanged"  # other bytes, the same text
    server.html("/glacier", article("The peak is 2,435 m high.", clock="17:30"))
    crawl(project, clock=at(90))
    assert changes(url)[-1] == "changed"


def test_a_redirect_after_an_edit_still_reports_the_edit(project, server):
    url = server.url("/glacier")
    server.html("/glacier", article("The peak is 2,345 m high."))
    inject([url], utcnow())
    crawl(project, clock=at(0))
    server.routes["/glacier"] = Reply(302, b"", {"Location": "/elsewhere"})
    crawl(project, clock=at(30))
    server.html("/glacier", article("An entirely different survey of the coast."))
    crawl(project, clock=at(60))
    assert changes(url)[-1] == "changed"
    assert News.select().where(News.kind == "changed").count() == 1
