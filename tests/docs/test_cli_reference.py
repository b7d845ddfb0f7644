"""docs/cli.md is what docs/make_cli_reference.py makes of the parser today.

The reference is generated, so it can only go stale: a changed option or help line
without `make docs` fails here, with the command that mends it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_cli_reference", DOCS / "make_cli_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current():
    written = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert written == _generator().render(), "docs/cli.md is stale: run `make docs`"


def test_reference_has_every_command_and_option():
    from recrawl.core.cli.parser import LISTED

    text = _generator().render()
    for name in ["gui", *LISTED]:
        assert f"\n## recrawl {name}\n" in text
    crawl = text.split("\n## recrawl crawl\n")[1].split("\n## ")[0]
    for option in ("--rounds N", "--max-pages N", "--ignore-robots", "--now ISO", "--json"):
        assert f"`{option}`" in crawl
    assert "\n## recrawl filter check\n" in text


def test_output_does_not_depend_on_the_terminal(tmp_path):
    # argparse wraps at $COLUMNS; the reference must not
    script = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(DOCS / 'make_cli_reference.py')!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "sys.stdout.write(m.render())\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"COLUMNS": columns, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for columns in ("40", "250")
    }
    assert len(outputs) == 1


def test_check_mode_says_what_to_run(tmp_path, monkeypatch):
    module = _generator()
    stale = tmp_path / "cli.md"
    stale.write_text("old\n", encoding="utf-8")
    monkeypatch.setattr(module, "TARGET", stale)
    assert module.main(["--check"]) == 1
    module.main([])
    assert module.main(["--check"]) == 0
    assert stale.read_text(encoding="utf-8") == module.render()
