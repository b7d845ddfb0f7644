"""All engine settings, each with its facts written once.

Settings are frozen, keyword-only dataclasses; the CLI and the GUI build them from
flags and what the project keeps with :func:`with_overrides`. Every field is made by
:func:`~recrawl.core.setting_schema.setting`: its default, help, unit, bounds, whether
a project keeps it and its ``recrawl crawl`` flag. :data:`SETTINGS` reads them back
(:class:`~recrawl.core.setting_schema.SettingSpec`), and everything else is made from
it: the crawl flags, ``recrawl settings``, the app's Settings dialog, the checks of a
value, and ``docs/settings.md`` (``docs/make_settings_table.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from recrawl.core.clock import DAY, HOUR
from recrawl.core.errors import InvalidArgument
from recrawl.core.setting_schema import BYTES, SECONDS, SettingSpec, carried, setting, specs

from recrawl import __version__

DEFAULT_CONTACT_URL = "https://github.com/recrawl/recrawl"


#: An HTTP header value as h11 sends it: visible ASCII, spaces and tabs only between.
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+(?:[ \t]+[\x21-\x7e]+)*")


def _user_agent_rule(value: str) -> str | None:
    """A User-Agent names the crawler: robots.txt groups are matched by its first word
    (``Archivist`` in ``Archivist/1.0 (+https://…)``), and servers log who came."""
    if not value.split("/", 1)[0].split():
        return "must start with the crawler's name, like 'Archivist/1.0 (+https://example.org/contact)'"
    if not _HEADER_VALUE.fullmatch(value):
        # httpx sends str headers as ASCII and h11 refuses a value with space at its ends
        # or a control character: such an agent fails every fetch (or the crawl at once)
        return "must be printable ASCII on one line, with no space at either end"
    return None


@dataclass(frozen=True, kw_only=True)
class FetchSettings:
    read_timeout: float = setting(
        30.0,
        help="How long the server may send nothing before the fetch fails.",
        unit=SECONDS,
        min=0,
        above_min=True,  # a timeout of 0 would fail every fetch at once
        stored=True,
        flag="--timeout",
    )
    total_timeout: float | None = setting(
        None,
        help="How long a whole fetch may take, however slowly the bytes trickle in (a server "
        "that drips one byte a second never trips the read timeout). Not set: ten read "
        "timeouts, at most 2 minutes.",
        unit=SECONDS,
        min=0,
        above_min=True,
        stored=True,
    )
    user_agent: str = setting(
        f"Recrawl/{__version__} (+{DEFAULT_CONTACT_URL})",
        help="Sent on every request: the crawler's name first (robots.txt is matched by it), "
        "then how to reach its operator.",
        stored=True,
        rule=_user_agent_rule,
    )
    max_body_bytes: int = setting(
        10 * 1024 * 1024,
        help="A response's body, at most, as received and unpacked (a gzip bomb stops "
        "here): a larger one is cut, said in its fetch record.",
        unit=BYTES,
        min=1,
        stored=True,
    )
    connect_timeout: float = setting(
        10.0,
        help="How long opening a TCP/TLS connection may take.",
        unit=SECONDS,
        min=0,
        above_min=True,
        flag="--timeout",
    )
    # RFC 9309 §2.3.1.2 asks at least five where redirects are followed at all
    max_redirects: int = setting(
        5,
        help="Redirects followed from a robots.txt, or from one embedded URL, at most "
        "(a page's redirect is a link, and counts toward the depth limit instead).",
        unit="redirects",
        min=0,
    )
    accept_encoding: str = setting(
        "gzip, deflate",
        help="The content codings asked for; a body is archived as received, still encoded.",
    )

    @property
    def whole_request_timeout(self) -> float:
        """Seconds one fetch may take from start to end (``total_timeout`` or derived)."""
        if self.total_timeout is not None:
            return self.total_timeout
        return min(TOTAL_TIMEOUT_FACTOR * self.read_timeout, MAX_TOTAL_TIMEOUT)


#: The whole-request limit is this many read timeouts when not set...
TOTAL_TIMEOUT_FACTOR = 10.0
#: ...and at most this many seconds.
MAX_TOTAL_TIMEOUT = 120.0


@dataclass(frozen=True, kw_only=True)
class PolitenessSettings:
    delay: float = setting(
        1.0,
        help="Time between two requests to one host (jittered by ±50 %).",
        unit=SECONDS,
        min=0,
        stored=True,
        flag="--delay",
    )
    per_host: int = setting(
        1,
        help="Parallel connections to one host.",
        unit="connections",
        min=1,
        stored=True,
        flag="--per-host",
    )
    concurrency: int = setting(
        16,
        help="Parallel requests over all hosts.",
        unit="requests",
        min=1,
        stored=True,
        flag="--concurrency",
    )
    obey_robots: bool = setting(
        True,
        help="Obey robots.txt (RFC 9309).",
        stored=True,
        flag="--ignore-robots",
        flag_help="Fetch what robots.txt disallows (only with the site owner's consent).",
    )
    retry_after_cap: float = setting(
        7 * DAY,
        help="The longest wait a Retry-After (or back-off) can impose on a host: a server "
        "asking for years is cut to this, with a warning in the crawl's log.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    # RFC 9309 §2.5: a crawler parses at least 500 KiB
    max_robots_bytes: int = setting(
        500 * 1024,
        help="A robots.txt is read up to this size; what lies past it is not seen.",
        unit=BYTES,
        min=1,
    )
    jitter: float = setting(
        0.5,
        help="The delay is drawn uniformly between delay·(1−jitter) and delay·(1+jitter).",
        min=0,
        max=1,
    )
    robots_ttl: float = setting(
        DAY,
        help="How long a host's robots.txt is trusted before it is fetched again.",
        unit=SECONDS,
        min=0,
    )
    max_crawl_delay: float = setting(
        30.0, help="A robots.txt Crawl-delay is honoured up to this.", unit=SECONDS, min=0
    )
    backoff: float = setting(
        5.0,
        help="The first back-off after a 429 or 503 without Retry-After; it doubles each time.",
        unit=SECONDS,
        min=0,
    )
    max_retry_after: float = setting(
        300.0,
        help="A Retry-After longer than this gives up on the URL for this round.",
        unit=SECONDS,
        min=0,
    )
    inround_retries: int = setting(
        2,
        help="How often one URL is retried within a round after a 429 or 503.",
        unit="retries",
        min=0,
    )


@dataclass(frozen=True, kw_only=True)
class ParseSettings:
    """What one page's HTML parse may cost: the parser's time grows with the square of
    the nesting depth (100,000 nested ``<div>`` elements took 90 s), its memory with the
    elements. A page past a bound is parsed up to it and archived whole; its fetch
    record says where the parse stopped and why."""

    # Browsers stop nesting deeper too (Blink's parser at 512 levels).
    max_depth: int = setting(
        512,
        help="Elements open at once (nesting depth) in one page's parse.",
        unit="elements",
        min=1,
    )
    # Parse trees take ~300 bytes an element: 200,000 are ~60 MB.
    max_elements: int = setting(
        200_000, help="Start tags read in one page's parse.", unit="elements", min=1
    )
    processes: int | None = setting(
        None,
        help="Processes that analyse pages (parse, links, signature) beside the crawl's own, "
        "so its interpreter lock stays free for fetching and the app's window. Not set: one "
        "a core, at most four; 0: none, pages are analysed in the crawl's process.",
        unit="processes",
        min=0,
    )
    hash_links: bool = setting(
        False,
        help="The analysis also hashes the page's outlinks, so the crawl can count the new "
        "ones (set by the crawl when its schedule learns from them: discovery).",
    )
    #: (docs/design.md §14)
    max_embeds: int = setting(
        1_000,
        help="What one page (or stylesheet) embeds, at most: its distinct images, styles, "
        "scripts, fonts… A page of 100,000 images keeps the first ones; its capture's "
        "completeness counts the rest as missing.",
        unit="embeds",
        min=0,
        stored=True,
    )
    # tinycss2 reads 1 to 1.5 MB of real CSS a second: any stylesheet costs about 2 s at most.
    max_feeds: int = setting(
        10,
        help="Feeds one page advertises that are kept (a page can advertise any number).",
        unit="feeds",
        min=0,
    )
    max_title: int = setting(
        500,
        help="A page's title is kept cut to this (a page can stuff megabytes into one).",
        unit="characters",
        min=0,
    )
    max_invalid_links: int = setting(
        100,
        help="Malformed links of one page kept (as rejected links) with their reason; the "
        "rest are only counted, so a page of 100,000 bad links cannot flood the store.",
        unit="links",
        min=0,
    )
    max_invalid_chars: int = setting(
        2000,
        help="A malformed link longer than this is kept cut, with its length said.",
        unit="characters",
        min=1,
    )
    # a header is bounded by the HTTP client, tens of kB
    max_header_embeds: int = setting(
        100, help="Embeds read from one response's Link header, at most.", unit="embeds", min=0
    )
    # each level's markup is a part of the level above, so a few levels bound the work
    # to a few times the page
    max_srcdoc_depth: int = setting(
        3,
        help="iframe srcdoc documents inside srcdoc documents read, at most.",
        unit="levels",
        min=0,
    )
    # the head of a bundle names its assets
    max_script_chars: int = setting(
        1_000_000,
        help="A script's text read for the assets it names, at most.",
        unit="characters",
        min=0,
    )
    max_script_guesses: int = setting(
        50,
        help="Embeds guessed from one script (or one document's inline scripts), at most.",
        unit="embeds",
        min=0,
    )
    # the larger are searched as text, as htmldate does
    max_json_chars: int = setting(
        1_000_000,
        help="A JSON-LD script longer than this is not parsed for a page's dates.",
        unit="characters",
        min=0,
    )
    max_json_values: int = setting(
        10_000, help="JSON values walked in one script, at most.", unit="values", min=0
    )
    max_stylesheet_chars: int = setting(
        2_000_000,
        help="A stylesheet is read for what it embeds up to this many characters (its "
        "capture is whole whatever its size), and so is a page's CSS in all (its style "
        "blocks and attributes); the fetch record says where it was cut.",
        unit="characters",
        min=1,
    )


@dataclass(frozen=True, kw_only=True)
class EmbedSettings:
    """What pages embed (docs/design.md §14): stylesheets, scripts, images, fonts, icons,
    media, frames, fetched with the page that embeds them, wherever they are hosted, with
    robots.txt and each host's politeness. The chain's embed rules decide which; an embed
    is fetched again once its own interval has passed (revisit records when unchanged)."""

    enabled: bool = setting(
        True,
        help="Fetch what pages embed: stylesheets, scripts, images, fonts (off: the pages alone).",
        stored=True,
    )
    #: Heritrix's transclusion hops.
    max_hops: int = setting(
        2,
        help="Embeds of embeds followed this deep: a page's stylesheet is one hop, the font "
        "that stylesheet names two; what lies deeper is missing.",
        unit="hops",
        min=0,
        stored=True,
    )


#: How a page is captured: fetched over HTTP (its embeds found in its markup), or loaded
#: in a browser (what its scripts load recorded as they load it).
CAPTURE_MODES = ("http", "browser")
MIB = 1 << 20


#: A host's own capture mode is kept as this setting's name with ``@HOST``.
CAPTURE_MODE = "capture.mode"
#: A page's ``signature_kind`` when its archived capture is not to be compared with its
#: next fetch: its capture mode changed (raw HTML against a rendered page would be a
#: change every time), so that fetch says ``unknown`` and starts its signatures over;
#: re-signing under another kind leaves it so.
UNCOMPARABLE = "uncomparable"


def _capture_mode_rule(value: str) -> str | None:
    if value not in CAPTURE_MODES:
        return "must be " + " or ".join(CAPTURE_MODES)
    return None


@dataclass(frozen=True, kw_only=True)
class CaptureSettings:
    """Browser capture (docs/design.md §16): a page whose host is in ``browser`` mode is
    loaded in the system's Chromium, every response it loads is fetched by the crawl
    (robots.txt, the embed rules) and archived, and its rendered DOM and a screenshot are
    kept beside the capture. Each bound below ends that page's load with the reason in
    its fetch record; the crawl goes on."""

    mode: str = setting(
        "http",
        help="How pages are captured: http (fetched, their embeds found in the markup) or "
        "browser (loaded in Chromium, with what their scripts load). A host's own mode: "
        "capture.mode@HOST=browser.",
        stored=True,
        rule=_capture_mode_rule,
    )
    chromium: str = setting(
        "",
        help="The Chromium to capture with (empty: Debian's chromium package, or a "
        "chromium on the PATH).",
        stored=True,
    )
    page_timeout: float = setting(
        30.0,
        help="A page's load, at most: it is done at network idle or after this long, "
        "whichever comes first (its fetch record says it was cut).",
        unit=SECONDS,
        min=0,
        above_min=True,
        stored=True,
    )
    idle: float = setting(
        0.5,
        help="Network idle: no request of the page in flight for this long.",
        unit=SECONDS,
        min=0,
        above_min=True,
        stored=True,
    )
    tabs: int = setting(
        4,
        help="Pages loaded in the browser at once, at most, each in a tab of its own "
        "(and never more than politeness.concurrency).",
        unit="tabs",
        min=1,
        stored=True,
    )
    max_scrolls: int = setting(
        10,
        help="After the load, the page is scrolled down a screen at a time, at most this "
        "many times, for content that loads on scroll (0: not scrolled).",
        unit="scrolls",
        min=0,
        stored=True,
    )
    max_navigations: int = setting(
        10,
        help="Navigations of a page's own frame by its scripts, at most (a redirect loop "
        "in JavaScript stops here).",
        unit="navigations",
        min=1,
    )
    max_memory: int = setting(
        1024 * MIB,
        help="The browser's memory, all its processes together: above this it is "
        "restarted between pages.",
        unit=BYTES,
        min=64 * MIB,
        stored=True,
    )
    page_memory: int = setting(
        512 * MIB,
        help="The script heap of one page, at most (a page that allocates more crashes "
        "alone, said on its fetch record).",
        unit=BYTES,
        min=16 * MIB,
    )
    viewport_width: int = setting(
        1280, help="The browser window's width.", unit="pixels", min=320, max=7680
    )
    viewport_height: int = setting(
        800, help="The browser window's height.", unit="pixels", min=240, max=4320
    )
    screenshots: bool = setting(
        True, help="Keep a screenshot (PNG) of each browser capture.", stored=True
    )
    #: (host or domain, mode) pairs, by host: the sites with a mode of their own.
    host_modes: tuple[tuple[str, str], ...] = carried(
        (), why="capture.mode@HOST, kept by recrawl.core.policy.capture_modes"
    )

    def mode_for(self, host: str) -> str:
        """How pages of ``host`` are captured: the mode of the longest entry that is the
        host or a domain above it (``example.org`` covers ``www.example.org``), else
        :attr:`mode`."""
        entry = self.entry_for(host)
        return self.mode if entry is None else self._modes_by_host[entry]

    def entry_for(self, host: str) -> str | None:
        """The entry of :attr:`host_modes` that decides ``host``'s mode (None: none does)."""
        if not self.host_modes:
            return None
        modes = self._modes_by_host
        name = host.lower().removesuffix(".")
        while name not in modes:
            dot = name.find(".")
            if dot < 0:
                return None
            name = name[dot + 1 :]
        return name

    @cached_property
    def _modes_by_host(self) -> dict[str, str]:
        # the engine asks for every page: a lookup a label, not a scan of the entries
        return dict(self.host_modes)


@dataclass(frozen=True, kw_only=True)
class TrapSettings:
    """Limits on crawler traps: sites that make up pages without end (a calendar whose
    every day links the next, session ids, endless paths). A link held back by one is
    kept as a rejected link named for the limit (``possible trap PATTERN
    (traps.max_lattice 100)``), so "why was this not crawled?" has an answer; a due page
    held back by the per-host cap waits for the next round, said in the crawl's log. A
    large number lifts a limit."""

    #: Heritrix stops at 20 hops; sites watched whole run deeper.
    max_depth: int = setting(
        50,
        help="Links followed from a seed, at most (a seed is depth 0; a redirect is a link).",
        unit="links",
        min=0,
        stored=True,
    )
    max_pages_per_host_round: int = setting(
        5_000,
        help="Pages of one host taken into one round; the rest wait for the next round.",
        unit="pages",
        min=0,
        stored=True,
    )
    # A blog's pages, each linking the next (/page/40), are a chain as long: not cut.
    max_sequence: int = setting(
        40,
        help="A chain of pages whose URLs differ only by a growing number or date, each "
        "linking the next (/cal/2027-01-05 → /cal/2027-01-06), ends after this many: the "
        "next link is held back and reported as a possible trap with its pattern.",
        unit="pages",
        min=0,
        stored=True,
    )
    # A list of articles has an identifier (its most varied number has few links a
    # value); a thread's pages step by one number only: neither is a lattice.
    max_lattice: int = setting(
        100,
        help="Links of one pattern differing only in two numbers or more that fill a grid (a "
        "calendar linking the next and previous day, month and year: /cal/{n}/{n}/{n}): "
        "past this many, with lattice_grid or more for each value of their most varied number "
        "and pages of the pattern linking each other by one-number steps in two places "
        "or more, the pattern is reported as a possible trap and held back.",
        unit="links",
        min=0,
        stored=True,
    )
    lattice_grid: int = setting(
        8,
        help="A lattice has this many links, at least, for each value of its most varied number.",
        unit="links",
        min=1,
    )
    # each article of a news site has its own pattern: its slug is in it
    patterns_kept: int = setting(
        20_000,
        help="URL patterns one crawl follows at once for lattices; past this, the ones seen "
        "once or twice are forgotten.",
        unit="patterns",
        min=1,
    )
    allowed_patterns: tuple[str, ...] = setting(
        (),
        help="Trap patterns you allowed, as the crawl reported them (or with {n} for each "
        "number): their links are followed (the depth limit still holds).",
        stored=True,
    )


@dataclass(frozen=True, kw_only=True)
class WatchSettings:
    """How a watcher (``recrawl watch``, the app's Watch) waits between rounds (docs/design.md
    §10). It sleeps until the next page is due, but starts rounds no closer together
    than ``round_gap``: pages falling due a few seconds apart are fetched in one round
    (one segment), not one round each; a change of seeds, chain or settings wakes it at
    once whatever the gap."""

    round_gap: float = setting(
        300.0,
        help="Time from one watch round's start to the next one's, at least (pages wait that "
        "long at most past their due time).",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    offline_wait: float = setting(
        60.0,
        help="After a round in which no host answered (offline), the first wait before trying "
        "again; each offline round doubles it.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    offline_max_wait: float = setting(
        1800.0,
        help="The longest wait between two tries while offline.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    disk_wait: float = setting(
        300.0,
        help="After a crawl the full disk stopped, the first wait before trying again; each "
        "crawl it stops again doubles it.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    disk_max_wait: float = setting(
        3600.0,
        help="The longest wait between two tries while the disk is full.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    # The wall clock is read after each sleep, so a machine woken from suspend re-checks
    # what is due within this (a sleep's own timer stops while suspended). One look a
    # minute costs no measurable CPU.
    wake_check: float = setting(
        60.0, help="A watcher's longest single sleep.", unit=SECONDS, min=0, above_min=True
    )


@dataclass(frozen=True, kw_only=True)
class SourceSettings:
    """Sitemaps and feeds (docs/design.md §11): read on their own schedule, before each round,
    with the politeness and robots rules of their host. What they list goes through the
    chain like a link. A source past a bound is read up to it, said in one log line."""

    enabled: bool = setting(
        True,
        help="Read sitemaps and feeds, and find the pages they list (a page's own feeds are "
        "noted whether or not).",
        stored=True,
    )
    default_sitemaps: bool = setting(
        True,
        help="Try /sitemap.xml of every host with pages (robots.txt Sitemap: lines are read "
        "either way).",
        stored=True,
    )
    initial_interval: float = setting(
        6 * HOUR,
        help="Time between two readings of a new source; a reading that finds new pages "
        "halves it, one that finds none (or a 304) makes it half as long again, within the "
        "shortest and longest; a failed reading doubles it.",
        unit=SECONDS,
        min=0,
    )
    min_interval: float = setting(
        HOUR,
        help="The shortest time between two readings of a source (one that finds new pages "
        "is read twice as often, down to this).",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    max_interval: float = setting(
        7 * DAY,
        help="The longest time between two readings of a source (one that finds nothing new "
        "is read less often, up to this).",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    # sitemaps.org's limit is 50 MB uncompressed
    max_bytes: int = setting(
        50 * 1024 * 1024,
        help="A source's size, at most; gzip sitemaps are unpacked up to it too.",
        unit=BYTES,
        min=1,
    )
    # sitemaps.org's limit per file
    max_entries: int = setting(50_000, help="Entries read from one source.", unit="entries", min=0)
    # the protocol allows none
    max_index_depth: int = setting(
        2, help="Sitemap indexes within indexes, at most.", unit="levels", min=0
    )
    # a news site's index may list thousands
    max_sitemaps_per_host: int = setting(
        1_000,
        help="Sitemaps of one host read, at most: the first found are kept.",
        unit="sitemaps",
        min=0,
    )
    max_feeds_per_host: int = setting(
        20,
        help="Feeds of one host read, at most (a blog advertises a comments feed on every "
        "post): the first found are kept.",
        unit="feeds",
        min=0,
        stored=True,
    )
    max_reads_per_round: int = setting(
        2_000,
        help="Sources read before one round, at most; the rest wait for the next round.",
        unit="sources",
        min=0,
    )


@dataclass(frozen=True, kw_only=True)
class WorkerSettings:
    """Crawl workers on a shared store (docs/design.md §12): ``recrawl worker``, and a crawl
    or watch on PostgreSQL. Each leases the hosts it fetches; a lease runs out
    ``lease_seconds`` after its last renewal, timed by the database's clock."""

    # A worker whose renewals fail starts no fetch of those hosts once two thirds of it
    # passed since the last one.
    lease_seconds: float = setting(
        60.0,
        help="How long a worker's lease on a host lasts (a shared PostgreSQL store): its "
        "heartbeat renews it every third of this; a worker killed loses its hosts to "
        "the others this long after its last renewal, at most.",
        unit=SECONDS,
        min=0,
        above_min=True,  # a lease of 0 s would never hold a host
        stored=True,
    )


@dataclass(frozen=True, kw_only=True)
class DatabaseSettings:
    """A database server's faults (PostgreSQL, docs/design.md §12; a SQLite store has none):
    a crawl that loses its server (restarted, the network to it cut) waits for it, its
    batches kept, and tries again with growing pauses."""

    #: (``StoreLost``)
    give_up_after: float = setting(
        300.0,
        help="How long a crawl that lost its database server keeps trying before it ends; "
        "nothing committed is lost, and the pages not committed stay due.",
        unit=SECONDS,
        min=0,
        stored=True,
    )
    first_backoff: float = setting(
        0.25,
        help="The first pause before trying a lost database server again; each try "
        "doubles it, up to max_backoff.",
        unit=SECONDS,
        min=0,
        above_min=True,
    )
    max_backoff: float = setting(
        8.0,
        help="The longest pause between two tries of a lost database server.",
        unit=SECONDS,
        min=0,
    )
    connect_timeout: float = setting(
        10.0,
        help="How long connecting to a database server may take (unless its URL says "
        "connect_timeout).",
        unit=SECONDS,
        min=0,
        above_min=True,
    )


def apprise_module() -> Any:
    """Apprise, imported where notification URLs are set (not by every command)."""
    import warnings

    with warnings.catch_warnings():
        # its PGP plugin's import of imghdr warns on Python 3.11–3.12; nothing of ours
        warnings.simplefilter("ignore", DeprecationWarning)
        import apprise
        import apprise.result

        apprise.Apprise.instantiate("json://localhost/")  # its plugins load on first use
    return apprise


def _notify_urls_rule(value: tuple[str, ...]) -> str | None:
    """Each URL is one Apprise understands (its services' schemes and their parts)."""
    if not value:
        return None
    apprise = apprise_module()
    for url in value:
        if apprise.Apprise.instantiate(url) is None:
            return (
                f"{url!r} is not a notification URL Apprise understands (a service's "
                "scheme and its parts, like 'ntfy://topic' or 'json://host:port/path')"
            )
    return None


@dataclass(frozen=True, kw_only=True)
class NotifySettings:
    """Notifications to the archivist's services (docs/design.md §17): after each round with
    news, one message listing its pages (not first crawls, not embeds; a change rule with
    ``notify`` off leaves its pages out), sent through Apprise. A service that fails is
    said in the crawl's log, and gets the items with the next round's message."""

    urls: tuple[str, ...] = setting(
        (),
        help="Where each round's news goes: Apprise URLs (email, Matrix, ntfy, Gotify, Slack, "
        "a JSON webhook like json://host/path, ...); several allowed, apart by spaces.",
        stored=True,
        rule=_notify_urls_rule,
    )
    timeout: float = setting(
        15.0,
        help="How long a round's notification may take, all services together; one still "
        "unanswered then counts as failed (its items go with the next round).",
        unit=SECONDS,
        min=0,
        above_min=True,
        stored=True,
    )
    max_items: int = setting(
        20,
        help="Pages one message lists (a changed page with its first added and removed "
        "lines); it says how many more there are.",
        unit="pages",
        min=1,
        stored=True,
    )


#: Compaction by policy's choices (docs/design.md §18; core/archive/compaction/policy.py).
COMPACTION_FOLDS = ("day-month", "day", "month")


def _fold_rule(value: str) -> str | None:
    if value not in COMPACTION_FOLDS:
        return "must be " + ", ".join(COMPACTION_FOLDS[:-1]) + " or " + COMPACTION_FOLDS[-1]
    return None


@dataclass(frozen=True, kw_only=True)
class CompactionSettings:
    """Compaction by policy (docs/design.md §18): after each crawl, and between a watcher's
    rounds, the segments of finished periods are folded into one, superseded captures
    kept in history/, so a project watched for a year keeps a bounded number of segments.
    ``recrawl compact`` still compacts by hand."""

    auto: bool = setting(
        True,
        help="Fold finished periods' segments into one after each crawl and between watch "
        "rounds (superseded captures go to history/, never dropped).",
        stored=True,
    )
    fold: str = setting(
        "day-month",
        help="What is folded: day-month (a finished day's segments into one, then a finished "
        "month's into one), day (each finished day into one) or month (each finished month "
        "into one).",
        stored=True,
        rule=_fold_rule,
    )


@dataclass(frozen=True, kw_only=True)
class StorageSettings:
    """What the Storage view and ``recrawl storage`` watch (docs/design.md §18)."""

    warn_free: int = setting(
        2 << 30,
        help="Free space on the project's filesystem below which the Storage view and "
        "`recrawl storage` warn (0: never).",
        unit=BYTES,
        min=0,
        stored=True,
    )


@dataclass(frozen=True, kw_only=True)
class SearchSettings:
    """Full-text search through time (docs/design.md §19)."""

    index: bool = setting(
        True,
        help="Crawls index the text of each new version of a page as they commit it, for "
        "`recrawl search` and the Search panel (off: they index nothing, and the index is "
        "built up from the archive when search is next used).",
        stored=True,
    )


@dataclass(frozen=True, kw_only=True)
class CrawlSettings:
    # in the order `recrawl settings`, the app's Settings and docs/settings.md list them
    politeness: PolitenessSettings = field(default_factory=PolitenessSettings)
    fetch: FetchSettings = field(default_factory=FetchSettings)
    traps: TrapSettings = field(default_factory=TrapSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)
    sources: SourceSettings = field(default_factory=SourceSettings)
    workers: WorkerSettings = field(default_factory=WorkerSettings)
    database: DatabaseSettings = field(default_factory=DatabaseSettings)
    embeds: EmbedSettings = field(default_factory=EmbedSettings)
    capture: CaptureSettings = field(default_factory=CaptureSettings)
    notify: NotifySettings = field(default_factory=NotifySettings)
    compaction: CompactionSettings = field(default_factory=CompactionSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    parse: ParseSettings = field(default_factory=ParseSettings)
    rounds: int | None = setting(
        None,
        help="Stop after this many rounds (not set: until nothing is due).",
        unit="rounds",
        min=1,
        flag="--rounds",
    )
    max_pages: int | None = setting(
        None,
        help="Stop after this many fetches in all (not set: no limit).",
        unit="fetches",
        min=1,
        flag="--max-pages",
    )
    stop_grace: float = setting(
        2.0,
        help="After a stop, the fetches in flight get this long to finish.",
        unit=SECONDS,
        min=0,
    )
    round_size: int = setting(
        50_000, help="Pages taken into one round, best score first.", unit="pages", min=1
    )
    follow_nofollow: bool = setting(False, help="Follow links marked rel=nofollow.")
    commit_every: int = setting(
        200,
        help="Pages are committed to the store in batches of this many fetches, or after "
        "commit_seconds, whichever comes first.",
        unit="fetches",
        min=1,
    )
    commit_seconds: float = setting(
        1.0,
        help="Pages are committed to the store at least this often.",
        unit=SECONDS,
        min=0,
        above_min=True,
    )
    event_interval: float = setting(
        0.2,
        help="Progress events are handed to the observer (the app, the command line's "
        "report) at most this often.",
        unit=SECONDS,
        min=0,
    )
    max_retries: int = setting(
        3,
        help="Failed fetches (network errors, 5xx) before a page is marked gone; when a "
        "failed page is tried again is the schedule's call (its retry interval, one day).",
        unit="fetches",
        min=0,
    )
    # ~100 bytes a URL: a million is about 150 MB
    seen_limit: int = setting(
        1_000_000,
        help="Links whose filter verdict one crawl remembers (so a link met on every page is "
        "filtered and recorded once); past this the memory starts over, which costs only "
        "re-checking.",
        unit="links",
        min=1,
    )


@dataclass(frozen=True, kw_only=True)
class ProjectDefaults:
    """What a new project starts with (docs/design.md §4–§5): each is kept in the project
    and changed by its own command (``recrawl schedule``, ``signature``, ``scoring``,
    ``filter``) or the app's panel for it; a project made before a default changed keeps
    its own."""

    schedule: str = setting(
        "aronsson",
        help="The fetch schedule a new project starts with: when each page is due again.",
        command="recrawl schedule",
    )
    # the issue 13 default (docs/design.md §4/§5 said text-profile, which misses one
    # added sentence)
    signature: str = setting(
        "main-text",
        help="How a new project tells that a page changed: the signature of its main text.",
        command="recrawl signature",
    )
    scoring: str = setting(
        "inlinks",
        help="How a new project ranks pages when a round cannot take them all.",
        command="recrawl scoring",
    )
    chain_file: str = setting(
        "default-chain.toml",
        help="The URL filter chain a new project starts with, a file of the app's resources.",
        command="recrawl filter",
    )


@dataclass(frozen=True, kw_only=True)
class ViewSettings:
    """How much the app and the command line show of a capture (no project keeps these:
    a developer tunes them here)."""

    content_cap: int = setting(
        2 << 20,
        help="Decoded bytes of a payload read for its text: the content view shows as much, "
        "and captures are compared up to it.",
        unit=BYTES,
        min=1,
    )
    diff_max_lines: int = setting(
        20_000,
        help="Paragraphs of each side a diff compares; the rest is left out, and the diff "
        "says it was cut.",
        unit="lines",
        min=1,
    )
    diff_max_chars: int = setting(
        4 << 20,
        help="Characters of each side a diff compares; the rest is left out, and the diff "
        "says it was cut.",
        unit="characters",
        min=1,
    )
    diff_context: int = setting(
        3,
        help="Unchanged lines (or paragraphs) shown around each change of a diff; longer "
        "runs of them fold into one line.",
        unit="lines",
        min=0,
    )


#: The defaults of a new project (nothing changes them but a developer here).
PROJECT_DEFAULTS = ProjectDefaults()
#: What the app and the command line show (nothing changes them but a developer here).
VIEW = ViewSettings()


# -- the schema: every setting read back from its field ---------------------------------


#: The crawl's settings by dotted name (``politeness.delay``, ``rounds``).
CRAWL_SETTINGS: dict[str, SettingSpec] = {spec.name: spec for spec in specs(CrawlSettings)}
#: Every setting by dotted name: the crawl's, then the defaults of a new project
#: (``project.schedule``) and what the front ends show (``view.diff_context``).
SETTINGS: dict[str, SettingSpec] = {
    **CRAWL_SETTINGS,
    **{spec.name: spec for spec in specs(ProjectDefaults, "project.")},
    **{spec.name: spec for spec in specs(ViewSettings, "view.")},
}
#: The crawl settings a project keeps (``recrawl settings``, the app's Settings), in order:
#: those whose field says ``stored=True``.
STORABLE: dict[str, SettingSpec] = {name: s for name, s in SETTINGS.items() if s.stored}


def stored_spec(name: str) -> SettingSpec:
    """The setting ``name`` a project keeps; InvalidArgument naming the ones there are."""
    spec = STORABLE.get(name)
    if spec is None:
        raise InvalidArgument(f"no crawl setting {name!r} (there are: {', '.join(STORABLE)})")
    return spec


def setting_fields() -> tuple[SettingSpec, ...]:
    """Every setting a project may keep, in order: ``recrawl settings`` and the app's
    Settings dialog are made from these."""
    return tuple(STORABLE.values())


def parse_setting(name: str, text: str) -> object:
    """``text`` as typed for the kept setting ``name``, checked; InvalidArgument (one line
    naming it) if it is not one of its values. ``recrawl settings --set`` and the app's
    Settings dialog read values through this."""
    return stored_spec(name).parse(text)


def setting_text(name: str, value: object) -> str:
    """A value of setting ``name`` as it is typed (``0.5s``, ``10M``, ``true``)."""
    return SETTINGS[name].text(value)


def setting_value(settings: CrawlSettings, name: str) -> Any:
    """The value of the crawl setting with the dotted ``name`` (``politeness.delay``)."""
    value: Any = settings
    for part in name.split("."):
        value = getattr(value, part)
    return value


def with_overrides(
    settings: CrawlSettings, overrides: Mapping[str, object], *, kept: bool = True
) -> CrawlSettings:
    """``settings`` with the dotted names of ``overrides`` replaced.

    Each value is checked by its setting (:meth:`SettingSpec.check`: type, bounds): the
    one check a value from the store, ``recrawl settings``, the app or a flag passes. An
    unknown name or a bad value is an InvalidArgument naming it. ``kept``: only settings
    a project keeps (what the store holds); a crawl's flags pass False.
    """
    grouped: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for name, value in overrides.items():
        spec = stored_spec(name) if kept else CRAWL_SETTINGS.get(name)
        if spec is None:
            raise InvalidArgument(f"no crawl setting {name!r}")
        group, _, field_name = name.rpartition(".")
        (grouped.setdefault(group, {}) if group else top)[field_name] = spec.check(value)
    parts: dict[str, Any] = {
        group: replace(getattr(settings, group), **values) for group, values in grouped.items()
    }
    return replace(settings, **parts, **top)
