"""pywb, a standard replay tool, serving a pywb root folder on 127.0.0.1 for tests.

The product's own server is ``recrawl replay`` (:class:`recrawl.core.replay.server.ReplayServer`,
which the replay tests use); this harness serves any pywb root as pywb lays it out (a
WACZ unpacked, say), or one :func:`collection` builds over a project.

:func:`collection` lays out a pywb collection over a project without copying a byte: its
``archive/`` links every WARC (segments and ``history/``), its ``indexes/`` links our own
CDXJ indexes, which pywb reads as they are. :class:`Replay` runs pywb's app in a
subprocess (pywb needs gevent's monkey-patching, which must not touch the test process)
and learns its port from the first line the subprocess prints, once it is listening.

Run as a script (``python replayserver.py ROOT``), this file is that subprocess.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recrawl.core.replay.server import ReplayServer

COLLECTION = "project"


def collection(project_dir: Path, root: Path) -> Path:
    """A pywb root folder whose collection ``project`` is the project's archive."""
    coll = root / "collections" / COLLECTION
    (coll / "archive").mkdir(parents=True)
    (coll / "indexes").mkdir()
    warcs = sorted(project_dir.glob("segments/*/*.warc.gz")) + sorted(
        project_dir.glob("history/*.warc.gz")
    )
    for warc in warcs:
        (coll / "archive" / warc.name).symlink_to(warc)
        index = warc.with_suffix("").with_suffix(".cdxj")
        (coll / "indexes" / index.name).symlink_to(index)
    (root / "config.yaml").write_text("collections_root: collections\n", encoding="utf-8")
    return root


@dataclass(frozen=True)
class Replayed:
    status: int
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)


def fetch(address: str, encodings: str = "gzip, br") -> Replayed:
    """What a replay server answers at ``address``, as a browser would fetch it.

    pywb answers redirects to the closest capture's own stamp: those are followed, as a
    browser would, but whatever else it says is reported as it is. ``encodings``: a
    browser's Accept-Encoding (without one, pywb decodes a content-encoded body).
    """
    headers = {"Accept-Encoding": encodings} if encodings else {}
    request = urllib.request.Request(address, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return Replayed(answer.status, dict(answer.headers.items()), answer.read())
    except urllib.error.HTTPError as error:
        return Replayed(error.code, dict(error.headers.items()), error.read())


class Replay:
    """pywb serving ``root`` (from :func:`collection`) on 127.0.0.1 until :meth:`stop`."""

    def __init__(self, root: Path) -> None:
        self._proc = subprocess.Popen(
            [sys.executable, __file__, str(root)],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()  # printed once the socket listens
        if not line.strip().isdigit():
            self.stop()
            raise RuntimeError(f"pywb did not start: {line}{self._stderr()}")
        self.port = int(line)

    def raw(self, stamp: str, url: str) -> Replayed:
        """The capture of ``url`` closest to ``stamp`` in pywb's raw (``id_``) mode."""
        return fetch(f"http://127.0.0.1:{self.port}/{COLLECTION}/{stamp}id_/{url}")

    def stop(self) -> None:
        self._proc.kill()
        self._proc.wait(timeout=30)
        for stream in (self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()

    def _stderr(self) -> str:
        self._proc.kill()
        assert self._proc.stderr is not None
        return self._proc.stderr.read()[-4000:]


def _serve(root: str) -> None:
    from gevent.monkey import patch_all

    patch_all()
    from gevent.pywsgi import WSGIServer
    from pywb.apps.frontendapp import FrontEndApp

    app = FrontEndApp(config_file=f"{root}/config.yaml")
    server = WSGIServer(("127.0.0.1", 0), app, log=None)
    server.start()
    print(server.server_port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    _serve(sys.argv[1])


def shown(replay: ReplayServer, stamp: str, url: str) -> Replayed:
    """What a browser shows at a capture's replay URL: pywb's frame (its banner, which
    finds captures under the collection's prefix), then the page in that frame."""
    frame = fetch(replay.url(stamp, url), encodings="")
    assert frame.status == 200, frame
    assert f'prefix: "{replay.base}/{COLLECTION}/"' in frame.body.decode(), frame.body[:2000]
    return fetch(replay.url(stamp, url, inner=True), encodings="")
