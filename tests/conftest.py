from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from recrawl.core.project import Project

from tests.httpserver import TestServer

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture
def server() -> Iterator[TestServer]:
    srv = TestServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    proj = Project.init(tmp_path / "proj")
    yield proj
    proj.close()


def fast_settings(**overrides: object):
    """Crawl settings for loopback tests: no politeness delay, short timeouts."""
    from dataclasses import replace

    from recrawl.core.config import CrawlSettings, FetchSettings, PolitenessSettings

    politeness = replace(PolitenessSettings(), delay=0.0, per_host=4, concurrency=8)
    fetch = replace(FetchSettings(), read_timeout=2.0, connect_timeout=2.0, total_timeout=10.0)
    settings = CrawlSettings(politeness=politeness, fetch=fetch)
    return replace(settings, **overrides)


def crawl(project: Project, settings=None, **kwargs):
    """Run a crawl to completion on the calling thread; returns its summary."""
    from recrawl.core.engine import Crawler

    return Crawler(project, settings or fast_settings(), **kwargs).run()
