"""A lost PostgreSQL server found again (core/store/reconnect.py): a transaction cut off
before its COMMIT runs again, one whose COMMIT went through does not; reads and writes
after a restart; giving up in one line; never silently without an advisory lock.

Each test's store is reached through a relay whose cable the test cuts (tests/support/dbproxy.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from recrawl.core import store
from recrawl.core.errors import StoreError, StoreLost
from recrawl.core.store.models import DB, Setting

from tests.support.dbproxy import CutProxy


@pytest.fixture
def proxy(pg_cluster) -> Iterator[CutProxy]:
    relay = CutProxy(pg_cluster.port)
    yield relay
    relay.close()


@pytest.fixture
def relayed(proxy: CutProxy, pg_url: str) -> Iterator[list[str]]:
    """The test's store opened through the relay; the lines it reports."""
    store.open_database(proxy.url(pg_url))
    said: list[str] = []
    with store.reconnecting(60.0, said.append):
        yield said
    store.close_database()


def _write(key: str, runs: list[int]) -> int:
    runs.append(1)
    Setting.insert(key=key, value=len(runs)).execute()
    return len(runs)


@pytest.mark.parametrize("commit_arrives", [True, False])
def test_a_transaction_cut_off_at_its_commit_is_committed_once(proxy, relayed, commit_arrives):
    runs: list[int] = []
    store.retried(_write, "warm", [])  # the connection is made: the next one is cut
    proxy.end_at(b"COMMIT", deliver=commit_arrives)
    result = store.retried(_write, "k", runs)
    # the server committed it: not run again; it never got the COMMIT: run again, once
    assert len(runs) == (1 if commit_arrives else 2)
    assert result == len(runs)
    assert [s.value for s in Setting.select().where(Setting.key == "k")] == [len(runs)]
    assert relayed[0].startswith("lost the database: ")
    assert relayed[-1].startswith("the database is back after ")


def test_reads_and_writes_carry_on_after_a_restart(pg_cluster, relayed):
    Setting.create(key="before", value=1)
    pg_cluster.restart()  # ends this thread's session
    assert Setting.get(Setting.key == "before").value == 1  # a read, again
    Setting.create(key="after", value=2)  # a write of its own: a transaction of its own
    pg_cluster.restart()
    with store.transaction():  # BEGIN on a connection the server ended: again
        Setting.update(value=3).where(Setting.key == "after").execute()
    assert {s.key: s.value for s in Setting.select()}.items() >= {("before", 1), ("after", 3)}
    assert sum(line.startswith("lost the database: ") for line in relayed) == 2


def test_a_server_gone_for_good_is_given_up_in_one_line(proxy, relayed):
    with store.reconnecting(1.0, relayed.append):
        Setting.create(key="a", value=1)
        proxy.close()  # the cable cut, the relay gone: connections are refused
        with pytest.raises(StoreLost) as lost:
            Setting.get(Setting.key == "a")
    message = str(lost.value)
    assert "\n" not in message
    assert message.startswith("lost the database and could not reach it again in 1 s: ")
    assert "database.give_up_after" in message


def test_a_connection_lost_while_holding_an_advisory_lock_is_not_made_again(proxy, relayed):
    with (
        pytest.raises(StoreLost, match="holding one of its locks"),
        store.exclusive(store.COMPACTION, "compacting"),
    ):
        proxy.end_at(b"SELECT", deliver=False)
        Setting.get_or_none(Setting.key == "a")
    # the lock went with the connection; the next statement reconnects as usual
    assert Setting.get_or_none(Setting.key == "a") is None


def test_each_session_ends_a_vanished_clients_transaction(relayed):
    # the server's side of the timers (core/store/postgres.py SESSION_SETUP)
    settings = {
        name: DB.execute_sql(f"SHOW {name}").fetchone()[0]
        for name in ("idle_in_transaction_session_timeout", "tcp_keepalives_idle")
    }
    assert settings == {"idle_in_transaction_session_timeout": "1min", "tcp_keepalives_idle": "15"}


def test_a_server_that_refuses_the_new_connection_is_not_tried_again(pg_cluster, pg_url, relayed):
    Setting.create(key="a", value=1)
    pg_cluster.drop(pg_url)  # its sessions ended, and it is no more
    with pytest.raises(StoreError, match="does not exist") as refused:
        Setting.get(Setting.key == "a")
    assert not isinstance(refused.value, StoreLost)  # said at once, not after give_up_after
    assert str(refused.value).startswith("cannot reach the database server: ")


def test_a_transaction_of_another_caller_lost_midway_is_said_in_one_line(proxy, relayed):
    Setting.create(key="a", value=1)
    with (
        pytest.raises(StoreError, match=r"^lost the database during a transaction, not "),
        store.transaction(),
    ):
        Setting.update(value=2).where(Setting.key == "a").execute()
        proxy.end_at(b"UPDATE", deliver=False)
        Setting.update(value=3).where(Setting.key == "a").execute()
    assert Setting.get(Setting.key == "a").value == 1  # rolled back; the next read reconnects
