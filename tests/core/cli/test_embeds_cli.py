"""What pages embed, on the command line (docs/design.md §14): ``crawl --json`` counts them
apart, ``urls`` lists pages unless ``--kind`` says otherwise, ``history`` says what each
capture got of its embeds, ``filter check --embeds`` judges by the embed rules."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core.cli.entry import main

from tests.support.embedsite import EmbedSite

pytestmark = pytest.mark.slow

VIDEO_RULE = """
[[embed]]
kind = "regex"
name = "no-video"
rules = '''
-\\.mp4$
+.
'''
"""


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def ok(capsys, *args: object) -> str:
    """The command's output; it must succeed."""
    code, out, err = run(capsys, *args)
    assert code == 0, err
    return out


@pytest.fixture
def crawled(tmp_path, capsys) -> Iterator[tuple[Path, EmbedSite, dict]]:
    site = EmbedSite()
    d = tmp_path / "p"
    assert run(capsys, "init", d)[0] == 0
    assert run(capsys, "inject", d, site.pages.url("/"))[0] == 0
    code, out, err = run(
        capsys, "crawl", d, "--delay", "0", "--json", "--now", "2027-01-01T00:00:00Z"
    )
    assert code == 0, err
    yield d, site, json.loads(out)
    site.stop()


def test_crawl_counts_pages_and_embeds_apart_and_urls_lists_pages(crawled, capsys):
    d, site, summary = crawled
    assert summary["fetched"] == 2 and summary["embeds_fetched"] == len(site.fetched)
    out = ok(capsys, "urls", d, "--json")
    pages = json.loads(out)
    assert {p["url"] for p in pages} == {site.pages.url("/"), site.pages.url("/other.html")}
    assert {p["kind"] for p in pages} == {"page"}
    out = ok(capsys, "urls", d, "--json", "--kind", "embed")
    embeds = json.loads(out)
    assert {p["url"] for p in embeds} == site.fetched
    assert {(p["kind"], p["discovered_via"]) for p in embeds} == {("embed", "embed")}
    out = ok(capsys, "urls", d, "--kind", "all")
    assert len(out.splitlines()) == 2 + len(site.fetched)
    assert out.splitlines()[0].split()[0] in ("page", "embed")


def test_history_says_what_each_capture_got_of_its_embeds(crawled, capsys):
    d, site, _ = crawled
    del site.cdn.routes["/poster.jpg"]  # gone by the next crawl
    when = "2027-02-15T00:00:00Z"
    assert run(capsys, "crawl", d, "--delay", "0", "--json", "--now", when)[0] == 0
    out = ok(capsys, "history", d, site.pages.url("/"), "--json")
    first, second = json.loads(out)
    total = len(site.embed_urls)
    assert (first["embeds"], first["embeds_missing"], first["embeds_missing_count"]) == (
        total,
        [],
        0,
    )
    assert second["embeds"] == total - 1
    assert second["embeds_missing"] == [{"url": site.cdn.url("/poster.jpg"), "reason": "HTTP 404"}]
    out = ok(capsys, "history", d, site.pages.url("/"))
    assert f"embeds {total}/{total}" in out.splitlines()[0]
    assert f"embeds {total - 1}/{total}, missing: {site.cdn.url('/poster.jpg')} (HTTP 404)" in out
    # an embed has a history of its own, and no embeds of its own unless it is a stylesheet
    out = ok(capsys, "history", d, site.cdn.url("/poster.jpg"), "--json")
    assert [e["http_status"] for e in json.loads(out)] == [200, 404]


def test_filter_check_judges_embeds_by_the_embed_rules(crawled, capsys, tmp_path):
    d, site, _ = crawled
    clip, page = site.cdn.url("/clip.mp4"), site.pages.url("/")
    # no embed rules: every embed accepted; as a page, the default chain's no-binaries
    out = ok(capsys, "filter", "check", d, clip, "--embeds", "--json")
    assert json.loads(out)["verdict"] == "accept"
    out = ok(capsys, "filter", "check", d, clip, "--json")
    assert json.loads(out)["verdict"] == "reject"
    chain = ok(capsys, "filter", "get", d)
    (tmp_path / "chain.toml").write_text(chain + VIDEO_RULE)
    assert run(capsys, "filter", "set", d, tmp_path / "chain.toml")[0] == 0
    out = ok(capsys, "filter", "check", d, "--embeds", "--json", clip, page)
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert [(v["url"], v["verdict"], v["filter"], v["line"]) for v in verdicts] == [
        (clip, "reject", 0, 1),
        (page, "accept", None, None),
    ]
    out = ok(capsys, "filter", "check", d, "--embeds", "--explain", clip)
    assert "no-video" in out
    # the embed rules are kept by `filter get` with the chain
    out = ok(capsys, "filter", "get", d)
    assert "[[embed]]" in out and 'name = "no-video"' in out
