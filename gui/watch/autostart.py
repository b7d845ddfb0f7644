"""Start watching at login: the XDG autostart entry (Linux and other freedesktop systems).

``$XDG_CONFIG_HOME/autostart/recrawl.desktop`` (``~/.config`` when the variable is not
set) runs ``recrawl gui DIR --watch --hidden`` when the user logs in: the app opens on
the project, watches it, and stays in the system tray. One entry, so one project starts
at login; enabling it for another project moves it there. Windows and macOS need other
means (docs/guide.md, "Start watching at login").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from recrawl.core.resources import resource_path

FILE_NAME = "recrawl.desktop"
#: The key that names the project, so the app can tell whose entry it is.
PROJECT_KEY = "X-Recrawl-Project"


def entry_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "autostart" / FILE_NAME


def command(project_dir: Path) -> list[str]:
    """The command line the entry runs: this Recrawl, on ``project_dir``, watching."""
    if getattr(sys, "frozen", False):  # a PyInstaller bundle: its executable is recrawl
        program = [sys.executable]
    else:
        program = [sys.executable, "-m", "recrawl"]
    return [*program, "gui", str(project_dir), "--watch", "--hidden"]


def desktop_entry(project_dir: Path) -> str:
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Name=Recrawl (watching)",
            f"Comment=Watch {_value(str(project_dir))} for new and changed pages",
            f"Exec={exec_line(command(project_dir))}",
            f"Icon={_value(str(resource_path('icons/app.svg')))}",
            "Terminal=false",
            "X-GNOME-Autostart-enabled=true",
            f"{PROJECT_KEY}={_value(str(project_dir))}",
            "",
        ]
    )


def exec_line(args: Sequence[str]) -> str:
    """``args`` as a desktop entry's Exec value (the Desktop Entry Specification's quoting).

    An argument with a reserved character is double-quoted, with ``"``, `````, ``$`` and
    ``\\`` escaped inside; a ``%`` is doubled (a field code otherwise); and the whole is a
    string value, whose own escapes double the backslashes once more.
    """
    quoted = []
    for arg in args:
        if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`="):
            word = arg
        else:
            word = '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'
        quoted.append(word.replace("%", "%%"))
    return _value(" ".join(quoted))


def _value(text: str) -> str:
    # a desktop entry's string value: backslash, newline, tab and CR are escaped
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def enable(project_dir: Path, env: Mapping[str, str] | None = None) -> Path:
    """Write the entry for ``project_dir`` (replacing one for another project)."""
    path = entry_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(desktop_entry(project_dir), encoding="utf-8")
    temp.replace(path)
    return path


def disable(env: Mapping[str, str] | None = None) -> None:
    entry_path(env).unlink(missing_ok=True)


def enabled_project(env: Mapping[str, str] | None = None) -> Path | None:
    """The project the entry starts watching (None: no entry, or not Recrawl's)."""
    try:
        text = entry_path(env).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == PROJECT_KEY:
            return Path(_unescape(value.strip()))
    return None


def is_enabled_for(project_dir: Path, env: Mapping[str, str] | None = None) -> bool:
    found = enabled_project(env)
    return found is not None and _same(found, project_dir)


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def _unescape(value: str) -> str:
    out, chars = [], iter(value)
    for c in chars:
        if c == "\\":
            nxt = next(chars, "")
            out.append({"n": "\n", "t": "\t", "r": "\r", "s": " "}.get(nxt, nxt))
        else:
            out.append(c)
    return "".join(out)


def parse_exec(value: str) -> list[str]:
    """The arguments of an Exec value, as a desktop session reads them (tests, checks)."""
    args: list[str] = []
    word: list[str] = []
    started = quoted = False
    chars = iter(_unescape(value))
    for c in chars:
        if quoted and c == "\\":
            word.append(next(chars, ""))
        elif c == '"':
            quoted, started = not quoted, True
        elif c == " " and not quoted:
            if started:
                args.append("".join(word))
            word, started = [], False
        else:
            word.append(c)
            started = True
    if started:
        args.append("".join(word))
    return [arg.replace("%%", "%") for arg in args]
