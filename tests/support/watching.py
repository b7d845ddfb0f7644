"""Helpers for tests of ``recrawl watch``: a project whose pages come due within seconds,
a watcher in a subprocess whose output lines are waited on, its CPU time from /proc.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from tests.support.interrupted import recrawl, start, watchdog

#: How long a test waits for a line, a hit, a file at most: a bound on failure only.
PATIENCE = 60.0


def watched_project(
    folder: Path,
    *urls: str,
    interval: str = "2s",
    gap: str = "0.2s",
    schedule: tuple[str, ...] = ("fixed",),
    **settings: str,
) -> Path:
    """A project seeded with ``urls`` whose pages come due every ``interval`` (the fixed
    schedule, or ``schedule``: its name and parameters), watched with rounds ``gap``
    apart at least, no politeness delay."""
    from recrawl.main import main  # in this process: quicker than four more commands

    name, *params = schedule
    params = [f"initial={interval}", *params]
    pairs = {"watch.round_gap": gap, "politeness.delay": "0", **settings}
    with contextlib.redirect_stdout(io.StringIO()):
        for command in (
            ["init", folder],
            ["schedule", folder, "--set", name, *(f"--param={param}" for param in params)],
            ["inject", folder, *urls] if urls else [],
            ["settings", folder, *(f"--set={name}={value}" for name, value in pairs.items())],
        ):
            assert not command or main([str(word) for word in command]) == 0, command
    return folder


class Lines:
    """The lines of a child's stream as they come, read on a thread of their own."""

    def __init__(self, stream: IO[str] | None) -> None:
        assert stream is not None
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_for(self, found: Callable[[list[str]], bool], what: str) -> list[str]:
        """Block until ``found(lines)``; the lines then. Fails after PATIENCE seconds."""
        with self._changed:
            if not self._changed.wait_for(lambda: found(self.lines), PATIENCE):
                raise AssertionError(f"no {what} in: {self.lines}")
            return list(self.lines)

    def wait_line(self, text: str) -> list[str]:
        return self.wait_for(lambda lines: any(text in line for line in lines), repr(text))

    def count(self, text: str) -> int:
        with self._changed:
            return sum(text in line for line in self.lines)

    def join(self) -> list[str]:
        self._thread.join(PATIENCE)
        return list(self.lines)


def rounds(lines: list[str]) -> list[dict[str, Any]]:
    """The JSON lines (``watch --json``) among ``lines``."""
    return [json.loads(line) for line in lines if line.startswith("{")]


class Watch:
    """``recrawl watch ARGS`` running; its stdout and stderr as :class:`Lines`."""

    def __init__(self, *args: object) -> None:
        self.child = start("watch", *args)
        self.out = Lines(self.child.stdout)
        self.err = Lines(self.child.stderr)

    @property
    def pid(self) -> int:
        return self.child.pid

    def rounds(self) -> list[dict[str, Any]]:
        return rounds(self.out.lines)

    def wait_rounds(self, found: Callable[[list[dict[str, Any]]], bool], what: str) -> None:
        self.out.wait_for(lambda lines: found(rounds(lines)), what)

    def end(self, timeout: float = PATIENCE) -> int:
        code = self.child.wait(timeout)
        self.out.join()
        self.err.join()
        return code


@contextlib.contextmanager
def watching(*args: object) -> Iterator[Watch]:
    """A watch that is killed if the test leaves it running (or it hangs)."""
    watch = Watch(*args)
    try:
        with watchdog(watch.child, 240):
            yield watch
    finally:
        watch.child.kill()  # if the test left it running
        watch.end()
        for stream in (watch.child.stdout, watch.child.stderr):
            if stream is not None:
                stream.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process ``pid`` has used (Linux /proc)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> int:
    """Times the threads of ``pid`` went to sleep or were put aside (Linux /proc)."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(OSError):
            for line in status.read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total


def run(*args: object) -> subprocess.CompletedProcess[str]:
    """``recrawl ARGS`` whatever its exit status."""
    return recrawl(*args, check=False)
