"""Review of step 14: inject takes a URL typed without a scheme and tells the user that
`recrawl refetch DIR URL...` makes it due now; refetch refuses the same text."""

from __future__ import annotations

from tests import httpserver
from tests.httpserver import Reply
from tests.interrupted import recrawl


def test_refetch_takes_the_url_as_inject_took_it(tmp_path):
    server = httpserver.TestServer()
    server.start()
    server.routes["/"] = Reply(200, b"<html><title>x</title><p>x</p></html>")
    try:
        d = tmp_path / "p"
        typed = f"127.0.0.1:{server.port}/"
        recrawl("init", d)
        recrawl("inject", d, typed)
        recrawl("crawl", d, "--delay", "0")
        again = recrawl("inject", d, typed)
        assert "refetch" in again.stdout + again.stderr  # the hint the user follows
        done = recrawl("refetch", d, typed, check=False)
        assert done.returncode == 0, done.stderr
    finally:
        server.stop()
