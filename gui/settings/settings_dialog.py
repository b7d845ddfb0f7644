"""File → Settings…: the crawl settings the project keeps, the ones ``recrawl settings``
shows and ``recrawl crawl`` and the app start from.

The dialog is made from the settings schema (:func:`recrawl.core.config.setting_fields`):
each setting gets an editor for its kind, with its bounds (a spin box's range) and unit
(its suffix), its help and default beneath and its name, unit and bounds as tooltip;
its text is checked by the setting itself (:func:`~recrawl.core.config.parse_setting`,
as ``recrawl settings --set`` checks it), one line for each bad value. Save keeps the
changed ones through the same core call as ``recrawl settings --set`` on the store
thread (``context.jobs``), and a watcher takes them from its next round; Cancel writes
nothing. A setting changed back to its default is forgotten (``--unset``). The
notification services (``notify.urls``) are a list of URLs, each with a "Send test"
(:mod:`recrawl.gui.settings.notify_urls`), sent from a job thread.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.clock import duration_text, human_duration
from recrawl.core.config import (
    CrawlSettings,
    parse_setting,
    setting_fields,
    setting_text,
    setting_value,
)
from recrawl.core.errors import RecrawlError
from recrawl.core.policy import crawl_settings
from recrawl.core.setting_schema import SettingSpec
from recrawl.gui.common.setting_widgets import count_suffix, spin_range, tooltip
from recrawl.gui.context import AppContext
from recrawl.gui.settings import notify_urls
from recrawl.gui.settings.notify_urls import NotifyUrlsEditor

#: What each kind's empty editor suggests.
PLACEHOLDERS = {
    "duration": "like 30 s, 5 min, 6 h or 1.0 d",
    "size": "like 10M, 512k or a number of bytes",
    "number": "a number",
    "text": "",
}


def load_values() -> dict[str, object]:
    """The project's settings by name, as crawls use them (store thread)."""
    current = crawl_settings.project_crawl_settings(CrawlSettings())
    return {item.name: setting_value(current, item.name) for item in setting_fields()}


def field_label(item: SettingSpec) -> str:
    """``max_pages_per_host_round`` → ``Max pages per host round``."""
    words = " ".join(_ACRONYMS.get(word, word) for word in item.name.rpartition(".")[2].split("_"))
    return words[:1].upper() + words[1:]


#: Words a label spells in capitals (``notify.urls`` → ``URLs``).
_ACRONYMS = {"url": "URL", "urls": "URLs"}


class SettingEditor(QWidget):
    """One setting's editor (fitting its kind), its help and default, and its error."""

    sig_edited = Signal()

    def __init__(self, item: SettingSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item = item
        #: A duration's exact seconds as shown (the shown text rounds them: 8685 min is
        #: "6.0 d"); kept while the text is not edited.
        self._filled: float | None = None
        #: A whole number beyond what the spin box holds (kept by ``recrawl settings``),
        #: as read: the box shows its limit, and saving another change keeps this one.
        self._beyond: int | None = None
        self.input = self._make_input()
        self.input.setToolTip(tooltip(item))
        reset = QToolButton()
        reset.setText("Default")
        reset.setToolTip(f"Back to the default: {self._typed(item.default) or 'not set'}")
        reset.clicked.connect(lambda: self.show_value(item.default))
        self.reset_button = reset
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.input, 1)
        row.addWidget(reset, 0, Qt.AlignmentFlag.AlignTop)  # beside a list's first line
        default = self._typed(item.default) or "not set"
        self.help = QLabel(f"{item.help} Default: {default}.")
        self.help.setWordWrap(True)
        self.help.setObjectName("setting-help")
        self.help.setStyleSheet("color: palette(placeholder-text);")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setObjectName("setting-error")
        self.error.setStyleSheet("color: #c62828;")
        self.error.hide()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 6)
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(self.help)
        column.addWidget(self.error)

    def _make_input(self) -> QWidget:
        kind = self.item.kind
        if self.item.name == notify_urls.SETTING and kind == "list":
            urls = NotifyUrlsEditor()
            urls.sig_edited.connect(self.sig_edited)
            return urls
        if kind == "bool":
            box = QCheckBox()
            box.toggled.connect(self.sig_edited)
            return box
        if kind == "whole":
            spin = QSpinBox()
            low, high = spin_range(self.item)
            spin.setRange(int(low), int(high))
            if self.item.unit:
                count_suffix(spin, self.item.unit)
            spin.setGroupSeparatorShown(True)
            spin.valueChanged.connect(self.sig_edited)
            return spin
        if kind == "list":
            lines = QPlainTextEdit()
            lines.setPlaceholderText("one a line")
            lines.setFixedHeight(lines.fontMetrics().lineSpacing() * 4 + 12)
            lines.textChanged.connect(self.sig_edited)
            return lines
        line = QLineEdit()
        line.setPlaceholderText(
            "not set" if self.item.default is None else PLACEHOLDERS.get(kind, "")
        )
        line.textChanged.connect(self.sig_edited)
        return line

    def _typed(self, value: object) -> str:
        """``value`` as this editor shows it (empty: not set); a duration as every
        duration is shown (``6.0 d``)."""
        if value is None:
            return ""
        if self._is_duration(value):
            return human_duration(float(value))  # type: ignore[arg-type]
        return setting_text(self.item.name, value)

    def _is_duration(self, value: object) -> bool:
        return (
            self.item.kind == "duration"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        )

    def show_value(self, value: object) -> None:
        widget = self.input
        if isinstance(widget, QCheckBox):
            widget.setChecked(bool(value))
        elif isinstance(widget, QSpinBox):
            whole = value if isinstance(value, int) else 0
            beyond = not widget.minimum() <= whole <= widget.maximum()
            self._beyond = whole if beyond else None
            widget.setValue(self._clamped(whole))
        elif isinstance(widget, QPlainTextEdit):
            items = value if isinstance(value, tuple) else ()
            widget.setPlainText("\n".join(str(item) for item in items))
        elif isinstance(widget, NotifyUrlsEditor):
            widget.set_urls([str(item) for item in value] if isinstance(value, tuple) else [])
        elif isinstance(widget, QLineEdit):
            self._filled = float(value) if self._is_duration(value) else None  # type: ignore[arg-type]
            widget.setText(self._typed(value))

    def text(self) -> str:
        """What the editor holds, as ``recrawl settings --set NAME=TEXT`` takes it."""
        widget = self.input
        if isinstance(widget, QCheckBox):
            return "true" if widget.isChecked() else "false"
        if isinstance(widget, QSpinBox):
            if self._beyond is not None and widget.value() == self._clamped(self._beyond):
                return str(self._beyond)  # as read, while the box is not edited
            return str(widget.value())
        if isinstance(widget, QPlainTextEdit):
            return " ".join(widget.toPlainText().split())  # list items, apart by spaces
        if isinstance(widget, NotifyUrlsEditor):
            return " ".join(widget.urls())
        assert isinstance(widget, QLineEdit)
        if self._filled is not None and widget.text().strip() == human_duration(self._filled):
            return duration_text(self._filled)  # as filled: exact, not as rounded for show
        return widget.text()

    def _clamped(self, whole: int) -> int:
        assert isinstance(self.input, QSpinBox)
        return max(self.input.minimum(), min(whole, self.input.maximum()))

    def value(self) -> object:
        """The value, checked as the command line checks it (RecrawlError if bad)."""
        text = self.text()
        if not text.strip() and self.item.default is None:
            return None  # empty: not set, the default
        return parse_setting(self.item.name, text)

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))


class SettingsDialog(QDialog):
    """The project's crawl settings; saves the changed ones, then accepts."""

    #: Settings were saved (the Crawl panel shows them again).
    sig_saved = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("Settings")
        self.setObjectName("settings-dialog")
        intro = QLabel(
            "Kept in the project: <code>recrawl settings</code> shows the same, and every "
            "crawl and watch starts from them (a watcher from its next round)."
        )
        intro.setWordWrap(True)
        self.editors: dict[str, SettingEditor] = {}
        body = QWidget()
        column = QVBoxLayout(body)
        groups: dict[str, QFormLayout] = {}
        for item in setting_fields():
            form = groups.get(item.group)
            if form is None:
                box = QGroupBox(item.group.capitalize() or "Crawl")
                form = QFormLayout(box)
                form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
                form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
                groups[item.group] = form
                column.addWidget(box)
            editor = SettingEditor(item)
            editor.sig_edited.connect(lambda e=editor: self._check(e))
            if isinstance(editor.input, NotifyUrlsEditor):
                editor.input.sig_send_test.connect(
                    lambda key, url, urls=editor.input: self.send_test(urls, key, url)
                )
            self.editors[item.name] = editor
            label = QLabel(field_label(item))
            label.setToolTip(tooltip(item))
            label.setBuddy(editor.input)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            form.addRow(label, editor)
        column.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        self.scroll_area = scroll
        #: One line for each bad value, or what the save said.
        self.problems = QLabel()
        self.problems.setObjectName("settings-problems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #c62828;")
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.problems)
        layout.addWidget(self.buttons)
        self.resize(620, 640)
        #: The values as read (None until they arrive).
        self.loaded: dict[str, object] | None = None
        self._saving = False
        body.setEnabled(False)
        self._body = body
        self.save_button.setEnabled(False)
        context.jobs.submit(load_values, self._loaded, self._load_failed)

    # -- reading ---------------------------------------------------------------------

    def _loaded(self, values: dict[str, object]) -> None:
        for name, editor in self.editors.items():
            editor.blockSignals(True)
            editor.show_value(values[name])
            editor.blockSignals(False)
        self.loaded = values
        self._body.setEnabled(True)
        self.save_button.setEnabled(True)

    def _load_failed(self, message: str) -> None:
        self._say([f"The project's settings could not be read: {message}"])

    # -- checking --------------------------------------------------------------------

    def _check(self, editor: SettingEditor) -> str:
        """Check one editor's value; its error line ('' if good)."""
        try:
            editor.value()
        except RecrawlError as exc:
            message = str(exc)
        else:
            message = ""
        editor.show_error(message)
        if self.problems.isVisible():
            self._say(self.errors())  # keep the summary current once it shows
        return message

    def errors(self) -> list[str]:
        """One line for each bad value, in the dialog's order."""
        return [line for editor in self.editors.values() if (line := self._line(editor))]

    @staticmethod
    def _line(editor: SettingEditor) -> str:
        try:
            editor.value()
        except RecrawlError as exc:
            return str(exc)
        return ""

    def changes(self) -> dict[str, object | None]:
        """What differs from the values read: a value, or None for the default again."""
        loaded = self.loaded or {}
        changes: dict[str, object | None] = {}
        for name, editor in self.editors.items():
            value = editor.value()
            if name in loaded and value != loaded[name]:
                changes[name] = None if value == editor.item.default else value
        return changes

    def _say(self, lines: list[str]) -> None:
        self.problems.setText("\n".join(lines))
        self.problems.setVisible(bool(lines))

    # -- notification tests -----------------------------------------------------------

    def send_test(self, editor: NotifyUrlsEditor, key: int, url: str) -> None:
        """A test message to ``url``, sent off the GUI thread (a service may take its
        time to answer); the row says what came of it."""
        notify = self.context.services.notify
        self.context.jobs.compute(
            lambda: notify.send_test(url),
            lambda failure: editor.show_result(key, failure),
            lambda message: editor.show_result(key, message),
        )

    # -- saving ----------------------------------------------------------------------

    def save(self) -> None:
        if self.loaded is None or self._saving:
            return
        lines = [line for editor in self.editors.values() if (line := self._check(editor))]
        self._say(lines)
        if lines:
            return
        changes = self.changes()
        if not changes:
            self.accept()
            return
        self._saving = True
        self.save_button.setEnabled(False)
        services = self.context.services

        def job() -> object:
            return services.settings.save(changes)  # a watcher crawls with them next round

        self.context.jobs.submit(job, lambda _: self._saved(len(changes)), self._save_failed)

    def _saved(self, count: int) -> None:
        self._saving = False
        self.context.changes.sig_status.emit(
            "Settings saved: 1 change" if count == 1 else f"Settings saved: {count} changes"
        )
        self.sig_saved.emit()
        self.accept()

    def _save_failed(self, message: str) -> None:
        self._saving = False
        self.save_button.setEnabled(True)
        self._say([f"Nothing was saved: {message}"])

    def reject(self) -> None:
        if not self._saving:  # a save under way ends in accept
            super().reject()
