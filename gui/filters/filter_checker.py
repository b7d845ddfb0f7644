"""The rule checker: URLs typed or pasted, each filter's and each rule's outcome for them.

It runs the edited chain (valid or not yet applied) through the core's
:func:`explain_rules`; a handful of URLs checks in well under a frame, so it runs as the
user types, on the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.errors import RecrawlError
from recrawl.core.filters import Chain, Verdict
from recrawl.core.filters.chain import RuleOutcome, Step, explain_rules
from recrawl.core.net.urls import canonical
from recrawl.gui.filters.filter_models import COMMENT, ERROR

#: More URLs than this are not checked as you type (paste a list into a file and use
#: the preview for bulk questions).
MAX_URLS = 50
ACCEPTED = "#2e7d32"


def step_words(step: Step) -> str:
    if step.status == "disabled":
        return "disabled"
    if step.status == "skipped":
        return "skipped (the chain had decided)"
    if step.line is None:
        return f"{step.outcome} (no rule matched)"
    return f"{step.outcome} by line {step.line}"


class RuleChecker(QWidget):
    """URLs in, an outcome tree out: URL → filters → rules."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chain: Chain | None = None
        self.urls = QPlainTextEdit()
        self.urls.setObjectName("checker-urls")
        self.urls.setPlaceholderText(
            "Type or paste URLs, one per line, to see what the edited chain does to them"
        )
        self.urls.setMaximumHeight(90)
        self.tree = QTreeWidget()
        self.tree.setObjectName("checker-results")
        self.tree.setHeaderLabels(["URL / filter / rule", "Outcome"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.tree.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.header().setStretchLastSection(False)
        self.note = QLabel()
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.urls)
        layout.addWidget(self.note)
        layout.addWidget(self.tree, 1)
        self.urls.textChanged.connect(self.refresh)
        #: url → (verdict, steps, rule outcomes) of the last check; for tests and callers
        self.results: dict[str, tuple[Verdict, list[Step], list[list[RuleOutcome]]]] = {}

    def set_chain(self, chain: Chain | None) -> None:
        self.chain = chain
        self.refresh()

    def set_urls(self, text: str) -> None:
        self.urls.setPlainText(text)

    def refresh(self) -> None:
        self.tree.clear()
        self.results = {}
        raw = [u.strip() for u in self.urls.toPlainText().splitlines() if u.strip()]
        if not raw:
            self.note.setText("")
        elif self.chain is None:
            self.note.setText("The chain has an error (see above): fix it to check URLs.")
        else:
            self.note.setText(
                f"Only the first {MAX_URLS} URLs are checked." if len(raw) > MAX_URLS else ""
            )
            for text in raw[:MAX_URLS]:
                self._add(text)

    def verdict_of(self, url: str) -> Verdict | None:
        found = self.results.get(canonical(url))
        return found[0] if found else None

    def _add(self, text: str) -> None:
        assert self.chain is not None
        try:
            url = canonical(text)
        except RecrawlError as exc:
            item = QTreeWidgetItem([text, f"not a URL: {exc}"])
            item.setForeground(1, QBrush(ERROR))
            self.tree.addTopLevelItem(item)
            return
        verdict, steps, outcomes = explain_rules(self.chain, url)
        self.results[url] = (verdict, steps, outcomes)
        top = QTreeWidgetItem([url, verdict.describe()])
        top.setForeground(1, QBrush(ERROR if not verdict.accepted else ACCEPTED))
        top.setToolTip(0, url)
        top.setData(0, Qt.ItemDataRole.UserRole, url)
        self.tree.addTopLevelItem(top)
        for step, rules in zip(steps, outcomes, strict=True):
            child = QTreeWidgetItem(
                [f"filter {step.index}: {step.name} ({step.kind})", step_words(step)]
            )
            if step.status != "ran":
                child.setForeground(0, QBrush(COMMENT))
                child.setForeground(1, QBrush(COMMENT))
            for rule in rules:
                mark = "SHORTCIRCUIT: " if rule.shortcircuit else ""
                leaf = QTreeWidgetItem([f"line {rule.line}: {mark}{rule.text}", rule.outcome])
                if rule.outcome == "decided":
                    bold = leaf.font(0)
                    bold.setBold(True)
                    leaf.setFont(0, bold)
                    leaf.setFont(1, bold)
                elif rule.outcome != "matched":
                    leaf.setForeground(1, QBrush(COMMENT))
                child.addChild(leaf)
            top.addChild(child)
            # open the filters that ran; the skipped and disabled ones stay folded
            child.setExpanded(step.status == "ran" and len(rules) <= 12)
        top.setExpanded(True)
