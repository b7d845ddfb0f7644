"""Spawned processes that end without a word when their parent dies as they start.

multiprocessing's ``spawn`` starts a fresh interpreter, then writes down a pipe what it
is to run (the preparation data and the pickled process). A parent killed between the
two (a crawl SIGKILLed while it starts its analysis processes) leaves the child reading
an empty pipe: ``spawn_main`` raises EOFError, and the interpreter prints its traceback
to the terminal the crawl ran in, after the crawl is gone.

:class:`QuietSpawnProcess` starts its child exactly as ``spawn`` does, with the
standard library's own ``spawn_main``, inside a guard: an end of file (or a pickle cut
short) while it reads what to run can only mean the parent is gone, and the child
exits at once and silently. Anything else it meets (an import that fails) still shows.
A frozen bundle starts its children as itself (``--multiprocessing-fork``): its entry
point calls :func:`freeze_support`, which guards the same way.

This module imports nothing of Recrawl's: every ``recrawl`` command calls
:func:`freeze_support` first.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import sys
from multiprocessing.context import SpawnProcess
from multiprocessing.process import BaseProcess
from typing import Any

#: The status of a child that found its parent gone before it started (nobody reads it).
PARENT_GONE = 1

#: What the child runs: the standard library's spawn, guarded (see the module's text).
_GUARDED = (
    "import os, pickle\n"
    "from multiprocessing.spawn import spawn_main\n"
    "try:\n"
    "    spawn_main({arguments})\n"
    "except (EOFError, pickle.UnpicklingError):\n"
    f"    os._exit({PARENT_GONE})\n"
)


def freeze_support() -> None:
    """:func:`multiprocessing.freeze_support`, for a frozen bundle's children: quiet
    when the parent died before it had said what to run."""
    try:
        multiprocessing.freeze_support()
    except (EOFError, pickle.UnpicklingError):
        if "--multiprocessing-fork" not in sys.argv:
            raise
        os._exit(PARENT_GONE)


if sys.platform == "win32":

    class QuietSpawnProcess(SpawnProcess):
        """On Windows, a plain spawned process (the parent hands its child a handle
        that outlives it; none of this applies)."""

else:
    from multiprocessing import popen_spawn_posix, reduction, resource_tracker, spawn, util
    from multiprocessing.context import set_spawning_popen

    class _QuietPopen(popen_spawn_posix.Popen):
        """``popen_spawn_posix.Popen`` whose child runs :data:`_GUARDED`.

        ``_launch`` is the standard library's (the same from Python 3.11 to 3.13) with
        the command line changed; a frozen bundle's command line is left as it is.
        """

        _fds: list[int]

        def _launch(self, process_obj: BaseProcess) -> None:
            tracker_fd = resource_tracker.getfd()
            assert tracker_fd is not None  # getfd() starts the tracker when it must
            self._fds.append(tracker_fd)
            prep_data = spawn.get_preparation_data(process_obj.name)
            message = io.BytesIO()
            set_spawning_popen(self)
            try:
                reduction.dump(prep_data, message)
                reduction.dump(process_obj, message)
            finally:
                set_spawning_popen(None)
            parent_r = child_w = child_r = parent_w = None
            try:
                parent_r, child_w = os.pipe()
                child_r, parent_w = os.pipe()
                command = _command_line(tracker_fd=tracker_fd, pipe_handle=child_r)
                self._fds.extend([child_r, child_w])
                executable = os.fsencode(spawn.get_executable())
                self.pid = util.spawnv_passfds(executable, command, self._fds)
                self.sentinel = parent_r
                with open(parent_w, "wb", closefd=False) as pipe:
                    pipe.write(message.getbuffer())
            finally:
                to_close = [fd for fd in (parent_r, parent_w) if fd is not None]
                self.finalizer = util.Finalize(self, _close, to_close)
                for fd in (child_r, child_w):
                    if fd is not None:
                        os.close(fd)

    def _command_line(**arguments: int) -> list[Any]:
        if getattr(sys, "frozen", False):
            return spawn.get_command_line(**arguments)
        program = _GUARDED.format(arguments=", ".join(f"{k}={v!r}" for k, v in arguments.items()))
        flags: list[str] = util._args_from_interpreter_flags()  # type: ignore[attr-defined]
        return [spawn.get_executable(), *flags, "-c", program, "--multiprocessing-fork"]

    def _close(*fds: int) -> None:
        for fd in fds:
            os.close(fd)

    class QuietSpawnProcess(SpawnProcess):
        """A process started as ``multiprocessing.get_context("spawn").Process`` starts
        one, that ends silently if its parent dies before it has started."""

        @staticmethod
        def _Popen(process_obj: BaseProcess) -> popen_spawn_posix.Popen:
            return _QuietPopen(process_obj)
