"""Index a crawled project's pages for search, read back from its captures (the tests'
own way, until the commit pipeline indexes as it commits)."""

from __future__ import annotations

from recrawl.core import store
from recrawl.core.archive.captures import capture_payload, find_captures
from recrawl.core.content.search_text import document_of, indexed_text
from recrawl.core.project import Project
from recrawl.core.store.search import COMPLETE, add_texts, set_search_state


def index_pages(project: Project, urls: list[str]) -> int:
    """Index every response capture of ``urls``; returns the versions indexed."""
    rows = []
    for url in urls:
        for capture in find_captures(project.path, url):
            if capture.record_type != "response":
                continue
            record = capture_payload(project.path, capture)
            headers = {k.lower(): v for k, v in record.http_headers}
            document = document_of(record.body, headers.get("content-type"), url)
            if document is not None:
                rows.append(indexed_text(url, capture.digest, document))
    with store.transaction():
        add_texts(rows)
        set_search_state(COMPLETE)
    return len(rows)
