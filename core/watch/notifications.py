"""Whether the app shows a desktop notification for a watch round's news, per project.

Kept in the project's store (a plain setting, not a crawl setting: it changes what the
app tells its user, not how the crawl runs), so each project has its own and the choice
travels with the project folder. On unless switched off.
"""

from __future__ import annotations

from recrawl.core import store

SETTING_KEY = "notify_news"


def notifications_on() -> bool:
    return store.get_setting(SETTING_KEY) is not False


def set_notifications(on: bool) -> None:
    store.set_setting(SETTING_KEY, bool(on))
