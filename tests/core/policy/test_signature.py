"""Signatures (docs/design.md §5): what each kind counts as a change."""

from __future__ import annotations

import hashlib
import re
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from recrawl.core.errors import InvalidArgument
from recrawl.core.policy import signature as signature_module
from recrawl.core.policy.schedule import Change
from recrawl.core.policy.signature import (
    SIGNATURES,
    MainTextSignature,
    Md5Signature,
    OutlinksSignature,
    SimhashSignature,
    TextProfileSignature,
    compare,
    make_signature,
)

# A realistic "about" page (~500 words) whose footer carries the things that change on
# every fetch without the page changing: a visit counter and a timestamp.
LIBRARY_PAGE = """\
Welcome to the Millbrook Public Library

The Millbrook Public Library has served the town and the surrounding villages since
1887, when a group of mill workers pooled their savings to buy the first two hundred
books. Today the library holds more than forty thousand books, a growing collection of
films and music, and a local history archive that draws researchers from across the
region. The library is open to everyone, and a library card is free for residents of
the town and the neighbouring villages.

Opening hours

The main building on River Street is open from nine in the morning until eight in the
evening on weekdays, and from ten until four on Saturdays. The library is closed on
Sundays and on public holidays. The reading room on the first floor stays quiet at all
times, and the children's room on the ground floor is open during the same hours as
the main building. During the summer the library also opens a small reading tent in
the park next to the river, where children can borrow books without a library card.

Services

Members can borrow up to twelve books at a time for three weeks, and can renew each
book twice online or at the front desk. The library offers free computers and wireless
internet, printing and scanning at low cost, and a quiet study room that members can
book for up to three hours a day. Our staff are happy to help with research, with
finding books in other libraries through interlibrary loan, and with the online
catalogue. For members who cannot visit the library in person, volunteers deliver
books to homes in the town every second Thursday.

The local history archive

The archive on the second floor holds the records of the old cotton mill, parish
registers, maps of the town from the eighteenth century onwards, and thousands of
photographs donated by families over the years. The archive is open on Tuesdays and
Thursdays, and researchers should book a visit at least a week in advance so that the
staff can bring the records they need from the store. Many of the photographs and maps
are now available online in our digital collection, which we extend every month.

Events

Every week the library runs story time for young children on Wednesday mornings, a
reading group for adults on the first Monday of each month, and a computer help
session on Friday afternoons. In the autumn the library hosts the Millbrook book
festival, with talks by local authors, workshops for young writers, and a book sale
whose proceeds buy new books for the children's room. All events are free, but places
for the workshops are limited, so please book them at the front desk or online.

Supporting the library

The Friends of Millbrook Library is a group of volunteers who raise money for the
library, help with events, and keep the garden behind the building in good order. New
members are always welcome. You can also support the library by donating books in good
condition, which we either add to the collection or sell at the book festival.

Contact us at the front desk, by telephone, or by email. We look forward to seeing you.

You are visitor number {visits}. Last updated {updated}.
"""

NEW_EVENTS_PARAGRAPH = """\
Starting this spring, the Wednesday story time moves to Saturday mornings so that
working parents can join, and the reading group meets twice a month: once for fiction
and once for history, poetry and memoir. A new series of evening lectures on
genealogy, the river, and the mill's history begins in March; tickets are free but
must be reserved because the lecture hall holds only sixty people.
"""

# A different page altogether, about 300 words.
GARDENING_PAGE = """\
Growing tomatoes on a small balcony is easier than most people think. Choose a sunny
spot that gets at least six hours of direct sun, because tomatoes need warmth and light
to ripen their fruit. Compact varieties such as cherry or bush tomatoes suit containers
best; tall varieties need stakes and a sheltered corner out of the wind. Use a pot that
holds at least twenty litres of compost, with drainage holes in the bottom, and stand
it on a tray so that water does not drip onto the neighbours below. Sow the seeds
indoors in early spring, about eight weeks before the last frost, and keep the
seedlings on a bright windowsill. When they have two or three true leaves, move each
seedling into its own small pot, and plant them out once the nights stay warm. Water
deeply and regularly, ideally in the morning, so the compost stays evenly moist;
irregular watering makes the fruit split. Once the first flowers appear, feed the
plants every week with a liquid fertiliser high in potassium. Pinch out the side shoots
that grow between the main stem and the leaves of tall varieties, so the plant puts its
energy into fruit rather than foliage. Bush varieties need no pinching. Watch for
yellowing leaves near the bottom of the plant, which usually means the plant is short
of water or nutrients, and remove any leaves that show brown spots to stop disease from
spreading. Pick the tomatoes when they are fully coloured and slightly soft, and keep
them at room temperature rather than in the fridge, where they lose their flavour. At
the end of the season, pull up the plants, add the old compost to the garden or a
compost heap, and wash the pots before storing them for next year.
"""


def library_page(visits: int = 12345, updated: str = "2024-03-14 09:26 UTC") -> str:
    return LIBRARY_PAGE.format(visits=visits, updated=updated)


def words_of(text: str) -> list[str]:
    return text.split()


def first_words(text: str, count: int) -> str:
    return " ".join(words_of(text)[:count])


def text_sig(text: str) -> bytes:
    return TextProfileSignature().compute(text.encode("utf-8"), text, ())


# --- md5 ---


def test_md5_changes_with_any_byte() -> None:
    sig = Md5Signature()
    old = sig.compute(b"<p>hello</p>", "hello", ())
    assert old == hashlib.md5(b"<p>hello</p>").digest()
    assert sig.same(old, sig.compute(b"<p>hello</p>", "other text", ()))
    assert not sig.same(old, sig.compute(b"<p>hello </p>", "hello", ()))


# --- text-profile ---


def test_realistic_page_is_long_enough() -> None:
    assert 450 <= len(words_of(library_page())) <= 650


def test_text_profile_ignores_a_visit_counter() -> None:
    assert text_sig(library_page(visits=12345)) == text_sig(library_page(visits=12346))
    assert text_sig(library_page(visits=99)) == text_sig(library_page(visits=100))


def test_text_profile_ignores_a_timestamp() -> None:
    old = text_sig(library_page(updated="2024-03-14 09:26 UTC"))
    assert old == text_sig(library_page(updated="2024-03-15 17:02 UTC"))
    long_form = text_sig(library_page(updated="31 March 2024, 9:26 pm"))
    assert long_form == text_sig(library_page(updated="1 April 2024, 5:02 am"))


def test_text_profile_limit_a_timestamp_word_also_in_the_body() -> None:
    # Inherited from Nutch: "Thursday" is in the body once, so in the footer it makes a
    # pair that reaches the profile; moving to "Friday" (also once in the body) swaps
    # which pair is there. Counters and numeric dates never hit this.
    thursday = text_sig(library_page(updated="Thursday 14 March"))
    assert thursday != text_sig(library_page(updated="Friday 15 March"))


def test_text_profile_sees_a_changed_paragraph() -> None:
    page = library_page()
    events = page[page.index("Every week") : page.index("Supporting the library")]
    rewritten = page.replace(events, NEW_EVENTS_PARAGRAPH + "\n")
    assert rewritten != page
    assert text_sig(page) != text_sig(rewritten)


def test_text_profile_sees_an_added_paragraph() -> None:
    page = library_page()
    extended = page.replace("Supporting the library", NEW_EVENTS_PARAGRAPH + "\nSupporting")
    assert text_sig(page) != text_sig(extended)


def test_text_profile_ignores_case_punctuation_and_layout() -> None:
    page = library_page()
    shouted = page.upper()
    repunctuated = re.sub(r"[.,;:']", lambda m: {".": "!", ",": ";"}.get(m[0], " - "), page)
    reflowed = " ".join(page.split())
    for variant in (shouted, repunctuated, reflowed):
        assert variant != page
        assert text_sig(variant) == text_sig(page)


def test_text_profile_of_a_short_page_keeps_every_word() -> None:
    # With no repeated word Nutch's QUANT is 1, so every word counts, even a number.
    sig = TextProfileSignature()
    assert sig.profile("Closed today, reopening Monday") == (
        "closed 1\nmonday 1\nreopening 1\ntoday 1"
    )
    assert text_sig("Visitors: 12345") != text_sig("Visitors: 12346")


def test_text_profile_follows_nutch_quantisation_and_order() -> None:
    sig = TextProfileSignature()
    # Words of 2 characters or fewer go; once any word repeats QUANT is 2, so single
    # words go too; ties are ordered by the word (NUTCH-2381).
    assert sig.profile("The cat and the hat. THE end, cat! An ox; an ox.") == "cat 2\nthe 2"
    # maxFreq 250 × 0.01 = 2.5 rounds half up (Java Math.round), so QUANT is 3 and a
    # count of 5 is rounded down to 3 (half-to-even rounding would give QUANT 2 and 4).
    text = "word " * 250 + "other " * 5 + "pair " * 2
    assert sig.profile(text) == "word 249\nother 3"
    assert TextProfileSignature(min_token_len=1).profile("ab ab abc") == "ab 2"


@given(st.lists(st.sampled_from(["alpha", "Beta", "gamma1", "de", "x\n", "\t", ", ", "  "])))
def test_text_profile_read_a_piece_at_a_time_is_the_profile_of_the_whole(
    words: list[str],
) -> None:
    # a long text is tokenised in pieces cut at white space (a list of 10 MB's words
    # was 80 MB): here pieces of a few characters, against one piece for the whole
    text = "".join(words) * 3
    with patch.object(signature_module, "PIECE", 10**9):
        whole = TextProfileSignature().profile(text)
    with patch.object(signature_module, "PIECE", 7):
        pieces = list(signature_module._pieces(text))
        assert TextProfileSignature().profile(text) == whole
    assert "".join(pieces) == text
    assert all(len(piece) >= 7 for piece in pieces[:-1])


def test_text_profile_without_text_uses_the_payload() -> None:
    sig = TextProfileSignature()
    page = library_page()
    # Non-HTML pages come with text None: the payload is read as UTF-8.
    assert sig.compute(page.encode("utf-8"), None, ()) == text_sig(page)
    assert sig.compute(b"caf\xe9 caf\xe9 menu", None, ()) == sig.compute(
        b"", "caf\ufffd caf\ufffd menu", ()
    )
    # No text at all: Nutch falls back to MD5 of the content.
    empty_html = b"<html><body><img src=a.png></body></html>"
    assert sig.compute(empty_html, "", ()) == hashlib.md5(empty_html).digest()


def test_text_profile_rejects_nonsense_parameters() -> None:
    with pytest.raises(InvalidArgument):
        TextProfileSignature(min_token_len=-1)
    with pytest.raises(InvalidArgument):
        TextProfileSignature(quant_rate=1.5)


# --- outlinks ---

LINKS = ("https://x.org/a", "https://x.org/b", "https://y.org/")


def test_outlinks_removed_links_are_not_a_change() -> None:
    sig = OutlinksSignature()
    old = sig.compute(b"", None, LINKS)
    assert sig.same(old, sig.compute(b"", None, LINKS[:1]))
    assert sig.same(old, sig.compute(b"", None, ()))
    assert compare(sig, old, "outlinks", sig.compute(b"", None, LINKS[1:])) is Change.UNCHANGED


def test_outlinks_a_new_link_is_a_change() -> None:
    sig = OutlinksSignature()
    old = sig.compute(b"", None, LINKS)
    new = sig.compute(b"", None, (*LINKS[1:], "https://x.org/c"))
    assert not sig.same(old, new)
    assert compare(sig, old, "outlinks", new) is Change.CHANGED
    assert not sig.same(sig.compute(b"", None, ()), sig.compute(b"", None, LINKS[:1]))


def test_outlinks_signature_is_the_set_of_links() -> None:
    sig = OutlinksSignature()
    old = sig.compute(b"a", "a", LINKS)
    assert len(old) == 8 * len(LINKS)
    # Order, duplicates, text and payload do not matter.
    assert old == sig.compute(b"b", "b", (*reversed(LINKS), LINKS[0]))
    assert sig.compute(b"", None, ()) == b""
    assert sig.same(b"", b"")


def test_outlinks_malformed_stored_signature_is_a_change() -> None:
    sig = OutlinksSignature()
    assert not sig.same(b"\x00" * 5, sig.compute(b"", None, ()))


def test_outlinks_tolerate_a_lone_surrogate() -> None:
    assert len(OutlinksSignature().compute(b"", None, ("https://x.org/\ud800",))) == 8


# --- simhash ---


def test_simhash_one_word_changed_is_a_near_duplicate() -> None:
    page = first_words(library_page(), 300)
    words = words_of(page)
    assert len(words) == 300
    sig = SimhashSignature()
    old = sig.compute(b"", page, ())
    assert len(old) == 8
    for position in (10, 150, 290):
        changed = " ".join([*words[:position], "xylophone", *words[position + 1 :]])
        new = sig.compute(b"", changed, ())
        assert sig.same(old, new), position


def test_simhash_different_pages_are_not_the_same() -> None:
    sig = SimhashSignature()
    library = sig.compute(b"", first_words(library_page(), 300), ())
    garden = sig.compute(b"", first_words(GARDENING_PAGE, 300), ())
    assert not sig.same(library, garden)
    assert compare(sig, library, "simhash", garden) is Change.CHANGED


def test_simhash_threshold_is_the_hamming_distance() -> None:
    old = bytes(8)
    three_bits = (0b10101).to_bytes(8, "big")
    four_bits = (0b10111).to_bytes(8, "big")
    assert SimhashSignature().same(old, three_bits)
    assert not SimhashSignature().same(old, four_bits)
    assert SimhashSignature(max_distance=4).same(old, four_bits)
    assert not SimhashSignature(max_distance=0).same(old, three_bits)
    assert not SimhashSignature().same(old, bytes(9))


def test_simhash_without_words_hashes_the_payload() -> None:
    sig = SimhashSignature()
    assert not sig.same(sig.compute(b"\x89PNG one", None, ()), sig.compute(b"\x89PNG two", "", ()))


def test_simhash_shingles_and_bad_parameters() -> None:
    page = first_words(GARDENING_PAGE, 300)
    reordered = " ".join(reversed(words_of(page)))
    # Single words ignore order; 3-word shingles do not.
    assert SimhashSignature().compute(b"", page, ()) == SimhashSignature().compute(
        b"", reordered, ()
    )
    shingled = SimhashSignature(shingle_size=3)
    assert not shingled.same(shingled.compute(b"", page, ()), shingled.compute(b"", reordered, ()))
    assert len(shingled.compute(b"", "two words", ())) == 8
    with pytest.raises(InvalidArgument):
        SimhashSignature(max_distance=65)
    with pytest.raises(InvalidArgument):
        SimhashSignature(shingle_size=0)


# --- every kind ---


@given(
    kind=st.sampled_from(sorted(SIGNATURES)),
    payload=st.binary(max_size=300),
    text=st.none() | st.text(max_size=300),
    links=st.lists(st.text(max_size=30), max_size=8).map(tuple),
)
@settings(deadline=None)  # main-text's first call imports trafilatura (about a second)
def test_every_kind_is_deterministic_and_equal_to_itself(
    kind: str, payload: bytes, text: str | None, links: tuple[str, ...]
) -> None:
    sig = make_signature(kind)
    first = sig.compute(payload, text, links)
    assert first == make_signature(kind).compute(payload, text, links)
    assert sig.same(first, first)
    assert compare(sig, first, kind, first) is Change.UNCHANGED


@pytest.mark.parametrize(
    ("kind", "cls"),
    [
        ("md5", Md5Signature),
        ("text-profile", TextProfileSignature),
        ("outlinks", OutlinksSignature),
        ("simhash", SimhashSignature),
        ("main-text", MainTextSignature),
    ],
)
def test_make_signature_by_kind(kind: str, cls: type) -> None:
    sig = make_signature(kind)
    assert isinstance(sig, cls)
    assert sig.kind == kind


def test_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(InvalidArgument, match="unknown signature 'sha1'") as error:
        make_signature("sha1")
    assert "main-text, md5, outlinks, simhash, text-profile" in str(error.value)


def test_compare_without_a_comparable_signature_is_unknown() -> None:
    sig = TextProfileSignature()
    new = text_sig(library_page())
    assert compare(sig, None, None, new) is Change.UNKNOWN
    assert compare(sig, None, "text-profile", new) is Change.UNKNOWN
    assert compare(sig, new, "md5", new) is Change.UNKNOWN
    assert compare(sig, new, "text-profile", new) is Change.UNCHANGED
    assert compare(sig, new, "text-profile", text_sig(GARDENING_PAGE)) is Change.CHANGED
