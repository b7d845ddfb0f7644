"""Crawling again after editing a site (issue 25, items 1 and 2): ``crawl`` says what is
due next and when, ``refetch`` makes pages due now, ``inject`` says what it knew, and a
schedule change re-plans the pages already known. The real command in a subprocess,
against a loopback server, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta

import pytest
from recrawl.core.clock import parse_iso, to_iso

from tests.support.interrupted import recrawl
from tests.support.stores import store_kind  # noqa: F401  # the store's transaction on both

DAY = timedelta(days=1)
#: aronsson's first step after a fetch whose change is unknown: 1.2 × 10 d + 1800 s.
AFTER_FIRST = 1.2 * 10 * 86400 + 1800


@pytest.fixture
def crawled(tmp_path, server, db_args):
    """A project that has crawled a four-page site once: every page due in 12 days."""
    server.html("/", '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>')
    for name in "abc":
        server.html(f"/{name}", f"<p>page {name}, as first written</p>")
    project = tmp_path / "p"
    recrawl("init", project, *db_args)
    recrawl("inject", project, server.url("/"))
    recrawl("crawl", project, "--delay", "0", "--ignore-robots")
    return project


def pages(project) -> dict[str, dict]:
    rows = json.loads(recrawl("urls", project, "--json").stdout)
    return {row["url"]: row for row in rows}


def crawl_json(project, *args: str) -> dict:
    out = recrawl("crawl", project, "--delay", "0", "--ignore-robots", "--json", *args).stdout
    return json.loads(out.splitlines()[-1])


def test_crawling_again_says_when_the_next_page_is_due_and_how_to_fetch_now(crawled, server):
    server.html("/a", "<p>page a, edited since, with a new sentence</p>")
    done = recrawl("crawl", crawled, "--delay", "0", "--ignore-robots")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0 rounds, 0 fetched")
    assert lines[-1] == (
        f"nothing is due; the next page is due in 12.0 d; `recrawl refetch {crawled} --all` "
        "fetches now"
    )
    summary = crawl_json(crawled)
    assert summary["fetched"] == 0
    due = parse_iso(summary["next_due_at"])
    assert summary["next_due_at"].endswith("Z")
    earliest = min(parse_iso(row["next_fetch"]) for row in pages(crawled).values())
    assert due == earliest
    # refetch the site: every page due now, said with how many; the crawl fetches them
    done = recrawl("refetch", crawled, "--site", "127.0.0.1")
    assert done.stdout == (
        "4 pages made due now; the next `recrawl crawl` (or the watcher) fetches them\n"
    )
    summary = crawl_json(crawled)
    assert summary["fetched"] == 4 and summary["changed_pages"] == 1
    assert parse_iso(summary["next_due_at"]) > datetime.now(tz=None) + 5 * DAY
    # asked again at once: nothing more to fetch, and refetch says so
    done = recrawl("refetch", crawled, server.url("/a"), "--json")
    assert json.loads(done.stdout) == {
        "made_due": 1, "already_due": 0, "filtered": 0, "unknown": [],
    }  # fmt: skip
    done = recrawl("refetch", crawled, server.url("/a"))
    assert done.stdout.startswith("1 page was due already; the next `recrawl crawl`")


def test_a_crawl_that_fetched_says_what_comes_next(tmp_path, server, db_args):
    server.html("/", "<p>alone</p>")
    project = tmp_path / "p"
    recrawl("init", project, *db_args)
    recrawl("inject", project, server.url("/"))
    done = recrawl("crawl", project, "--delay", "0", "--ignore-robots")
    assert done.stdout.splitlines()[-1] == "nothing more is due; the next page is due in 12.0 d"
    empty = tmp_path / "empty"  # its own SQLite store: the PostgreSQL one holds a page
    recrawl("init", empty)
    done = recrawl("crawl", empty)
    assert done.stdout.splitlines()[-1] == (
        "nothing is due, and no page will be: `recrawl inject` adds seeds"
    )
    assert crawl_json(empty)["next_due_at"] is None


def test_refetch_names_unknown_urls_and_refuses_what_it_cannot_do(crawled, server):
    done = recrawl("refetch", crawled, server.url("/b"), server.url("/nowhere"), check=False)
    assert done.returncode == 0
    assert done.stdout.startswith("1 page made due now;")
    assert f"{server.url('/nowhere')} is not known to the project" in done.stderr
    done = recrawl("refetch", crawled, server.url("/nowhere"), check=False)
    assert done.returncode == 1 and "none of the URLs given is known" in done.stderr
    done = recrawl("refetch", crawled, check=False)
    assert done.returncode == 1
    assert "exactly one of them" in done.stderr
    done = recrawl("refetch", crawled, "--site", "elsewhere.example", check=False)
    assert done.returncode == 1 and "not in the crawl's scope" in done.stderr
    assert "Traceback" not in done.stderr
    done = recrawl("refetch", crawled, "--all", "--json")
    # /b was made due above; the three others now
    assert json.loads(done.stdout) == {
        "made_due": 3, "already_due": 1, "filtered": 0, "unknown": [],
    }  # fmt: skip
    assert crawl_json(crawled)["fetched"] == 4


def test_refetch_leaves_pages_the_chain_filters(crawled, server, tmp_path):
    chain = tmp_path / "chain.toml"
    chain.write_text(
        recrawl("filter", "get", crawled).stdout
        + '\n[[filter]]\nkind = "regex"\nname = "no-c"\nrules = """\n-/c$\n+.\n"""\n'
    )
    recrawl("filter", "set", crawled, chain)
    done = recrawl("refetch", crawled, "--all")
    assert done.stdout.splitlines() == [
        "3 pages made due now; the next `recrawl crawl` (or the watcher) fetches them",
        "1 page left alone: the filter chain rejects it (`recrawl filter check` says why)",
    ]


def test_injecting_known_urls_says_so_and_leaves_them_as_they_are(crawled, server):
    before = pages(crawled)
    done = recrawl("inject", crawled, server.url("/"), server.url("/a"), server.url("/new"))
    assert done.stdout.splitlines() == [
        "injected 1 new of 3 URLs",
        f"2 URLs already known (not changed; `recrawl refetch {crawled} URL...` makes them "
        "due now)",
    ]
    after = pages(crawled)
    for url in (server.url("/"), server.url("/a")):
        assert after[url]["next_fetch"] == before[url]["next_fetch"]
    assert after[server.url("/new")]["status"] == "unfetched"


def test_a_schedule_change_replans_the_known_pages_within_its_bounds(crawled, server):
    before = pages(crawled)
    assert {row["fetch_interval"] for row in before.values()} == {AFTER_FIRST}
    done = recrawl("schedule", crawled, "--param", "max=1d")
    assert done.stdout.splitlines()[-1] == (
        "re-planned 4 pages (next fetch moved within the new bounds)"
    )
    after = pages(crawled)
    for url, row in after.items():
        assert row["fetch_interval"] == 86400.0
        # within a day of its last fetch, not 12 days
        last = parse_iso(before[url]["last_fetched"])
        assert abs(parse_iso(row["next_fetch"]) - (last + DAY)) < timedelta(milliseconds=1)
    # pages already within the bounds do not move
    done = recrawl("schedule", crawled, "--param", "max=30d")
    assert done.stdout.splitlines()[-1].startswith("no page to re-plan")
    assert pages(crawled) == after
    # two days on, they are due, and a crawl then fetches them all
    later = to_iso(datetime.now() + 2 * DAY)
    assert crawl_json(crawled, "--now", later)["fetched"] == 4
    # --set (with --json: the JSON on stdout, the line on stderr) re-plans too: fixed 3 d
    done = recrawl("schedule", crawled, "--set", "fixed", "--param", "initial=3d", "--json")
    assert json.loads(done.stdout)["name"] == "fixed"
    moved = re.fullmatch(r"re-planned (\d) pages \(next fetch moved within the new bounds\)\n",
                         done.stderr)  # fmt: skip
    assert moved and int(moved.group(1)) == 4
    assert {row["fetch_interval"] for row in pages(crawled).values()} == {3 * 86400.0}


def test_refetch_takes_the_url_as_inject_took_it(tmp_path, server):
    """inject takes 127.0.0.1:PORT/ and says `recrawl refetch DIR URL...` makes it due now:
    refetch takes the same text."""
    server.html("/", "<html><title>x</title><p>x</p></html>")
    d = tmp_path / "p"
    typed = f"127.0.0.1:{server.port}/"
    recrawl("init", d)
    recrawl("inject", d, typed)
    recrawl("crawl", d, "--delay", "0")
    again = recrawl("inject", d, typed)
    assert "recrawl refetch" in again.stdout  # the hint the user follows
    done = recrawl("refetch", d, typed, check=False)
    assert done.returncode == 0, done.stderr
    assert "1 page made due now" in done.stdout
