"""The Change rules editor's tables: the project's rules, and a preview's examples."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from recrawl.core.engine.change_preview import PreviewExample
from recrawl.core.policy.change_rules import ChangeRule
from recrawl.gui.changes.rule_text import rule_summary
from recrawl.gui.common import formatting
from recrawl.gui.common.table_model import Column, TableModel

#: A verdict's colour: changed as the What's new panel shows it, unchanged in grey.
VERDICT_COLORS = {"changed": QBrush(QColor("#1565c0")), "unchanged": QBrush(QColor("#6b7780"))}


class RulesModel(TableModel[ChangeRule]):
    """The project's change rules, by prefix."""

    COLUMNS = (
        Column("Prefix", tip="The URLs it applies to (the longest matching prefix wins)"),
        Column("What counts as a change"),
        Column("Notify", tip="Whether its pages' news goes to the notification services"),
    )

    def row_of(self, prefix: str) -> int | None:
        return next((n for n, rule in enumerate(self._rows) if rule.prefix == prefix), None)

    def cell(self, rule: ChangeRule, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (rule.prefix, rule_summary(rule), "yes" if rule.notify else "no")[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 1:
            return rule_tip(rule)
        return None


def rule_tip(rule: ChangeRule) -> str:
    lines = [f"{name}: {value}" for name, values in _parts(rule) for value in values]
    return "\n".join(lines) or "No selector or pattern: pages are judged as without a rule"


def _parts(rule: ChangeRule) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (("only", rule.only), ("remove", rule.remove), ("ignore", rule.ignore))


class ExamplesModel(TableModel[PreviewExample]):
    """Past fetches a previewed rule would have judged otherwise, newest first."""

    COLUMNS = (
        Column("Page"),
        Column("Fetched", tip="Local time; compared with the capture before it"),
        Column("Was", tip="What the project's rules said then"),
        Column("Would be", tip="What the rule in the form says"),
    )

    def cell(self, example: PreviewExample, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                example.url,
                formatting.local_time(example.at, seconds=True),
                example.was,
                example.would_be,
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 0:
                return f"{example.url}\nDouble-click: what changed between the two captures"
            if column == 1:
                before = formatting.local_time(example.before, seconds=True)
                return f"Compared with the capture of {before} (local time)"
        if role == Qt.ItemDataRole.ForegroundRole and column in (2, 3):
            return VERDICT_COLORS.get(example.was if column == 2 else example.would_be)
        return None
