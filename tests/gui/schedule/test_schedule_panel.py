from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from recrawl.core import cli
from recrawl.core.clock import DAY
from recrawl.core.policy import choices
from recrawl.core.policy.schedules import make_schedule
from recrawl.core.policy.simulate import REFERENCE_PAGES, simulate_page
from recrawl.gui.schedule.schedule_panel import SchedulePanel


def open_panel(qtbot, window) -> SchedulePanel:
    window.show_panel("schedule")
    panel = window.panels["schedule"]
    qtbot.waitUntil(lambda: panel.saved is not None)
    qtbot.waitUntil(lambda: bool(panel.trajectories) and not panel._simulating)
    return panel


def type_into(qtbot, widget, text: str) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key.Key_Delete)
    qtbot.keyClicks(widget, text)


def wait_drawn(qtbot, panel: SchedulePanel, check) -> None:
    qtbot.waitUntil(lambda: not panel._simulating and not panel._timer.isActive() and check())


def cli_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert cli.main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_shows_the_projects_schedule_and_four_trajectories(qtbot, window):
    panel = open_panel(qtbot, window)
    assert panel.schedule_combo.currentText() == "aronsson"
    assert panel.signature_combo.currentText() == "main-text"
    assert panel.form.field("initial").edit.text() == "10.0 d"
    assert panel.form.value_of("increase") == 0.2
    assert not panel.apply_button.isEnabled()  # nothing to save yet
    assert set(panel.trajectories) == {label for label, _ in REFERENCE_PAGES}
    assert all(len(curve.yData) for curve in panel.curves.values())
    # the hourly page settles at one hour (DESIGN §4)
    assert panel.curves["changes hourly"].yData[-1] * DAY == pytest.approx(3600, rel=1e-3)


def test_a_parameter_edit_redraws_what_simulate_page_gives(qtbot, window):
    panel = open_panel(qtbot, window)
    before = {label: list(curve.yData) for label, curve in panel.curves.items()}
    type_into(qtbot, panel.form.field("constant").edit, "2h")
    spin = panel.form.field("decrease")
    type_into(qtbot, spin, "0.4")
    wait_drawn(qtbot, panel, lambda: panel.form.value_of("decrease") == 0.4)
    expected = simulate_page(
        make_schedule("aronsson", constant=7200.0, decrease=0.4),
        change_every=3600,
        until=panel.horizon.value() * DAY,
    )
    hourly = panel.curves["changes hourly"]
    assert hourly.yData[-1] == expected[-1]["interval_after_days"]
    assert list(hourly.xData) == [row["day"] for row in expected]
    for label, curve in panel.curves.items():
        assert list(curve.yData) != before[label] or label == "never changes"
    assert len(panel.plot.getPlotItem().legend.items) == 4
    assert panel.apply_button.isEnabled()


def test_apply_persists_the_schedule(qtbot, window, project, capsys):
    panel = open_panel(qtbot, window)
    type_into(qtbot, panel.form.field("max").edit, "7d")
    type_into(qtbot, panel.form.field("increase"), "0.3")
    panel.form.hosts.setPlainText("min@example.org=1h")
    wait_drawn(qtbot, panel, lambda: panel.apply_button.isEnabled())
    with qtbot.waitSignal(window.context.changes.sig_policy):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert not panel.apply_button.isEnabled()
    assert not panel.dirty()
    described = cli_json(capsys, "schedule", str(project.path), "--json")
    assert described["name"] == "aronsson"
    assert described["max"] == 7 * DAY
    assert described["increase"] == 0.3
    assert described["hosts"] == {"example.org": {"min": 3600.0}}


def test_another_schedule_shows_its_parameters_and_saves(qtbot, window, project, capsys):
    panel = open_panel(qtbot, window)
    panel.schedule_combo.setCurrentText("nutch-adaptive")
    assert "inc_rate" in panel.form.fields and "increase" not in panel.form.fields
    assert panel.form.field("min").edit.text() == "1 min"  # Nutch's 60 s
    assert panel.form.value_of("sync_delta") is True
    panel.schedule_combo.setCurrentText("change-rate")
    assert panel.form.value_of("target") == 0.8
    assert panel.form.field("policy").currentText() == "optimal"
    panel.schedule_combo.setCurrentText("score-tiers")
    assert panel.form.field("top10").edit.text() == "7.0 d"
    panel.form.field("base").setCurrentText("fixed")
    qtbot.waitUntil(lambda: "increase" not in panel.form.fields)
    assert panel.form.field("initial").edit.text() == "30.0 d"
    wait_drawn(
        qtbot, panel, lambda: panel.trajectories["changes hourly"][-1]["interval_after_days"] == 30
    )
    with qtbot.waitSignal(window.context.changes.sig_policy):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    described = cli_json(capsys, "schedule", str(project.path), "--json")
    assert described["name"] == "score-tiers"
    assert described["base"]["name"] == "fixed"


def test_durations_read_as_elsewhere_and_what_they_show_is_what_they_take(qtbot, window):
    """A duration field shows its value as the app writes durations (issue 25): typed
    back so, or as the command line takes it, it reads; left alone, it keeps its exact
    value though the text rounds it."""
    panel = open_panel(qtbot, window)
    field = panel.form.field("initial")
    field.set_value(8685 * 60)  # 6.03 d
    assert field.edit.text() == "6.0 d" and field.meaning.text() == ""
    assert field.value() == 8685 * 60 and field.text() == "8685m"  # --param's own text
    for typed, seconds, meaning in (
        ("90 min", 5400, "= 1.5 h"), ("6d", 6 * DAY, "= 6.0 d"), ("8.0 h", 8 * 3600, ""),
        ("6.0 d", 8685 * 60, ""),  # what it showed, typed back: the value it showed
        ("12h", 12 * 3600, "= 12.0 h"),
    ):  # fmt: skip
        type_into(qtbot, field.edit, typed)
        assert field.value() == seconds and field.meaning.text() == meaning
    assert "initial=12h" in panel.form.assignments()
    wait_drawn(qtbot, panel, lambda: True)


def test_an_invalid_value_blocks_apply_with_the_reason(qtbot, window):
    panel = open_panel(qtbot, window)
    field = panel.form.field("initial")
    type_into(qtbot, field.edit, "soon")
    assert not panel.apply_button.isEnabled()
    assert panel.problem_label.isVisible()
    assert "not a duration" in panel.problem_label.text()
    assert "initial" in panel.problem_label.text()
    assert field.meaning.text() == "?"
    # a bound pair that contradicts itself is refused as well
    type_into(qtbot, field.edit, "10d")
    type_into(qtbot, panel.form.field("min").edit, "2d")
    type_into(qtbot, panel.form.field("max").edit, "1d")
    assert "min is longer than max" in panel.problem_label.text()
    assert not panel.apply_button.isEnabled()
    type_into(qtbot, panel.form.field("max").edit, "3d")
    assert not panel.problem_label.isVisible()
    assert panel.apply_button.isEnabled()
    # change-rate's own check: a freshness target of 1 cannot be reached
    panel.schedule_combo.setCurrentText("change-rate")
    type_into(qtbot, panel.form.field("target"), "1")
    assert "target must be between 0 and 1" in panel.problem_label.text()
    assert not panel.apply_button.isEnabled()
    wait_drawn(qtbot, panel, lambda: True)


def test_the_signature_choice_persists(qtbot, window, project, capsys):
    panel = open_panel(qtbot, window)
    panel.signature_combo.setCurrentText("simhash")
    assert "simhash" in panel.signature_about.text().lower()
    assert panel.apply_button.isEnabled()
    with qtbot.waitSignal(window.context.changes.sig_policy):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    wait_drawn(qtbot, panel, lambda: True)
    assert cli_json(capsys, "signature", str(project.path), "--json") == {"signature": "simhash"}
    assert choices.schedule_spec()[0] == "aronsson"  # the schedule stayed as it was


def test_revert_and_reload_from_the_store(qtbot, window):
    panel = open_panel(qtbot, window)
    type_into(qtbot, panel.form.field("constant").edit, "1h")
    assert panel.revert_button.isEnabled()
    qtbot.mouseClick(panel.revert_button, Qt.MouseButton.LeftButton)
    assert panel.form.field("constant").edit.text() == "30 min"
    assert not panel.dirty()
    wait_drawn(qtbot, panel, lambda: True)


@pytest.fixture
def crawled(project, server):
    """Three pages crawled (main-text signatures) before the window opens."""
    from recrawl.core.clock import utcnow
    from recrawl.core.engine import inject

    from tests.support.crawling import crawl

    server.html("/", '<a href="/a">a</a> <a href="/b">b</a>')
    server.html("/a", "<p>Alpha: a page of a few words.</p>")
    server.html("/b", "<p>Beta: another page.</p>")
    inject([server.url("/")], utcnow())
    crawl(project)
    return project


def test_another_signature_recomputes_the_pages_with_progress(qtbot, crawled, window, capsys):
    from recrawl.core.store.signatures import count_other_kind

    panel = open_panel(qtbot, window)
    panel.signature_combo.setCurrentText("md5")
    seen = []
    panel.re_signing.job.sig_progress.connect(lambda state: seen.append(state.done))
    with qtbot.waitSignal(panel.re_signing.sig_done) as done:
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert seen == [0, 3]  # before the first batch, after it
    state = done.args[0]
    assert (state.total, state.recomputed, state.unreadable) == (3, 3, 0)
    assert panel.re_signing.label.text() == "Recomputed 3 pages' signatures as md5."
    assert not panel.re_signing.bar.isVisible()
    qtbot.waitUntil(lambda: not panel._saving and panel.saved is not None)
    assert panel.saved[2] == "md5" and panel.signature_combo.currentText() == "md5"
    wait_drawn(qtbot, panel, lambda: True)
    assert count_other_kind("md5") == 0
    assert cli_json(capsys, "signature", str(crawled.path), "--json") == {"signature": "md5"}


def test_discovery_is_chosen_with_its_base_and_shows_its_discovery_delay(
    qtbot, window, project, capsys
):
    panel = open_panel(qtbot, window)
    # beside freshness, the delay before new pages are first seen, for any schedule
    wait_drawn(qtbot, panel, lambda: panel.figures is not None)
    assert "freshness" in panel.figures_label.text()
    assert "first seen after" in panel.figures_label.text()
    aronsson_delay = panel.figures.discovery_delay_hours

    panel.schedule_combo.setCurrentText("discovery")
    assert panel.form.value_of("budget") == 1.0
    type_into(qtbot, panel.form.field("budget"), "4")
    panel.form.field("base").setCurrentText("change-rate")
    qtbot.waitUntil(lambda: "target" in panel.form.fields)
    assert panel.form.value_of("budget") == 4.0  # kept when the base changed
    wait_drawn(
        qtbot,
        panel,
        lambda: (
            panel.figures is not None
            and panel.figures.hub_fetches_per_page_per_day > 2
            and panel.figures.discovery_delay_hours < aronsson_delay
        ),
    )
    # a page gaining a link an hour is a hub: visited far more often than a monthly one
    hourly = panel.trajectories["changes hourly"][-1]["interval_after_days"]
    monthly = panel.trajectories["changes monthly"][-1]["interval_after_days"]
    assert hourly < monthly / 5
    with qtbot.waitSignal(window.context.changes.sig_policy):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    described = cli_json(capsys, "schedule", str(project.path), "--json")
    assert described["name"] == "discovery"
    assert described["budget"] == 4.0
    assert described["base"]["name"] == "change-rate"


def test_apply_replans_the_known_pages_and_says_how_many(qtbot, crawled, window):
    """Issue 25 item 2: a schedule saved in the app reaches the pages known, as
    `recrawl schedule --param` does (the same core call)."""
    from recrawl.core.store.models import Page

    assert {p.fetch_interval for p in Page.select()} == {1.2 * 10 * DAY + 1800}
    panel = open_panel(qtbot, window)
    type_into(qtbot, panel.form.field("max").edit, "1d")
    wait_drawn(qtbot, panel, lambda: panel.apply_button.isEnabled())
    messages: list[str] = []
    window.context.changes.sig_status.connect(messages.append)
    with qtbot.waitSignal(window.context.changes.sig_policy):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert messages[-1] == (
        "Saved the aronsson schedule with main-text signatures; re-planned 3 known pages "
        "(next fetch moved within the new bounds)"
    )
    for page in Page.select():
        assert page.fetch_interval == DAY
        assert abs((page.next_fetch - page.last_fetched).total_seconds() - DAY) < 0.001
