"""Write docs/settings.md: every setting, made from the schema in core/config.py.

    .venv/bin/python docs/make_settings_table.py [--check]

Each row is one field of the settings dataclasses as its metadata describes it
(:class:`recrawl.core.setting_schema.SettingSpec`): its dotted name, kind, default, unit,
bounds, whether a project keeps it and its ``recrawl crawl`` flag, and its help.
``--check`` writes nothing and fails if the file is not what it would write (the test
suite runs it: change a setting, then run this).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from recrawl.core.config import SETTINGS
from recrawl.core.setting_schema import SettingSpec

from recrawl import __version__

TABLE = Path(__file__).resolve().parent / "settings.md"
HEADER = """\
# Settings

Generated from the settings schema (`core/config.py`) by `docs/make_settings_table.py`
(`make docs`); do not edit by hand. Every setting is a field of a frozen dataclass whose
metadata holds its default, help, unit, bounds, whether a project keeps it and its flag.

- **kept**: *yes*, a project keeps it: `recrawl settings DIR --set NAME=VALUE` and the
  app's File → Settings change it, and every crawl and watch starts from it; the command
  named, it is kept by that command instead; *no*, only a developer changes it here.
- **flag**: the `recrawl crawl` (and `watch`, `worker`) option that overrides it for one
  crawl.
- Durations are typed `0.5s`, `30s`, `2m`, `6h`, `7d` (a plain number is seconds), sizes
  `10M`, `512k` (a plain number is bytes); JSON keeps seconds and bytes.

| name | kind | default | unit | bounds | kept | flag | help |
|---|---|---|---|---|---|---|---|
"""


FOOTER = """
## A site's own capture mode

`capture.mode` holds for every site without a mode of its own. A host, or a domain for
all the hosts under it, may have its own: `recrawl settings DIR --set
capture.mode@example.org=browser` (or the Sites panel's *Capture with a browser*), and
`--unset capture.mode@example.org` gives it the project-wide mode again. The longest
entry that covers a host wins (`capture.mode@static.example.org=http` stands over
`capture.mode@example.org=browser` for that host). `recrawl settings DIR` lists them
after `capture.mode`. A site whose mode changes forgets its pages' signatures in the
same transaction: the next fetch of each is `unknown`, not a false `changed` (the text of
raw HTML and of the rendered page differ).
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _kept(spec: SettingSpec) -> str:
    if spec.stored:
        return "yes"
    return f"`{spec.meta.command}`" if spec.meta.command else "no"


def row(spec: SettingSpec) -> str:
    cells = (
        f"`{spec.name}`",
        spec.kind,
        # the user agent names the version: the table need not change with each release
        f"`{spec.text(spec.default).replace(__version__, 'VERSION')}`",
        spec.unit or "",
        spec.bounds_text(),
        _kept(spec),
        f"`{spec.flag}`" if spec.flag else "",
        spec.help,
    )
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def table() -> str:
    """docs/settings.md as the schema makes it."""
    return HEADER + "".join(row(spec) + "\n" for spec in SETTINGS.values()) + FOOTER


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    text = table()
    if args.check:
        if not TABLE.exists() or TABLE.read_text(encoding="utf-8") != text:
            print(f"{TABLE.name} is stale: run docs/make_settings_table.py", file=sys.stderr)
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
