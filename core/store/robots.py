"""The robots.txt cache: one answer per origin, as fetched (docs/design.md §3)."""

from __future__ import annotations

from datetime import datetime

from recrawl.core.store.models import Robots


def robots_entry(origin: str) -> Robots | None:
    return Robots.get_or_none(Robots.origin == origin)


def save_robots(
    origin: str, fetched_at: datetime, status: int | None, body: str | None, error: str | None
) -> None:
    Robots.insert(
        origin=origin, fetched_at=fetched_at, http_status=status, body=body, error=error
    ).on_conflict(
        conflict_target=[Robots.origin],
        preserve=[Robots.fetched_at, Robots.http_status, Robots.body, Robots.error],
    ).execute()
