"""Every relative link and image in README.md and docs/*.md points at a file that exists,
and a link to a heading (``guide.md#watching``, ``#watching``) at a heading that exists.

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


def _links(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans
    return LINK.findall(text)


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page`` (a repeated one gets ``-1``...)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    anchors: set[str] = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.M):
        anchor = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        numbered, n = anchor, 0
        while numbered in anchors:
            n += 1
            numbered = f"{anchor}-{n}"
        anchors.add(numbered)
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    dead = []
    for target in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # the web or mail
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        assert ROOT in path.parents, f"{target} points outside the repository"
        if not path.exists() or (anchor and anchor not in _anchors(path)):
            dead.append(target)
    assert not dead, f"{page.name}: dead links {dead}"


def test_a_heading_link_that_is_gone_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## What's new: news\n", encoding="utf-8")
    assert _anchors(page) == {"top", "whats-new-news"}


def test_nothing_points_outside_the_repository():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "../shared" not in text and "/work/" not in text, page
