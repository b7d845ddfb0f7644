"""Sending one message to several services (docs/design.md §17): each URL's own outcome,
from real JSON listeners on 127.0.0.1 (Apprise's ``json://``)."""

from __future__ import annotations

from recrawl.core.engine.notify_message import Message
from recrawl.core.engine.notify_send import check_url, send

from tests.support.listener import Listener


def test_each_url_says_its_own_outcome(closed_port):
    message = Message("2 new pages on example.org", "New: https://example.org/a")
    with Listener() as working, Listener(status=500) as failing:
        urls = [working.url, failing.url, "nonsense://x", f"json://127.0.0.1:{closed_port}/"]
        errors = send(urls, message, timeout=10)
    assert errors[0] is None
    assert errors[1] is not None and errors[1].startswith(failing.url)
    assert "500" in errors[1] and "?" not in errors[1]  # Apprise's parameters left out
    assert errors[2] == "'nonsense://x': not a notification URL Apprise understands"
    assert errors[3] is not None and f"127.0.0.1:{closed_port}" in errors[3]
    assert [(m["title"], m["message"]) for m in working.received()] == [
        ("2 new pages on example.org", "New: https://example.org/a")
    ]
    assert len(failing.messages) == 1  # tried once, refused


def test_a_url_is_checked_as_apprise_reads_it():
    assert check_url("ntfy://recrawl-news") is None
    assert check_url("mailto://") is not None  # a scheme it knows, without its parts
    assert check_url("nonsense://x") is not None
