"""A static site served by a separate process on 127.0.0.1, for crawls of thousands of pages.

An in-process test server would share the GIL with the code under test; the GUI's
event-loop test must measure the window, not the server.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.crawl_bench import generate_site, page_path

SERVE = """
import functools, http.server, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
handler = functools.partial(Quiet, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


class StaticSite:
    def __init__(self, root: Path, pages: int) -> None:
        self.root = root
        self.pages = pages
        generate_site(root, pages)
        self._process = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(root)], stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        self.port = int(self._process.stdout.readline())

    def url(self, i: int = 0) -> str:
        return f"http://127.0.0.1:{self.port}{page_path(i)}"

    def stop(self) -> None:
        self._process.kill()
        self._process.communicate(timeout=10)
