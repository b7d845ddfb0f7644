"""The analysis processes: pages parsed and signed outside the crawl's process.

A page's analysis (its parse, its links canonicalised, its signature) is pure CPU work
in Python. In the crawl's own process it holds the interpreter lock that the fetches,
the store thread and, in the app, the window need: at full speed the window stalled for
a quarter of a second at a time. So the pages go to a few worker processes (a
``spawn`` pool: safe beside Qt and threads, the same on every platform), started when
the crawl first needs one and kept until it ends. What is stateful (the links already
seen, the trap guard, the store, the order of records) stays in the crawl's process.

A worker ignores SIGINT (the crawl's process decides what an interrupt means) and ends
as soon as the crawl's process is gone, however it went (a SIGKILL leaves no orphan):
a thread of the worker waits on the parent's sentinel. A worker that dies (killed, or
crashed by a page) fails the pages it held with an error; the next page gets a new pool.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.util
import os
import re
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait
from pathlib import Path

from recrawl.core.config import ParseSettings
from recrawl.core.engine.analysis import Analysis, Asked, analyse_page
from recrawl.core.policy.signature import Signature

#: Set (to a folder) in the environment of a crawl, each analysis process writes its
#: peak resident memory there when it ends (``<pid>.peak``, kB): the memory tests and
#: benchmarks count the workers' memory with the crawl's.
PEAK_DIR_VARIABLE = "RECRAWL_PEAK_DIR"


def default_processes() -> int:
    """Analysis processes for this machine: one a core (the crawl's process mostly
    waits for the network and the store), at least one, at most four."""
    return max(1, min(os.cpu_count() or 1, 4))


class ProcessesGone(RuntimeError):
    """The process analysing a page ended before it had answered."""


class AnalysisPool:
    """One crawl's analysis processes; :meth:`close` when the crawl ends."""

    def __init__(self, signature: Signature, bounds: ParseSettings, processes: int) -> None:
        self.signature = signature
        self.bounds = bounds
        self.processes = max(1, processes)
        self._executor: ProcessPoolExecutor | None = None
        #: Pools started, the first included (each after a worker died: one more).
        self.started = 0

    async def analyse(
        self,
        url: str,
        content_type: str | None,
        body: bytes,
        asked: Asked,
    ) -> Analysis:
        """The page's analysis, made by a worker; raises what the analysis raised, or
        :class:`ProcessesGone` if the worker died meanwhile."""
        executor = self._running()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(executor, _analyse, url, content_type, body, asked)
        except BrokenProcessPool as exc:
            if self._executor is executor:  # the first page to learn of it replaces it
                self._executor = None
                executor.shutdown(wait=False, cancel_futures=True)
            raise ProcessesGone(
                "the process analysing the page ended unexpectedly (killed, or crashed by the page)"
            ) from exc

    def _running(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self.signature, self.bounds, os.environ.get(PEAK_DIR_VARIABLE)),
            )
            self.started += 1
        return self._executor

    def close(self) -> None:
        """Let the workers finish what they hold, then end them."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


# -- in the worker processes --------------------------------------------------------

_signature: Signature | None = None
_bounds = ParseSettings()


def _start_worker(signature: Signature, bounds: ParseSettings, peak_dir: str | None) -> None:
    global _signature, _bounds
    _signature, _bounds = signature, bounds
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_end_with, args=(parent.sentinel,), name="recrawl-parent", daemon=True
        ).start()
    if peak_dir:
        multiprocessing.util.Finalize(None, _write_peak, (Path(peak_dir),), exitpriority=0)


def _end_with(sentinel: int) -> None:
    """End this worker the moment the crawl's process has ended."""
    wait([sentinel])
    os._exit(1)


def _write_peak(folder: Path) -> None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return  # not Linux: nothing to report
    if match := re.search(r"VmHWM:\s*(\d+) kB", status):
        (folder / f"{os.getpid()}.peak").write_text(match.group(1))


def _analyse(url: str, content_type: str | None, body: bytes, asked: Asked) -> Analysis:
    assert _signature is not None, "the worker was started without its signature"
    return analyse_page(url, content_type, body, _signature, _bounds, asked)
