"""``recrawl gui [DIR] [--watch] [--hidden]`` hands its choices to the desktop app."""

from __future__ import annotations

from recrawl.core.cli import main


class RecordingApp:
    """The app as the command line sees it (``recrawl.core.cli.App``): what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str | None, bool, bool]] = []

    def open(self, project_dir: str | None, *, watch: bool = False, hidden: bool = False) -> int:
        self.calls.append((project_dir, watch, hidden))
        return 0

    def self_test(self) -> int:
        return 0


def test_gui_passes_the_folder_watch_and_hidden():
    app = RecordingApp()
    assert main(["gui", "/some/project", "--watch", "--hidden"], app=app) == 0
    assert main(["gui", "--watch"], app=app) == 0
    assert main([], app=app) == 0
    assert app.calls == [("/some/project", True, True), (None, True, False), (None, False, False)]


def test_gui_help_names_the_options(capsys):
    try:
        main(["gui", "--help"], app=RecordingApp())
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert "--watch" in out and "--hidden" in out and "system tray" in out
