"""Sites of dated pages on 127.0.0.1, for the trap tests (issue 25).

:class:`CalendarSite` is an endless calendar, as issue 25's user met it: every day's page
links the next and previous day, month and year, in two forms, ``/cal/2027/01/05`` and
``/cal?y=2027&m=1&d=5`` (each linking its own form). :class:`NewsSite` is a finite news
site whose URLs are as dated and numbered, and no trap: articles under the day they
appeared (``/2026/03/17/a-slug``), an archive page for each day linking the day before
and after, sections in numbered pages, and photo galleries (``/gallery/12/photo/3``).
"""

from __future__ import annotations

import calendar
import threading
from collections import Counter
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


def add_months(day: date, months: int) -> date:
    """The same day ``months`` later (or earlier), the month's last if it has no such."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _page(title: str, links: list[tuple[str, str]], text: str = "") -> bytes:
    anchors = "\n".join(f'<li><a href="{href}">{label}</a></li>' for href, label in links)
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
        f"<h1>{title}</h1><p>{text}</p><ul>{anchors}</ul></body></html>"
    ).encode()


class _Site:
    """A server on 127.0.0.1 whose pages are made up per request by :meth:`answer`."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                with site.lock:
                    site.hits[self.path] += 1
                body = site.answer(self.path)
                self.send_response(200 if body is not None else 404)
                body = body if body is not None else b"<html><body>not found</body></html>"
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def hits_under(self, prefix: str) -> int:
        with self.lock:
            return sum(count for path, count in self.hits.items() if path.startswith(prefix))

    def answer(self, path: str) -> bytes | None:
        raise NotImplementedError

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class CalendarSite(_Site):
    def __init__(self, start: date) -> None:
        self.start = start
        super().__init__()

    @staticmethod
    def path_form(day: date) -> str:
        return f"/cal/{day.year}/{day.month:02}/{day.day:02}"

    @staticmethod
    def query_form(day: date) -> str:
        return f"/cal?y={day.year}&amp;m={day.month}&amp;d={day.day}"

    def answer(self, path: str) -> bytes | None:
        parts = urlsplit(path)
        if parts.path == "/":
            seeds = [(self.path_form(self.start), "calendar"), (self.query_form(self.start), "cal")]
            return _page("Events", seeds)
        try:
            if parts.path.startswith("/cal/"):
                year, month, day = map(int, parts.path.split("/")[2:5])
                form = self.path_form
            elif parts.path == "/cal":
                query = parse_qs(parts.query)
                year, month, day = (int(query[key][0]) for key in ("y", "m", "d"))
                form = self.query_form
            else:
                return None
            today = date(year, month, day)
        except (ValueError, KeyError):
            return None
        steps = [
            ("previous year", add_months(today, -12)),
            ("previous month", add_months(today, -1)),
            ("previous day", today - timedelta(days=1)),
            ("next day", today + timedelta(days=1)),
            ("next month", add_months(today, 1)),
            ("next year", add_months(today, 12)),
        ]
        links = [(form(when), label) for label, when in steps if date.min < when < date.max]
        return _page(f"Events of {today}", [*links, ("/", "home")], "No events.")


class NewsSite(_Site):
    """``days`` days of news up to ``last`` (one article a day, in turn in each section),
    and ``galleries`` galleries of ``photos`` photos."""

    SECTIONS = ("politics", "science", "culture")
    PER_PAGE = 10

    def __init__(self, last: date, days: int, galleries: int, photos: int) -> None:
        self.days = [last - timedelta(days=i) for i in range(days)]  # newest first
        self.galleries, self.photos = galleries, photos
        super().__init__()

    def article(self, i: int) -> str:
        day = self.days[i]
        words = ("council", "budget", "river", "festival", "vote", "study", "bridge")
        slug = f"{words[i % 7]}-{words[(i // 7) % 7]}-report-{day:%B}".lower()
        return f"/{day:%Y/%m/%d}/{slug}"

    def section(self, name: str) -> list[int]:
        return [i for i in range(len(self.days)) if self.SECTIONS[i % 3] == name]

    def section_page(self, name: str, page: int) -> str:
        return f"/section/{name}?page={page}"

    def answer(self, path: str) -> bytes | None:
        parts = urlsplit(path)
        segments = parts.path.strip("/").split("/")
        if parts.path == "/":
            links = [(self.section_page(name, 1), name) for name in self.SECTIONS]
            links += [(self.article(i), "story") for i in range(10)]
            links += [(f"/gallery/{g}", "gallery") for g in range(1, 4)]
            links.append((f"/{self.days[0]:%Y/%m/%d}/", "today"))
            return _page("The Daily", links)
        if segments[0] == "section" and len(segments) == 2:
            return self.section_answer(segments[1], parts.query)
        if segments[0] == "gallery":
            return self.gallery_answer(segments[1:])
        if len(segments) in (3, 4) and all(s.isdigit() for s in segments[:3]):
            day = date(*map(int, segments[:3]))
            if day not in self.days:
                return None
            i = self.days.index(day)
            if len(segments) == 3:
                return self.day_answer(i)
            if path != self.article(i):
                return None
            links = [
                (f"/{day:%Y/%m/%d}/", "more from this day"),
                (f"/{day:%Y/%m}/", "this month"),
                (self.section_page(self.SECTIONS[i % 3], 1), "section"),
                *(
                    (self.article(j), "related")
                    for j in (i - 1, i + 1, i + 7)
                    if 0 <= j < len(self.days)
                ),
                ("/", "home"),
            ]
            return _page(f"Story of {day}", links, "A story. " * 50)
        if len(segments) == 2 and all(s.isdigit() for s in segments):
            year, month = map(int, segments)
            links = [
                (f"/{day:%Y/%m/%d}/", str(day))
                for day in self.days
                if (day.year, day.month) == (year, month)
            ]
            return _page(f"{year}-{month:02}", [*links, ("/", "home")]) if links else None
        return None

    def section_answer(self, name: str, query: str) -> bytes | None:
        if name not in self.SECTIONS:
            return None
        page = int(parse_qs(query).get("page", ["1"])[0])
        articles = self.section(name)
        pages = -(-len(articles) // self.PER_PAGE)
        if not 1 <= page <= pages:
            return None
        shown = articles[(page - 1) * self.PER_PAGE : page * self.PER_PAGE]
        links = [(self.article(i), "story") for i in shown]
        numbers = (p for p in (1, page - 1, page + 1, pages) if 1 <= p <= pages)
        links += [(self.section_page(name, p), str(p)) for p in numbers]
        return _page(f"{name}, page {page}", links)

    def day_answer(self, i: int) -> bytes:
        day = self.days[i]
        links = [(self.article(i), "story")]
        if i + 1 < len(self.days):
            links.append((f"/{self.days[i + 1]:%Y/%m/%d}/", "the day before"))
        if i > 0:
            links.append((f"/{self.days[i - 1]:%Y/%m/%d}/", "the day after"))
        links.append((f"/{day:%Y/%m}/", "the month"))
        return _page(f"News of {day}", links)

    def gallery_answer(self, segments: list[str]) -> bytes | None:
        gallery = int(segments[0])
        if not 1 <= gallery <= self.galleries:
            return None
        if len(segments) == 1:
            links = [(f"/gallery/{gallery}/photo/{n}", str(n)) for n in range(1, self.photos + 1)]
            if gallery < self.galleries:
                links.append((f"/gallery/{gallery + 1}", "next gallery"))
            return _page(f"Gallery {gallery}", links)
        photo = int(segments[2])
        if not 1 <= photo <= self.photos:
            return None
        links = [
            (f"/gallery/{gallery}/photo/{n}", label)
            for n, label in ((photo - 1, "previous"), (photo + 1, "next"))
            if 1 <= n <= self.photos
        ]
        return _page(f"Photo {photo}", [*links, (f"/gallery/{gallery}", "gallery")])
