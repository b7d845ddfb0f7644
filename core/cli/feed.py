"""The news as an Atom 1.0 feed (RFC 4287, by feedgen): ``recrawl feed`` (docs/design.md §10).

Ids are stable, so a feed reader that reads the feed again sees only what is new: the
feed's is a UUID of the project folder's path, an entry's a UUID of the feed's, the
item's kind, URL and time. A host's baseline (docs/design.md §15) is one entry, however often
it grows: its id is the feed's and the host's, and its ``updated`` moves on with it (a
reader shows it again, complete, when the first crawl is done).
"""

from __future__ import annotations

import html
import os
import sys
import tempfile
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from feedgen.feed import FeedGenerator
from recrawl.core import store
from recrawl.core.clock import to_iso, utcnow
from recrawl.core.project import Project
from recrawl.core.store.models import NewsKind
from recrawl.core.words import plural

from recrawl import __version__

#: How an entry's title starts, by the item's kind.
KIND_TITLES = {
    "baseline": "First crawl",
    "new": "New",
    "changed": "Changed",
    "gone": "Gone",
    "back": "Back",
}
#: The news of the whole project (a feed's default).
ALL_NEWS = store.NewsFilter()
#: What an entry's summary says happened, by the item's kind.
KIND_PHRASES = {
    "new": "first fetched",
    "changed": "changed",
    "gone": "gone",
    "back": "back after being gone",
}


def feed_uuid(project: Project) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, project.path.resolve().as_uri())


def entry_id(feed: uuid.UUID, item: store.NewsItem) -> str:
    if item.kind == NewsKind.BASELINE:  # one per host, updated in place as it grows
        return uuid.uuid5(feed, f"baseline {item.host}").urn
    return uuid.uuid5(feed, f"{item.kind} {item.url} {to_iso(item.at)}").urn


def filtered_id(feed: uuid.UUID, where: store.NewsFilter) -> uuid.UUID:
    """The id of the feed of one site, or of one kind: a feed of its own (its entries keep
    their ids: a reader reading both sees one item once)."""
    if where.host is None and where.kind is None:
        return feed
    return uuid.uuid5(feed, f"site {where.host or '*'} kind {where.kind or '*'}")


def build_feed(
    project: Project,
    items: Iterable[store.NewsItem],
    where: store.NewsFilter = ALL_NEWS,
) -> FeedGenerator:
    """The feed of ``items`` (newest first) for ``project``, of the news ``where`` says
    (its title and id name a site or kind)."""
    feed = feed_uuid(project)
    generator = FeedGenerator()
    generator.id(filtered_id(feed, where).urn)
    of = " ".join(
        part
        for part in (
            f"on {where.host}" if where.host else "",
            f"({KIND_TITLES.get(where.kind, where.kind).lower()} only)" if where.kind else "",
        )
        if part
    )
    generator.title(f"Recrawl news: {project.path.name}" + (f" {of}" if of else ""))
    generator.subtitle(
        f"First crawls, new, changed, gone and back pages of the project at {project.path}"
        + (f" {of}" if of else "")
    )
    generator.link(href=project.path.resolve().as_uri(), rel="alternate")
    generator.author({"name": "Recrawl"})
    generator.generator("Recrawl", version=__version__)
    newest: datetime | None = None
    for item in items:
        at = _aware(item.at)
        newest = newest or at  # newest first: the first item's time
        entry = generator.add_entry(order="append")
        entry.id(entry_id(feed, item))
        entry.title(_title(item))
        entry.updated(at)
        entry.link(href=item.url, rel="alternate")
        entry.summary(_summary(item))
        if item.kind == NewsKind.CHANGED and item.summary:
            entry.content(_content(item), type="html")
    generator.updated(newest or _aware(utcnow()))
    return generator


def write_feed(
    project: Project,
    items: Iterable[store.NewsItem],
    out: str | None,
    where: store.NewsFilter = ALL_NEWS,
) -> None:
    """Write the feed to ``out`` (None: stdout); a file is replaced whole, never half-written."""
    document = build_feed(project, items, where).atom_str(pretty=True, encoding="UTF-8")
    if out is None:
        sys.stdout.buffer.write(document)
        sys.stdout.buffer.flush()
        return
    target = Path(out)
    # a feed reader or web server reading the file meanwhile gets the old one or the new
    handle, temporary = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as fh:
            fh.write(document)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _title(item: store.NewsItem) -> str:
    if item.kind == NewsKind.BASELINE:
        what = "archived" if item.complete else "archived so far (under way)"
        return f"First crawl of {item.host}: {plural(item.pages or 0, 'page')} {what}"
    return f"{KIND_TITLES.get(item.kind, item.kind)}: {item.title or item.url}"


def _summary(item: store.NewsItem) -> str:
    if item.kind == NewsKind.BASELINE:
        pages = plural(item.pages or 0, "page")
        if item.complete:
            done = f"archived {pages} by {to_iso(item.at)}, when nothing was left to fetch"
        else:
            done = f"has archived {pages} so far (as of {to_iso(item.at)}); it is under way"
        return (
            f"The first crawl of {item.host}, from {item.url}, {done}. Pages found from "
            "then on are new."
        )
    what = KIND_PHRASES.get(item.kind, item.kind)
    title = f"{item.title} ({item.url})" if item.title else item.url
    return (
        f"{title}: {what} on {to_iso(item.at)}; on {item.host}, "
        f"first seen {to_iso(item.first_seen)}."
    )


def _content(item: store.NewsItem) -> str:
    """A changed entry's content: what it says, then what changed (its summary's lines)."""
    rule = f" (read under the change rule {html.escape(item.rule)})" if item.rule else ""
    lines = html.escape(item.summary or "")
    return f"<p>{html.escape(_summary(item))}</p><p>What changed{rule}:</p><pre>{lines}</pre>"


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC)
