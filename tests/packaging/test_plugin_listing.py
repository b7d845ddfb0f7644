"""The bundle's stand-ins for Apprise's plugin listing (packaging/plugin_listing.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load():
    spec = importlib.util.spec_from_file_location(
        "plugin_listing", ROOT / "packaging" / "plugin_listing.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_module_of_a_listed_folder_gets_an_empty_file_a_package_its_folder(tmp_path):
    empty = tmp_path / "empty.py"
    pure = [
        ("apprise.plugins.json", "/x/apprise/plugins/json.py", "PYMODULE"),
        ("apprise.plugins.email", "/x/apprise/plugins/email/__init__.py", "PYMODULE"),
        ("apprise.plugins.email.base", "/x/apprise/plugins/email/base.py", "PYMODULE"),
        ("apprise.config.file", "/x/apprise/config/file.py", "PYMODULE"),
        ("apprise.plugins", "/x/apprise/plugins/__init__.py", "PYMODULE"),
        ("apprise.utils.pgp", "/x/apprise/utils/pgp.py", "PYMODULE"),
    ]
    assert load().stand_ins(pure, empty) == [
        ("apprise/config/file.py", str(empty), "DATA"),
        ("apprise/plugins/email/__init__.py", str(empty), "DATA"),
        ("apprise/plugins/json.py", str(empty), "DATA"),
    ]
