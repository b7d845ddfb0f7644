"""``recrawl --self-test``: the whole app, end to end, in a few seconds (offscreen).

Opens the main window on a temporary project, serves a tiny site on loopback, adds its
seed and crawls it from the Crawl panel, then checks that the pages are in the store and
that a WARC segment holds their captures, that the Pages and Schedule panels draw their
plots, and that Qt still lays out text in other scripts and finds the locale data it
reads from ICU (gui/selftest/self_test_checks.py). Any exception (also one raised in a Qt
callback) or Qt warning fails it. The packaged app runs it after every build
(packaging/smoke_test.py), so a bundle missing a module, a plugin, a resource or data it
was trimmed of is caught before anyone installs it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Qt is imported when the self-test runs, not when this module loads
    from PySide6.QtCore import QCoreApplication
    from recrawl.gui.main_window import MainWindow

PAGES = {
    "/": '<a href="/one">one</a> <a href="/two">two</a>',
    "/one": '<a href="/">home</a> <a href="/two">two</a>',
    "/two": '<a href="/one">one</a>',
}
#: The offscreen platform says this whenever a window is shown: platform noise.
PLATFORM_NOISE = ("This plugin does not support propagateSizeHints",)


class _Site:
    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                body = PAGES.get(self.path)
                data = f"<html><body>{body}</body></html>".encode() if body else b""
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def run_self_test() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    problems: list[str] = []

    def on_qt_message(kind: QtMsgType, _context: object, message: str) -> None:
        quiet = kind in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg)
        if not quiet and not message.startswith(PLATFORM_NOISE):
            problems.append(f"Qt: {message}")

    def on_exception(
        kind: type[BaseException], error: BaseException, tb: TracebackType | None
    ) -> None:
        # PySide6 reports an exception raised in a Python override Qt calls (a paint, a
        # slot) here, then carries on
        problems.append("".join(traceback.format_exception(kind, error, tb)))

    qInstallMessageHandler(on_qt_message)
    sys.excepthook = on_exception
    app = QApplication.instance() or QApplication(sys.argv[:1])
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="recrawl-self-test-") as tmp:
            summary = _crawl_from_the_window(app, Path(tmp))
    except Exception:
        problems.append(traceback.format_exc())
        summary = ""
    finally:
        qInstallMessageHandler(None)
        sys.excepthook = sys.__excepthook__
    if problems:
        for problem in problems:
            print(f"recrawl self-test: {problem}", file=sys.stderr)
        return 1
    print(f"recrawl self-test passed in {time.monotonic() - started:.1f} s: {summary}")
    return 0


def _crawl_from_the_window(app: QCoreApplication, folder: Path) -> str:
    from PySide6.QtCore import QSettings
    from recrawl.core import store
    from recrawl.core.archive.warc import iter_records
    from recrawl.core.project import Project
    from recrawl.core.words import plural
    from recrawl.gui.crawl.crawl_panel import CrawlPanel
    from recrawl.gui.main_window import MainWindow
    from recrawl.gui.preferences import Preferences
    from recrawl.gui.selftest.self_test_checks import check_locale_data, check_text_layout

    from recrawl import __version__

    _check_bundled_files()
    site = _Site()
    try:
        project = Project.init(folder / "project")
        prefs = Preferences(QSettings(str(folder / "prefs.ini"), QSettings.Format.IniFormat))
        window = MainWindow(project, prefs)
        try:
            painted_after = _show_and_wait_for_paint(app, window)
            context = window.context
            assert context is not None
            panel = window.panels["crawl"]
            assert isinstance(panel, CrawlPanel)
            seeded: list[bool] = []
            context.changes.sig_pages.connect(lambda: seeded.append(True))
            panel.seeds.setPlainText(site.url("/"))
            panel.add_seeds.click()
            _wait(app, lambda: bool(seeded), "the seed to be added")
            panel.delay.setValue(0)
            panel.obey_robots.setChecked(False)
            results: list[object] = []
            context.crawl.sig_finished.connect(results.append)
            context.crawl.sig_failed.connect(lambda message: results.append(RuntimeError(message)))
            panel.start_button.click()
            _wait(app, lambda: bool(results) and not context.crawl.busy, "the crawl to finish")
            if isinstance(results[0], Exception):
                raise results[0]
            fetched = {p["url"] for p in store.list_pages() if p["last_fetched"] is not None}
            expected = {site.url(path) for path in PAGES}
            if fetched != expected:
                raise AssertionError(f"crawled {sorted(fetched)}, expected {sorted(expected)}")
            warcs = sorted(project.segments_dir.glob("*/*.warc.gz"))
            if not warcs:
                raise AssertionError("no WARC segment was written")
            captured = set()
            for warc in warcs:
                captured |= {
                    r.record.url for r in iter_records(warc) if r.record.record_type == "response"
                }
            if captured != expected:
                raise AssertionError(
                    f"the WARCs hold {sorted(captured)}, expected {sorted(expected)}"
                )
            _check_plots(app, window, site.url("/"))
            _check_search(app, window, site.url("/one"))
            check_text_layout()
            check_locale_data()
            pages = store.page_count()
        finally:  # also after a failed check: a window left open aborts at exit
            window.close()
            _wait(app, lambda: not window.isVisible(), "the window to close")
            project.close()
        painted = (
            "" if painted_after is None else f"; first paint {painted_after:.2f} s after launch"
        )
        return (
            f"Recrawl {__version__}, {pages} pages crawled, {plural(len(warcs), 'WARC segment')}"
            + painted
        )
    finally:
        site.stop()


def _check_plots(app: QCoreApplication, window: MainWindow, url: str) -> None:
    """The Pages panel's plot of ``url``'s fetches and the Schedule panel's simulated
    trajectories, drawn."""
    from recrawl.gui.common.plots import UNCHANGED
    from recrawl.gui.pages.pages_panel import PagesPanel
    from recrawl.gui.schedule.schedule_panel import PAGE_COLOURS, SchedulePanel
    from recrawl.gui.selftest.self_test_checks import check_plot_draws

    pages, schedule = window.panels["pages"], window.panels["schedule"]
    assert isinstance(pages, PagesPanel) and isinstance(schedule, SchedulePanel)
    window.show_panel("pages")
    pages.select_url(url)
    _wait(app, lambda: pages.detail.detail is not None, "the page's fetches to load")
    check_plot_draws("Pages", pages.detail.plot, UNCHANGED)
    window.show_panel("schedule")
    _wait(app, lambda: bool(schedule.trajectories), "the schedule's simulation")
    check_plot_draws("Schedule", schedule.plot, PAGE_COLOURS[0])


def _check_search(app: QCoreApplication, window: MainWindow, url: str) -> None:
    """The Search panel finds a word of the crawled pages (the store's full-text engine,
    FTS5 in SQLite, is there)."""
    from recrawl.gui.search.search_panel import SearchPanel

    window.show_search()
    panel = window.panels["search"]
    assert isinstance(panel, SearchPanel)
    _wait(
        app,
        lambda: panel.index_complete is True and not panel.index_job.busy,
        "the search index",
    )
    panel.query_edit.setText("home")
    panel.run_query()
    _wait(app, lambda: panel.answer is not None and panel.answer.asked.text == "home", "search")
    answer = panel.answer
    found = [hit.url for hit in panel.model.hits()]
    if answer is None or answer.error is not None or found != [url]:
        why = answer.error if answer is not None and answer.error else f"found {found}"
        raise AssertionError(f"searching the crawled pages for 'home': {why}, expected [{url}]")


def _show_and_wait_for_paint(app, window) -> float | None:  # type: ignore[no-untyped-def]
    """Shows the window and returns the seconds from process start until it first
    painted (``make package`` reports it for the bundle), when the platform says when
    the process started."""
    from PySide6.QtCore import QEvent, QObject

    painted: list[float] = []

    class PaintWatch(QObject):
        def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
            if not painted and event.type() == QEvent.Type.Paint:
                painted.append(time.monotonic())
            return False

    watch = PaintWatch()
    window.installEventFilter(watch)
    window.show()
    _wait(app, lambda: bool(painted), "the window to paint")
    window.removeEventFilter(watch)
    age = _process_age()
    return None if age is None else painted[0] - (time.monotonic() - age)


def _process_age() -> float | None:
    """Seconds since this process started (Linux: /proc, to the clock tick), or None."""
    try:
        stat = Path("/proc/self/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        # field 22, start time in clock ticks after boot; the name before it may hold spaces
        started = int(stat.rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return uptime - started


def _check_bundled_files() -> None:
    """What a bundle must carry: icons, stylesheet, default chain, certificates, the
    Public Suffix List (publicsuffixlist reads its data file at run time)."""
    import certifi
    from PySide6.QtGui import QIcon
    from recrawl.core.filters.hosts import domain_name
    from recrawl.core.resources import resource, resource_path
    from recrawl.gui.resources import icon, stylesheet

    for name in ("style.qss", "default-chain.toml", "icons/app.svg", "icons/pages.svg"):
        if not resource(name).is_file():
            raise AssertionError(f"resource missing: {name} in {resource('.')}")
    if not stylesheet().strip():
        raise AssertionError("the stylesheet is empty")
    if icon("app").isNull() or QIcon(str(resource_path("icons/app.svg"))).pixmap(32).isNull():
        raise AssertionError("the app icon does not render (no SVG image plugin?)")
    if not Path(certifi.where()).is_file():
        raise AssertionError(f"no CA certificates at {certifi.where()}")
    if (domain := domain_name("www.example.co.uk")) != "example.co.uk":
        raise AssertionError(f"the domain name of www.example.co.uk is {domain!r}")
    _check_text_libraries()
    from recrawl.core import store

    store.postgres_client()  # psycopg and its libpq: the app opens PostgreSQL projects


def _check_text_libraries() -> None:
    """What reads pages' text, dates, sitemaps and feeds works with the data the bundle
    keeps of them (packaging/trim.py leaves some out): trafilatura, htmldate,
    ultimate-sitemap-parser, feedparser. A first crawl runs none of the first two."""
    from datetime import datetime

    from recrawl.core.content.maintext import main_text
    from recrawl.core.content.published import page_date
    from recrawl.core.engine.source_parser import parse_feed, parse_sitemap

    sentence = "The glacier's front moved back by more than two kilometres in forty years."
    meta = '<meta property="article:published_time" content="2026-11-02T08:00:00+00:00">'
    article = (
        f"<html><head>{meta}</head><body><article><p>{sentence * 4}</p></article></body></html>"
    )
    if sentence not in " ".join(main_text(article, "http://example.org/a").paragraphs):
        raise AssertionError("the main text of an article misses its sentence")
    found = page_date(article, "http://example.org/a", datetime(2026, 11, 30))
    if found != datetime(2026, 11, 2, 8, 0):
        raise AssertionError(f"an article dated 2 Nov 2026 08:00 UTC reads as {found}")
    sitemap = (
        b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>http://example.org/a</loc><lastmod>2026-11-02</lastmod></url></urlset>"
    )
    if [e.url for e in parse_sitemap(sitemap, "http://example.org/sitemap.xml", 10).entries] != [
        "http://example.org/a"
    ]:
        raise AssertionError("a sitemap listing one page reads as something else")
    feed = (
        b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item>'
        b"<link>http://example.org/a</link><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>"
        b"</item></channel></rss>"
    )
    if [e.url for e in parse_feed(feed, "http://example.org/feed.xml", 10).entries] != [
        "http://example.org/a"
    ]:
        raise AssertionError("a feed listing one page reads as something else")


def _wait(
    app: QCoreApplication, condition: Callable[[], bool], what: str, timeout: float = 60.0
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        app.processEvents()
        time.sleep(0.005)
