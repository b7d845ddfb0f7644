"""What pages embed (docs/design.md §14), as the app shows it: the Pages panel's kinds and each
capture's completeness, the Crawl panel's counts, and "why not crawled?" for embeds.

The site (:mod:`tests.support.embedsite`) embeds every kind, most of it from a second host; here
some of it goes missing on purpose: an embed rule turns the videos away, robots.txt the
PDF, one image is a 404 and one script a 500. Its home page also links to its own logo,
which the default chain's ``no-binaries`` rejects as a page: archived all the same, as
what the page shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.project import Project
from recrawl.core.store.models import FetchEvent, Page, PageKind
from recrawl.core.words import plural
from recrawl.gui.filters.filters_panel import EMBEDS_TAB, FiltersPanel
from recrawl.gui.pages.pages_model import EMBEDS_COLUMN, INCOMPLETE_BRUSH, PagesModel
from recrawl.gui.pages.pages_panel import PagesPanel

from tests.gui.helpers import open_window, select_page
from tests.support.crawling import T0, clock_at, crawl, fast_settings
from tests.support.embedsite import EmbedSite
from tests.support.httpserver import Reply

pytestmark = pytest.mark.slow

NO_VIDEO = (
    "\n[[embed]]\nkind = \"regex\"\nname = \"no-video\"\nrules = '''\n-\\.(mp4|webm)$\n+.\n'''\n"
)


@pytest.fixture
def site(project: Project) -> Iterator[EmbedSite]:
    """The site, with five of the home page's embeds missing, and its logo linked."""
    served = EmbedSite()
    served.cdn.html("/robots.txt", "User-agent: *\nDisallow: /doc.pdf\n")
    del served.cdn.routes["/wide.webp"]  # a 404
    served.cdn.routes["/module.js"] = Reply(500, b"down", {"Content-Type": "text/plain"})
    home = served.index_html().replace("</body>", '<a href="/logo.gif">our logo</a></body>')
    served.pages.routes["/"] = served._page(home, link=True)
    choices.apply_chain(choices.chain_text() + NO_VIDEO)
    yield served
    served.stop()


def crawl_site(project: Project, site: EmbedSite) -> None:
    base = fast_settings()
    inject([site.pages.url("/")], T0)
    crawl(project, replace(base, sources=replace(base.sources, enabled=False)), clock=clock_at())


def home_capture(site: EmbedSite) -> FetchEvent:
    page = Page.get(Page.url == site.pages.url("/"))
    return FetchEvent.get(FetchEvent.page == page)


def kinds_shown(panel: PagesPanel) -> set[str]:
    column = PagesModel.columns.index("kind")
    return {panel.model.index(r, column).data() for r in range(panel.model.rowCount())}


def test_the_pages_panel_lists_embeds_apart_and_a_capture_says_what_it_misses(
    qtbot, qtmodeltester, project, prefs, site
):
    crawl_site(project, site)
    embeds = Page.select().where(Page.kind == PageKind.EMBED).count()
    assert embeds > 30
    window = open_window(qtbot, project, prefs)
    home = site.pages.url("/")
    panel = select_page(qtbot, window, home)
    # pages first, as before: the two of them
    assert panel.count_label.text() == "2 pages" and kinds_shown(panel) == {"page"}
    kind = PagesModel.columns.index("kind")
    assert panel.model.headerData(kind, Qt.Orientation.Horizontal) == "Kind"
    assert panel.table.horizontalHeader().visualIndex(kind) == 1  # beside the URL

    # the capture's completeness (33 of 38), in the warning colour, the missing listed
    detail = panel.detail
    capture = home_capture(site)
    archived, total = capture.embeds, capture.embeds + capture.embeds_missing_count
    assert capture.embeds_missing_count == 5 and archived > 30
    cell = detail.history.index(0, EMBEDS_COLUMN)
    assert cell.data() == f"{archived}/{total}"
    assert cell.data(Qt.ItemDataRole.ForegroundRole) == INCOMPLETE_BRUSH
    assert f"5 of {total} embeds missing" in cell.data(Qt.ItemDataRole.ToolTipRole)
    text = detail.embeds_label.text()
    assert f"5 of {total} embeds missing" in text and "latest capture" in text
    assert not detail.missing_view.isHidden()
    listed = [detail.missing.row(r) for r in range(detail.missing.rowCount())]
    cdn = site.cdn.url
    assert dict(listed) == {
        cdn("/module.js"): "HTTP 500",
        cdn("/wide.webp"): "HTTP 404",
        cdn("/clip.mp4"): "embed rule 0 (no-video), line 1",
        cdn("/alt.webm"): "embed rule 0 (no-video), line 1",
        cdn("/doc.pdf"): "denied by robots.txt",
    }
    assert listed == [tuple(pair) for pair in capture.embeds_missing]  # in the page's order
    qtmodeltester.check(detail.missing)
    # selecting the fetch names it: the capture, not the latest
    detail.history_view.selectRow(0)
    assert detail.embeds_label.text().startswith(
        f"<b>5 of {total} embeds missing</b> from the capture ("
    )

    # the other page got all it embeds: said in a line, no list
    other = site.pages.url("/other.html")
    select_page(qtbot, window, other)
    assert detail.history.index(0, EMBEDS_COLUMN).data() == "8/8"
    assert "archived all 8 of its embeds" in detail.embeds_label.text()
    assert not detail.history_view.isColumnHidden(EMBEDS_COLUMN)
    assert detail.missing_view.isHidden() and detail.missing.rowCount() == 0

    # embeds alone, then both; counts say which
    panel.show_kinds((PageKind.EMBED,))
    qtbot.waitUntil(lambda: panel.count_label.text() == f"{embeds} embeds")
    assert kinds_shown(panel) == {"embed"} and panel.model.rowCount() == embeds
    panel.search.setText("module.js")
    qtbot.waitUntil(lambda: panel.count_label.text() == f"1 of {embeds} embeds match")
    panel.search.clear()
    panel.show_kinds(PageKind.ALL)
    qtbot.waitUntil(lambda: panel.count_label.text() == f"{embeds + 2} pages and embeds")
    assert kinds_shown(panel) == {"page", "embed"}

    # an embed's detail says what it is; a stylesheet capture has no completeness
    style = cdn("/style.css")
    select_page(qtbot, window, style)
    summary = detail.summary.text()
    assert summary.startswith(f"embed (first embedded by {home}): fetched, interval ")
    assert "with a page that embeds it, not before" in summary
    assert detail.history.index(0, EMBEDS_COLUMN).data() == ""
    assert detail.history_view.isColumnHidden(EMBEDS_COLUMN)
    assert detail.embeds_label.isHidden() and detail.missing_view.isHidden()
    assert "page that embeds it" in detail.refetch_button.toolTip()
    window.close()


def test_the_crawl_panel_counts_pages_and_embeds_apart(qtbot, window, site):
    inject([site.pages.url("/")], utcnow())
    panel = window.panels["crawl"]
    window.show_panel("crawl")
    panel.delay.setValue(0)
    panel.per_host.setValue(8)
    panel.concurrency.setValue(16)
    with qtbot.waitSignal(window.context.crawl.sig_finished) as finished:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    summary = finished.args[0]
    assert (summary.fetched, summary.errors) == (2, 0)  # the pages alone
    assert summary.embeds_fetched > 30 and summary.embed_errors == 1  # the 500
    qtbot.waitUntil(lambda: not window.context.crawl.busy)
    embeds = f"{summary.embeds_fetched} embeds fetched (1 failed)"
    assert panel.round_label.text().startswith(
        f"Crawl finished: 2 pages in {plural(summary.rounds, 'round')}, {embeds}, "
    )
    assert f"· 2 pages fetched · 0 errors · {embeds} · " in panel.view.totals.text()
    # the bar counts the round's pages, never its embeds
    assert panel.progress.value() == panel.progress.maximum() == 1
    assert (panel.tracker.fetched, panel.tracker.embeds_fetched) == (2, summary.embeds_fetched)
    log = panel.log.toPlainText()
    cdn, home = site.cdn.url, site.pages.url("/")
    assert f"embed error  {cdn('/module.js')}: HTTP 500" in log
    assert (
        f"embed rejected  {cdn('/clip.mp4')} (embed rule no-video, line 1; embedded by {home})"
        in log
    )
    assert f"round 1 done: 1 page fetched, 0 errors, {embeds}, " in log
    # the 404 is no error (as a page's is not), and a page's error line is not an embed's
    assert f"error  {cdn('/wide.webp')}" not in log
    assert not [line for line in log.splitlines() if line.startswith("error  ")]


def open_why(qtbot, window) -> FiltersPanel:
    window.show_panel("filters")
    panel = window.panels["filters"]
    assert isinstance(panel, FiltersPanel)
    qtbot.waitUntil(lambda: panel.loaded and panel.why.total > 0)
    return panel


def explain(qtbot, panel: FiltersPanel, url: str) -> str:
    panel.why.answer.setText("")
    panel.why.explain(url)
    qtbot.waitUntil(lambda: panel.why.answer.text() != "")
    return panel.why.answer.text()


def test_why_not_crawled_answers_for_embeds(qtbot, project, prefs, site):
    crawl_site(project, site)
    window = open_window(qtbot, project, prefs)
    panel = open_why(qtbot, window)
    cdn, home = site.cdn.url, site.pages.url("/")

    # the logo: linked (no-binaries rejects it as a page) and embedded (archived)
    logo = site.pages.url("/logo.gif")
    answer = explain(qtbot, panel, logo)
    assert answer.startswith("<b>Archived as an embed</b> (fetched, last fetched ")
    assert f"(HTTP 200), first embedded by {home})" in answer
    assert "As a link it was turned away by filter “no-binaries”, line 5" in answer
    assert "That line reads: <code>.gif</code>" in answer
    assert (
        "The edited chain now says: as a page, reject by filter 0 (no-binaries), line 5; "
        "as an embed, accepted (no embed rule rejected it)." in answer
    )
    # the frame: an iframe's content, and a link the scope keeps out as a page
    answer = explain(qtbot, panel, cdn("/frame.html"))
    assert answer.startswith("<b>Archived as an embed</b>")
    assert "As a link it was turned away by filter “scope”, no rule matched" in answer

    # a video the embed rules turn away: the rule, its line, and what it reads
    answer = explain(qtbot, panel, cdn("/clip.mp4"))
    assert answer.startswith("<b>Rejected by embed rule “no-video”, line 1</b> (rejected since ")
    assert "so it is not archived" in answer
    assert "That line reads: <code>-\\.(mp4|webm)$</code>" in answer
    assert "as an embed, rejected by embed rule 0 (no-video), line 1: -\\.(mp4|webm)$." in answer
    # an embed that failed is known, not archived
    answer = explain(qtbot, panel, cdn("/wide.webp"))
    assert answer.startswith("<b>Known as an embed, not archived</b> (gone, last fetched ")
    assert "(HTTP 404)" in answer
    # a page's rejection reads as before, with the embed rules' verdict beside
    answer = explain(qtbot, panel, "http://elsewhere.example/")
    assert answer.startswith("Not in the rejected-links record")
    assert "as a page, reject by filter" in answer and "as an embed, accepted" in answer

    # the embed rules, read-only, and where to edit them
    assert panel.tabs.tabText(EMBEDS_TAB) == "Embed rules (1)"
    rules = panel.embed_rules.text
    assert rules.isReadOnly() and '[[embed]]\nkind = "regex"\nname = "no-video"' in (
        rules.toPlainText()
    )
    assert "recrawl filter set" in panel.embed_rules.hint.text()
    window.close()
