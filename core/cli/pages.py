"""``recrawl urls``, ``history`` and ``show``: the pages, one page's fetches, its payload.

Quick commands (issue 11): they need the store, and ``show`` the WARC reader; nothing
else is imported for them.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import sys
from typing import Any

from recrawl.core import store
from recrawl.core.cli.arguments import size
from recrawl.core.cli.output import (
    DIR_HELP,
    JSON_HELP,
    human_size,
    print_rows,
    warn,
    write_json_array,
)
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import human_duration, parse_iso, to_iso
from recrawl.core.errors import NotFound, PayloadError, RecrawlError
from recrawl.core.net.decoding import PayloadDecoder
from recrawl.core.policy.crawl_settings import project_crawl_settings
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageKind, PageStatus

PAGE_COLUMNS = store.LISTING_COLUMNS  # as `recrawl urls` prints them


def _urls_arguments(p: argparse.ArgumentParser) -> None:
    p.description = "List the project's pages: status, first seen, URL (more with --json/--csv)."
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--status",
        choices=PageStatus.ALL,
        metavar="STATUS",
        help="only pages with this status: " + ", ".join(PageStatus.ALL),
    )
    p.add_argument(
        "--new-since", metavar="ISO", help="only pages first seen at or after this ISO 8601 time"
    )
    p.add_argument(
        "--kind",
        choices=(*PageKind.ALL, "all"),
        default=PageKind.PAGE,
        help="pages (the default), embeds (what pages embed: images, styles, scripts...) or all",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json", action="store_true", help="print a JSON array, every column of every page"
    )
    fmt.add_argument("--csv", action="store_true", help="print CSV with a header row")


def _json_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return to_iso(value)
    return value


@project_command
def run_urls(project: Project, args: argparse.Namespace) -> int:
    since = parse_iso(args.new_since) if args.new_since else None
    kinds = PageKind.ALL if args.kind == "all" else (args.kind,)
    rows = (
        {k: _json_value(row[k]) for k in PAGE_COLUMNS}
        for row in store.list_pages(args.status, since, kinds)
    )
    out = sys.stdout
    if args.json:
        write_json_array(out, rows)
    elif args.csv:
        writer = csv.DictWriter(out, fieldnames=PAGE_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        for row in rows:
            kind = f"{row['kind']:<6} " if args.kind == "all" else ""
            out.write(f"{kind}{row['status']:<13} {row['first_seen']:<28} {row['url']}\n")
    return 0


def find_page(url: str) -> Page:
    """The page (or embed) of ``url`` as given, else of its canonical form (a page's),
    else as a browser requests it (an embed's, docs/design.md §14: ``style.css?v1``).

    Both forms are idempotent, so a URL found as given is its own stored form: w3lib is
    loaded only when it is not.
    """
    page = store.page_by_url(url)
    if page is None:
        # w3lib: only for a URL not stored as given
        from recrawl.core.net.urls import canonical, embed_url

        for form in (canonical, embed_url):
            with contextlib.suppress(RecrawlError):
                page = store.page_by_url(form(url))
            if page is not None:
                break
    if page is None:
        raise NotFound(f"no page {url} in this project")
    return page


def _history_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("url", metavar="URL", help="the page (as listed by `recrawl urls`)")
    p.add_argument("--json", action="store_true", help=JSON_HELP)


@project_command
def run_history(project: Project, args: argparse.Namespace) -> int:
    page = find_page(args.url)
    rows = [
        {
            "fetched_at": to_iso(ev.fetched_at),
            "http_status": ev.http_status,
            "change": ev.change,
            "interval_before": ev.interval_before,
            "interval_after": ev.interval_after,
            "segment": ev.segment,
            "error": ev.error,
            # what the capture got of its embeds (docs/design.md §14); null: not known
            "embeds": ev.embeds,
            "embeds_missing": _missing(ev.embeds_missing),
            "embeds_missing_count": ev.embeds_missing_count,
        }
        for ev in store.history(page)
    ]
    print_rows(rows, args.json, _history_line)
    return 0


def _missing(kept: list[list[str]] | None) -> list[dict[str, str]] | None:
    if kept is None:
        return None
    return [{"url": url, "reason": reason} for url, reason in kept]


def _history_line(row: dict[str, Any]) -> str:
    """``2027-01-01T00:00:00Z  HTTP 200  changed    10.0 d -> 5.0 d  in 20270101000000``."""
    status = f"HTTP {row['http_status']}" if row["http_status"] is not None else "no reply"
    line = (
        f"{row['fetched_at']}  {status:<8}  {row['change']:<9}  "
        f"{human_duration(row['interval_before'])} -> {human_duration(row['interval_after'])}"
    )
    if row["segment"]:
        line += f"  in {row['segment']}"
    if row["embeds"] is not None:
        count = row["embeds_missing_count"] or 0
        total = row["embeds"] + count
        line += f"  embeds {row['embeds']}/{total}"
        if count:
            shown = [f"{m['url']} ({m['reason']})" for m in row["embeds_missing"][:3]]
            more = f" and {count - len(shown):,} more" if count > len(shown) else ""
            line += f", missing: {', '.join(shown)}{more}"
    if row["error"]:
        line += f"  ({row['error']})"
    return line


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Print the payload of a page's latest capture (or of the one --at picks), "
        "decoded as the crawl decoded it (gzip, deflate) and cut at the crawl's "
        "maximum body size unless --max-bytes says otherwise; --screenshot writes the "
        "capture's screenshot (PNG) instead, as a browser capture keeps one."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument("url", metavar="URL", help="the page (as listed by `recrawl urls`)")
    p.add_argument("--at", metavar="ISO", help="the capture closest before this time instead")
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--raw",
        action="store_true",
        help="the payload as archived, still content-encoded (gzip...), not cut",
    )
    how.add_argument(
        "--screenshot",
        action="store_true",
        help="the capture's screenshot (PNG, binary) instead of its payload: a browser "
        "capture's (capture.mode browser); an HTTP capture has none",
    )
    how.add_argument(
        "--max-bytes",
        type=size,
        metavar="SIZE",
        help="print at most this much of the decoded payload (like 50M, 1G; "
        "default: the crawl's maximum body size)",
    )


@project_command
def run_show(project: Project, args: argparse.Namespace) -> int:
    # the WARC reader (warcio): only show reads captures
    from recrawl.core.archive.captures import latest_payload, payload_at

    page = find_page(args.url)
    if args.screenshot:
        return _show_screenshot(project, page, args.at)
    if args.at:
        record = payload_at(project.path, page.url, parse_iso(args.at))
    else:
        record = latest_payload(project.path, page.url)
    out = sys.stdout.buffer
    if args.raw:
        out.write(record.body)
        out.flush()
        return 0
    encoding = next((v for k, v in record.http_headers if k.lower() == "content-encoding"), None)
    cap = args.max_bytes or project_crawl_settings().fetch.max_body_bytes
    decoder = PayloadDecoder(record.body, encoding, cap)
    for piece in decoder:  # a piece at a time: a decompression bomb never sits in memory
        out.write(piece)
    out.flush()
    if decoder.error is not None:
        shown = f" after {decoder.decoded_bytes} bytes" if decoder.decoded_bytes else ""
        raise PayloadError(
            f"{decoder.error}{shown} ({page.url}); `recrawl show --raw` prints it as archived"
        )
    if decoder.cut:
        warn(
            f"the decoded payload is longer than {human_size(cap)}: cut there "
            "(--max-bytes SIZE shows more)"
        )
    elif decoder.note is not None:
        warn(f"{decoder.note}; shown as far as it decodes")
    return 0


def _show_screenshot(project: Project, page: Page, at: str | None) -> int:
    """The PNG the browser kept of the latest capture (or of the one ``at`` picks)."""
    from recrawl.core.archive.captures import latest_rendering, rendering_before

    if at:
        capture, rendered = rendering_before(project.path, page.url, parse_iso(at))
        which = f"the capture of {to_iso(capture.date)}"
    else:
        rendered = latest_rendering(project.path, page.url)
        which = "the latest capture"
    if rendered.screenshot is None:
        how = (
            "captured in a browser with capture.screenshots off"
            if rendered.dom is not None
            else "fetched over HTTP (a site in capture.mode browser has one per capture)"
        )
        raise NotFound(f"{which} of {page.url} has no screenshot: it was {how}")
    out = sys.stdout.buffer
    out.write(rendered.screenshot)
    out.flush()
    return 0


COMMANDS = {
    "urls": Command(_urls_arguments, run_urls),
    "history": Command(_history_arguments, run_history),
    "show": Command(_show_arguments, run_show),
}
