"""A site's capture mode, switched through the services: its pages forget their
signatures in the same transaction, so their next fetch is ``unknown``, not news."""

from __future__ import annotations

from datetime import timedelta

import pytest
from recrawl.core import store
from recrawl.core.clock import Clock, parse_iso, utcnow
from recrawl.core.config import UNCOMPARABLE
from recrawl.core.engine import inject
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import capture_modes, crawl_settings
from recrawl.core.services import Services
from recrawl.core.store.models import FetchEvent, News, Page, PageKind

from tests.support.browsing import needs_chromium
from tests.support.crawling import T0, crawl

SIGNED = b"0123456789abcdef"


def signed_pages(*urls: str, kind: str = PageKind.PAGE) -> None:
    store.add_pages(
        [store.NewPage(url, url.split("/")[2], T0, 3600.0, kind=kind) for url in urls], T0
    )
    Page.update(signature=SIGNED, signature_kind="md5").execute()


def signatures() -> dict[str, tuple[bytes | None, str | None]]:
    return {p.url: (p.signature, p.signature_kind) for p in Page.select().order_by(Page.url)}


def test_switching_a_site_to_browser_forgets_its_pages_signatures_alone(project):
    signed_pages("http://a.example/", "http://www.a.example/news", "http://b.example/")
    signed_pages("http://a.example/style.css", kind=PageKind.EMBED)
    switch = Services(project).sites.set_capture_mode("a.example", "browser")
    assert switch.hosts == ("a.example", "www.a.example") and switch.pages == 2
    assert signatures() == {
        "http://a.example/": (None, UNCOMPARABLE),
        "http://a.example/style.css": (SIGNED, "md5"),  # an embed: its bytes decide
        "http://b.example/": (SIGNED, "md5"),  # another site keeps its signature
        "http://www.a.example/news": (None, UNCOMPARABLE),
    }
    assert crawl_settings.project_crawl_settings().capture.mode_for("www.a.example") == "browser"
    # the same mode again changes nothing: nothing forgotten
    Page.update(signature=SIGNED, signature_kind="md5").execute()
    assert Services(project).sites.set_capture_mode("a.example", "browser").hosts == ()
    assert signatures()["http://a.example/"] == (SIGNED, "md5")


def test_the_project_wide_mode_switches_the_sites_without_their_own(project):
    signed_pages("http://a.example/", "http://b.example/", "http://c.example/")
    services = Services(project)
    services.sites.set_capture_mode("a.example", "browser")
    services.sites.set_capture_mode("b.example", "http")  # its own, the same as before
    Page.update(signature=SIGNED, signature_kind="md5").execute()
    saved = services.settings.update({"capture.mode": "browser"})
    assert saved.switch.hosts == ("c.example",) and saved.switch.pages == 1
    assert saved.kept == {
        "capture.mode": "browser",
        "capture.mode@a.example": "browser",
        "capture.mode@b.example": "http",
    }
    kept = {url: kind for url, (_, kind) in signatures().items()}
    assert kept == {
        "http://a.example/": "md5",  # browser already, by its own entry
        "http://b.example/": "md5",  # http still, by its own entry
        "http://c.example/": UNCOMPARABLE,
    }
    # a site's entry forgotten: it follows the project's browser mode, as a.example did
    services.settings.update({"capture.mode@b.example": None})
    assert signatures()["http://b.example/"] == (None, UNCOMPARABLE)
    assert signatures()["http://a.example/"] == (SIGNED, "md5")


def test_a_refused_mode_changes_no_signature(project):
    signed_pages("http://a.example/")
    with pytest.raises(InvalidArgument, match=r"capture\.mode@a\.example: must be http or browser"):
        Services(project).sites.set_capture_mode("a.example", "chromium")
    assert signatures()["http://a.example/"] == (SIGNED, "md5")


def at(day: float) -> Clock:
    return Clock(parse_iso("2027-01-01T00:00:00Z") + timedelta(days=day))


def changes(url: str) -> list[str]:
    page = Page.get(Page.url == url)
    return [e.change for e in FetchEvent.select().where(FetchEvent.page == page)]


def article(text: str) -> str:
    return f"<html><body><article><p>{text * 20}</p></article></body></html>"


def test_the_next_fetch_after_a_switch_is_unknown_not_news(project, server):
    """An edit on the site's next fetch: compared with the archived payload it would be
    "changed" (as the other page is); after the switch it is compared with nothing."""
    switched, kept = server.url("/switched"), server.url("/kept")
    for path in ("/switched", "/kept"):
        server.html(path, article("The first version of the report. "))
    inject([switched, kept], utcnow())
    crawl(project, clock=at(0))
    Page.update(host="other.example").where(Page.url == kept).execute()  # another site
    Services(project).sites.set_capture_mode("127.0.0.1", "browser")
    for path in ("/switched", "/kept"):
        server.html(path, article("A second version, with other words in it. "))
    crawl(project, clock=at(30))
    assert changes(switched) == ["unknown", "unknown"]
    assert changes(kept) == ["unknown", "changed"]
    news = {(n.page.url, n.kind) for n in News.select()}
    assert (kept, "changed") in news and not any(
        url == switched and kind == "changed" for url, kind in news
    )
    # signed anew from that fetch: the one after compares like with like again
    assert Page.get(Page.url == switched).signature_kind == "main-text"


def test_capturing_a_site_keeps_the_fewest_entries(project):
    signed_pages("http://a.example/", "http://www.a.example/")
    sites = Services(project).sites
    done = sites.capture_site("A.example", "browser")
    assert (done.host, done.mode, done.switch.pages) == ("a.example", "browser", 2)
    assert capture_modes.host_modes() == {"a.example": "browser"}
    # browser already by a.example's entry: no entry of its own, nothing switched
    assert sites.capture_site("www.a.example", "browser").switch.hosts == ()
    assert capture_modes.host_modes() == {"a.example": "browser"}
    done = sites.capture_site("www.a.example", "http")  # its own, over the domain's
    assert done.switch.hosts == ("www.a.example",)
    assert capture_modes.host_modes() == {"a.example": "browser", "www.a.example": "http"}
    sites.capture_site("a.example", "http")  # what the project says: the entry goes
    assert capture_modes.host_modes() == {"www.a.example": "http"}


@needs_chromium  # the one found when capture.chromium is empty
def test_browser_mode_without_its_chromium_says_so_and_is_kept(project):
    sites = Services(project).sites
    assert sites.capture_site("a.example", "browser").missing is None
    Services(project).settings.update({"capture.chromium": "/nonexistent/chromium"})
    done = sites.capture_site("b.example", "browser")
    assert done.missing == "capture.chromium: no browser to run at /nonexistent/chromium"
    assert capture_modes.host_modes() == {"a.example": "browser", "b.example": "browser"}
    assert sites.capture_site("b.example", "http").missing is None  # http needs none


def test_re_signing_leaves_a_switched_page_compared_with_nothing(project, server):
    """Its archive is of the other mode: signed from it, the next fetch would compare
    raw HTML with a rendered page again."""
    switched, kept = server.url("/switched"), server.url("/kept")
    for path in ("/switched", "/kept"):
        server.html(path, article("The first version of the report. "))
    inject([switched, kept], utcnow())
    crawl(project, clock=at(0))
    Page.update(host="other.example").where(Page.url == kept).execute()
    services = Services(project)
    services.sites.set_capture_mode("127.0.0.1", "browser")
    done = services.re_signing.switch("md5")
    assert (done.total, done.recomputed) == (1, 1)  # the other site's page alone
    assert Page.get(Page.url == switched).signature_kind == UNCOMPARABLE
    assert Page.get(Page.url == kept).signature_kind == "md5"
