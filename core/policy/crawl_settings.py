"""The crawl settings a project keeps (politeness, timeouts, ...), in its store.

The command line and the app start every crawl from them, so a delay chosen once holds
for both; a command's flags override them for that crawl only. Stored by the dotted
names of the settings whose field says ``stored=True``
(:data:`recrawl.core.config.STORABLE`); what is not stored keeps its default. Every
value read or saved passes its setting's check (:func:`~recrawl.core.config.with_overrides`).
A host's own capture mode (``capture.mode@HOST``) is saved and read with them, kept by
:mod:`.capture_modes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from recrawl.core import store
from recrawl.core.config import CrawlSettings, with_overrides
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import capture_modes

SETTING_KEY = "crawl_settings"


def stored() -> dict[str, object]:
    """The settings the project keeps, by dotted name (only those set)."""
    value = store.get_setting(SETTING_KEY)
    return dict(value) if isinstance(value, dict) else {}


def project_crawl_settings(base: CrawlSettings | None = None) -> CrawlSettings:
    """``base`` (the defaults) with what the project keeps, the hosts' own capture modes
    too (InvalidArgument naming a kept value this version refuses, and how to forget it)."""
    kept = stored()
    try:
        settings = with_overrides(base or CrawlSettings(), kept)
    except InvalidArgument as exc:
        for name, value in kept.items():  # which one: the message says how to forget it
            try:
                with_overrides(CrawlSettings(), {name: value})
            except InvalidArgument:
                raise InvalidArgument(
                    f"{exc} (kept in the project: `recrawl settings DIR --unset {name}` forgets it)"
                ) from None
        raise
    modes = capture_modes.host_modes()
    if not modes:
        return settings
    return replace(settings, capture=capture_modes.with_host_modes(settings.capture, modes))


def save(changes: Mapping[str, object | None]) -> dict[str, object]:
    """Keep ``changes`` (None forgets a setting: its default again, and for
    ``capture.mode@HOST`` the project-wide mode); returns all kept, the hosts' own
    modes as ``capture.mode@HOST`` after the others.

    Nothing is saved unless every change is a known setting with a value it takes.
    """
    kept = stored()
    modes: dict[str, str | None] = {}
    for name, value in changes.items():
        host = capture_modes.per_host(name)
        if host is not None:
            modes[host] = None if value is None else capture_modes.check_mode(name, value)
        elif value is None:
            kept.pop(name, None)
        else:
            kept[name] = value
    with_overrides(CrawlSettings(), kept)  # checks names, types and bounds before saving
    with store.transaction():
        store.set_setting(SETTING_KEY, kept)
        if modes:
            capture_modes.save_host_modes(modes)
    return {**kept, **host_settings()}


def host_settings() -> dict[str, str]:
    """The hosts' own capture modes, named as the settings ``capture.mode@HOST``."""
    return {capture_modes.PREFIX + host: mode for host, mode in capture_modes.host_modes().items()}
