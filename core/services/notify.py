"""Notifications through Apprise (docs/design.md §17): the project's services, and a test
message to one of them (the Settings dialog's "Send test", ``recrawl notify --test``).

The crawl itself sends each crawl's news (:mod:`recrawl.core.engine.round_news`).
"""

from __future__ import annotations

from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.services.service import Service

#: A test message's title.
TEST_TITLE = "Recrawl: a test message"


class NotifyService(Service):
    def urls(self) -> list[str]:
        """The project's ``notify.urls``."""
        with self.project.active():
            return list(project_crawl_settings().notify.urls)

    def send_test(self, url: str) -> str | None:
        """Send a test message to ``url``: None when it went, else one line saying why not
        (within the project's ``notify.timeout``)."""
        # the sender (and Apprise) only when a message goes
        from recrawl.core.engine.notify_message import Message
        from recrawl.core.engine.notify_send import check_url, send

        problem = check_url(url)
        if problem is not None:
            return problem
        with self.project.active():
            timeout = project_crawl_settings().notify.timeout
        body = (
            f"The Recrawl project at {self.project.path} sends the news of its crawls here: "
            "pages new, changed (with their added and removed lines), gone and back."
        )
        (error,) = send([url], Message(TEST_TITLE, body), timeout)
        return error
