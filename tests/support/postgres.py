"""A private PostgreSQL cluster for the tests: initdb and pg_ctl from the distribution's
``postgresql`` package, in a temporary folder, on a free loopback port, trust auth.

One cluster per test process (each xdist worker starts its own); each test gets a
database of its own, copied from a migrated template (CREATE DATABASE … TEMPLATE: a
file copy, much quicker than running the migrations again). ``initdb`` refuses root:
as root the cluster runs as the ``postgres`` user the package creates.

Without PostgreSQL the tests that need it are skipped, or fail when
``RECRAWL_REQUIRE_PG=1`` (CI sets it: a missing server must not pass as green).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg

TEMPLATE = "recrawl_template"
USER = "recrawl"
#: A role that must give its password (scram), for the tests of passwords.
PASSWORD_USER, PASSWORD = "needs_password", "s3cret"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (None: not installed)."""
    found = [Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin") if Path(p, "initdb").exists()]
    if not found:
        on_path = shutil.which("initdb")
        return Path(on_path).resolve().parent if on_path else None
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """A running cluster; :meth:`stop` ends it and removes its folder."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="recrawl-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self._names = itertools.count()
        self._as: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            owner = pwd.getpwnam("postgres")
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [*self._as, *args], capture_output=True, text=True, cwd=self.root, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stdout}{done.stderr}")

    def start(self) -> Cluster:
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        hba = self.data / "pg_hba.conf"
        rule = f"host all {PASSWORD_USER} 127.0.0.1/32 scram-sha-256\n"
        hba.write_text(rule + hba.read_text())  # the first matching line decides
        # tests need no durability: no fsync, no full-page writes (it is all thrown away)
        options = (
            "-c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        for _attempt in range(5):  # a port free a moment ago may be taken meanwhile
            self.port = _free_port()
            try:
                self._run(
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.root / "log"),
                    "-o",
                    f"-p {self.port} {options}",
                    "-w",
                    "start",
                )
                break
            except RuntimeError:
                if _attempt == 4:
                    raise
        self._make_template()
        return self

    def restart(self) -> None:
        """Restart the server as an administrator would (``pg_ctl restart``, fast mode:
        sessions are ended, committed work kept); returns once it accepts connections.
        Tests of one process run one at a time, so the others never see it down."""
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",  # else the server would hold our output pipe open
            str(self.root / "log"),
            "-m",
            "fast",
            "-w",
            "restart",
        )

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def admin(self) -> psycopg.Connection:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def _make_template(self) -> None:
        from recrawl.core.policy.choices import ensure_defaults
        from recrawl.core.store import activate, open_database
        from recrawl.core.store.active import current

        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
            conn.execute(f"CREATE ROLE {PASSWORD_USER} LOGIN PASSWORD '{PASSWORD}'")
        before = current()
        db = open_database(self.url(TEMPLATE), create=True)
        try:
            ensure_defaults()  # what Project.init writes into a new store
        finally:  # no query of a later test may reach the template (nor keep a session in it)
            db.close()
            activate(before)

    def new_database(self, empty: bool = False, owner: str = USER) -> str:
        """A new database's URL: a migrated store (``empty``: nothing in it), its tables
        ``owner``'s (a database of another owner is empty)."""
        name = f"t{os.getpid()}_{next(self._names)}"
        template = "template0" if empty or owner != USER else TEMPLATE
        with self.admin() as conn:
            conn.execute(f"CREATE DATABASE {name} OWNER {owner} TEMPLATE {template}")
        return self.url(name).replace(f"//{USER}@", f"//{owner}@")

    def drop(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with self.admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run(
                [
                    *self._as,
                    str(self.bin / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(self.root, ignore_errors=True)
