"""Manual check: do the WACZ packages `recrawl export` writes open in ReplayWeb.page?

    python bench/replayweb_check.py --rwp DIR --node-modules DIR [--chromium /usr/bin/chromium]
                                    [--out DIR] [--keep]

Not a test (it needs a browser and npm packages the project does not depend on), and it
installs nothing: get them first, once, outside the project::

    apt-get install -y chromium
    mkdir /tmp/rwp && cd /tmp/rwp && npm install playwright-core
    npm pack replaywebpage && mkdir rwp && tar xzf replaywebpage-*.tgz -C rwp
    # --rwp /tmp/rwp/rwp/package --node-modules /tmp/rwp/node_modules

(``npm pack`` takes the package's own files, ``ui.js`` and ``sw.js`` built: an ``npm
install replaywebpage`` also resolves its build dependencies, which may not all exist.)

1. Builds a project by two real crawls, a month apart, of a small site on 127.0.0.1
   (tests/httpserver.py): a home page, a page that changed between the crawls, a page
   answered 304 the second time (a 304 revisit), one that never changes (an
   identical-payload revisit), a page with a query string and a PNG image.
2. Exports it with ``recrawl export --pages all`` and ``--pages latest``.
3. Serves ReplayWeb.page's files and the packages on 127.0.0.1 (with byte ranges, as
   ReplayWeb.page reads a WACZ), opens each package in headless Chromium, driven by
   playwright-core through Node.js: the app's page list (every entry there, the older
   capture of the changed page too in ``all``), then each capture embedded as the
   Embedding Guide says (``<replay-web-page source=... url=... ts=...>``): its text, and
   the image loaded at its size.
4. Prints one line per check, saves a PNG screenshot of each view under ``--out``, and
   exits 1 if a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recrawl.core.engine import inject
from recrawl.core.policy import choices
from recrawl.core.policy.choices import set_chain
from recrawl.core.project import Project

from tests import httpserver
from tests.crawling import T0, clock_at, crawl
from tests.httpserver import Reply

BIN = Path(sys.executable).parent
MONTH = timedelta(days=31)
#: The texts the pages show; each check looks for one of them in the replayed page.
HOME_TEXT = "Welcome to the Recrawl check site"
OLD_TEXT = "The first version of this page"
NEW_TEXT = "The second version of this page"
STATIC_TEXT = "This page never changes"
COND_TEXT = "Served with an ETag, then 304 Not Modified"
QUERY_TEXT = "Search results for apples"
IMAGE_SIZE = (48, 32)


def png(width: int, height: int) -> bytes:
    """A small opaque PNG (a two-colour stripe), written by hand: no imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(
        b"\x00" + (b"\xc0\x30\x30" if y < height // 2 else b"\x30\x60\xc0") * width
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def html(title: str, body: str) -> bytes:
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{title}</title></head>"
        f"<body><h1>{title}</h1>{body}</body></html>"
    ).encode()


HOME = html(
    "Recrawl check home",
    f"<p>{HOME_TEXT}.</p><p><img id=logo src=/logo.png alt=logo></p><ul>"
    '<li><a href="/changing">changing</a></li><li><a href="/static">static</a></li>'
    '<li><a href="/cond">conditional</a></li><li><a href="/search?q=apples">search</a></li>'
    "</ul>",
)
STATIC = html("Static page", f"<p>{STATIC_TEXT}.</p>")
COND = html("Conditional page", f"<p>{COND_TEXT}.</p>")
QUERY = html("Search", f"<p>{QUERY_TEXT}.</p>")
VERSIONS = [
    html("Changing page, version 1", f"<p>{OLD_TEXT}.</p>"),
    html("Changing page, version 2", f"<p>{NEW_TEXT}.</p>"),
]


def _cond(handler) -> Reply:  # type: ignore[no-untyped-def]
    if handler.headers.get("If-None-Match") == '"v1"':
        return Reply(304, b"", {"ETag": '"v1"'})
    return Reply(200, COND, {"Content-Type": "text/html; charset=utf-8", "ETag": '"v1"'})


def build_project(folder: Path) -> tuple[Path, str]:
    """Two crawls of the site a month apart; returns the project folder and the site's
    origin (the server stays up only while crawling: replay must not reach it)."""
    server = httpserver.TestServer().start()
    typed = {"Content-Type": "text/html; charset=utf-8"}
    server.routes["/"] = Reply(200, HOME, typed)
    server.routes["/static"] = Reply(200, STATIC, typed)
    server.routes["/cond"] = _cond
    server.routes["/search?q=apples"] = Reply(200, QUERY, typed)  # routes match the query too
    server.routes["/logo.png"] = Reply(200, png(*IMAGE_SIZE), {"Content-Type": "image/png"})
    project = Project.init(folder)
    try:
        # the default chain leaves images out (a crawl of pages); this site's is wanted
        chain = choices.chain_text()
        set_chain("\n".join(line for line in chain.split("\n") if line != ".png"))
        inject([server.url("/"), server.url("/logo.png")], T0)
        for n, body in enumerate(VERSIONS):
            server.routes["/changing"] = Reply(200, body, typed)
            crawl(project, clock=clock_at(n * MONTH))
    finally:
        project.close()
        server.stop()
    return folder, server.url("").rstrip("/")


def export(project: Path, out: Path, pages: str) -> dict[str, object]:
    result = subprocess.run(
        [str(BIN / "recrawl"), "export", str(project), str(out), "--pages", pages, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"recrawl export failed: {result.stderr.strip()}")
    summary: dict[str, object] = json.loads(result.stdout)
    return summary


# -- serving ReplayWeb.page and the packages ---------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Static files with single byte ranges (ReplayWeb.page reads a WACZ by ranges)."""

    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "application/javascript; charset=utf-8",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        ranged = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", ""))
        path = Path(self.translate_path(self.path))
        if not ranged or not path.is_file():
            return super().send_head()
        size = path.stat().st_size
        first, last = ranged.groups()
        start = int(first) if first else max(0, size - int(last))
        end = min(int(last), size - 1) if first and last else size - 1
        if start >= size or start > end:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        fh = open(path, "rb")  # noqa: SIM115 - closed by copyfile's caller
        fh.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self._remaining = end - start + 1
        return fh

    def copyfile(self, source, outputfile):  # type: ignore[no-untyped-def]
        remaining = getattr(self, "_remaining", None)
        if remaining is None:
            return super().copyfile(source, outputfile)
        while remaining > 0:
            data = source.read(min(remaining, 1 << 16))
            if not data:
                break
            outputfile.write(data)
            remaining -= len(data)
        self._remaining = None
        return None

    def end_headers(self) -> None:
        if not self.headers.get("Range"):
            self.send_header("Accept-Ranges", "bytes")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def serve(root: Path) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


#: The page that embeds one archive as ReplayWeb.page's Embedding Guide says: ui.js, and
#: a ``<replay-web-page>`` whose attributes are the query's (its service worker is
#: ``replay/sw.js``, the element's default ``replayBase``).
EMBED_HTML = """<!doctype html><html><head><meta charset="utf-8"><script src="./ui.js"></script>
</head><body style="margin:0"><script>
const element = document.createElement("replay-web-page");
for (const [name, value] of new URLSearchParams(location.search)) element.setAttribute(name, value);
element.style.cssText = "display:block;width:100%;height:100vh";
document.body.appendChild(element);
</script></body></html>
"""

#: The browser side, run by Node.js: reads the checks (JSON) from argv, prints one JSON
#: line per check. Replayed pages live in nested frames (inside shadow roots): found
#: among the page's frames by their replay URL (``.../<ts>mp_/<url>``).
DRIVER_JS = r"""
const { chromium } = require("playwright-core");
const fs = require("fs");
const config = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

async function until(what, seconds, probe) {
  const deadline = Date.now() + seconds * 1000;
  let last = null;
  for (;;) {
    try { last = await probe(); if (last && last.ok) return last; } catch (e) { last = { ok: false, detail: String(e) }; }
    if (Date.now() > deadline) return { ok: false, detail: `${what}: ${last ? last.detail : "nothing"}` };
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function replayFrame(page, url) {
  for (const frame of page.frames()) {
    if (frame.url().includes("mp_/" + url)) return frame;
  }
  return null;
}

async function checkReplay(page, check) {
  return until(`${check.url} at ${check.ts}`, config.timeout, async () => {
    const frame = await replayFrame(page, check.url);
    if (!frame) return { ok: false, detail: "no replay frame yet" };
    const text = await frame.evaluate(() => (document.body ? document.body.innerText : ""));
    if (text.includes("Archived Page Not Found")) return { ok: false, detail: "Archived Page Not Found" };
    if (!text.includes(check.text)) return { ok: false, detail: `text: ${JSON.stringify(text.slice(0, 120))}` };
    for (const absent of check.absent || []) {
      if (text.includes(absent)) return { ok: false, detail: `shows ${JSON.stringify(absent)}` };
    }
    let detail = `shows ${JSON.stringify(check.text)}`;
    if (check.image) {
      const size = await frame.evaluate((id) => {
        const img = document.getElementById(id);
        return img && img.complete ? [img.naturalWidth, img.naturalHeight] : null;
      }, check.image.id);
      if (!size || size[0] !== check.image.width || size[1] !== check.image.height)
        return { ok: false, detail: `image ${check.image.id}: ${JSON.stringify(size)}` };
      detail += `, image ${size[0]}x${size[1]} loaded`;
    }
    const ts = frame.url().match(/\/(\d{14})mp_\//);
    return { ok: true, detail: `${detail} (replayed at ${ts ? ts[1] : "?"})` };
  });
}

async function checkPages(page, check) {
  return until("the pages list", config.timeout, async () => {
    const count = page.getByText(new RegExp(`^\\s*${check.count} pages?\\s*$`));
    if (!(await count.count())) return { ok: false, detail: `no "${check.count} pages" shown` };
    // the list lives in nested shadow roots: their text, gathered by walking them
    const text = await page.evaluate(() => {
      const parts = [];
      const walk = (node) => {
        if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent);
        if (node.shadowRoot) walk(node.shadowRoot);
        for (const child of node.childNodes) walk(child);
      };
      walk(document.body);
      return parts.join(" ").replace(/\s+/g, " ");
    });
    for (const wanted of [...check.titles, ...check.urls]) {
      if (!text.includes(wanted)) return { ok: false, detail: `no entry ${JSON.stringify(wanted)}` };
    }
    return { ok: true, detail: `${check.count} pages listed, titles ${check.titles.join(", ")}` };
  });
}

(async () => {
  const browser = await chromium.launch({ executablePath: config.chromium, args: FLAGS });
  try {
    for (const check of config.checks) {
      // a context per check: a fresh service worker and storage, nothing cached
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(e.message));
      let result;
      try {
        await page.goto(config.base + check.path);
        result = check.kind === "pages" ? await checkPages(page, check) : await checkReplay(page, check);
        await page.waitForTimeout(300); // let the last paint land before the screenshot
      } catch (e) {
        result = { ok: false, detail: String(e) };
      }
      await page.screenshot({ path: check.screenshot });
      if (errors.length) result.detail += ` [page errors: ${errors.join("; ").slice(0, 200)}]`;
      console.log(JSON.stringify({ name: check.name, screenshot: check.screenshot, ...result }));
      await context.close();
    }
  } finally {
    await browser.close();
  }
})().catch((e) => { console.error(e); process.exit(2); });
"""


@dataclass(frozen=True)
class Page:
    url: str
    stamp: str  # 14 digits
    title: str | None


def pages_of(wacz: Path) -> list[Page]:
    import zipfile

    with zipfile.ZipFile(wacz) as zf:
        lines = zf.read("pages/pages.jsonl").decode().splitlines()[1:]
    found = []
    for line in lines:
        entry = json.loads(line)
        found.append(Page(entry["url"], re.sub(r"\D", "", entry["ts"])[:14], entry.get("title")))
    return found


def checks_for(name: str, wacz: Path, origin: str, base: str, out: Path) -> list[dict[str, Any]]:
    """What to look for in one package: its page list, and each capture as it replays."""
    pages = pages_of(wacz)
    source = f"{base}/wacz/{wacz.name}"
    stamps: dict[str, list[str]] = {}
    for page in pages:
        stamps.setdefault(page.url, []).append(page.stamp)
    titles = sorted({p.title for p in pages if p.title})
    checks: list[dict[str, Any]] = [
        {
            "kind": "pages",
            "name": f"{name}: pages list",
            "count": len(pages),
            "titles": titles,
            "urls": sorted(stamps),
            "path": f"/index.html?source={source}#view=pages",
        },
    ]
    image = {"id": "logo", "width": IMAGE_SIZE[0], "height": IMAGE_SIZE[1]}
    wanted = [
        ("/", HOME_TEXT, -1, "home page with its image (identical-payload revisits)", image),
        ("/changing", NEW_TEXT, -1, "changed page, newer capture", None),
        ("/changing", OLD_TEXT, 0, "changed page, older capture", None),
        ("/cond", COND_TEXT, -1, "304 revisit", None),
        ("/static", STATIC_TEXT, -1, "identical-payload revisit", None),
        ("/search?q=apples", QUERY_TEXT, -1, "page with a query string", None),
    ]
    for path, text, which, what, img in wanted:
        url = origin + path
        if which == 0 and len(stamps[url]) < 2:
            continue  # --pages latest: no older capture to show
        ts = sorted(stamps[url])[which]
        absent = [OLD_TEXT] if text == NEW_TEXT else [NEW_TEXT] if text == OLD_TEXT else []
        checks.append(
            {
                "kind": "replay",
                "name": f"{name}: {what}",
                "url": url,
                "ts": ts,
                "text": text,
                "absent": absent,
                "image": img,
                "path": f"/index.html?source={source}#view=replay&url={quote(url, safe=':/')}&ts={ts}",
            }
        )
    home = origin + "/"
    checks.append(
        {
            "kind": "replay",
            "name": f"{name}: embedded <replay-web-page>",
            "url": home,
            "ts": max(stamps[home]),
            "text": HOME_TEXT,
            "absent": [],
            "image": image,
            "path": "/embed.html?"
            + urlencode({"source": source, "url": home, "ts": max(stamps[home])}),
        }
    )
    for n, check in enumerate(checks):
        slug = re.sub(r"[^a-z0-9]+", "-", check["name"].lower()).strip("-")
        check["screenshot"] = str(out / f"{n:02d}-{slug}.png")
    return checks


def run_browser(
    checks: list[dict[str, Any]], base: str, args: argparse.Namespace, scratch: Path
) -> list[dict[str, Any]]:
    driver = scratch / "driver.cjs"
    driver.write_text(DRIVER_JS, encoding="utf-8")
    config = scratch / "checks.json"
    config.write_text(
        json.dumps(
            {"base": base, "chromium": args.chromium, "timeout": args.timeout, "checks": checks}
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "NODE_PATH": str(args.node_modules)}
    proc = subprocess.run(
        ["node", str(driver), str(config)], capture_output=True, text=True, env=env, check=False
    )
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0:
        raise SystemExit(f"the browser driver failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rwp", type=Path, required=True, help="the replaywebpage package folder (ui.js, sw.js)"
    )
    parser.add_argument(
        "--node-modules",
        type=Path,
        required=True,
        help="a node_modules folder holding playwright-core",
    )
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("replayweb-check"),
        help="where the screenshots go (default: ./replayweb-check)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds each view may take to show what it should",
    )
    parser.add_argument("--keep", action="store_true", help="keep the project and web root")
    args = parser.parse_args()
    for need in (args.rwp / "ui.js", args.rwp / "sw.js", args.node_modules / "playwright-core"):
        if not need.exists():
            parser.error(f"{need} is missing (see the instructions at the top of this file)")
    if not shutil.which("node") or not Path(args.chromium).exists():
        parser.error("needs node and Chromium (see the instructions at the top of this file)")
    args.out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="replayweb-check-"))
    try:
        project, origin = build_project(scratch / "project")
        web = scratch / "web"
        (web / "wacz").mkdir(parents=True)
        (web / "replay").mkdir()
        for name in ("ui.js", "sw.js", "index.html"):
            shutil.copy(args.rwp / name, web / name)
        shutil.copy(args.rwp / "sw.js", web / "replay" / "sw.js")
        (web / "embed.html").write_text(EMBED_HTML, encoding="utf-8")
        packages = {}
        for pages in ("all", "latest"):
            wacz = web / "wacz" / f"{pages}.wacz"
            summary = export(project, wacz, pages)
            packages[pages] = wacz
            print(
                f"recrawl export --pages {pages}: {summary['captures']} captures, "
                f"{summary['pages']} pages, {summary['bytes']} bytes"
            )
        server = serve(web)
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            checks = [
                check
                for name, wacz in packages.items()
                for check in checks_for(f"--pages {name}", wacz, origin, base, args.out.resolve())
            ]
            results = run_browser(checks, base, args, scratch)
        finally:
            server.shutdown()
        failed = 0
        for check in checks:
            result = next((r for r in results if r["name"] == check["name"]), None)
            ok = bool(result and result["ok"])
            failed += not ok
            detail = result["detail"] if result else "no result"
            print(f"{'ok  ' if ok else 'FAIL'} {check['name']}: {detail}")
            print(f"     {check['screenshot']}")
        version = json.loads((args.rwp / "package.json").read_text())["version"]
        print(f"ReplayWeb.page {version}: {len(checks) - failed} of {len(checks)} checks passed")
        if args.keep:
            print(f"kept: {scratch}")
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
