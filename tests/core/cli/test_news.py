"""``recrawl news`` and ``recrawl feed`` (docs/design.md §10) on a project crawled over months."""

from __future__ import annotations

import json
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import feedparser
import pytest
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
from recrawl.core.project import Project

from recrawl.main import main

NEWS_KEYS = ["at", "kind", "url", "host", "title", "first_seen", "published_at"]
CHANGED_KEYS = ["summary", "rule"]
ATOM = "{http://www.w3.org/2005/Atom}"
TEXT = "the quick brown fox jumps over the lazy dog while archivists keep watch "


def page(title: str, words: str, published: str = "") -> str:
    meta = f'<meta name="date" content="{published}">' if published else ""
    return f"<html><head><title>{title}</title>{meta}</head><body><p>{words * 20}</p></body></html>"


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    """Three crawls a month apart: the first crawl (a baseline of 3 pages), then /a changed
    (linking to /c, new) and /b gone, then /b back."""
    from tests.support.httpserver import TestServer

    server = TestServer().start()
    try:
        server.html("/", '<title>Home</title><a href="/a">a</a> <a href="/b">b</a>')
        server.html("/a", page("Alpha", TEXT, published="2026-12-30"))
        server.html("/b", page("Beta", "beta " + TEXT))
        d = tmp_path_factory.mktemp("news") / "p"
        assert main(["init", str(d)]) == 0
        assert main(["inject", str(d), server.url("/")]) == 0

        def crawl(now: str) -> None:
            args = ["crawl", str(d), "--delay", "0", "--now", now, "--json"]
            assert main(args) == 0

        crawl("2027-01-01T00:00:00Z")
        server.html(
            "/a",
            page("Alpha 2", "entirely new words about elections and budgets ")
            + '<a href="/c">c</a>',
        )
        server.html("/c", page("Gamma", "gamma " + TEXT))
        del server.routes["/b"]
        crawl("2027-02-01T00:00:00Z")
        server.html("/b", page("Beta", "beta " + TEXT))
        crawl("2027-04-01T00:00:00Z")
        yield d, server.url("/")
    finally:
        server.stop()


def test_news_json_is_newest_first_with_the_documented_keys(crawled, capsys):
    d, home = crawled
    code, out, _ = run(capsys, "news", d, "--json")
    assert code == 0
    items = json.loads(out)
    assert all(
        list(item) == NEWS_KEYS + (CHANGED_KEYS if item["kind"] == "changed" else [])
        for item in items[:-1]
    )
    assert [(i["kind"], i["url"].removeprefix(home)) for i in items] == [
        ("back", "b"),
        ("new", "c"),
        ("gone", "b"),
        ("changed", "a"),
        ("baseline", ""),
    ]
    ats = [i["at"] for i in items]
    assert ats == sorted(ats, reverse=True) and all(a.endswith("Z") for a in ats)
    changed = items[3]
    assert changed["title"] == "Alpha 2" and changed["host"] == "127.0.0.1"
    assert changed["at"].startswith("2027-02-01T") and changed["first_seen"].endswith("Z")
    # the date /a stated when first fetched (docs/design.md §11); /b states none
    assert changed["published_at"] == "2026-12-30T00:00:00Z"
    assert items[0]["published_at"] is None
    # the first crawl: one item, the host's, naming its seed (docs/design.md §15)
    first = items[-1]
    assert list(first) == [*NEWS_KEYS, "pages", "complete"]
    assert first == {
        "at": first["at"],
        "kind": "baseline",
        "url": home,
        "host": "127.0.0.1",
        "title": None,
        "first_seen": first["first_seen"],
        "published_at": None,
        "pages": 3,
        "complete": True,
    }
    assert first["at"].startswith("2027-01-01T") and first["first_seen"] <= first["at"]


def test_news_filters_by_kind_and_since(crawled, capsys):
    d, _ = crawled
    _, out, _ = run(capsys, "news", d, "--kind", "new", "--json")
    assert [i["kind"] for i in json.loads(out)] == ["new"]
    _, out, _ = run(capsys, "news", d, "--kind", "baseline", "--json")
    assert [(i["kind"], i["pages"]) for i in json.loads(out)] == [("baseline", 3)]
    _, out, _ = run(capsys, "news", d, "--since", "2027-02-01T00:00:00Z", "--json")
    assert [i["kind"] for i in json.loads(out)] == ["back", "new", "gone", "changed"]
    _, out, _ = run(capsys, "news", d, "--since", "2030-01-01", "--json")
    assert json.loads(out) == []
    code, _, err = run(capsys, "news", d, "--since", "yesterday")
    assert code != 0 and "not an ISO 8601 time" in err
    with pytest.raises(SystemExit):
        main(["news", str(d), "--kind", "deleted"])
    capsys.readouterr()


def test_news_text_lists_one_item_a_line(crawled, capsys):
    d, home = crawled
    code, out, _ = run(capsys, "news", d)
    lines = out.splitlines()
    assert code == 0 and len(lines) == 5
    assert lines[0].startswith("2027-04-01T") and f"back      {home}b  Beta" in lines[0]
    assert lines[-1].startswith("2027-01-01T")
    assert f"baseline  {home}  first crawl of 127.0.0.1: 3 pages archived" in lines[-1]


def test_feed_is_atom_a_reader_accepts(crawled, capsys, tmp_path):
    d, home = crawled
    out_file = tmp_path / "news.xml"
    code, out, _ = run(capsys, "feed", d, "--out", out_file)
    assert code == 0 and out == ""
    document = out_file.read_bytes()
    root = ET.fromstring(document)
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated", "link", "author"):
        assert root.find(f"{ATOM}{required}") is not None, required
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 5
    for entry in entries:
        for required in ("id", "title", "updated", "link", "summary"):
            assert entry.find(f"{ATOM}{required}") is not None, required
    assert root.find(f"{ATOM}updated").text == entries[0].find(f"{ATOM}updated").text

    feed = feedparser.parse(document)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    titles = [e.title for e in feed.entries]
    assert titles == [
        "Back: Beta",
        "New: Gamma",
        "Gone: Beta",
        "Changed: Alpha 2",
        "First crawl of 127.0.0.1: 3 pages archived",
    ]
    assert feed.entries[3].link == f"{home}a"
    assert feed.entries[3].updated.startswith("2027-02-01T")
    assert feed.entries[4].link == home
    assert "first crawl of 127.0.0.1" in feed.entries[4].summary
    assert len({e.id for e in feed.entries}) == 5  # unique

    # stable: the same items get the same ids the next time; stdout gets the same feed
    _, again, _ = run(capsys, "feed", d)
    assert [e.id for e in feedparser.parse(again).entries] == [e.id for e in feed.entries]
    assert feedparser.parse(again).feed.id == feed.feed.id
    _, since, _ = run(capsys, "feed", d, "--since", "2027-03-01T00:00:00Z")
    assert [e.title for e in feedparser.parse(since).entries] == ["Back: Beta"]
    _, newest, _ = run(capsys, "feed", d, "--limit", "2")
    assert [e.title for e in feedparser.parse(newest).entries] == titles[:2]


def test_feed_of_a_project_without_news_is_still_valid(tmp_path, capsys):
    d = tmp_path / "empty"
    assert run(capsys, "init", d)[0] == 0
    _, out, _ = run(capsys, "feed", d)
    feed = feedparser.parse(out)
    assert not feed.bozo and feed.entries == [] and feed.feed.title.startswith("Recrawl news")
    _, out, _ = run(capsys, "news", d, "--json")
    assert json.loads(out) == []


def test_feed_out_replaces_the_file_whole(crawled, capsys, tmp_path):
    d, _ = crawled
    target = tmp_path / "feed.xml"
    target.write_text("old")
    assert run(capsys, "feed", d, "--out", target)[0] == 0
    assert target.read_bytes().startswith(b"<?xml")
    assert [p.name for p in Path(tmp_path).iterdir()] == ["feed.xml"]  # no temporary left


def test_crawl_rounds_say_their_news(tmp_path, capsys, server):
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", "<p>a</p>")
    d = tmp_path / "p"
    for args in (["init", d], ["inject", d, server.url("/")]):
        assert run(capsys, *args)[0] == 0
    _, out, err = run(capsys, "crawl", d, "--delay", "0", "--now", "2027-01-01T00:00:00Z")
    rounds = [line for line in err.splitlines() if line.startswith("round ")]
    # the first crawl: pages archived, no news (docs/design.md §15), and when it is done
    assert rounds[0].endswith("1 new URL; first crawl: 1 page archived")
    assert rounds[1].endswith("; first crawl: 1 page archived")
    assert "first crawl of 127.0.0.1 done: 2 pages archived" in err
    assert "first crawl: 2 pages archived" in out  # the summary

    # a month on, /a answers 404: gone, with its status; two months on it is back
    del server.routes["/a"]
    _, out, err = run(capsys, "crawl", d, "--delay", "0", "--now", "2027-02-01T00:00:00Z")
    assert f"gone: {server.url('/a')} (HTTP 404)" in err.splitlines()
    (round_line,) = [line for line in err.splitlines() if line.startswith("round ")]
    assert round_line.endswith("; news: 1 gone") and "news: 1 gone" in out
    server.html("/a", "<p>a</p>")
    _, out, err = run(capsys, "crawl", d, "--delay", "0", "--now", "2027-04-01T00:00:00Z")
    assert "news: 1 back" in out and "gone:" not in err


def summary_of(out: str) -> dict:
    (changed,) = [i for i in json.loads(out) if i["kind"] == "changed"]
    return changed


def test_news_json_says_why_a_page_changed(crawled, capsys):
    d, _home = crawled
    _, out, _ = run(capsys, "news", d, "--json")
    changed = summary_of(out)
    assert changed["rule"] is None
    lines = changed["summary"].splitlines()
    # /a's one paragraph rewritten: the old one removed, the new one added, each cut short
    assert lines[0].startswith("- the quick brown fox jumps") and lines[0].endswith("…")
    assert lines[1].startswith("+ entirely new words about elections and budgets")
    assert len(lines) <= 6 and all(len(line) <= 202 for line in lines)


def clear_summaries(folder: Path) -> None:
    with sqlite3.connect(folder / "recrawl.sqlite") as db:
        db.execute("UPDATE news SET summary = NULL, rule = NULL")


def stored_summaries(folder: Path) -> list[tuple[str, str | None, str | None]]:
    with sqlite3.connect(folder / "recrawl.sqlite") as db:
        return db.execute(
            "SELECT kind, summary, rule FROM news WHERE summary IS NOT NULL"
        ).fetchall()


def test_news_json_makes_a_missing_summary_and_keeps_it(crawled, capsys, tmp_path):
    shared, home = crawled
    d = tmp_path / "copy"
    shutil.copytree(shared, d)
    _, before, _ = run(capsys, "news", d, "--json")
    clear_summaries(d)  # as an item from before summaries, or past a round's bound
    _, out, _ = run(capsys, "news", d, "--json")
    assert summary_of(out) == summary_of(before)
    assert [(kind, rule) for kind, _, rule in stored_summaries(d)] == [("changed", None)]

    # under a change rule, the summary is read through it, and names it
    project = Project.open(d)
    try:
        with project.active():
            save_rules(ChangeRules((ChangeRule(home, ignore=("elections",)),)))
    finally:
        project.close()
    clear_summaries(d)
    _, out, _ = run(capsys, "news", d, "--json")
    changed = summary_of(out)
    assert changed["rule"] == home
    assert "+ entirely new words about and budgets" in changed["summary"]
    assert "elections" not in changed["summary"]


def test_feed_per_site_and_kind_carries_the_change_summary(crawled, capsys):
    d, home = crawled
    _, whole, _ = run(capsys, "feed", d)
    code, out, _ = run(capsys, "feed", d, "--site", "127.0.0.1", "--kind", "changed")
    assert code == 0
    feed = feedparser.parse(out)
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert feed.feed.title.endswith("on 127.0.0.1 (changed only)")
    (entry,) = feed.entries
    assert entry.title == "Changed: Alpha 2" and entry.link == f"{home}a"
    content = entry.content[0].value
    assert "+ entirely new words about elections and budgets" in content
    assert "- the quick brown fox" in content
    # its own feed, its entries the whole feed's
    everything = feedparser.parse(whole)
    assert feed.feed.id != everything.feed.id
    assert entry.id in {e.id for e in everything.entries}

    _, out, _ = run(capsys, "feed", d, "--site", "127.0.0.1")
    assert len(feedparser.parse(out).entries) == 5
    _, out, _ = run(capsys, "feed", d, "--site", "elsewhere.example")
    other = feedparser.parse(out)
    assert other.bozo == 0 and other.entries == []


def test_feed_site_is_a_host_as_the_news_keeps_it_whatever_it_was_typed_as(crawled, capsys):
    d, home = crawled
    port = home.rsplit(":", 1)[1].strip("/")
    # with its port (as a change rule names it) or as a URL: the site's news, not none
    for site in (f"127.0.0.1:{port}", home, "127.0.0.1"):
        _, out, _ = run(capsys, "feed", d, "--site", site)
        assert len(feedparser.parse(out).entries) == 5, site
    # a host in Unicode is the news' IDNA host
    _, out, _ = run(capsys, "feed", d, "--site", "Bücher.example")
    assert feedparser.parse(out).feed.title.endswith("on xn--bcher-kva.example")
    code, _, err = run(capsys, "feed", d, "--site", "a b")
    assert code == 1 and "malformed host" in err
