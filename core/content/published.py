"""A page's own publication date (DESIGN.md §11), read from its markup by htmldate.

htmldate looks where pages state their date: ``<meta>`` properties (Open Graph's
``article:published_time``, Dublin Core), JSON-LD's ``datePublished``, the URL
(``/2026/11/02/``: after those two, which often give the time as well), ``<abbr>`` and
``<time>`` elements, dates in the page's header; ``original_date`` makes it prefer the
publication date to the last update's. It runs in its fast mode
(``extensive_search=False``): the extensive one reads free text with dateparser, which
is not in the packaged app and costs far more per page.

The date found is stored as naive UTC. A date with a time zone is converted; one
without (a date alone, or a time with no zone) is taken as UTC, a date alone at its
midnight, as a sitemap's date-only ``lastmod`` is (the window shows such a date's day
as it is, not shifted into the local time zone: gui/formatting.py).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, time, timedelta

from htmldate import find_date

# htmldate logs pages it cannot read as errors; they are only pages without a date. A
# handler of its own keeps them off stderr (Python's last-resort handler) and still
# lets an application that configures logging see them.
logging.getLogger("htmldate").addHandler(logging.NullHandler())

#: What htmldate is asked for: the time and its zone when the page gives them.
_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
#: The earliest date taken (htmldate's own default, kept explicit): the web's early years.
EARLIEST = datetime(1995, 1, 1)


def page_date(markup: str, url: str, fetched_at: datetime) -> datetime | None:
    """When the page at ``url`` says it was published (naive UTC), or None.

    ``fetched_at`` (naive UTC) bounds it: a page cannot have been published after the
    day it was fetched on (a day more is allowed for the time zones ahead of UTC).
    Nothing a page holds makes this fail: a page htmldate cannot read has no date.
    """
    # htmldate, given a date past its bound, falls back to that date's month (a page
    # dated 9 Nov fetched on 5 Nov would be dated 1 Nov): so its bound is loose, a year
    # on, and a date past the next day is dropped here. Day-granular, so one bound
    # serves a whole day's pages and htmldate's validation caches stay warm.
    latest = fetched_at.date() + timedelta(days=1)
    loose = datetime.combine(latest + timedelta(days=365), time.max)
    try:
        # bytes, not str: a str starting "http" with no space is a URL htmldate fetches
        found = find_date(
            markup.encode("utf-8", "replace"),
            extensive_search=False,
            original_date=True,
            outputformat=_FORMAT,
            url=url,
            min_date=EARLIEST,
            max_date=loose,
            # the markup's full date and time first, the URL's date alone as a fallback
            deferred_url_extractor=True,
        )
    except Exception:  # any page htmldate trips on (its parsers' errors): no date
        return None
    published = _as_utc(found) if found else None
    if published is None or published.date() > latest:
        return None
    return published


def _as_utc(text: str) -> datetime | None:
    try:
        value = datetime.strptime(text, _FORMAT)
    except ValueError:  # no zone given: taken as UTC (module docstring)
        try:
            return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")
        except ValueError:
            return None
    return value.astimezone(UTC).replace(tzinfo=None)
