"""The project's settings: JSON values by key (schedule, signature, filter chain...)."""

from __future__ import annotations

from typing import Any

from recrawl.core.store.models import Setting

#: What the CDXJ indexes are keyed with: ``legacy`` (Recrawl's own key, before
#: migration 11) until every index is re-keyed, then ``surt`` (recrawl.core.archive.index_keys).
INDEX_KEYS = "index_keys"
STANDARD_KEYS = "surt"


def get_setting(key: str, default: Any = None) -> Any:
    row = Setting.get_or_none(Setting.key == key)
    return default if row is None else row.value


def set_setting(key: str, value: Any) -> None:
    # an upsert, not SQLite's INSERT OR REPLACE: PostgreSQL has only this one
    Setting.insert(key=key, value=value).on_conflict(
        conflict_target=[Setting.key], preserve=[Setting.value]
    ).execute()
