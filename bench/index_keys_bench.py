"""What the standard SURT keys cost (issue 16): per URL against the old key, per round of
5,000 pages, the package's import, and the one-time re-keying of an old project's indexes.

    python bench/index_keys_bench.py [--pages 5000] [--lines 200000] [--files 60]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from recrawl.core.archive.cdxj import _line, cdxj_line, legacy_surt, surt
from recrawl.core.archive.index_keys import rekey_index


def urls(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        host = f"{rng.choice(['www.', '', 'blog.'])}site{i % 97}.example"
        words = ["news", "2027", "page", "a-long-article-title"]
        path = "/".join(rng.choice(words) for _ in range(3))
        query = f"?b={i}&a={rng.randrange(100)}" if rng.random() < 0.3 else ""
        out.append(f"https://{host}/{path}/{i}.html{query}")
    return out


def per_url(fn, items: list[str], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for url in items:
            fn(url)
        best = min(best, time.perf_counter() - started)
    return best / len(items)


def import_cost() -> tuple[float, float]:
    def run(code: str) -> float:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - started)
        return sorted(times)[2]

    base = "from recrawl.core.archive.cdxj import surt"
    return run(base), run(base + "; surt('http://example.com/')")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--files", type=int, default=60)
    args = parser.parse_args()

    items = urls(args.pages)
    surt(items[0])  # the package loaded
    new, old = per_url(surt, items), per_url(legacy_surt, items)
    print(f"key per URL: standard {new * 1e6:.1f} µs, old {old * 1e6:.1f} µs")
    print(
        f"keys of a {args.pages:,}-page round: standard {new * args.pages * 1e3:.0f} ms, "
        f"old {old * args.pages * 1e3:.0f} ms"
    )
    when = datetime(2027, 1, 1)
    fields = {"mime": "text/html", "status": "200", "digest": "sha1:" + "A" * 32}
    started = time.perf_counter()
    for n, url in enumerate(items):
        cdxj_line(
            url, when, {**fields, "length": 5000, "offset": n * 5000, "filename": "x.warc.gz"}
        )
    line_cost = (time.perf_counter() - started) / len(items)
    print(f"index line per capture (key included): {line_cost * 1e6:.1f} µs")
    plain, loaded = import_cost()
    print(f"a command computing one key: +{(loaded - plain) * 1e3:.0f} ms (the package's import)")

    # an old project's indexes: --lines lines over --files files, old keys
    every = urls(args.lines, seed=2)
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        per_file = -(-len(every) // args.files)
        for f in range(args.files):
            chunk = every[f * per_file : (f + 1) * per_file]
            lines = sorted(
                _line(
                    legacy_surt(url),
                    (when + timedelta(days=f)).strftime("%Y%m%d%H%M%S"),
                    {"url": url, **fields, "length": 5000, "offset": n, "filename": "x.warc.gz"},
                )
                for n, url in enumerate(chunk)
            )
            path = Path(tmp) / f"{f:03}.cdxj"
            path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
            files.append(path)
        size = sum(p.stat().st_size for p in files)
        os.sync()
        started = time.perf_counter()
        changed = sum(rekey_index(p) for p in files)
        took = time.perf_counter() - started
        print(
            f"re-keying {len(every):,} lines in {changed} files ({size / 1e6:.0f} MB): "
            f"{took:.2f} s ({took / len(every) * 1e6:.1f} µs a line, fsyncs included)"
        )
        started = time.perf_counter()
        changed = sum(rekey_index(p) for p in files)
        print(f"again (nothing to do, {changed} rewritten): {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
