"""The Crawl panel's seeds: paste URLs, add them to the project (a watcher is woken)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.clock import utcnow
from recrawl.core.engine import InjectResult, inject
from recrawl.core.words import plural
from recrawl.gui import watch_link
from recrawl.gui.context import AppContext


class SeedsBox(QGroupBox):
    #: Seeds were added (the store changed).
    sig_added = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__("Seeds", parent)
        self.context = context
        self.seeds = QPlainTextEdit()
        self.seeds.setPlaceholderText(
            "Paste the URLs to watch, one per line, then Add seeds.\n"
            "https://example.org/\nhttps://example.org/news/"
        )
        self.add_seeds = QPushButton("Add seeds")
        self.add_seeds.clicked.connect(self.inject_seeds)
        self.seed_status = QLabel()
        self.seed_status.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(self.seeds)
        row = QHBoxLayout()
        row.addWidget(self.add_seeds)
        row.addWidget(self.seed_status, 1)
        column.addLayout(row)

    def inject_seeds(self) -> None:
        urls = [line.strip() for line in self.seeds.toPlainText().splitlines() if line.strip()]
        if not urls:
            self.seed_status.setText("Type or paste at least one URL.")
            return
        self.add_seeds.setEnabled(False)
        self.seed_status.setText("Adding…")
        folder = self.context.project.path

        def add() -> InjectResult:
            result = inject(urls, utcnow())
            if result.added:
                watch_link.wake_watcher(folder)  # new seeds are due now
            return result

        self.context.jobs.submit(add, self._seeded, self._seed_failed)

    def _seeded(self, result: InjectResult) -> None:
        self.add_seeds.setEnabled(True)
        text = f"{plural(result.added, 'new seed')} added"
        if result.rejected:
            # describe() says "no rule matched" where no line decided, never "line None"
            why = "; ".join(f"{url}: {v.describe()}" for url, v in result.rejected[:3])
            text += f", {len(result.rejected)} turned away by the filter chain ({why})"
        if result.known:  # left as they are: Refetch is what makes them due now
            known = len(result.known)
            text += (
                f", {known:,} already known (not changed; the Sites panel's Refetch makes "
                f"{'it' if known == 1 else 'them'} due now)"
            )
        text += ". The Sites panel lists what the project watches."
        # what a URL typed without a scheme was taken as, as the command line says it
        notes = "".join(f"{note[:1].upper()}{note[1:]}. " for note in result.notes())
        self.seed_status.setText(notes + text)
        if result.added:
            self.seeds.clear()
        self.context.changes.sig_pages.emit()
        self.context.changes.sig_policy.emit()  # the seeds' hosts joined the scope filter
        self.sig_added.emit()

    def _seed_failed(self, message: str) -> None:
        self.add_seeds.setEnabled(True)
        self.seed_status.setText(message)
