"""Sending a message to the archivist's services through Apprise (docs/design.md §17).

One Apprise call for all the URLs that are sent the same message, bounded as a whole
by a timeout (Apprise's own, which stops waiting for a service still unanswered); each
URL's outcome is read back by a tag of its own. A failure is a line that names the
service by its private-parts-hidden URL (a token in a webhook URL stays out of logs) and
says why. Apprise is imported here only, when a message is sent or a URL checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recrawl.core.config import DEFAULT_CONTACT_URL, apprise_module
from recrawl.core.engine.notify_message import Message

#: What a URL Apprise cannot read is told (the setting's own check says the same).
NOT_UNDERSTOOD = "not a notification URL Apprise understands"


def _asset() -> Any:
    # in memory: Apprise keeps nothing of ours on disk
    return apprise_module().AppriseAsset(
        app_id="Recrawl",
        app_desc="Recrawl: news of the sites you watch",
        app_url=DEFAULT_CONTACT_URL,
        storage_mode="memory",
    )


def check_url(url: str) -> str | None:
    """None when Apprise understands ``url``, else one line why not."""
    if apprise_module().Apprise.instantiate(url, asset=_asset()) is None:
        return f"{url!r}: {NOT_UNDERSTOOD}"
    return None


def shown_url(url: str) -> str:
    """``url`` as typed, as it may be shown and logged: a password in it as ``****``
    (``json://user:****@host/``). Apprise's own form of a URL hides more, but it renames
    schemes (``ntfy`` as ``ntfys``): a listing shows the URLs the user knows."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, place = rest.partition("@")
    if not sep or not at or "/" in userinfo or ":" not in userinfo:
        return url
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:****@{place}"


def send(
    urls: Sequence[str], message: Message, timeout: float, setting: float | None = None
) -> list[str | None]:
    """Send ``message`` to each of ``urls`` within ``timeout`` seconds in all; for each
    URL, None when its service took the message, else one line why not (a timeout's
    names ``setting``, the timeout as set, when ``timeout`` is what was left of it)."""
    Apprise = apprise_module().Apprise
    errors: list[str | None] = [None] * len(urls)
    apprise = Apprise(asset=_asset())
    tags: dict[str, int] = {}
    for index, url in enumerate(urls):
        tag = f"recrawl-{index}"
        service = Apprise.instantiate(url, asset=_asset(), tag=tag)
        if service is None or not apprise.add(service):
            errors[index] = f"{url!r}: {NOT_UNDERSTOOD}"
            continue
        tags[tag] = index
    if not tags:
        return errors
    try:
        result = apprise.notify(
            body=message.body, title=message.title, tag=list(tags), timeout=timeout
        )
    except Exception as exc:  # a plugin's bug is a failure to send, never the crawl's end
        for index in tags.values():
            errors[index] = f"{shown_url(urls[index])}: {exc}"
        return errors
    answered: set[int] = set()
    for service_result in result:
        indexes = [tags[tag] for tag in service_result.tag if tag in tags]
        for index in indexes:
            answered.add(index)
            if not service_result:
                # its URL with secrets hidden, without Apprise's own parameters
                named = str(service_result.url).split("?", 1)[0]
                errors[index] = f"{named}: {_why(service_result, setting or timeout)}"
    for index in tags.values():
        if index not in answered:  # never dispatched: the call ended first
            errors[index] = f"{shown_url(urls[index])}: not sent ({_status(result)})"
    return errors


def _why(service_result: Any, timeout: float) -> str:
    if service_result.status == apprise_module().result.AppriseResultStatus.TIMEOUT:
        return f"no answer within {timeout:g} s"
    said = [entry.message for entry in service_result.logs() if entry.level != "DEBUG"]
    return said[-1] if said else "the service refused the message"


def _status(result: Any) -> str:
    return str(getattr(result.status, "name", result.status)).lower()
