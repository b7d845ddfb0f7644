"""`recrawl filter ...` (docs/design.md §6, §8): check, get/set, import/export, preview, stats."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.filters import parse_chain
from recrawl.core.policy import choices
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

JSON_KEYS = ["input", "url", "verdict", "shortcircuit", "filter", "line"]


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
            "input": "https://EXAMPLE.com/keep/x#frag",  # as given
            "url": "https://example.com/keep/x",  # canonicalized
            "verdict": "accept",
            "shortcircuit": True,
            "filter": 0,
            "line": 1,
        },
        {
            "input": "https://example.com/page",
            "url": "https://example.com/page",
            "verdict": "accept",
            "shortcircuit": False,
            "filter": None,
            "line": None,
        },
        {
            "input": "https://example.com/doc.pdf",
            "url": "https://example.com/doc.pdf",
            "verdict": "reject",
            "shortcircuit": False,
            "filter": 1,
            "line": 1,
        },
        {
            "input": "http://example.com/",
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
        capsys, "filter", "check", "--chain", chain_file, "http://[::1", "https://a.com/"
    )
    assert code == 1
    assert err.strip().splitlines() == [
        "recrawl: error: malformed URL 'http://[::1': Invalid IPv6 URL"
    ]
    assert out.startswith("accept  https://a.com/")  # the others are still checked


def test_check_json_gives_every_input_a_line(capsys, chain_file):
    inputs = ["http://[::1", "example.com/page", "https://a.com/", "example.com:8080/x"]
    code, out, err = run(capsys, "filter", "check", "--chain", chain_file, *inputs, "--json")
    assert code == 1
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["input"] for row in rows] == inputs
    assert rows[0] == {
        "input": "http://[::1",
        "error": "malformed URL 'http://[::1': Invalid IPv6 URL",
    }
    assert list(rows[1]) == ["input", "error"] and "no scheme" in rows[1]["error"]
    assert list(rows[2]) == JSON_KEYS and rows[2]["verdict"] == "accept"
    assert "no scheme" in rows[3]["error"]  # a host and port, not a scheme
    assert err == (
        'recrawl: error: 3 of 4 inputs are not URLs that can be checked (their lines have "error")\n'
    )


OTHER_SCHEMES = """
[[filter]]
kind = "regex"
name = "schemes"
rules = '''
-^mailto:
+SHORTCIRCUIT:^ftp://ftp\\.example\\.com/pub/
-^(file|news):
+.
'''

[[filter]]
kind = "prefix"
name = "web"
rules = '''
https://
'''
"""


def test_check_judges_urls_of_any_scheme(capsys, tmp_path):
    # the chain decides for mailto:, ftp:, file:, news: too (docs/design.md §8); only
    # fetching is http(s). Non-http schemes: scheme lower case; with an authority the
    # host too (w3lib's canonical form); without one the rest as given
    chain = tmp_path / "schemes.toml"
    chain.write_text(OTHER_SCHEMES)
    inputs = {
        "MAILTO:Someone@Example.COM?subject=Hi There": (
            "mailto:Someone@Example.COM?subject=Hi There",
            "reject",
            0,
            1,
        ),
        "ftp://FTP.example.com/pub/a b.txt#top": (
            "ftp://ftp.example.com/pub/a%20b.txt",
            "accept",
            0,
            2,
        ),
        "ftp://other.org/x": ("ftp://other.org/x", "reject", 1, None),
        "file:///home/me/notes.txt": ("file:///home/me/notes.txt", "reject", 0, 3),
        "news:comp.lang.python": ("news:comp.lang.python", "reject", 0, 3),
        "https://example.com/": ("https://example.com/", "accept", None, None),
    }
    code, out, err = run(capsys, "filter", "check", "--chain", chain, "--json", *inputs)
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    got = {r["input"]: (r["url"], r["verdict"], r["filter"], r["line"]) for r in rows}
    assert got == inputs


def test_check_options_go_anywhere(capsys, proj):
    url = "https://example.com/keep/x"
    code, out, err = run(capsys, "filter", "check", proj, "--explain", url, "https://b.org/")
    assert code == 0, err
    assert out.splitlines()[0].startswith(f"{url}: accept (short-circuit) by filter 0")
    assert "https://b.org/: accept (no filter rejected it)" in out
    code, out, err = run(capsys, "filter", "check", "--json", proj, url)
    assert code == 0 and json.loads(out)["shortcircuit"] is True
    code, out, _ = run(capsys, "filter", "preview", proj, "--json", proj / "nope.toml")
    assert code == 1  # get/set/preview take their options anywhere too
    with pytest.raises(SystemExit) as exited:
        main(["filter", "check", str(proj), url, "--json", "--explain"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_check_reads_standard_input(capsys, chain_file, monkeypatch):
    lines = "\ufeffhttps://example.com/doc.pdf\n# a comment\n\n  https://example.com/a  \n"
    raw = lines.encode("utf-8") + b"\xff\xfe\nmailto:x@example.com\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    code, out, err = run(
        capsys, "filter", "check", "--chain", chain_file, "--file", "-", "--json", "https://c.org/"
    )
    assert code == 1 and "1 of 5 inputs" in err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["input"] for r in rows] == [
        "https://c.org/",  # the arguments first
        "https://example.com/doc.pdf",
        "https://example.com/a",
        "\ufffd\ufffd",
        "mailto:x@example.com",
    ]
    assert rows[3]["error"] == "line 5 of standard input is not UTF-8 text"
    assert [r.get("verdict") for r in rows] == ["accept", "reject", "accept", None, "reject"]


class _Reading(io.RawIOBase):
    """A long URL list that counts how much of it was read."""

    def __init__(self, lines: int) -> None:
        self.data = b"".join(b"https://example.com/page/%d\n" % n for n in range(lines))
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        size = min(len(buffer), len(self.data) - self.pos)
        buffer[:size] = self.data[self.pos : self.pos + size]
        self.pos += size
        return size


class _Watching(io.StringIO):
    """Standard output that notes how much of the input had been read at the first line."""

    def __init__(self, source: _Reading) -> None:
        super().__init__()
        self.source = source
        self.read_at_first_line: int | None = None

    def write(self, text: str) -> int:
        if self.read_at_first_line is None:
            self.read_at_first_line = self.source.pos
        return super().write(text)


def test_check_streams_its_input_and_output(chain_file, monkeypatch):
    source = _Reading(100_000)  # 3.2 MB
    stdin = io.TextIOWrapper(io.BufferedReader(source), encoding="utf-8")
    out = _Watching(source)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["filter", "check", "--chain", str(chain_file), "--file", "-", "--json"]) == 0
    assert out.getvalue().count("\n") == 100_000
    # the first verdict was written after one buffer of the input, not after all of it
    assert out.read_at_first_line is not None
    assert out.read_at_first_line < len(source.data) // 10


def test_check_reads_standard_input_of_the_real_command(chain_file):
    urls = "https://example.com/doc.pdf\nftp://example.com/x\n"
    done = subprocess.run(
        [sys.executable, "-m", "recrawl", "filter", "check", "--file", "-", "--chain", chain_file],
        input=urls,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [
        ["reject", "https://example.com/doc.pdf"],
        ["reject", "ftp://example.com/x"],
    ]


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


def test_lint_is_shown_by_set_and_once_per_chain_change(capsys, proj, tmp_path):
    linty = tmp_path / "linty.toml"
    linty.write_text(CHAIN.replace("+.\n", "+.\n-private\n"))
    code, out, shown = run(capsys, "filter", "set", proj, linty)
    assert code == 0 and out == "chain set: 3 filters\n"
    assert "filter 1 (clean), line 3: " in shown and "never reach this rule" in shown
    code, out, err = run(capsys, "filter", "get", proj)
    assert parse_chain(out).filters[1].rules_text.endswith("-private\n")
    assert err == ""  # set showed it: get does not repeat it
    assert run(capsys, "filter", "set", proj, linty)[2] == shown  # set: always
    # the chain changed elsewhere (as the app's Apply does): shown once more, then quiet
    project = Project.open(proj)
    try:
        choices.set_chain(linty.read_text().replace("-private", "-secret"))
    finally:
        project.close()
    assert "recrawl: warning: filter 1 (clean), line 3" in run(capsys, "filter", "get", proj)[2]
    assert run(capsys, "filter", "get", proj)[2] == ""
    # a preview lints the edited chain, once per text too (this one was shown by set)
    assert run(capsys, "filter", "preview", proj, linty)[2] == ""
    edited = tmp_path / "edited.toml"
    edited.write_text(linty.read_text().replace("-private", "-hidden"))
    assert "(clean), line 3" in run(capsys, "filter", "preview", proj, edited)[2]
    assert run(capsys, "filter", "preview", proj, edited)[2] == ""


def test_set_warns_of_a_short_circuit_before_the_scope(tmp_path):
    """The real command: the chain is set, and stderr names the rule that bypasses it."""
    recrawl = Path(sys.executable).with_name("recrawl")
    folder = tmp_path / "proj"
    subprocess.run([recrawl, "init", folder], check=True, capture_output=True)
    chain = tmp_path / "bypass.toml"
    chain.write_text(
        CHAIN.replace("SHORTCIRCUIT:https://example.com/keep/", "SHORTCIRCUIT:https://")
        .replace("enabled = false\n", "")
        .replace("other.org", "example.com")
    )
    done = subprocess.run(
        [recrawl, "filter", "set", folder, chain], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout == "chain set: 3 filters\n"
    assert (
        "recrawl: warning: filter 0 (seeds), line 1: short-circuit rule 'https://' accepts "
        "URLs before the scope filter: the chain's scope can be bypassed"
    ) in done.stderr
    # a short-circuit confined to a host the scope accepts is no bypass
    chain.write_text(
        chain.read_text().replace("SHORTCIRCUIT:https://", "SHORTCIRCUIT:https://example.com/k/")
    )
    done = subprocess.run(
        [recrawl, "filter", "set", folder, chain], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "bypassed" not in done.stderr


def test_import_and_export(capsys, proj, tmp_path):
    code, out, err = run(
        capsys, "filter", "import", proj, CONF, "--order", "suffix,regex,prefix,automaton"
    )
    assert code == 0, err
    assert out.splitlines()[:2] == [
        "imported 4 filters: suffix-urlfilter (suffix), regex-urlfilter (regex), "
        "prefix-urlfilter (prefix), automaton-urlfilter (automaton)",
        "left out, as --order does not name their kinds: "
        "domaindenylist-urlfilter.txt.template (domain-deny), domain-urlfilter.txt (domain)",
    ]
    assert [f.kind for f in parse_chain(run(capsys, "filter", "get", proj)[1]).filters] == [
        "suffix",
        "regex",
        "prefix",
        "automaton",
    ]
    assert err.count("slow and unsafe") == 1  # the template's backreference rule
    code, _, err = run(capsys, "filter", "get", proj)
    assert code == 0 and err == ""  # import showed it; nothing changed since
    code, out, err = run(capsys, "filter", "import", proj, CONF)  # no order: every file
    assert code == 0 and out.startswith("imported 6 filters: suffix-urlfilter (suffix), ")
    assert "left out" not in out
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
            [
                ("https://example.com/d.pdf", "clean", 1),
                ("https://example.com/e.pdf", "clean", 1),
                # links that are no URL (a crawl keeps them with their reason): no input
                # for a chain, so neither previewed nor counted
                ("http://[::1", "invalid link: malformed URL: Invalid IPv6 URL", None),
                ("http://%zz/", "invalid link: malformed host", None),
            ],
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
        # pages added behind the chain's back: /old is rejected by the current chain
        # already, but not filtered; applying would filter it too (and /b)
        "newly_filtered": 2,
        "coming_back": 0,
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


def test_set_applies_the_chain_to_known_pages_and_preview_counts_them(capsys, proj, tmp_path):
    _add_known_urls(proj)
    code, out, _ = run(capsys, "filter", "set", proj, proj.parent / "chain.toml")
    # /old (no prefix of the seeds filter) was added behind the chain's back: now filtered
    assert code == 0
    assert out == (
        "chain set: 3 filters\n"
        "applied to the known pages: 1 known page filtered (no longer fetched)\n"
    )
    code, out, _ = run(capsys, "urls", proj, "--status", "filtered")
    assert code == 0 and [line.split()[-1] for line in out.splitlines()] == [
        "http://example.com/old"
    ]
    # an edit rejecting /b and accepting the old page again
    edited = tmp_path / "edited.toml"
    text = CHAIN.replace("https://\n", "https://\nhttp://example.com/\n")
    edited.write_text(text.replace("-\\.pdf$\n+.\n", "-/b$\n+.\n"))
    code, out, _ = run(capsys, "filter", "preview", proj, edited, "--json")
    result = json.loads(out)
    assert list(result) == [
        "newly_rejected",
        "newly_accepted",
        "examples",
        "newly_filtered",
        "coming_back",
    ]
    assert (result["newly_filtered"], result["coming_back"]) == (1, 1)
    code, out, _ = run(capsys, "filter", "preview", proj, edited)
    assert "known pages: 1 would be filtered (no longer fetched), 1 would come back" in out
    code, out, _ = run(capsys, "filter", "set", proj, edited)
    assert out.splitlines()[1] == (
        "applied to the known pages: 1 known page filtered (no longer fetched), "
        "1 known page back (due now)"
    )
    code, out, _ = run(capsys, "urls", proj, "--status", "filtered", "--json")
    assert [row["url"] for row in json.loads(out)] == ["https://example.com/b"]
    # the same chain again: nothing left to change, nothing said about pages
    code, out, _ = run(capsys, "filter", "set", proj, edited)
    assert out == "chain set: 3 filters\n"


def test_preview_help_names_its_json_keys(capsys):
    with pytest.raises(SystemExit):
        main(["filter", "preview", "--help"])
    out = capsys.readouterr().out
    for key in ("newly_rejected", "newly_accepted", "examples", "newly_filtered", "coming_back"):
        assert key in out
