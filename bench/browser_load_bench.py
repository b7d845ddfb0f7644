"""Browser capture's throughput: loads per second of a script-built page (its list
fetched as JSON and written into the DOM by its script), answered from memory on the
loopback, at 1, 2 and 4 lanes, and the browser's peak memory (Browser.memory()).

    python bench/browser_load_bench.py [--pages 24] [--idle 0.5]

The browser alone, no crawl: bench/browser_bench.py measures whole crawls.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recrawl.core.browser.browser import Browser
from recrawl.core.config import CaptureSettings

from tests.support.browsing import MAX_DOM, USER_AGENT, FromDict

PAGE = """<!doctype html><title>bench</title><body><ul id="items"></ul><script>
fetch('/items.json').then((r) => r.json()).then((items) => {
  for (const text of items) {
    const li = document.createElement('li');
    li.textContent = text;
    document.getElementById('items').appendChild(li);
  }
});
</script></body>"""


async def run(lanes: int, pages: int, idle: float) -> tuple[float, int]:
    settings = dataclasses.replace(CaptureSettings(), idle=idle)
    browser = Browser(settings, USER_AGENT, MAX_DOM)
    site: dict[str, bytes | str] = {"http://site.test/favicon.ico": b""}
    for n in range(pages):
        site[f"http://site.test/{n}"] = PAGE.replace("/items.json", f"/items{n}.json")
        site[f"http://site.test/items{n}.json"] = json.dumps([f"item {n}.{i}" for i in range(20)])
    await browser.start()
    try:
        # each lane's tab made first, as a crawl's are after its first pages
        await asyncio.gather(
            *(browser.load("http://site.test/0", lane, FromDict(site)) for lane in range(lanes))
        )
        todo = list(range(pages))

        async def lane(number: int) -> None:
            while todo:
                n = todo.pop()
                page = await browser.load(f"http://site.test/{n}", number, FromDict(site))
                assert page.error is None and f"item {n}.19".encode() in page.dom, page.error

        started = time.monotonic()
        await asyncio.gather(*(lane(number) for number in range(lanes)))
        return pages / (time.monotonic() - started), browser.peak_memory
    finally:
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=24)
    parser.add_argument("--idle", type=float, default=CaptureSettings().idle)
    args = parser.parse_args()
    for lanes in (1, 2, 4):
        rate, peak = asyncio.run(run(lanes, args.pages, args.idle))
        print(f"{lanes} lane(s), idle {args.idle:g} s: {rate:.2f} loads/s, peak {peak >> 20} MiB")


if __name__ == "__main__":
    main()
