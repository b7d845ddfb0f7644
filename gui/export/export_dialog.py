"""File → Export WACZ…: what to export (docs/design.md §13), then the export with its progress.

:class:`ExportDialog` asks for the file and the choices ``recrawl export`` takes (site,
since, latest or all); :class:`WaczExport` runs the same core export on its own thread
(:class:`recrawl.gui.jobs.long_jobs.ExportJob`) behind a progress dialog whose Cancel stops it
(the partial file goes; a file that was there stays) and says where the package went
and how big it is.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QDateTime, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDateTimeEdit,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.archive.wacz import ALL, LATEST, ExportOptions, ExportProgress, ExportSummary
from recrawl.core.project import Project
from recrawl.gui.common.formatting import size
from recrawl.gui.jobs.long_jobs import ExportJob

#: The progress bar's steps.
STEPS = 1000


class ExportDialog(QDialog):
    """The export's file and choices; ``sig_chosen(path, options)`` on OK."""

    sig_chosen = Signal(object, object)

    def __init__(self, project_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export WACZ")
        self.path = QLineEdit(str(Path.home() / f"{project_dir.name}.wacz"))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.browse_dialog: QFileDialog | None = None
        file_row = QHBoxLayout()
        file_row.addWidget(self.path, 1)
        file_row.addWidget(browse)
        self.site = QLineEdit()
        self.site.setPlaceholderText("all sites (or a host, as the Sites panel lists it)")
        self.since_box = QCheckBox("Only captures since")
        self.since = QDateTimeEdit(QDateTime.currentDateTime().addMonths(-1))
        self.since.setCalendarPopup(True)
        self.since.setDisplayFormat("yyyy-MM-dd HH:mm")
        self.since.setEnabled(False)
        self.since_box.toggled.connect(self.since.setEnabled)
        since_row = QHBoxLayout()
        since_row.addWidget(self.since_box)
        since_row.addWidget(self.since, 1)
        self.latest = QRadioButton("Each page's latest capture")
        self.every = QRadioButton("Every capture")
        self.latest.setChecked(True)
        group = QButtonGroup(self)
        group.addButton(self.latest)
        group.addButton(self.every)
        form = QFormLayout()
        form.addRow("File:", file_row)
        form.addRow("Site:", self.site)
        form.addRow("", since_row)
        form.addRow("Captures:", self.latest)
        form.addRow("", self.every)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.path.textChanged.connect(self._check)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)

    def _check(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.path.text().strip()))

    def _browse(self) -> None:
        dialog = QFileDialog(self, "Export WACZ", self.path.text(), "WACZ files (*.wacz)")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("wacz")
        dialog.fileSelected.connect(self.path.setText)
        self.browse_dialog = dialog
        dialog.open()

    def options(self) -> ExportOptions:
        since = None
        if self.since_box.isChecked():
            # the field shows local time; the export takes UTC
            seconds = self.since.dateTime().toSecsSinceEpoch()
            since = datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)
        return ExportOptions(
            site=self.site.text().strip() or None,
            since=since,
            pages=ALL if self.every.isChecked() else LATEST,
        )

    def accept(self) -> None:
        text = self.path.text().strip()
        if not text:
            return
        path = Path(text).expanduser()
        if path.suffix.lower() != ".wacz":
            path = path.with_name(path.name + ".wacz")
        super().accept()
        self.sig_chosen.emit(path, self.options())


class WaczExport(QObject):
    """Runs one export at a time for the window, with its progress dialog and messages."""

    #: A line for the status bar.
    sig_status = Signal(str)

    def __init__(self, project: Project, parent: QWidget) -> None:
        super().__init__(parent)
        self._window = parent
        self._project = project
        self.job = ExportJob(project, self)
        self.job.sig_progress.connect(self._progress)
        self.job.sig_finished.connect(self._finished)
        self.job.sig_failed.connect(self._failed)
        self.dialog: ExportDialog | None = None
        self.progress: QProgressDialog | None = None
        #: The last message shown (the outcome), kept for tests.
        self.message: QMessageBox | None = None
        self._out: Path | None = None

    @property
    def busy(self) -> bool:
        return self.job.busy

    def ask(self) -> None:
        """Open the dialog (window-modal; the event loop keeps running)."""
        if self.busy:
            self.sig_status.emit("An export is running already")
            return
        dialog = ExportDialog(self._project.path, self._window)
        dialog.sig_chosen.connect(self.start)
        self.dialog = dialog
        dialog.open()

    def start(self, out: Path, options: ExportOptions) -> None:
        if self.busy:
            return
        self._out = out
        progress = QProgressDialog(f"Exporting to {out.name}…", "Cancel", 0, STEPS, self._window)
        progress.setWindowTitle("Export WACZ")
        progress.setWindowModality(Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)
        progress.setAutoClose(False)
        progress.setAutoReset(False)
        progress.canceled.connect(self.cancel)
        self.progress = progress
        progress.setValue(0)
        progress.show()
        self.sig_status.emit(f"Exporting to {out}…")
        self.job.start(out, options)

    def cancel(self) -> None:
        if self.busy:
            self.job.stop()
            if self.progress is not None:
                self.progress.setLabelText("Cancelling…")

    def _progress(self, progress: ExportProgress) -> None:
        dialog = self.progress
        if dialog is None or self.job.stopping:
            return
        share = progress.done / progress.total if progress.total else 1.0
        dialog.setLabelText(
            f"Exporting to {self._out.name if self._out else ''}… "
            f"{size(progress.done)} of {size(progress.total)}, "
            f"{progress.captures_done:,} of {progress.captures_total:,} captures"
        )
        # last: a window-modal progress dialog handles pending events in setValue, the
        # export's next reports and its end among them
        dialog.setValue(max(dialog.value(), round(STEPS * share)))

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.canceled.disconnect(self.cancel)
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None

    def _finished(self, summary: ExportSummary) -> None:
        self._close_progress()
        text = (
            f"Exported {summary.captures:,} captures to {summary.path}: {size(summary.bytes)}. "
            f"Its list of pages has {summary.pages:,} entries."
        )
        if summary.open_segments:
            text += " The round still being written was left out: export again once it ends."
        if summary.unresolved_revisits:
            text += (
                f" {summary.unresolved_revisits:,} revisits refer to responses the project no "
                "longer has: they will not replay."
            )
        self.sig_status.emit(f"Exported {summary.path} ({size(summary.bytes)})")
        self._show(QMessageBox.Icon.Information, text)

    def _failed(self, message: str) -> None:
        stopped = self.job.stopping
        self._close_progress()
        if stopped:
            self.sig_status.emit("Export cancelled: no file was written")
            return
        self.sig_status.emit(f"Export failed: {message}")
        self._show(QMessageBox.Icon.Warning, f"The export failed: {message}")

    def _show(self, icon: QMessageBox.Icon, text: str) -> None:
        box = QMessageBox(icon, "Export WACZ", text, QMessageBox.StandardButton.Ok, self._window)
        self.message = box
        box.open()

    def shutdown(self) -> None:
        """Stop a running export and wait for its thread (the window closes)."""
        self.job.stop()
        self.job.wait()
        self._close_progress()
