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
from recrawl.core.cli.output import print_rows, write_json_array
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.clock import human_duration, parse_iso, to_iso
from recrawl.core.errors import NotFound, RecrawlError
from recrawl.core.project import Project
from recrawl.core.store.models import Page, PageStatus

PAGE_COLUMNS = store.LISTING_COLUMNS  # as `recrawl urls` prints them


def _urls_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")
    p.add_argument("--status", choices=PageStatus.ALL)
    p.add_argument("--new-since", help="first seen at or after this ISO 8601 instant")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--csv", action="store_true")


def _json_value(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return to_iso(value)
    return value


@project_command
def run_urls(project: Project, args: argparse.Namespace) -> int:
    since = parse_iso(args.new_since) if args.new_since else None
    rows = (
        {k: _json_value(row[k]) for k in PAGE_COLUMNS}
        for row in store.list_pages(args.status, since)
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
            out.write(f"{row['status']:<13} {row['first_seen'] or '-':<28} {row['url']}\n")
    return 0


def _find_page(url: str) -> Page:
    """The page of ``url`` as given, else of its canonical form.

    The store holds canonical URLs only, and canonicalising is idempotent, so a URL
    found as given is its own canonical form: w3lib is loaded only when it is not.
    """
    page = store.page_by_url(url)
    if page is None:
        from recrawl.core.net.urls import canonical  # w3lib: only for a URL not stored as given

        with contextlib.suppress(RecrawlError):
            page = store.page_by_url(canonical(url))
    if page is None:
        raise NotFound(f"no page {url} in this project")
    return page


def _history_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")
    p.add_argument("url")
    p.add_argument("--json", action="store_true")


@project_command
def run_history(project: Project, args: argparse.Namespace) -> int:
    page = _find_page(args.url)
    rows = [
        {
            "fetched_at": to_iso(ev.fetched_at),
            "http_status": ev.http_status,
            "change": ev.change,
            "interval_before": ev.interval_before,
            "interval_after": ev.interval_after,
            "segment": ev.segment,
        }
        for ev in store.history(page)
    ]
    print_rows(
        rows,
        args.json,
        lambda row: (
            f"{row['fetched_at']}  {row['http_status'] or '-':>4}  {row['change']:<9} "
            f"{human_duration(row['interval_before']) or '-'} -> "
            f"{human_duration(row['interval_after']) or '-'}  "
            f"{row['segment'] or '-'}"
        ),
    )
    return 0


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir")
    p.add_argument("url")
    p.add_argument("--at", metavar="ISO", help="the capture closest before this time instead")


@project_command
def run_show(project: Project, args: argparse.Namespace) -> int:
    # the WARC reader (warcio): only show reads captures
    from recrawl.core.archive.captures import latest_payload, payload_at
    from recrawl.core.net.http import decode_body

    page = _find_page(args.url)
    if args.at:
        record = payload_at(project.path, page.url, parse_iso(args.at))
    else:
        record = latest_payload(project.path, page.url)
    encoding = next((v for k, v in record.http_headers if k.lower() == "content-encoding"), None)
    body, problem = decode_body(record.body, encoding, 1 << 30)
    if problem:
        print(f"recrawl: warning: {problem}", file=sys.stderr)
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()
    return 0


COMMANDS = {
    "urls": Command(_urls_arguments, run_urls),
    "history": Command(_history_arguments, run_history),
    "show": Command(_show_arguments, run_show),
}
