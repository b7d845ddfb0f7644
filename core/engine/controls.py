"""Stop and pause: set from any thread, obeyed by the crawl's event loop.

``threading.Event``s, not queued signals or loop callbacks: the app's crawl job, busy
inside the loop, never runs queued slots, and the loop only needs to look.
"""

from __future__ import annotations

import asyncio
import threading

#: How often the loop looks at the flags while it waits on them.
POLL_S = 0.05


class Controls:
    def __init__(self) -> None:
        self._stop = threading.Event()
        self._pause = threading.Event()

    def pause(self) -> None:
        self._pause.set()

    def resume(self) -> None:
        self._pause.clear()

    def stop(self) -> None:
        self._stop.set()
        self._pause.clear()

    @property
    def paused(self) -> bool:
        return self._pause.is_set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    async def until_resumed(self) -> None:
        """Return once not paused (at once if not paused) or stopped."""
        while self._pause.is_set() and not self._stop.is_set():
            await asyncio.sleep(POLL_S)

    async def until_stopped(self) -> None:
        while not self._stop.is_set():
            await asyncio.sleep(POLL_S)
