"""The ``recrawl`` argument parser (docs/design.md §8) and the list of commands.

A command's arguments and its code live in one module of this package; the list below
names that module and the command's help line. Only the module of the command being
run is imported, so a quick command such as ``urls`` never loads what others need
(numpy, httpx, the crawl engine: issue 11), as pip loads only the command it runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import NoReturn, TypeVar, overload

from recrawl import __version__

_N = TypeVar("_N")


@dataclass(frozen=True)
class Command:
    """A command as its module defines it: its arguments, and what runs it."""

    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Listed:
    """A command as ``recrawl --help`` lists it, and the module that defines it."""

    module: str  # under recrawl.core.cli; it has COMMANDS: dict[str, Command]
    help: str


LISTED: dict[str, Listed] = {
    "init": Listed("crawl", "create a project folder"),
    "inject": Listed("crawl", "add seed URLs"),
    "crawl": Listed("crawl", "crawl what is due"),
    "refetch": Listed("refetch", "make pages due now: the next crawl fetches them"),
    "watch": Listed("watch", "crawl pages as they come due, sleeping in between"),
    "worker": Listed("workers", "run one crawl worker beside others (a shared project)"),
    "workers": Listed("workers", "list the crawl workers: live, and lately ended"),
    "urls": Listed("pages", "list the pages"),
    "sources": Listed("sources", "list the sitemaps and feeds read for new pages"),
    "history": Listed("pages", "a page's fetch history"),
    "show": Listed("pages", "the decoded payload of a page's latest capture"),
    "diff": Listed("diff", "what changed in a page's text between two captures"),
    "search": Listed("search", "find pages by their text, and when it appeared and went"),
    "news": Listed("news", "what is new: pages new, changed, gone or back, newest first"),
    "feed": Listed("news", "the news as an Atom feed"),
    "settings": Listed("settings", "show or change the crawl settings the project keeps"),
    "notify": Listed("notify", "list the notification services, or send them a test"),
    "schedule": Listed("policy", "show or choose the project's fetch schedule"),
    "signature": Listed("policy", "show or choose how content changes are detected"),
    "changes": Listed("changes", "show or set what counts as a change, per URL prefix"),
    "scoring": Listed("policy", "show or choose how pages are scored"),
    "simulate": Listed(
        "policy", "simulate a schedule on one page, or compare schedules on a corpus"
    ),
    "segments": Listed("segments", "list segments with their liveness"),
    "compact": Listed("segments", "fold low-liveness segments into one"),
    "storage": Listed("storage", "where the bytes are, their growth, and the free space"),
    "export": Listed("export", "package captures as a WACZ file for other web-archive tools"),
    "filter": Listed("filter", "check, edit, import and export the URL filter chain"),
    "replay": Listed("replay", "serve the captures on 127.0.0.1 to open in a browser (pywb)"),
}


def command(name: str) -> Command:
    """The command ``name``, importing its module (and what that module needs)."""
    module = import_module(f"recrawl.core.cli.{LISTED[name].module}")
    found: Command = module.COMMANDS[name]
    return found


class Parser(argparse.ArgumentParser):
    #: The destination (a list) that takes the words looking like short options that are
    #: none: a search query's ``-exclusions`` (``-harbour`` is not ``-h arbour``); None:
    #: such a word is an option, or an error, as argparse has it.
    loose_words: str | None = None

    @overload
    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: None = None
    ) -> tuple[argparse.Namespace, list[str]]: ...
    @overload
    def parse_known_args(
        self, args: Iterable[str] | None, namespace: _N
    ) -> tuple[_N, list[str]]: ...
    @overload
    def parse_known_args(self, *, namespace: _N) -> tuple[_N, list[str]]: ...

    def parse_known_args(
        self, args: Iterable[str] | None = None, namespace: object = None
    ) -> tuple[object, list[str]]:
        if self.loose_words is None or args is None:
            return super().parse_known_args(args, namespace)
        words = list(args)
        loose = [word for word in words if self._is_loose(word)]
        parsed, extras = super().parse_known_args(
            [word for word in words if not self._is_loose(word)], namespace
        )
        setattr(parsed, self.loose_words, [*getattr(parsed, self.loose_words), *loose])
        return parsed, extras

    def _is_loose(self, word: str) -> bool:
        return (
            word.startswith("-")
            and not word.startswith("--")
            and len(word) > 1
            and word not in self._option_string_actions
        )

    def error(self, message: str) -> NoReturn:
        # one clear line instead of argparse's usage block
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with the arguments of command ``only`` alone.

    Every command is listed either way (``recrawl --help`` shows them all); a command's
    arguments are needed only when it is the one given.
    """
    parser = Parser(prog="recrawl", description="Crawl manager for web archivists.")
    parser.add_argument("--version", action="version", version=f"recrawl {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="crawl a tiny loopback site from the app's own window (offscreen) and exit",
    )
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    p = sub.add_parser("gui", help="open the desktop app")
    p.add_argument("dir", nargs="?", help="project folder (default: the default project)")
    p.add_argument(
        "--watch",
        action="store_true",
        help="start watching the project at once: rounds run as its pages come due",
    )
    p.add_argument(
        "--hidden",
        action="store_true",
        help="start with the window hidden in the system tray (with --watch, as the "
        "'start watching at login' entry does); shown anyway where there is no tray",
    )
    for name, listed in LISTED.items():
        p = sub.add_parser(name, help=listed.help)
        if only is None or only == name:
            command(name).arguments(p)
    return parser


def command_word(argv: Sequence[str]) -> str:
    """The command ``argv`` names ("gui" when none): its first word that is not an option.

    No option before the command takes a value, so that word is the command.
    """
    return next((word for word in argv if not word.startswith("-")), "gui")
