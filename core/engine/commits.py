"""The commit pipeline: one thread writes to the store, in order, while the loop fetches.

Durability (docs/design.md §3): a batch is committed only after the WARC bytes its rows point
at are fsynced, both on the store thread, so a kill at any point leaves no page pointing
past the WARC's durable end; the next run cuts the WARC back to the committed size.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TypeVar

from recrawl.core import store
from recrawl.core.archive.segment_writer import SegmentWriter
from recrawl.core.engine.worker import WorkerSession
from recrawl.core.errors import LeaseLost

_T = TypeVar("_T")


class CommitPipeline:
    """The store thread of one crawl; made inside the crawl's event loop, closed at its end.

    ``worker``: a worker's crawl, whose batches the store refuses once it no longer holds
    their hosts (docs/design.md §12); the refused batch and those after it in the round are
    not committed, and the round cuts their WARC bytes off (:class:`~.round.Round`).
    """

    def __init__(self, worker: WorkerSession | None = None) -> None:
        self.worker = worker
        self._thread = ThreadPoolExecutor(  # on the crawl's project's store
            max_workers=1, thread_name_prefix="recrawl-store", initializer=store.entering()
        )
        self._pending: list[asyncio.Future[int]] = []
        #: A commit failed: the store thread commits no later batch (:meth:`commit`).
        self.failed = False

    def commit(
        self,
        batch: store.CommitBatch,
        writer: SegmentWriter,
        now: datetime,
        added: Callable[[int], None],
    ) -> None:
        """Fsync ``writer``'s WARC, then commit ``batch``; ``added(new pages)`` on success.

        ``batch.committed_bytes`` must already be the size handed to the OS
        (``writer.written()``): those are the bytes the fsync makes durable.
        """

        worker = self.worker

        def job() -> int:
            if self.failed:
                # a batch after one that failed (a full disk): its pages' records lie past
                # the failed batch's, which no page will point at; the crawl is ending
                return 0
            try:
                return commit()
            except BaseException:
                self.failed = True
                raise

        def commit() -> int:
            if worker is None:
                writer.sync()
                return store.commit_batch(batch, now)
            if worker.lost:
                return 0  # a batch before it was refused: these bytes are cut off too
            writer.sync()
            try:
                # a lost database server: the batch runs again, never twice (store.retried)
                return store.retried(store.commit_batch, batch, now, worker.name)
            except LeaseLost as refused:
                worker.lose(str(refused))
                return 0

        def done(future: asyncio.Future[int]) -> None:
            if not future.cancelled() and future.exception() is None:
                added(future.result())  # a failure is raised by drain()

        future = asyncio.get_running_loop().run_in_executor(self._thread, job)
        future.add_done_callback(done)
        self._pending.append(future)

    def call(self, function: Callable[..., object], *args: object) -> None:
        """Run a store write in order with the commits, without waiting for it.

        A write on the loop's thread would wait for the commit in progress, stalling
        every fetch meanwhile.
        """
        self._thread.submit(store.retried, function, *args)

    def write(
        self,
        function: Callable[..., int],
        *args: object,
        done: Callable[[int], None] | None = None,
    ) -> None:
        """Run a store write in order with the commits; :meth:`drain` waits for it (and
        raises its error). ``done(result)`` on success, on the loop's thread."""

        def finished(future: asyncio.Future[int]) -> None:
            if done is not None and not future.cancelled() and future.exception() is None:
                done(future.result())

        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._thread, store.retried, function, *args)
        future.add_done_callback(finished)
        self._pending.append(future)

    async def run(self, function: Callable[..., _T], *args: object) -> _T:
        """Run a store write in order with the commits and wait for its result (a lost
        database server is waited for, as for a commit)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, store.retried, function, *args)

    async def wait_below(self, count: int) -> None:
        """Wait until fewer than ``count`` commits are pending (oldest first); a store
        error ends the crawl here, as in :meth:`drain`."""
        while len(self._pending) >= count:
            await self._pending.pop(0)

    async def drain(self) -> None:
        """Wait for every commit handed over so far; a store error ends the crawl here."""
        pending, self._pending = self._pending, []
        for future in pending:
            await future

    def close(self) -> None:
        """Close the store thread's own database connection, then the thread."""
        self._thread.submit(store.close_database).result()
        self._thread.shutdown()
