"""Ctrl-C, SIGTERM and SIGHUP ask a long command to stop cleanly; Ctrl-C again kills.

Left to Python, SIGINT raises KeyboardInterrupt wherever the main thread happens to be
(on Python 3.11 even inside ``Thread.join``, which can then return while the thread
still runs), and SIGTERM or a closed terminal (SIGHUP) ends the process at once. While
a long command runs, :class:`StopSignals` puts handlers in their place that only call
the command's ``stop`` (which sets a ``threading.Event`` the work looks at) and say so
on stderr; the work then finishes cleanly (a crawl: its fetches in flight, its commit,
its segment) and the handlers that were there before come back.

A second SIGINT or SIGTERM kills at once, by the signal's own default action, so the
shell sees how the process ended. Nothing committed is lost that way either: the next
command recovers what was in flight (docs/design.md §7). SIGHUP never escalates: a closing
terminal may send it twice; it also sends what would go to the terminal that has gone to
the null device. A signal that was ignored (``nohup``, a background job of a
non-interactive shell) stays ignored.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import select
import signal
import socket
import stat
import sys
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Protocol, TypeVar

#: The signals that ask to stop, by name (SIGHUP is missing on Windows).
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
#: The ones that kill at once when they come after a stop was asked for.
KILL_SIGNALS = (signal.SIGINT, signal.SIGTERM)


#: The main thread's wait on a job ends at least this often (a safety net: a signal or
#: the job's end wakes it at once, see :func:`_wait_for`).
SAFETY_NET_S = 60.0

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Job(Protocol[T_co]):
    """Long work a command runs: a crawl, a watch."""

    def run(self) -> T_co: ...

    def stop(self) -> None: ...


def run_interruptible(job: Job[T], stopping: str) -> T:
    """Run ``job``; SIGINT and SIGTERM call its ``stop`` (``stopping`` says what follows).

    The job runs on a thread of its own, so the main thread, where Python runs signal
    handlers, only waits: a handler never lands inside the job's own work or output.
    """
    outcome: list[T | BaseException] = []

    ended, ending = socket.socketpair()

    def target() -> None:
        block_stop_signals()
        try:
            outcome.append(job.run())
        except BaseException as exc:  # handed back to the main thread below
            outcome.append(exc)
        finally:
            ending.send(b".")

    # the job queries the store of the project open here (recrawl.core.store.active)
    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(target,), name="recrawl-job"
    )
    try:
        with StopSignals(job.stop, stopping):
            thread.start()
            _wait_for(thread, ended)
    finally:
        ended.close()
        ending.close()
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


def _wait_for(thread: threading.Thread, ended: socket.socket) -> None:
    """Wait (on the main thread) until ``thread`` has ended, which it tells on ``ended``.

    No polling: an idle watcher must not wake every second. The wait is a ``select``
    on ``ended`` and on the signal wakeup socket, into which Python's C-level handler
    writes whichever thread the kernel handed the signal to (a library's own thread,
    say, that does not block it): the main thread then wakes and runs the handler at
    once. Elsewhere than on the main thread (tests) it only joins.
    """
    if threading.current_thread() is not threading.main_thread():
        thread.join()
        return
    woken, waking = socket.socketpair()
    woken.setblocking(False)
    waking.setblocking(False)
    previous = signal.set_wakeup_fd(waking.fileno(), warn_on_full_buffer=False)
    try:
        while thread.is_alive():
            ready, _, _ = select.select([ended, woken], [], [], SAFETY_NET_S)
            if woken in ready:
                with contextlib.suppress(OSError):
                    woken.recv(512)  # the handlers run as the main thread goes on
            if ended in ready:
                break
    finally:
        signal.set_wakeup_fd(previous)
        woken.close()
        waking.close()
    thread.join()


def signal_name(signum: int) -> str:
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def block_stop_signals() -> None:
    """Keep the stop signals off the calling thread (a job's, not the main one).

    The kernel hands a process's signal to any thread that does not block it, and only
    the main thread runs Python's handlers: blocked in the other threads, a signal wakes the
    main thread at once, whatever it is waiting on.
    """
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


class StopSignals:
    """While entered (on the main thread), the stop signals call ``stop`` instead.

    ``stopping`` says on stderr what happens next, e.g. "stopping after the fetches in
    flight". :attr:`received` is the first signal that asked to stop, if any.
    """

    def __init__(self, stop: Callable[[], None], stopping: str) -> None:
        self._stop = stop
        self._stopping = stopping
        self._previous: dict[int, Any] = {}
        self.received: int | None = None

    @property
    def exit_status(self) -> int:
        """What a shell reports for a command the received signal ended: 128 + its number."""
        return 128 + (self.received or 0)

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may set handlers (in-process callers, tests)
        for signum in STOP_SIGNALS:
            previous = signal.getsignal(signum)
            if previous == signal.SIG_IGN:
                continue
            self._previous[signum] = signal.SIG_DFL if previous is None else previous
            signal.signal(signum, self._on_signal)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)
        self._previous.clear()

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        # Runs on the main thread between two bytecodes of whatever it was doing: it only
        # sets flags and writes a line; it never raises into that code.
        if self.received is None:
            self.received = signum
            self._stop()  # first, so the line below means the stop is asked for
            again = " (Ctrl-C again to kill at once)" if signum in KILL_SIGNALS else ""
            _say(f"recrawl: {signal_name(signum)}: {self._stopping}{again}")
            if signum == getattr(signal, "SIGHUP", None):
                _leave_terminal()
        elif signum in KILL_SIGNALS:
            _say(
                f"recrawl: killed by {signal_name(signum)}; nothing committed is lost, "
                "and the next command recovers the rest"
            )
            _die(signum)


def _say(line: str) -> None:
    # stderr may be a terminal that has gone (SIGHUP), or busy in this very thread
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _leave_terminal() -> None:
    """The terminal has hung up: what would go to it goes nowhere, rather than fail.

    Writing to a terminal that has gone fails (EIO): a crawl would then end with an
    error after its clean stop, only for want of a place to print its summary. Output
    to a file or a pipe stays where it was.
    """
    with contextlib.suppress(OSError):
        nowhere = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                if stat.S_ISCHR(os.fstat(fd).st_mode):
                    os.dup2(nowhere, fd)
        os.close(nowhere)


def _die(signum: int) -> None:
    """End the process by ``signum``'s default action, as if no handler were there."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
    os._exit(128 + signum)  # where the default action does not end the process (Windows)
