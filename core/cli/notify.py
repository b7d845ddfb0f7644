"""``recrawl notify``: the project's notification services (docs/design.md §17), and a test
message to them.

    recrawl notify DIR                 the URLs of notify.urls
    recrawl notify DIR --test          a test message to each of them
    recrawl notify DIR --test URL      a test message to URL (before keeping it)
"""

from __future__ import annotations

import argparse
import sys

from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.cli.project_command import project_command
from recrawl.core.project import Project
from recrawl.core.services import Services


def _arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "List the notification services the project sends each crawl's news to (the setting "
        "notify.urls: `recrawl settings DIR --set 'notify.urls=URL ...'`), or send them a "
        "test message."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--test",
        nargs="?",
        const="",
        metavar="URL",
        help="send a test message to URL (an Apprise URL), or to each of notify.urls; "
        "exits 1 if one was not sent, saying why",
    )


@project_command
def run_notify(project: Project, args: argparse.Namespace) -> int:
    from recrawl.core.engine.notify_send import shown_url  # loads Apprise

    notify = Services(project).notify
    urls = notify.urls()
    if args.test is None:
        for url in urls:
            print(shown_url(url))  # a listing may be pasted anywhere: no passwords
        if not urls:
            print("no notification services (notify.urls is empty)", file=sys.stderr)
        return 0
    targets = [args.test] if args.test else urls
    if not targets:
        print("recrawl: no URL to test: notify.urls is empty", file=sys.stderr)
        return 1
    failed = 0
    for url in targets:
        problem = notify.send_test(url)
        if problem is None:
            print(f"sent: {shown_url(url)}")
        else:
            failed += 1
            print(f"recrawl: not sent: {problem}", file=sys.stderr)
    return 1 if failed else 0


COMMANDS = {"notify": Command(_arguments, run_notify)}
