"""``recrawl replay``: a project's captures in the browser, as they looked (docs/design.md §13).

The command serves them with pywb on 127.0.0.1 until Ctrl-C
(:mod:`recrawl.core.replay.pywb_process`: a process of its own, patched for gevent).
:class:`~recrawl.core.replay.server.ReplayServer` runs this command in a subprocess for
the app, the tests and the benchmarks.

pywb is an optional extra (``recrawl[replay]``): without it the command says in one
line how to get it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from recrawl.core.archive.replay import COLLECTION
from recrawl.core.cli.output import DIR_HELP
from recrawl.core.cli.parser import Command
from recrawl.core.errors import ProjectError, RecrawlError, ReplayUnavailable
from recrawl.core.layout import STORE_FILE, Layout
from recrawl.core.project import Project
from recrawl.core.replay.server import INSTALL_HINT, UNAVAILABLE, replay_installed

#: The port served when none is given (pywb's own default).
DEFAULT_PORT = 8080


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text} (0 to 65535)")
    return port


def _replay_arguments(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Serve the project's captures on 127.0.0.1 with pywb, to open in a browser as "
        f"they looked: http://127.0.0.1:PORT/{COLLECTION}/TIMESTAMP/URL is URL at its "
        "capture closest to TIMESTAMP (UTC, 14 digits yyyyMMddhhmmss or a prefix), "
        "…/TIMESTAMPid_/URL its bytes as archived. Captures made while it serves (a "
        f"crawl, a compaction) are served too. Needs pywb: {INSTALL_HINT}."
    )
    p.add_argument("dir", help=DIR_HELP)
    p.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        metavar="P",
        help=f"the port to listen on (default: {DEFAULT_PORT}; 0: a free one, printed)",
    )
    # for ReplayServer: stop when the process that started us closes our stdin (or dies)
    p.add_argument("--stop-on-eof", action="store_true", help=argparse.SUPPRESS)


def run_replay(args: argparse.Namespace) -> int:
    folder = project_folder(args.dir)
    if not replay_installed():
        raise ReplayUnavailable(UNAVAILABLE)
    _bring_up_to_date(folder)
    from recrawl.core.replay import pywb_process

    def ready(port: int) -> None:
        print(
            f"Serving the captures of {folder} at http://127.0.0.1:{port}/{COLLECTION}/ "
            "(Ctrl-C stops)",
            flush=True,
        )

    try:
        return pywb_process.serve(folder, args.port, ready, stop_on_eof=args.stop_on_eof)
    except ImportError as exc:  # there, but broken: a part of pywb or gevent missing
        raise ReplayUnavailable(f"{UNAVAILABLE} ({exc})") from None


def _bring_up_to_date(folder: Path) -> None:
    """The project opened once and closed: what opening finishes (a killed round's
    recovery; an older version's index keys, which pywb would look pages up by in vain)
    is done before pywb reads the indexes. Serving needs nothing else of the store, so a
    store that cannot open is said and the captures are served all the same."""
    try:
        project = Project.open(folder)
    except RecrawlError as exc:
        print(f"recrawl: warning: {exc}; serving the captures as they are", file=sys.stderr)
        return
    for note in project.notes:
        print(f"recrawl: {note}", file=sys.stderr)
    project.close()


def project_folder(path: str | Path) -> Path:
    """The project folder ``path`` names, checked without opening its store: the server
    reads only the folder's WARCs and indexes, beside crawls, the app and compactions."""
    folder = Path(path).expanduser().absolute()
    if not folder.is_dir():
        raise ProjectError(f"no project at {folder}")
    if not Layout(folder).is_project():
        raise ProjectError(f"{folder} is not a Recrawl project (no {STORE_FILE})")
    return folder


COMMANDS = {"replay": Command(_replay_arguments, run_replay)}
