"""``recrawl settings``: what the project keeps for its crawls; ``crawl`` starts from it."""

from __future__ import annotations

import json
import threading

import pytest
from recrawl.core.config import (
    STORABLE,
    CrawlSettings,
    parse_setting,
    setting_fields,
    setting_text,
    setting_value,
)

from recrawl.main import main
from tests.support.httpserver import Reply


def settings_json(capsys, d, *args: str) -> dict[str, dict]:
    capsys.readouterr()
    assert main(["settings", str(d), *args, "--json"]) == 0
    return {row["name"]: row for row in json.loads(capsys.readouterr().out)}


def test_every_storable_setting_is_listed_with_its_default(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    rows = settings_json(capsys, d)
    assert list(rows) == list(STORABLE)
    for name, row in rows.items():
        assert set(row) == {"name", "value", "default", "is_default", "help", "unit"}
        assert row["name"] == name and row["help"] == STORABLE[name].help
        assert row["is_default"] and row["value"] == row["default"]
    assert rows["politeness.delay"]["default"] == 1.0  # JSON keeps seconds
    assert main(["settings", str(d)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in text] == list(STORABLE)
    assert text[0].split() == ["politeness.delay", "1s", "default"]


def test_set_and_unset_are_kept_and_typed_as_on_the_command_line(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    rows = settings_json(
        capsys,
        d,
        "--set",
        "politeness.delay=0.05s",
        "--set",
        "politeness.per_host=2",
        "--set",
        "politeness.obey_robots=false",
        "--set",
        "fetch.read_timeout=1m",
        "--set",
        "fetch.user_agent=Archivist (+mailto:me@example.org)",
    )
    assert rows["politeness.delay"] == {
        "name": "politeness.delay",
        "value": 0.05,
        "default": 1.0,
        "is_default": False,
        "help": "Time between two requests to one host (jittered by ±50 %).",
        "unit": "s",
    }
    assert rows["politeness.per_host"]["value"] == 2
    assert rows["politeness.obey_robots"]["value"] is False
    assert rows["fetch.read_timeout"]["value"] == 60.0
    assert rows["fetch.user_agent"]["value"] == "Archivist (+mailto:me@example.org)"
    assert rows["politeness.concurrency"]["is_default"]
    capsys.readouterr()
    assert main(["settings", str(d)]) == 0
    lines = {
        line.split()[0]: line.split(None, 1)[1] for line in capsys.readouterr().out.splitlines()
    }
    assert lines["politeness.delay"].split() == ["0.05s", "kept", "(default", "1s)"]
    assert lines["fetch.read_timeout"].split() == ["1m", "kept", "(default", "30s)"]
    assert lines["politeness.obey_robots"].split() == ["false", "kept", "(default", "true)"]
    rows = settings_json(capsys, d, "--unset", "politeness.delay", "--unset", "fetch.read_timeout")
    assert rows["politeness.delay"]["is_default"] and rows["politeness.delay"]["value"] == 1.0
    assert rows["politeness.per_host"]["value"] == 2  # the others stay kept


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--set", "politeness.speed=3"), "no crawl setting 'politeness.speed' (there are: "),
        (("--unset", "politeness.speed"), "no crawl setting 'politeness.speed'"),
        (("--set", "politeness.delay"), "--set takes NAME=VALUE, not 'politeness.delay'"),
        (("--set", "politeness.delay=soon"), "politeness.delay: not a number of seconds"),
        (("--set", "politeness.delay=-1"), "politeness.delay: must not be negative"),
        (("--set", "fetch.read_timeout=0"), "fetch.read_timeout: must be more than 0"),
        (("--set", "politeness.per_host=0"), "politeness.per_host: must be at least 1"),
        (("--set", "politeness.obey_robots=maybe"), "obey_robots: not true or false: 'maybe'"),
        # a whole-request limit of 0 fails every fetch, as --timeout 0 would
        (("--set", "fetch.total_timeout=0"), "fetch.total_timeout: must be more than 0"),
        # robots.txt groups are matched by the agent's first word: there must be one
        (("--set", "fetch.user_agent="), "fetch.user_agent: must start with the crawler's name"),
        (("--set", "fetch.user_agent=  "), "fetch.user_agent: must start with the crawler's"),
        (("--set", "fetch.user_agent=/1.0 (+x)"), "fetch.user_agent: must start with the"),
        # sent as an HTTP header: one that httpx or h11 refuses would fail every fetch
        (("--set", "fetch.user_agent=Archivé/1.0"), "fetch.user_agent: must be printable ASCII"),
        (("--set", "fetch.user_agent=Archivist/1.0 "), "fetch.user_agent: must be printable"),
        (("--set", "fetch.user_agent=  Archivist/1.0"), "fetch.user_agent: must be printable"),
        (
            ("--set", "politeness.delay=1", "--unset", "politeness.delay"),
            "politeness.delay is both set and unset",
        ),
        # a site's own capture mode: a host name and a mode, named in the message
        (("--set", "capture.mode@example.org=chrome"), "capture.mode@example.org: must be http"),
        (("--set", "capture.mode@http://example.org/=browser"), "capture.mode@http:"),
        (("--set", "capture.mode@=browser"), "capture.mode@: names no host"),
        (("--unset", "capture.mode@exa mple.org"), "capture.mode@exa mple.org: not a host"),
        (("--set", "capture.mode=firefox"), "capture.mode: must be http or browser"),
    ],
)
def test_a_wrong_setting_is_one_line_and_nothing_is_kept(tmp_path, capsys, args, message):
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["settings", str(d), "--set", "politeness.per_host=3"])
    capsys.readouterr()
    assert main(["settings", str(d), "--set", "politeness.concurrency=4", *args]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    rows = settings_json(capsys, d)
    assert (
        rows["politeness.per_host"]["value"] == 3 and rows["politeness.concurrency"]["is_default"]
    )


def test_values_read_back_as_they_print():
    # every float setting is a duration (typed 30s, 2m): one that is not must say so here
    defaults = CrawlSettings()
    for name in STORABLE:
        value = setting_value(defaults, name)
        if value is not None:  # a None default is had back by --unset, not typed
            assert parse_setting(name, setting_text(name, value)) == value
    assert all(spec.kind == "duration" for spec in STORABLE.values() if spec.type is float)
    assert setting_text("fetch.total_timeout", None) == "not set"
    assert setting_text("politeness.delay", 0.0) == "0s"
    assert setting_text("fetch.read_timeout", 90.0) == "90s"
    assert setting_text("politeness.robots_ttl", 86400.0) == "1d"


def test_a_crawl_starts_from_the_kept_settings_and_its_flags_override_them(
    tmp_path, capsys, server
):
    # kept: a user agent and a read timeout far too short for a page that thinks a second
    release = threading.Event()

    def slow(handler):
        release.wait(1.5)
        return Reply(200, b"<p>slow but fine</p>")

    server.routes["/slow"] = slow
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["inject", str(d), server.url("/slow")])
    agent = "Archivist-Test/1 (+mailto:me@example.org)"
    main(["settings", str(d), "--set", f"fetch.user_agent={agent}"])
    main(["settings", str(d), "--set", "fetch.read_timeout=0.2s", "--set", "politeness.delay=0"])
    capsys.readouterr()
    assert main(["crawl", str(d), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["errors"] == 1  # the kept timeout applied
    assert {h["User-Agent"] for _, h in server.hits} == {agent}
    # this crawl only: a longer timeout from the flag fetches it (retried a day later)
    assert (
        main(["crawl", str(d), "--json", "--timeout", "10", "--now", "2040-01-01T00:00:00Z"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["fetched"] == 1
    rows = settings_json(capsys, d)
    assert rows["fetch.read_timeout"]["value"] == 0.2  # the flag kept nothing


def test_trap_limits_are_settings_and_allowed_patterns_a_list(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    pattern = "http://example.org/calendar/{n}-{n}-{n}"
    rows = settings_json(
        capsys,
        d,
        "--set",
        "traps.max_depth=20",
        "--set",
        f"traps.allowed_patterns={pattern} http://example.org/p?page={{n}}",
    )
    assert rows["traps.max_depth"]["value"] == 20
    assert {key: rows["traps.max_sequence"][key] for key in ("value", "default", "is_default")} == {
        "value": 40,
        "default": 40,
        "is_default": True,
    }
    assert rows["traps.allowed_patterns"]["value"] == [pattern, "http://example.org/p?page={n}"]
    assert rows["traps.allowed_patterns"]["default"] == []
    assert main(["settings", str(d)]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "allowed" in line]
    assert line.split()[:3] == ["traps.allowed_patterns", pattern, "http://example.org/p?page={n}"]
    assert line.endswith("kept (default none)")
    rows = settings_json(capsys, d, "--set", "traps.allowed_patterns=none")
    assert rows["traps.allowed_patterns"]["value"] == []


def test_the_body_limit_is_kept_as_a_size(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    rows = settings_json(capsys, d, "--set", "fetch.max_body_bytes=512k")
    assert rows["fetch.max_body_bytes"]["value"] == 512 * 1024  # JSON keeps bytes
    assert rows["fetch.max_body_bytes"]["default"] == 10 * 1024 * 1024
    capsys.readouterr()
    assert main(["settings", str(d)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "max_body" in x)
    assert line.split() == ["fetch.max_body_bytes", "512k", "kept", "(default", "10M)"]
    assert main(["settings", str(d), "--set", "fetch.max_body_bytes=0"]) == 1
    assert "fetch.max_body_bytes: must be at least 1 byte" in capsys.readouterr().err


def test_every_setting_has_its_help_in_the_help_text(capsys):
    fields = setting_fields()
    assert [item.name for item in fields] == list(STORABLE)
    with pytest.raises(SystemExit):
        main(["settings", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for item in fields:
        assert item.help.endswith("."), item.name  # a sentence for people, not missing
        assert " ".join(item.help.split()) in text, item.name
    kinds = {item.name: item.kind for item in fields}
    assert kinds["politeness.delay"] == "duration" and kinds["fetch.max_body_bytes"] == "size"
    assert kinds["traps.allowed_patterns"] == "list" and kinds["embeds.enabled"] == "bool"


def test_json_gives_each_setting_its_help_and_unit(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    rows = settings_json(capsys, d)
    assert rows["politeness.delay"]["unit"] == "s"
    assert rows["fetch.max_body_bytes"]["unit"] == "bytes"
    assert rows["traps.max_depth"]["unit"] == "links"
    assert rows["politeness.obey_robots"]["unit"] is None
    assert rows["politeness.obey_robots"]["help"] == "Obey robots.txt (RFC 9309)."
    for name, row in rows.items():
        assert row["help"] == STORABLE[name].help and row["unit"] == STORABLE[name].unit


def test_help_lists_each_setting_with_its_unit_and_bounds(capsys):
    with pytest.raises(SystemExit):
        main(["settings", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Parallel connections to one host. (connections, ≥ 1)" in text
    assert "fetch.read_timeout 30s How long the server may send nothing" in text
    assert "before the fetch fails. (> 0s)" in text


def test_a_sites_capture_mode_is_kept_listed_and_documented(tmp_path, capsys):
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["inject", str(d), "http://a.example/", "http://other.example/"])
    capsys.readouterr()
    rows = settings_json(capsys, d, "--set", "capture.mode@a.example=browser")
    assert rows["capture.mode@a.example"] == {
        "name": "capture.mode@a.example",
        "value": "browser",
        "default": "http",  # the project-wide mode it stands over
        "is_default": False,
        "help": rows["capture.mode@a.example"]["help"],
        "unit": None,
    }
    names = list(rows)
    assert names[names.index("capture.mode") + 1] == "capture.mode@a.example"
    assert main(["settings", str(d), "--set", "capture.mode@WWW.Example.ORG=http"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert ["capture.mode@a.example", "browser", "kept", "(project-wide", "http)"] in [
        line.split() for line in out
    ]
    assert any(line.split()[:2] == ["capture.mode@www.example.org", "http"] for line in out)
    # project-wide: the sites without their own entry switch, and the command says so
    assert main(["settings", str(d), "--set", "capture.mode=browser"]) == 0
    err = capsys.readouterr().err
    assert err == "capture mode changed for other.example (no page signed yet)\n"
    rows = settings_json(capsys, d, "--unset", "capture.mode@a.example")
    assert "capture.mode@a.example" not in rows
    assert rows["capture.mode@www.example.org"]["default"] == "browser"
    with pytest.raises(SystemExit):
        main(["settings", "--help"])
    epilog = capsys.readouterr().out
    assert "a site's own capture mode:\n  capture.mode@HOST" in epilog
    assert "--unset capture.mode@HOST gives the site the project-wide mode" in " ".join(
        epilog.split()
    )


def test_a_mode_switch_says_how_many_pages_forgot_their_signatures(tmp_path, capsys, server):
    server.html("/", '<html><body><p>home</p><a href="/two">two</a></body></html>')
    server.html("/two", "<html><body><p>two</p></body></html>")
    d = tmp_path / "p"
    main(["init", str(d)])
    main(["inject", str(d), server.url("/")])
    assert main(["crawl", str(d), "--delay", "0", "--max-pages", "1"]) == 0
    capsys.readouterr()
    host = server.address
    assert main(["settings", str(d), "--set", f"capture.mode@{host}=browser"]) == 0
    assert capsys.readouterr().err == (
        f"capture mode changed for {host}: 1 page forgot its signature "
        "(its next fetch is unknown, not a change)\n"
    )
    assert main(["settings", str(d), "--unset", f"capture.mode@{host}"]) == 0
    assert main(["crawl", str(d), "--delay", "0"]) == 0  # over HTTP again: both pages signed
    capsys.readouterr()
    assert main(["settings", str(d), "--set", f"capture.mode@{host}=browser"]) == 0
    assert capsys.readouterr().err == (
        f"capture mode changed for {host}: 2 pages forgot their signatures "
        "(the next fetch of each is unknown, not a change)\n"
    )
