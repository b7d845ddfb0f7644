"""The Search panel's project: made by real crawls, a page saying a sentence for two
rounds of four."""

from __future__ import annotations

import pytest
from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices

from tests.gui.search.harbour import PLAIN, SENTENCE, article
from tests.support.crawling import DAY, clock_at, crawl


@pytest.fixture
def crawled(project, server):
    """/harbour says the sentence in rounds 2 and 3 of 4; /ferry never does."""
    choices.set_schedule(None, ["min@127.0.0.1=1h", "max@127.0.0.1=20d"])
    server.html("/", '<a href="/harbour">h</a> <a href="/ferry">f</a>')
    server.html("/ferry", article("The ferry timetable for the winter.", title="Ferry"))
    inject([server.url("/")], utcnow())
    for n, says in enumerate((False, True, True, False)):
        paragraphs = (PLAIN, SENTENCE) if says else (PLAIN,)
        server.html("/harbour", article(*paragraphs))
        crawl(project, clock=clock_at(n * 25 * DAY))
    return project
