"""The project's settings: JSON values by key (schedule, signature, filter chain...)."""

from __future__ import annotations

from typing import Any

from recrawl.core.store.models import Setting


def get_setting(key: str, default: Any = None) -> Any:
    row = Setting.get_or_none(Setting.key == key)
    return default if row is None else row.value


def set_setting(key: str, value: Any) -> None:
    Setting.replace(key=key, value=value).execute()
