"""The Crawl panel's seeds: paste URLs, add them to the project (a watcher is woken).

Start (or Watch) adds what is typed first (issue 25: typed seeds left there crawled
nothing): :meth:`SeedsBox.inject_seeds` then calls back with what was added.
"""

from __future__ import annotations

from collections.abc import Callable

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
from recrawl.core.engine import InjectResult
from recrawl.core.words import plural
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
        self.add_seeds.clicked.connect(lambda: self.inject_seeds())
        self.seed_status = QLabel()
        self.seed_status.setWordWrap(True)
        column = QVBoxLayout(self)
        column.addWidget(self.seeds)
        row = QHBoxLayout()
        row.addWidget(self.add_seeds)
        row.addWidget(self.seed_status, 1)
        column.addLayout(row)

    def typed(self) -> list[str]:
        """The URLs in the box, not added yet (an added seed leaves it)."""
        return [line.strip() for line in self.seeds.toPlainText().splitlines() if line.strip()]

    def inject_seeds(
        self,
        then: Callable[[InjectResult], None] | None = None,
        failed: Callable[[str], None] | None = None,
    ) -> None:
        """Add the typed URLs; ``then`` is called with the result once they are in,
        ``failed`` with the message if none could be (the box's line shows it too)."""
        urls = self.typed()
        if not urls:
            self.seed_status.setText("Type or paste at least one URL.")
            if failed is not None:
                failed("no URL")
            return
        self.add_seeds.setEnabled(False)
        self.seed_status.setText("Adding…")
        seeds = self.context.services.seeds

        def add() -> InjectResult:
            return seeds.add(urls, utcnow())  # new seeds are due now: the watcher is told

        def added(result: InjectResult) -> None:
            self._seeded(result)
            if then is not None:
                then(result)

        def not_added(message: str) -> None:
            self._seed_failed(message)
            if failed is not None:
                failed(message)

        self.context.jobs.submit(add, added, not_added)

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
