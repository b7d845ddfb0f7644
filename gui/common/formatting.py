"""How values read in the window: local times, durations, sizes, rates.

Times are stored as naive UTC (docs/design.md §2); the window shows them in local time.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from recrawl.core.clock import human_duration, parse_duration
from recrawl.core.words import plural


def local_time(value: datetime | None, seconds: bool = False) -> str:
    """A stored (naive UTC) time as local time: ``2026-11-30 07:12``."""
    if value is None:
        return ""
    local = value.replace(tzinfo=UTC).astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


#: What a segment column's header says of it.
SEGMENT_TIP = (
    "When the crawl round that wrote the segment started, in local time; the segment's "
    "name (its folder under segments/) is that time in UTC"
)


def segment_time(name: str) -> str:
    """A segment's name (its round's start in UTC, ``20261202010147``; a worker's round
    adds its tag, ``20261202010147-w1``) as that time reads here: ``2026-12-02 02:01:47``
    (``2026-12-02 02:01:47 w1``). A name of another form reads as it is."""
    stamp, _, tag = name.partition("-")
    try:
        instant = datetime.strptime(stamp, "%Y%m%d%H%M%S")
    except ValueError:
        return name
    return local_time(instant, seconds=True) + (f" {tag}" if tag else "")


def segment_tip(name: str) -> str:
    """``Segment 20261202010147 (named by its round's start in UTC: 2026-12-02 02:01:47
    local time)``."""
    shown = segment_time(name)
    if shown == name:
        return f"Segment {name}"
    return f"Segment {name} (named by its round's start in UTC: {shown} local time)"


#: A page's status as people read it (the store, the CSV and ``--json`` keep the names).
STATUS_WORDS = {
    "unfetched": "not fetched yet",
    "fetched": "fetched",
    "notmodified": "not modified",
    "gone": "gone",
    "redirect_temp": "redirected (temporary)",
    "redirect_perm": "redirected (permanent)",
    "retry": "to be retried",
    "robots_denied": "robots.txt denied",
    "filtered": "filtered out",
}


def status_word(status: str) -> str:
    """``not modified`` for ``notmodified``; a status this does not know, as it is."""
    return STATUS_WORDS.get(status, status.replace("_", " "))


def is_date_only(value: datetime) -> bool:
    """A stored publication date at midnight UTC is a date alone (a page, sitemap or feed
    that gave no time; core/content/published.py): its day is shown as it is, not
    shifted into the local time zone (2 Nov would read 1 Nov west of UTC)."""
    return value.hour == value.minute == value.second == value.microsecond == 0


def published(value: datetime | None) -> str:
    """A publication date: ``2026-11-02`` for a date alone, else its local time."""
    if value is None:
        return ""
    return value.strftime("%Y-%m-%d") if is_date_only(value) else local_time(value)


def published_tip(value: datetime) -> str:
    if is_date_only(value):
        return f"{value:%Y-%m-%d} (the date alone: no time was given)"
    return local_time(value, seconds=True) + " (local time)"


def published_day(value: datetime) -> date:
    """The day a publication date falls on for the user (a date alone: that date)."""
    return value.date() if is_date_only(value) else value.replace(tzinfo=UTC).astimezone().date()


def short_day(day: date, today: date) -> str:
    """``2 Nov``, with the year when it is not this year's: ``2 Nov 2025``."""
    text = f"{day.day} {day:%b}"
    return text if day.year == today.year else f"{text} {day.year}"


def published_and_seen(published_at: datetime, first_seen: datetime, today: date) -> str:
    """``published 2 Nov, first seen 3 Nov (+1 d)`` (issue 14): how long the crawl took
    to find a page after it was published (docs/design.md §11's discovery delay).

    A date alone counts whole days (it says nothing of the hour); a time counts minutes,
    hours, then whole days. A page seen before its stated date shows a negative delay.
    """
    seen_day = first_seen.replace(tzinfo=UTC).astimezone().date()
    published = published_day(published_at)
    if is_date_only(published_at):
        days = (seen_day - published).days
        delay = "same day" if days == 0 else f"{_sign(days)}{abs(days)} d"
    else:
        delay = _delay((first_seen - published_at).total_seconds())
    return (
        f"published {short_day(published, today)}, "
        f"first seen {short_day(seen_day, today)} ({delay})"
    )


def _delay(seconds: float) -> str:
    size = abs(seconds)
    if size < 3600:
        amount, unit = int(size // 60), "min"
    elif size < 86400:
        amount, unit = int(size // 3600), "h"
    else:
        amount, unit = int(size // 86400), "d"
    return f"{_sign(seconds if amount else 0)}{amount} {unit}"


def _sign(value: float) -> str:
    return "−" if value < 0 else "+"  # a minus sign, not a hyphen


def timestamp(value: datetime) -> float:
    """Seconds since the epoch of a stored (naive UTC) time, for plots' time axes."""
    return value.replace(tzinfo=UTC).timestamp()


def size(count: int | None) -> str:
    """``950 B``, ``12.3 KB``, ``4.5 MB``, ``1.2 GB`` (powers of 1000, like file managers)."""
    if count is None:
        return ""
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"


def age(value: datetime | None, now: datetime) -> str:
    """How long ago a stored time was: ``3 h``, ``12 d``."""
    if value is None:
        return ""
    return human_duration(max(0.0, (now - value).total_seconds()))


def typed_duration(text: str, filled: float | None) -> float:
    """Seconds in a duration field that was filled with ``filled`` (as
    :func:`human_duration` shows it): while its text still reads so, the value it was
    filled with (``6.0 d`` stands for 6.03 d: OK changes nothing), else what the text
    says (``6.0 d``, ``90 min``, ``12h``...; InvalidArgument when it says none)."""
    if filled is not None and text.strip() == human_duration(filled):
        return filled
    return parse_duration(text)


def stopwatch(seconds: float) -> str:
    """Elapsed time as a stopwatch reads it: ``0:42``, ``12:05``, ``3:02:05``."""
    whole = int(max(0.0, seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def completeness(archived: int | None, missing: int | None) -> str:
    """What a page capture got of its embeds (docs/design.md §14): ``38/38``, ``36/38``;
    ``none`` when the page embeds nothing, empty when it is not known."""
    if archived is None:
        return ""
    total = archived + (missing or 0)
    return "none" if total == 0 else f"{archived:,}/{total:,}"


def news_done(new: int, changed: int, gone: int = 0, back: int = 0, baseline: int = 0) -> str:
    """What a round (or crawl) made of news (docs/design.md §10, §15): ``news: 2 new pages, 1
    changed, 1 gone, 1 back; first crawl: 40 pages archived``, what there is of it
    (empty for none)."""
    counts = [
        (new, plural(new, "new page")),
        (changed, f"{changed:,} changed"),
        (gone, f"{gone:,} gone"),
        (back, f"{back:,} back"),
    ]
    parts = []
    shown = [text for count, text in counts if count]
    if shown:
        parts.append("news: " + ", ".join(shown))
    if baseline:
        parts.append(f"first crawl: {plural(baseline, 'page')} archived")
    return "; ".join(parts)


def baseline_done_text(host: str, pages: int) -> str:
    """A host's first crawl is done (docs/design.md §15): the log's line, the notification's."""
    return f"First crawl of {host} done: {plural(pages, 'page')} archived"


def embeds_done(fetched: int, failed: int) -> str:
    """What a crawl fetched of what pages embed (counted apart from the pages):
    ``38 embeds fetched``, ``36 embeds fetched (2 failed)``; empty when it tried none."""
    if not (fetched or failed):
        return ""
    text = f"{plural(fetched, 'embed')} fetched"
    return f"{text} ({failed:,} failed)" if failed else text
