"""What a news item's tooltip says: its URL; a changed item's diff lines and its rule."""

from __future__ import annotations

from datetime import datetime

from recrawl.core.store.news import NewsItem
from recrawl.gui.news.news_model import TIP_LINES, TIP_WIDTH, item_tip

AT = datetime(2027, 1, 2, 3, 4, 5)
URL = "http://example.org/news/harbour"


def item(**fields: object) -> NewsItem:
    return NewsItem(1, AT, "changed", URL, "example.org", "Harbour", AT, **fields)  # type: ignore[arg-type]


def test_a_changed_items_tip_says_what_changed_and_under_which_rule():
    tip = item_tip(
        item(summary="+ A meeting is to be held\n- The old date", rule="example.org/news/")
    )
    assert tip == (
        f"{URL}\n\nWhat changed:\n+ A meeting is to be held\n- The old date\n\n"
        "Judged by the change rule on example.org/news/"
    )


def test_an_item_without_them_shows_its_url_and_a_long_summary_is_bounded():
    assert item_tip(item()) == URL
    lines = [f"+ line {n} " + "x" * 300 for n in range(TIP_LINES + 5)]
    tip = item_tip(item(summary="\n".join(lines)))
    shown = tip.split("What changed:\n")[1].splitlines()
    assert len(shown) == TIP_LINES + 1 and shown[-1] == "… 5 more lines"
    assert all(len(line) <= TIP_WIDTH for line in shown)
    assert "Judged by" not in tip
