"""The ``recrawl replay`` process: pywb serving a project's captures (docs/design.md §13).

Imported by that command alone, and only once pywb is known to be installed: pywb's
servers run on gevent, whose monkey-patching (:func:`serve` does it first) makes every
socket and thread of the process cooperative. No other process of Recrawl (the app, a
crawl) may ever be patched so: that is why replay is a process of its own.

pywb is handed the collection ``project`` as :mod:`recrawl.core.archive.replay` lays it
out, with a resolver that finds each WARC beside its index. Its index is the store's
capture table (:mod:`.table_index`: one query a lookup, however many segments); where
the table cannot be read (a PostgreSQL store: its driver and gevent are not known to
agree; a table not built yet) the project's index folders, listed for every lookup (a
segment a compaction has just deleted is skipped, not an error). pywb reads no
``config.yaml`` and lists no other collection, whatever the folder it is started from.
"""

from __future__ import annotations

import contextlib
import glob
import os
import signal
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from recrawl.core.archive.replay import COLLECTION, INDEX_FOLDERS, warc_paths
from recrawl.core.archive.segments import OPEN_SUFFIX
from recrawl.core.errors import ReplayError
from recrawl.core.interrupts import STOP_SIGNALS, signal_name
from recrawl.core.replay.banner import local_banner
from recrawl.core.replay.table_index import table_source

#: The index source type the collection's config names (registered with pywb below).
_SOURCE_TYPE = "recrawl-project"


def serve(
    project_dir: Path, port: int, ready: Callable[[int], None], stop_on_eof: bool = False
) -> int:
    """Serve ``project_dir``'s captures on 127.0.0.1:``port`` (0: a free port) until a
    stop signal (or, with ``stop_on_eof``, until stdin ends: the app that started the
    server has gone); ``ready(port)`` once it listens. Returns the exit status."""
    from gevent import monkey

    monkey.patch_all()
    import gevent
    from gevent.pywsgi import WSGIServer

    # pywb talks on stdout as it sets up (and on later lookups): stdout carries only the
    # line ``ready`` prints, which whoever started us reads
    own = tempfile.TemporaryDirectory(prefix="recrawl-replay-")  # gone when we end
    with contextlib.redirect_stdout(sys.stderr):
        app = _app(project_dir, Path(own.name))
    server = WSGIServer(("127.0.0.1", port), app, log=None)
    try:
        server.start()
    except OSError as exc:
        server.close()
        raise ReplayError(
            f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
            + (" (choose another with --port; 0 picks a free one)" if port else "")
        ) from None
    received: list[int] = []

    def stop(signum: int) -> None:
        if not received:
            received.append(signum)
            print(f"recrawl: {signal_name(signum)}: stopped serving", file=sys.stderr)
        server.close()  # serve_forever returns once the answers in flight are done

    for signum in STOP_SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            gevent.signal_handler(signum, stop, signum)
    if stop_on_eof:
        # a real thread (the hub's pool) blocks on the pipe; EOF: the parent is gone
        waiting = gevent.get_hub().threadpool.spawn(sys.stdin.buffer.read)
        waiting.rawlink(lambda _: server.close())
    ready(server.server_port)
    sys.stdout.flush()
    sys.stdout = sys.stderr  # pywb's later chatter stays off the announced line's pipe
    server.serve_forever(stop_timeout=5)
    return 128 + received[0] if received else 0


def _without_proxy_mode() -> None:
    """Where pyOpenSSL cannot be imported (the packaged app leaves it out: with the
    cryptography it loads, 12 MB), a stand-in for pywb's HTTP-proxy mode.

    pywb's front end imports that mode (wsgiprox, which imports pyOpenSSL) whether or not
    it is configured; replay by URL, all Recrawl serves, never uses it.
    """
    try:
        import OpenSSL  # noqa: F401 - loaded by wsgiprox anyway, where it imports
    except ImportError:  # not there, or there but broken (a mismatched cryptography)
        pass
    else:
        return

    class WSGIProxMiddleware:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise ReplayError("pywb's proxy mode needs pyOpenSSL, which is not installed")

    stand_in = types.ModuleType("wsgiprox.wsgiprox", _without_proxy_mode.__doc__)
    stand_in.WSGIProxMiddleware = WSGIProxMiddleware  # type: ignore[attr-defined]
    sys.modules["wsgiprox.wsgiprox"] = stand_in


def _app(project_dir: Path, own: Path) -> Any:
    """pywb's app over the project; ``own``: an empty folder of the server's own."""
    _without_proxy_mode()
    import pywb
    from pywb import DEFAULT_CONFIG
    from pywb.apps.frontendapp import FrontEndApp
    from pywb.warcserver.index.aggregator import DirectoryIndexSource, SimpleAggregator
    from pywb.warcserver.warcserver import register_source

    class Folders(DirectoryIndexSource):
        """pywb's listing of the ``.cdxj`` files in the folders a glob matches."""

        def _load_files(self, glob_dir: str) -> Iterator[Any]:
            # pywb globs the project's path too: a folder named "Crawls [2026]" would
            # match nothing; only the index folders' part is a pattern
            prefix = self.base_prefix
            if glob_dir.startswith(prefix):
                glob_dir = glob.escape(prefix) + glob_dir[len(prefix) :]
            for the_dir in glob.iglob(glob_dir):
                yield from self._load_files_single_dir(the_dir)

        def _load_files_single_dir(self, the_dir: str) -> list[Any]:
            try:
                return list(super()._load_files_single_dir(the_dir))
            except FileNotFoundError:  # deleted by a compaction since the glob saw it
                return []

    class ProjectIndex:
        """The index source of a ``{"type": "recrawl-project", "path": DIR}`` config."""

        @classmethod
        def init_from_string(cls, value: str) -> None:
            return None

        @classmethod
        def init_from_config(cls, config: dict[str, Any]) -> Any:
            if config.get("type") != _SOURCE_TYPE:
                return None
            root = config["path"]
            folders = SimpleAggregator({folder: Folders(root, folder) for folder in INDEX_FOLDERS})
            table = table_source(Path(root), folders)
            return folders if table is None else SimpleAggregator({"table": table})

    def resolve(filename: str, cdx: Any) -> list[str]:
        # the line's source ends with its index's path relative to the project
        # ("project:segments/*:segments/X/X.cdxj", or "project:table:segments/X/X.cdxj"),
        # whose WARC may still be written (the table lists a round's committed captures)
        source = cdx.get("source") or ""
        index = source.rsplit(":", 1)[-1] if source else None
        found = []
        for path in warc_paths(project_dir, filename, index):
            found += [p for p in (path, path.with_name(path.name + OPEN_SUFFIX)) if p.is_file()]
        return [str(p) for p in found]

    register_source(ProjectIndex)
    collections_root, static_dir = own / "collections", own / "static"
    collections_root.mkdir()
    static_dir.mkdir()
    if not local_banner(Path(pywb.__file__).parent / "static", static_dir):
        print(
            "recrawl: warning: this pywb's banner is not one Recrawl knows: "
            "its capture times are UTC, though not labelled so",
            file=sys.stderr,
        )
    os.environ.pop("PYWB_CONFIG_FILE", None)  # a config of the user's other pywb
    config = {
        # an empty folder of collections: only ours is served, and pywb puts the
        # collection's name in the addresses it rewrites links to only when it has one
        # (without, every link, image and style of a replayed page missed the archive)
        "collections_root": str(collections_root),
        "enable_auto_colls": False,
        "collections": {
            COLLECTION: {
                "index": {"type": _SOURCE_TYPE, "path": str(project_dir)},
                "archive_paths": [resolve],
            }
        },
        # pywb's framed replay (its default): its banner (the capture's date, the other
        # captures) above the page, which is at ``<TIMESTAMP>mp_/<URL>``
        "framed_replay": True,
        # served before pywb's own static files: the banner in local time (banner.py)
        "static_dir": str(static_dir),
    }
    app = FrontEndApp(config_file=DEFAULT_CONFIG, custom_config=config)
    # its access log lists the front end's own requests: noise on the terminal
    app.warcserver_server.server.log = _Nowhere()
    return app


class _Nowhere:
    """A log that writes nothing (gevent's servers write their access log to one)."""

    def write(self, text: str) -> None:
        pass
