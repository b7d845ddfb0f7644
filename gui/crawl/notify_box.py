"""The Crawl panel's switch for desktop notifications of news, kept in the project."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QWidget
from recrawl.core.watch.notifications import notifications_on, set_notifications
from recrawl.gui.jobs.store_jobs import StoreJobs


class NotifyBox(QCheckBox):
    def __init__(self, jobs: StoreJobs, parent: QWidget | None = None) -> None:
        super().__init__("Notify me of new and changed pages", parent)
        self._jobs = jobs
        self.setToolTip(
            "A desktop notification after each watch round with news (kept in this project)"
        )
        self.setEnabled(False)  # until the project's choice is read
        self.toggled.connect(self._toggled)
        jobs.submit(notifications_on, self._arrived)

    def _arrived(self, on: bool) -> None:
        self.blockSignals(True)
        self.setChecked(on)
        self.blockSignals(False)
        self.setEnabled(True)

    def _toggled(self, on: bool) -> None:
        self._jobs.submit(lambda: set_notifications(on), lambda _: None)
