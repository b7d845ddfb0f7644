"""core/ must import and work without Qt (napari's rule): the GUI is a skin.

import-linter (``make test``) checks the layers statically; this runs every module of
``recrawl.core`` with Qt made unimportable, which also catches an import done lazily.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import recrawl.core


def test_core_never_imports_qt(tmp_path):
    modules = [m.name for m in pkgutil.walk_packages(recrawl.core.__path__, prefix="recrawl.core.")]
    script = (
        "import sys\n"
        "for name in ('PySide6', 'pyqtgraph', 'shiboken6'):\n"
        "    sys.modules[name] = None  # any import of Qt now fails\n"
        f"for module in {modules!r}:\n"
        "    __import__(module)\n"
        "assert not any(m.startswith(('PySide6', 'pyqtgraph')) and sys.modules[m] for m in sys.modules)\n"
        "assert not any(m.startswith('recrawl.gui') for m in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert len(modules) > 40
    assert "recrawl.core.engine.crawl" in modules and "recrawl.core.store.models" in modules


def test_the_app_replays_and_stops_without_the_command_line(tmp_path):
    """The GUI and the command line are front ends beside each other: the replay server
    and the stop signals the app uses come from the engine, and load neither the command
    line nor, in the app's process, pywb and gevent (gevent would patch the app)."""
    script = (
        "import sys\n"
        "import recrawl.gui.replay, recrawl.gui.stop_signals\n"
        "from recrawl.core.replay.server import ReplayServer\n"
        "from recrawl.core.interrupts import StopSignals\n"
        "loaded = [m for m in sys.modules if m.startswith('recrawl.core.cli')\n"
        "          or m.split('.')[0] in ('pywb', 'gevent')]\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
