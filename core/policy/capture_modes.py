"""Each site's capture mode (docs/design.md §16): ``capture.mode@HOST``.

The project-wide ``capture.mode`` is one of the crawl settings the project keeps; a host
(or a domain, for all its hosts) may have its own, kept apart as a mapping host → mode
(:data:`KEY`), set by ``recrawl settings --set capture.mode@HOST=browser`` or the Sites
panel, and carried into the crawl as
:attr:`~recrawl.core.config.CaptureSettings.host_modes` (read with
:meth:`~recrawl.core.config.CaptureSettings.mode_for`).

A page captured over HTTP and then in a browser is compared raw HTML against rendered
text: a false "changed" once for every page. So when a host's mode changes, its pages'
signatures are forgotten in the same transaction (:func:`forget_switched`), and their
next fetch says ``unknown`` instead.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from recrawl.core import store
from recrawl.core.config import (
    CAPTURE_MODE,
    CAPTURE_MODES,
    UNCOMPARABLE,
    CaptureSettings,
    CrawlSettings,
    with_overrides,
)
from recrawl.core.errors import InvalidArgument, InvalidUrl

#: The store's key of the per-host modes: a JSON object host → mode.
KEY = "capture_modes"
#: A host's own mode is named as the setting with ``@HOST``.
PREFIX = CAPTURE_MODE + "@"
#: The Chromium setting, read with the modes (turning a site to browser looks for it).
CAPTURE_CHROMIUM = "capture.chromium"
#: What a host's text may not hold: it is a name, not a URL.
_NOT_IN_HOST = set("/?#@\\ \t\r\n")


def per_host(name: str) -> str | None:
    """The host of a setting named ``capture.mode@HOST`` as pages carry it (lower case,
    IDNA), None for any other name; InvalidArgument naming the setting for a bad host."""
    if not name.startswith(PREFIX):
        return None
    return host_entry(name[len(PREFIX) :], name)


def host_entry(text: str, name: str | None = None) -> str:
    """``text`` as a host or domain name pages carry (``Example.ORG`` → ``example.org``);
    InvalidArgument naming the setting when it is no host name."""
    name = name or PREFIX + text
    word = text.strip().removesuffix(".")
    problem = None
    if not word:
        problem = "names no host (like capture.mode@example.org)"
    elif _NOT_IN_HOST & set(word) or (":" in word and not word.startswith("[")):
        problem = f"not a host name: {text!r} (a name like example.org, no scheme, port or path)"
    else:
        # here: quick commands that only read the settings never load w3lib
        from recrawl.core.net.urls import canonical, host_of

        try:
            host = host_of(canonical(f"http://{word}/"))
        except InvalidUrl as exc:
            problem = f"not a host name: {text!r} ({exc.reason or exc})"
        else:
            if host:
                return host
            problem = f"not a host name: {text!r}"
    raise InvalidArgument(f"{name}: {problem}")


def check_mode(name: str, value: object) -> str:
    """``value`` if it is a capture mode; InvalidArgument naming the setting if not."""
    if value not in CAPTURE_MODES:
        raise InvalidArgument(f"{name}: must be {' or '.join(CAPTURE_MODES)}, not {value!r}")
    assert isinstance(value, str)
    return value


def host_modes() -> dict[str, str]:
    """The hosts with a mode of their own, by host (what a later version refuses is left
    out: the project-wide mode holds for it)."""
    kept = store.get_setting(KEY)
    if not isinstance(kept, dict):
        return {}
    return {host: mode for host, mode in sorted(kept.items()) if mode in CAPTURE_MODES}


def save_host_modes(changes: Mapping[str, str | None]) -> dict[str, str]:
    """Keep ``changes`` (host → mode, None: the project-wide mode again), already
    checked; returns all kept."""
    kept = host_modes()
    for host, mode in changes.items():
        if mode is None:
            kept.pop(host, None)
        else:
            kept[host] = mode
    store.set_setting(KEY, dict(sorted(kept.items())))
    return kept


def with_host_modes(capture: CaptureSettings, modes: Mapping[str, str]) -> CaptureSettings:
    return replace(capture, host_modes=tuple(sorted(modes.items())))


def kept_modes(kept: Mapping[str, object]) -> CaptureSettings:
    """The capture settings the crawl settings ``kept`` hold (those a later version
    refuses: their defaults), with the hosts' own modes: how each site is captured now,
    read even while another kept value is refused."""
    capture = CaptureSettings()
    for name in (CAPTURE_MODE, CAPTURE_CHROMIUM):
        with contextlib.suppress(InvalidArgument):
            if name in kept:
                capture = with_overrides(CrawlSettings(capture=capture), {name: kept[name]}).capture
    return with_host_modes(capture, host_modes())


@dataclass(frozen=True)
class ModeSwitch:
    """What a change of capture modes did to the pages."""

    #: Hosts with pages whose mode changed, by name.
    hosts: tuple[str, ...] = ()
    #: Their pages whose signatures were forgotten (next fetch: ``unknown``).
    pages: int = 0


def forget_switched(before: CaptureSettings, after: CaptureSettings) -> ModeSwitch:
    """The pages of every host whose mode is not what it was lose their signatures (part
    of the caller's transaction, with the change itself)."""
    if before.mode != after.mode:  # every host without an entry of its own, maybe
        candidates = store.page_hosts()
    else:
        entries = set(before.host_modes) ^ set(after.host_modes)
        candidates = sorted({h for entry, _ in entries for h in store.hosts_under(entry)})
    hosts = tuple(h for h in candidates if before.mode_for(h) != after.mode_for(h))
    if not hosts:
        return ModeSwitch()
    return ModeSwitch(hosts, store.forget_signatures(hosts, UNCOMPARABLE))
