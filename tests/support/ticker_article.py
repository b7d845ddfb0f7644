"""An article with a "Trending now" ticker inside its main text, crawled three times:
the ticker says something else at every fetch, and the third fetch adds a paragraph.

So without a rule both refetches are changes; a rule removing ``.ticker`` (or ignoring
its text) makes the second unchanged and keeps the third a change: the history step 17's
previews are judged on.
"""

from __future__ import annotations

from recrawl.core.clock import utcnow
from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.project import Project

from tests.support.crawling import DAY, clock_at, crawl
from tests.support.httpserver import TestServer

LEAD = (
    "The harbour board met on Tuesday evening and agreed to dredge the old channel "
    "before the summer, so that the larger ferries can berth at the town quay again."
)
COST = (
    "The work is to cost four million and take eleven weeks; the fishing fleet will "
    "moor at the north pier meanwhile, as it did during the storm repairs two years ago."
)
ADDED = (
    "A public meeting on the plans is to be held in the library next Thursday, where "
    "the board's engineers will answer questions about the noise and the traffic."
)
TICKERS = (
    "Trending now: Storm warning for the whole coast as the wind rises tonight",
    "Trending now: Ferry timetable changes for the winter season announced",
    "Trending now: Market opens late on Saturday because of the parade",
)
#: The crawls' clock offsets: each past the schedule's 20 days, so every page is due.
OFFSETS = (0, 25, 60)
PATH = "/news/harbour"


def ticker_page(ticker: str, *paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs[:1])
    body += f'<p class="ticker">{ticker}</p>'
    body += "".join(f"<p>{p}</p>" for p in paragraphs[1:])
    return (
        "<html><head><title>Harbour to be dredged</title></head><body>"
        "<nav><a href='/'>Home</a></nav>"
        f"<article><h1>Harbour to be dredged</h1>{body}</article></body></html>"
    )


def crawl_ticker_history(project: Project, server: TestServer) -> str:
    """Crawl the article three times (see the module); its URL."""
    choices.set_schedule(None, ["min@127.0.0.1=1h", "max@127.0.0.1=20d"])
    url = server.url(PATH)
    inject([url], utcnow())
    pages = (
        ticker_page(TICKERS[0], LEAD, COST),
        ticker_page(TICKERS[1], LEAD, COST),
        ticker_page(TICKERS[2], LEAD, COST, ADDED),
    )
    for page, days in zip(pages, OFFSETS, strict=True):
        server.html(PATH, page)
        crawl(project, clock=clock_at(days * DAY))
    return url
