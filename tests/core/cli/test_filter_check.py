"""``recrawl filter check --json`` writes, byte for byte, the lines it wrote before its
lines were put together by hand and its URLs canonicalised by ada: json.dumps of each
line's dict, with the reference canonical form and the reference chain evaluation."""

from __future__ import annotations

import json
import random

import pytest
from recrawl.core.cli.filter_check import BATCH_LINES, _inputs, verdict_line
from recrawl.core.errors import RecrawlError
from recrawl.core.filters import parse_chain
from recrawl.core.net.urls import canonical_reference
from recrawl.core.policy import filter_input

from recrawl.main import main

CHAIN = r"""
[[filter]]
kind = "suffix"
name = "binaries"
rules = '''
+I
.jpg
.pdf
'''

[[filter]]
kind = "regex"
name = "generic"
rules = '''
-^(file|ftp|mailto|javascript):
-[*!@]
-/(login|cart)/
+.
'''

[[filter]]
kind = "prefix"
name = "sites"
rules = '''
SHORTCIRCUIT:http://a.example.org/
SHORTCIRCUIT:https://b.example.org/docs/
http://c.example.org/
https://
mailto:
'''

[[filter]]
kind = "automaton"
name = "sub-sites"
rules = '''
+https?://c\.example\.org/news/.*
> d.example.org
+https://d\.example\.org/.*
<
-.*
'''
"""

#: Inputs of every kind: what the fast path takes, what it leaves to w3lib, what is no URL.
ODD = [
    "HTTP://A.Example.ORG:80/a/../b?z=1&a=2#frag",
    "http://a.example.org/ü/a b?q=é&q=a+b",
    'http://a.example.org/say"hi"\\there',
    "http://c.example.org/news/%7e%2f?b&a=&&c=%41",
    "https://d.example.org/x;p=1",
    "https://bücher.example/",
    "https://xn--bcher-kva.example/",
    "http://1.2.3/",
    "http://a.example.org:0080/",
    "https://b.example.org/docs/a.PDF",
    "https://b.example.org/login/x",
    "mailto:Someone@Example.org?subject=a b",
    "ftp://FTP.example.org/pub/a b",
    "file:///etc/passwd",
    "example.org/no-scheme",
    "example.org:8080/page",
    "http://exa mple.org/",
    "http://[::1]:99999/",
    "javascript:alert(1)",
    "http://a.example.org/\u2028line",
    "  http://a.example.org/padded  ",
]


def bulk(count: int, rng: random.Random) -> list[str]:
    hosts = ["a.example.org", "b.example.org", "c.example.org", "d.example.org", "e.example"]
    tails = ["docs/x.html", "news/1", "img/2.JPG", "search?q=1&a=2", "login/", "p/%41%7e", ""]
    return [
        f"{rng.choice(['http', 'https'])}://{rng.choice(hosts)}/{rng.choice(tails)}{n}"
        for n in range(count)
    ]


def previous_lines(chain_text: str, file: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """What the command wrote before: json.dumps of each line, canonical_reference's URLs
    and the reference Chain.check."""
    chain = parse_chain(chain_text)
    lines = []
    with monkeypatch.context() as patch:
        patch.setattr(filter_input, "fast_canonical", lambda text: None)
        patch.setattr(filter_input, "canonical", canonical_reference)
        for text, problem in _inputs([], file):
            url = None
            if problem is None:
                try:
                    url = filter_input.judged_url(text)
                except RecrawlError as exc:
                    problem = str(exc)
            if url is None:
                lines.append(json.dumps({"input": text, "error": problem}) + "\n")
            else:
                lines.append(json.dumps(verdict_line(text, url, chain.check(url))) + "\n")
    return "".join(lines)


def test_json_lines_are_the_previous_implementation_s_byte_for_byte(tmp_path, capsys, monkeypatch):
    chain_file = tmp_path / "chain.toml"
    chain_file.write_text(CHAIN, encoding="utf-8")
    urls = tmp_path / "urls.txt"
    lines = ODD + bulk(3 * BATCH_LINES + 7, random.Random(4))
    random.Random(5).shuffle(lines)
    body = "\ufeff" + "\n".join(lines) + "\n# a comment\n\n"
    urls.write_bytes(body.encode("utf-8") + b"http://a.example.org/\xff\xfe-not-utf-8\n")
    expected = previous_lines(CHAIN, str(urls), monkeypatch)

    code = main(["filter", "check", "--chain", str(chain_file), "--file", str(urls), "--json"])
    out = capsys.readouterr().out

    assert code == 1  # some inputs are no URLs
    assert out == expected
    assert out.count("\n") == len(lines) + 1
    assert '"shortcircuit": true' in out and '"error": ' in out and '"line": null' in out
