"""The crawl settings a project keeps (politeness, timeouts, ...), in its store.

The command line and the app start every crawl from them, so a delay chosen once holds
for both; a command's flags override them for that crawl only. Stored by the dotted
names of the settings whose field says ``stored=True``
(:data:`recrawl.core.config.STORABLE`); what is not stored keeps its default. Every
value read or saved passes its setting's check (:func:`~recrawl.core.config.with_overrides`).
"""

from __future__ import annotations

from collections.abc import Mapping

from recrawl.core import store
from recrawl.core.config import CrawlSettings, with_overrides
from recrawl.core.errors import InvalidArgument

SETTING_KEY = "crawl_settings"


def stored() -> dict[str, object]:
    """The settings the project keeps, by dotted name (only those set)."""
    value = store.get_setting(SETTING_KEY)
    return dict(value) if isinstance(value, dict) else {}


def project_crawl_settings(base: CrawlSettings | None = None) -> CrawlSettings:
    """``base`` (the defaults) with what the project keeps (InvalidArgument naming a kept
    value this version refuses, and how to forget it)."""
    kept = stored()
    try:
        return with_overrides(base or CrawlSettings(), kept)
    except InvalidArgument as exc:
        for name, value in kept.items():  # which one: the message says how to forget it
            try:
                with_overrides(CrawlSettings(), {name: value})
            except InvalidArgument:
                raise InvalidArgument(
                    f"{exc} (kept in the project: `recrawl settings DIR --unset {name}` forgets it)"
                ) from None
        raise


def save(changes: Mapping[str, object | None]) -> dict[str, object]:
    """Keep ``changes`` (None forgets a setting: its default again); returns all kept.

    Nothing is saved unless every change is a known setting with a value it takes.
    """
    kept = stored()
    for name, value in changes.items():
        if value is None:
            kept.pop(name, None)
        else:
            kept[name] = value
    with_overrides(CrawlSettings(), kept)  # checks names, types and bounds before saving
    store.set_setting(SETTING_KEY, kept)
    return kept
