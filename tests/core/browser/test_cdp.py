"""The DevTools pipe (core/browser/cdp.py), against a peer the test plays on real pipes:
answers by id, events by session, and a browser that never answers or goes away."""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from recrawl.core.browser.cdp import CdpClosed, CdpError, CdpTimeout, Connection, Message


class Peer:
    """The browser's ends of the two pipes: reads commands, writes what the test says."""

    def __init__(self) -> None:
        self.commands_r, commands_w = os.pipe()
        events_r, self.events_w = os.pipe()
        self.ends = (events_r, commands_w)

    def command(self) -> Message:
        raw = b""
        while not raw.endswith(b"\0"):
            raw += os.read(self.commands_r, 1)
        message: Message = json.loads(raw[:-1])
        return message

    def write(self, raw: bytes) -> None:
        os.write(self.events_w, raw)

    def close(self) -> None:
        os.close(self.events_w)
        os.close(self.commands_r)


def test_answers_find_their_command_and_events_their_session() -> None:
    async def run() -> None:
        peer = Peer()
        connection = await Connection.open(*peer.ends)
        events: list[tuple[str | None, str, Message]] = []
        last = asyncio.Event()

        def browser_event(method: str, params: Message) -> None:
            events.append((None, method, params))
            last.set()

        connection.listen(None, browser_event)
        connection.listen("S1", lambda m, p: events.append(("S1", m, p)))
        first = asyncio.ensure_future(connection.send("Page.enable", session="S1"))
        second = asyncio.ensure_future(connection.send("Browser.getVersion"))
        await asyncio.sleep(0)  # both tasks ran to their wait: both written
        one, two = await asyncio.to_thread(lambda: (peer.command(), peer.command()))
        assert one == {"id": one["id"], "method": "Page.enable", "params": {}, "sessionId": "S1"}
        assert "sessionId" not in two
        # answered out of order, an event between, one message split over two writes
        answer_two = json.dumps({"id": two["id"], "result": {"product": "Chrome"}}).encode()
        event = json.dumps({"method": "Page.loadEventFired", "params": {"t": 1}, "sessionId": "S1"})
        peer.write(answer_two[:10])
        peer.write(answer_two[10:] + b"\0" + event.encode() + b"\0")
        peer.write(
            json.dumps({"id": one["id"], "error": {"code": -32000, "message": "no"}}).encode()
        )
        peer.write(
            b"\0" + json.dumps({"method": "Target.targetCreated", "params": {}}).encode() + b"\0"
        )
        assert await second == {"product": "Chrome"}
        with pytest.raises(CdpError, match="no"):
            await first
        await asyncio.wait_for(last.wait(), 30)
        assert events == [
            ("S1", "Page.loadEventFired", {"t": 1}),
            (None, "Target.targetCreated", {}),
        ]
        connection.close()
        peer.close()

    asyncio.run(run())


def test_a_command_never_answered_times_out_and_a_closed_pipe_fails_what_waits() -> None:
    async def run() -> None:
        peer = Peer()
        connection = await Connection.open(*peer.ends)
        with pytest.raises(CdpTimeout, match=r"did not answer Runtime\.evaluate in 0\.2 s"):
            await connection.send("Runtime.evaluate", timeout=0.2)
        waiting = asyncio.ensure_future(connection.send("Page.navigate", timeout=60))
        await asyncio.sleep(0)
        peer.close()  # the browser exited
        with pytest.raises(CdpClosed):
            await asyncio.wait_for(waiting, 30)
        await asyncio.wait_for(connection.closed.wait(), 30)
        with pytest.raises(CdpClosed):
            await connection.send("Page.enable")
        connection.close()

    asyncio.run(run())
