"""``recrawl settings`` and ``recrawl notify`` for notifications (docs/design.md §17): URLs
checked as Apprise reads them, a test message to a real JSON listener on 127.0.0.1."""

from __future__ import annotations

import json
import signal

import pytest

from recrawl.main import main
from tests.support.httpserver import Reply
from tests.support.listener import Listener
from tests.support.watching import watched_project, watching


def run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_notify_urls_are_kept_and_a_bad_one_is_one_line_naming_it(tmp_path, capsys):
    d = tmp_path / "p"
    assert run(capsys, "init", d)[0] == 0
    code, _, err = run(capsys, "settings", d, "--set", "notify.urls=json://127.0.0.1:9/ bogus://x")
    assert code != 0 and len(err.strip().splitlines()) == 1
    assert "notify.urls" in err and "'bogus://x' is not a notification URL" in err
    code, out, _ = run(capsys, "settings", d, "--json")
    (row,) = [r for r in json.loads(out) if r["name"] == "notify.urls"]
    assert row["value"] == [] and row["is_default"]  # nothing half-saved

    urls = "json://127.0.0.1:9/ ntfy://recrawl-news"
    assert run(capsys, "settings", d, "--set", f"notify.urls={urls}")[0] == 0
    code, out, _ = run(capsys, "notify", d)
    assert code == 0 and out.splitlines() == urls.split()


def test_notify_test_sends_to_a_url_or_to_each_kept_one(tmp_path, capsys, closed_port):
    d = tmp_path / "p"
    assert run(capsys, "init", d)[0] == 0
    code, _, err = run(capsys, "notify", d, "--test")
    assert code == 1 and "notify.urls is empty" in err
    with Listener() as listener:
        code, out, _ = run(capsys, "notify", d, "--test", listener.url)
        assert code == 0 and out == f"sent: {listener.url}\n"
        assert len(listener.received()) == 1
        closed = f"json://127.0.0.1:{closed_port}/"
        assert run(capsys, "settings", d, "--set", f"notify.urls={listener.url} {closed}")[0] == 0
        code, out, err = run(capsys, "notify", d, "--test")
        assert code == 1 and out == f"sent: {listener.url}\n"
        (line,) = err.splitlines()
        assert line.startswith(f"recrawl: not sent: json://127.0.0.1:{closed_port}/: ")
        assert len(listener.received()) == 2


def test_recrawl_crawl_sends_its_news_and_says_a_failure(tmp_path, capsys, server):
    server.html("/", '<a href="/a">a</a>')
    server.html("/a", "<p>the first version of the page</p>")
    d = tmp_path / "p"
    with Listener(status=500) as listener:
        for args in (
            ["init", d],
            ["inject", d, server.url("/")],
            ["settings", d, "--set", f"notify.urls={listener.url}"],
            ["crawl", d, "--delay", "0", "--now", "2027-01-01T00:00:00Z"],
        ):
            assert run(capsys, *args)[0] == 0
        assert listener.messages == []  # the first crawl: a baseline, nothing to tell
        server.html("/a", "<p>the first version of the page</p><p>and a second paragraph</p>")
        code, _, err = run(capsys, "crawl", d, "--delay", "0", "--now", "2027-02-01T00:00:00Z")
        assert code == 0 and "notification not sent: json://127.0.0.1:" in err
        listener.status = 200
        code, _, err = run(capsys, "crawl", d, "--delay", "0", "--now", "2027-03-01T00:00:00Z")
        assert code == 0 and "notification" not in err
    (message,) = listener.received()
    assert message["title"] == "1 changed page on 127.0.0.1"
    assert f"Changed: {server.url('/a')}\n  + and a second paragraph" in message["message"]


@pytest.mark.slow
def test_a_watch_sends_a_message_for_its_round_with_news(tmp_path, server):
    first = "<p>the watched page</p>"
    fetches = []

    def page(handler):  # its second fetch on finds a paragraph added: no race with the rounds
        fetches.append(1)
        body = first if len(fetches) == 1 else first + "<p>a paragraph added later</p>"
        return Reply(200, body.encode())

    server.html("/", '<a href="/a">a</a>')
    server.routes["/a"] = page
    with Listener() as listener:
        project = watched_project(
            tmp_path / "p", server.url("/"), interval="2s", **{"notify.urls": listener.url}
        )
        with watching(project, "--json") as watch:
            (message,) = listener.wait_received(1)
            watch.wait_rounds(lambda found: len(found) >= 4, "two rounds after the change")
            watch.child.send_signal(signal.SIGTERM)
            assert watch.end() == 0, watch.err.lines
        assert len(listener.received()) == 1  # rounds without news send nothing
    assert message["title"] == "1 changed page on 127.0.0.1"
    assert f"Changed: {server.url('/a')}\n  + a paragraph added later" in message["message"]


def test_a_listing_and_a_failure_hide_the_passwords_in_the_urls(tmp_path, capsys, closed_port):
    d = tmp_path / "p"
    assert run(capsys, "init", d)[0] == 0
    secret = f"json://archivist:hunter2@127.0.0.1:{closed_port}/hook"
    assert run(capsys, "settings", d, "--set", f"notify.urls={secret}")[0] == 0
    code, out, _ = run(capsys, "notify", d)
    assert code == 0 and out == f"json://archivist:****@127.0.0.1:{closed_port}/hook\n"
    code, out, err = run(capsys, "notify", d, "--test")
    assert code == 1 and "hunter2" not in out + err and "archivist:****@" in err
