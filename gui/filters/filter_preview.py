"""The Filters panel's Preview tab: what an edit would change over the known URLs.

A view: the panel runs the preview (:func:`recrawl.gui.filters.filter_jobs.preview_edit`) and
hands the answer, or the reason there is none, to :class:`PreviewTab`.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget
from recrawl.core.words import plural


class PreviewTab(QWidget):
    """A summary line, a "Preview now" button, and examples of each change."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.label = QLabel()
        self.label.setObjectName("preview-summary")
        self.label.setWordWrap(True)
        self.button = QPushButton("Preview now")
        row.addWidget(self.label, 1)
        row.addWidget(self.button)
        lists = QHBoxLayout()
        self.rejected_examples = QListWidget()
        self.accepted_examples = QListWidget()
        for title, widget in (
            ("Newly rejected (examples)", self.rejected_examples),
            ("Newly accepted (examples)", self.accepted_examples),
        ):
            column = QVBoxLayout()
            column.addWidget(QLabel(title))
            column.addWidget(widget)
            lists.addLayout(column)
        layout.addLayout(row)
        layout.addLayout(lists, 1)

    def show_invalid(self) -> None:
        self.label.setText("The edited chain has an error: no preview until it loads.")

    def show_no_edit(self) -> None:
        self.clear_examples()
        self.label.setText(
            "No edit to preview: the editor shows the applied chain. Edit it to see "
            "which known URLs the change would newly reject or accept."
        )

    def show_running(self) -> None:
        self.label.setText("Previewing over the project's known URLs…")

    def show_failed(self, message: str) -> None:
        self.label.setText(f"Preview failed: {message}")

    def show_result(self, result: dict[str, Any]) -> None:
        """``result``: :func:`~recrawl.gui.filters.filter_jobs.preview_edit`'s answer."""
        self.clear_examples()
        if result["known"] == 0:
            self.label.setText(
                "The project knows no URLs yet: inject seeds and crawl, and the preview "
                "will show what an edit changes for them."
            )
        else:
            self.label.setText(
                f"Over the {plural(result['known'], 'URL')} the project knows: "
                f"{result['newly_rejected']:,} newly rejected, "
                f"{result['newly_accepted']:,} newly accepted. {pages_text(result)}"
            )
        self.rejected_examples.addItems(result["examples"]["newly_rejected"])
        self.accepted_examples.addItems(result["examples"]["newly_accepted"])

    def clear_examples(self) -> None:
        self.rejected_examples.clear()
        self.accepted_examples.clear()


def pages_text(result: dict[str, Any]) -> str:
    """What Apply would do to the known pages (docs/design.md §10), in words: ``1,000 known
    pages will be filtered: no longer fetched; 12 come back.``"""
    filtered, back = result["newly_filtered"], result["coming_back"]
    if not (filtered or back):
        return "Applying changes no known page."
    parts = []
    if filtered:
        were = "page will be" if filtered == 1 else "pages will be"
        parts.append(f"{filtered:,} known {were} filtered: no longer fetched")
    if back and filtered:
        parts.append(f"{back:,} come{'s' * (back == 1)} back")
    elif back:
        pages = "page comes" if back == 1 else "pages come"
        parts.append(f"{back:,} filtered {pages} back, due now")
    return "; ".join(parts) + "."
