"""Change rules (docs/design.md §17): matching, the longest prefix, checks, JSON, pickling."""

from __future__ import annotations

import pickle

import pytest
from recrawl.core.config import ParseSettings
from recrawl.core.engine.analysis import analyse_page
from recrawl.core.errors import InvalidArgument
from recrawl.core.net.urls import canonical
from recrawl.core.policy.change_rules import (
    ChangeRule,
    ChangeRules,
    RuledSignature,
    RuledSignatures,
    kind_for,
    project_rules,
    save_rules,
    signature_for,
)
from recrawl.core.policy.maintext_signature import MAX_MARKUP_CHARS
from recrawl.core.policy.signature import Signature, make_signature

BOUNDS = ParseSettings()
PAGE = (
    "<html><head><title>Grossberg</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>The Grossberg is taller than thought</h1>"
    "<p class='ticker'>Trending now: {ticker}</p>"
    "<p>Surveyors returned from the summit of the Grossberg last week with new measurements "
    "of the highest peak in the eastern range.</p>{extra}</article></body></html>"
)


def html(ticker: str = "Storm closes the coastal road", extra: str = "") -> bytes:
    return PAGE.format(ticker=ticker, extra=extra).encode()


def sign(signature: Signature, body: bytes) -> bytes | None:
    """As a crawl signs a fetched page (its parse, its text, its links)."""
    return analyse_page("http://example.org/story", "text/html", body, signature, BOUNDS).signature


def test_a_prefix_without_a_scheme_matches_http_and_https_and_only_its_host():
    rule = ChangeRule("Example.org/news/")
    assert rule.matches("http://example.org/news/today")
    assert rule.matches("https://example.org/news/")
    assert not rule.matches("http://example.org/sport/")
    assert not rule.matches("http://example.org.evil/news/")
    site = ChangeRule("example.org")
    assert site.matches("http://example.org/") and site.matches("https://example.org/a")
    assert not site.matches("http://example.organic/")
    assert site.matches("http://example.org:8080/")  # a host named alone: on any port
    https = ChangeRule("https://example.org/")
    assert https.matches("https://example.org/a") and not https.matches("http://example.org/a")
    # the host on any port too (its other ports' paths: matches decides)
    assert rule.starts == (
        "http://example.org/news/",
        "https://example.org/news/",
        "http://example.org:",
        "https://example.org:",
    )
    assert https.starts == ("https://example.org/", "https://example.org:")


def test_the_longest_prefix_wins_and_of_equal_ones_the_one_naming_its_scheme():
    site = ChangeRule("example.org", remove=(".ticker",))
    news = ChangeRule("example.org/news/", ignore=("Updated .*",))
    https_news = ChangeRule("https://example.org/news/", added_only=True)
    rules = ChangeRules((site, news, https_news))
    assert rules.rule_for("http://example.org/about") == site
    assert rules.rule_for("http://example.org/news/1") == news
    assert rules.rule_for("https://example.org/news/1") == https_news
    assert rules.rule_for("http://other.example/") is None
    assert rules.without("example.org/news/").rule_for("http://example.org/news/1") == site
    with pytest.raises(InvalidArgument, match=r"no change rule on 'nowhere\.example'"):
        rules.without("nowhere.example")


def test_with_rule_replaces_the_rule_on_the_same_prefix():
    rules = ChangeRules((ChangeRule("example.org", remove=(".a",)),))
    replaced = rules.with_rule(ChangeRule("example.org", remove=(".b",)))
    assert replaced.rules == (ChangeRule("example.org", remove=(".b",)),)


def test_rules_go_through_json_and_the_store_unchanged(project):
    rules = ChangeRules(
        (
            ChangeRule("example.org", remove=(".ticker", "#quote"), only=("article",)),
            ChangeRule("example.org/live/", ignore=(r"\d+:\d+",), added_only=True, notify=False),
        )
    )
    assert ChangeRules.from_json(rules.to_json()) == rules
    assert rules.to_json()[1] == {
        "prefix": "example.org/live/",
        "remove": [],
        "only": [],
        "ignore": [r"\d+:\d+"],
        "added_only": True,
        "notify": False,
    }
    save_rules(rules)
    assert project_rules() == rules


def test_a_bad_rule_is_one_line_naming_it_and_saves_nothing(project):
    good = ChangeRules((ChangeRule("example.org", remove=(".ticker",)),))
    save_rules(good)
    bad = [
        (ChangeRule("example.org/x", remove=("div[[",)), "--remove 'div[[' is not a CSS selector"),
        (ChangeRule("example.org/x", only=("",)), "--only '' is not a CSS selector"),
        (ChangeRule("example.org/x", ignore=("(unclosed",)), "--ignore"),
        (ChangeRule("example.org/x", ignore=("",)), "an empty pattern"),
        (ChangeRule("not a prefix"), "not a URL prefix"),
        (ChangeRule("http:///path"), "no host"),
    ]
    for rule, complaint in bad:
        with pytest.raises(InvalidArgument) as caught:
            save_rules(good.with_rule(rule))
        message = str(caught.value)
        assert "\n" not in message and message.startswith("change rule ") and complaint in message
    assert project_rules() == good


def test_the_digest_names_what_the_rule_does_not_where():
    one = ChangeRule("example.org", remove=(".ticker",))
    assert one.digest == ChangeRule("other.example/x", remove=(".ticker",), notify=False).digest
    assert one.digest != ChangeRule("example.org", remove=(".quote",)).digest
    assert one.digest != ChangeRule("example.org", remove=(".ticker",), added_only=True).digest


def test_a_rule_that_changes_no_text_signs_as_without_one():
    base = make_signature("main-text")
    signatures = RuledSignatures(base, ChangeRules((ChangeRule("example.org", notify=False),)))
    assert signature_for(signatures, "http://example.org/") is base
    assert kind_for(signatures, "http://example.org/") == "main-text"


def test_remove_only_and_ignore_decide_what_is_signed():
    base = make_signature("main-text")
    plain = sign(base, html())
    assert plain != sign(base, html("Council approves the new depot"))
    removed = RuledSignature(base, ChangeRule("example.org", remove=(".ticker",)))
    assert removed.kind == f"main-text+rule:{removed.rule.digest}"
    assert sign(removed, html()) == sign(removed, html("Another headline"))
    edit = "<p>Correction: the summit stands at 2,345 m above the sea, not 2,435 m.</p>"
    assert sign(removed, html()) != sign(removed, html(extra=edit))
    ignored = RuledSignature(base, ChangeRule("example.org", ignore=("Trending now: .*",)))
    assert sign(ignored, html()) == sign(ignored, html("Another one"))
    only = RuledSignature(base, ChangeRule("example.org", only=(".ticker",)))
    assert sign(only, html()) != sign(only, html("Another one"))
    assert sign(only, html()) == sign(only, html(extra=edit))


def test_added_only_is_the_same_when_no_line_was_added():
    base = make_signature("main-text")
    signature = RuledSignature(base, ChangeRule("example.org", added_only=True))
    extra = "<p>The hut opens on the first of June and closes at the end of September.</p>"
    with_line = sign(signature, html(extra=extra))
    without = sign(signature, html())
    assert signature.same(with_line, without)  # a line removed
    assert not signature.same(without, with_line)  # a line added
    assert not signature.same(b"\x00" * 5, without)  # malformed: it cannot vouch


def test_ruled_signatures_pickle_for_the_analysis_processes():
    rules = ChangeRules(
        (
            ChangeRule("example.org", remove=(".ticker",)),
            ChangeRule("example.org/q/", ignore=(r"(['\"])Quote: .*?\1",)),  # backtracking
        )
    )
    signatures = RuledSignatures(make_signature("main-text"), rules)
    copy = pickle.loads(pickle.dumps(signatures))
    assert copy == signatures
    for url in ("http://example.org/a", "http://example.org/q/b", "http://other.example/"):
        ours, theirs = signature_for(signatures, url), signature_for(copy, url)
        assert ours.kind == theirs.kind
        assert sign(ours, html()) == sign(theirs, html())


@pytest.mark.parametrize(
    ("prefix", "url", "covered"),
    [
        ("127.0.0.1", "http://127.0.0.1:8000/a", True),  # a site on a port of its own
        ("127.0.0.1:9000", "http://127.0.0.1:8000/a", False),
        ("example.org/news", "http://example.org:81/news/1", True),
        ("example.org/news", "http://example.org:81/other", False),
        ("example.org", "http://example.org.evil:81/", False),
        ("[::1]", "http://[::1]:8080/", True),
        ("[::1]:80", "http://[::1]:8080/", False),
        # the store keeps no scheme's own port: a prefix naming it matched nothing
        ("https://example.org:443/news", "https://example.org/news/1", True),
        ("http://example.org:80", "http://example.org/", True),
        ("https://example.org:8443/", "https://example.org/", False),
        # a query right after the host: the root's (it matched nothing)
        ("example.org?lang=de", "https://example.org/?lang=de&page=2", True),
        ("example.org?lang=de", "https://example.org/a?lang=de", False),
    ],
)
def test_a_prefix_naming_no_port_covers_its_host_on_any_port(prefix, url, covered):
    rule = ChangeRule(prefix)
    assert rule.matches(url) is covered
    # the store narrows by the rule's starts before matches decides: none is lost there
    if covered:
        assert any(url.startswith(start) for start in rule.starts)


def test_an_ignore_pattern_out_of_time_on_a_line_is_a_miss_for_the_rest_of_the_page():
    # catastrophic for a backtracking engine on the a's; RE2 cannot run the backreference
    rule = ChangeRule("example.org", ignore=(r"^(a|aa)+(?!b)\1$|Trending now",))
    slow = "a" * 40 + "b"
    assert rule.lines(["Trending now", slow, "Trending now"]) == [slow, "Trending now"]
    # one time limit per page, not one per line (2,000 lines: 100 s before)
    assert rule.lines([slow] * 2_000) == [slow] * 2_000


def test_a_prefix_typed_in_unicode_matches_the_urls_as_the_store_keeps_them():
    # the store's URLs have an IDNA host and a percent-encoded path (core/net/urls.py)
    stored = canonical("https://bücher.example/neuheiten/ä?x=1")
    for prefix in ("Bücher.example/neuheiten/ä", "https://bücher.example/", "bücher.example"):
        rule = ChangeRule(prefix)
        assert rule.matches(stored), prefix
        assert any(stored.startswith(start) for start in rule.starts), prefix
    assert not ChangeRule("bücher.example/ö").matches(stored)


def test_a_page_where_only_selects_nothing_is_read_whole_not_signed_empty():
    base = make_signature("main-text")
    missing = ChangeRule("example.org", only=("div.nothing",))
    signature = RuledSignature(base, missing)
    edit = "<p>Correction: the summit stands at 2,345 m above the sea, not 2,435 m.</p>"
    # empty text signed alike at every fetch: a real edit was unchanged for good
    assert sign(signature, html()) != sign(signature, html(extra=edit))
    assert "Correction" in missing.markup(html(extra=edit).decode())
    assert "Correction" not in ChangeRule("example.org", only=(".ticker",)).markup(
        html(extra=edit).decode()
    )


@pytest.mark.parametrize(
    ("pattern", "kept"),
    [(r"\d*", "Score a to today"), (r"(?<=a)\d*", "Score a to 3 today")],  # RE2, backtracking
)
def test_an_ignore_pattern_matching_the_empty_string_spaces_no_letters_apart(pattern, kept):
    rule = ChangeRule("example.org", ignore=(pattern,))
    assert rule.lines(["Score a12 to 3 today"]) == [kept]


def test_a_rule_set_on_a_prefix_written_otherwise_replaces_the_one_it_covers_as():
    url = "http://example.org/story"
    old = ChangeRule("Example.org", only=(".ticker",))
    new = ChangeRule("example.org/", remove=(".ticker",))
    rules = ChangeRules((old,)).with_rule(new)
    # both kept, the older (as long, first in order) went on deciding: the new one never did
    assert rules.rules == (new,) and rules.rule_for(url) == new
    assert rules.without("EXAMPLE.ORG").rules == ()
    # a scheme covers less: a rule of its own
    https = ChangeRule("https://example.org/", added_only=True)
    assert set(rules.with_rule(https).rules) == {https, new}
    with pytest.raises(InvalidArgument):
        rules.without("https://example.org/")


def test_a_rules_selectors_apply_to_a_page_too_large_for_the_extractor():
    long = "".join(
        f"<p>Reply {n} in a long thread about the harbour, its ferries and the dredging.</p>"
        for n in range(14_000)
    )  # over main-text's 1,000,000 characters of markup

    def large(ticker: str, extra: str = "") -> bytes:
        return (
            f"<html><body><article><p class='ticker'>Trending now: {ticker}</p>{long}{extra}"
            "</article></body></html>"
        ).encode()

    assert len(large("x")) > MAX_MARKUP_CHARS
    removed = RuledSignature(
        make_signature("main-text"), ChangeRule("example.org", remove=(".ticker",))
    )
    assert sign(removed, large("Storm warning")) == sign(removed, large("Ferry timetable"))
    edit = "<p>Correction: the dredging starts in May.</p>"
    assert sign(removed, large("Storm warning")) != sign(removed, large("Storm warning", edit))
    only = RuledSignature(make_signature("main-text"), ChangeRule("example.org", only=(".ticker",)))
    assert sign(only, large("Storm warning")) == sign(only, large("Storm warning", edit))
