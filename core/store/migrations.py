"""Numbered schema migrations. The store's ``schema_version`` setting says which ran.

Add a migration by appending a function; never edit one that has shipped. Each runs in
a transaction with a ``playhouse.migrate`` migrator for the open database.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from peewee import Database, SqliteDatabase
from recrawl.core.errors import StoreError
from recrawl.core.store.captures import CAPTURE_TABLE, COMPLETE, STALE
from recrawl.core.store.models import (
    MODELS,
    Baseline,
    Capture,
    Compaction,
    CrawlRun,
    DiscoveredVia,
    FetchEvent,
    HostLease,
    News,
    Page,
    PageKind,
    Segment,
    Setting,
    Source,
    Worker,
)
from recrawl.core.store.settings import INDEX_KEYS, STANDARD_KEYS, set_setting

if TYPE_CHECKING:  # playhouse.migrate is loaded only when a migration runs (issue 11)
    from playhouse.migrate import SchemaMigrator


def _m0001_initial(db: Database, migrator: SchemaMigrator) -> None:
    db.create_tables(MODELS)


def _m0002_scores_and_rates(db: Database, migrator: SchemaMigrator) -> None:
    # A store created by this version already has the columns (0001 creates the
    # current tables); one from version 1 gets them here.
    have = {column.name for column in db.get_columns("page")}
    additions = [(name, Page._meta.fields[name]) for name in ("cash", "change_rate")]
    migrate_ops = [
        migrator.add_column("page", name, fld) for name, fld in additions if name not in have
    ]
    if migrate_ops:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(*migrate_ops)


def _m0003_scope_into_chain(db: Database, migrator: SchemaMigrator) -> None:
    # Version 1 kept the seeds' hosts in a "scope_hosts" setting; they now live in the
    # filter chain's "scope" filter, so an old project keeps crawling what it crawled.
    old = Setting.get_or_none(Setting.key == "scope_hosts")
    if old is None or not old.value:
        return
    # the filter chain (its regex engine) and the default chain file (importlib.resources):
    # only a version-1 store with scope hosts needs them
    from recrawl.core.filters import parse_chain
    from recrawl.core.filters.scope import DEFAULT_CHAIN_FILE, widen_scope
    from recrawl.core.resources import resource_text

    stored = Setting.get_or_none(Setting.key == "filter_chain")
    chain = parse_chain(stored.value if stored else resource_text(DEFAULT_CHAIN_FILE))
    if widen_scope(chain, list(old.value)):
        set_setting("filter_chain", chain.to_toml())


def _m0004_compaction_journal(db: Database, migrator: SchemaMigrator) -> None:
    db.create_tables([Compaction], safe=True)


def _m0005_liveness_index(db: Database, migrator: SchemaMigrator) -> None:
    # The payload pointer's own index becomes one that covers the liveness count. Made
    # by name, not from the model: the model's later indexes would come before their
    # columns (SQLite then indexes the column's name as a string, and the store breaks).
    db.execute_sql("DROP INDEX IF EXISTS page_payload_segment")
    db.execute_sql(
        'CREATE INDEX IF NOT EXISTS "page_payload_segment_segment_payload_offset_capture_offset" '
        'ON "page" ("payload_segment", "segment", "payload_offset", "capture_offset")'
    )


def _m0006_crawl_runs(db: Database, migrator: SchemaMigrator) -> None:
    # what the last crawl did, and whether it ended, for a project opened later
    db.create_tables([CrawlRun], safe=True)


def _m0007_news(db: Database, migrator: SchemaMigrator) -> None:
    # News is recorded from now on (docs/design.md §10); nothing is back-filled: a store's
    # past would flood the panel and the feed with every page it ever fetched as "new".
    db.create_tables([News], safe=True)
    if "title" not in {column.name for column in db.get_columns("page")}:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(migrator.add_column("page", "title", Page._meta.fields["title"]))


def _m0008_discovery(db: Database, migrator: SchemaMigrator) -> None:
    # How and where each page was found, when it says it was published (docs/design.md §11),
    # and the sitemaps and feeds read for pages. A page of an older store was a seed
    # (found in nothing) or a link: redirects were followed as links.
    db.create_tables([Source], safe=True)
    have = {column.name for column in db.get_columns("page")}
    added = [name for name in ("discovered_via", "published_at") if name not in have]
    if added:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(
            *(migrator.add_column("page", name, Page._meta.fields[name]) for name in added)
        )
    seed = Page.discovered_from.is_null()
    Page.update(discovered_via=DiscoveredVia.SEED).where(
        seed & Page.discovered_via.is_null()
    ).execute()
    Page.update(discovered_via=DiscoveredVia.LINK).where(
        ~seed & Page.discovered_via.is_null()
    ).execute()


def _m0009_new_links(db: Database, migrator: SchemaMigrator) -> None:
    # The discovery schedule's inputs (docs/design.md §11): a page's outlinks at its latest
    # fetch, to count the new ones at the next, and the rate at which it gains them.
    have = {column.name for column in db.get_columns("page")}
    added = [name for name in ("outlinks", "link_rate") if name not in have]
    if added:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(
            *(migrator.add_column("page", name, Page._meta.fields[name]) for name in added)
        )


def _m0010_workers(db: Database, migrator: SchemaMigrator) -> None:
    # Crawl workers and their host leases (docs/design.md §12), and which worker writes a
    # segment (its open one is recovered only once that worker is dead).
    db.create_tables([Worker, HostLease], safe=True)
    if "worker" not in {column.name for column in db.get_columns("segment")}:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(migrator.add_column("segment", "worker", Segment._meta.fields["worker"]))


def _m0011_standard_index_keys(db: Database, migrator: SchemaMigrator) -> None:
    # Indexes written so far carry Recrawl's own URL key, which pywb's lookups miss: the
    # first writer re-keys them (recrawl.core.archive.index_keys) and records "surt". A
    # store with no capture yet has no index to re-key. Being a migration, it also keeps
    # older versions, which would write the old keys again, from opening the store.
    captured = (
        Segment.select().exists() or Page.select().where(Page.capture_file.is_null(False)).exists()
    )
    set_setting(INDEX_KEYS, "legacy" if captured else STANDARD_KEYS)


def _m0012_embeds(db: Database, migrator: SchemaMigrator) -> None:
    # What pages embed (docs/design.md §14): rows of kind "embed" beside the pages (every row
    # so far is a page), what each capture embeds, and each page capture's completeness.
    # Nothing stored is rewritten: a page's next fetch finds its embeds.
    have = {column.name for column in db.get_columns("page")}
    if "kind" not in have:
        # with the default in the statement, not added null, filled and then made NOT NULL
        # (which SQLite does by copying the whole table): one step on either database
        db.execute_sql(
            f'ALTER TABLE "page" ADD COLUMN "kind" VARCHAR(255) NOT NULL DEFAULT \'{PageKind.PAGE}\''
        )
    ops = [
        migrator.add_column("page", name, Page._meta.fields[name])
        for name in ("embed_refs",)
        if name not in have
    ]
    have_events = {column.name for column in db.get_columns(FetchEvent._meta.table_name)}
    ops += [
        migrator.add_column(FetchEvent._meta.table_name, name, FetchEvent._meta.fields[name])
        for name in ("embeds", "embeds_missing", "embeds_missing_count", "embed_refs")
        if name not in have_events
    ]
    if ops:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(*ops)
    db.execute_sql(
        'CREATE INDEX IF NOT EXISTS "page_kind_next_fetch" ON "page" ("kind", "next_fetch")'
    )


def _m0013_host_kind_index(db: Database, migrator: SchemaMigrator) -> None:
    # The sites and their page counts (kind = 'page' by host) read a host's pages
    # without stepping over its embeds: 200,000 embeds on a CDN host cost the Sites
    # panel's host count 120 ms, and more with each embed, without it.
    db.execute_sql('CREATE INDEX IF NOT EXISTS "page_host_kind" ON "page" ("host", "kind")')


def _m0014_baselines(db: Database, migrator: SchemaMigrator) -> None:
    # A host's first crawl is one "baseline" item, not a "new" one per page (docs/design.md
    # §15). A host that already has a page archived had its first crawl: it counts as
    # done, before every page (last_page 0), so its news goes on as it was (its "new"
    # items stay, and a page it finds next is new); no item is written for it.
    db.create_tables([Baseline], safe=True)
    from recrawl.core.clock import utcnow

    now = utcnow()
    crawled = (
        Page.select(Page.host)
        .where((Page.kind == PageKind.PAGE) & Page.content_changed_at.is_null(False))
        .distinct()
        .tuples()
    )
    rows = [(host, 0, now, 0) for (host,) in crawled.iterator()]
    fields = [Baseline.host, Baseline.pages, Baseline.completed_at, Baseline.last_page]
    for start in range(0, len(rows), 500):
        Baseline.insert_many(rows[start : start + 500], fields).on_conflict_ignore().execute()


def _m0015_news_summaries(db: Database, migrator: SchemaMigrator) -> None:
    # Why a page changed (docs/design.md §17): a changed item's first diff lines and the
    # change rule it was read under, made after its round (or when first listed); the
    # items before this are made when listed, from their captures.
    have = {column.name for column in db.get_columns(News._meta.table_name)}
    added = [name for name in ("summary", "rule") if name not in have]
    if added:
        from playhouse.migrate import migrate as run_migrations

        run_migrations(
            *(
                migrator.add_column(News._meta.table_name, name, News._meta.fields[name])
                for name in added
            )
        )


def _m0016_capture_table(db: Database, migrator: SchemaMigrator) -> None:
    # Lookups by URL read a table, not every index file (docs/design.md §7). A store with
    # captures gets it filled from its indexes by the next recovery (which has the
    # folder): until then lookups read the files, as before.
    db.create_tables([Capture], safe=True)
    if not isinstance(db, SqliteDatabase):
        # pywb looks keys up by range, bytewise: not in the database's locale order
        db.execute_sql('ALTER TABLE "capture" ALTER COLUMN "key" TYPE TEXT COLLATE "C"')
    captured = Segment.select().exists() or Compaction.select().exists()
    set_setting(CAPTURE_TABLE, STALE if captured else COMPLETE)


def _m0017_search_index(db: Database, migrator: SchemaMigrator) -> None:
    # Full-text search (docs/design.md §19). A store with captures gets their texts
    # indexed by the background build (core/archive/search_build.py): until then search
    # finds what crawls since have indexed, and says the index is being built.
    from recrawl.core.store.search import COMPLETE as INDEXED
    from recrawl.core.store.search import STALE as UNINDEXED
    from recrawl.core.store.search import create_index, set_search_state

    create_index(db)
    captured = Segment.select().exists() or Compaction.select().exists()
    set_search_state(UNINDEXED if captured else INDEXED)


MIGRATIONS: tuple[Callable[[Database, SchemaMigrator], None], ...] = (
    _m0001_initial,
    _m0002_scores_and_rates,
    _m0003_scope_into_chain,
    _m0004_compaction_journal,
    _m0005_liveness_index,
    _m0006_crawl_runs,
    _m0007_news,
    _m0008_discovery,
    _m0009_new_links,
    _m0010_workers,
    _m0011_standard_index_keys,
    _m0012_embeds,
    _m0013_host_kind_index,
    _m0014_baselines,
    _m0015_news_summaries,
    _m0016_capture_table,
    _m0017_search_index,
)
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(db: Database) -> int:
    if not db.table_exists(Setting._meta.table_name):
        return 0
    row = Setting.get_or_none(Setting.key == "schema_version")
    return int(row.value) if row else 0


def migrate(db: Database) -> int:
    """Bring the store up to :data:`SCHEMA_VERSION`; return the version found."""
    found = current_version(db)
    if found > SCHEMA_VERSION:
        raise StoreError(
            f"this project was written by a newer Recrawl (schema {found}, "
            f"this one knows {SCHEMA_VERSION})"
        )
    if found == SCHEMA_VERSION:
        return found
    from playhouse.migrate import SchemaMigrator  # only when a migration runs

    migrator = SchemaMigrator.from_database(db)
    # SQLite changes some columns by copying the table and dropping the old one: with
    # foreign keys on, that drop deletes every row that refers to it (ON DELETE CASCADE:
    # a page's fetch events, links and news), so they are off while migrations run,
    # and checked after (the pragma takes no effect inside a transaction)
    sqlite = isinstance(db, SqliteDatabase)
    if sqlite:
        db.execute_sql("PRAGMA foreign_keys = OFF")
    try:
        for number in range(found, SCHEMA_VERSION):
            with db.atomic():
                MIGRATIONS[number](db, migrator)
                if sqlite and db.execute_sql("PRAGMA foreign_key_check").fetchone():
                    raise StoreError(f"migration {number + 1} left rows referring to nothing")
                set_setting("schema_version", number + 1)
    finally:
        if sqlite:
            db.execute_sql("PRAGMA foreign_keys = ON")
    return found
