"""``recrawl.core.engine`` names its public surface and loads it only when used."""

from __future__ import annotations

import subprocess
import sys

import recrawl.core.engine as engine


def _run(script: str, tmp_path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_every_public_name_is_there():
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name
    assert callable(engine.inject) and callable(engine.Crawler)


def test_names_resolve_whatever_is_imported_first(tmp_path):
    # a submodule imported first must not stand in for a name of the surface
    _run(
        "from recrawl.core.engine import InjectResult, inject\n"
        "import recrawl.core.engine.seeds, recrawl.core.engine.crawl\n"
        "from recrawl.core.engine import Crawler\n"
        "assert inject.__name__ == 'inject' and isinstance(Crawler, type)\n",
        tmp_path,
    )


def test_the_events_load_without_the_crawl_machinery(tmp_path):
    _run(
        "import sys\n"
        "from recrawl.core.engine import CrawlSummary, Event, LogMessage, RoundFinished\n"
        "heavy = {'httpx', 'numpy', 'selectolax', 'recrawl.core.engine.crawl'} & set(sys.modules)\n"
        "assert not heavy, heavy\n",
        tmp_path,
    )
