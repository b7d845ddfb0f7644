"""Render a screenshot of each panel on a demo project into docs/screenshots/ (offscreen).

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/make_screenshots.py [--out DIR]

A small demo site is served on 127.0.0.1 (and, as a second site, under the name
localhost); a project watches it over five rounds a month apart (some pages change
every time, some never, one link leaves the scope, one page is gone; every page embeds
a stylesheet and a photo it also links to, the news page a banner that is missing),
the last round run from the Crawl panel itself; the news of the rounds before it is marked seen. Then
each panel is shown at 1280 x 800 and saved as a PNG, plus the first-run state of an
empty project.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from recrawl.core import store  # noqa: E402
from recrawl.core.clock import Clock, parse_iso  # noqa: E402
from recrawl.core.config import CrawlSettings  # noqa: E402
from recrawl.core.engine import Crawler, inject  # noqa: E402
from recrawl.core.policy.sites import remove_site  # noqa: E402
from recrawl.core.project import Project  # noqa: E402
from recrawl.core.store.models import PageKind  # noqa: E402
from recrawl.gui.main_window import MainWindow  # noqa: E402
from recrawl.gui.preferences import Preferences  # noqa: E402
from recrawl.gui.resources import icon, stylesheet  # noqa: E402

T0 = parse_iso("2026-06-01T09:00:00Z")
SIZE = (1280, 800)

TOPICS = ["news", "events", "archive", "about", "contact", "reports", "people", "history"]
#: What every page embeds (docs/design.md §14), by path, and its type.
EMBEDS = {"/style.css": "text/css", "/archive/photo.jpg": "image/jpeg"}


class DemoSite:
    """Pages whose content depends on the round: news changes every time, about never."""

    def __init__(self) -> None:
        self.round = 0
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                status, body = site.page(self.path)
                data = body.encode()
                self.send_response(status)
                kind = EMBEDS.get(self.path, "text/html; charset=utf-8")
                self.send_header("Content-Type", kind if status == 200 else "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def page(self, path: str) -> tuple[int, str]:
        if path == "/robots.txt":
            return 404, ""
        if path == "/reports" and self.round >= 3:
            return 404, "<html><body>gone</body></html>"
        if path in EMBEDS:
            return 200, f"/* {path} */"
        if path.startswith("/ads/"):  # the news page's banner: missing
            return 404, "<html><body>no such banner</body></html>"
        topic = path.strip("/") or "home"
        changes = {"home": 1, "news": 1, "events": 2, "reports": 3}.get(topic, 99)
        version = self.round // changes
        links = "".join(f'<li><a href="/{t}">{t}</a></li>' for t in TOPICS)
        links += '<li><a href="https://elsewhere.example/">a site out of scope</a></li>'
        links += '<li><a href="/archive/photo.jpg">a photo</a></li>'
        stories = " ".join(f"story{version}x{i} story{version}x{i}" for i in range(40))
        text = f"<h1>{topic}</h1><p>Version {version} of the {topic} page.</p><p>{stories}</p>"
        title = f"<title>{topic.capitalize()} · Demo site</title>"
        head = f'{title}<link rel="stylesheet" href="/style.css">'
        text += '<img src="/archive/photo.jpg" alt="a photo">'
        if topic == "news":
            text += '<img src="/ads/banner.png" alt="">'
        return 200, f"<html><head>{head}</head><body>{text}<ul>{links}</ul></body></html>"

    def stop(self) -> None:
        self.server.shutdown()


def settle(app: QApplication, window: MainWindow, seconds: float = 1.5) -> None:
    """Let jobs finish and the window repaint (a script may wait; tests wait on signals)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        if window.context is not None and window.context.jobs.pending() == 0:
            time.sleep(0.02)
    app.processEvents()


def build_project(folder: Path, site: DemoSite) -> Project:
    project = Project.init(folder)
    inject([site.url("/"), site.url("/news", "localhost"), site.url("/events", "localhost")], T0)
    # a site added and taken out again: its page is kept, out of the crawl's scope
    inject(["https://old-blog.example/"], T0)
    remove_site("old-blog.example")
    base = CrawlSettings()
    settings = replace(base, politeness=replace(base.politeness, delay=0.0, per_host=4))
    for r in range(4):
        site.round = r
        Crawler(project, settings, clock=Clock(T0 + timedelta(days=30 * r))).run()
    return project


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="recrawl-screens-"))
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("Recrawl")
    app.setWindowIcon(icon("app"))
    app.setStyleSheet(stylesheet())
    prefs = Preferences(QSettings(str(work / "prefs.ini"), QSettings.Format.IniFormat))
    site = DemoSite()
    try:
        project = build_project(work / "demo", site)
        store.mark_news_seen()  # what the user saw before the last round
        window = MainWindow(project, prefs)
        window.resize(*SIZE)
        window.show()
        settle(app, window)

        # the fifth round, from the Crawl panel, so its plot and log have something
        site.round = 4
        crawl = window.panels["crawl"]
        crawl.delay.setValue(0.5)
        crawl.start_button.click()
        while window.context.crawl.busy:
            app.processEvents()
            time.sleep(0.01)
        settle(app, window)
        shots = [("crawl", None)]

        window.show_panel("sites")
        settle(app, window)
        sites = window.panels["sites"]
        sites.select_host("127.0.0.1")
        settle(app, window)
        shots.append(("sites", None))

        window.show_panel("pages")
        settle(app, window)
        pages = window.panels["pages"]
        pages.show_kinds(PageKind.ALL)  # what the pages embed, listed with them
        settle(app, window)
        row = pages.model.row_of(site.url("/news"))
        if row is not None:
            pages.table.selectRow(row)
        settle(app, window)
        shots.append(("pages", None))

        # Search: a phrase each page said in some rounds, with when it came and went
        window.show_search()  # Ctrl+F
        search = window.panels["search"]
        while search.index_complete is not True or search.index_job.busy:  # built if need be
            app.processEvents()
            time.sleep(0.01)
        search.query_edit.setText('"version 2 of the"')
        settle(app, window)
        shots.append(("search", None))

        window.show_panel("filters")
        filters = window.panels["filters"]
        filters.checker.urls.setPlainText(
            "\n".join(
                [site.url("/news"), "https://elsewhere.example/", site.url("/archive/photo.jpg")]
            )
        )
        settle(app, window)
        shots.append(("filters", None))

        window.show_panel("schedule")
        settle(app, window, 4.0)
        shots.append(("schedule", None))

        window.show_panel("segments")
        settle(app, window)
        shots.append(("segments", None))

        window.show_panel("storage")
        settle(app, window, 3.0)
        shots.append(("storage", None))

        # What's new: the last round's news (unseen), and the round's before it
        news = window.panels["news"]
        window.show_panel("news")
        settle(app, window)
        news.tree.expand(news.model.day_index(news.model.days[1]))
        settle(app, window)
        shots.append(("news", None))

        for key, _ in shots:
            window.show_panel(key)
            settle(app, window, 0.5)
            path = args.out / f"{key}.png"
            window.grab().save(str(path))
            print(f"wrote {path}")

        # an empty project: what a first start looks like
        empty = Project.init(work / "empty")
        window.open_project(empty)
        for key in ("crawl", "pages"):
            window.show_panel(key)
            settle(app, window)
            path = args.out / f"first-run-{key}.png"
            window.grab().save(str(path))
            print(f"wrote {path}")
        window.close()
    finally:
        site.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
