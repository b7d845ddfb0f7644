"""The store: the database behind a project (DESIGN.md §2).

Models live in :mod:`.models`, schema changes in :mod:`.migrations`, and every query the
engine runs in the modules below, one per concern; callers write ``store.due_pages(...)``.

    connection    opening, closing, transactions
    settings      the project's settings (JSON by key)
    pages         adding, finding and choosing pages; their fetch history
    commits       a crawl's batch of results in one transaction; scores
    segments      segments' rows, their liveness, pages' pointers into them
    compactions   the compaction journal
    robots        the robots.txt cache
    rejected      links the filter chain turned away
    filtered      known pages the chain rejects: kept, never fetched, and why
    listing       the GUI's page listing, read in blocks
    news          news items: what happened to pages, counts by day and site, unseen
    sites         pages grouped by host (the app's Sites list); hosts taken out of a crawl
    runs          crawl runs: when each started and ended, what it did
    sources       sitemaps and feeds: found, due, each reading's findings, the listing
    sql           helpers the modules above share
    workers       crawl workers on a shared store: their rows, host leases, the listing
    postgres      PostgreSQL's own: its URLs, psycopg, its errors, advisory locks
    reconnect     a lost PostgreSQL server found again: what is retried, and how
"""

# first: peewee imports psycopg when it is installed, a third of a second a SQLite
# store never needs (recrawl.core.store.postgres hands peewee the driver itself)
from recrawl.core.store import quiet_peewee  # noqa: F401

# isort: split

from recrawl.core.store.commits import CommitBatch, commit_batch, give_cash, rescore_inlinks
from recrawl.core.store.compactions import (
    Move,
    begin_compaction,
    commit_compaction,
    compaction_names,
    end_compaction,
    needs_recovery,
    unfinished_compactions,
)
from recrawl.core.store.connection import (
    COMPACTION,
    MIGRATION,
    RECOVERY,
    SQLITE_PRAGMAS,
    close_database,
    exclusive,
    open_database,
    postgres_client,
    reconnecting,
    retried,
    transaction,
)
from recrawl.core.store.filtered import (
    NEVER,
    KnownPage,
    count_filtered,
    count_known_pages,
    filter_pages,
    known_pages_block,
    last_page_id,
    page_urls,
    record_filtered,
    unfilter_pages,
)
from recrawl.core.store.listing import (
    LISTING_COLUMNS,
    PageQuery,
    count_listing,
    iter_listing,
    listing_rows,
)
from recrawl.core.store.models import DiscoveredVia, Source, SourceKind
from recrawl.core.store.news import (
    NewsDay,
    NewsFilter,
    NewsGroup,
    NewsItem,
    SeenMark,
    count_news,
    day_bounds,
    is_unseen,
    iter_news,
    mark_news_seen,
    newest_news_id,
    news_days,
    news_groups,
    news_hosts,
    news_items,
    seen_mark,
    unseen_news_count,
)
from recrawl.core.store.pages import (
    DuePage,
    NewPage,
    add_pages,
    corpus_figures,
    count_due,
    due_page_refs,
    due_pages,
    history,
    list_pages,
    make_due,
    page_by_url,
    page_count,
    page_ids,
    page_titles,
    pages_by_id,
    set_fixed_interval,
)
from recrawl.core.store.rejected import (
    record_rejected,
    rejected_link,
    rejected_links,
    rejected_matching,
)
from recrawl.core.store.robots import robots_entry, save_robots
from recrawl.core.store.runs import (
    CrawlRunInfo,
    RunCounts,
    begin_crawl_run,
    commit_mark,
    earliest_next_fetch,
    end_crawl_run,
    last_crawl_run,
    next_due_at,
)
from recrawl.core.store.segments import (
    Pointer,
    SegmentSummary,
    close_segment,
    committed_bytes,
    create_segment,
    delete_segment,
    open_segments,
    pointers_into,
    segment_names,
    segment_summaries,
)
from recrawl.core.store.settings import INDEX_KEYS, STANDARD_KEYS, get_setting, set_setting
from recrawl.core.store.sites import (
    HostSummary,
    count_hosts,
    host_page_count,
    host_seeds,
    host_summaries,
    hosts_under,
    hosts_with_pages,
    make_hosts_due,
)
from recrawl.core.store.sources import (
    DueSource,
    NewSource,
    SourceInfo,
    SourceReading,
    add_sources,
    due_sources,
    earliest_source_fetch,
    known_sources,
    list_sources,
    make_sources_due,
    next_source_due_at,
    record_reading,
    source_counts,
    source_parent,
)
from recrawl.core.store.sql import is_server_store
from recrawl.core.store.workers import (
    WorkerInfo,
    database_now,
    end_worker,
    heartbeat,
    lease_hosts,
    leased_hosts,
    list_workers,
    others_lease_wait,
    recoverable_segments,
    register_worker,
    release_leases,
)

__all__ = [
    "COMPACTION",
    "INDEX_KEYS",
    "LISTING_COLUMNS",
    "MIGRATION",
    "NEVER",
    "RECOVERY",
    "SQLITE_PRAGMAS",
    "STANDARD_KEYS",
    "CommitBatch",
    "CrawlRunInfo",
    "DiscoveredVia",
    "DuePage",
    "DueSource",
    "HostSummary",
    "KnownPage",
    "Move",
    "NewPage",
    "NewSource",
    "NewsDay",
    "NewsFilter",
    "NewsGroup",
    "NewsItem",
    "PageQuery",
    "Pointer",
    "RunCounts",
    "SeenMark",
    "SegmentSummary",
    "Source",
    "SourceInfo",
    "SourceKind",
    "SourceReading",
    "WorkerInfo",
    "add_pages",
    "add_sources",
    "begin_compaction",
    "begin_crawl_run",
    "close_database",
    "close_segment",
    "commit_batch",
    "commit_compaction",
    "commit_mark",
    "committed_bytes",
    "compaction_names",
    "corpus_figures",
    "count_due",
    "count_filtered",
    "count_hosts",
    "count_known_pages",
    "count_listing",
    "count_news",
    "create_segment",
    "database_now",
    "day_bounds",
    "delete_segment",
    "due_page_refs",
    "due_pages",
    "due_sources",
    "earliest_next_fetch",
    "earliest_source_fetch",
    "end_compaction",
    "end_crawl_run",
    "end_worker",
    "exclusive",
    "filter_pages",
    "get_setting",
    "give_cash",
    "heartbeat",
    "history",
    "host_page_count",
    "host_seeds",
    "host_summaries",
    "hosts_under",
    "hosts_with_pages",
    "is_server_store",
    "is_unseen",
    "iter_listing",
    "iter_news",
    "known_pages_block",
    "known_sources",
    "last_crawl_run",
    "last_page_id",
    "lease_hosts",
    "leased_hosts",
    "list_pages",
    "list_sources",
    "list_workers",
    "listing_rows",
    "make_due",
    "make_hosts_due",
    "make_sources_due",
    "mark_news_seen",
    "needs_recovery",
    "newest_news_id",
    "news_days",
    "news_groups",
    "news_hosts",
    "news_items",
    "next_due_at",
    "next_source_due_at",
    "open_database",
    "open_segments",
    "others_lease_wait",
    "page_by_url",
    "page_count",
    "page_ids",
    "page_titles",
    "page_urls",
    "pages_by_id",
    "pointers_into",
    "postgres_client",
    "reconnecting",
    "record_filtered",
    "record_reading",
    "record_rejected",
    "recoverable_segments",
    "register_worker",
    "rejected_link",
    "rejected_links",
    "rejected_matching",
    "release_leases",
    "rescore_inlinks",
    "retried",
    "robots_entry",
    "save_robots",
    "seen_mark",
    "segment_names",
    "segment_summaries",
    "set_fixed_interval",
    "set_setting",
    "source_counts",
    "source_parent",
    "transaction",
    "unfilter_pages",
    "unfinished_compactions",
    "unseen_news_count",
]
