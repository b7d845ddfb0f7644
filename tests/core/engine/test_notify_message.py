"""A round's message (docs/design.md §17): its title counts the news by kind and site, its
body lists the first items, a changed one with its lines, and says how many more."""

from __future__ import annotations

from recrawl.core import store
from recrawl.core.engine.notify_message import message_body, message_title, round_message

from tests.support.crawling import T0


def item(n: int, kind: str, host: str = "example.org", **more: object) -> store.NewsItem:
    url = f"https://{host}/{kind}/{n}"
    return store.NewsItem(n, T0, kind, url, host, more.pop("title", None), T0, **more)  # type: ignore[arg-type]


def test_the_title_counts_kinds_and_names_the_busiest_site():
    items = [
        *(item(n, "new") for n in range(12)),
        *(item(20 + n, "changed") for n in range(3)),
        item(30, "new", "b.example"),
        item(31, "gone", "c.example"),
    ]
    assert (
        message_title(items) == "13 new pages, 3 changed, 1 gone on example.org and 2 other sites"
    )
    assert message_title([item(1, "changed")]) == "1 changed page on example.org"
    assert message_title([item(1, "back"), item(2, "back", "b.example")]) == (
        "2 pages back on b.example and 1 other site"  # a tie: by name
    )


def test_the_body_lists_the_first_items_with_their_lines_and_says_how_many_more():
    items = [
        item(1, "changed", title="Budget", summary="- voted in March\n+ voted on 4 March"),
        item(2, "new"),
        *(item(10 + n, "gone") for n in range(30)),
    ]
    body = message_body(items, 3)
    lines = body.splitlines()
    assert lines[:4] == [
        "Changed: Budget — https://example.org/changed/1",
        "  - voted in March",
        "  + voted on 4 March",
        "New: https://example.org/new/2",
    ]
    assert lines[4] == "Gone: https://example.org/gone/10"
    assert lines[5] == "and 29 more (recrawl news lists them all)" and len(lines) == 6
    message = round_message(items, 40)
    assert len(message.body.splitlines()) == 34  # all 32 listed, none left to count
    assert message.title == "1 new page, 1 changed, 30 gone on example.org"
