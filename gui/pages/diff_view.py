"""What changed on a page between two captures, side by side (docs/design.md §10, issue 13).

A view only: it shows a :class:`recrawl.gui.pages.diff_jobs.DiffPage` computed on a job
thread. The old capture's text is on the left and the new one's on the right, a
paragraph a row; added text is green, removed red, and inside a changed paragraph the
words that changed are marked. Both sides are the two columns of one table, so their
rows stay aligned however they wrap and scroll together, under a header naming each
capture's date in local time. A run of unchanged paragraphs is folded into one line;
clicking it shows them (and clicking again folds them back).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)
from recrawl.gui.common import formatting
from recrawl.gui.pages.diff_jobs import (
    ADDED_BACKGROUND,
    ADDED_WORDS,
    FOLD_SCHEME,
    REMOVED_BACKGROUND,
    REMOVED_WORDS,
    DiffPage,
    side_by_side,
)


class DiffView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page: DiffPage | None = None
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = QLabel("")
        self.summary.setObjectName("diff-summary")
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.old_header = QLabel("")
        self.new_header = QLabel("")
        for header, background in (
            (self.old_header, REMOVED_BACKGROUND),
            (self.new_header, ADDED_BACKGROUND),
        ):
            header.setStyleSheet(f"background-color: {background}; color: #1f2328; padding: 4px")
        #: The folds of unchanged paragraphs shown (by their first row).
        self.unfolded: set[int] = set()
        self.text = QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setPlaceholderText("Comparing…")
        self.text.anchorClicked.connect(self._link_clicked)
        self.legend = QLabel(
            f'<span style="background-color: {REMOVED_WORDS}">removed</span> '
            f'<span style="background-color: {ADDED_WORDS}">added</span> '
            "— the words that changed inside a changed paragraph are marked darker; "
            "click a “⋯ unchanged paragraphs” line to show them"
        )
        self.legend.setWordWrap(True)
        headers = QGridLayout()
        headers.setHorizontalSpacing(0)
        headers.addWidget(self.old_header, 0, 0)
        headers.addWidget(self.new_header, 0, 1)
        headers.setColumnStretch(0, 1)
        headers.setColumnStretch(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addLayout(headers)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.legend)
        self.notes.hide()

    def show_loading(self, url: str) -> None:
        self.page = None
        self.title.setText(f"<b>{_escape(url)}</b>")
        self.summary.setText("Comparing the two captures…")
        self.old_header.setText("")
        self.new_header.setText("")
        self.text.clear()

    def show_error(self, message: str) -> None:
        self.summary.setText(f"Cannot compare: {message}")
        self.text.clear()

    def show_diff(self, page: DiffPage) -> None:
        self.page = page
        self.title.setText(f"<b>{_escape(page.url)}</b>")
        self.summary.setText(page.summary[:1].upper() + page.summary[1:])
        self.old_header.setText(f"Before: captured {_local(page)[0]} (local time)")
        self.new_header.setText(f"After: captured {_local(page)[1]} (local time)")
        self.notes.setText("; ".join(page.notes))
        self.notes.setVisible(bool(page.notes))
        self.unfolded.clear()
        self.text.setHtml(page.html)

    def toggle_fold(self, start: int) -> None:
        """Show the unchanged paragraphs folded at row ``start``, or fold them again."""
        if self.page is None:
            return
        self.unfolded ^= {start}
        # laid out again with that run open or closed; the reader stays where they were
        bar = self.text.verticalScrollBar()
        at = bar.value()
        self.text.setHtml(side_by_side(self.page.rows, frozenset(self.unfolded)))
        bar.setValue(at)

    def _link_clicked(self, url: QUrl) -> None:
        if url.scheme() == FOLD_SCHEME and url.path().isdigit():
            self.toggle_fold(int(url.path()))


def _local(page: DiffPage) -> tuple[str, str]:
    return (
        formatting.local_time(page.old_date, seconds=True),
        formatting.local_time(page.new_date, seconds=True),
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class DiffDialog(QDialog):
    """A diff in its own window: the page stays browsable beside it."""

    def __init__(self, url: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Changes of {url}")
        self.resize(1000, 640)
        self.view = DiffView()
        self.view.show_loading(url)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)

    def show_diff(self, page: DiffPage) -> None:
        old, new = _local(page)
        self.setWindowTitle(f"Changes of {page.url}: {old} → {new}")
        self.view.show_diff(page)

    def show_error(self, message: str) -> None:
        self.view.show_error(message)
