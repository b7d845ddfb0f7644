"""Every relative link and image in README.md and docs/*.md points at a file that exists.

The manual moves with the code; a renamed page or screenshot must not leave a dead link
behind. Links to the web are not followed (no network in tests).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: [text](target) and ![alt](target), outside code spans and blocks.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
#: Pages another generator writes, linked before it lands (settings table from the schema).
WRITTEN_ELSEWHERE = {ROOT / "docs" / "settings.md"}


def _links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    dead = []
    for target in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # the web, mail, or a heading of the same page
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists() and path not in WRITTEN_ELSEWHERE:
            dead.append(target)
        assert ROOT in path.parents or path == ROOT, f"{target} points outside the repository"
    assert not dead, f"{page.name}: dead links {dead}"


def test_nothing_points_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, page
