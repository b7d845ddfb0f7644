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
