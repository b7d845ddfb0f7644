"""Which news item a fetch makes (docs/design.md §10), from the page as it was and what it became.

One item per fetch at most, the first that applies of:

- ``new``: the page's first successful fetch (a 2xx, before which the crawler had never
  seen its content: ``content_changed_at`` is set by the first one). While its host's
  first crawl is under way, that fetch counts in the host's one ``baseline`` item
  instead, and once it is done only a page found after it is new (docs/design.md §15: the
  recorder decides, :meth:`~.record.FetchRecorder._add`, from
  :mod:`recrawl.core.store.baselines`);
- ``back``: fetched successfully (2xx or 304) while it was gone; a changed content
  comes back with it, so "back" says it all;
- ``changed``: the fetch's change is ``changed``;
- ``gone``: the page became gone (a 4xx, or failures past the retries) after a successful
  fetch (a page never there, such as a broken link's target, makes no news).
"""

from __future__ import annotations

from recrawl.core.policy.schedule import Change
from recrawl.core.store.models import NewsKind, Page, PageStatus

_SUCCESS = (PageStatus.FETCHED, PageStatus.NOTMODIFIED)


def news_kind(page: Page, status: str, change: Change) -> str | None:
    """The news of a fetch that left ``page`` (as it was before) with ``status``."""
    if status == PageStatus.FETCHED and page.content_changed_at is None:
        return NewsKind.NEW
    if status in _SUCCESS and page.status == PageStatus.GONE:
        return NewsKind.BACK
    if change is Change.CHANGED:
        return NewsKind.CHANGED
    # only a page that was there goes: a link to a missing page (a 404 from its first
    # fetch on) is a broken link, not news
    if (
        status == PageStatus.GONE
        and page.status != PageStatus.GONE
        and page.content_changed_at is not None
    ):
        return NewsKind.GONE
    return None
