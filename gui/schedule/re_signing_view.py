"""The Schedule panel's signature switch in progress: a bar, a line, a Stop button.

Choosing another signature recomputes every page's stored signature from its archived
payload (:mod:`recrawl.core.engine.re_signing`), on a thread of its own
(:class:`~recrawl.gui.jobs.long_jobs.ReSigningJob`); a project of a million pages takes a while,
so the panel shows how far it is and can stop it after the batch in hand.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget
from recrawl.core.engine.re_signing import ReSigningProgress
from recrawl.core.project import Project
from recrawl.core.words import plural
from recrawl.gui.jobs.long_jobs import ReSigningJob


def progress_text(state: ReSigningProgress) -> str:
    """``Recomputing main-text signatures: 1,200 of 10,000 pages``, or what it did."""
    if not state.finished and not state.stopped:
        return (
            f"Recomputing {state.kind} signatures: {state.done:,} of {plural(state.total, 'page')}"
        )
    text = state.summary("apply it again")
    return f"{text[0].upper()}{text[1:]}."


class ReSigningView(QWidget):
    """Runs a switch and shows it; ``sig_done`` carries its last progress."""

    sig_done = Signal(object)
    sig_failed = Signal(str)

    def __init__(self, project: Project, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job = ReSigningJob(project, self)
        self.bar = QProgressBar()
        self.bar.setFormat("%v of %m pages")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip(
            "Stop after the batch in hand: pages keep their old signature or get the new "
            "one; applying the same signature again resumes"
        )
        row = QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.label)
        self.bar.hide()
        self.stop_button.hide()
        self.last: ReSigningProgress | None = None
        self.job.sig_progress.connect(self._progress)
        self.job.sig_finished.connect(self._finished)
        self.job.sig_failed.connect(self._failed)
        self.stop_button.clicked.connect(self.stop)

    @property
    def busy(self) -> bool:
        return self.job.busy

    def start(self, kind: str) -> None:
        self.last = None
        self.bar.setRange(0, 0)  # busy until the first count comes
        self.bar.show()
        self.stop_button.show()
        self.stop_button.setEnabled(True)
        self.label.setText(f"Recomputing the pages' signatures as {kind}…")
        self.job.start(kind)

    def stop(self) -> None:
        self.job.stop()
        self.stop_button.setEnabled(False)
        self.label.setText("Stopping after the batch in hand…")

    def shutdown(self) -> None:
        """Stop and wait (the window closes): the store stays consistent either way."""
        self.job.stop()
        self.job.wait()

    def _progress(self, state: ReSigningProgress) -> None:
        self.last = state
        self.bar.setRange(0, max(state.total, 1))
        self.bar.setValue(state.done)
        if self.stop_button.isEnabled():
            self.label.setText(progress_text(state))

    def _finished(self, state: ReSigningProgress) -> None:
        self.last = state
        self.bar.hide()
        self.stop_button.hide()
        self.label.setText(progress_text(state))
        self.sig_done.emit(state)

    def _failed(self, message: str) -> None:
        self.bar.hide()
        self.stop_button.hide()
        self.label.setText(f"Could not recompute the signatures: {message}")
        self.sig_failed.emit(message)
