"""How values read in the window: local times, durations, sizes, rates.

Times are stored as naive UTC (DESIGN.md §2); the window shows them in local time.
"""

from __future__ import annotations

from datetime import UTC, datetime

from recrawl.core.clock import human_duration


def local_time(value: datetime | None, seconds: bool = False) -> str:
    """A stored (naive UTC) time as local time: ``2026-11-30 07:12``."""
    if value is None:
        return ""
    local = value.replace(tzinfo=UTC).astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


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


def stopwatch(seconds: float) -> str:
    """Elapsed time as a stopwatch reads it: ``0:42``, ``12:05``, ``3:02:05``."""
    whole = int(max(0.0, seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
