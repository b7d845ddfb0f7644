"""The Filters panel's "Why not crawled?" tab: the rejected-links record, searched in SQL.

Every link a crawl (or an inject) turned away is recorded with the filter and rule line
that did it, and so is every known page an applied chain filtered (DESIGN.md §10). This
tab lists them (the newest first, narrowed as you type) and, for one URL, says what the
record holds and what the chain being edited would say now.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.filters import Chain
from recrawl.core.net.urls import canonical
from recrawl.core.policy import choices
from recrawl.core.policy.filter_reach import FilteredReason, filtered_reason
from recrawl.gui.filter_models import RejectedModel, RejectedRow
from recrawl.gui.formatting import local_time
from recrawl.gui.jobs import StoreJobs

#: Rejected links listed at once; the search narrows a larger record in SQL.
SHOWN = 1000
EMPTY = (
    "No link has been turned away yet. When a crawl meets a link the chain rejects, it "
    "is recorded here with the filter and line that rejected it."
)


def _row(link: Any) -> RejectedRow:
    return RejectedRow(link.url, link.filter, link.line, link.first_seen, link.count)


def _matching(needle: str) -> tuple[int, list[RejectedRow]]:
    total, links = store.rejected_matching(needle, SHOWN)
    return total, [_row(link) for link in links]


def _record(url: str) -> tuple[RejectedRow | None, FilteredReason | None]:
    """The URL's record, and why it is filtered when it is a filtered page."""
    link = store.rejected_link(url)
    return None if link is None else _row(link), filtered_reason(url, choices.project_chain())


def filtered_text(reason: FilteredReason) -> str:
    """``filtered by scope (filter 2), line 3: example.org, since the chain applied …``"""
    since = f", since the chain applied {local_time(reason.since)}" if reason.since else ""
    return f"{reason.describe()}{since}"


class WhyNotCrawled(QWidget):
    """The tab; the panel hands it the edited chain and the text of a rule line."""

    sig_loaded = Signal()
    #: A status-bar message (how many links match when not all are listed).
    sig_status = Signal(str)

    def __init__(
        self,
        jobs: StoreJobs,
        edited_chain: Callable[[], Chain | None],
        rule_text: Callable[[str, int | None], str | None],
        on_url: Callable[[str], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._jobs = jobs
        self._edited_chain = edited_chain
        self._rule_text = rule_text
        self._on_url = on_url
        self.total = 0
        self.model = RejectedModel(self)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(300)  # the list follows typing once it pauses
        self.timer.timeout.connect(self.load)

        self.edit = QLineEdit()
        self.edit.setObjectName("why-url")
        self.edit.setPlaceholderText(
            "Paste a URL to ask why it was not crawled, or type to filter the list"
        )
        self.edit.textChanged.connect(lambda _: self.timer.start())
        self.edit.returnPressed.connect(lambda: self.explain(self.edit.text()))
        self.button = QPushButton("Why?")
        self.button.clicked.connect(lambda: self.explain(self.edit.text()))
        self.answer = QLabel()
        self.answer.setObjectName("why-answer")
        self.answer.setWordWrap(True)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.view = QTableView()
        self.view.setObjectName("rejected-view")
        self.view.setModel(self.model)
        self.view.verticalHeader().hide()
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.view.selectionModel().currentRowChanged.connect(self._selected)

        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.answer)
        layout.addWidget(self.view, 1)

    # -- the list ----------------------------------------------------------------------

    def load(self) -> None:
        needle = self.edit.text().strip()
        self._jobs.submit(lambda: _matching(needle), lambda found: self._loaded(needle, *found))

    def _loaded(self, needle: str, total: int, rows: list[RejectedRow]) -> None:
        if needle != self.edit.text().strip():
            return  # typing went on: a newer query is coming
        if not needle:
            self.total = total
        self.model.set_rows(rows)
        if not self.total:
            self.answer.setText(EMPTY)
        elif total > len(rows):
            self.sig_status.emit(
                f"{total:,} rejected links match; the {len(rows):,} newest are listed"
            )
        self.sig_loaded.emit()

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.explain(self.model.row(current.row()).url)

    # -- one URL -----------------------------------------------------------------------

    def explain(self, text: str) -> None:
        """Answer "why was this URL not crawled?" from the record and the edited chain."""
        text = text.strip()
        if not text:
            return
        try:
            url = canonical(text)
        except Exception as exc:
            self.answer.setText(f"Not a URL: {exc}")
            return
        self._jobs.submit(lambda: _record(url), lambda found: self._explain(url, *found))

    def _explain(self, url: str, found: RejectedRow | None, reason: FilteredReason | None) -> None:
        parts = []
        if reason is not None:
            text = escape(filtered_text(reason))
            parts.append(
                f"<b>{text[:1].upper()}{text[1:]}.</b> A known page: kept with its captures "
                "and history, never fetched while the chain rejects it."
            )
        elif found is not None:
            line = f"line {found.line}" if found.line is not None else "no rule matched"
            parts.append(
                f"<b>Rejected by filter “{found.filter}”, {line}</b> "
                f"(first met {local_time(found.first_seen)}, {found.count} "
                f"time{'s' * (found.count != 1)})."
            )
            rule = self._rule_text(found.filter, found.line)
            if rule is not None:
                parts.append(f"That line reads: <code>{escape(rule)}</code>")
        else:
            parts.append(
                "Not in the rejected-links record: no crawl met it as a link the chain turned away."
            )
        chain = self._edited_chain()
        if chain is not None:
            parts.append(f"The edited chain now says: {escape(chain.check(url).describe())}.")
        self.answer.setText("<br>".join(parts))
        self._on_url(url)


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
