"""Editors can follow the code: Jedi and Pyright, the engines behind most Python editors,
resolve ``recrawl.core…`` imports in a plain checkout with the README's set-up.

The folders are ``core/``, ``gui/`` and ``resources/``, the imports say ``recrawl.core…``:
``recrawl/core``, ``recrawl/gui`` and ``recrawl/resources`` are links to them, so the
package exists in the checkout as it is installed, and the editable install is a path entry
(a .pth naming the checkout's root) that static tools read, not an import hook they cannot
run. Both engines are real here (the test extra installs them), run as an editor runs them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jedi
import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
#: ``from recrawl.core.a.b import Name``: the first name of such a line
IMPORT = re.compile(r"^from (recrawl\.core(?:\.\w+)+) import \(?\s*(\w+)", re.MULTILINE)


def first_core_import(tree: str) -> tuple[Path, int, int, str]:
    """The first ``from recrawl.core… import Name`` under ``tree`` (by path, for a choice
    that files moving about do not break): its file, line, column and name."""
    for path in sorted((ROOT / tree).rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if (found := IMPORT.search(text)) is not None:
            at = found.start(2)
            return path, text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1), found[2]
    raise AssertionError(f"no import of recrawl.core under {tree}/")


def definitions(project: jedi.Project, path: Path, line: int, column: int) -> list[Path]:
    script = jedi.Script(path=path, project=project)
    names = script.goto(line, column, follow_imports=True)
    return [Path(name.module_path).resolve() for name in names if name.module_path is not None]


@pytest.mark.parametrize("tree", ["core", "gui", "tests"])
def test_jedi_goes_to_an_engine_definition_from_the_checkout(tree):
    """A Jedi-based editor (jedi-language-server, VS Code's Jedi mode, Emacs, vim) opened on
    the checkout, with the venv ``make test`` sets up as its environment."""
    path, line, column, name = first_core_import(tree)
    project = jedi.Project(ROOT, environment_path=sys.prefix)
    found = definitions(project, path, line, column)
    assert found, f"Jedi found no definition of {name} ({path.relative_to(ROOT)}:{line})"
    assert all(place.is_relative_to(CORE) for place in found), found


def test_jedi_goes_to_the_named_example():
    """The issue's own example, where it still stands: round.py's SegmentWriter."""
    path = CORE / "engine" / "round.py"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    wanted = "from recrawl.core.archive.segment_writer import SegmentWriter"
    if wanted not in text:
        pytest.skip("core/engine/round.py no longer imports SegmentWriter")
    before, _, _ = text.partition(wanted)
    line = before.count("\n") + 1
    project = jedi.Project(ROOT, environment_path=sys.prefix)
    found = definitions(project, path, line, wanted.index("SegmentWriter"))
    assert found == [CORE / "archive" / "segment_writer.py"]


def test_jedi_follows_the_editable_install_from_anywhere(tmp_path):
    """An editor opened on another folder (a project folder, a scratch file) still
    follows the engine through the venv alone: the editable install is a path Jedi reads
    from the environment's sys.path, not a finder that only runs at import time."""
    path, line, column, name = first_core_import("core")
    project = jedi.Project(tmp_path, environment_path=sys.prefix)
    found = definitions(project, path, line, column)
    assert found and all(place.is_relative_to(CORE) for place in found), (name, found)


@pytest.mark.slow
def test_pyright_resolves_every_import():
    """basedpyright (Pyright with its own Node.js, from PyPI) over the checkout, with
    pyproject.toml's [tool.pyright]: no import it cannot follow, and each of core/ and
    gui/ analysed once (the links excluded)."""
    trees = ["recrawl", "core", "gui", "tests"]
    pyright = Path(sys.executable).with_name("basedpyright")
    done = subprocess.run(
        [pyright, "--outputjson", "--pythonpath", sys.executable, *trees],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    unresolved = [
        f"{Path(d['file']).relative_to(ROOT)}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d.get("rule") == "reportMissingImports"
    ]
    assert unresolved == []
    sources = sum(1 for tree in trees for _ in (ROOT / tree).rglob("*.py") if tree != "recrawl")
    sources += len(list((ROOT / "recrawl").glob("*.py")))
    assert report["summary"]["filesAnalyzed"] == sources
