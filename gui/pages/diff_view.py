"""What changed on a page between two captures, side by side (docs/design.md §10, issue 13).

A view only: it shows a :class:`recrawl.gui.pages.diff_jobs.DiffPage` computed on a job
thread. The old capture's text is on the left and the new one's on the right, a
paragraph a row; added text is green, removed red, and inside a changed paragraph the
words that changed are marked. Both sides are the two columns of one table, so their
rows stay aligned however they wrap and scroll together, under a header naming each
capture's date in local time. A run of unchanged paragraphs is folded into one line;
clicking it shows them (and clicking again folds them back). When both captures were
made by a browser, their screenshots stand side by side above the text, under the
share of pixels that changed. Text selected in it can be made noise: "Ignore this text…"
(a button, and the text's context menu) asks for the Change rules editor with it
(:attr:`DiffView.sig_ignore_text`).
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)
from recrawl.gui.common import formatting
from recrawl.gui.common.scaled_image import ScaledImage
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
    #: (url, text): make the selected text noise on the page (the Change rules editor).
    sig_ignore_text = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.page: DiffPage | None = None
        #: The text's open context menu (tests read its actions).
        self.menu: QMenu | None = None
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
        self.text.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.text.customContextMenuRequested.connect(self._text_menu)
        self.ignore_button = QPushButton("Ignore this text…")
        self.ignore_button.setToolTip(
            "Select text that is noise (a ticker, a rotating quote): a change rule for the "
            "page's site or section then ignores it, once previewed and saved"
        )
        self.ignore_button.setEnabled(False)
        self.ignore_button.clicked.connect(self.ignore_selection)
        self.text.copyAvailable.connect(self._selection_changed)
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
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self._build_screens())
        self.split.addWidget(self.text)
        self.split.setChildrenCollapsible(False)
        self.split.setSizes([320, 320])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.summary)
        layout.addWidget(self.notes)
        layout.addLayout(headers)
        layout.addWidget(self.split, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.legend, 1)
        bottom.addWidget(self.ignore_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(bottom)
        self.notes.hide()

    def _build_screens(self) -> QWidget:
        """The two screenshots side by side, under the share of pixels that changed."""
        self.pixels = QLabel("")
        self.pixels.setObjectName("diff-pixels")
        self.pixels.setWordWrap(True)
        self.pixels.setTextFormat(Qt.TextFormat.PlainText)
        bold = self.pixels.font()
        bold.setBold(True)
        self.pixels.setFont(bold)
        self.mark = QCheckBox("Mark the changed pixels")
        self.mark.setToolTip("Tint the pixels that differ from the capture before, on the right")
        self.mark.toggled.connect(lambda _: self._show_new())
        self.old_image = ScaledImage()
        self.new_image = ScaledImage()
        self.screens = QWidget()
        grid = QGridLayout(self.screens)
        grid.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.pixels, 1)
        top.addWidget(self.mark)
        grid.addLayout(top, 0, 0, 1, 2)
        grid.addWidget(self.old_image, 1, 0)
        grid.addWidget(self.new_image, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(1, 1)
        self.screens.hide()
        return self.screens

    def show_loading(self, url: str) -> None:
        self.page = None
        self.title.setText(f"<b>{_escape(url)}</b>")
        self.summary.setText("Comparing the two captures…")
        self.old_header.setText("")
        self.new_header.setText("")
        self.text.clear()
        self._show_screens(None)

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
        self._show_screens(page)

    def _show_screens(self, page: DiffPage | None) -> None:
        visual = page.visual if page is not None else None
        self.screens.setVisible(visual is not None)
        self.old_image.set_image(visual.old if visual is not None else None)
        self._show_new()
        self.pixels.setText(f"Screenshots: {visual.summary}" if visual is not None else "")

    def _show_new(self) -> None:
        visual = self.page.visual if self.page is not None else None
        if visual is None:
            self.new_image.set_image(None)
        else:
            self.new_image.set_image(visual.marked if self.mark.isChecked() else visual.new)

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

    def selected_text(self) -> str:
        """The text selected in the comparison ('' for none)."""
        return self.text.textCursor().selectedText()

    def _selection_changed(self, selected: bool) -> None:
        self.ignore_button.setEnabled(selected and self.page is not None)

    def ignore_selection(self) -> None:
        """Ask for a change rule that ignores the selected text on this page."""
        text = self.selected_text()
        if self.page is not None and text.strip():
            self.sig_ignore_text.emit(self.page.url, text)

    def make_menu(self) -> QMenu:
        """The text's context menu: Qt's own (Copy, Select All), then Ignore this text…"""
        menu = self.text.createStandardContextMenu()
        menu.setParent(self, menu.windowFlags())
        menu.addSeparator()
        ignore = menu.addAction(self.ignore_button.text())
        ignore.setToolTip(self.ignore_button.toolTip())
        ignore.setEnabled(self.page is not None and bool(self.selected_text().strip()))
        ignore.triggered.connect(self.ignore_selection)
        return menu

    def _text_menu(self, at: QPoint) -> None:
        if self.menu is not None:
            self.menu.deleteLater()
        self.menu = self.make_menu()
        self.menu.popup(self.text.viewport().mapToGlobal(at))

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
