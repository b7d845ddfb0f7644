"""All engine settings, with their defaults documented once.

Settings are frozen, keyword-only dataclasses; the CLI and the GUI build them from
flags and preferences with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from recrawl.core.errors import InvalidArgument

from recrawl import __version__

DEFAULT_CONTACT_URL = "https://github.com/recrawl/recrawl"
#: The key of a field's metadata that holds its help (:func:`documented`).
HELP = "help"


def documented(default: Any, help_text: str) -> Any:
    """A field's default with its help for people: the sentences ``recrawl settings
    --help`` and the app's Settings show (every setting of :data:`STORABLE` has one)."""
    return field(default=default, metadata={HELP: help_text})


@dataclass(frozen=True, kw_only=True)
class FetchSettings:
    user_agent: str = documented(
        f"Recrawl/{__version__} (+{DEFAULT_CONTACT_URL})",
        "Sent on every request: the crawler's name first (robots.txt is matched by it), "
        "then how to reach its operator.",
    )
    #: Seconds to open a TCP/TLS connection.
    connect_timeout: float = 10.0
    read_timeout: float = documented(
        30.0, "How long the server may send nothing before the fetch fails (crawl --timeout)."
    )
    #: None: it follows the read timeout, :data:`TOTAL_TIMEOUT_FACTOR` times it, at
    #: most :data:`MAX_TOTAL_TIMEOUT`.
    total_timeout: float | None = documented(
        None,
        "How long a whole fetch may take, however slowly the bytes trickle in (a server "
        "that drips one byte a second never trips the read timeout). Not set: ten read "
        "timeouts, at most 2 minutes.",
    )
    #: Cap on the body as received *and* on its decompressed size (gzip bombs).
    max_body_bytes: int = documented(
        10 * 1024 * 1024,
        "A response's body, at most, as received and unpacked (a gzip bomb stops "
        "here): a larger one is cut, said in its fetch record.",
    )
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
    concurrency: int = documented(16, "Parallel requests over all hosts.")
    per_host: int = documented(1, "Parallel connections to one host.")
    delay: float = documented(1.0, "Time between two requests to one host (jittered by ±50 %).")
    #: The delay is drawn uniformly from [delay·(1−jitter), delay·(1+jitter)].
    jitter: float = 0.5
    obey_robots: bool = documented(True, "Obey robots.txt (RFC 9309).")
    #: Seconds a host's robots.txt is trusted before it is fetched again.
    robots_ttl: float = 24 * 3600.0
    #: ``Crawl-delay`` is honoured up to this many seconds.
    max_crawl_delay: float = 30.0
    #: First back-off after a 429/503 without ``Retry-After``; doubles each time.
    backoff: float = 5.0
    #: ``Retry-After`` longer than this gives up on the URL for this round.
    max_retry_after: float = 300.0
    retry_after_cap: float = documented(
        7 * 86400.0,
        "The longest wait a Retry-After (or back-off) can impose on a host: a server "
        "asking for years is cut to this, with a warning in the crawl's log.",
    )
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
    #: (docs/design.md §14)
    max_embeds: int = documented(
        1_000,
        "What one page (or stylesheet) embeds, at most: its distinct images, styles, "
        "scripts, fonts… A page of 100,000 images keeps the first ones; its capture's "
        "completeness counts the rest as missing.",
    )
    #: A stylesheet is read for what it embeds up to this many characters (its capture
    #: is whole whatever its size), and so is a page's CSS in all (its style blocks and
    #: attributes); the fetch record says where it was cut. tinycss2 reads 1 to 1.5 MB of
    #: real CSS a second: any stylesheet costs about 2 s at most.
    max_stylesheet_chars: int = 2_000_000


@dataclass(frozen=True, kw_only=True)
class EmbedSettings:
    """What pages embed (docs/design.md §14): stylesheets, scripts, images, fonts, icons,
    media, frames, fetched with the page that embeds them, wherever they are hosted, with
    robots.txt and each host's politeness. The chain's embed rules decide which; an embed
    is fetched again once its own interval has passed (revisit records when unchanged)."""

    enabled: bool = documented(
        True, "Fetch what pages embed: stylesheets, scripts, images, fonts (off: the pages alone)."
    )
    #: Heritrix's transclusion hops.
    max_hops: int = documented(
        2,
        "Embeds of embeds followed this deep: a page's stylesheet is one hop, the font "
        "that stylesheet names two; what lies deeper is missing.",
    )


@dataclass(frozen=True, kw_only=True)
class TrapSettings:
    """Limits on crawler traps: sites that make up pages without end (a calendar whose
    every day links the next, session ids, endless paths). A link held back by one is
    kept as a rejected link named for the limit (``possible trap PATTERN
    (traps.max_lattice 100)``), so "why was this not crawled?" has an answer; a due page
    held back by the per-host cap waits for the next round, said in the crawl's log. A
    large number lifts a limit."""

    #: Heritrix stops at 20 hops; sites watched whole run deeper.
    max_depth: int = documented(
        50, "Links followed from a seed, at most (a seed is depth 0; a redirect is a link)."
    )
    max_pages_per_host_round: int = documented(
        5_000, "Pages of one host taken into one round; the rest wait for the next round."
    )
    # A blog's pages, each linking the next (/page/40), are a chain as long: not cut.
    max_sequence: int = documented(
        40,
        "A chain of pages whose URLs differ only by a growing number or date, each "
        "linking the next (/cal/2027-01-05 → /cal/2027-01-06), ends after this many: the "
        "next link is held back and reported as a possible trap with its pattern.",
    )
    # A list of articles has an identifier (its most varied number has few links a
    # value); a thread's pages step by one number only: neither is a lattice.
    max_lattice: int = documented(
        100,
        "Links of one pattern differing only in two numbers or more that fill a grid (a "
        "calendar linking the next and previous day, month and year: /cal/{n}/{n}/{n}): "
        "past this many, with eight or more for each value of their most varied number "
        "and pages of the pattern linking each other by one-number steps in two places "
        "or more, the pattern is reported as a possible trap and held back.",
    )
    allowed_patterns: tuple[str, ...] = documented(
        (),
        "Trap patterns you allowed, as the crawl reported them (or with {n} for each "
        "number): their links are followed (the depth limit still holds).",
    )


@dataclass(frozen=True, kw_only=True)
class WatchSettings:
    """How a watcher (``recrawl watch``, the app's Watch) waits between rounds (docs/design.md
    §10). It sleeps until the next page is due, but starts rounds no closer together
    than ``round_gap``: pages falling due a few seconds apart are fetched in one round
    (one segment), not one round each; a change of seeds, chain or settings wakes it at
    once whatever the gap."""

    round_gap: float = documented(
        300.0,
        "Time from one watch round's start to the next one's, at least (pages wait that "
        "long at most past their due time).",
    )
    offline_wait: float = documented(
        60.0,
        "After a round in which no host answered (offline), the first wait before trying "
        "again; each offline round doubles it.",
    )
    offline_max_wait: float = documented(
        1800.0, "The longest wait between two tries while offline."
    )
    #: The longest single sleep: the wall clock is read after each, so a machine woken
    #: from suspend re-checks what is due within this (a sleep's own timer stops while
    #: suspended). One look a minute costs no measurable CPU.
    wake_check: float = 60.0


@dataclass(frozen=True, kw_only=True)
class SourceSettings:
    """Sitemaps and feeds (docs/design.md §11): read on their own schedule, before each round,
    with the politeness and robots rules of their host. What they list goes through the
    chain like a link. A source past a bound is read up to it, said in one log line."""

    enabled: bool = documented(
        True,
        "Read sitemaps and feeds, and find the pages they list (a page's own feeds are "
        "noted whether or not).",
    )
    default_sitemaps: bool = documented(
        True,
        "Try /sitemap.xml of every host with pages (robots.txt Sitemap: lines are read "
        "either way).",
    )
    #: Seconds between two readings of a new source; a reading that finds new pages
    #: halves it, one that finds none (or a 304) makes it half as long again, within
    #: [min_interval, max_interval]. A failed reading doubles it.
    initial_interval: float = 6 * 3600.0
    min_interval: float = documented(
        3600.0,
        "The shortest time between two readings of a source (one that finds new pages "
        "is read twice as often, down to this).",
    )
    max_interval: float = documented(
        7 * 86400.0,
        "The longest time between two readings of a source (one that finds nothing new "
        "is read less often, up to this).",
    )
    #: A source's size, at most (sitemaps.org's limit is 50 MB uncompressed); gzip
    #: sitemaps are unpacked up to it too.
    max_bytes: int = 50 * 1024 * 1024
    #: Entries read from one source (sitemaps.org's limit per file).
    max_entries: int = 50_000
    #: Sitemap indexes within indexes, at most (the protocol allows none).
    max_index_depth: int = 2
    #: Sitemaps of one host (a news site's index may list thousands): the first found
    #: are kept.
    max_sitemaps_per_host: int = 1_000
    max_feeds_per_host: int = documented(
        20,
        "Feeds of one host read, at most (a blog advertises a comments feed on every "
        "post): the first found are kept.",
    )
    #: Sources read before one round, at most; the rest wait for the next round.
    max_reads_per_round: int = 2_000


@dataclass(frozen=True, kw_only=True)
class WorkerSettings:
    """Crawl workers on a shared store (docs/design.md §12): ``recrawl worker``, and a crawl
    or watch on PostgreSQL. Each leases the hosts it fetches; a lease runs out
    ``lease_seconds`` after its last renewal, timed by the database's clock."""

    #: A worker whose renewals fail starts no fetch of those hosts once two thirds of
    #: it passed since the last one.
    lease_seconds: float = documented(
        60.0,
        "How long a worker's lease on a host lasts (a shared PostgreSQL store): its "
        "heartbeat renews it every third of this; a worker killed loses its hosts to "
        "the others this long after its last renewal, at most.",
    )


@dataclass(frozen=True, kw_only=True)
class DatabaseSettings:
    """A database server's faults (PostgreSQL, docs/design.md §12; a SQLite store has none):
    a crawl that loses its server (restarted, the network to it cut) waits for it, its
    batches kept, and tries again with growing pauses."""

    #: (``StoreLost``)
    give_up_after: float = documented(
        300.0,
        "How long a crawl that lost its database server keeps trying before it ends; "
        "nothing committed is lost, and the pages not committed stay due.",
    )


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
    "fetch.max_body_bytes": int,
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


#: The settings above that are numbers of bytes: people type and read them as sizes
#: (``10M``, ``512k``; powers of 1024), JSON keeps bytes.
SIZE_SETTINGS = frozenset({"fetch.max_body_bytes", "sources.max_bytes"})


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


def setting_help(name: str) -> str:
    """The help of the setting with the dotted ``name`` (empty if it has none)."""
    group, _, field_name = name.rpartition(".")
    owner = type(getattr(CrawlSettings(), group)) if group else CrawlSettings
    for item in fields(owner):
        if item.name == field_name:
            return str(item.metadata.get(HELP, ""))
    raise InvalidArgument(f"no crawl setting {name!r}")
