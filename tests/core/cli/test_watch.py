"""``recrawl watch`` as a user runs it (docs/design.md §10): the real entry point in a
subprocess against loopback servers. Every wait is on a line, a hit or a file, with a
bound only on failure."""

from __future__ import annotations

import json
import signal
import time
from itertools import pairwise
from pathlib import Path

import pytest
from recrawl.core.layout import WAKE_FILE
from recrawl.core.watch.wake import stop_watcher, watcher_of

from recrawl.main import main
from tests.support import httpserver
from tests.support.consistency import check_project
from tests.support.interrupted import GatedSite, recrawl, urls
from tests.support.watching import (
    PATIENCE,
    context_switches,
    cpu_seconds,
    run,
    watched_project,
    watching,
)

ROUND_KEYS = [
    "started_at", "fetched", "new_pages", "changed_pages", "gone_pages", "back_pages",
    "baseline_pages", "errors", "next_due_at", "embeds_fetched",
]  # fmt: skip


def show(capsys: pytest.CaptureFixture[str], project: Path, url: str) -> bytes:
    capsys.readouterr()
    assert main(["show", str(project), url]) == 0
    return capsys.readouterr().out.encode()


def history(project: Path, url: str) -> list[dict]:
    return json.loads(recrawl("history", project, url, "--json").stdout)


@pytest.mark.slow
def test_it_fetches_pages_as_they_come_due_round_after_round(tmp_path, server):
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", "<p>a</p>")
    project = watched_project(tmp_path / "p", server.url("/"), interval="2s")
    with watching(project, "--json") as watch:
        watch.wait_rounds(lambda found: sum(r["fetched"] for r in found) >= 6, "six fetches")
        watch.child.send_signal(signal.SIGTERM)
        assert watch.end() == 0, watch.err.lines
    found = watch.rounds()
    assert all(list(line) == ROUND_KEYS for line in found)
    assert all(
        line["started_at"].endswith("Z") and line["next_due_at"].endswith("Z") for line in found
    )
    assert [line["errors"] for line in found] == [0] * len(found)
    # each page again and again, never before it was due again (2 s after its last fetch)
    times = server.times_for("/")
    assert len(times) >= 3
    assert min(b - a for a, b in pairwise(times)) > 1.5
    assert server.hits_for("/a") >= 2
    assert "Traceback" not in "\n".join(watch.err.lines)


@pytest.mark.slow
def test_inject_from_another_process_wakes_it(tmp_path, server):
    server.html("/", "<p>home</p>")
    server.html("/new", "<p>new</p>")
    # nothing due for a day, and rounds at least a day apart: only a wake brings /new now
    project = watched_project(tmp_path / "p", server.url("/"), interval="1d", gap="1d")
    with watching(project) as watch:
        watch.out.wait_line("sleeping until")
        assert server.hits_for("/") == 1
        recrawl("inject", project, server.url("/new"))
        assert server.wait_hits(2 + 1)  # robots.txt, /, /new
        watch.out.wait_for(
            lambda lines: sum(line.startswith("round") for line in lines) == 2, "round 2"
        )
        watch.child.send_signal(signal.SIGINT)
        assert watch.end() == 0, watch.err.lines
    assert server.hits_for("/new") == 1
    assert watch.out.lines[-1].startswith("watched ")
    assert "2 rounds, 2 fetched" in watch.out.lines[-1]


def test_for_returns_after_the_duration(tmp_path, server):
    server.html("/", "<p>home</p>")
    project = watched_project(tmp_path / "p", server.url("/"), interval="1d")
    with watching(project, "--for", "1s") as watch:
        assert watch.end() == 0, watch.err.lines
    assert server.hits_for("/") == 1
    assert "1 round, 1 fetched" in watch.out.lines[-1]
    assert not (project / WAKE_FILE).exists()


@pytest.mark.slow
def test_a_watched_project_names_its_watcher_and_can_stop_it(tmp_path, server):
    server.html("/", "<p>home</p>")
    project = watched_project(tmp_path / "p", server.url("/"), interval="1d")
    with watching(project) as watch:
        watch.out.wait_line("sleeping until")
        assert (project / "recrawl.lock").read_text() == f"watch, pid {watch.pid}"
        for command in ("crawl", "watch"):
            done = run(command, project)
            assert done.returncode != 0
            assert done.stderr.count("\n") == 1 and f"is watched by pid {watch.pid}" in done.stderr
        assert (project / WAKE_FILE).stat().st_mode & 0o777 == 0o600
        info = watcher_of(project)
        assert info is not None and info.pid == watch.pid
        # readers read meanwhile
        assert [page["status"] for page in urls(project)[0]] == ["fetched"]
        assert stop_watcher(project, wait=PATIENCE)  # as the app stops it
        assert watch.end() == 0, watch.err.lines
    assert watcher_of(project) is None and not (project / WAKE_FILE).exists()
    assert (project / "recrawl.lock").read_text() == ""


@pytest.mark.slow
def test_sigterm_mid_round_ends_it_cleanly(tmp_path, server, capsys):
    site = GatedSite(server, 40)
    project = watched_project(tmp_path / "p", site.url(0), interval="1d")
    site.hold_from(12)  # robots.txt, page 0, ten of the others: the rest stay in flight
    try:
        with watching(project, "--json", "--per-host", "2") as watch:
            assert server.wait_hits(12)
            watch.child.send_signal(signal.SIGTERM)
            watch.err.wait_line("stopping after the fetches in flight")
            site.release()
            assert watch.end() == 0, watch.err.lines
    finally:
        site.release()
    fetched = {page["url"] for page in urls(project)[0] if page["last_fetched"]}
    assert 0 < len(fetched) < 40
    assert sum(line["fetched"] for line in watch.rounds()) == len(fetched)
    check_project(project, lambda url: show(capsys, project, url))


@pytest.mark.slow
def test_network_loss_keeps_the_schedule(tmp_path):
    first = httpserver.TestServer().start()
    port = first.port
    first.html("/", "<p>home</p>")
    url = first.url("/")
    # aronsson without its constant: each fetch (and each failure) stretches by 20 %
    project = watched_project(
        tmp_path / "p",
        url,
        interval="2s",
        schedule=("aronsson", "constant=0"),
        **{"watch.offline_wait": "0.3s", "watch.offline_max_wait": "1s"},
    )
    second = None
    try:
        with watching(project, "--json") as watch:
            watch.wait_rounds(lambda found: any(r["fetched"] for r in found), "a first fetch")
            first.stop()  # the network is gone
            watch.wait_rounds(lambda found: sum(r["errors"] for r in found) >= 3, "offline rounds")
            watch.err.wait_line("offline?")
            second = httpserver.TestServer(port)  # back, where it was
            second.html("/", "<p>home</p>")
            second.start()
            assert second.wait_hits(1)
            watch.wait_rounds(lambda found: bool(found[-1]["fetched"]), "a fetch once back")
            watch.child.send_signal(signal.SIGTERM)
            assert watch.end() == 0, watch.err.lines
    finally:
        first.stop()
        if second is not None:
            second.stop()
    events = history(project, url)
    assert [e["error"] for e in events] == [None] * len(events)  # no failure recorded
    # the interval grew by one step per fetch, and only then: the outage stretched nothing
    for event in events:
        assert event["interval_after"] == pytest.approx(event["interval_before"] * 1.2)
    (page,) = urls(project)[0]
    assert page["status"] in ("fetched", "notmodified")
    assert page["fetch_interval"] == pytest.approx(2 * 1.2 ** len(events))


@pytest.mark.slow
def test_an_idle_watcher_costs_no_cpu(tmp_path, server):
    server.html("/", "<p>home</p>")
    project = watched_project(tmp_path / "p", server.url("/"), interval="1d")
    with watching(project) as watch:
        watch.out.wait_line("sleeping until")
        cpu, switches = cpu_seconds(watch.pid), context_switches(watch.pid)
        started = time.monotonic()
        time.sleep(4)  # the idle stretch measured, not a wait for anything
        idle = time.monotonic() - started
        cpu_used = cpu_seconds(watch.pid) - cpu
        woke = context_switches(watch.pid) - switches
        watch.child.send_signal(signal.SIGTERM)
        assert watch.end() == 0
    # generous bounds: a polling loop (every 50 ms) would wake 80 times and up
    assert cpu_used < 0.1 * idle, cpu_used
    assert woke < 10 * idle, woke


@pytest.mark.slow
def test_a_revisit_of_what_one_crawl_fetched_is_one_round(tmp_path, server):
    # the first crawl takes a while (a politeness delay between its seven fetches), so its
    # pages come due spread over as long: the watcher waits for the last of them and
    # revisits all seven in one round (one segment), not the first alone and then the rest
    links = "".join(f'<a href="/{n}">{n}</a>' for n in range(6))
    server.html("/", links)
    for n in range(6):
        server.html(f"/{n}", f"<p>{n}</p>")
    project = watched_project(
        tmp_path / "p", server.url("/"), interval="3s", **{"politeness.delay": "0.3"}
    )
    with watching(project, "--json") as watch:
        watch.wait_rounds(lambda found: sum(r["fetched"] for r in found) >= 14, "a revisit")
        watch.child.send_signal(signal.SIGTERM)
        assert watch.end() == 0, watch.err.lines
    found = [line["fetched"] for line in watch.rounds()]
    # the first crawl: the seed, then its six links; then the revisit of all seven
    assert found[:3] == [1, 6, 7], found
