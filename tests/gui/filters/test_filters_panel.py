"""The Filters panel: chain editor, validation, rule checker, preview, Nutch files, why."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QSettings, Qt
from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QLineEdit
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.filters import parse_chain
from recrawl.core.filters.nutch import DEFAULT_ORDER
from recrawl.core.policy import choices
from recrawl.core.store.models import PageStatus
from recrawl.gui.filters.filter_draft import ChainDraft
from recrawl.gui.filters.filter_models import RulesModel
from recrawl.gui.filters.filters_panel import FiltersPanel
from recrawl.gui.main_window import MainWindow
from recrawl.gui.pages.pages_model import PagesModel
from recrawl.gui.preferences import Preferences

from recrawl.main import main as cli_main

CONF = Path(__file__).resolve().parents[2] / "data" / "nutch-conf"
NOW = datetime(2026, 11, 1, 12, 0, 0)

# "keep" accepts (or, once marked, short-circuits) example.org; "deny" rejects it
KEEP_THEN_DENY = """
[[filter]]
kind = "regex"
name = "keep"
rules = '''
+^https://example\\.org/
'''

[[filter]]
kind = "domain-deny"
name = "deny"
rules = '''
example.org
'''
"""


@pytest.fixture
def open_panel(qtbot, project, tmp_path) -> Iterator[Callable[[], FiltersPanel]]:
    """Opens the window on ``project`` as the test left it, on the Filters panel."""
    windows: list[MainWindow] = []

    def opener() -> FiltersPanel:
        prefs = Preferences(QSettings(str(tmp_path / "p.ini"), QSettings.Format.IniFormat))
        window = MainWindow(project, prefs)
        qtbot.addWidget(window)
        windows.append(window)
        window.show()
        window.show_panel("filters")
        panel = window.panels["filters"]
        assert isinstance(panel, FiltersPanel)
        qtbot.waitUntil(lambda: panel.loaded)
        qtbot.waitUntil(lambda: panel.context.jobs.pending() == 0)
        return panel

    yield opener
    for window in windows:
        window.close()


def verdict(panel: FiltersPanel, url: str) -> tuple[str, bool, int | None, int | None]:
    found = panel.checker.verdict_of(url)
    assert found is not None, f"{url} was not checked"
    return found.word, found.shortcircuit, found.filter, found.line


def edit_rule(qtbot, panel: FiltersPanel, row: int, text: str) -> None:
    """Type a new rule text into the rules table's editor, as a user does."""
    view = panel.editor.rules_view
    index = panel.rules_model.index(row, RulesModel.RULE)
    view.setCurrentIndex(index)
    view.edit(index)
    # the delegate's editor (a closed one may linger until deleted)
    (editor,) = [e for e in view.viewport().findChildren(QLineEdit) if e.isVisible()]
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # the delegate commits on the next turn of the event loop
    qtbot.waitUntil(lambda: view.state() != QAbstractItemView.State.EditingState)


def test_an_invalid_pattern_blocks_apply_with_the_reason(qtbot, open_panel):
    panel = open_panel()
    assert [f.name for f in panel.draft.filters] == ["no-binaries", "clean-up", "scope"]
    assert not panel.apply_button.isEnabled()  # nothing edited yet
    panel.editor.select_filter(1)
    row = panel.rules_model.row_of(2)  # "-^(mailto|javascript|...):"
    assert row is not None
    edit_rule(qtbot, panel, row, "-^(mailto|javascript")
    assert not panel.apply_button.isEnabled()
    assert panel.error_label.isVisible()
    assert "filter 1 (clean-up), line 2" in panel.error_label.text()
    problem = panel.rules_model.index(row, RulesModel.PROBLEM).data()
    assert "missing )" in problem or "invalid pattern" in problem
    assert "error" in panel.chain_model.index(1).data()
    assert "fix the error" in panel.status.text()
    panel.checker.set_urls("https://example.org/")
    assert "error" in panel.checker.note.text()

    edit_rule(qtbot, panel, row, "-^(mailto|javascript|tel):")
    assert panel.validation.ok and not panel.error_label.isVisible()
    assert panel.apply_button.isEnabled()
    with qtbot.waitSignal(panel.sig_applied):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    saved = parse_chain(choices.chain_text())
    assert saved.filters[1].rules_text.split("\n")[1] == "-^(mailto|javascript|tel):"
    assert not panel.apply_button.isEnabled()  # the editor now shows the applied chain


def test_toggling_a_rules_short_circuit_changes_the_verdict(qtbot, project, open_panel):
    choices.set_chain(KEEP_THEN_DENY)
    panel = open_panel()
    url = "https://example.org/a"
    panel.checker.set_urls(url)
    assert verdict(panel, url) == ("reject", False, 1, 1)

    panel.editor.select_filter(0)
    index = panel.rules_model.index(0, RulesModel.SHORT)
    assert index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    panel.editor.rules_view.setFocus()
    panel.editor.rules_view.setCurrentIndex(index)
    qtbot.keyClick(panel.editor.rules_view, Qt.Key.Key_Space)
    assert index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert (
        panel.draft.filters[0].rules_text.split("\n")[0] == "+SHORTCIRCUIT:^https://example\\.org/"
    )
    assert verdict(panel, url) == ("accept", True, 0, 1)
    _, steps, rules = panel.checker.results[url]
    assert [s.status for s in steps] == ["ran", "skipped"]
    assert [r.outcome for r in rules[0]] == ["decided"]
    assert [r.outcome for r in rules[1]] == ["skipped"]
    # the deny rule can no longer reject what short-circuits: lint says so
    assert any("short-circuit" in w.message for w in panel.validation.warnings)
    assert panel.tabs.tabText(2).startswith("Lint (")

    qtbot.keyClick(panel.editor.rules_view, Qt.Key.Key_Space)  # and back
    assert verdict(panel, url) == ("reject", False, 1, 1)
    assert not panel.apply_button.isEnabled()  # back to the applied chain


def test_a_lint_warning_leads_to_its_rule(qtbot, project, open_panel):
    choices.set_chain(KEEP_THEN_DENY.replace("+^https", "+SHORTCIRCUIT:^https"))
    panel = open_panel()
    panel.editor.select_filter(0)
    (warning,) = panel.validation.warnings
    assert (warning.filter, warning.line) == (1, 1)
    assert panel.tabs.tabText(2) == "Lint (1)"
    assert panel.lint.count() == 1 and "short-circuit" in panel.lint.item(0).text()
    panel.tabs.setCurrentIndex(2)
    panel.lint.setCurrentRow(0)
    panel.lint.setFocus()
    qtbot.keyClick(panel.lint, Qt.Key.Key_Return)  # activates the warning
    assert panel.editor.current_filter() == 1
    assert panel.editor.name_edit.text() == "deny"
    rows = panel.editor.rules_view.selectionModel().selectedRows()
    assert [panel.rules_model.row(i.row()) for i in rows] == [(1, "example.org")]
    problem = panel.rules_model.index(0, RulesModel.PROBLEM).data()
    assert problem == warning.message


def test_reordering_and_disabling_filters_change_the_outcome(qtbot, project, open_panel):
    choices.set_chain(KEEP_THEN_DENY.replace("+^https", "+SHORTCIRCUIT:^https"))
    panel = open_panel()
    url = "https://example.org/a"
    panel.checker.set_urls(url)
    assert verdict(panel, url) == ("accept", True, 0, 1)

    panel.editor.select_filter(1)
    qtbot.mouseClick(panel.editor.up_button, Qt.MouseButton.LeftButton)
    assert [f.name for f in panel.draft.filters] == ["deny", "keep"]
    assert verdict(panel, url) == ("reject", False, 0, 1)

    # untick "deny" (now first): the short-circuit decides again, from filter 1
    panel.chain_model.setData(
        panel.chain_model.index(0), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole
    )
    assert verdict(panel, url) == ("accept", True, 1, 1)
    assert [s.status for s in panel.checker.results[url][1]] == ["disabled", "ran"]

    # drag "keep" back above "deny" (the model side of an internal move)
    model = panel.chain_model
    mime = model.mimeData([model.index(1)])
    model.dropMimeData(mime, Qt.DropAction.MoveAction, 0, 0, model.index(-1))
    assert [f.name for f in panel.draft.filters] == ["keep", "deny"]
    assert [f.enabled for f in panel.draft.filters] == [True, False]
    assert verdict(panel, url) == ("accept", True, 0, 1)


def test_preview_counts_match_the_command_line(qtbot, project, open_panel, tmp_path, capsys):
    inject(["https://example.org/", "https://example.org/a", "https://example.org/b"], NOW)
    store.record_rejected([("https://other.net/x", "scope", None)], NOW)
    panel = open_panel()

    # two edits: open the scope, and deny example.org in a new filter
    scope = [f.name for f in panel.draft.filters].index("scope")
    panel.chain_model.setData(
        panel.chain_model.index(scope), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole
    )
    kinds = [a.text() for a in panel.editor.add_filter_button.menu().actions()]
    panel.editor.add_filter_button.menu().actions()[kinds.index("domain-deny")].trigger()
    qtbot.keyClicks(panel.editor.new_rule, "example.org")
    qtbot.keyClick(panel.editor.new_rule, Qt.Key.Key_Return)
    assert panel.draft.filters[-1].rules_text == "example.org\n"

    with qtbot.waitSignal(panel.sig_previewed, timeout=30_000) as blocker:
        qtbot.mouseClick(panel.preview.button, Qt.MouseButton.LeftButton)
    result = blocker.args[0]
    assert result["known"] == 4
    assert (result["newly_rejected"], result["newly_accepted"]) == (3, 1)
    assert "3 newly rejected, 1 newly accepted" in panel.preview.label.text()
    assert panel.preview.accepted_examples.item(0).text() == "https://other.net/x"
    assert panel.preview.rejected_examples.count() == 3

    edited = tmp_path / "edited.toml"
    edited.write_text(panel.draft.to_toml(), encoding="utf-8")
    panel.window().close()  # the CLI opens the store itself: let the window go first
    capsys.readouterr()
    assert cli_main(["filter", "preview", str(project.path), str(edited), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {k: v for k, v in result.items() if k != "known"}


def test_nutch_import_fills_the_editor_and_export_writes_files(
    qtbot, open_panel, monkeypatch, tmp_path
):
    panel = open_panel()
    out = tmp_path / "exported"
    answers = iter([str(CONF), str(out)])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: next(answers))
    with qtbot.waitSignal(panel.sig_validated):
        qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)
    assert [f.kind for f in panel.draft.filters] == list(DEFAULT_ORDER)
    assert panel.chain_model.rowCount() == len(DEFAULT_ORDER)
    assert panel.rules_model.flt is panel.draft.filters[0]
    assert panel.validation.ok and panel.apply_button.isEnabled()  # not applied yet
    assert any(w.message.startswith("slow and unsafe") for w in panel.validation.warnings)
    panel.checker.set_urls("http://example.com/photo.GIF")
    assert verdict(panel, "http://example.com/photo.GIF")[:3] == ("reject", False, 0)
    assert parse_chain(choices.chain_text()).filters[0].name == "no-binaries"  # unchanged

    qtbot.mouseClick(panel.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: (out / "suffix-urlfilter.txt").is_file())
    qtbot.waitUntil(lambda: panel.context.jobs.pending() == 0)
    assert (out / "regex-urlfilter.txt").read_text(encoding="utf-8") == (
        CONF / "regex-urlfilter.txt.template"
    ).read_text(encoding="utf-8")


def test_why_not_crawled_names_the_filter_and_line(qtbot, project, open_panel):
    url = "https://example.org/s?sid=3"
    inject(["https://example.org/", url], NOW)  # the session id is rejected, and recorded
    (link,) = store.rejected_links()
    expected = choices.project_chain().check(url)
    assert (link.filter, link.line) == ("clean-up", expected.line)
    panel = open_panel()
    qtbot.waitUntil(lambda: panel.why.model.rowCount() == 1)
    panel.tabs.setCurrentIndex(3)

    qtbot.keyClicks(panel.why.edit, url)
    qtbot.keyClick(panel.why.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Rejected by filter" in panel.why.answer.text())  # a store lookup
    answer = panel.why.answer.text()
    assert f"Rejected by filter “clean-up”, line {expected.line}" in answer
    rule = panel.saved.filters[1].lines()[expected.line - 1].strip()
    assert rule.replace("&", "&amp;").replace("<", "&lt;") in answer
    assert f"reject by filter 1 (clean-up), line {expected.line}" in answer
    assert panel.checker.verdict_of(url) is not None  # the checker shows every rule too

    panel.why.edit.clear()
    panel.why.answer.clear()
    qtbot.waitUntil(lambda: panel.why.model.rowCount() == 1)  # the list, unfiltered
    panel.why.view.selectRow(0)
    qtbot.waitUntil(lambda: "clean-up" in panel.why.answer.text())

    panel.why.edit.setText("https://example.org/never-seen")
    qtbot.keyClick(panel.why.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Not in the rejected-links record" in panel.why.answer.text())
    # the list follows what is typed, in SQL
    qtbot.waitUntil(lambda: panel.why.model.rowCount() == 0)
    panel.why.edit.setText("SID=")
    qtbot.waitUntil(lambda: panel.why.model.rowCount() == 1)


def test_a_new_project_shows_what_to_do(qtbot, open_panel, qtmodeltester):
    panel = open_panel()
    assert "No link has been turned away yet" in panel.why.answer.text()
    panel.chain_model.setData(
        panel.chain_model.index(0), Qt.CheckState.Unchecked, Qt.ItemDataRole.CheckStateRole
    )
    with qtbot.waitSignal(panel.sig_previewed, timeout=30_000):
        pass  # the preview runs by itself once the typing pauses
    assert "knows no URLs yet" in panel.preview.label.text()
    qtmodeltester.check(panel.chain_model)
    qtmodeltester.check(panel.rules_model)
    qtmodeltester.check(panel.why.model)


def test_the_editor_follows_a_chain_changed_elsewhere_unless_edited(qtbot, open_panel):
    panel = open_panel()
    panel.editor.select_filter(2)
    choices.add_scope_hosts(["example.org"])  # what inject does from the Crawl panel
    with qtbot.waitSignal(panel.sig_loaded):
        panel.context.changes.sig_policy.emit()
    assert panel.draft.filters[2].rules_text.strip() == "example.org"
    assert panel.editor.current_filter() == 2 and panel.rules_model.rowCount() == 1
    assert not panel.dirty

    # an edit in progress is not thrown away by a change elsewhere
    qtbot.keyClicks(panel.editor.new_rule, "example.net")
    qtbot.keyClick(panel.editor.new_rule, Qt.Key.Key_Return)
    choices.add_scope_hosts(["example.com"])
    panel.context.changes.sig_policy.emit()
    qtbot.waitUntil(lambda: panel.context.jobs.pending() == 0)
    assert panel.draft.filters[2].rules_text.split() == ["example.org", "example.net"]
    qtbot.mouseClick(panel.revert_button, Qt.MouseButton.LeftButton)
    assert panel.draft.filters[2].rules_text.split() == ["example.org"]


def test_apply_refuses_to_undo_a_chain_that_changed_meanwhile(qtbot, open_panel):
    panel = open_panel()
    panel.editor.select_filter(1)
    row = panel.rules_model.row_of(2)
    edit_rule(qtbot, panel, row, "-^(mailto|javascript|tel):")
    assert panel.apply_button.isEnabled()
    # meanwhile new seeds add their host to the scope filter (as the Crawl panel does)
    inject(["https://new-site.example/"], utcnow())
    with qtbot.waitSignal(panel.context.jobs.sig_failed):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert "changed since it was loaded" in panel.status.text()
    assert "new-site.example" in choices.chain_text()  # the seed's host is still in scope


NO_OLD = """[[filter]]
kind = "regex"
name = "no-old"
rules = '''
-/old/
+.
'''

"""


def test_apply_filters_known_pages_with_progress_and_why_answers(qtbot, project, open_panel):
    old = ["https://example.org/old/1", "https://example.org/old/2"]
    inject(["https://example.org/", "https://example.org/keep", *old], NOW)
    before = choices.chain_text()
    panel = open_panel()
    messages: list[str] = []
    progress: list[tuple[int, int]] = []
    panel.context.changes.sig_status.connect(messages.append)
    panel.sig_apply_progress.connect(lambda *p: progress.append(p))

    with qtbot.waitSignal(panel.sig_previewed, timeout=30_000) as blocker:
        panel.set_draft(ChainDraft.from_toml(NO_OLD + before))
    assert (blocker.args[0]["newly_filtered"], blocker.args[0]["coming_back"]) == (2, 0)
    assert "2 known pages will be filtered: no longer fetched." in panel.preview.label.text()

    with qtbot.waitSignal(panel.sig_applied, timeout=30_000):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert progress[0] == (0, 4) and progress[-1] == (4, 4)
    assert not panel.apply_progress.isVisible() and not panel.applying
    assert messages[-1] == (
        "Filter chain applied: 4 filters; 2 known pages filtered (no longer fetched)"
    )
    assert [row["url"] for row in store.list_pages(PageStatus.FILTERED)] == old

    # the Pages panel lists them as filtered, never due
    window = panel.window()
    window.show_panel("pages")
    pages = window.panels["pages"]
    qtbot.waitUntil(lambda: pages.model.row_of(old[0]) is not None)
    row = pages.model.row_of(old[0])
    assert pages.model.index(row, PagesModel.columns.index("status")).data() == "filtered out"
    assert pages.model.index(row, PagesModel.columns.index("next_fetch")).data() == "never"
    window.show_panel("filters")

    panel.tabs.setCurrentIndex(3)
    panel.why.edit.setText(old[0])
    qtbot.keyClick(panel.why.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Filtered by" in panel.why.answer.text())
    assert (
        "Filtered by no-old (filter 0), line 1: -/old/, since the chain applied "
        in panel.why.answer.text()
    )

    # the chain before: they come back, due now
    with qtbot.waitSignal(panel.sig_previewed, timeout=30_000):
        panel.set_draft(ChainDraft.from_toml(before))
    assert "2 filtered pages come back, due now." in panel.preview.label.text()
    with qtbot.waitSignal(panel.sig_applied, timeout=30_000):
        qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    assert messages[-1].endswith("; 2 known pages back (due now)")
    assert list(store.list_pages(PageStatus.FILTERED)) == []
    assert {row["status"] for row in store.list_pages()} == {PageStatus.UNFETCHED}


# a regex filter whose rules' order decides: line 1 accepts example.org, line 2 rejects
# its private pages (never reached while line 1 comes first)
ORDERED = """
[[filter]]
kind = "regex"
name = "ordered"
rules = '''
+^https://example\\.org/

-/private/
# everything else goes on
+.
'''
"""


def rule_texts(panel: FiltersPanel) -> list[str]:
    return [text for _, text in panel.rules_model._rows]


def test_rules_move_by_buttons_shortcuts_and_drag(qtbot, project, open_panel, qtmodeltester):
    choices.set_chain(ORDERED)
    panel = open_panel()
    url = "https://example.org/private/a"
    panel.checker.set_urls(url)
    assert verdict(panel, url) == ("accept", False, None, None)
    editor = panel.editor
    editor.select_filter(0)
    view = editor.rules_view

    # Up: "-/private/" (row 1, line 3) now runs first, on line 1; the blank line 2 stays
    view.selectRow(1)
    qtbot.mouseClick(editor.rule_up_button, Qt.MouseButton.LeftButton)
    assert panel.draft.filters[0].rules_text == (
        "-/private/\n\n+^https://example\\.org/\n# everything else goes on\n+.\n"
    )
    assert [r.row() for r in view.selectionModel().selectedRows()] == [0]  # it follows
    assert panel.rules_model.index(0, RulesModel.LINE).data() == 1
    assert verdict(panel, url) == ("reject", False, 0, 1)

    # Alt+Down in the table: back below
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert rule_texts(panel)[:2] == ["+^https://example\\.org/", "-/private/"]
    assert [r.row() for r in view.selectionModel().selectedRows()] == [1]
    assert verdict(panel, url) == ("accept", False, None, None)

    # drag "+." (row 3) onto the first rule, as the table's internal move does: the view
    # asks the model for the dragged row's data and drops it on the row under the mouse
    model = panel.rules_model
    assert view.dragDropMode() == QAbstractItemView.DragDropMode.InternalMove
    assert model.flags(model.index(3, RulesModel.RULE)) & Qt.ItemFlag.ItemIsDragEnabled
    mime = model.mimeData([model.index(3, c) for c in range(4)])
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, model.index(0, 2))
    model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, model.index(0, 2))
    assert rule_texts(panel) == [
        "+.",
        "+^https://example\\.org/",
        "-/private/",
        "# everything else goes on",
    ]
    assert verdict(panel, url) == ("accept", False, None, None)
    assert any("matches every URL first" in w.message for w in panel.validation.warnings)
    # and between rows: "-/private/" dropped above the first row
    mime = model.mimeData([model.index(2, RulesModel.RULE)])
    model.dropMimeData(mime, Qt.DropAction.MoveAction, 0, 0, QModelIndex())
    assert rule_texts(panel)[:2] == ["-/private/", "+."]
    assert verdict(panel, url) == ("reject", False, 0, 1)
    assert panel.apply_button.isEnabled()
    qtmodeltester.check(model)


def test_a_new_rule_goes_before_a_trailing_catch_all(qtbot, project, open_panel):
    panel = open_panel()  # the default chain: clean-up ends "# everything else goes on", "+."
    editor = panel.editor
    editor.select_filter(1)
    flt = panel.draft.filters[1]
    catch_all = flt.lines().index("+.") + 1
    url = "https://example.org/private/a"
    panel.checker.set_urls(url)
    assert verdict(panel, url) == ("accept", False, None, None)

    qtbot.keyClicks(editor.new_rule, "-/private/")
    qtbot.keyClick(editor.new_rule, Qt.Key.Key_Return)
    lines = flt.lines()
    assert lines[catch_all - 2 : catch_all + 1] == ["-/private/", "# everything else goes on", "+."]
    (selected,) = editor.rules_view.selectionModel().selectedRows()
    assert panel.rules_model.row(selected.row()) == (catch_all - 1, "-/private/")
    assert verdict(panel, url) == ("reject", False, 1, catch_all - 1)
    assert not any("never decides" in w.message for w in panel.validation.warnings)

    # a filter without a trailing catch-all gets it at its end, as before
    editor.select_filter(2)
    qtbot.keyClicks(editor.new_rule, "example.org")
    qtbot.keyClick(editor.new_rule, Qt.Key.Key_Return)
    assert panel.draft.filters[2].rules_text.strip() == "example.org"


BYPASS = """
[[filter]]
kind = "regex"
name = "documents"
rules = '''
+SHORTCIRCUIT:\\.pdf$
+.
'''

[[filter]]
kind = "domain"
name = "scope"
rules = '''
example.org
'''
"""


def test_the_lint_tab_warns_of_a_short_circuit_that_bypasses_the_scope(qtbot, project, open_panel):
    choices.set_chain(BYPASS)
    panel = open_panel()
    off_site = "https://elsewhere.net/report.pdf"
    panel.checker.set_urls(off_site)
    assert verdict(panel, off_site) == ("accept", True, 0, 1)  # the scope never asked
    assert panel.tabs.tabText(2) == "Lint (1)"
    text = panel.lint.item(0).text()
    assert text.startswith(
        "filter 0 (documents), line 1: short-circuit rule '\\.pdf$' accepts URLs before "
        "the scope filter: the chain's scope can be bypassed"
    )
    panel.editor.select_filter(0)
    problem = panel.rules_model.index(0, RulesModel.PROBLEM).data()
    assert "the chain's scope can be bypassed" in problem

    # the filter moved after the scope: the scope rejects off-site PDFs, lint is quiet
    qtbot.mouseClick(panel.editor.down_button, Qt.MouseButton.LeftButton)
    assert [f.name for f in panel.draft.filters] == ["scope", "documents"]
    assert verdict(panel, off_site) == ("reject", False, 0, None)
    assert panel.lint.count() == 1 and panel.lint.item(0).text().startswith("No warnings")
