"""pages/pages.jsonl carries each exported page's text (issue 30, point 4): the text of the
version each entry is of, from the search index when it has that version, else from the
capture's records; ReplayWeb.page searches it (bench/replayweb_check.py --search).

The project: three real crawls a month apart of a page whose text gains a sentence and
then loses another, a page of four scripts, a page that never changes (identical-payload
revisits) and a gzip page answered 304 (not-modified revisits of a gzip payload).
"""

from __future__ import annotations

import gzip
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from recrawl.core import store
from recrawl.core.archive.captures import capture_payload, find_captures
from recrawl.core.archive.wacz import ALL, ExportOptions, ExportProgress, ExportStopped, export_wacz
from recrawl.core.content.search_text import document_of, indexed_text
from recrawl.core.engine import inject
from recrawl.core.net.decoding import PayloadDecoder
from recrawl.core.project import Project
from recrawl.core.store.search import add_texts, clear_index

from tests.support import httpserver
from tests.support.crawling import DAY, clock_at, crawl
from tests.support.httpserver import Reply

pytestmark = pytest.mark.slow

HOME = (
    b"<html><head><title>Home</title></head><body><p>The front page.</p>"
    b'<a href="/changing">c</a> <a href="/scripts">s</a> <a href="/static">t</a> '
    b'<a href="/cond">g</a></body></html>'
)
WALL = "The harbour wall stands."
CLOSE = "The harbour wall will close."
FERRY = "The ferry runs at noon."
#: The changing page's paragraphs, crawl by crawl: CLOSE appears, then FERRY goes.
VERSIONS = [[WALL, FERRY], [WALL, CLOSE, FERRY], [WALL, CLOSE]]
SCRIPTS = ["Καλημέρα, λιμάνι.", "Привет, гавань.", "東京の港は静かです。", "مرحبا بالميناء."]
STATIC = b"<html><body><p>This page never changes.</p></body></html>"
COND = gzip.compress(
    "<html><body><p>Served gzipped with an ETag: naïve café.</p></body></html>".encode(), mtime=0
)


def page(title: str, paragraphs: list[str]) -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f'<html><head><meta charset="utf-8"><title>{title}</title></head><body>{body}</body></html>'.encode()


@dataclass
class Built:
    project: Path
    server: httpserver.TestServer

    def url(self, path: str) -> str:
        return self.server.url(path)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Iterator[Built]:
    server = httpserver.TestServer().start()
    html = {"Content-Type": "text/html; charset=utf-8"}
    server.routes["/"] = Reply(200, HOME, html)
    server.routes["/scripts"] = Reply(200, page("Λιμάνι", SCRIPTS), html)
    server.routes["/static"] = Reply(200, STATIC, html)
    server.routes["/cond"] = httpserver.gzip_with_etag(COND)
    project = Project.init(tmp_path_factory.mktemp("texts") / "proj")
    try:
        inject([server.url("/")], clock_at().now())
        for n, paragraphs in enumerate(VERSIONS):
            server.routes["/changing"] = Reply(200, page(f"Harbour {n + 1}", paragraphs), html)
            crawl(project, clock=clock_at(n * 31 * DAY))
        yield Built(project.path, server)
    finally:
        project.close()
        server.stop()


def entries(wacz: Path) -> tuple[dict, list[dict]]:
    with zipfile.ZipFile(wacz) as zf:
        lines = zf.read("pages/pages.jsonl").decode("utf-8").splitlines()
    header, *rest = (json.loads(line) for line in lines)
    return header, rest


def export_all(built: Built, out: Path) -> tuple[dict, dict[tuple[str, str], dict]]:
    export_wacz(built.project, out, ExportOptions(pages=ALL))
    header, found = entries(out)
    return header, {(e["url"], e["ts"]): e for e in found}


def stamp(capture) -> str:
    return capture.date.isoformat() + "Z"


def build_index(built: Built, planted: dict[tuple[str, str], str] | None = None) -> None:
    """Index every capture's version as the background build does (its document of the
    payload), or ``planted``'s text for the versions it names (url, digest)."""
    rows = {}
    for url in [built.url(p) for p in ("/", "/changing", "/scripts", "/static", "/cond")]:
        for capture in find_captures(built.project, url):
            record = capture_payload(built.project, capture)
            headers = {k.lower(): v for k, v in record.http_headers}
            body = b"".join(PayloadDecoder(record.body, headers.get("content-encoding"), 1 << 24))
            document = document_of(body, headers.get("content-type"), url)
            if document is None:
                continue
            digest = _digest(built, url, capture)
            if planted and (url, digest) in planted:
                document = type(document)(document.title, planted[(url, digest)])
            rows[(url, digest)] = indexed_text(url, digest, document)
    with store.transaction():
        clear_index()
        add_texts(list(rows.values()))


def _digest(built: Built, url: str, capture) -> str:
    (row,) = [
        r
        for r in store.captures_by_url([url])
        if r.offset == capture.offset and r.file.endswith(capture.path.name)
    ]
    return row.digest


def visible(paragraphs: list[str]) -> str:
    return "\n".join(paragraphs)


def test_each_entry_carries_its_versions_text_with_no_index(built, tmp_path):
    """No index yet (a project from before step 19, its build not run): every entry's
    text is made from its capture, the changed page's of its own version, a revisit's of
    the response it repeats, a gzip payload's decoded, every script as written."""
    with store.transaction():
        clear_index()
    header, found = export_all(built, tmp_path / "all.wacz")
    assert header["hasText"] is True and header["format"] == "json-pages-1.0"
    changing = find_captures(built.project, built.url("/changing"))
    assert len(changing) == 3
    for capture, paragraphs in zip(changing, VERSIONS, strict=True):
        entry = found[(built.url("/changing"), stamp(capture))]
        assert entry["text"] == visible(paragraphs)
    # an older capture is titled by its own version's title; the latest by the store's
    n = [found[(built.url("/changing"), stamp(c))]["title"] for c in changing]
    assert n == ["Harbour 1", "Harbour 2", "Harbour 3"]
    for capture in find_captures(built.project, built.url("/scripts")):
        entry = found[(built.url("/scripts"), stamp(capture))]
        assert entry["text"] == visible(SCRIPTS)
        assert entry["title"] == "Λιμάνι"
    statics = find_captures(built.project, built.url("/static"))
    conds = find_captures(built.project, built.url("/cond"))
    assert len(statics) == len(conds) == 3  # the later two revisits
    for capture in statics:
        assert found[(built.url("/static"), stamp(capture))]["text"] == "This page never changes."
    for capture in conds:
        text = found[(built.url("/cond"), stamp(capture))]["text"]
        assert text == "Served gzipped with an ETag: naïve café."
    # the file is UTF-8 with the scripts as they are, not escaped
    with zipfile.ZipFile(tmp_path / "all.wacz") as zf:
        raw = zf.read("pages/pages.jsonl")
    assert "東京の港は静かです。".encode() in raw and "مرحبا بالميناء.".encode() in raw


def test_an_indexed_version_gives_the_index_text(built, tmp_path):
    """The index's text is read when it has the version (here one version's text is
    planted to tell them apart); the others, indexed from the same payloads, are what the
    export would make of the captures."""
    changing = find_captures(built.project, built.url("/changing"))
    second = (built.url("/changing"), _digest(built, built.url("/changing"), changing[1]))
    build_index(built, planted={second: "What the index says."})
    try:
        _, found = export_all(built, tmp_path / "indexed.wacz")
        texts = [found[(built.url("/changing"), stamp(c))]["text"] for c in changing]
        assert texts == [visible(VERSIONS[0]), "What the index says.", visible(VERSIONS[2])]
        for capture in find_captures(built.project, built.url("/scripts")):
            assert found[(built.url("/scripts"), stamp(capture))]["text"] == visible(SCRIPTS)
    finally:
        with store.transaction():
            clear_index()


def test_the_latest_pages_and_a_stop_while_the_texts_are_read(built, tmp_path):
    export_wacz(built.project, tmp_path / "latest.wacz")
    _, found = entries(tmp_path / "latest.wacz")
    by_url = {e["url"]: e for e in found}
    assert by_url[built.url("/changing")]["text"] == visible(VERSIONS[2])
    assert by_url[built.url("/")]["text"].startswith("The front page.")
    # a stop asked once every record is copied (the texts come after) leaves no file
    copied = []

    def progress(seen: ExportProgress) -> None:
        if seen.done == seen.total:
            copied.append(seen)

    with pytest.raises(ExportStopped):
        export_wacz(
            built.project,
            tmp_path / "stopped.wacz",
            ExportOptions(pages=ALL),
            progress=progress,
            stop=lambda: bool(copied),
        )
    assert copied
    assert not list(tmp_path.glob("stopped.wacz*"))


def test_texts_are_read_a_batch_at_a_time(built, tmp_path, monkeypatch):
    """An export holds one batch of texts at a time, whatever the number of pages."""
    from recrawl.core.archive.wacz import package

    batches: list[int] = []
    real = package.page_texts

    def counted(pages):
        batches.append(len(pages))
        return real(pages)

    monkeypatch.setattr(package, "PAGE_BATCH", 4)
    monkeypatch.setattr(package, "page_texts", counted)
    _, found = export_all(built, tmp_path / "batched.wacz")
    assert len(batches) > 1 and max(batches) <= 4
    assert sum(batches) == len(found) and all("text" in entry for entry in found.values())
