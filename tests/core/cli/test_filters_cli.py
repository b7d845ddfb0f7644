"""`recrawl filter ...` (DESIGN.md §6, §8): check, get/set, import/export, preview, stats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.filters import parse_chain
from recrawl.core.project import Project

from recrawl.main import main

CONF = Path(__file__).resolve().parents[2] / "data" / "nutch-conf"

CHAIN = """
[[filter]]
kind = "prefix"
name = "seeds"
rules = '''
SHORTCIRCUIT:https://example.com/keep/
https://
'''

[[filter]]
kind = "regex"
name = "clean"
rules = '''
-\\.pdf$
+.
'''

[[filter]]
kind = "domain"
name = "scope"
enabled = false
rules = '''
other.org
'''
"""

JSON_KEYS = ["url", "verdict", "shortcircuit", "filter", "line"]


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chain_file(tmp_path: Path) -> Path:
    path = tmp_path / "chain.toml"
    path.write_text(CHAIN)
    return path


@pytest.fixture
def proj(tmp_path: Path, capsys, chain_file: Path) -> Path:
    folder = tmp_path / "proj"
    assert run(capsys, "init", folder)[0] == 0
    assert run(capsys, "filter", "set", folder, chain_file)[0] == 0
    return folder


def test_check_json_is_exact(capsys, chain_file):
    code, out, err = run(
        capsys,
        "filter",
        "check",
        "--chain",
        chain_file,
        "https://EXAMPLE.com/keep/x#frag",
        "https://example.com/page",
        "https://example.com/doc.pdf",
        "http://example.com/",
        "--json",
    )
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert all(list(row) == JSON_KEYS for row in rows)
    assert rows == [
        {
            "url": "https://example.com/keep/x",  # canonicalized
            "verdict": "accept",
            "shortcircuit": True,
            "filter": 0,
            "line": 1,
        },
        {
            "url": "https://example.com/page",
            "verdict": "accept",
            "shortcircuit": False,
            "filter": None,
            "line": None,
        },
        {
            "url": "https://example.com/doc.pdf",
            "verdict": "reject",
            "shortcircuit": False,
            "filter": 1,
            "line": 1,
        },
        {
            "url": "http://example.com/",
            "verdict": "reject",
            "shortcircuit": False,
            "filter": 0,
            "line": None,
        },
    ]


def test_check_on_a_project_with_a_url_file(capsys, proj, tmp_path):
    urls = tmp_path / "urls.txt"
    urls.write_text("# comment\nhttps://example.com/doc.pdf\n\nhttps://example.com/page\n")
    code, out, _ = run(capsys, "filter", "check", proj, "--file", urls, "--json")
    assert code == 0
    assert [json.loads(line)["verdict"] for line in out.splitlines()] == ["reject", "accept"]
    code, out, _ = run(capsys, "filter", "check", proj, "https://example.com/doc.pdf")
    assert code == 0
    assert out.startswith("reject") and "filter 1 (clean), line 1" in out


def test_check_malformed_url_is_one_clear_line(capsys, chain_file):
    code, out, err = run(
        capsys, "filter", "check", "--chain", chain_file, "http://[::1", "https://a.com/", "--json"
    )
    assert code == 1
    assert err.strip().splitlines() == [
        "recrawl: error: malformed URL 'http://[::1': Invalid IPv6 URL"
    ]
    assert json.loads(out)["url"] == "https://a.com/"  # the others are still checked


def test_check_explain_shows_skipped_and_disabled(capsys, chain_file):
    code, out, _ = run(
        capsys, "filter", "check", "--chain", chain_file, "https://example.com/keep/x", "--explain"
    )
    assert code == 0
    lines = out.splitlines()
    assert "accept (short-circuit) by filter 0 (seeds), line 1" in lines[0]
    assert (
        "filter 0 (seeds, prefix): ran, shortcircuit by line 1: https://example.com/keep/"
        in (lines[1])
    )
    assert "filter 1 (clean, regex): skipped" in lines[2]
    assert "filter 2 (scope, domain): disabled" in lines[3]
    code, out, _ = run(
        capsys, "filter", "check", "--chain", chain_file, "https://example.com/a", "--explain"
    )
    assert "filter 1 (clean, regex): ran, accept by line 2: ." in out


def test_check_needs_urls_and_a_chain(capsys, chain_file):
    code, _, err = run(capsys, "filter", "check", "--chain", chain_file)
    assert code == 1 and "no URLs given" in err
    code, _, err = run(capsys, "filter", "check")
    assert code == 1 and "project folder or --chain" in err


def test_set_bad_pattern_names_filter_and_line_and_keeps_the_old_chain(capsys, proj, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(CHAIN.replace("-\\.pdf$\n", "-\\.pdf$\n-(unclosed\n"))
    code, _, err = run(capsys, "filter", "set", proj, bad)
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith("recrawl: error: filter 1 (clean), line 2: ")
    code, out, _ = run(capsys, "filter", "get", proj)
    assert code == 0 and out.strip() == CHAIN.strip()


def test_get_and_set_print_lint_warnings(capsys, proj, tmp_path):
    linty = tmp_path / "linty.toml"
    linty.write_text(CHAIN.replace("+.\n", "+.\n-private\n"))
    code, out, err = run(capsys, "filter", "set", proj, linty)
    assert code == 0 and out == "chain set: 3 filters\n"
    assert "filter 1 (clean), line 3: " in err and "never reach this rule" in err
    code, out, err = run(capsys, "filter", "get", proj)
    assert parse_chain(out).filters[1].rules_text.endswith("-private\n")
    assert "recrawl: warning: filter 1 (clean), line 3" in err


def test_import_and_export(capsys, proj, tmp_path):
    code, out, err = run(
        capsys, "filter", "import", proj, CONF, "--order", "suffix,regex,prefix,automaton"
    )
    assert code == 0, err
    assert out.startswith("imported 6 filters: suffix-urlfilter (suffix), regex-urlfilter (regex)")
    assert "slow and unsafe" in err  # the template's backreference rule
    code, _, err = run(capsys, "filter", "import", proj, CONF, "--order", "suffix,nope")
    assert code == 1 and "unknown filter kind 'nope'" in err
    code, out, _ = run(capsys, "filter", "export", proj, tmp_path / "out")
    assert code == 0 and out.count("->") == 6
    assert (tmp_path / "out" / "regex-urlfilter.txt").read_text() == (
        CONF / "regex-urlfilter.txt.template"
    ).read_text()


def _add_known_urls(folder: Path) -> None:
    project = Project.open(folder)
    try:
        now = utcnow()
        pages = [
            "https://example.com/a",
            "https://example.com/b",
            "https://example.com/keep/c",
            "http://example.com/old",
        ]
        store.add_pages(
            [
                store.NewPage(url=u, host="example.com", next_fetch=now, fetch_interval=86400.0)
                for u in pages
            ],
            now,
        )
        store.record_rejected(
            [("https://example.com/d.pdf", "clean", 1), ("https://example.com/e.pdf", "clean", 1)],
            now,
        )
    finally:
        project.close()


def test_preview_counts_changed_decisions(capsys, proj, tmp_path):
    _add_known_urls(proj)
    edited = tmp_path / "edited.toml"
    edited.write_text(CHAIN.replace("-\\.pdf$\n+.\n", "-/b$\n+.\n"))
    code, out, _ = run(capsys, "filter", "preview", proj, edited, "--json")
    assert code == 0
    assert json.loads(out) == {
        "newly_rejected": 1,
        "newly_accepted": 2,
        "examples": {
            "newly_rejected": ["https://example.com/b"],
            "newly_accepted": ["https://example.com/d.pdf", "https://example.com/e.pdf"],
        },
    }
    code, _, err = run(capsys, "filter", "preview", proj, tmp_path / "missing.toml", "--json")
    assert code == 1 and "cannot read chain file" in err


def test_stats_counts_hits_per_deciding_rule(capsys, proj):
    _add_known_urls(proj)
    code, out, _ = run(capsys, "filter", "stats", proj, "--json")
    assert code == 0
    assert json.loads(out) == [
        {"filter": 0, "name": "seeds", "line": 1, "hits": 1},
        {"filter": 0, "name": "seeds", "line": None, "hits": 1},
        {"filter": 1, "name": "clean", "line": 1, "hits": 2},
    ]
