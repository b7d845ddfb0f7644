"""All engine settings, with their defaults documented once.

Settings are frozen, keyword-only dataclasses; the CLI and the GUI build them from
flags and preferences with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from recrawl.core.errors import InvalidArgument

from recrawl import __version__

DEFAULT_CONTACT_URL = "https://github.com/recrawl/recrawl"


@dataclass(frozen=True, kw_only=True)
class FetchSettings:
    #: Sent on every request; names Recrawl and how to reach its operator.
    user_agent: str = f"Recrawl/{__version__} (+{DEFAULT_CONTACT_URL})"
    #: Seconds to open a TCP/TLS connection.
    connect_timeout: float = 10.0
    #: Seconds without a byte from the server before the fetch fails (``--timeout``).
    read_timeout: float = 30.0
    #: Seconds for a whole fetch, however slowly the bytes trickle in (a server that
    #: drips one byte a second never trips the read timeout). None: it follows the read
    #: timeout, :data:`TOTAL_TIMEOUT_FACTOR` times it, at most :data:`MAX_TOTAL_TIMEOUT`
    #: (``--timeout 5`` gives 50 s; the default read timeout gives 120 s).
    total_timeout: float | None = None
    #: Cap on the body as received *and* on its decompressed size (gzip bombs).
    max_body_bytes: int = 10 * 1024 * 1024
    #: Content codings we accept; the body is archived as received, still encoded.
    accept_encoding: str = "gzip, deflate"

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
    #: Parallel requests over all hosts.
    concurrency: int = 16
    #: Parallel connections to one host.
    per_host: int = 1
    #: Seconds between two requests to one host (before jitter).
    delay: float = 1.0
    #: The delay is drawn uniformly from [delay·(1−jitter), delay·(1+jitter)].
    jitter: float = 0.5
    #: Obey robots.txt (RFC 9309).
    obey_robots: bool = True
    #: Seconds a host's robots.txt is trusted before it is fetched again.
    robots_ttl: float = 24 * 3600.0
    #: ``Crawl-delay`` is honoured up to this many seconds.
    max_crawl_delay: float = 30.0
    #: First back-off after a 429/503 without ``Retry-After``; doubles each time.
    backoff: float = 5.0
    #: ``Retry-After`` longer than this gives up on the URL for this round.
    max_retry_after: float = 300.0
    #: The longest wait a ``Retry-After`` (or back-off) can impose on a host: a server
    #: asking for years is cut to this, with a warning in the crawl's log.
    retry_after_cap: float = 7 * 86400.0
    #: How often one URL is retried within a round after a 429/503.
    inround_retries: int = 2


@dataclass(frozen=True, kw_only=True)
class ParseSettings:
    """What one page's HTML parse may cost: the parser's time grows with the square of
    the nesting depth (100,000 nested ``<div>`` elements took 90 s), its memory with the
    elements. A page past a bound is parsed up to it and archived whole; its fetch
    record says where the parse stopped and why."""

    #: Elements open at once (nesting depth). Browsers stop nesting deeper too (Blink's
    #: parser at 512 levels).
    max_depth: int = 512
    #: Start tags read. Parse trees take ~300 bytes an element: 200,000 are ~60 MB.
    max_elements: int = 200_000
    #: Processes that analyse pages (parse, links, signature) beside the crawl's own,
    #: so its interpreter lock stays free for fetching and the app's window. None: one a
    #: core, at most four (:func:`recrawl.core.engine.pool.default_processes`); 0: none,
    #: pages are analysed in the crawl's process.
    processes: int | None = None
    #: Whether the analysis also hashes the page's outlinks, so the crawl can count the
    #: new ones (set by the crawl when its schedule learns from them: ``discovery``).
    hash_links: bool = False
    #: What one page (or stylesheet) embeds, at most: its distinct images, styles,
    #: scripts, fonts... (DESIGN.md §14). A page of 100,000 images keeps the first ones;
    #: its capture's completeness counts the rest as missing, past this bound.
    max_embeds: int = 1_000
    #: A stylesheet is read for what it embeds up to this many characters (its capture
    #: is whole whatever its size), and so is a page's CSS in all (its style blocks and
    #: attributes); the fetch record says where it was cut. tinycss2 reads 1 to 1.5 MB of
    #: real CSS a second: any stylesheet costs about 2 s at most.
    max_stylesheet_chars: int = 2_000_000


@dataclass(frozen=True, kw_only=True)
class EmbedSettings:
    """What pages embed (DESIGN.md §14): stylesheets, scripts, images, fonts, icons,
    media, frames, fetched with the page that embeds them, wherever they are hosted, with
    robots.txt and each host's politeness. The chain's embed rules decide which; an embed
    is fetched again once its own interval has passed (revisit records when unchanged)."""

    #: Fetch what pages embed at all (off: the pages alone).
    enabled: bool = True
    #: Embeds of embeds followed this deep: a page's stylesheet is one hop, the font that
    #: stylesheet names two (Heritrix's transclusion hops); what lies deeper is missing.
    max_hops: int = 2


@dataclass(frozen=True, kw_only=True)
class TrapSettings:
    """Limits on crawler traps: sites that make up pages without end (a calendar whose
    every day links the next, session ids, endless paths). A link held back by one is
    kept as a rejected link named for the limit (``possible trap PATTERN
    (traps.max_lattice 100)``), so "why was this not crawled?" has an answer; a due page
    held back by the per-host cap waits for the next round, said in the crawl's log. A
    large number lifts a limit."""

    #: Links followed from a seed, at most (a seed is depth 0; a redirect is a link).
    #: Heritrix stops at 20 hops; sites watched whole run deeper.
    max_depth: int = 50
    #: Pages of one host taken into one round; the rest wait for the next round.
    max_pages_per_host_round: int = 5_000
    #: A chain of pages whose URLs differ only by a growing number or date, each linking
    #: the next (``/cal/2027-01-05`` → ``/cal/2027-01-06``), ends after this many: the
    #: next link is held back and reported as a possible trap with its pattern
    #: (``http://example.org/cal/{n}-{n}-{n}``). A blog's pages, each linking the next
    #: (``/page/40``), are a chain as long: not cut.
    max_sequence: int = 40
    #: Links of one pattern differing only in two numbers or more that fill a grid (a
    #: calendar linking the next and previous day, month and year: ``/cal/{n}/{n}/{n}``):
    #: past this many, with eight or more for each value of their most varied number (a
    #: list of articles has an identifier) and pages of the pattern linking each other by
    #: steps of one number in two places or more (a thread's pages step by one), the
    #: pattern is reported as a possible trap, its dates named, and held back.
    max_lattice: int = 100
    #: Patterns the user allowed (as reported): their chains are followed to the end
    #: (``max_depth`` still holds).
    allowed_patterns: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class WatchSettings:
    """How a watcher (``recrawl watch``, the app's Watch) waits between rounds (DESIGN.md
    §10). It sleeps until the next page is due, but starts rounds no closer together
    than ``round_gap``: pages falling due a few seconds apart are fetched in one round
    (one segment), not one round each; a change of seeds, chain or settings wakes it at
    once whatever the gap."""

    #: Seconds from one round's start to the next one's, at least (pages wait that long
    #: at most past their due time).
    round_gap: float = 300.0
    #: After a round in which no host answered (offline), the first wait before trying
    #: again; each offline round doubles it, up to ``offline_max_wait``.
    offline_wait: float = 60.0
    offline_max_wait: float = 1800.0
    #: The longest single sleep: the wall clock is read after each, so a machine woken
    #: from suspend re-checks what is due within this (a sleep's own timer stops while
    #: suspended). One look a minute costs no measurable CPU.
    wake_check: float = 60.0


@dataclass(frozen=True, kw_only=True)
class SourceSettings:
    """Sitemaps and feeds (DESIGN.md §11): read on their own schedule, before each round,
    with the politeness and robots rules of their host. What they list goes through the
    chain like a link. A source past a bound is read up to it, said in one log line."""

    #: Read sitemaps and feeds at all (the pages they list are found; a page's own feeds
    #: are noted whether or not).
    enabled: bool = True
    #: Try ``/sitemap.xml`` of every host with pages (robots.txt ``Sitemap:`` lines are
    #: read either way).
    default_sitemaps: bool = True
    #: Seconds between two readings of a new source; a reading that finds new pages
    #: halves it, one that finds none (or a 304) makes it half as long again, within
    #: [min_interval, max_interval]. A failed reading doubles it.
    initial_interval: float = 6 * 3600.0
    min_interval: float = 3600.0
    max_interval: float = 7 * 86400.0
    #: A source's size, at most (sitemaps.org's limit is 50 MB uncompressed); gzip
    #: sitemaps are unpacked up to it too.
    max_bytes: int = 50 * 1024 * 1024
    #: Entries read from one source (sitemaps.org's limit per file).
    max_entries: int = 50_000
    #: Sitemap indexes within indexes, at most (the protocol allows none).
    max_index_depth: int = 2
    #: Sitemaps of one host (a news site's index may list thousands), and feeds of one
    #: host (a blog advertises a comments feed on every post): the first found are kept.
    max_sitemaps_per_host: int = 1_000
    max_feeds_per_host: int = 20
    #: Sources read before one round, at most; the rest wait for the next round.
    max_reads_per_round: int = 2_000


@dataclass(frozen=True, kw_only=True)
class WorkerSettings:
    """Crawl workers on a shared store (DESIGN.md §12): ``recrawl worker``, and a crawl
    or watch on PostgreSQL. Each leases the hosts it fetches; a lease runs out
    ``lease_seconds`` after its last renewal, timed by the database's clock."""

    #: Seconds a host's lease lasts. A worker's heartbeat renews its leases every third
    #: of it; a worker killed (or cut off from the database) loses its hosts to the
    #: others this long after its last renewal, at most. A worker whose renewals fail
    #: starts no fetch of those hosts once two thirds of it passed since the last one.
    lease_seconds: float = 60.0


@dataclass(frozen=True, kw_only=True)
class DatabaseSettings:
    """A database server's faults (PostgreSQL, DESIGN.md §12; a SQLite store has none):
    a crawl that loses its server (restarted, the network to it cut) waits for it, its
    batches kept, and tries again with growing pauses."""

    #: How long to keep trying before the crawl ends with one line (``StoreLost``);
    #: nothing committed is lost, and the pages not committed stay due.
    give_up_after: float = 300.0


@dataclass(frozen=True, kw_only=True)
class CrawlSettings:
    fetch: FetchSettings = field(default_factory=FetchSettings)
    politeness: PolitenessSettings = field(default_factory=PolitenessSettings)
    parse: ParseSettings = field(default_factory=ParseSettings)
    traps: TrapSettings = field(default_factory=TrapSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)
    sources: SourceSettings = field(default_factory=SourceSettings)
    workers: WorkerSettings = field(default_factory=WorkerSettings)
    database: DatabaseSettings = field(default_factory=DatabaseSettings)
    embeds: EmbedSettings = field(default_factory=EmbedSettings)
    #: Stop after this many rounds (None: until nothing is due).
    rounds: int | None = None
    #: Stop after this many fetches in total (None: no limit).
    max_pages: int | None = None
    #: Pages taken into one round, best score first.
    round_size: int = 50_000
    #: Follow links marked ``rel=nofollow``.
    follow_nofollow: bool = False
    #: Pages are committed to the store in batches of this many fetches...
    commit_every: int = 200
    #: ...or after this many seconds, whichever comes first.
    commit_seconds: float = 1.0
    #: Progress events are handed to the observer at most this often (seconds).
    event_interval: float = 0.2
    #: Failed fetches (network errors, 5xx) before a page is marked gone; when a failed
    #: page is tried again is the schedule's call (``retry_interval``, one day).
    max_retries: int = 3
    #: Links whose filter verdict one crawl remembers (so a link met on every page is
    #: filtered and recorded once); past this the memory starts over, which costs only
    #: re-checking (~100 bytes a URL: a million is about 150 MB).
    seen_limit: int = 1_000_000


# -- settings a project keeps (the CLI and the app start from them; flags override) ----

#: The crawl settings a project may keep, by dotted name (``politeness.delay``), each
#: with its type. Adding a setting here makes it storable and settable by name.
STORABLE: dict[str, type] = {
    "politeness.delay": float,
    "politeness.per_host": int,
    "politeness.concurrency": int,
    "politeness.obey_robots": bool,
    "politeness.retry_after_cap": float,
    "fetch.read_timeout": float,
    "fetch.total_timeout": float,
    "fetch.user_agent": str,
    "traps.max_depth": int,
    "traps.max_pages_per_host_round": int,
    "traps.max_sequence": int,
    "traps.max_lattice": int,
    "traps.allowed_patterns": tuple,
    "watch.round_gap": float,
    "watch.offline_wait": float,
    "watch.offline_max_wait": float,
    "sources.enabled": bool,
    "sources.default_sitemaps": bool,
    "sources.min_interval": float,
    "sources.max_interval": float,
    "sources.max_feeds_per_host": int,
    "workers.lease_seconds": float,
    "database.give_up_after": float,
    "embeds.enabled": bool,
    "embeds.max_hops": int,
    "parse.max_embeds": int,
}


_KIND_WORDS = {
    float: "a number",
    int: "a whole number",
    bool: "true or false",
    str: "text",
    tuple: "a list of text",
}


def _list_value(name: str, value: object) -> tuple[str, ...]:
    """A list setting's value: a list of text, or one text of items split by white space
    (as typed: ``--set traps.allowed_patterns="A B"``)."""
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise InvalidArgument(f"{name} takes {_KIND_WORDS[tuple]}, not {value!r}")


#: The settings above that are lengths of time (float seconds): people type and read them
#: as durations (``0.5s``, ``30s``, ``1d``), JSON keeps seconds. Every such field is
#: listed, storable or not yet, so making one storable needs no line here.
DURATION_SETTINGS = frozenset(
    {
        "fetch.connect_timeout",
        "fetch.read_timeout",
        "fetch.total_timeout",
        "politeness.delay",
        "politeness.robots_ttl",
        "politeness.max_crawl_delay",
        "politeness.backoff",
        "politeness.max_retry_after",
        "politeness.retry_after_cap",
        "watch.round_gap",
        "watch.offline_wait",
        "watch.offline_max_wait",
        "watch.wake_check",
        "sources.initial_interval",
        "sources.min_interval",
        "sources.max_interval",
        "workers.lease_seconds",
        "database.give_up_after",
        "commit_seconds",
        "event_interval",
    }
)


def with_overrides(settings: CrawlSettings, overrides: Mapping[str, object]) -> CrawlSettings:
    """``settings`` with the dotted names of ``overrides`` replaced (``STORABLE``'s names).

    Values are checked against the setting's type; an unknown name or a wrong type is
    an InvalidArgument naming it.
    """
    # checked above against STORABLE's types; dataclasses.replace takes them by name
    grouped: dict[str, dict[str, Any]] = {}
    top: dict[str, Any] = {}
    for name, value in overrides.items():
        kind = STORABLE.get(name)
        if kind is None:
            known = ", ".join(sorted(STORABLE))
            raise InvalidArgument(f"no crawl setting {name!r} (there are: {known})")
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is tuple:
            value = _list_value(name, value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise InvalidArgument(f"{name} takes {_KIND_WORDS[kind]}, not {value!r}")
        group, _, field_name = name.rpartition(".")
        (grouped.setdefault(group, {}) if group else top)[field_name] = value
    parts: dict[str, Any] = {
        group: replace(getattr(settings, group), **values) for group, values in grouped.items()
    }
    return replace(settings, **parts, **top)
