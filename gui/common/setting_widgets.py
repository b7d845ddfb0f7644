"""Number editors fitted to a setting of the schema: its bounds, unit and help.

The Settings dialog and the Crawl panel's politeness fields edit the same settings; both
take a setting's range and tooltip from its field in :mod:`recrawl.core.config`, so a
bound changed there holds in every editor.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox
from recrawl.core.config import SETTINGS
from recrawl.core.setting_schema import SettingSpec

#: A whole number's editor goes this far unless its setting says less (QSpinBox holds a
#: C int; a large number lifts a limit).
MAX_WHOLE = 2**31 - 1


def spin_range(spec: SettingSpec, reach: float | None = None) -> tuple[float, float]:
    """An editor's range for ``spec``: its bounds, at most ``reach`` (an editor's own
    limit, where the setting has none a spin box could hold)."""
    low = 0.0 if spec.meta.min is None else float(spec.meta.min)
    if spec.meta.above_min and spec.type is int:
        low += 1  # more than min: the next whole number
    high = float(MAX_WHOLE) if spec.meta.max is None else float(spec.meta.max)
    return low, high if reach is None else min(high, reach)


def tooltip(spec: SettingSpec) -> str:
    """``politeness.delay · s · ≥ 0s``: the name a setting has in ``recrawl settings``,
    its unit and its bounds."""
    return " · ".join(part for part in (spec.name, spec.unit or "", spec.bounds_text()) if part)


def fit_to_setting(
    box: QSpinBox | QDoubleSpinBox, name: str, *, reach: float | None = None, unit: bool = False
) -> None:
    """Give ``box`` the range of setting ``name`` (at most ``reach``), its help and name as
    tooltip, and with ``unit`` its unit as suffix."""
    spec = SETTINGS[name]
    low, high = spin_range(spec, reach)
    if isinstance(box, QSpinBox):
        box.setRange(int(low), int(high))
    else:
        box.setRange(low, high)
    if unit and spec.unit:
        box.setSuffix(f" {spec.unit}")
    box.setToolTip(f"{spec.help}\n{tooltip(spec)}")


def count_suffix(box: QSpinBox, unit: str) -> None:
    """``unit`` (a plural: "connections") after ``box``'s number, singular at one: a spin
    box's suffix is fixed text, so it follows the value."""
    one = _singular(unit)
    box.valueChanged.connect(lambda value: box.setSuffix(f" {one if value == 1 else unit}"))
    box.setSuffix(f" {one if box.value() == 1 else unit}")


def _singular(unit: str) -> str:
    if unit.endswith("ies"):
        return unit[:-3] + "y"  # entries, retries
    if unit.endswith(("sses", "ches")):
        return unit[:-2]  # processes, fetches
    return unit.removesuffix("s")
