"""The Filters panel's "Embed rules" tab: the chain's embed rules, read-only.

Embed rules (docs/design.md §14) decide what pages embed — styles, scripts, images, fonts —
as the filters above decide pages, in the same rule syntax. The editor edits filters
only (its checker, lint, preview and Apply all judge pages) and keeps the embed rules as
they are; this tab shows them as the chain file holds them and says where to edit them.
"""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

HINT = (
    "<b>Embed rules</b> decide what pages embed (styles, scripts, images, fonts, media, "
    "frames), which are fetched with the pages wherever they are hosted; the filters "
    "above decide pages only. Same syntax as filters; with none, every embed is fetched. "
    "Edit them in the chain file's <code>[[embed]]</code> tables: "
    "<code>recrawl filter get DIR &gt; chain.toml</code>, edit, then "
    "<code>recrawl filter set DIR chain.toml</code>. The editor above keeps them as "
    "they are, and “Why not crawled?” answers by them too."
)
NONE = "# No embed rules: every embed a page names is fetched (robots.txt allowing).\n"


class EmbedRulesView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hint = QLabel(HINT)
        self.hint.setWordWrap(True)
        self.text = QPlainTextEdit()
        self.text.setObjectName("embed-rules")
        self.text.setReadOnly(True)
        self.text.setFont(QFont("monospace"))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.hint)
        layout.addWidget(self.text, 1)
        self.show_rules("")

    def show_rules(self, toml: str) -> None:
        """``toml``: the chain's ``[[embed]]`` tables (empty: none)."""
        self.text.setPlainText(toml or NONE)
