"""How far each notification service was sent the news (docs/design.md §17), kept in the
project's settings as one value changed only by compare-and-set.

The value is ``{"sent": {URL key: newest item id sent}, "claim": {...}}``: a process about
to send claims it first (who, until when), so two crawls of one project (workers on a
shared store, a crawl beside a watch) never send the same items twice; the claim's end
lets another process take over from one that died. A mark moves on only when its service
took the message, so a failed one is sent the same items, and the newer, next round:
no queue but this mark.
"""

from __future__ import annotations

from typing import Any

from recrawl.core.store.models import Setting

#: The setting that holds the marks.
NOTIFY_SETTING = "notify_sent"


def notify_mark() -> dict[str, Any]:
    """The marks as they are now ({} when none was ever kept)."""
    row = Setting.get_or_none(Setting.key == NOTIFY_SETTING)
    value = None if row is None else row.value
    return value if isinstance(value, dict) else {}


def swap_notify_mark(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Replace the marks by ``new`` if they are still ``old`` (as :func:`notify_mark` read
    them); whether they were. One statement: atomic on SQLite and PostgreSQL alike."""
    if not old:
        # the row must exist to be compared; made empty by whoever comes first
        Setting.insert(key=NOTIFY_SETTING, value={}).on_conflict_ignore().execute()
    # the JSON text is written with sorted keys, so equal values compare equal as text
    changed = (
        Setting.update(value=new)
        .where((Setting.key == NOTIFY_SETTING) & (Setting.value == old))
        .execute()
    )
    return bool(changed)
