"""A crawl's peak memory (issue 12): under 300 MiB for one page of 100,000 links that
robots.txt denies (it was 369 MiB). The crawl is ``recrawl crawl`` in a child process
that reports its own peak resident memory (VmHWM) at exit, and its analysis processes
theirs (each under tests.support.peak_memory.WORKER_LIMIT); the hostile crawl's peak is checked
in test_hostile_crawl.py. ``bench/memory_bench.py`` prints both figures."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from recrawl.core.config import CrawlSettings

from tests.support.httpserver import Reply
from tests.support.peak_memory import WORKER_LIMIT, measured_command, peaks

pytestmark = pytest.mark.slow

MiB = 1 << 20
RSS_LIMIT = 300 * MiB
LINKS = 100_000


def recrawl(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int, list[int]]:
    """``recrawl ARGS`` in a child process; its result, its peak memory and its analysis
    processes' (bytes)."""
    report = tmp_path / "peak"
    done = subprocess.run(
        measured_command(report, args),
        capture_output=True,
        text=True,
        timeout=1800,  # a runaway crawl fails the test rather than hanging it
    )
    return done, *peaks(report)


def test_a_page_of_100000_denied_links_is_crawled_in_under_300_mib(tmp_path, server):
    links = "".join(f'<a href="/denied/{i}">{i}</a>\n' for i in range(LINKS))
    server.html("/", f"<!DOCTYPE html><html><body>{links}</body></html>")
    robots = b"User-agent: *\nDisallow: /denied/\n"
    server.routes["/robots.txt"] = Reply(200, robots, {"Content-Type": "text/plain"})
    project = str(tmp_path / "project")
    # every denied page in one round (the per-host cap would spread them over 20): the
    # worst case for a round's memory, and a shorter test
    cap = f"traps.max_pages_per_host_round={LINKS}"
    for args in (
        ("init", project),
        ("inject", project, server.url("/")),
        ("settings", project, "--set", cap),
    ):
        done, _, _ = recrawl(tmp_path, *args)
        assert done.returncode == 0, done.stderr
    # round 1 finds the links, round 2 takes a round's worth (round_size, 50,000) of them
    # and records each one denied
    crawl = ("crawl", project, "--delay", "0", "--per-host", "4", "--rounds", "2")
    done, peak, workers = recrawl(tmp_path, *crawl)

    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{LINKS:,} new URLs" in done.stdout, done.stdout
    assert server.hits_for("/denied/0") == 0  # denied: recorded, never requested
    denied, _, _ = recrawl(tmp_path, "urls", project, "--status", "robots_denied")
    assert len(denied.stdout.splitlines()) == CrawlSettings().round_size
    assert peak < RSS_LIMIT, f"peak {peak / MiB:.0f} MiB"
    # the page of 100,000 links was analysed in an analysis process, within its bound
    assert workers and max(workers) < WORKER_LIMIT, [w // MiB for w in workers]
