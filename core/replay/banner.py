"""pywb's banner in local time, labelled with its zone (docs/design.md §13).

pywb's banner (its Vue app, ``static/vue/vueui.js``) reads a capture's 14-digit stamp,
which is UTC, as if it were local time and prints it with no zone: a capture made at
09:00 UTC read "9:00" in Berlin, where the app's tables said 10:00. The replay server
serves a copy of that script with the stamp read as UTC, shown and grouped by day and
hour in the browser's local time, and the capture's own date and time labelled with the
zone (``12/2/2026, 10:00:00 AM GMT+1``).

The copy is made from the installed pywb's own script by replacing two passages; a
pywb whose script differs gets its banner unchanged (and :func:`local_banner` says so),
never a broken one.
"""

from __future__ import annotations

from pathlib import Path

#: Where the script sits under pywb's static folder (and the copy under ours).
SCRIPT = Path("vue") / "vueui.js"

_STAMP_READ = "      this.second = parseInt(init.timestamp.substr(12, 2));\n"
_STAMP_AS_UTC = (
    _STAMP_READ
    + "      // recrawl: the stamp is UTC; the banner shows and groups it in local time\n"
    "      const recrawlLocal = new Date(Date.UTC(this.year, this.month - 1, this.day,"
    " this.hour, this.minute, this.second));\n"
    "      this.year = recrawlLocal.getFullYear();\n"
    "      this.month = recrawlLocal.getMonth() + 1;\n"
    "      this.day = recrawlLocal.getDate();\n"
    "      this.hour = recrawlLocal.getHours();\n"
    "      this.minute = recrawlLocal.getMinutes();\n"
    "      this.second = recrawlLocal.getSeconds();\n"
)
_DATE_TIME_SHOWN = (
    "return new Date(this.year, this.month-1, this.day, this.hour, this.minute, this.second)"
    ".toLocaleString(PywbI18N.getLocale()).toLowerCase();"
)
_DATE_TIME_WITH_ZONE = (
    "return new Date(this.year, this.month-1, this.day, this.hour, this.minute, this.second)"
    '.toLocaleString(PywbI18N.getLocale(), {timeZoneName: "short"});'
)


def local_script(text: str) -> str | None:
    """pywb's banner script reading stamps as UTC and showing local, labelled times;
    None when the script is not the one this knows (each passage must occur once)."""
    if text.count(_STAMP_READ) != 1 or text.count(_DATE_TIME_SHOWN) != 1:
        return None
    return text.replace(_STAMP_READ, _STAMP_AS_UTC).replace(_DATE_TIME_SHOWN, _DATE_TIME_WITH_ZONE)


def local_banner(pywb_static: Path, static_dir: Path) -> bool:
    """Write the banner script of ``pywb_static`` (pywb's static folder) into
    ``static_dir``, which pywb serves before its own; False (nothing written) when the
    installed pywb's script is not one :func:`local_script` knows."""
    try:
        text = (pywb_static / SCRIPT).read_text(encoding="utf-8")
    except OSError:
        return False
    patched = local_script(text)
    if patched is None:
        return False
    target = static_dir / SCRIPT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(patched, encoding="utf-8")
    return True
