"""What the command line says to people: every argument helped, durations and
parameters as they are typed, failures named, never ``None`` or a lone ``-``."""

from __future__ import annotations

import argparse
import re

import pytest
from recrawl.core.cli.parser import LISTED, build_parser

from recrawl.main import main
from tests.support.httpserver import Reply


def subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser(only=name)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("name", ["gui", *(n for n in LISTED if n != "filter")])
def test_every_argument_of_every_command_has_a_help_text(name):
    parser = subparser(name)
    missing = [
        action.dest
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction) and not (action.help or "").strip()
    ]
    assert missing == []


def test_the_top_level_options_are_helped_too():
    parser = build_parser()
    assert all(a.help for a in parser._actions if not isinstance(a, argparse._SubParsersAction))


def test_the_crawl_summary_names_failed_urls_and_why(tmp_path, capsys, server, closed_port):
    server.routes["/broken"] = Reply(500, b"oops")
    server.html("/", '<a href="/broken">b</a> <a href="/missing">m</a>')
    down = f"http://127.0.0.1:{closed_port}"
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["inject", str(d), server.url("/"), *(f"{down}/{n}" for n in range(6))])
    capsys.readouterr()
    assert main(["crawl", str(d), "--ignore-robots", "--delay", "0", "--per-host", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        r"2 rounds, 2 fetched, 2 new URLs, 7 errors in [\d.]+ s \([\d.]+ pages/s\); "
        r"first crawl: 1 page archived; segments \d{14}, \d{14}",
        out[0],
    ), out[0]
    assert out[1] == "failed:"
    named = out[2:-2]
    assert len(named) == 5 and out[-2] == "  and 2 more"
    # the retries are due in a day (the schedule's retry interval)
    assert out[-1] == "nothing more is due; the next page is due in 1.0 d"
    reasons = dict(line.strip().split(": ", 1) for line in named)
    for url, reason in reasons.items():
        if url.startswith(down):
            assert reason.startswith("ConnectError")
        else:
            assert (url, reason) == (server.url("/broken"), "HTTP 500")
    # a 404 is no failure: the page is gone, the crawl did its job
    assert server.url("/missing") not in "\n".join(out)


def test_a_crawl_without_failures_lists_none(tmp_path, capsys, server):
    server.html("/", "<p>only</p>")
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["inject", str(d), server.url("/")])
    capsys.readouterr()
    assert main(["crawl", str(d), "--delay", "0"]) == 0
    line, outlook = capsys.readouterr().out.splitlines()
    assert line.startswith("1 round, 1 fetched, 0 new URLs, 0 errors in ")
    assert re.search(r"; segment \d{14}$", line)
    assert outlook == "nothing more is due; the next page is due in 12.0 d"


def test_history_says_why_a_fetch_failed(tmp_path, capsys, closed_port):
    d = tmp_path / "p"
    url = f"http://127.0.0.1:{closed_port}/"
    main(["init", str(d)])
    main(["inject", str(d), url])
    main(["crawl", str(d), "--ignore-robots", "--json", "--now", "2027-01-01T00:00:00Z"])
    capsys.readouterr()
    assert main(["history", str(d), url]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert re.fullmatch(
        # the clock starts at --now and runs on: seconds later on a loaded machine
        r"2027-01-01T00:0\d:\d\d\.\d+Z  no reply  unknown    10\.0 d -> 12\.0 d  "
        r"\(ConnectError: .+\)",
        line,
    ), line


def test_schedule_prints_parameters_as_they_are_typed(tmp_path, capsys):
    d = str(tmp_path / "p")
    main(["init", d])
    capsys.readouterr()
    assert main(["schedule", d, "--set", "nutch-adaptive", "--param", "max@127.0.0.1=7d"]) == 0
    line, replanned = capsys.readouterr().out.strip().splitlines()
    assert replanned.startswith("no page to re-plan")
    assert line == (
        "nutch-adaptive: initial=30d, min=1m, max=365d, max@127.0.0.1=7d, retry_interval=1d, "
        "gone_factor=1.5, gone_max=365d, inc_rate=0.4, dec_rate=0.2, sync_delta=true, "
        "sync_delta_rate=0.3"
    )
    assert main(["schedule", d, "--set", "score-tiers"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("score-tiers: top1=1d, top10=7d, base=aronsson, initial=10d, min=none")
    assert "None" not in line and "{" not in line
    # what it prints, typed back, is the same schedule
    params = [p for p in line.split(": ", 1)[1].split(", ")]
    assert (
        main(["schedule", d, "--set", "score-tiers", *(a for p in params for a in ("--param", p))])
        == 0
    )
    assert capsys.readouterr().out.splitlines()[0] == line


def test_inject_says_which_filter_turned_a_seed_away(tmp_path, capsys):
    d = str(tmp_path / "p")
    main(["init", d])
    chain = tmp_path / "chain.toml"
    chain.write_text('[[filter]]\nkind = "prefix"\nname = "only-a"\nrules = "http://a.example/"\n')
    assert main(["filter", "set", d, str(chain)]) == 0
    capsys.readouterr()
    assert main(["inject", d, "http://a.example/x", "http://b.example/y"]) == 0
    out, err = capsys.readouterr()
    assert out == "injected 1 new of 2 URLs\n"
    assert err == (
        "recrawl: warning: http://b.example/y not added: "
        "reject by filter 0 (only-a), no rule matched\n"
    )


def test_compaction_text_has_no_placeholder(tmp_path, capsys, server):
    state = {"body": "<p>one</p>"}
    server.routes["/p"] = lambda handler: Reply(200, state["body"].encode())
    d = str(tmp_path / "p")
    main(["init", d])
    main(["inject", d, server.url("/p")])
    main(["crawl", d, "--delay", "0", "--json", "--now", "2027-01-01T00:00:00Z"])
    state["body"] = "<p>two, quite different</p>"
    main(["crawl", d, "--delay", "0", "--json", "--now", "2027-03-01T00:00:00Z"])
    capsys.readouterr()
    assert main(["compact", d, "--below", "50%"]) == 0  # January's: nothing live in it
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(
        r"compacted 1 segment: no live records to keep, 1 moved to history/\S+\.warc\.gz; "
        r"[\d.]+ KiB -> 0 bytes \(\+[\d.]+ KiB in history\)",
        line,
    ), line
    (march,) = [p.name for p in (tmp_path / "p" / "segments").iterdir()]
    assert main(["compact", d, "--segments", march]) == 0
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(
        rf"compacted 1 segment into (?!{march})\d{{14}}: 1 record kept; "
        r"[\d.]+ KiB -> [\d.]+ KiB",
        line,
    ), line
