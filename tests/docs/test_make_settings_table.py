"""docs/settings.md is made from the settings schema, and a stale one fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from recrawl.core.config import SETTINGS, STORABLE

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "make_settings_table.py"


def test_the_settings_table_is_what_the_schema_makes():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, (
        f"{done.stderr}docs/settings.md is stale: run `make docs` (or {SCRIPT.name})"
    )


def test_every_setting_has_a_row_with_its_facts():
    table = (SCRIPT.parent / "settings.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].strip("| `"): line for line in table.splitlines() if "| `" in line}
    assert list(rows) == list(SETTINGS)
    delay = rows["politeness.delay"].split(" | ")
    assert delay[1:7] == ["duration", "`1s`", "s", "≥ 0s", "yes", "`--delay`"]
    assert rows["project.schedule"].split(" | ")[5] == "`recrawl schedule`"
    assert all(rows[name].split(" | ")[5] == "yes" for name in STORABLE)


def test_a_changed_setting_makes_the_table_stale(tmp_path):
    # the check compares the whole file: one changed cell is enough to fail
    stale = tmp_path / "settings.md"
    text = (SCRIPT.parent / "settings.md").read_text(encoding="utf-8")
    stale.write_text(text.replace("`1s`", "`2s`", 1), encoding="utf-8")
    code = (
        "import runpy, sys, pathlib;"
        f"g = runpy.run_path({str(SCRIPT)!r});"
        f"g['main'].__globals__['TABLE'] = pathlib.Path({str(stale)!r});"
        "sys.exit(g['main'](['--check']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "settings.md is stale" in done.stderr, done.stderr
