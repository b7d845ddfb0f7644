"""What pages embed (docs/design.md §14), archived with the page on two loopback hosts.

The site (:mod:`tests.support.embedsite`) embeds every kind a page can, most of it from a second
host; the crawl runs with the project's default chain, whose pages-only ``no-binaries``
rule must not keep a page's images out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from recrawl.core.archive.captures import find_captures
from recrawl.core.engine import LinkRejected, PageFetched, inject
from recrawl.core.project import Project
from recrawl.core.replay.server import ReplayServer
from recrawl.core.store.models import FetchEvent, News, Page, PageKind, RejectedLink

from tests.support.crawling import DAY, T0, clock_at, crawl, fast_settings
from tests.support.embedsite import CDN_FILES, WITH_ETAG, EmbedSite
from tests.support.replayserver import fetch
from tests.support.warcs import records_for

pytestmark = pytest.mark.slow


def no_sources():
    base = fast_settings()
    return replace(base, sources=replace(base.sources, enabled=False))


@pytest.fixture
def site() -> Iterator[EmbedSite]:
    served = EmbedSite()
    yield served
    served.stop()


def crawl_site(project: Project, site: EmbedSite, offset=DAY * 0, **kwargs):
    inject([site.pages.url("/")], T0 + offset)
    return crawl(project, no_sources(), clock=clock_at(offset), **kwargs)


def embeds() -> dict[str, Page]:
    return {page.url: page for page in Page.select().where(Page.kind == PageKind.EMBED)}


def completeness(url: str) -> list[FetchEvent]:
    page = Page.get(Page.url == url)
    return list(FetchEvent.select().where(FetchEvent.page == page).order_by(FetchEvent.fetched_at))


def test_every_kind_of_embed_is_archived_with_its_page(project, site):
    seen: list[object] = []
    summary = crawl_site(project, site, observer=seen.extend)
    found = embeds()
    # an inline script's "/nowhere.png" was a guess: fetched (404), and not missing
    (wrong,) = site.wrong_guesses
    assert found.pop(wrong).status == "gone"
    assert set(found) == site.embed_urls, site.embed_urls ^ set(found)
    assert {page.status for page in found.values()} == {"fetched"}
    # two pages, counted apart from what they embed (data: and javascript: skipped)
    assert summary.fetched == 2
    assert summary.embeds_fetched == len(site.fetched) and summary.embed_errors == 0
    pages = Page.select().where(Page.kind == PageKind.PAGE)
    assert {page.url for page in pages} == {site.pages.url("/"), site.pages.url("/other.html")}
    # each embed's capture is the bytes served, in the round that fetched its page
    home = completeness(site.pages.url("/"))[0]
    for url, page in found.items():
        (record,) = records_for(project.path, url, "response")
        assert record.payload == site.bodies[url], url
        assert page.segment == home.segment
        assert page.discovered_via == "embed"
    # what each page capture found of its embeds: all of them
    assert (home.embeds, home.embeds_missing, home.embeds_missing_count) == (
        len(site.embed_urls),
        [],
        0,
    )
    other = completeness(site.pages.url("/other.html"))[0]
    # its own logo, and the stylesheet with what that imports and names (hop 2)
    assert other.embeds == 8 and other.embeds_missing_count == 0
    # embeds make no news; the pages do: their host's first crawl (docs/design.md §15)
    assert {(n.kind, n.host, n.page.url) for n in News.select()} == {
        ("baseline", "127.0.0.1", site.pages.url("/")),
    }
    fetched = [e for e in seen if isinstance(e, PageFetched)]
    assert sum(e.kind == "embed" for e in fetched) == len(site.fetched)
    assert sum(e.kind == "page" for e in fetched) == 2


def test_a_month_later_unchanged_embeds_are_revisits_not_copies(project, site):
    crawl_site(project, site)
    first = {url: page.fetch_interval for url, page in embeds().items()}
    summary = crawl_site(project, site, offset=DAY * 31)
    assert summary.embeds_fetched == len(site.fetched)  # the wrong guess again too
    for url, page in embeds().items():
        if url not in site.embed_urls:
            continue
        assert len(records_for(project.path, url, "response")) == 1, url
        (revisit,) = records_for(project.path, url, "revisit")
        path = url.split("/", 3)[3]
        profile = revisit.warc["WARC-Profile"]
        if "127.0.0.2" in url and f"/{path}" in WITH_ETAG:
            assert profile.endswith("server-not-modified"), url
        else:
            assert profile.endswith("identical-payload-digest"), url
        # unchanged: its own interval grows
        assert page.fetch_interval > first[url], url
        assert page.status in ("fetched", "notmodified")
    second = completeness(site.pages.url("/"))[-1]
    assert second.embeds == len(site.embed_urls) and second.embeds_missing_count == 0


def test_an_embed_not_due_is_not_fetched_again_and_counts_as_archived(project, site):
    crawl_site(project, site)
    hits = site.cdn.hits_for("/style.css")
    # a day later the page is fetched again (made due), its embeds are not due yet
    Page.update(next_fetch=T0).where(Page.kind == PageKind.PAGE).execute()
    summary = crawl_site(project, site, offset=DAY)
    assert summary.fetched == 2 and summary.embeds_fetched == 0
    assert site.cdn.hits_for("/style.css") == hits
    latest = completeness(site.pages.url("/"))[-1]
    assert latest.embeds == len(site.embed_urls) and latest.embeds_missing_count == 0


def test_a_changed_embed_is_a_new_capture_with_its_interval_halved(project, site):
    crawl_site(project, site)
    url = site.cdn.url("/bg.png")
    before = Page.get(Page.url == url).fetch_interval
    site.serve(site.cdn, "/bg.png", CDN_FILES["/bg.png"], version=2)
    crawl_site(project, site, offset=DAY * 31)
    responses = records_for(project.path, url, "response")
    assert [r.payload for r in responses][-1] == site.bodies[url]
    assert len(responses) == 2
    changed = Page.get(Page.url == url)
    assert changed.fetch_interval < before
    # still no news for it
    assert not News.select().where(News.page == changed).exists()


def test_replay_serves_every_embed_byte_for_byte(project, site):
    crawl_site(project, site)
    stamp = completeness(site.pages.url("/"))[0].fetched_at.strftime("%Y%m%d%H%M%S")
    server = ReplayServer(project.path)
    try:
        for url, body in site.bodies.items():
            answer = fetch(server.url(stamp, url, raw=True))
            assert answer.status == 200, (url, answer)
            assert answer.body == body, url
        # the page as a browser opens it: its embeds rewritten to their captures
        page = fetch(server.url(stamp, site.pages.url("/"), inner=True), encodings="")
        text = page.body.decode()
        for path in ("/style.css", "/photo.jpg", "/app.js"):
            assert f"/{stamp}" in text and site.cdn.url(path) in text
    finally:
        server.stop()


def test_embed_rules_decide_embeds_and_say_why(project, site):
    from recrawl.core.policy import choices

    chain = choices.chain_text() + (
        '\n[[embed]]\nkind = "regex"\nname = "no-video"\nrules = \'\'\'\n'
        "-\\.(mp4|webm)$\n+.\n'''\n"
    )
    choices.apply_chain(chain)
    crawl_site(project, site)
    found = embeds()
    assert site.cdn.url("/clip.mp4") not in found and site.cdn.url("/alt.webm") not in found
    assert site.cdn.hits_for("/clip.mp4") == 0
    home = completeness(site.pages.url("/"))[0]
    missing = dict(map(tuple, home.embeds_missing))
    assert missing == {
        site.cdn.url("/clip.mp4"): "embed rule 0 (no-video), line 1",
        site.cdn.url("/alt.webm"): "embed rule 0 (no-video), line 1",
    }
    assert home.embeds == len(site.embed_urls) - 2 and home.embeds_missing_count == 2
    record = RejectedLink.get(RejectedLink.url == site.cdn.url("/clip.mp4"))
    assert (record.filter, record.line) == ("embed: no-video", 1)


def test_missing_embeds_say_why_robots_an_http_error_and_the_hop_bound(project, site):
    site.cdn.html("/robots.txt", "User-agent: *\nDisallow: /doc.pdf\n")
    del site.cdn.routes["/wide.webp"]  # a 404
    # the frame (hop 1) has a stylesheet (hop 2) that names a font (hop 3: past the bound);
    # a stylesheet's imports are part of it, so what more.css names is still hop 2
    frame = b'<html><head><link rel=stylesheet href="frame.css"></head><body>f</body></html>'
    site.serve(site.cdn, "/frame.html", "text/html", body=frame)
    site.serve(site.cdn, "/frame.css", "text/css", body=b"@font-face { src: url(deep.woff) }")
    site.serve(site.cdn, "/more.css", "text/css", body=b"p { background: url(more.png) }")
    site.serve(site.cdn, "/more.png", "image/png")
    events: list[object] = []
    crawl_site(project, site, observer=events.extend)
    home = completeness(site.pages.url("/"))[0]
    missing = dict(map(tuple, home.embeds_missing))
    assert missing == {
        site.cdn.url("/doc.pdf"): "denied by robots.txt",
        site.cdn.url("/wide.webp"): "HTTP 404",
        site.cdn.url("/deep.woff"): "more than 2 embed hops from the page (embeds.max_hops)",
    }
    assert home.embeds_missing_count == 3
    assert site.cdn.hits_for("/doc.pdf") == 0 and site.cdn.hits_for("/deep.woff") == 0
    assert Page.get(Page.url == site.cdn.url("/doc.pdf")).status == "robots_denied"
    assert Page.get(Page.url == site.cdn.url("/wide.webp")).status == "gone"
    assert Page.get(Page.url == site.cdn.url("/more.png")).status == "fetched"
    # the other page's capture, a round later, shares the stylesheet and what it imports
    other = completeness(site.pages.url("/other.html"))[0]
    assert other.embeds == 9 and other.embeds_missing_count == 0
    # nothing the embed rules turned away (they accept all); the frame is also a link,
    # which the chain's scope keeps out as a page
    rejected = [e for e in events if isinstance(e, LinkRejected)]
    assert [(e.url, e.filter_name) for e in rejected] == [(site.cdn.url("/frame.html"), "scope")]


def test_embeds_off_fetches_the_pages_alone(project, site):
    settings = no_sources()
    settings = replace(settings, embeds=replace(settings.embeds, enabled=False))
    inject([site.pages.url("/")], T0)
    summary = crawl(project, settings, clock=clock_at())
    assert summary.fetched == 2 and summary.embeds_fetched == 0 and not embeds()
    assert completeness(site.pages.url("/"))[0].embeds is None


def test_captures_are_close_in_time_embeds_first_on_the_pages_host(project, site):
    crawl_site(project, site)
    # the page's own-host embeds come before its next page on that host
    order = [path for path, _ in site.pages.hits if not path.startswith("/robots")]
    assert order.index("/local.js") < order.index("/other.html")
    assert order.index("/logo.gif") < order.index("/other.html")
    assert find_captures(project.path, site.pages.url("/local.js"))
