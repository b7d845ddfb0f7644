"""What the search index holds, beside what the capture table says it should."""

from __future__ import annotations

from recrawl.core.store.models import Capture, Page, PageKind, SearchVersion


def indexed_versions() -> set[tuple[str, str]]:
    """Every (url, digest) the index has a text of."""
    return set(SearchVersion.select(SearchVersion.url, SearchVersion.digest).tuples())


def page_versions() -> set[tuple[str, str]]:
    """Every (url, digest) of a page's indexable 2xx response in the capture table."""
    rows = (
        Capture.select(Capture.url, Capture.digest)
        .join(Page, on=(Page.url == Capture.url))
        .where(
            (Page.kind == PageKind.PAGE)
            & Capture.mime.in_(["text/html", "text/plain"])
            & Capture.status.startswith("2")
        )
        .tuples()
    )
    return set(rows)
