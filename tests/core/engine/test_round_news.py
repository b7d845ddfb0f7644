"""After each round (docs/design.md §17): each changed page says why, and the round's news
goes to the archivist's services, a real JSON listener on 127.0.0.1 (Apprise's ``json://``).

Real crawls of a loopback site on clocks a month apart (so its pages are due again); the
listener answers as a service would, with a success or a 500. A notification is sent
before the crawl returns, so each test reads what the listener got right after it.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from recrawl.core import store
from recrawl.core.clock import to_iso, utcnow
from recrawl.core.config import NotifySettings
from recrawl.core.engine import inject
from recrawl.core.engine.round_news import url_key
from recrawl.core.policy.change_rules import ChangeRule, ChangeRules, save_rules
from recrawl.core.store.models import News

from tests.support.crawling import T0, Events, clock_at, crawl, fast_settings
from tests.support.listener import Listener
from tests.support.stores import store_kind  # noqa: F401  # every test on both stores

WORDS = "archivists watch sites for months and want to know when each page changed"
ADDED = "The council voted on the fourth of March, thirty one for and twelve against."


def article(title: str, topic: str, extra: str = "") -> str:
    body = " ".join(f"{topic} {word} {n}" for n, word in enumerate(WORDS.split() * 8))
    more = f"<p>{extra}</p>" if extra else ""
    return f"<html><head><title>{title}</title></head><body><p>{body}</p>{more}</body></html>"


def site(server, extra: str = "", with_c: bool = False) -> None:
    links = '<a href="/a">a</a> <a href="/b">b</a>' + (' <a href="/c">c</a>' if with_c else "")
    server.html("/", f"<title>Home</title><nav>{links}</nav>")
    server.html("/a", article("Alpha", "alpha", extra))
    server.html("/b", article("Beta", "beta"))
    if with_c:
        server.html("/c", article("Gamma", "gamma"))


def notifying(*urls: str, **overrides: object):
    return fast_settings(notify=replace(NotifySettings(), urls=urls, **overrides))


def told(events: Events) -> list[str]:
    """The warnings of a crawl's log about its news (robots.txt's 404 is one too)."""
    return [m.text for m in events.logs("warning") if "notif" in m.text or "news" in m.text]


def month(n: int):
    return clock_at(timedelta(days=30 * n))


def test_a_round_with_news_sends_one_message_with_the_changed_lines(project, server):
    site(server)
    inject([server.url("/")], T0)
    with Listener() as listener:
        settings = notifying(listener.url)
        crawl(project, settings, clock=clock_at())
        assert listener.messages == []  # a first crawl (baseline) tells nothing

        site(server, extra=ADDED, with_c=True)  # /a gains a paragraph, / links /c (new)
        events = Events()
        summary = crawl(project, settings, clock=month(1), observer=events)
        assert summary.changed_pages >= 1 and summary.new_pages == 1
        (message,) = listener.received()
        assert message["title"].startswith("1 new page, ")
        assert "changed on 127.0.0.1" in message["title"]
        body = message["message"]
        assert f"Changed: Alpha — {server.url('/a')}" in body
        assert f"  + {ADDED}" in body
        assert f"New: Gamma — {server.url('/c')}" in body
        assert told(events) == []

        # the same site again, nothing changed: no news, no message
        crawl(project, settings, clock=month(2))
        assert len(listener.messages) == 1

    # the changed item says why, stored (docs/design.md §17); / changed too: it links /c
    (alpha,) = [i for i in store_items(project, "changed") if i.url == server.url("/a")]
    assert alpha.summary == f"+ {ADDED}" and alpha.rule is None


def test_a_service_listed_twice_is_sent_one_message(project, server):
    site(server)
    inject([server.url("/")], T0)
    with Listener() as listener:
        settings = notifying(listener.url, listener.url)
        crawl(project, settings, clock=clock_at())
        site(server, extra=ADDED, with_c=True)
        crawl(project, settings, clock=month(1))
        (message,) = listener.received()  # it was sent two
        assert server.url("/c") in message["message"]


def store_items(project, kind: str) -> list[store.NewsItem]:
    with project.active():
        return store.news_items(store.NewsFilter(kind=kind))


def test_a_failing_service_is_logged_and_sent_the_items_with_the_next_round(
    project, server, closed_port
):
    site(server)
    inject([server.url("/")], T0)
    closed = f"json://127.0.0.1:{closed_port}/"
    with Listener(status=500) as listener:
        settings = notifying(listener.url, closed)
        crawl(project, settings, clock=clock_at())
        site(server, extra=ADDED)
        events = Events()
        summary = crawl(project, settings, clock=month(1), observer=events)
        # the crawl ended as ever; each failure is one line of its log
        assert not summary.stopped and summary.changed_pages == 1
        assert len(listener.messages) == 1 and listener.received() == []
        warnings = told(events)
        assert len(warnings) == 2, warnings
        assert all(w.startswith("notification not sent: ") for w in warnings)
        assert any(f"127.0.0.1:{closed_port}" in w for w in warnings)
        assert all(w.endswith("with the next one") for w in warnings)

        # the service is back: the next round, with no news of its own, sends the missed items
        listener.status = 200
        crawl(project, settings, clock=month(2))
        (message,) = listener.received()
        assert message["title"] == "1 changed page on 127.0.0.1"
        assert f"  + {ADDED}" in message["message"]
        # and once sent, not again
        crawl(project, settings, clock=month(3))
        assert len(listener.received()) == 1
    with project.active():
        sent = store.notify_mark()["sent"]
        newest = store.newest_news_id()
    assert sent[url_key(listener.url)] == newest
    assert sent[url_key(closed)] < newest  # still failing: its items wait for it


def test_a_rule_that_opts_out_keeps_its_pages_out_of_messages(project, server):
    site(server)
    inject([server.url("/")], T0)
    with project.active():  # the site's /a says nothing; the rest of the site does
        save_rules(ChangeRules((ChangeRule(server.url("/a"), notify=False),)))
    with Listener() as listener:
        settings = notifying(listener.url)
        crawl(project, settings, clock=clock_at())
        site(server, extra=ADDED)  # only /a changes
        summary = crawl(project, settings, clock=month(1))
        assert summary.changed_pages == 1
        assert listener.messages == []
        site(server, extra=ADDED, with_c=True)  # / and /c: news outside the rule
        crawl(project, settings, clock=month(2))
        (message,) = listener.received()
        assert server.url("/c") in message["message"]
        assert server.url("/a") not in message["message"]


def test_another_crawls_claim_holds_off_the_send_until_it_runs_out(project, server):
    site(server)
    inject([server.url("/")], T0)
    with Listener() as listener:
        settings = notifying(listener.url)
        crawl(project, settings, clock=clock_at())
        with project.active():
            mark = store.notify_mark()
            until = to_iso(utcnow() + timedelta(hours=1))
            claimed = {**mark, "claim": {"by": "elsewhere-1", "until": until}}
            assert store.swap_notify_mark(mark, claimed)
            assert not store.swap_notify_mark(mark, {})  # compare-and-set: mark is stale
        site(server, extra=ADDED)
        crawl(project, settings, clock=month(1))
        assert listener.messages == []  # the other crawl is sending
        with project.active():
            assert store.notify_mark() == claimed
            expired = {**mark, "claim": {"by": "elsewhere-1", "until": to_iso(utcnow())}}
            assert store.swap_notify_mark(claimed, expired)
        crawl(project, settings, clock=month(2))  # it died: this crawl takes over
        (message,) = listener.received()
        assert message["title"] == "1 changed page on 127.0.0.1"
        with project.active():
            assert "claim" not in store.notify_mark()


def test_a_round_summarises_its_changed_pages_without_notifications(project, server):
    site(server)
    inject([server.url("/")], T0)
    crawl(project, clock=clock_at())
    site(server, extra=ADDED)
    crawl(project, clock=month(1))
    (item,) = store_items(project, "changed")
    assert item.summary == f"+ {ADDED}"
    with project.active():  # no service set: no mark kept
        assert store.notify_mark() == {}
        assert News.select().where(News.kind != "changed", News.summary.is_null(False)).count() == 0


def test_a_service_that_never_answers_holds_the_crawl_no_longer_than_the_timeout(project, server):
    site(server)
    inject([server.url("/")], T0)
    with Listener(hang=True) as listener:
        settings = notifying(listener.url, timeout=1.0)
        crawl(project, settings, clock=clock_at())
        site(server, extra=ADDED)
        events = Events()
        summary = crawl(project, settings, clock=month(1), observer=events)
        assert not summary.stopped and summary.changed_pages == 1
        (warning,) = told(events)
        # (whether the hung listener read the message within the second depends on the machine)
        assert "no answer within 1 s" in warning and len(listener.messages) <= 1
