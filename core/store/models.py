"""The store's schema (docs/design.md §2) as peewee models on the active store (:mod:`.active`).

Nothing here runs queries: those live in :mod:`recrawl.core.store`. All datetimes are naive UTC.
Offsets and sizes in WARC files, and the ids of the tables that grow with every fetch, are
64-bit (SQLite's integers all are; PostgreSQL's INTEGER is 32-bit).
"""

from __future__ import annotations

import json
from typing import Any

from peewee import (
    SQL,
    AutoField,
    BigAutoField,
    BigIntegerField,
    BlobField,
    CharField,
    DateTimeField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    Model,
    TextField,
)
from recrawl.core.store.active import DB as DB  # the models' database, re-exported


class JSONField(TextField):
    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, sort_keys=True)

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


class BaseModel(Model):
    class Meta:
        database = DB
        legacy_table_names = False


class PageStatus:
    UNFETCHED = "unfetched"
    FETCHED = "fetched"
    NOTMODIFIED = "notmodified"
    GONE = "gone"
    REDIRECT_TEMP = "redirect_temp"
    REDIRECT_PERM = "redirect_perm"
    RETRY = "retry"
    ROBOTS_DENIED = "robots_denied"
    #: Rejected by the chain applied (docs/design.md §10): kept with its captures, never
    #: fetched; its rejected-links row says why (:mod:`recrawl.core.store.filtered`).
    FILTERED = "filtered"

    ALL = (
        UNFETCHED,
        FETCHED,
        NOTMODIFIED,
        GONE,
        REDIRECT_TEMP,
        REDIRECT_PERM,
        RETRY,
        ROBOTS_DENIED,
        FILTERED,
    )


class PageKind:
    """What a row of :class:`Page` is (docs/design.md §14)."""

    #: A page: decided by the filter chain, fetched on its schedule, news when it changes.
    PAGE = "page"
    #: Something a page needs to be seen (a stylesheet, a script, an image, a font...):
    #: decided by the chain's embed rules, fetched with a page that embeds it once its own
    #: interval has passed, never news.
    EMBED = "embed"

    ALL = (PAGE, EMBED)


class Page(BaseModel):
    id = AutoField()
    url = TextField(unique=True)
    host = CharField(index=True)
    #: :class:`PageKind`; a URL keeps its kind, but an embed a page links to (and the
    #: chain accepts) becomes a page.
    kind = CharField(default=PageKind.PAGE, constraints=[SQL(f"DEFAULT '{PageKind.PAGE}'")])
    status = CharField(default=PageStatus.UNFETCHED, index=True)
    first_seen = DateTimeField(index=True)
    first_fetched = DateTimeField(null=True)
    last_fetched = DateTimeField(null=True)
    next_fetch = DateTimeField(index=True)
    content_changed_at = DateTimeField(null=True)
    prev_content_changed_at = DateTimeField(null=True)
    server_last_modified = DateTimeField(null=True)
    etag = TextField(null=True)
    fetch_interval = FloatField()
    retries = IntegerField(default=0)
    score = FloatField(default=1.0, index=True)
    #: OPIC cash not yet handed on to the page's outlinks (scoring.py).
    cash = FloatField(default=0.0)
    #: Estimated Poisson change rate (changes per second), when a schedule estimates one.
    change_rate = FloatField(null=True)
    signature = BlobField(null=True)
    signature_kind = CharField(null=True)
    segment = CharField(null=True, index=True)
    # Pointer to the latest capture (a response or a revisit record).
    capture_file = TextField(null=True)
    capture_offset = BigIntegerField(null=True)
    capture_length = BigIntegerField(null=True)
    # Pointer to the response record holding the latest payload; equals the capture
    # for a response, is the revisit's target for a revisit (liveness and `show`).
    payload_segment = CharField(null=True)
    payload_file = TextField(null=True)
    payload_offset = BigIntegerField(null=True)
    payload_length = BigIntegerField(null=True)
    payload_record_id = TextField(null=True)
    payload_date = DateTimeField(null=True)
    payload_digest = CharField(null=True)
    content_type = TextField(null=True)
    depth = IntegerField(default=0)
    discovered_from = TextField(null=True)
    metadata = JSONField(default=dict)
    #: The <title> of the latest successful HTML fetch (None: none, or not HTML).
    title = TextField(null=True)
    #: How the page was first found (:class:`DiscoveredVia`); ``discovered_from`` is the
    #: page, sitemap or feed it was found in (None for a seed).
    discovered_via = CharField(null=True)
    #: When the page says it was published (its own date, else its sitemap's ``lastmod``
    #: or its feed entry's date; None when unknown), UTC.
    published_at = DateTimeField(null=True)
    #: The page's outlinks at its latest HTML fetch, as sorted 8-byte hashes, kept while
    #: the schedule counts new ones (``discovery``; None otherwise).
    outlinks = BlobField(null=True)
    #: Estimated rate of new outlinks (per second), when a schedule estimates one.
    link_rate = FloatField(null=True)
    #: What the latest capture embeds (:mod:`recrawl.core.store.embeds`): the canonical
    #: URLs of a page's images, styles and scripts, a stylesheet's imports and fonts, a
    #: redirect's target; so a 304 fetches them too. None: nothing (or not yet known).
    embed_refs = BlobField(null=True)

    class Meta:
        # Covers segment liveness (store.segment_summaries): the payload counts without
        # reading a million table rows. (kind, next_fetch): the due pages, and the
        # earliest next fetch, without stepping over the embeds (never due by themselves).
        # (host, kind): a host's pages without reading its embeds (the Sites panel, a
        # scope entry's hosts; a CDN host holds embeds alone).
        indexes = (
            (("payload_segment", "segment", "payload_offset", "capture_offset"), False),
            (("kind", "next_fetch"), False),
            (("host", "kind"), False),
        )


class DiscoveredVia:
    """How a page was first found (docs/design.md §11)."""

    SEED = "seed"
    LINK = "link"
    SITEMAP = "sitemap"
    FEED = "feed"
    REDIRECT = "redirect"
    #: Embedded by a page (or a stylesheet) ``discovered_from`` (docs/design.md §14).
    EMBED = "embed"

    ALL = (SEED, LINK, SITEMAP, FEED, REDIRECT, EMBED)


class SourceKind:
    """What a :class:`Source` is."""

    SITEMAP = "sitemap"
    FEED = "feed"

    ALL = (SITEMAP, FEED)


class Source(BaseModel):
    """A sitemap or a feed, read on its own schedule for the pages it lists (docs/design.md §11).

    Its pages are pages like any other (discovered ``via`` it); this row says when it
    is read next and what its last reading found.
    """

    id = AutoField()
    url = TextField(unique=True)
    kind = CharField()
    host = CharField(index=True)
    #: Where it was found: "robots" (a ``Sitemap:`` line), "default" (``/sitemap.xml``),
    #: "index" (a sitemap index), "page" (``<link rel="alternate">``), "inject".
    found_via = CharField()
    #: The robots.txt, sitemap index or page it was found in (None: injected, default).
    found_from = TextField(null=True)
    first_seen = DateTimeField()
    next_fetch = DateTimeField(index=True)
    fetch_interval = FloatField()
    last_fetched = DateTimeField(null=True)
    http_status = IntegerField(null=True)
    etag = TextField(null=True)
    last_modified = DateTimeField(null=True)
    #: Entries (URLs) it listed when last read.
    entries = IntegerField(default=0)
    #: Why the last reading failed (None: it did not).
    error = TextField(null=True)


class Segment(BaseModel):
    id = AutoField()
    name = CharField(unique=True)
    created_at = DateTimeField()
    closed_at = DateTimeField(null=True)
    # "open" while a round writes it; "closed" once the WARC and CDXJ are renamed.
    state = CharField(default="open")
    warc_file = TextField()
    # Bytes of the WARC the store has committed pointers into; recovery truncates here.
    committed_bytes = BigIntegerField(default=0)
    records = IntegerField(default=0)
    bytes = BigIntegerField(default=0)
    #: The worker that writes it (docs/design.md §12; None: a crawl that is no worker): its
    #: open segment is recovered only once that worker is dead (store.workers).
    worker = CharField(null=True)


class Compaction(BaseModel):
    """The journal of one compaction (docs/design.md §7), so a killed one can be finished or undone.

    ``copying``: the new files exist only under temporary names and no page points at
    them; recovery deletes them. ``committed``: pages point at the new segment (one
    transaction); recovery renames what is left and deletes the old segments.
    ``done`` or ``rolled_back``: nothing left to do; kept as a log.
    """

    id = AutoField()
    name = CharField(unique=True)  # the new segment's name (and its history file's)
    state = CharField(default="copying")
    started_at = DateTimeField()
    finished_at = DateTimeField(null=True)
    sources = JSONField()  # names of the segments being compacted
    drop_superseded = IntegerField(default=0)
    summary = JSONField(null=True)


class CrawlRun(BaseModel):
    """One crawl (``recrawl crawl``, the app's Start): when it started and ended, what it did.

    The crawl writes the row when it starts and completes it when it ends, so a row
    without ``ended_at`` is a crawl that never ended: killed, or still running (``pid``).
    """

    id = AutoField()
    started_at = DateTimeField(index=True)
    ended_at = DateTimeField(null=True)
    pid = IntegerField(null=True)
    rounds = IntegerField(default=0)
    fetched = IntegerField(default=0)
    errors = IntegerField(default=0)
    new_urls = IntegerField(default=0)
    #: Stopped on request (Stop, Ctrl-C) before nothing was due.
    stopped = IntegerField(default=0)


class FetchEvent(BaseModel):
    id = BigAutoField()
    page = ForeignKeyField(Page, backref="events", on_delete="CASCADE", index=True)
    fetched_at = DateTimeField()
    http_status = IntegerField(null=True)
    change = CharField(default="unknown")
    interval_before = FloatField(null=True)
    interval_after = FloatField(null=True)
    segment = CharField(null=True)
    bytes = BigIntegerField(default=0)
    elapsed_ms = FloatField(null=True)
    error = TextField(null=True)
    #: A page capture's completeness (docs/design.md §14): how many of its embeds are archived,
    #: and the missing ones as [url, reason] pairs (at most
    #: :data:`recrawl.core.store.embeds.MISSING_KEPT`; ``embeds_missing_count`` counts
    #: all). None: not a page capture, or made before embeds were archived (or the crawl
    #: stopped before its embeds were done).
    embeds = IntegerField(null=True)
    embeds_missing = JSONField(null=True)
    embeds_missing_count = IntegerField(null=True)
    #: What this capture embeds, when it differs from the capture before (as
    #: ``Page.embed_refs``; b"": nothing any more): an export of an older capture takes
    #: the embeds it had, not the page's latest (:func:`recrawl.core.store.embed_trees`).
    embed_refs = BlobField(null=True)


class NewsKind:
    """What a news item says happened to its page (docs/design.md §10)."""

    #: The page's first successful fetch.
    NEW = "new"
    #: A fetch whose change is ``changed``.
    CHANGED = "changed"
    #: The page became gone.
    GONE = "gone"
    #: Fetched successfully again after being gone.
    BACK = "back"
    #: A host's first crawl (docs/design.md §15): one item for every page archived until the
    #: host first had nothing left unfetched (:class:`Baseline`); ``new`` is a page
    #: found after that.
    BASELINE = "baseline"

    ALL = (BASELINE, NEW, CHANGED, GONE, BACK)


class News(BaseModel):
    """One news item: something that happened to a page, written with its fetch event.

    ``host`` repeats the page's (which never changes) so that the app's counts by day
    and site, and a site's items, come from this table's indexes alone.
    """

    id = BigAutoField()
    page = ForeignKeyField(Page, on_delete="CASCADE", index=True)
    at = DateTimeField()
    kind = CharField()
    host = CharField()
    #: A ``changed`` item's first lines of its diff ("+ added", "- removed"; docs/design.md
    #: §17): None until made, "" when its diff has none to show (or its captures are gone).
    summary = TextField(null=True)
    #: The prefix of the change rule its diff was read under (None: none).
    rule = TextField(null=True)

    class Meta:
        # newest first since X, and the counts by day (covered: no table reads); of one
        # kind; of one site
        indexes = (
            (("at", "kind", "host"), False),
            (("kind", "at"), False),
            (("host", "at"), False),
        )


class Baseline(BaseModel):
    """A host's first crawl (docs/design.md §15): the pages it archived, and when it was done.

    A host's first successful page fetch starts it (with its news item of kind
    ``baseline``, which stands for every page archived until the host first has nothing
    left unfetched); the end of the round that leaves the host nothing unfetched
    completes it. From then on a page is ``new`` news when it was found after that:
    its id is above ``last_page`` (the newest page id at completion; ids only grow).
    A host of a project from before baselines has a completed row with ``last_page``
    0 and no news item: every page it finds is new, as it was.
    """

    id = AutoField()
    host = CharField(unique=True)
    #: The page the news item names: the host's seed (else its first page archived);
    #: None for a host that was crawled before baselines.
    page = ForeignKeyField(Page, null=True, on_delete="SET NULL")
    #: Pages archived by the first crawl (their first successful fetch).
    pages = IntegerField(default=0)
    started_at = DateTimeField(null=True)
    completed_at = DateTimeField(null=True)
    #: The newest page id when it completed (None: still under way).
    last_page = BigIntegerField(null=True)


class Link(BaseModel):
    id = BigAutoField()
    source = ForeignKeyField(Page, on_delete="CASCADE", backref="outlinks")
    target = ForeignKeyField(Page, on_delete="CASCADE", backref="inlinks", index=True)
    first_seen = DateTimeField()

    class Meta:
        indexes = ((("source", "target"), True),)


class RejectedLink(BaseModel):
    id = BigAutoField()
    url = TextField(unique=True)
    # the column is named for what docs/design.md §2 calls it; Model.filter (a query
    # shortcut) is never used on this model
    filter = CharField()  # type: ignore[assignment]
    line = IntegerField(null=True)
    first_seen = DateTimeField()
    count = IntegerField(default=1)


class Robots(BaseModel):
    id = AutoField()
    origin = CharField(unique=True)
    fetched_at = DateTimeField()
    http_status = IntegerField(null=True)
    body = TextField(null=True)
    error = TextField(null=True)


class Worker(BaseModel):
    """A crawl worker (docs/design.md §12): ``recrawl worker``, or a crawl or watch on a shared
    store. Its heartbeat moves ``alive_until`` on (the database's clock); past it, and
    with no ``ended_at``, the worker is dead (killed, or cut off from the database)."""

    id = AutoField()
    name = CharField(unique=True)
    pid = IntegerField()
    machine = CharField()
    started_at = DateTimeField()
    heartbeat_at = DateTimeField()
    #: ``heartbeat_at`` plus the worker's lease: its leases expire by then at the latest.
    alive_until = DateTimeField()
    ended_at = DateTimeField(null=True)
    #: Pages fetched since it started, and its rate over the last heartbeat period.
    fetched = BigIntegerField(default=0)
    pages_per_s = FloatField(default=0.0)


class HostLease(BaseModel):
    """Which worker fetches a host until when (docs/design.md §12); ``worker`` None: free.

    A row is made for every host with due pages when a worker leases, and kept: a free
    row costs nothing and saves the next lease an insert.
    """

    host = CharField(primary_key=True)
    worker = CharField(null=True, index=True)
    expires_at = DateTimeField(null=True)


class Capture(BaseModel):
    """One response or revisit record in the project's WARCs, as its CDXJ line says
    (docs/design.md §7): the lookups' table, so finding a capture reads no index file.

    Derived: the CDXJ files stay the record (they travel with the WARCs); written with
    the commit that makes a capture findable and moved by a compaction's commit, and
    rebuilt from the indexes when found incomplete (:mod:`recrawl.core.store.captures`).
    ``key`` is the standard SURT (compared bytewise: ``COLLATE "C"`` on PostgreSQL),
    ``stamp`` the 14-digit UTC second, ``file`` the WARC's path in the project.
    """

    id = BigAutoField()
    url = TextField()
    key = TextField()
    stamp = CharField(max_length=14)
    file = TextField()
    offset = BigIntegerField()
    length = BigIntegerField(null=True)
    mime = TextField()
    status = CharField()
    digest = TextField()

    class Meta:
        indexes = (
            (("url", "stamp"), False),
            (("key", "stamp"), False),
            (("file", "offset"), False),
        )


class SearchDoc(BaseModel):
    """A *generation* of a page's texts, as full-text search indexes them (docs/design.md
    §19): the distinct paragraphs of some of its versions in a row, each kept once
    (``body``, compressed: the paragraphs, then their folded words), so five versions that
    differ by a sentence cost little more than one. The index holds its words (SQLite: the
    FTS5 table ``search_fts``, rowid = id; PostgreSQL: the ``tsv`` column, added by
    migration 17). A page's latest generation takes the paragraphs of its next versions
    until it grows past a few times a version's size; then a new one begins."""

    id = BigAutoField()
    url = TextField()
    host = TextField()
    body = BlobField()
    paragraphs = IntegerField()
    tokens = BigIntegerField()

    class Meta:
        indexes = (
            (("url",), False),
            (("host",), False),
        )


class SearchVersion(BaseModel):
    """A version of a page (its URL and payload digest, as the capture table has them):
    its title and which paragraphs of its generation (``doc``) it holds; its captures
    match as its text does."""

    id = BigAutoField()
    url = TextField()
    digest = TextField()
    doc = BigIntegerField()
    title = TextField(null=True)
    #: Its title's paragraph in the generation (-1: none), then its text's, in order:
    #: 32-bit unsigned little-endian numbers.
    paragraphs = BlobField()

    class Meta:
        indexes = (
            (("url", "digest"), True),
            (("doc",), False),
        )


class Setting(BaseModel):
    key = CharField(primary_key=True)
    value = JSONField(null=True)


MODELS: tuple[type[BaseModel], ...] = (
    Page,
    Segment,
    Compaction,
    CrawlRun,
    FetchEvent,
    News,
    Baseline,
    Link,
    RejectedLink,
    Robots,
    Setting,
    Source,
    Worker,
    HostLease,
)
