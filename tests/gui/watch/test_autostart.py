"""Start watching at login: the XDG autostart entry, written and removed."""

from __future__ import annotations

import configparser
import sys

from recrawl.gui.watch import autostart


def test_enable_writes_an_entry_that_runs_the_app_watching_hidden(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    project = tmp_path / "my project $HOME 100%"
    project.mkdir()
    path = autostart.enable(project, env)
    assert path == tmp_path / "config" / "autostart" / "recrawl.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(path, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application"
    args = autostart.parse_exec(section["Exec"])
    assert args == [sys.executable, "-m", "recrawl", "gui", str(project), "--watch", "--hidden"]
    assert "%%" in section["Exec"]  # a field code otherwise
    assert autostart.is_enabled_for(project, env)
    assert not autostart.is_enabled_for(tmp_path, env)


def test_disable_removes_it_and_another_project_replaces_it(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    first, second = tmp_path / "a", tmp_path / "b"
    autostart.enable(first, env)
    autostart.enable(second, env)
    assert autostart.enabled_project(env) == second
    autostart.disable(env)
    assert not autostart.entry_path(env).exists()
    assert autostart.enabled_project(env) is None
    autostart.disable(env)  # nothing to remove: no error


def test_without_xdg_config_home_the_entry_is_under_dot_config(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert autostart.entry_path({}) == tmp_path / ".config" / "autostart" / "recrawl.desktop"
