"""Workers' rows and host leases in the store (docs/design.md §12), on both stores."""

from __future__ import annotations

import pytest
from recrawl.core import store
from recrawl.core.clock import utcnow
from recrawl.core.errors import LeaseLost, WorkerNameTaken
from recrawl.core.store.models import HostLease, Page, Worker

from tests.support.stores import store_kind  # noqa: F401  # every test on both stores

HOSTS = [f"h{i}.example" for i in range(5)]


def _pages() -> dict[str, int]:
    now = utcnow()
    store.add_pages(
        [store.NewPage(f"http://{host}/", host, now, 3600.0) for host in HOSTS],
        now,
    )
    return {page.host: page.id for page in Page.select()}


def test_leases_share_the_hosts_and_refuse_a_batch_of_a_lost_host(project):
    ids = _pages()
    store.register_worker("a", 1, "m", 60)
    store.register_worker("b", 2, "m", 60)
    now = utcnow()
    assert store.lease_hosts("a", 60, now, sources=False) == (3, 5)  # ceil(5 / 2)
    assert store.lease_hosts("b", 60, now, sources=False) == (2, 5)  # what is left
    held_a = {h for (h,) in store.leased_hosts("a").tuples()}
    held_b = {h for (h,) in store.leased_hosts("b").tuples()}
    assert held_a | held_b == set(HOSTS) and not held_a & held_b
    refs, _ = store.due_page_refs(now, 100, 100, leased_by="b")
    assert {ref.host for ref in refs} == held_b

    # a's batch of its own hosts commits; one naming a host of b's is refused whole
    batch = store.CommitBatch(segment="s")
    batch.page_updates = [(ids[h], {"retries": 1}) for h in held_a]
    store.commit_batch(batch, now, worker="a")
    stolen = store.CommitBatch(segment="s")
    stolen.page_updates = [(ids[min(held_a)], {"retries": 2}), (ids[min(held_b)], {"retries": 2})]
    with pytest.raises(LeaseLost):
        store.commit_batch(stolen, now, worker="a")
    assert Page.get_by_id(ids[min(held_a)]).retries == 1  # rolled back

    # an expired lease is no longer a's: its batch is refused, and b may take the host
    HostLease.update(expires_at=utcnow().replace(year=2000)).where(
        HostLease.worker == "a"
    ).execute()
    assert store.heartbeat("a", 60, 0, 0.0) == 0  # not renewed: it ran out
    with pytest.raises(LeaseLost):
        store.commit_batch(batch, now, worker="a")
    assert store.others_lease_wait("b") is None  # a's ran out: nothing to wait for
    store.release_leases("b")
    assert store.lease_hosts("b", 60, now, sources=False) == (3, 5)  # ceil(5 / 2), expired first
    wait = store.others_lease_wait("a")
    assert wait is not None and 0 < wait <= 60


def test_a_live_name_is_refused_an_ended_one_reused(project):
    store.register_worker("w", 1, "m", 60)
    with pytest.raises(WorkerNameTaken, match="running already"):
        store.register_worker("w", 2, "m", 60)
    [info] = store.list_workers()
    assert (info.name, info.pid, info.state) == ("w", 1, "live")
    store.end_worker("w", 7)
    [info] = store.list_workers()
    assert (info.state, info.fetched, info.leased_hosts) == ("ended", 7, 0)
    store.register_worker("w", 3, "m", 60)
    assert Worker.get(Worker.name == "w").pid == 3
