"""The Settings dialog's editor of ``notify.urls`` (docs/design.md §17): the Apprise URLs
a round's news is sent to, one a row, each with a "Send test" button and what the test
said under it.

A view only: "Send test" asks (:attr:`NotifyUrlsEditor.sig_send_test`) and the dialog
runs the core's send on a job thread, handing the answer back to
:meth:`NotifyUrlsEditor.show_result`. A row is named by a key, not its place: a row
removed or added while a test is under way leaves the others' answers where they belong.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

#: The setting this editor is for.
SETTING = "notify.urls"
PLACEHOLDER = "an Apprise URL: mailto://…, ntfys://ntfy.sh/topic, matrixs://…, json://host/path"
SENT_STYLE = "color: #2e7d32;"
FAILED_STYLE = "color: #c62828;"


@dataclass
class _Row:
    key: int
    url: QLineEdit
    test: QPushButton
    remove: QToolButton
    result: QLabel


class NotifyUrlsEditor(QWidget):
    """Rows of URLs with a test button each; Add URL below."""

    sig_edited = Signal()
    #: (row key, url): send a test message to ``url``; answer with show_result(key, …).
    sig_send_test = Signal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._keys = itertools.count(1)
        self.rows: list[_Row] = []
        self.grid = QGridLayout()
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(4)
        self.grid.setVerticalSpacing(2)
        self.grid.setColumnStretch(0, 1)
        self.empty = QLabel("No notification services: news shows in the app only.")
        self.empty.setStyleSheet("color: palette(placeholder-text);")
        self.add_button = QPushButton("Add URL")
        self.add_button.setToolTip("One more service to send each round's news to")
        self.add_button.clicked.connect(self._add_clicked)
        bottom = QHBoxLayout()
        bottom.addWidget(self.add_button)
        bottom.addStretch(1)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.empty)
        column.addLayout(self.grid)
        column.addLayout(bottom)

    # -- the rows -----------------------------------------------------------------------

    def set_urls(self, urls: tuple[str, ...] | list[str]) -> None:
        for row in list(self.rows):
            self._drop(row)
        for url in urls:
            self.add_url(url)
        self._relayout()

    def urls(self) -> list[str]:
        """The URLs typed, in order (empty rows left out)."""
        return [text for row in self.rows if (text := row.url.text().strip())]

    def add_url(self, url: str = "") -> _Row:
        key = next(self._keys)
        line = QLineEdit(url)
        line.setPlaceholderText(PLACEHOLDER)
        line.setToolTip(
            "Where each round's news goes, as Apprise names a service (its site lists "
            "them: email, Matrix, ntfy, Gotify, Slack, a JSON webhook, …)"
        )
        test = QPushButton("Send test")
        test.setToolTip("Send a short test message there now (the URL as typed, saved or not)")
        remove = QToolButton()
        remove.setText("Remove")
        remove.setToolTip("No more news to this service (once the settings are saved)")
        result = QLabel("")
        result.setWordWrap(True)
        result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        result.hide()
        row = _Row(key, line, test, remove, result)
        # checked once typed, not at each key: the check asks Apprise to parse the URL,
        # which logs an error for each half-typed one
        line.editingFinished.connect(self.sig_edited)
        line.textChanged.connect(lambda _: self._update(row))
        test.clicked.connect(lambda: self._test_clicked(row))
        remove.clicked.connect(lambda: self._remove_clicked(row))
        self.rows.append(row)
        self._update(row)
        self._relayout()
        return row

    def _add_clicked(self) -> None:
        row = self.add_url()
        row.url.setFocus()
        self.sig_edited.emit()

    def _remove_clicked(self, row: _Row) -> None:
        self._drop(row)
        self._relayout()
        self.sig_edited.emit()

    def _drop(self, row: _Row) -> None:
        self.rows.remove(row)
        for widget in (row.url, row.test, row.remove, row.result):
            self.grid.removeWidget(widget)
            widget.deleteLater()

    def _relayout(self) -> None:
        for number, row in enumerate(self.rows):
            self.grid.addWidget(row.url, 2 * number, 0)
            self.grid.addWidget(row.test, 2 * number, 1)
            self.grid.addWidget(row.remove, 2 * number, 2)
            self.grid.addWidget(row.result, 2 * number + 1, 0, 1, 3)
        self.empty.setVisible(not self.rows)

    def _update(self, row: _Row) -> None:
        row.test.setEnabled(bool(row.url.text().strip()) and row.test.text() == "Send test")

    # -- tests --------------------------------------------------------------------------

    def _test_clicked(self, row: _Row) -> None:
        url = row.url.text().strip()
        if not url:
            return
        row.test.setText("Sending…")
        row.test.setEnabled(False)
        self._say(row, f"Sending a test message to {url}…", "")
        self.sig_send_test.emit(row.key, url)

    def show_result(self, key: int, failure: str | None) -> None:
        """What the test of row ``key`` said: None, it was sent; else why not."""
        row = next((r for r in self.rows if r.key == key), None)
        if row is None:
            return  # removed meanwhile
        row.test.setText("Send test")
        self._update(row)
        if failure is None:
            self._say(row, "Sent: the service took the test message.", SENT_STYLE)
        else:
            self._say(row, f"Not sent: {failure}", FAILED_STYLE)

    def result_text(self, number: int) -> str:
        """What row ``number``'s last test said ('' for none)."""
        return self.rows[number].result.text()

    @staticmethod
    def _say(row: _Row, text: str, style: str) -> None:
        row.result.setText(text)
        row.result.setStyleSheet(style)
        row.result.setVisible(bool(text))
