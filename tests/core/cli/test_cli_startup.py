"""Quick commands stay quick (issue 11): what they import, not how long they take.

Each command runs the real entry point (``recrawl.main.main``) in a fresh interpreter
that then reports which modules it loaded. The read-only commands must not load numpy,
httpx, Qt or the crawl engine; ``urls``, ``history``, ``segments`` and ``settings`` not
even w3lib or warcio. ``bench/cli_bench.py`` measures the time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from recrawl.main import main

# runs argv[2:] as the `recrawl` command, then writes the modules it loaded to argv[1]
WRAPPER = """
import json, sys
from recrawl.main import main
try:
    code = main(sys.argv[2:])
except SystemExit as exc:  # --version exits from argparse
    code = exc.code
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""
# for any read-only command; nor playhouse.db_url (it loads every database driver), nor
# psycopg on a SQLite project (peewee would import it: recrawl.core.store.quiet_peewee)
NEVER = ("numpy", "httpx", "PySide6", "recrawl.core.engine", "playhouse.db_url", "psycopg")
STORE_ONLY = (*NEVER, "w3lib", "warcio")  # for those that read the store alone


def loaded(name: str, modules: list[str]) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory):
    from tests.support.httpserver import TestServer

    server = TestServer().start()
    try:
        server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
        server.html("/a", "<p>alpha</p>")
        server.html("/b", "<p>beta</p>")
        d = tmp_path_factory.mktemp("startup") / "p"
        for args in (
            ["init", d],
            ["inject", d, server.url("/")],
            ["crawl", d, "--delay", "0", "--json"],
        ):
            assert main([str(a) for a in args]) == 0
        yield d, server.url("/a")
    finally:
        server.stop()


def run_recrawl(tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    report = tmp_path / "modules.json"
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(report), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(report.read_text())
    return found["code"], result.stdout, found["modules"]


@pytest.mark.parametrize(
    ("args", "forbidden", "expect"),
    [
        (("--version",), (*STORE_ONLY, "peewee"), "recrawl "),
        (("urls", "{dir}"), STORE_ONLY, "{url}"),
        (("urls", "{dir}", "--json"), STORE_ONLY, '"url": "{url}"'),
        (("history", "{dir}", "{url}", "--json"), STORE_ONLY, '"http_status": 200'),
        (("segments", "{dir}", "--json"), STORE_ONLY, '"live_records": '),
        (("show", "{dir}", "{url}"), NEVER, "alpha"),
        (("settings", "{dir}", "--json"), STORE_ONLY, '"name": "politeness.delay"'),
        (("news", "{dir}", "--json"), (*STORE_ONLY, "feedgen", "lxml"), '"kind": "baseline"'),
        (("feed", "{dir}"), NEVER, "<feed"),
        # the crawl tried the host's /sitemap.xml
        (("sources", "{dir}", "--json"), (*STORE_ONLY, "usp", "feedparser"), '"kind": "sitemap"'),
        (("workers", "{dir}", "--json"), STORE_ONLY, "[]"),  # a crawl on SQLite: no worker
        (("storage", "{dir}", "--json"), STORE_ONLY, '"by_month": '),
        # the crawl indexed the pages' text: search reads the index alone
        (("search", "{dir}", "alpha", "--json"), (*STORE_ONLY, "lxml", "trafilatura"), "{url}"),
    ],
    ids=[
        *("version", "urls", "urls-json", "history", "segments", "show", "settings", "news"),
        *("feed", "sources", "workers", "storage", "search"),
    ],
)
def test_read_only_commands_load_only_what_they_use(tmp_path, crawled, args, forbidden, expect):
    project, url = crawled
    args = tuple(a.format(dir=project, url=url) for a in args)
    code, out, modules = run_recrawl(tmp_path, *args)
    assert code == 0 and expect.format(url=url) in out
    assert [name for name in forbidden if loaded(name, modules)] == []


def test_diff_loads_the_text_extractor_but_nothing_of_the_crawl(tmp_path, crawled):
    shared, url = crawled
    project = tmp_path / "copy"  # the module's project keeps its one round
    shutil.copytree(shared, project)
    for now in ("2099-01-01T00:00:00Z", "2100-01-01T00:00:00Z"):  # due again: captured twice
        assert main(["crawl", str(project), "--delay", "0", "--json", "--now", now]) == 0
    code, out, modules = run_recrawl(tmp_path, "diff", str(project), url, "--json")
    assert code == 0 and json.loads(out)["url"] == url
    assert loaded("trafilatura", modules)
    assert [name for name in NEVER if loaded(name, modules)] == []


def test_the_guard_sees_a_heavy_import(tmp_path, crawled):
    # schedule needs the policy stack: numpy shows up, so the check above can fail
    project, _url = crawled
    code, out, modules = run_recrawl(tmp_path, "schedule", str(project), "--json")
    assert code == 0 and json.loads(out)["name"]
    assert loaded("numpy", modules) and not loaded("recrawl.core.engine", modules)


def test_history_finds_a_url_given_in_another_spelling(tmp_path, crawled):
    # not stored as given: canonicalised (w3lib loads then), the same page is found
    project, url = crawled
    spelled = url.replace("http://", "HTTP://") + "#top"
    code, out, modules = run_recrawl(tmp_path, "history", str(project), spelled, "--json")
    assert code == 0 and len(json.loads(out)) == 1
    assert loaded("w3lib", modules)


@pytest.mark.parametrize(("blocks", "loads_list"), [(False, False), (True, True)])
def test_filter_check_loads_the_suffix_list_only_for_host_blocks(tmp_path, blocks, loads_list):
    # a host block's rule compares the URL's domain name (the Public Suffix List's);
    # other chains never load the list
    block = "> example.co.uk\n-/private/\n<\n" if blocks else ""
    chain = tmp_path / "chain.toml"
    chain.write_text(f"[[filter]]\nkind = \"regex\"\nrules = '''\n{block}+.\n'''\n")
    url = "https://www.example.co.uk/private/x"
    code, out, modules = run_recrawl(tmp_path, "filter", "check", "--chain", str(chain), url)
    assert code == 0 and out.split()[0] == ("reject" if blocks else "accept")
    assert loaded("publicsuffixlist", modules) == loads_list
