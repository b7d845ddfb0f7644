"""core/ must import and work without Qt (napari's rule): the GUI is a skin."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import core

ROOT = Path(__file__).resolve().parents[2]


def test_core_never_imports_qt():
    modules = [f"core.{m.name}" for m in pkgutil.iter_modules(core.__path__)]
    script = (
        "import sys\n"
        "for name in ('PySide6', 'pyqtgraph', 'shiboken6'):\n"
        "    sys.modules[name] = None  # any import of Qt now fails\n"
        f"for module in {modules!r}:\n"
        "    __import__(module)\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) and sys.modules[m] for m in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert len(modules) > 10
