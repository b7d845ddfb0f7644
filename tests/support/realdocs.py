"""Real HTML no one here wrote: Debian's Python documentation (the ``python3-doc`` package).

Tests that read its pages, stylesheets and scripts ask :func:`python_docs` for its folder:
without the package they are skipped, saying how to get it, unless
``RECRAWL_REQUIRE_DOCS=1`` (CI sets it, and installs the package: a missing one must not
pass as green).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def python_docs() -> Path:
    """The HTML documentation's folder (``index.html``, ``library/``, ``_static/``...)."""
    for folder in sorted(Path("/usr/share/doc").glob("python3*/html")):
        if (folder / "library" / "stdtypes.html").is_file():
            return folder
    message = "Debian's Python documentation is not installed (apt-get install python3-doc)"
    if os.environ.get("RECRAWL_REQUIRE_DOCS") == "1":
        pytest.fail(f"RECRAWL_REQUIRE_DOCS=1: {message}")
    pytest.skip(message)
