"""The Schedule panel (docs/design.md §9, §4–§5): choose and tune the revisit schedule.

The form is generated from the schedule's own parameters (``schedule_parameters``)
and reads as the ``KEY=VALUE`` assignments of ``recrawl schedule --param``. Each edit
redraws, after a short pause, the trajectories of four reference pages (changing hourly,
daily, monthly, never) as ``recrawl simulate --schedule NAME --change-every DUR`` prints
them. Simulations run on the store thread, one at a time: an edit made while one runs
waits for it and only the newest edit's result is drawn.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)
from recrawl.core import store
from recrawl.core.clock import DAY, human_duration
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import choices
from recrawl.core.policy.schedules import SCHEDULES, make_schedule, schedule_names
from recrawl.core.policy.schedules.parameters import schedule_parameters
from recrawl.core.policy.schedules.registry import WRAPPERS, own_parameters
from recrawl.core.policy.signature import SIGNATURES
from recrawl.core.policy.simulate import REFERENCE_PAGES, reference_trajectories
from recrawl.core.policy.simulate_discovery import ScheduleFigures, schedule_figures
from recrawl.gui.common.plots import BOUND, plot_column, plot_widget
from recrawl.gui.context import AppContext
from recrawl.gui.panel import Panel
from recrawl.gui.schedule.re_signing_view import ReSigningView
from recrawl.gui.schedule.schedule_form import ParameterForm

#: One colour per reference page, from the fastest-changing (warm) to the never (grey).
PAGE_COLOURS = ("#d1495b", "#edae49", "#2d6a8f", "#666666")
DEBOUNCE_MS = 250
DEFAULT_HORIZON_DAYS = 60
#: Below this (days) an interval is drawn at this height: the y axis is logarithmic.
FLOOR_DAYS = 1e-4
MARKED_FETCHES = 200


def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n")[0].replace("\n", " ").replace("``", "")


def schedule_description(name: str) -> str:
    return _first_line(WRAPPERS[name] if name in WRAPPERS else SCHEDULES[name])


def figures_text(figures: ScheduleFigures) -> str:
    """Freshness and discovery delay beside each other, each against its optimum."""
    return (
        f"On {figures.pages} simulated pages over {figures.days:g} days: "
        f"freshness {figures.freshness:.0%} at {figures.fetches_per_page_per_day:.2f} "
        f"fetches a page a day (best possible at that cost {figures.optimal_freshness:.0%}); "
        f"as many hubs gaining new links: new pages first seen after "
        f"{_hours(figures.discovery_delay_hours)} on average at "
        f"{figures.hub_fetches_per_page_per_day:.2f} fetches a hub a day "
        f"(best possible {_hours(figures.optimal_delay_hours)})."
    )


def _hours(hours: float) -> str:
    return human_duration(hours * 3600) if math.isfinite(hours) else "never"


def _load() -> tuple[str, dict[str, Any], str]:
    """The project's choices as plain values (runs on the store thread)."""
    name, params = choices.schedule_spec()
    return name, params, store.get_setting("signature") or choices.DEFAULT_SIGNATURE


class SchedulePanel(Panel):
    title = "Schedule"
    key = "schedule"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        #: What the project has saved: (schedule, params, signature); None until loaded.
        self.saved: tuple[str, dict[str, Any], str] | None = None
        self._baseline: tuple[str, list[str], str] | None = None
        #: The problem with the form as it stands (None: it is valid).
        self.problem: str | None = None
        #: Bumped at each edit; a simulation result of an older generation is dropped.
        self._generation = 0
        self._simulating = False
        self._waiting: tuple[int, tuple[str, dict[str, Any], float]] | None = None
        self._saving = False
        #: Known pages the last save re-planned (their next fetch moved).
        self._replanned = 0
        #: The trajectories drawn: label -> rows of ``simulate_page``.
        self.trajectories: dict[str, list[dict[str, Any]]] = {}
        #: Freshness and discovery delay of the schedule drawn (None: not yet).
        self.figures: ScheduleFigures | None = None
        self._build()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._simulate)
        context.changes.sig_policy.connect(self._policy_changed)

    # -- layout ----------------------------------------------------------------------------

    def _build(self) -> None:
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._build_choices())
        splitter.addWidget(self._build_simulation())
        splitter.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self._connect()

    def _build_choices(self) -> QWidget:
        """The left column: schedule and signature, their parameters, Apply and Revert."""
        self.schedule_combo = QComboBox()
        self.schedule_combo.addItems(schedule_names())
        self.schedule_about = QLabel()
        self.schedule_about.setWordWrap(True)
        self.signature_combo = QComboBox()
        self.signature_combo.addItems(list(SIGNATURES))
        self.signature_about = QLabel()
        self.signature_about.setWordWrap(True)
        picker = QFormLayout()
        picker.addRow("Schedule", self.schedule_combo)
        picker.addRow("", self.schedule_about)
        picker.addRow("Signature", self.signature_combo)
        picker.addRow("", self.signature_about)

        self.form = ParameterForm()
        self.problem_label = QLabel()
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet("color: #d1495b;")
        self.problem_label.setVisible(False)
        self.apply_button = QPushButton("Apply")
        self.apply_button.setEnabled(False)
        self.apply_button.setToolTip("Save the schedule and signature to the project")
        self.revert_button = QPushButton("Revert")
        self.revert_button.setEnabled(False)
        self.revert_button.setToolTip("Back to what the project has saved")
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.apply_button)
        self.saved_label = QLabel()
        self.saved_label.setWordWrap(True)
        #: Another signature recomputes the pages' stored ones, with its progress here.
        self.re_signing = ReSigningView(self.context.project)
        self.re_signing.sig_done.connect(self._re_signed)
        self.re_signing.sig_failed.connect(self._apply_failed)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addLayout(picker)
        left_layout.addWidget(self.form)
        left_layout.addWidget(self.problem_label)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.saved_label)
        left_layout.addWidget(self.re_signing)
        left_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(left)
        scroll.setMinimumWidth(280)
        return scroll

    def _build_simulation(self) -> QWidget:
        """The right column: the reference pages' simulated trajectories and figures."""
        self.plot = plot_widget("time since the first fetch", "days", "interval", "days")
        self.plot.setLogMode(x=False, y=True)
        self.plot.addLegend(offset=(-10, 10))
        # the first page's line is the widest and lowest: where two pages' trajectories
        # coincide (nutch-adaptive's hourly and daily), both stay visible
        self.curves = {}
        for rank, ((label, _), colour) in enumerate(
            zip(REFERENCE_PAGES, PAGE_COLOURS, strict=True)
        ):
            curve = self.plot.plot(
                [], [], pen=pg.mkPen(colour, width=5 if rank == 0 else 2), name=label
            )
            curve.setZValue(rank)
            self.curves[label] = curve
        self.bound_lines: list[pg.InfiniteLine] = []
        self.horizon = QSpinBox()
        self.horizon.setRange(7, 730)
        self.horizon.setValue(DEFAULT_HORIZON_DAYS)
        self.horizon.setSuffix(" days")
        self.sim_state = QLabel()
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Simulate over"))
        controls.addWidget(self.horizon)
        controls.addStretch(1)
        controls.addWidget(self.sim_state)
        caption = QLabel(
            "Four pages fetched from day 0 with the parameters on the left: one changing "
            "every hour, every day, every month, and one that never changes. Each point is "
            "a fetch and the interval it set until the next one (log scale; fetches are "
            "marked while they are few; for discovery each change is a new link). Nothing is "
            "saved until Apply; a saved schedule applies to each page from its next fetch. "
            "The same numbers: recrawl simulate --schedule NAME --change-every 1d."
        )
        caption.setWordWrap(True)
        caption.setStyleSheet("color: #555;")
        #: Freshness and discovery delay (docs/design.md §11), as recrawl simulate --corpus
        #: and --discovery print them.
        self.figures_label = QLabel()
        self.figures_label.setWordWrap(True)
        self.figures_label.setToolTip(
            "recrawl simulate --corpus 200 --days D --schedules NAME and "
            "recrawl simulate --discovery 200 --days D --schedules NAME"
        )
        self.caption = caption
        return plot_column(self.plot, controls, self.figures_label, caption)

    def _connect(self) -> None:
        self.schedule_combo.currentTextChanged.connect(self._schedule_chosen)
        self.signature_combo.currentTextChanged.connect(self._signature_chosen)
        self.form.sig_edited.connect(self._edited)
        # rebuilt after the base combo's own signal: it is one of the fields replaced
        self.form.sig_base_changed.connect(
            lambda base: QTimer.singleShot(0, lambda: self._base_chosen(base))
        )
        self.horizon.valueChanged.connect(self._edited)
        self.apply_button.clicked.connect(self.apply)
        self.revert_button.clicked.connect(self._revert)

    # -- loading ---------------------------------------------------------------------------

    def activate(self) -> None:
        if not self.dirty():  # never throw away edits the user has not applied
            self.context.jobs.submit(_load, self._loaded, self._load_failed)

    def shutdown(self) -> None:
        self._timer.stop()
        self.re_signing.shutdown()

    def _policy_changed(self) -> None:
        if self.isVisible() and not self._saving:
            self.activate()

    def _loaded(self, result: tuple[str, dict[str, Any], str]) -> None:
        name, params, signature = result
        self.saved = (name, params, signature)
        self._show(name, params, signature)
        self._baseline = self._current()
        self.saved_label.setText(f"Saved: {name} schedule, {signature} signatures.")
        self._edited()

    def _load_failed(self, message: str) -> None:
        self.saved_label.setText(f"Could not read the project's schedule: {message}")

    def _show(self, name: str, params: dict[str, Any], signature: str) -> None:
        for combo, text in ((self.schedule_combo, name), (self.signature_combo, signature)):
            combo.blockSignals(True)
            combo.setCurrentText(text)
            combo.blockSignals(False)
        self.schedule_about.setText(schedule_description(name))
        self.signature_about.setText(_first_line(SIGNATURES[signature]))
        self.form.build(schedule_parameters(name, params.get("base")), params)
        self.form.set_hosts(params.get("hosts", {}))

    def _revert(self) -> None:
        if self.saved is not None:
            self._loaded(self.saved)

    # -- edits -----------------------------------------------------------------------------

    def _schedule_chosen(self, name: str) -> None:
        saved = self.saved
        params = saved[1] if saved is not None and saved[0] == name else {}
        self._show(name, params, self.signature_combo.currentText())
        self._edited()

    def _base_chosen(self, base: str) -> None:
        name = self.schedule_combo.currentText()
        saved = self.saved
        keep: dict[str, Any] = (
            saved[1] if saved is not None and saved[1].get("base") == base else {}
        )
        own: dict[str, Any] = {
            key: self.form.value_of(key)
            for key in (own_parameters(name) if name in WRAPPERS else ())
            if key in self.form.fields
        }
        own = {k: v for k, v in own.items() if isinstance(v, int | float) or v is None}
        values = {**keep, **own, "base": base}
        self.form.build(schedule_parameters(name, base), values)
        self._edited()

    def _signature_chosen(self, kind: str) -> None:
        self.signature_about.setText(_first_line(SIGNATURES[kind]))
        self._edited()

    def _current(self) -> tuple[str, list[str], str]:
        """The form as (schedule, assignments, signature); InvalidArgument if unreadable."""
        return (
            self.schedule_combo.currentText(),
            self.form.assignments(),
            self.signature_combo.currentText(),
        )

    def dirty(self) -> bool:
        try:
            return self._baseline is not None and self._current() != self._baseline
        except InvalidArgument:
            return True

    def _edited(self) -> None:
        self._generation += 1
        self.problem = self._check()
        self.problem_label.setText(f"Cannot apply: {self.problem}" if self.problem else "")
        self.problem_label.setVisible(self.problem is not None)
        self.form.mark(self._field_of(self.problem))
        dirty = self.dirty()
        self.apply_button.setEnabled(self.problem is None and dirty and not self._saving)
        self.revert_button.setEnabled(dirty and self.saved is not None)
        if self.problem is None:
            self._timer.start()
        else:
            self._timer.stop()
            self.sim_state.setText("Not simulated: the parameters are not valid")

    def _check(self) -> str | None:
        try:
            name, assignments, _ = self._current()
            choices.check_schedule(name, assignments)
        except InvalidArgument as exc:
            return str(exc)
        return None

    def _field_of(self, problem: str | None) -> str | None:
        """The field a problem is about, when its message starts with the field's key."""
        if problem is None:
            return None
        head = problem.replace(":", " ").split()[0] if problem.split() else ""
        return head if head in self.form.fields else None

    # -- simulation ------------------------------------------------------------------------

    def _simulate(self) -> None:
        try:
            name, assignments, _ = self._current()
            choices.check_schedule(name, assignments)
            base = next((a.split("=", 1)[1] for a in assignments if a.startswith("base=")), None)
            params = choices.parse_params(name, base, assignments)
        except InvalidArgument:
            return
        request = (name, params, self.horizon.value() * DAY)
        if self._simulating:
            self._waiting = (self._generation, request)  # only the newest edit waits
            return
        self._start(self._generation, request)

    def _start(self, generation: int, request: tuple[str, dict[str, Any], float]) -> None:
        name, params, until = request
        self._simulating = True
        self.sim_state.setText("Simulating…")
        self.context.jobs.compute(  # CPU only: the store's queries go on meanwhile
            lambda: (
                reference_trajectories(name, params, until),
                schedule_figures(name, params, until / DAY),
            ),
            lambda result: self._simulated(generation, request, result),
            self._simulation_failed,
        )

    def _simulated(
        self,
        generation: int,
        request: tuple[str, dict[str, Any], float],
        result: tuple[dict[str, list[dict[str, Any]]], ScheduleFigures],
    ) -> None:
        self._simulating = False
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self._start(*waiting)
        if generation != self._generation:
            return  # an edit came after this request: its own result is on the way
        self.sim_state.setText("")
        trajectories, self.figures = result
        self.figures_label.setText(figures_text(self.figures))
        self._draw(request, trajectories)

    def _simulation_failed(self, message: str) -> None:
        self._simulating = False
        self.sim_state.setText(f"Simulation failed: {message}")
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            self._start(*waiting)

    def _draw(
        self, request: tuple[str, dict[str, Any], float], result: dict[str, list[dict[str, Any]]]
    ) -> None:
        self.trajectories = result
        for label, curve in self.curves.items():
            rows = result.get(label, [])
            days = np.array([row["day"] for row in rows], dtype=float)
            interval = np.array([row["interval_after_days"] for row in rows], dtype=float)
            few = len(rows) <= MARKED_FETCHES  # a mark per fetch while they stay apart
            curve.setData(
                days,
                np.maximum(interval, FLOOR_DAYS),
                symbol="o" if few else None,
                symbolSize=5,
                symbolPen=None,
                symbolBrush=curve.opts["pen"].color(),
            )
        for line in self.bound_lines:
            self.plot.removeItem(line)
        self.bound_lines = []
        name, params, _ = request
        schedule = make_schedule(name, **params)
        low, high = schedule.bounds("")
        for value, text in ((low, "min"), (high, "max")):
            if value is not None and value > 1.0:
                line = pg.InfiniteLine(
                    pos=math.log10(max(value / DAY, FLOOR_DAYS)),
                    angle=0,
                    pen=pg.mkPen(BOUND, style=Qt.PenStyle.DashLine),
                    label=text,
                    labelOpts={"position": 0.03, "color": BOUND},
                )
                self.plot.addItem(line)
                self.bound_lines.append(line)

    # -- saving ----------------------------------------------------------------------------

    def apply(self) -> None:
        """Save the schedule on the store thread, then tell the other panels; another
        signature is then switched to by the re-signing job (the pages' signatures
        recomputed, the choice saved with the first batch of them)."""
        if self.problem is not None or self.re_signing.busy:
            return
        name, assignments, signature = self._current()
        switch = self.saved is None or signature != self.saved[2]
        self._saving = True
        self.apply_button.setEnabled(False)

        schedule = self.context.services.schedule

        def save() -> tuple[int, tuple[str, dict[str, Any], str]]:
            return schedule.replace(name, assignments).replanned.moved, _load()

        def saved(answer: tuple[int, tuple[str, dict[str, Any], str]]) -> None:
            self._replanned, result = answer  # said by _applied
            if switch:
                self.re_signing.start(signature)  # _re_signed() ends the apply
            else:
                self._applied(result)

        self.context.jobs.submit(save, saved, self._apply_failed)

    def _re_signed(self, _state: object) -> None:
        self.context.jobs.submit(_load, self._applied, self._apply_failed)

    def _applied(self, result: tuple[str, dict[str, Any], str]) -> None:
        self._saving = False
        self._loaded(result)
        moved = self._replanned
        replanned = (
            f"; re-planned {moved:,} known page{'' if moved == 1 else 's'} (next fetch moved "
            "within the new bounds)"
            if moved
            else ""
        )
        self.context.changes.sig_status.emit(
            f"Saved the {result[0]} schedule with {result[2]} signatures{replanned}"
        )
        self.context.changes.sig_policy.emit()

    def _apply_failed(self, message: str) -> None:
        self._saving = False
        self._edited()
        self.problem_label.setText(f"Could not save: {message}")
        self.problem_label.setVisible(True)
