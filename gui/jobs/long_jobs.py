"""Long jobs on their own threads: a crawl, a compaction, a signature switch, a change
rule's preview and its re-signing, an export, the search index's build (STYLE: background
work).

Each job's runner is a ``QObject`` moved onto a ``QThread`` of its own, running the same
core facade the command line calls. The core reports progress to a plain callback; the
runner re-emits it as a signal, which Qt delivers on the GUI thread. Pause and stop are
thread-safe calls on the core object, not queued signals: a runner busy inside the
crawl's event loop would never run a queued slot.

("Worker" in this app means a PostgreSQL crawl worker only: :mod:`recrawl.gui.workers`.)
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QMetaObject, QObject, Qt, QThread, Signal, Slot
from recrawl.core import store
from recrawl.core.archive.compaction import CompactionProgress, CompactionSummary, compact
from recrawl.core.archive.wacz import ExportOptions, ExportSummary, export_wacz
from recrawl.core.config import CrawlSettings
from recrawl.core.engine import Crawler, Event
from recrawl.core.engine.change_preview import Preview
from recrawl.core.engine.gil import CRAWL_SWITCH_INTERVAL_S
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.errors import RecrawlError
from recrawl.core.policy.change_rules import ChangeRule
from recrawl.core.project import Project
from recrawl.core.services import Services
from recrawl.gui.jobs.threads import start_thread


class _JobRunner(QObject):
    """Runs one call on its thread; the job object owns it."""

    sig_report = Signal(object)
    sig_finished = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, project: Project, call: Callable[[Callable[[Any], None]], Any]) -> None:
        super().__init__()
        self._project = project
        self._call = call

    @Slot()
    def run(self) -> None:
        try:
            with self._project.active():
                result = self._call(self.sig_report.emit)
        except RecrawlError as exc:
            self.sig_failed.emit(str(exc))
        except Exception as exc:  # reported in the window, not lost
            self.sig_failed.emit(f"{type(exc).__name__}: {exc}")
        else:
            self.sig_finished.emit(result)
        finally:
            with self._project.active():
                store.close_database()  # this thread's connection
            self.thread().quit()


class _Job(QObject):
    """One run at a time; ``busy`` until its thread has stopped."""

    sig_finished = Signal(object)
    sig_failed = Signal(str)
    #: Emitted once the thread is gone, after finished or failed.
    sig_idle = Signal()
    #: Whose store the job's thread works on (each job sets it).
    _project: Project

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._job_runner: _JobRunner | None = None

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def _launch(self, call: Callable[[Callable[[Any], None]], Any], name: str) -> None:
        if self.busy:
            raise RuntimeError(f"{name} is already running")
        runner = _JobRunner(self._project, call)  # the thread enters its project
        runner.sig_report.connect(self._report)
        runner.sig_finished.connect(self.sig_finished)
        runner.sig_failed.connect(self.sig_failed)
        thread = start_thread(runner, name)
        thread.finished.connect(self._cleanup)
        self._job_runner, self._thread = runner, thread
        # queued: run() starts on the runner's thread, not on this one
        QMetaObject.invokeMethod(runner, "run", Qt.ConnectionType.QueuedConnection)

    def _report(self, value: Any) -> None:  # overridden
        pass

    @Slot()
    def _cleanup(self) -> None:
        thread, self._thread, self._job_runner = self._thread, None, None
        if thread is not None:
            thread.wait()
            thread.deleteLater()
        self.sig_idle.emit()

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the thread has stopped (for shutdown and tests)."""
        thread = self._thread
        return thread is None or thread.wait(ms)


class _Drivable(Protocol):
    """A crawl or a watch, as the job drives it (Crawler, Watcher)."""

    def run(self) -> Any: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def stop(self) -> None: ...


class CrawlJob(_Job):
    """A crawl of the open project, or a watch (crawls as pages come due, DESIGN §10).

    ``sig_events`` carries the core's event batches; ``watching`` says which runs.
    """

    sig_events = Signal(object)  # a list of recrawl.core.engine.events values
    sig_state = Signal(str)  # "running", "paused", "stopping", "idle"

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._runner: _Drivable | None = None
        #: Whether the run is a watch (True from watch() until the thread has stopped).
        self.watching = False
        # Pause and stop may come before the crawler exists (it reads the project's
        # policy on its thread first): they are remembered and applied when it does.
        self._lock = threading.Lock()
        self._pause_wanted = False
        self._stop_wanted = False
        self._switch_interval = sys.getswitchinterval()
        self.sig_idle.connect(self._idle)

    def _idle(self) -> None:
        self.watching = False
        sys.setswitchinterval(self._switch_interval)
        self.sig_state.emit("idle")

    def start(self, settings: CrawlSettings) -> None:
        self.watching = False
        self._start(lambda report: Crawler(self._project, settings, observer=report), "crawl")

    def watch(self, settings: CrawlSettings | Callable[[], CrawlSettings]) -> None:
        """Watch the project: rounds as pages come due until stop() (docs/design.md §10).

        ``settings`` may be a function: the watcher reads it (on its thread) before each
        crawl, so settings saved meanwhile hold from the next round.
        """

        def make(report: Callable[[Any], None]) -> _Drivable:
            from recrawl.core.watch.watcher import Watcher  # the app may never watch

            return Watcher(self._project, settings, observer=report)

        self.watching = True
        self._start(make, "watch")

    def _start(self, make: Callable[[Callable[[Any], None]], _Drivable], name: str) -> None:
        with self._lock:
            self._pause_wanted = self._stop_wanted = False

        def call(report: Callable[[Any], None]) -> Any:
            runner = make(report)
            with self._lock:
                self._runner = runner
                if self._stop_wanted:
                    runner.stop()
                elif self._pause_wanted:
                    runner.pause()
            try:
                return runner.run()
            finally:
                with self._lock:
                    self._runner = None

        self._launch(call, name)
        self._switch_interval = sys.getswitchinterval()
        # the window's thread gives the lock up at each Qt call and waits up to this to
        # get it back (Python's default is 5 ms), many times a repaint
        sys.setswitchinterval(CRAWL_SWITCH_INTERVAL_S)
        self.sig_state.emit("running")

    def _report(self, value: Any) -> None:
        events: Sequence[Event] = value
        self.sig_events.emit(list(events))

    def pause(self) -> None:
        if not self.busy:
            return
        with self._lock:
            self._pause_wanted = True
            if self._runner is not None:
                self._runner.pause()
        self.sig_state.emit("paused")

    def resume(self) -> None:
        if not self.busy:
            return
        with self._lock:
            self._pause_wanted = False
            if self._runner is not None:
                self._runner.resume()
        self.sig_state.emit("running")

    def stop(self) -> None:
        if not self.busy:
            return
        with self._lock:
            self._stop_wanted = True
            if self._runner is not None:
                self._runner.stop()
        self.sig_state.emit("stopping")


class CompactionJob(_Job):
    """A compaction of the open project; ``sig_progress`` carries (phase, done, total)."""

    sig_progress = Signal(str, int, int)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project

    def start(
        self,
        *,
        below: float | None = None,
        names: Sequence[str] | None = None,
        drop_superseded: bool = False,
    ) -> None:
        def call(report: Callable[[Any], None]) -> CompactionSummary:
            return compact(
                self._project,
                below=below,
                names=names,
                drop_superseded=drop_superseded,
                progress=report,
            )

        self._launch(call, "compaction")

    def _report(self, value: Any) -> None:
        progress: CompactionProgress = value
        self.sig_progress.emit(progress.phase, progress.done, progress.total)


class ReSigningJob(_Job):
    """A signature switch of the open project: every page's stored signature recomputed
    (:meth:`recrawl.core.services.re_signing.ReSigningService.switch`); ``sig_progress``
    carries its :class:`~recrawl.core.engine.re_signing.ReSigningProgress`,
    ``sig_finished`` the last one."""

    sig_progress = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._stop = threading.Event()

    def start(self, kind: str) -> None:
        self._stop.clear()
        stop = self._stop

        re_signing = Services(self._project).re_signing  # tells the watcher when done

        def call(report: Callable[[Any], None]) -> ReSigningProgress:
            return re_signing.switch(kind, progress=report, stop=stop)

        self._launch(call, "signatures")

    def _report(self, value: Any) -> None:
        self.sig_progress.emit(value)

    def stop(self) -> None:
        """Stop after the batch in hand (thread-safe): every page keeps one kind or the other."""
        self._stop.set()


class ExportJob(_Job):
    """A WACZ export of the open project (:func:`recrawl.core.archive.wacz.export_wacz`);
    ``sig_progress`` carries its :class:`~recrawl.core.archive.wacz.ExportProgress`,
    ``sig_finished`` its :class:`~recrawl.core.archive.wacz.ExportSummary`."""

    sig_progress = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._stop = threading.Event()

    @property
    def stopping(self) -> bool:
        """stop() was asked since the export started."""
        return self._stop.is_set()

    def start(self, out: Path, options: ExportOptions) -> None:
        self._stop.clear()
        stop = self._stop

        def call(report: Callable[[Any], None]) -> ExportSummary:
            return export_wacz(self._project.path, out, options, progress=report, stop=stop.is_set)

        self._launch(call, "export")

    def _report(self, value: Any) -> None:
        self.sig_progress.emit(value)

    def stop(self) -> None:
        """Stop the copy (thread-safe): the partial file is removed, an older one kept."""
        self._stop.set()


class ChangePreviewJob(_Job):
    """A change rule tried on the matching pages' history
    (:meth:`recrawl.core.services.changes.ChangesService.preview`); ``sig_progress``
    carries its :class:`~recrawl.core.engine.change_preview.PreviewProgress`,
    ``sig_finished`` the :class:`~recrawl.core.engine.change_preview.Preview`."""

    sig_progress = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._stop = threading.Event()

    def start(self, rule: ChangeRule) -> None:
        self._stop.clear()
        stop = self._stop
        changes = Services(self._project).changes

        def call(report: Callable[[Any], None]) -> Preview:
            return changes.preview(rule, progress=report, stop=stop)

        self._launch(call, "change-preview")

    def _report(self, value: Any) -> None:
        self.sig_progress.emit(value)

    def stop(self) -> None:
        """Stop judging (thread-safe): the preview says what it judged so far."""
        self._stop.set()


class ChangeRuleJob(_Job):
    """A change rule kept, or dropped, and its pages re-signed
    (:meth:`recrawl.core.services.changes.ChangesService.set` and ``unset``);
    ``sig_progress`` and ``sig_finished`` carry
    :class:`~recrawl.core.engine.re_signing.ReSigningProgress` values."""

    sig_progress = Signal(object)

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._stop = threading.Event()

    def save(self, rule: ChangeRule) -> None:
        self._stop.clear()
        stop, changes = self._stop, Services(self._project).changes  # wakes the watcher

        def call(report: Callable[[Any], None]) -> ReSigningProgress:
            return changes.set(rule, progress=report, stop=stop)

        self._launch(call, "change-rule")

    def delete(self, prefix: str) -> None:
        self._stop.clear()
        stop, changes = self._stop, Services(self._project).changes

        def call(report: Callable[[Any], None]) -> ReSigningProgress:
            return changes.unset(prefix, progress=report, stop=stop)

        self._launch(call, "change-rule")

    def _report(self, value: Any) -> None:
        self.sig_progress.emit(value)

    def stop(self) -> None:
        """Stop re-signing after the batch in hand (thread-safe): the rule is kept, and
        saving it again resumes."""
        self._stop.set()


#: Builds the search index of the active project: ``build(progress, should_stop)`` calls
#: ``progress(done, total)`` after each batch and stops after the batch in hand once
#: ``should_stop()`` is true (:func:`recrawl.core.archive.search_build.ensure_search_index`).
IndexBuild = Callable[[Callable[[int, int], None], Callable[[], bool]], Any]


class SearchIndexJob(_Job):
    """The search index built up from the archive (docs/design.md §19), for a project
    whose index is not complete; ``sig_progress`` carries (done, total) page versions,
    ``sig_finished`` the build's report."""

    sig_progress = Signal(int, int)

    def __init__(self, project: Project, build: IndexBuild, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project
        self._build = build
        self._stop = threading.Event()

    def start(self) -> None:
        self._stop.clear()
        stop, build = self._stop, self._build

        def call(report: Callable[[Any], None]) -> Any:
            return build(lambda done, total: report((done, total)), stop.is_set)

        self._launch(call, "search-index")

    def _report(self, value: Any) -> None:
        done, total = value
        self.sig_progress.emit(done, total)

    def stop(self) -> None:
        """Stop after the batch in hand (thread-safe): what is indexed stays, the next
        build goes on from there."""
        self._stop.set()
