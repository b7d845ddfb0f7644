"""The analysis processes: pages parsed and signed outside the crawl's process.

A page's analysis (its parse, its links canonicalised, its signature, its WARC records)
is pure CPU work in Python. In the crawl's own process it holds the interpreter lock
that the fetches, the store thread and, in the app, the window need: at full speed the
window stalled for a quarter of a second at a time. So the pages go to a few analysis
processes (``spawn``: safe beside Qt and threads, the same on every platform), started
when the crawl first needs one and kept until it ends. What is stateful (the links
already seen, the trap guard, the store, the order of records) stays in the crawl's
process.

Each analysis process has two pipes, written and read by the crawl's event loop itself
(asyncio's pipe transports): no thread of the crawl's process carries the pages. A
process pool's executor did, with two threads of its own that, at a few hundred pages a
second, took a tenth of the crawl's processor time and fought the loop for the
interpreter lock. A frame is ``multiprocessing.Connection``'s (a 4-byte big-endian
length, then the pickle), so an analysis process reads and answers with a plain
``Connection``. An answer starts with its page's number and whether it succeeded,
outside its pickle: an answer that cannot be unpickled here (an exception whose
``__init__`` wants other arguments) fails its own page, not the process's pipe.

An analysis process ignores SIGINT (the crawl's process decides what an interrupt means)
and ends as soon as the crawl's process is gone, however it went (a SIGKILL leaves no
orphan): a thread of it waits on the parent's sentinel; one whose parent died while it
was starting ends silently too (:mod:`recrawl.core.engine.quiet_spawn`). One that dies
(killed, or crashed by a page) fails the pages it held with an error; the next page
starts another.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import multiprocessing.util
import os
import pickle
import re
import signal
import struct
import threading
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from recrawl.core.config import ParseSettings
from recrawl.core.engine.analysis import Analysis, Asked, analyse_page
from recrawl.core.engine.quiet_spawn import QuietSpawnProcess
from recrawl.core.policy.signature import Signature

#: Set (to a folder) in the environment of a crawl, each analysis process writes its
#: peak resident memory there when it ends (``<pid>.peak``, kB): the memory tests and
#: benchmarks count the analysis processes' memory with the crawl's.
PEAK_DIR_VARIABLE = "RECRAWL_PEAK_DIR"
#: How long :meth:`AnalysisPool.close` lets an analysis process finish the page it holds.
CLOSE_GRACE_S = 10.0

_LENGTH = struct.Struct("!i")
#: An answer's head: its page's number, and whether the value is an analysis (or an error).
_ANSWER = struct.Struct("!Q?")


def default_processes() -> int:
    """Analysis processes for this machine: one a core (the crawl's process mostly
    waits for the network and the store), at least one, at most four."""
    return max(1, min(os.cpu_count() or 1, 4))


class ProcessesGone(RuntimeError):
    """The process analysing a page ended before it had answered."""


@dataclass(eq=False)
class _Child:
    """One analysis process, seen from the crawl's loop."""

    process: BaseProcess
    tasks: asyncio.WriteTransport
    answers: asyncio.ReadTransport | None = None
    #: Pages sent and not yet answered, by task number.
    waiting: dict[int, asyncio.Future[Analysis]] = field(default_factory=dict)
    alive: bool = True


class _Answers(asyncio.Protocol):
    """A child's answers, framed as ``Connection.send_bytes`` frames them."""

    def __init__(self, pool: AnalysisPool, child: list[_Child]) -> None:
        self._pool = pool
        self._child = child  # filled in once the child is made (it needs this first)
        self._buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while len(buffer) - start >= _LENGTH.size:
            (length,) = _LENGTH.unpack_from(buffer, start)
            end = start + _LENGTH.size + length
            if len(buffer) < end:
                break
            number, ok = _ANSWER.unpack_from(buffer, start + _LENGTH.size)
            future = self._child[0].waiting.pop(number, None)
            if future is not None and not future.done():  # else: its page was cancelled
                try:
                    value = pickle.loads(
                        memoryview(buffer)[start + _LENGTH.size + _ANSWER.size : end]
                    )
                except Exception as exc:  # its page's failure: the next answers still come
                    future.set_exception(
                        RuntimeError(
                            f"the page's analysis could not be read back ({type(exc).__name__}: {exc})"
                        )
                    )
                else:
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(value)
            start = end
        del buffer[:start]

    def connection_lost(self, exc: Exception | None) -> None:
        self._pool._lost(self._child[0])


class AnalysisPool:
    """One crawl's analysis processes; :meth:`close` when the crawl ends."""

    def __init__(self, signature: Signature, bounds: ParseSettings, processes: int) -> None:
        self.signature = signature
        self.bounds = bounds
        self.processes = max(1, processes)
        self._children: list[_Child] = []
        #: Held while children are started: pages that come together start them once.
        self._starting = asyncio.Lock()
        self._numbers = itertools.count()
        #: Children started, the first ones included (each after one died: one more).
        self.started = 0

    async def analyse(
        self,
        url: str,
        content_type: str | None,
        body: bytes,
        asked: Asked,
    ) -> Analysis:
        """The page's analysis, made by an analysis process; raises what the analysis raised,
        or :class:`ProcessesGone` if the process died meanwhile."""
        child = await self._least_busy()
        number = next(self._numbers)
        future: asyncio.Future[Analysis] = asyncio.get_running_loop().create_future()
        child.waiting[number] = future
        message = pickle.dumps((number, url, content_type, body, asked), pickle.HIGHEST_PROTOCOL)
        child.tasks.writelines((_LENGTH.pack(len(message)), message))
        try:
            return await future
        finally:
            child.waiting.pop(number, None)

    async def _least_busy(self) -> _Child:
        async with self._starting:  # the pages behind the first wait for its children
            self._children = [child for child in self._children if child.alive]
            while len(self._children) < self.processes:
                self._children.append(await self._start())
        return min(self._children, key=lambda child: len(child.waiting))

    async def _start(self) -> _Child:
        context = multiprocessing.get_context("spawn")
        task_out, task_in = context.Pipe(duplex=False)
        answer_out, answer_in = context.Pipe(duplex=False)
        process = QuietSpawnProcess(  # the context's Process, quiet if we die as it starts
            target=_serve,
            args=(task_out, answer_in, self.signature, self.bounds),
            kwargs={"peak_dir": os.environ.get(PEAK_DIR_VARIABLE)},
            name="recrawl-analysis",
            daemon=True,
        )
        try:
            process.start()
        except BaseException:
            task_in.close()
            answer_out.close()
            raise
        finally:
            task_out.close()  # the child's ends: its death must reach us as an end of file
            answer_in.close()
        loop = asyncio.get_running_loop()
        slot: list[_Child] = []
        child = None
        try:
            tasks, _ = await loop.connect_write_pipe(asyncio.Protocol, task_in)
            child = _Child(process, tasks)
            slot.append(child)
            child.answers, _ = await loop.connect_read_pipe(
                lambda: _Answers(self, slot), answer_out
            )
        except BaseException:  # cancelled meanwhile (the crawl stopped): no child is left
            if child is not None:
                child.alive = False
                child.tasks.abort()
            task_in.close()
            answer_out.close()
            process.kill()
            process.join()
            raise
        self.started += 1
        return child

    def _lost(self, child: _Child) -> None:
        """A child's answers ended: it died (or was closed); its pages fail."""
        child.alive = False
        child.tasks.close()
        gone = ProcessesGone(
            "the process analysing the page ended unexpectedly (killed, or crashed by the page)"
        )
        for future in child.waiting.values():
            if not future.done():
                future.set_exception(gone)
        child.waiting.clear()

    def close(self) -> None:
        """Let the analysis processes finish the page they hold, then end them."""
        children, self._children = self._children, []
        for child in children:
            # closed now, not when the loop next runs (join below holds it): pages not
            # sent yet are dropped (their analyses are abandoned), the child reads to the
            # end of its pipe; its next answer finds no reader, and it returns
            child.tasks.abort()
            child.tasks.get_extra_info("pipe").close()
            if child.answers is not None:
                child.answers.close()
                child.answers.get_extra_info("pipe").close()
        for child in children:
            child.process.join(CLOSE_GRACE_S)
            if child.process.is_alive():
                child.process.kill()
                child.process.join()


# -- in the analysis processes -----------------------------------------------------


def _serve(
    tasks: Connection,
    answers: Connection,
    signature: Signature,
    bounds: ParseSettings,
    peak_dir: str | None = None,
) -> None:
    """Answer the crawl's pages in turn until it closes its end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_end_with, args=(parent.sentinel,), name="recrawl-parent", daemon=True
        ).start()
    if peak_dir:
        multiprocessing.util.Finalize(None, _write_peak, (Path(peak_dir),), exitpriority=0)
    while True:
        try:
            number, url, content_type, body, asked = pickle.loads(tasks.recv_bytes())
        except (EOFError, OSError):
            # the crawl closed its end, or died (killed, maybe in the middle of a page's
            # message: "got end of file during message"): no page will come, nor a reader
            return
        try:
            message = _answer(
                number, analyse_page(url, content_type, body, signature, bounds, asked)
            )
        except Exception as exc:  # the page's own failure, sent back to its crawl
            message = _answer(number, exc)
        try:
            answers.send_bytes(message)
        except BrokenPipeError:
            return  # the crawl no longer reads (closed): the pages still queued are dropped


def _answer(number: int, value: Analysis | Exception) -> bytes:
    """A page's answer frame: its head, then the pickled analysis or error."""
    failed = isinstance(value, Exception)
    try:
        pickled = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        if failed:  # rare: an error must unpickle too (one whose __init__ wants others won't)
            pickle.loads(pickled)
    except Exception:  # an exception (or plug-in's value) that does not travel: its text
        text = f"{type(value).__name__}: {value}" if failed else ""
        pickled = pickle.dumps(RuntimeError(text or "the page's analysis could not be sent back"))
        failed = True
    return _ANSWER.pack(number, not failed) + pickled


def _end_with(sentinel: int) -> None:
    """End this analysis process the moment the crawl's process has ended."""
    wait([sentinel])
    os._exit(1)


def _write_peak(folder: Path) -> None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return  # not Linux: nothing to report
    if match := re.search(r"VmHWM:\s*(\d+) kB", status):
        (folder / f"{os.getpid()}.peak").write_text(match.group(1))
