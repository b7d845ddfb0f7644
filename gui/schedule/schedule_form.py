"""The form of one schedule's parameters, generated from ``schedule_parameters``.

Every field turns into the ``KEY=VALUE`` assignments the CLI takes (``--param``), so the
panel saves, checks and simulates exactly what ``recrawl schedule --param`` would.
Only values that differ from the default become assignments: a project keeps following
a default that is not its own choice.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from recrawl.core.clock import duration_text, human_duration
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.schedules.parameters import Parameter
from recrawl.gui.common.formatting import typed_duration

INVALID_STYLE = "border: 1px solid #d1495b;"


def label_text(key: str) -> str:
    return key.replace("_", " ").capitalize()


class DurationField(QWidget):
    """A duration typed as the CLI takes it, with what it means (or why not) beside it."""

    sig_edited = Signal()

    def __init__(self, parameter: Parameter, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parameter = parameter
        #: The value the field was filled with (typed_duration keeps it while unedited).
        self.filled: float | None = None
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("no bound" if parameter.optional else "e.g. 30 d, 12 h")
        self.edit.setToolTip(f"{parameter.help}\nUnits: s, min (or m), h, d, w.")
        self.edit.setMaximumWidth(110)
        self.meaning = QLabel()
        self.meaning.setMinimumWidth(70)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        layout.addWidget(self.meaning, 1)
        self.edit.textChanged.connect(self._changed)

    def set_value(self, value: Any) -> None:
        self.filled = None if value is None else float(value)
        self.edit.setText(human_duration(self.filled))
        self._changed()

    def value(self) -> float | None:
        """Seconds (None when empty and allowed); InvalidArgument when not a duration."""
        text = self.edit.text().strip()
        if not text:
            if self.parameter.optional:
                return None
            raise InvalidArgument(f"{self.parameter.key} needs a duration (like 30d, 12h)")
        return typed_duration(text, self.filled)

    def text(self) -> str:
        """The value as ``--param`` takes it (``30d``): exact, with no space."""
        seconds = self.value()
        return "none" if seconds is None else duration_text(seconds)

    def _changed(self) -> None:
        try:
            seconds = self.value()
        except InvalidArgument:
            self.meaning.setText("?")
            self.edit.setStyleSheet(INVALID_STYLE)
        else:
            # what the text means, when it is not already written so (empty: the
            # placeholder says "no bound")
            shown = self.edit.text().strip() if seconds is None else human_duration(seconds)
            self.meaning.setText("" if shown == self.edit.text().strip() else f"= {shown}")
            self.edit.setStyleSheet("")
        self.sig_edited.emit()


class ParameterForm(QWidget):
    """Fields for a list of parameters; ``assignments()`` gives what differs from defaults."""

    sig_edited = Signal()
    #: score-tiers' base schedule changed: the form must be rebuilt for its parameters.
    sig_base_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.main = QFormLayout()
        self.more = QFormLayout()
        self.more_box = QWidget()
        self.more_box.setLayout(self.more)
        self.more_box.setVisible(False)
        self.more_button = QToolButton()
        self.more_button.setText("More parameters")
        self.more_button.setCheckable(True)
        self.more_button.setAutoRaise(True)
        self.more_button.toggled.connect(self.more_box.setVisible)
        self.more_button.toggled.connect(
            lambda on: self.more_button.setText("Fewer parameters" if on else "More parameters")
        )
        self.hosts = QPlainTextEdit()
        self.hosts.setPlaceholderText("min@example.org=1h\nmax@example.org=7d")
        self.hosts.setToolTip("Per-host bounds, one a line: min@HOST=DUR or max@HOST=DUR.")
        self.hosts.setMaximumHeight(70)
        self.hosts.textChanged.connect(self.sig_edited)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.main)
        layout.addWidget(self.more_button)
        layout.addWidget(self.more_box)
        layout.addWidget(QLabel("Per-host bounds (min@HOST=DUR, max@HOST=DUR):"))
        layout.addWidget(self.hosts)
        self.fields: dict[str, tuple[Parameter, QWidget]] = {}

    def build(self, parameters: list[Parameter], values: dict[str, Any]) -> None:
        """Fields for ``parameters``, set to ``values`` (the default where one is missing)."""
        for layout in (self.main, self.more):
            while layout.rowCount():
                layout.removeRow(0)
        self.fields.clear()
        for parameter in parameters:
            field = self._field(parameter)
            self.fields[parameter.key] = (parameter, field)
            self._set(parameter, field, values.get(parameter.key, parameter.default))
            label = QLabel(label_text(parameter.key))
            label.setToolTip(parameter.help)
            field.setToolTip(parameter.help)
            (self.more if parameter.advanced else self.main).addRow(label, field)
        self.more_button.setVisible(any(p.advanced for p in parameters))

    def set_hosts(self, hosts: dict[str, dict[str, float]]) -> None:
        lines = [
            f"{bound}@{host}={duration_text(limits[bound])}"
            for host, limits in sorted(hosts.items())
            for bound in ("min", "max")
            if bound in limits
        ]
        self.hosts.setPlainText("\n".join(lines))

    def field(self, key: str) -> QWidget:
        return self.fields[key][1]

    def value_of(self, key: str) -> Any:
        parameter, field = self.fields[key]
        return self._get(parameter, field)

    def assignments(self) -> list[str]:
        """``KEY=VALUE`` for every value that is not the default, then the host bounds.

        Raises InvalidArgument naming the field when one cannot be read.
        """
        out: list[str] = []
        for key, (parameter, field) in self.fields.items():
            value = self._get(parameter, field)
            if value == parameter.default:
                continue
            if isinstance(field, DurationField):
                out.append(f"{key}={field.text()}")
            elif isinstance(value, bool):
                out.append(f"{key}={'true' if value else 'false'}")
            else:
                out.append(f"{key}={value}")
        for line in self.hosts.toPlainText().splitlines():
            if line.strip():
                out.append(line.strip())
        return out

    def mark(self, key: str | None) -> None:
        """Outline the field ``key`` as the invalid one (None: no field is)."""
        for name, (_, field) in self.fields.items():
            if not isinstance(field, DurationField):
                field.setStyleSheet(INVALID_STYLE if name == key else "")

    # -- one field per kind ----------------------------------------------------------------

    def _field(self, parameter: Parameter) -> QWidget:
        field: QWidget
        if parameter.kind == "duration":
            field = duration = DurationField(parameter)
            duration.sig_edited.connect(self.sig_edited)
        elif parameter.kind == "bool":
            field = QCheckBox()
            field.toggled.connect(self.sig_edited)
        elif parameter.kind == "choice":
            field = QComboBox()
            field.addItems(list(parameter.choices))
            field.currentTextChanged.connect(self.sig_edited)
            if parameter.key == "base":
                field.currentTextChanged.connect(self.sig_base_changed)
        elif parameter.kind == "integer":
            field = QSpinBox()
            field.setRange(0, 1_000_000)
            field.setMaximumWidth(110)
            field.valueChanged.connect(self.sig_edited)
        else:
            field = QDoubleSpinBox()
            field.setDecimals(4)
            field.setRange(0.0, 1_000_000.0)
            field.setSingleStep(0.05)
            field.setMaximumWidth(110)
            field.valueChanged.connect(self.sig_edited)
        return field

    @staticmethod
    def _set(parameter: Parameter, field: QWidget, value: Any) -> None:
        field.blockSignals(True)
        if isinstance(field, DurationField):
            field.set_value(value)
        elif isinstance(field, QCheckBox):
            field.setChecked(bool(value))
        elif isinstance(field, QComboBox):
            field.setCurrentText(str(value))
        elif isinstance(field, QSpinBox):
            field.setValue(int(value))
        elif isinstance(field, QDoubleSpinBox):
            field.setValue(float(value))
        field.blockSignals(False)

    @staticmethod
    def _get(parameter: Parameter, field: QWidget) -> Any:
        if isinstance(field, DurationField):
            try:
                return field.value()
            except InvalidArgument as exc:
                raise InvalidArgument(f"{parameter.key}: {exc}") from None
        if isinstance(field, QCheckBox):
            return field.isChecked()
        if isinstance(field, QComboBox):
            return field.currentText()
        if isinstance(field, QSpinBox):
            return field.value()
        if isinstance(field, QDoubleSpinBox):
            return field.value()
        raise TypeError(type(field))
