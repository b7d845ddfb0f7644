"""What a crawl does with its news once it is committed (docs/design.md §17): says why
each changed page changed, and sends the news to the archivist's services.

Every crawl passes here — ``recrawl crawl``, each watch round (one crawl of what is
due), the app's crawl — from :class:`~.crawl.Crawler`:

- **Why changed**, after each of its rounds: the round's changed items get their
  summaries (the first diff lines, :mod:`recrawl.core.archive.change_summary`), at most
  ``PER_ROUND`` of them.
- **Notifications** (``notify.urls``), at its end: one message for the news no service
  was sent yet — none for a first crawl (``baseline``), embeds are never news, and a
  change rule with ``notify`` off keeps its pages out (a rule on a host is a site's
  opt-out); nothing new, no message. Each URL has its own mark in the store
  (:mod:`recrawl.core.store.notify_mark`), moved on only when its service took the
  message: a failed one is logged, one line, and is sent its items with the next
  message. A process claims the marks before it sends (compare-and-set), so two crawls
  never send the same items; the claim runs out, so one that died holds nothing for long.

Nothing here stops or fails a crawl: a send is bounded by ``notify.timeout``, and an
error is a line in the crawl's log.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.change_summary import PER_ROUND, fill_summaries
from recrawl.core.clock import parse_iso, to_iso, utcnow
from recrawl.core.config import NotifySettings
from recrawl.core.engine.notify_message import KINDS, round_message
from recrawl.core.engine.notify_send import send
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy.change_rules import ChangeRules, project_rules, text_rule_for
from recrawl.core.words import plural

#: How long a claim holds past the send's own timeout: a process that died while
#: sending holds the marks no longer than this.
CLAIM_SLACK = timedelta(seconds=60)

Say = Callable[[str, str], None]


def url_key(url: str) -> str:
    """A URL's mark's key: a digest, so the store keeps no service's token in clear twice."""
    return hashlib.blake2b(url.encode("utf-8"), digest_size=8).hexdigest()


class RoundNews:
    """The crawl's hand on its news: :meth:`after_round` after each round, :meth:`at_end`
    when the crawl ends."""

    def __init__(self, project_dir: Path, settings: NotifySettings, say: Say) -> None:
        self.project_dir = project_dir
        self.settings = settings
        self.say = say
        self.name = f"{socket.gethostname()}-{os.getpid()}"
        #: The newest item before the round about to run.
        self.before = store.newest_news_id() or 0
        if settings.urls:
            try:
                self._start_marks()
            except Exception as exc:  # never the crawl's end: its first message waits
                say("warning", f"notifications: the marks were not read: {exc}")

    def after_round(self) -> None:
        newest = store.newest_news_id() or 0
        if newest > self.before:
            self._summaries(self.before, newest)
        self.before = newest

    def at_end(self) -> None:
        if self.settings.urls:
            self._notify(store.newest_news_id() or 0)

    # -- why changed ------------------------------------------------------------------------

    def _summaries(self, after: int, newest: int) -> None:
        changed = store.news_after(after, newest, unsummarised=PER_ROUND)
        fill_summaries(self.project_dir, changed, PER_ROUND, text_rule_for)

    # -- notifications ------------------------------------------------------------------------

    def _start_marks(self) -> None:
        """A URL new to the marks starts at the news before this crawl: a service added
        today is not sent the project's past."""
        for _ in range(3):  # another process may be changing them: read again
            old = store.notify_mark()
            sent = dict(old.get("sent", {}))
            keys = {url_key(url) for url in self.settings.urls}
            if keys <= set(sent) and set(sent) <= keys:
                return
            sent = {key: sent.get(key, self.before) for key in keys}
            if store.swap_notify_mark(old, {**old, "sent": sent}):
                return

    def _notify(self, newest: int) -> None:
        old = store.notify_mark()
        sent: dict[str, int] = {key: int(v) for key, v in old.get("sent", {}).items()}
        # a URL listed twice is one service (one mark): sent one message, not two
        listed = dict.fromkeys(self.settings.urls)
        urls = [url for url in listed if sent.get(url_key(url), newest) < newest]
        if not urls:
            return
        claim = old.get("claim")
        now = utcnow()
        if isinstance(claim, dict) and claim.get("by") != self.name and _until(claim) > now:
            return  # another crawl is sending: what it does not send, the next round does
        until = now + timedelta(seconds=self.settings.timeout) + CLAIM_SLACK
        claimed = {**old, "claim": {"by": self.name, "until": to_iso(until)}}
        if not store.swap_notify_mark(old, claimed):
            return  # taken meanwhile
        moved: dict[str, int] = {}
        try:
            moved = self._send(urls, sent, newest)
        finally:
            done = {key: value for key, value in claimed.items() if key != "claim"}
            done["sent"] = {**sent, **moved}
            if not store.swap_notify_mark(claimed, done):
                # the claim ran out and another crawl took over: its marks stand
                self.say("warning", "notifications: another crawl took over sending the news")

    def _send(self, urls: Sequence[str], sent: dict[str, int], newest: int) -> dict[str, int]:
        """Send each URL the items past its mark; the marks that move (newest: sent, or
        nothing of interest to send)."""
        rules = project_rules()
        # the whole send within notify.timeout, however many messages the marks make
        deadline = time.monotonic() + self.settings.timeout
        moved: dict[str, int] = {}
        by_start: dict[int, list[str]] = {}
        for url in urls:
            by_start.setdefault(sent.get(url_key(url), newest), []).append(url)
        for start, group in sorted(by_start.items()):
            items = [item for item in store.news_after(start, newest) if _told(item, rules)]
            if not items:
                moved.update((url_key(url), newest) for url in group)
                continue
            listed = fill_summaries(
                self.project_dir,
                items[: self.settings.max_items],
                self.settings.max_items,
                text_rule_for,
            )
            message = round_message(
                [*listed, *items[len(listed) :]], self.settings.max_items, self.project_dir
            )
            left = deadline - time.monotonic()
            if left <= 0:  # out of time: these services' items wait for the next message
                self.say("warning", f"notifications: {len(group)} not sent (notify.timeout)")
                continue
            errors = send(group, message, left, self.settings.timeout)
            count = plural(len(items), "item")
            for url, error in zip(group, errors, strict=True):
                if error is None:
                    moved[url_key(url)] = newest
                else:
                    go = "goes" if len(items) == 1 else "go"
                    self.say(
                        "warning",
                        f"notification not sent: {error}; its {count} {go} with the next one",
                    )
        return moved


def _until(claim: dict[str, object]) -> datetime:
    """When a claim runs out (one unreadable has run out)."""
    try:
        return parse_iso(str(claim.get("until")))
    except InvalidArgument:
        return datetime.min


def _told(item: store.NewsItem, rules: ChangeRules) -> bool:
    """Whether a message tells ``item``: not a first crawl, not under a rule that opts out."""
    if item.kind not in KINDS:
        return False
    rule = rules.rule_for(item.url)
    return rule is None or rule.notify
