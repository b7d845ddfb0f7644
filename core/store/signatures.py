"""Pages' stored signatures, for recomputing them under another kind (docs/design.md §5).

A page's ``signature_kind`` says which kind its ``signature`` is; a fetch compares only
like with like. Recomputing goes through the pages a batch at a time, by id, and writes
each batch in one transaction: stopped anywhere, every page's signature and kind agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from peewee import Expression, Field, fn
from recrawl.core.config import UNCOMPARABLE
from recrawl.core.store.models import DB, Page, PageKind
from recrawl.core.store.sql import chunks


@dataclass(frozen=True, slots=True)
class SignedPage:
    """A page whose signature is not of the wanted kind, and where its payload is."""

    id: int
    url: str
    payload_file: str | None
    payload_offset: int | None
    #: Its latest capture: a browser capture's rendered DOM lies beside it (§16).
    capture_file: str | None = None
    capture_offset: int | None = None
    #: What its signature is now (None: it has none).
    signature_kind: str | None = None


@dataclass(frozen=True, slots=True)
class NewSignature:
    """A recomputed signature (None: the payload could not be read; none is kept)."""

    page_id: int
    #: The payload it was computed from: a page moved meanwhile (a crawl fetched it, a
    #: compaction rewrote its segment) keeps what it has.
    payload_file: str | None
    payload_offset: int | None
    signature: bytes | None
    kind: str | None


def _compared() -> Expression:
    # A page with a payload is signed (or should be); a page with only a signature left
    # (its payload gone) must lose it too. Embeds are never signed: their bytes decide.
    return (Page.kind == PageKind.PAGE) & (
        Page.payload_file.is_null(False) | Page.signature.is_null(False)
    )


def _other_kind(kind: str) -> Expression:
    # a page whose capture mode changed keeps no signature: its archived capture is of
    # the other mode, so its next fetch compares with nothing (forget_signatures)
    return _compared() & (
        Page.signature_kind.is_null()
        | ((Page.signature_kind != kind) & (Page.signature_kind != UNCOMPARABLE))
    )


def forget_signatures(hosts: Sequence[str], kind: str | None) -> int:
    """The pages of ``hosts`` lose their signatures, their kind set to ``kind``: their
    next fetch is compared with nothing archived (their capture mode changed). How many
    pages had one to lose (a signature, or a payload to sign)."""
    forgotten = 0
    with DB.atomic():
        for chunk in chunks(list(hosts)):
            forgotten += (
                Page.update(signature=None, signature_kind=kind)
                .where(Page.host.in_(chunk) & _compared())
                .execute()
            )
    return forgotten


def _signable(kind: str | None, starts: Sequence[str]) -> Expression:
    # kind None: every page that can be signed (its own kind is decided by its URL: a
    # change rule's); ``starts``: only URLs beginning so (case-insensitively: the caller
    # decides which it covers)
    where = (
        _other_kind(kind)
        if kind is not None
        else _compared() & (Page.signature_kind.is_null() | (Page.signature_kind != UNCOMPARABLE))
    )
    if starts:
        under = Page.url.startswith(starts[0])
        for start in starts[1:]:
            under = under | Page.url.startswith(start)
        where = where & under
    return where


def count_other_kind(kind: str | None, starts: Sequence[str] = ()) -> int:
    """Pages whose signature is not of ``kind`` (or missing) but could be recomputed
    (``kind`` None: every page that could be; ``starts``: of these URL beginnings)."""
    return int(Page.select(fn.COUNT(Page.id)).where(_signable(kind, starts)).scalar() or 0)


def other_kind_pages(
    kind: str | None, after_id: int, limit: int, starts: Sequence[str] = ()
) -> list[SignedPage]:
    """The next ``limit`` such pages with an id above ``after_id``, by id."""
    query = (
        Page.select(
            Page.id,
            Page.url,
            Page.payload_file,
            Page.payload_offset,
            Page.capture_file,
            Page.capture_offset,
            Page.signature_kind,
        )
        .where(_signable(kind, starts) & (Page.id > after_id))
        .order_by(Page.id)
        .limit(limit)
    )
    return [SignedPage(*row) for row in query.tuples().iterator()]


def page_urls_under(starts: Sequence[str]) -> list[str]:
    """The URLs of the pages (not embeds) beginning with any of ``starts``, by id."""
    under = Page.url.startswith(starts[0])
    for start in starts[1:]:
        under = under | Page.url.startswith(start)
    query = Page.select(Page.url).where((Page.kind == PageKind.PAGE) & under).order_by(Page.id)
    return [url for (url,) in query.tuples().iterator()]


def set_signatures(signatures: Sequence[NewSignature]) -> int:
    """Store recomputed signatures in one transaction; how many pages took theirs."""
    taken = 0
    with DB.atomic():
        for new in signatures:
            taken += (
                Page.update(signature=new.signature, signature_kind=new.kind)
                .where(
                    (Page.id == new.page_id)
                    & _same(Page.payload_file, new.payload_file)
                    & _same(Page.payload_offset, new.payload_offset)
                )
                .execute()
            )
    return taken


def _same(column: Field[Any], value: object) -> Expression:
    return column.is_null() if value is None else column == value
