"""The notify service (docs/design.md §17): the project's ``notify.urls`` and a test message,
sent to a real JSON listener on 127.0.0.1 (Apprise's ``json://``), or failing."""

from __future__ import annotations

from recrawl.core.services import Services
from recrawl.core.services.notify import TEST_TITLE

from tests.support.listener import Listener


def test_urls_are_the_kept_setting(project):
    services = Services(project)
    assert services.notify.urls() == []
    services.settings.save({"notify.urls": ("json://127.0.0.1:9/", "ntfy://recrawl-news")})
    assert services.notify.urls() == ["json://127.0.0.1:9/", "ntfy://recrawl-news"]


def test_send_test_reaches_a_listener(project):
    with Listener() as listener:
        assert Services(project).notify.send_test(listener.url) is None
    (message,) = listener.received()
    assert message["title"] == TEST_TITLE and str(project.path) in message["message"]


def test_send_test_says_why_not_in_one_line(project, closed_port):
    notify = Services(project).notify
    refused = notify.send_test(f"json://127.0.0.1:{closed_port}/")
    assert refused is not None and "\n" not in refused
    assert f"127.0.0.1:{closed_port}" in refused
    with Listener(status=500) as listener:
        failed = notify.send_test(listener.url)
    assert failed is not None and "\n" not in failed and len(listener.messages) == 1
    bad = notify.send_test("nonsense://nowhere")
    assert bad == "'nonsense://nowhere': not a notification URL Apprise understands"


def test_a_service_that_never_answers_fails_within_the_timeout(project):
    services = Services(project)
    services.settings.save({"notify.timeout": 1.0})
    with Listener(hang=True) as listener:
        failed = services.notify.send_test(listener.url)
        assert failed is not None and "no answer within 1 s" in failed
        assert listener.received() == []
