"""File → Export WACZ…: the dialog, the export on its thread with a progress dialog, the
outcome; Cancel leaves no file (the package itself: tests/core/archive/wacz/test_wacz.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

from PySide6.QtWidgets import QDialogButtonBox, QMessageBox, QPushButton
from recrawl.core.archive.wacz import ALL, LATEST
from recrawl.core.engine import inject
from recrawl.gui.jobs import long_jobs

from tests.support.crawling import DAY, T0, clock_at, crawl


def crawled(project, server) -> None:
    server.html("/", "<html><head><title>Home</title></head><body><a href='/a'>a</a></body></html>")
    server.html("/a", "<html><body><p>A page.</p></body></html>")
    inject([server.url("/")], T0)
    for n in range(2):
        crawl(project, clock=clock_at(n * 31 * DAY))


def open_dialog(qtbot, window):
    window.export_action.trigger()
    export = window.wacz_export
    qtbot.waitUntil(lambda: export.dialog is not None and export.dialog.isVisible())
    return export, export.dialog


def test_export_through_the_menu(qtbot, window, project, server, tmp_path):
    crawled(project, server)
    export, dialog = open_dialog(qtbot, window)
    out = tmp_path / "out"  # the dialog adds .wacz
    dialog.path.setText(str(out))
    dialog.every.setChecked(True)
    assert dialog.options().pages == ALL and dialog.options().site is None
    seen = []
    export.job.sig_progress.connect(seen.append)
    with qtbot.waitSignal(export.job.sig_idle):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        assert export.progress is not None and export.progress.isVisible()
    # (the progress dialog's setValue handles events: reports may nest, so not in order)
    assert seen and max(p.done for p in seen) == seen[0].total > 0
    wacz = tmp_path / "out.wacz"
    assert export.progress is None  # closed once done
    qtbot.waitUntil(lambda: export.message is not None and export.message.isVisible())
    text = export.message.text()
    assert text.startswith(f"Exported 4 captures to {wacz}: ")
    assert " KB. Its list of pages has 4 entries." in text
    assert "Exported" in window.statusBar().currentMessage()
    result = subprocess.run(
        [str(Path(sys.executable).parent / "wacz"), "validate", "-f", str(wacz)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout
    with zipfile.ZipFile(wacz) as zf:
        pages = [json.loads(line) for line in zf.read("pages/pages.jsonl").splitlines()]
    assert len(pages) == 1 + 4  # the header, then two pages at two crawls each
    export.message.close()


def test_the_dialog_takes_site_since_and_latest(qtbot, window, tmp_path):
    _, dialog = open_dialog(qtbot, window)
    assert dialog.latest.isChecked() and dialog.options().pages == LATEST
    assert dialog.options().since is None and not dialog.since.isEnabled()
    dialog.site.setText(" example.org ")
    dialog.since_box.setChecked(True)
    assert dialog.since.isEnabled()
    options = dialog.options()
    assert options.site == "example.org" and options.since is not None
    dialog.path.setText("")
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    dialog.reject()


def test_an_export_that_fails_says_why(qtbot, window, project, server, tmp_path):
    crawled(project, server)
    export, dialog = open_dialog(qtbot, window)
    dialog.path.setText(str(tmp_path / "out.wacz"))
    dialog.site.setText("nowhere.example")
    with qtbot.waitSignal(export.job.sig_idle):
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: export.message is not None and export.message.isVisible())
    assert export.message.icon() == QMessageBox.Icon.Warning
    assert "nothing to export: no captures of site nowhere.example" in export.message.text()
    assert not (tmp_path / "out.wacz").exists()
    export.message.close()


def test_cancel_leaves_no_file(qtbot, window, project, server, tmp_path, monkeypatch):
    crawled(project, server)
    out = tmp_path / "out.wacz"
    out.write_bytes(b"an earlier export")
    # the real export, held at its first report until Cancel has been clicked: the
    # click then lands in the middle of the copy, whatever the machine's speed
    clicked = threading.Event()
    real = long_jobs.export_wacz

    def held(project_dir, path, options, *, progress, stop):
        def report(value) -> None:
            progress(value)
            clicked.wait(30)

        return real(project_dir, path, options, progress=report, stop=stop)

    monkeypatch.setattr(long_jobs, "export_wacz", held)
    export, dialog = open_dialog(qtbot, window)
    dialog.path.setText(str(out))
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    with qtbot.waitSignal(export.job.sig_idle):
        qtbot.waitUntil(lambda: export.progress is not None and export.progress.isVisible())
        (cancel,) = export.progress.findChildren(QPushButton)
        assert cancel.text() == "Cancel"
        cancel.click()
        clicked.set()
    assert export.progress is None and export.message is None
    assert window.statusBar().currentMessage() == "Export cancelled: no file was written"
    assert out.read_bytes() == b"an earlier export"
    assert list(tmp_path.glob("*.part")) == []
