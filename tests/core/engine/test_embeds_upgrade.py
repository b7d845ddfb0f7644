"""An older project (schema 11: pages alone) after the upgrade (docs/design.md §14).

``tests/data/schema-11-project`` was made by Recrawl before embeds (commit ff0a348):
``recrawl crawl --now 2027-01-01T00:00:00Z`` of :mod:`tests.support.embedsite` with its pages
served on 127.0.0.5:38513 (the address is in its captures, so the test serves the same
site there again). Its next crawl fetches what each page embeds; nothing stored before
is lost or rewritten.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core.cli.entry import main
from recrawl.core.store.migrations import SCHEMA_VERSION

from tests.support import httpserver
from tests.support.embedsite import EmbedSite

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).parents[2] / "data" / "schema-11-project"
ADDRESS, PORT = "127.0.0.5", 38513


def digests(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.glob("segments/*/*"))
    }


@pytest.fixture
def site() -> Iterator[EmbedSite]:
    try:
        pages = httpserver.TestServer(port=PORT, address=ADDRESS)
    except OSError as exc:  # the fixture's address is taken on this machine
        pytest.skip(f"cannot serve the older project's site at {ADDRESS}:{PORT}: {exc}")
    served = EmbedSite(pages=pages)
    yield served
    served.stop()


def run(capsys, *args: object) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_an_older_project_gets_its_embeds_with_each_pages_next_fetch(tmp_path, capsys, site):
    folder = tmp_path / "old"
    shutil.copytree(FIXTURE, folder)
    before = digests(folder)
    old_history = json.loads(run(capsys, "history", folder, site.pages.url("/"), "--json"))
    # opened by this version: upgraded, nothing lost
    pages = json.loads(run(capsys, "urls", folder, "--json"))
    assert {p["url"] for p in pages} == {site.pages.url("/"), site.pages.url("/other.html")}
    assert {p["kind"] for p in pages} == {"page"}
    assert json.loads(run(capsys, "urls", folder, "--json", "--kind", "embed")) == []
    (old,) = old_history
    assert old["embeds"] is None  # made before embeds were archived: not known
    assert "Every kind of embed" in run(capsys, "show", folder, site.pages.url("/"))
    # a month and a half on, each page's next fetch fetches what it embeds (no compaction
    # by policy, docs/design.md §18: it would fold January's segments, checked below)
    run(capsys, "settings", folder, "--set", "compaction.auto=false")
    summary = json.loads(
        run(capsys, "crawl", folder, "--delay", "0", "--json", "--now", "2027-02-15T00:00:00Z")
    )
    assert summary["fetched"] == 2 and summary["embeds_fetched"] == len(site.fetched)
    history = json.loads(run(capsys, "history", folder, site.pages.url("/"), "--json"))
    assert [h["embeds"] for h in history] == [None, len(site.embed_urls)]
    assert history[0] == old  # the old fetch is as it was
    embeds = json.loads(run(capsys, "urls", folder, "--json", "--kind", "embed"))
    assert {e["url"] for e in embeds} == site.fetched
    # the older segments are untouched, byte for byte
    after = digests(folder)
    assert {name: after[name] for name in before} == before
    # and the store says which schema it is at now
    import sqlite3

    with sqlite3.connect(folder / "recrawl.sqlite") as db:
        (version,) = db.execute("SELECT value FROM setting WHERE key = 'schema_version'").fetchone()
    assert int(version) == SCHEMA_VERSION
