"""``recrawl sources`` and ``recrawl inject --feed/--sitemap`` (docs/design.md §8, §11)."""

from __future__ import annotations

import json

from recrawl.main import main
from tests.core.cli.test_news import run
from tests.support.httpserver import Reply

SOURCE_KEYS = [
    "url", "kind", "host", "found_via", "found_from", "first_seen", "last_fetched",
    "next_fetch", "fetch_interval", "http_status", "entries", "pages", "error",
]  # fmt: skip


def rss(*links: str) -> bytes:
    items = "".join(
        f"<item><link>{link}</link><pubDate>Thu, 31 Dec 2026 12:00:00 GMT</pubDate></item>"
        for link in links
    )
    return f'<rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()


def test_an_injected_feed_is_read_and_listed_with_what_it_found(tmp_path, capsys, server):
    feed = server.url("/news.rss")
    server.routes["/news.rss"] = Reply(
        200, rss(server.url("/story-1"), server.url("/story-2")), {"Content-Type": "text/xml"}
    )
    server.html("/story-1", "<p>one</p>")
    server.html("/story-2", "<p>two</p>")
    d = tmp_path / "p"
    assert main(["init", str(d)]) == 0
    code, out, _ = run(capsys, "inject", d, "--feed", feed)
    assert code == 0 and "injected 1 new of 1 feed" in out
    assert main(["crawl", str(d), "--delay", "0", "--now", "2027-01-01T00:00:00Z"]) == 0
    capsys.readouterr()

    code, out, _ = run(capsys, "sources", d, "--json")
    assert code == 0
    rows = {row["url"]: row for row in json.loads(out)}
    row = rows[feed]
    assert list(row) == SOURCE_KEYS
    assert (row["kind"], row["found_via"], row["found_from"]) == ("feed", "inject", None)
    assert (row["http_status"], row["entries"], row["pages"], row["error"]) == (200, 2, 2, None)
    assert row["last_fetched"].startswith("2027-01-01T00:00")
    assert row["next_fetch"] > row["last_fetched"] and row["fetch_interval"] > 0
    default = rows[server.url("/sitemap.xml")]  # tried: the test server has none
    assert (default["found_via"], default["http_status"], default["error"]) == (
        "default",
        404,
        "HTTP 404",
    )

    code, out, _ = run(capsys, "urls", d, "--json")
    pages = {row["url"]: row for row in json.loads(out)}
    story = pages[server.url("/story-1")]
    assert (story["discovered_via"], story["discovered_from"]) == ("feed", feed)
    assert story["published_at"] == "2026-12-31T12:00:00Z"

    code, out, _ = run(capsys, "sources", d)
    assert code == 0
    (line,) = [line for line in out.splitlines() if feed in line]
    assert line.startswith("feed ") and "2 listed, 2 pages found" in line


def test_sources_of_a_project_without_any(tmp_path, capsys):
    d = tmp_path / "p"
    assert main(["init", str(d)]) == 0
    capsys.readouterr()
    assert run(capsys, "sources", d, "--json")[:2] == (0, "[]\n")
    code, out, _ = run(capsys, "sources", d)
    assert code == 0 and "no sitemaps or feeds yet" in out
