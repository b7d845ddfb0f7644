"""The Filters panel's "Why not crawled?" tab: the rejected-links record, searched in SQL.

Every link a crawl (or an inject) turned away is recorded with the filter and rule line
that did it, and so is every known page an applied chain filtered (docs/design.md §10), and
every embed the chain's embed rules turned away (``embed: <rule>``, docs/design.md §14). This
tab lists them (the newest first, narrowed as you type) and, for one URL, says what the
record holds and what the chain being edited would say now. A URL the store keeps as an
embed is said to be one first: an image a page links to may be rejected as a page by the
filters yet archived as what a page shows, and the record alone would mislead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
from recrawl.core.policy.embed_why import KnownEmbed, embed_verdict, known_embed
from recrawl.core.policy.filter_reach import FilteredReason, filtered_reason
from recrawl.core.store import embed_rule_name
from recrawl.core.store.models import PageStatus
from recrawl.core.words import plural
from recrawl.gui.common.formatting import local_time, status_word
from recrawl.gui.filters.filter_models import RejectedModel, RejectedRow
from recrawl.gui.jobs.store_jobs import StoreJobs

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


@dataclass(frozen=True)
class Record:
    """What the store says of one URL (on the store thread)."""

    #: Its rejected-links row (None: none).
    rejected: RejectedRow | None
    #: Why it is filtered, when it is a filtered page.
    filtered: FilteredReason | None
    #: Its row, when it is an embed.
    embed: KnownEmbed | None


def _record(url: str) -> Record:
    link = store.rejected_link(url)
    return Record(
        None if link is None else _row(link),
        filtered_reason(url, choices.project_chain()),
        known_embed(url),
    )


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
        self._jobs.submit(lambda: _record(url), lambda record: self._explain(url, record))

    def _explain(self, url: str, record: Record) -> None:
        parts = []
        found, embed = record.rejected, record.embed
        if embed is not None:
            parts.append(embed_text(embed))
            if found is not None:  # also turned away: as a link, or by older embed rules
                parts.append(self._rejection(found, archived=True))
        elif record.filtered is not None:
            text = escape(filtered_text(record.filtered))
            parts.append(
                f"<b>{text[:1].upper()}{text[1:]}.</b> A known page: kept with its captures "
                "and history, never fetched while the chain rejects it."
            )
        elif found is not None:
            parts.append(self._rejection(found))
        else:
            parts.append(
                "Not in the rejected-links record: no crawl met it as a link the chain turned away."
            )
        chain = self._edited_chain()
        if chain is not None:
            page = chain.check(url).describe()
            if embed is not None or chain.embed_rules.filters or _by_embed_rule(found):
                parts.append(
                    f"The edited chain now says: as a page, {escape(page)}; as an embed, "
                    f"{escape(embed_verdict(chain, url))}."
                )
            else:
                parts.append(f"The edited chain now says: {escape(page)}.")
        self.answer.setText("<br>".join(parts))
        self._on_url(url)

    def _rejection(self, found: RejectedRow, archived: bool = False) -> str:
        """What the record says: the filter (or embed rule) and line, and that line;
        ``archived``: of a URL the store keeps as an embed."""
        line = f"line {found.line}" if found.line is not None else "no rule matched"
        met = f"(rejected since {local_time(found.first_seen)}, {plural(found.count, 'time')})"
        rule = embed_rule_name(found.filter)
        if rule is not None and archived:
            text = (
                f"The record also has it turned away by embed rule “{escape(rule)}”, {line} "
                f"{met}: by the embed rules of that time."
            )
        elif rule is not None:
            text = (
                f"<b>Rejected by embed rule “{escape(rule)}”, {line}</b> {met}: a page embeds "
                "it, and the chain's embed rules turn it away, so it is not archived."
            )
        elif archived:
            text = (
                f"As a link it was turned away by filter “{escape(found.filter)}”, {line} {met}: "
                "it is not crawled as a page, only archived as what a page shows."
            )
        else:
            text = f"<b>Rejected by filter “{escape(found.filter)}”, {line}</b> {met}."
        reads = self._rule_text(found.filter, found.line)
        if reads is not None:
            text += f"<br>That line reads: <code>{escape(reads)}</code>"
        return text


def _by_embed_rule(found: RejectedRow | None) -> bool:
    return found is not None and embed_rule_name(found.filter) is not None


def embed_text(embed: KnownEmbed) -> str:
    """``Archived as an embed: …`` — what the store says of a URL kept as an embed."""
    if embed.last_fetched is None:
        fetched = "not fetched yet"
    else:
        reply = f"HTTP {embed.http_status}" if embed.http_status is not None else "no reply"
        error = f": {embed.error}" if embed.error else ""
        fetched = f"last fetched {local_time(embed.last_fetched)} ({reply}{error})"
        if embed.status == PageStatus.ROBOTS_DENIED:
            fetched = "denied by robots.txt"
    by = f", first embedded by {escape(embed.embedded_by)}" if embed.embedded_by else ""
    head = "Archived as an embed" if embed.archived else "Known as an embed, not archived"
    return (
        f"<b>{head}</b> ({status_word(embed.status)}, {escape(fetched)}{by}): what a page needs to be "
        "seen (a style, script, image, font…), fetched with the pages that embed it and "
        "decided by the chain's embed rules; the filters decide pages only."
    )


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
