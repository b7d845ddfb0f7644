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

SETTING_KEY = "crawl_settings"


def stored() -> dict[str, object]:
    """The settings the project keeps, by dotted name (only those set)."""
    value = store.get_setting(SETTING_KEY)
    return dict(value) if isinstance(value, dict) else {}


def project_crawl_settings(base: CrawlSettings | None = None) -> CrawlSettings:
    """``base`` (the defaults) with what the project keeps."""
    return with_overrides(base or CrawlSettings(), stored())


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
