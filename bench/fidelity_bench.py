"""Replay fidelity benchmark: does Recrawl's archive of a real site replay as it looked?

    python bench/fidelity_bench.py [--site DIR | --source DIR] [--out DIR] [--runs 3]
                                   [--quick] [--skip-wget] [--keep] [RECRAWL CRAWL FLAGS...]

The site is a Debian package's HTML documentation (bench/realsite.py: Python 3.11's, 530
Sphinx pages, from ``python3-doc``), copied with ``cp -rL`` and served by nginx on
127.0.0.1. Any flag this script does not know goes to ``recrawl crawl`` after ``--delay
0`` (``--per-host 4``, say), in every crawl it runs.

1. **Crawls**: ``recrawl init``, ``inject`` (the home page), ``crawl --delay 0 --json``
   into a fresh project, and ``wget --no-verbose -r -p -l inf --no-parent --warc-file``
   (the same site with its page requisites into a WARC), alternately, ``--runs`` times
   each (a fresh project and folder every time). The first project is the one measured
   below. Wall and CPU seconds (user + system of the process and the children it waited
   for, from ``wait4``) of each, medians; target: Recrawl's wall time ≤ 0.7× wget's.
2. **The embeds a browser requests**: every HTML page of the site loaded in headless
   Chromium (Debian's, driven by Playwright, no browser downloaded), recording every
   request it makes after its document (stylesheets, scripts, images, fonts, what
   scripts fetch). Each distinct URL counts once. A URL is archived when the project's
   CDXJ indexes hold a capture of it (any status: replay then serves what the site
   said), looked up by its SURT key as pywb looks it up. Target ≥ 99 %. The same count
   for wget's WARC is printed beside it, and the requested URLs that no page's HTML and
   no stylesheet names (scripts built them: no crawler reading HTML and CSS sees them).
3. **Replay against live** for a fixed sample of pages (:data:`SAMPLE`): each page live
   and then replayed by ``recrawl replay`` (pywb) at its capture, in pywb's ``mp_`` mode
   (the page alone, no banner), both in the same full-viewport iframe (pywb's replayed
   page, loaded as the top window, sends the browser to its framed view with the banner;
   in a frame it stays as it is); a fresh browser context each (nothing cached), 1280×800
   viewport, animations off, after the network has been idle 0.5 s. A viewport screenshot
   of each, compared with pixelmatch at threshold 0.1 (Browsertrix's QA measure), and the
   loads each replay failed: a request that failed or was answered ≥ 400, each URL once,
   not counting pywb's own files (``/static/``: wombat.js, which pywb inserts into every
   replayed page) nor a URL that failed on the live page as well (the site's failure, not
   the archive's). A request that leaves the replay server (to the live site or anywhere
   else) is blocked and counts as failed: a replay must not reach the live web. Targets:
   ≥ 95 % of pages with no failed load, and ≥ 95 % with ≥ 0.99 of pixels matching.

Screenshots (``*-live.png``, ``*-replay.png``, ``*-diff.png``: mismatching pixels red)
and the figures as JSON (``fidelity.json``) go to ``--out`` (``build/fidelity``). Exit
status 0 whatever the figures: a benchmark, not a test; each target says met or MISSED.
"""

from __future__ import annotations

import argparse
import contextlib
import html
import importlib.util
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from realsite import DEFAULT_SOURCE, Site, SiteUnavailable, real_site  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Request, Response, Route, ViewportSize

BIN = Path(sys.executable).parent
CHROMIUM = "/usr/bin/chromium"
#: Debian's Chromium on a machine without a network: no background connections at all
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
VIEWPORT: ViewportSize = {"width": 1280, "height": 800}
THRESHOLD = 0.1  # pixelmatch's per-pixel colour distance (Browsertrix's QA uses 0.1)
TARGET_SHARE = 0.99  # embeds archived
TARGET_CLEAN = 0.95  # sample pages whose replay failed no load
TARGET_PIXELS = 0.99  # pixels matching on a page...
TARGET_PIXEL_PAGES = 0.95  # ...on this share of the sample pages
TARGET_RATIO = 0.7  # Recrawl's wall time / wget's
#: The pages replayed against live (paths under the site's root), in this order; those
#: missing from another tree are replaced by pages spread evenly over its sorted list.
SAMPLE = (
    "index.html",  # the home page
    "library/json.html",  # a library module page
    "library/stdtypes.html",  # a long page
    "genindex.html",  # the general index
    "py-modindex.html",  # the module index (its toggles are drawn by a script)
    "tutorial/introduction.html",  # a tutorial page
    "search.html",  # needs JavaScript: its form and search index are loaded by scripts
    "c-api/unicode.html",  # a C API page
    "glossary.html",
    "library/turtle.html",  # a page with images
)
MIN_SAMPLE = 8
#: The page both sides are shown in: an iframe filling the viewport.
FRAME_PATH = "/__fidelity_frame__.html"
FRAME_HTML = (
    "<!doctype html><html><head><meta charset=utf-8><title>frame</title></head>"
    '<body style="margin:0;overflow:hidden"><iframe src="{src}" style="position:fixed;'
    'top:0;left:0;width:100%;height:100%;border:0"></iframe></body></html>'
)
#: pywb's own files (wombat.js), under the replay server's /static/: not the archive's
PYWB_STATIC = "/static/"
_REPLAYED = re.compile(r"/project/\d{1,14}(?:[a-z]{2}_)?/(.+)$")


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


# -- running and timing the crawls ------------------------------------------------------


@dataclass
class Timed:
    wall_s: float
    cpu_s: float
    returncode: int
    stdout: str
    stderr: str


def run_timed(cmd: list[str], log: Path, cwd: Path | None = None) -> Timed:
    """Run ``cmd``; its wall time and the CPU time of it and the children it waited for
    (``wait4``'s rusage: user + system)."""
    out, err = log.with_suffix(".out"), log.with_suffix(".err")
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        started = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr
        )
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Timed(
        wall,
        usage.ru_utime + usage.ru_stime,
        proc.returncode,
        out.read_text(errors="replace"),
        err.read_text(errors="replace"),
    )


def checked(run: Timed, what: str) -> Timed:
    if run.returncode != 0:
        raise SystemExit(f"{what} failed (exit status {run.returncode}): {run.stderr[-2000:]}")
    return run


@dataclass
class RecrawlRun:
    project: Path
    wall_s: float  # init + inject + crawl
    cpu_s: float
    crawl_wall_s: float
    crawl_cpu_s: float
    summary: dict[str, Any]


def recrawl_command(project: Path, flags: list[str]) -> list[str]:
    return [str(BIN / "recrawl"), "crawl", str(project), "--delay", "0", *flags, "--json"]


def recrawl_archive(
    site: Site, project: Path, flags: list[str], logs: Path, capture: str = "http"
) -> RecrawlRun:
    recrawl = str(BIN / "recrawl")
    tag = project.name
    init = checked(run_timed([recrawl, "init", str(project)], logs / f"{tag}-init"), "recrawl init")
    if capture != "http":
        mode = [recrawl, "settings", str(project), "--set", f"capture.mode={capture}"]
        checked(run_timed(mode, logs / f"{tag}-settings"), "recrawl settings")
    seed = site.url("index.html")
    inject = checked(
        run_timed([recrawl, "inject", str(project), seed], logs / f"{tag}-inject"), "recrawl inject"
    )
    crawl = checked(
        run_timed(recrawl_command(project, flags), logs / f"{tag}-crawl"), "recrawl crawl"
    )
    summary = json.loads(crawl.stdout.strip().splitlines()[-1])
    runs = (init, inject, crawl)
    return RecrawlRun(
        project,
        sum(r.wall_s for r in runs),
        sum(r.cpu_s for r in runs),
        crawl.wall_s,
        crawl.cpu_s,
        summary,
    )


def wget_command(site: Site, warc: Path) -> list[str]:
    return [
        "wget", "--no-verbose", "-r", "-p", "-l", "inf", "--no-parent",
        f"--warc-file={warc}", site.url("index.html"),
    ]  # fmt: skip


@dataclass
class WgetRun:
    folder: Path
    wall_s: float
    cpu_s: float
    warc: Path


def wget_archive(site: Site, folder: Path, logs: Path) -> WgetRun:
    folder.mkdir()
    warc = folder / "site"  # wget adds .warc.gz
    run = run_timed(wget_command(site, warc), logs / folder.name, cwd=folder)
    if run.returncode not in (0, 8):  # 8: some answer was an error (a 404 the site links)
        raise SystemExit(f"wget failed (exit status {run.returncode}): {run.stderr[-2000:]}")
    return WgetRun(folder, run.wall_s, run.cpu_s, folder / "site.warc.gz")


def warc_responses(warc: Path) -> set[str]:
    """The target URLs of a WARC's response records."""
    from warcio.archiveiterator import ArchiveIterator

    urls = set()
    with open(warc, "rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type == "response":
                urls.add(record.rec_headers.get_header("WARC-Target-URI"))
    return urls


@dataclass(frozen=True)
class Capture:
    url: str
    stamp: str
    status: str
    mime: str


def project_captures(project: Path) -> dict[str, list[Capture]]:
    """Every capture the project's CDXJ indexes list (segments and history), by SURT key:
    ``SURTKEY TIMESTAMP {"url": ..., "status": ..., "mime": ...}`` a line."""
    from recrawl.core.archive.replay import INDEX_FOLDERS

    found: dict[str, list[Capture]] = {}
    for folder in INDEX_FOLDERS:
        for index in sorted(project.glob(f"{folder}/*.cdxj")):
            for line in index.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                key, stamp, fields = line.split(" ", 2)
                data = json.loads(fields)
                capture = Capture(
                    data.get("url", ""), stamp, data.get("status", ""), data.get("mime", "")
                )
                found.setdefault(key, []).append(capture)
    return found


def key_of(url: str) -> str:
    from recrawl.core.archive.cdxj import surt

    return str(surt(url))


#: The politeness settings shown, and the ``recrawl crawl`` flags that override them.
POLITENESS = {
    "politeness.delay": "--delay",
    "politeness.per_host": "--per-host",
    "politeness.concurrency": "--concurrency",
    "politeness.obey_robots": "--ignore-robots",
}


def politeness(project: Path, flags: list[str]) -> str:
    """What the crawls ran with: each politeness setting, from the flags given (``--delay
    0`` and the command line's) or else the project's (``recrawl settings``)."""
    result = subprocess.run(
        [str(BIN / "recrawl"), "settings", str(project)],
        capture_output=True,
        text=True,
        check=False,
    )
    shown: dict[str, str] = {}
    for line in result.stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in POLITENESS:
            shown[words[0]] = f"{words[1]} (project default)"
    words = ["--delay", "0", *flags]
    for name, flag in POLITENESS.items():
        for i, word in enumerate(words):
            given, equals, value = word.partition("=")
            if given != flag:
                continue
            if flag == "--ignore-robots":
                shown[name] = "false (flag)"
            elif equals or i + 1 < len(words):
                shown[name] = f"{value if equals else words[i + 1]} (flag)"
    return ", ".join(f"{name.removeprefix('politeness.')} {value}" for name, value in shown.items())


# -- what the pages name: the embeds a crawler reading HTML and CSS could find ----------

_CSS_URL = re.compile(r"""url\(\s*(['"]?)([^'")]+)\1\s*\)|@import\s+(['"])([^'"]+)\3""")


def css_references(text: str, base: str) -> set[str]:
    found = set()
    for match in _CSS_URL.finditer(text):
        ref = (match.group(2) or match.group(4) or "").strip()
        if ref and not ref.startswith(("data:", "#")):
            found.add(urljoin(base, ref).split("#")[0])
    return found


def static_references(site: Site) -> set[str]:
    """The URLs the site's HTML pages embed by their markup (src, srcset, poster, object
    data, every <link href> that is not a link to a page, inline styles) and that its
    stylesheets name (url(), @import): what a crawler reading HTML and CSS can see."""
    from selectolax.lexbor import LexborHTMLParser

    found: set[str] = set()
    for path in site.pages:
        base = site.url(path)
        tree = LexborHTMLParser((site.root / path).read_bytes())
        for node in tree.css("[src], [srcset], [poster], object[data], link[href]"):
            attrs = node.attributes
            if node.tag == "link":
                rel = (attrs.get("rel") or "").lower().split()
                if not {"stylesheet", "icon", "preload", "modulepreload", "prefetch"} & set(rel):
                    continue
            refs = [attrs.get(name) for name in ("src", "poster", "data", "href")]
            srcset = attrs.get("srcset") or ""
            refs += [part.split()[0] for part in srcset.split(",") if part.split()]
            found.update(urljoin(base, ref).split("#")[0] for ref in refs if ref)
        for node in tree.css("style, [style]"):
            text = node.text() if node.tag == "style" else node.attributes.get("style") or ""
            found |= css_references(text, base)
    for sheet in site.root.rglob("*.css"):
        found |= css_references(
            sheet.read_text(errors="replace"), site.url(sheet.relative_to(site.root).as_posix())
        )
    return found


# -- the browser ------------------------------------------------------------------------


@dataclass
class Load:
    url: str
    kind: str  # Playwright's resource type: document, stylesheet, script, image, font, xhr...
    status: int | None = None
    failure: str | None = None

    @property
    def failed(self) -> bool:
        return self.failure is not None or (self.status is not None and self.status >= 400)

    def reason(self) -> str:
        return str(self.status) if self.status and self.status >= 400 else self.failure or ""


@dataclass
class Visit:
    loads: list[Load] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  # requests that left the allowed origin
    script_errors: list[str] = field(default_factory=list)  # uncaught exceptions of the page
    error: str = ""  # the page did not load in time, say

    def watch(self, page: Page) -> None:
        by_request: dict[Request, Load] = {}

        def request(req: Request) -> None:
            by_request[req] = load = Load(req.url, req.resource_type)
            self.loads.append(load)

        def response(resp: Response) -> None:
            load = by_request.get(resp.request)
            if load is not None:
                load.status = resp.status

        def failed(req: Request) -> None:
            load = by_request.get(req)
            if load is not None:
                load.failure = req.failure or "failed"

        page.on("request", request)
        page.on("response", response)
        page.on("requestfailed", failed)
        page.on("pageerror", lambda exc: self.script_errors.append(str(exc).splitlines()[0]))

    def failed_urls(self) -> dict[str, str]:
        """Each URL that no request loaded, with why (its status or its error): a URL
        asked for twice, the second time cancelled, loaded all the same."""
        return failures(self.loads)


def failures(loads: list[Load]) -> dict[str, str]:
    loaded = {load.url for load in loads if not load.failed}
    out: dict[str, str] = {}
    for load in loads:
        if load.failed and load.url not in loaded:
            out.setdefault(load.url, load.reason())
    return out


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def quiet(
    page: Page, inflight: Callable[[], int], settle_s: float = 0.1, limit_s: float = 3.0
) -> None:
    """Wait until no request of the page has been in flight for ``settle_s`` (at most
    ``limit_s``): what its scripts fetch after the load event is counted too."""
    deadline = time.monotonic() + limit_s
    calm_since = time.monotonic()
    while time.monotonic() < deadline:
        page.wait_for_timeout(50)
        if inflight():
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= settle_s:
            return


def census(browser: Browser, site: Site) -> tuple[dict[str, str], dict[str, str], float]:
    """Every page of the site loaded once in one browser context (its cache shared: a
    URL a page loaded before still counts, as distinct URLs are what is counted): each
    URL requested after the page's own document, with the first page that requested it;
    the ones that failed live; the seconds it took."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    page = context.new_page()
    requested: dict[str, str] = {}
    failed_live: dict[str, str] = {}
    visit_ = Visit()  # the page being loaded
    pending: set[Request] = set()
    current = [""]

    def request(req: Request) -> None:
        pending.add(req)
        if req.url != current[0] and not req.url.startswith(("data:", "blob:", "about:")):
            requested.setdefault(req.url, current[0])

    def done(req: Request) -> None:
        pending.discard(req)

    visit_.watch(page)
    page.on("request", request)
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    started = time.perf_counter()
    try:
        for n, path in enumerate(site.pages, 1):
            current[0] = site.url(path)
            pending.clear()
            visit_.loads.clear()
            try:
                page.goto(current[0], wait_until="load", timeout=30_000)
                quiet(page, lambda: len(pending))
            except Exception as exc:  # a page that does not load: said, the rest go on
                print(f"  census: {path}: {str(exc).splitlines()[0]}")
            for url, why in visit_.failed_urls().items():
                failed_live.setdefault(url, why)
            if n % 100 == 0:
                print(
                    f"  census: {n} of {len(site.pages)} pages ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
    finally:
        context.close()
    return requested, failed_live, time.perf_counter() - started


def visit(browser: Browser, target: str, shot: Path) -> Visit:
    """``target`` shown in a viewport-filling iframe of a page on its own origin, in a
    fresh context; every request recorded, those to any other origin blocked; a
    viewport screenshot once the network has been idle for 0.5 s."""
    origin = origin_of(target)
    frame_url = origin + FRAME_PATH
    result = Visit()
    context = browser.new_context(
        viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce", service_workers="block"
    )

    def route(r: Route) -> None:
        url = r.request.url
        if url == frame_url:
            r.fulfill(
                status=200,
                content_type="text/html",
                body=FRAME_HTML.format(src=html.escape(target)),
            )
        elif origin_of(url) == origin:
            r.continue_()
        else:
            result.blocked.append(url)
            r.abort("blockedbyclient")

    try:
        context.route("**/*", route)
        page = context.new_page()
        result.watch(page)
        try:
            page.goto(frame_url, wait_until="networkidle", timeout=60_000)
            if len(page.frames) > 1:
                page.frames[1].evaluate("document.fonts.ready.then(() => true)")
        except Exception as exc:
            result.error = str(exc).splitlines()[0]
        page.screenshot(path=str(shot), animations="disabled", caret="hide")
    finally:
        context.close()
    result.loads = [load for load in result.loads if load.url != frame_url]
    return result


def pixels_matching(live: Path, replay: Path, diff: Path) -> float:
    from PIL import Image
    from pixelmatch.contrib.PIL import pixelmatch

    a = Image.open(live).convert("RGBA")
    b = Image.open(replay).convert("RGBA")
    if a.size != b.size:
        return 0.0
    out = Image.new("RGBA", a.size)
    mismatched = pixelmatch(a, b, out, threshold=THRESHOLD)
    out.save(diff)
    return 1 - mismatched / (a.size[0] * a.size[1])


def choose_sample(site: Site) -> list[str]:
    chosen = [path for path in SAMPLE if path in site.pages]
    rest = [path for path in site.pages if path not in chosen]
    want = max(MIN_SAMPLE, len(SAMPLE)) - len(chosen)
    if want > 0 and rest:
        step = max(1, len(rest) // want)
        chosen += rest[::step][:want]
    return chosen


@contextlib.contextmanager
def chromium(executable: str) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        try:
            yield browser
        finally:
            browser.close()


# -- the benchmark ----------------------------------------------------------------------


@dataclass
class PageResult:
    path: str
    stamp: str
    pixels: float
    failed: dict[str, str]  # original URL -> why (404, net::ERR_..., escaped)
    failed_events: int  # failed requests as the browser reported them, before de-duplication
    script_errors: list[str]  # the replay's uncaught script exceptions the live page had not
    pywb_files: list[str]  # pywb's own files the replay loaded (not counted)
    live_failed: dict[str, str]
    live_blocked: list[str]
    error: str


def original_url(url: str, replay_base: str) -> str:
    """The archived URL a replay URL stands for (itself if it is not one)."""
    if url.startswith(replay_base):
        found = _REPLAYED.search(url[len(replay_base) :])
        if found:
            return found[1]
    return url


def replay_failures(visit_: Visit, replay_base: str, live_failed: dict[str, str]) -> dict[str, str]:
    failed: dict[str, str] = {}
    for url, why in visit_.failed_urls().items():
        if url.startswith(replay_base + PYWB_STATIC):
            continue  # pywb's own machinery
        original = original_url(url, replay_base)
        if original in live_failed:
            continue  # it failed live too
        if not url.startswith(replay_base):
            why = "escaped to " + origin_of(url)
        failed.setdefault(original, why)
    return failed


def compare_sample(
    browser: Browser, site: Site, project: Path, captures: dict[str, list[Capture]], out: Path
) -> list[PageResult]:
    from recrawl.core.replay.server import ReplayServer

    sample = choose_sample(site)
    live: dict[str, Visit] = {}
    for path in sample:
        live[path] = visit(browser, site.url(path), out / f"{slug(path)}-live.png")
    results = []
    replay = ReplayServer(project)
    try:
        for path in sample:
            url = site.url(path)
            stamps = sorted(c.stamp for c in captures.get(key_of(url), []))
            stamp = stamps[-1] if stamps else time.strftime("%Y%m%d%H%M%S", time.gmtime())
            shown = visit(
                browser, replay.url(stamp, url, inner=True), out / f"{slug(path)}-replay.png"
            )
            live_failed = live[path].failed_urls()
            failed = replay_failures(shown, replay.base, live_failed)
            if not stamps:
                failed.setdefault(url, "page not archived")
            pixels = pixels_matching(
                out / f"{slug(path)}-live.png",
                out / f"{slug(path)}-replay.png",
                out / f"{slug(path)}-diff.png",
            )
            result = PageResult(
                path,
                stamp if stamps else "",
                pixels,
                failed,
                failed_events=sum(1 for load in shown.loads if load.failed),
                script_errors=[e for e in shown.script_errors if e not in live[path].script_errors],
                pywb_files=sorted(
                    {
                        load.url
                        for load in shown.loads
                        if load.url.startswith(replay.base + PYWB_STATIC)
                    }
                ),
                live_failed=live_failed,
                live_blocked=live[path].blocked,
                error="; ".join(e for e in (live[path].error, shown.error) if e),
            )
            results.append(result)
            print(
                f"  {path:32} pixels matching {pixels:.4f}  failed loads {len(failed)}"
                f"  script errors {len(result.script_errors)}",
                flush=True,
            )
            if result.error:
                print(f"      {result.error}")
            for message in result.script_errors[:2]:
                print(f"      script error: {message}")
            for original, why in list(failed.items())[:3]:
                print(f"      {why:>6}  {original}")
            if len(failed) > 3:
                print(f"      ... and {len(failed) - 3} more")
    finally:
        replay.stop()
    return results


def slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", path.removesuffix(".html")).strip("-")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Flags it does not know go to `recrawl crawl` (e.g. --per-host 4).",
        allow_abbrev=False,  # a flag meant for recrawl crawl is never taken for one of ours
    )
    parser.add_argument(
        "--site",
        type=Path,
        help="an already copied tree to serve (default: a fresh copy of --source)",
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=DEFAULT_SOURCE,
        help=f"the tree to copy (default: {DEFAULT_SOURCE})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE.parent / "build" / "fidelity",
        help="where the screenshots and figures go (default: build/fidelity)",
    )
    parser.add_argument("--runs", type=int, default=3, help="timed crawls of each (default 3)")
    parser.add_argument(
        "--quick", action="store_true", help="one timed crawl of each instead of --runs"
    )
    parser.add_argument("--skip-wget", action="store_true", help="no wget crawls (no timing ratio)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"the browser (default: {CHROMIUM})")
    parser.add_argument("--keep", action="store_true", help="keep the projects and wget's folders")
    parser.add_argument(
        "--capture",
        choices=("http", "browser"),
        default="http",
        help="the projects' capture mode (capture.mode; default http)",
    )
    args, crawl_flags = parser.parse_known_args()
    runs = 1 if args.quick else max(1, args.runs)
    missing = [
        f"{module} is not installed: pip install -e '.[bench]'"
        for module in ("playwright", "pixelmatch", "PIL")
        if importlib.util.find_spec(module) is None
    ]
    if not Path(args.chromium).exists():
        missing.append(f"no browser at {args.chromium}: apt-get install chromium")
    if not args.skip_wget and not shutil.which("wget"):
        missing.append("wget is not installed: apt-get install wget (or --skip-wget)")
    if missing:  # said in a line each, and not a failure: make bench goes on to the next
        for line in missing:
            print(f"fidelity_bench: skipped: {line}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("*-*.png"):
        if old.stem.endswith(("-live", "-replay", "-diff")):
            old.unlink()
    scratch = Path(tempfile.mkdtemp(prefix="recrawl-fidelity-"))
    try:
        with real_site(args.site, args.source) as site:
            return bench(args, runs, crawl_flags, site, scratch)
    except SiteUnavailable as exc:
        print(f"fidelity_bench: skipped: {exc}")
        return 0
    finally:
        if args.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


@dataclass
class Crawls:
    recrawl: list[RecrawlRun]
    wget: list[WgetRun]


def timed_crawls(
    site: Site, runs: int, flags: list[str], args: argparse.Namespace, scratch: Path
) -> Crawls:
    """Recrawl and wget in turn, ``runs`` times each; the first project and WARC kept."""
    logs = scratch / "logs"
    logs.mkdir(exist_ok=True)
    crawls = Crawls([], [])
    for n in range(runs):
        r = recrawl_archive(site, scratch / f"project-{n}", flags, logs, args.capture)
        crawls.recrawl.append(r)
        print(
            f"recrawl run {n + 1}: {r.summary['fetched']} fetched in {r.summary['rounds']} rounds, "
            f"{r.summary['errors']} errors: wall {r.wall_s:.2f} s, CPU {r.cpu_s:.2f} s "
            f"(the crawl alone {r.crawl_wall_s:.2f} s, CPU {r.crawl_cpu_s:.2f} s)",
            flush=True,
        )
        if n and not args.keep:
            shutil.rmtree(r.project, ignore_errors=True)
        if args.skip_wget:
            continue
        w = wget_archive(site, scratch / f"wget-{n}", logs)
        crawls.wget.append(w)
        print(f"wget run {n + 1}: wall {w.wall_s:.2f} s, CPU {w.cpu_s:.2f} s", flush=True)
        if n and not args.keep:
            shutil.rmtree(w.folder, ignore_errors=True)
    return crawls


@dataclass
class Embeds:
    requested: dict[str, str]  # URL on the site -> the first page that requested it
    archived: set[str]
    wget_archived: int | None
    script_built: list[str]  # requested, named by no HTML or stylesheet
    never_requested: list[str]  # named by HTML or a stylesheet, never requested
    off_site: list[str]
    failed_live: dict[str, str]
    seconds: float

    @property
    def missing(self) -> list[str]:
        return sorted(set(self.requested) - self.archived)

    @property
    def share(self) -> float:
        return len(self.archived) / len(self.requested) if self.requested else 0.0


def count_embeds(
    browser: Browser, site: Site, captures: dict[str, list[Capture]], wget_warc: Path | None
) -> Embeds:
    requested, failed_live, seconds = census(browser, site)
    on_site = {url: page for url, page in requested.items() if origin_of(url) == site.base}
    referenced = static_references(site)
    wget_archived = None
    if wget_warc is not None:
        wget_keys = {key_of(url) for url in warc_responses(wget_warc)}
        wget_archived = sum(1 for url in on_site if key_of(url) in wget_keys)
    return Embeds(
        on_site,
        {url for url in on_site if key_of(url) in captures},
        wget_archived,
        sorted(url for url in on_site if url.split("#")[0] not in referenced),
        sorted(
            url
            for url in referenced
            if origin_of(url) == site.base and url not in on_site and not url.endswith(".html")
        ),
        sorted(set(requested) - set(on_site)),
        failed_live,
        seconds,
    )


def print_embeds(embeds: Embeds, site: Site) -> None:
    found, whole = len(embeds.archived), len(embeds.requested)
    print(
        f"census: {len(site.pages)} pages in {embeds.seconds:.0f} s; "
        f"{whole} distinct embedded URLs requested"
    )
    print(f"embeds archived: {found} of {whole} ({percent(found, whole)})")
    missing = embeds.missing
    for url in missing[:10]:
        print(
            f"  missing: {url}   (first requested by {embeds.requested[url].removeprefix(site.base)})"
        )
    if len(missing) > 10:
        print(f"  ... and {len(missing) - 10} more")
    if embeds.wget_archived is not None:
        print(
            f"  wget's WARC holds {embeds.wget_archived} of them ({percent(embeds.wget_archived, whole)})"
        )
    if embeds.off_site:
        print(
            f"  requested off the site (not counted): {len(embeds.off_site)}, e.g. {embeds.off_site[0]}"
        )
    if embeds.failed_live:
        url, why = next(iter(embeds.failed_live.items()))
        print(f"  failed on the live site: {len(embeds.failed_live)}, e.g. {why} {url}")
    print(
        f"  requested, but named by no page's HTML nor any stylesheet (scripts built them): {len(embeds.script_built)}"
    )
    for url in embeds.script_built[:10]:
        print(f"    {url}   (first by {embeds.requested[url].removeprefix(site.base)})")
    print(
        f"  named by the HTML or a stylesheet, never requested by the browser: {len(embeds.never_requested)}"
    )
    for url in embeds.never_requested[:5]:
        print(f"    {url}")


def bench(args: argparse.Namespace, runs: int, flags: list[str], site: Site, scratch: Path) -> int:
    size = sum(p.stat().st_size for p in site.root.rglob("*") if p.is_file())
    print(
        f"site: {site.root} ({len(site.pages)} HTML pages, {size / 1e6:.0f} MB), nginx at {site.base}/"
    )
    print(f"machine: {os.cpu_count()} cores, load average {load_average()}")
    crawls = timed_crawls(site, runs, flags, args, scratch)
    project = crawls.recrawl[0].project
    captures = project_captures(project)
    print(f"load average {load_average()} after the crawls")
    with chromium(args.chromium) as browser:
        print(f"census: every page of the site in Chromium {browser.version} ...", flush=True)
        embeds = count_embeds(browser, site, captures, crawls.wget[0].warc if crawls.wget else None)
        print_embeds(embeds, site)
        print(
            f"replay against live ({VIEWPORT['width']}x{VIEWPORT['height']} viewport, "
            f"pixelmatch threshold {THRESHOLD}):",
            flush=True,
        )
        results = compare_sample(browser, site, project, captures, args.out)
    figures = report(site, crawls, captures, embeds, results, flags, runs)
    (args.out / "fidelity.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(f"screenshots, diffs and fidelity.json: {args.out.resolve()}/")
    if not args.keep:
        shutil.rmtree(project, ignore_errors=True)
    return 0


def report(
    site: Site,
    crawls: Crawls,
    captures: dict[str, list[Capture]],
    embeds: Embeds,
    results: list[PageResult],
    flags: list[str],
    runs: int,
) -> dict[str, Any]:
    """Print the figures beside their targets; return them (for fidelity.json)."""
    project = crawls.recrawl[0].project
    pages = len(results)
    clean = sum(1 for r in results if not r.failed)
    sharp = sum(1 for r in results if r.pixels >= TARGET_PIXELS)
    found, whole = len(embeds.archived), len(embeds.requested)
    timing: dict[str, Any] = {
        "runs": runs,
        "recrawl_command": ["recrawl", "crawl", "DIR", *recrawl_command(project, flags)[3:]],
        "politeness": politeness(project, flags),
        "recrawl_wall_s": median([r.wall_s for r in crawls.recrawl]),
        "recrawl_cpu_s": median([r.cpu_s for r in crawls.recrawl]),
        "recrawl_crawl_wall_s": median([r.crawl_wall_s for r in crawls.recrawl]),
        "recrawl_crawl_cpu_s": median([r.crawl_cpu_s for r in crawls.recrawl]),
        "recrawl_fetched": crawls.recrawl[0].summary["fetched"],
        "recrawl_captures": sum(len(c) for c in captures.values()),
    }
    if crawls.wget:
        timing["wget_command"] = ["wget", *wget_command(site, Path("DIR/site"))[1:]]
        timing["wget_wall_s"] = median([w.wall_s for w in crawls.wget])
        timing["wget_cpu_s"] = median([w.cpu_s for w in crawls.wget])
        timing["wget_responses"] = len(warc_responses(crawls.wget[0].warc))
        # the measure: the site archived by `recrawl crawl` (a project made and
        # seeded first, as wget is given its URL); with init and inject, said beside it
        timing["ratio"] = timing["recrawl_crawl_wall_s"] / timing["wget_wall_s"]
        timing["ratio_with_setup"] = timing["recrawl_wall_s"] / timing["wget_wall_s"]

    print()
    print(
        f"== figures ({'median of ' + str(runs) + ' runs' if runs > 1 else '1 run'} each; load average {load_average()}) =="
    )
    print(f"recrawl: {shlex.join(timing['recrawl_command'])}")
    print(f"         after `recrawl init DIR`, `recrawl inject DIR {site.url('index.html')}`")
    print(f"         politeness: {timing['politeness']}")
    if crawls.wget:
        print(f"wget:    {shlex.join(timing['wget_command'])}")
    scripted = sum(1 for r in results if r.script_errors)
    pywb_files = sorted({url.rsplit("/static/", 1)[-1] for r in results for url in r.pywb_files})
    rows = [
        ("embeds archived", f"{found} of {whole} ({percent(found, whole)})", f"≥ {TARGET_SHARE * 100:g} %", embeds.share >= TARGET_SHARE),
        ("sample pages replayed with no failed load", f"{clean} of {pages} ({percent(clean, pages)})", f"≥ {TARGET_CLEAN * 100:g} %", pages > 0 and clean / pages >= TARGET_CLEAN),
        (f"sample pages with ≥ {TARGET_PIXELS} of pixels matching", f"{sharp} of {pages} ({percent(sharp, pages)})", f"≥ {TARGET_PIXEL_PAGES * 100:g} %", pages > 0 and sharp / pages >= TARGET_PIXEL_PAGES),
        ("pixels matching, median (lowest)", f"{median([r.pixels for r in results]):.4f} ({min((r.pixels for r in results), default=0):.4f})", "", None),
        ("failed loads per page, median (most)", f"{median([len(r.failed) for r in results]):g} ({max((len(r.failed) for r in results), default=0)})", "", None),
        ("sample pages with script errors only in replay", f"{scripted} of {pages}", "", None),
    ]  # fmt: skip
    if crawls.wget:
        ratio = timing["ratio"]
        rows.append(("`recrawl crawl`'s wall time / wget's", f"{ratio:.2f}x", f"≤ {TARGET_RATIO}x", ratio <= TARGET_RATIO))  # fmt: skip
        rows.append(("  with recrawl init and inject too", f"{timing['ratio_with_setup']:.2f}x", "", None))  # fmt: skip
    width = max(len(row[0]) for row in rows)
    print(f"{'':{width}}  {'measured':22}  target")
    for name, measured, target, ok in rows:
        print(f"{name:{width}}  {measured:22}  {target:7}  {'' if ok is None else verdict(ok)}")
    print(f"(not counted as failed loads: pywb's own files, {', '.join(pywb_files) or 'none'})")
    print()
    print(f"{'':26} {'wall s':>7} {'CPU s':>7}")
    print(
        f"{'recrawl init+inject+crawl':26} {timing['recrawl_wall_s']:7.2f} {timing['recrawl_cpu_s']:7.2f}"
        f"  {timing['recrawl_fetched']} fetched, {timing['recrawl_captures']} captures indexed"
    )
    print(
        f"{'  the crawl alone':26} {timing['recrawl_crawl_wall_s']:7.2f} {timing['recrawl_crawl_cpu_s']:7.2f}"
    )
    if crawls.wget:
        print(
            f"{'wget':26} {timing['wget_wall_s']:7.2f} {timing['wget_cpu_s']:7.2f}"
            f"  {timing['wget_responses']} responses in its WARC (it also saves each file)"
        )
    return {
        "site": {"root": str(site.root), "base": site.base, "pages": len(site.pages)},
        "embeds": {
            "requested": whole,
            "archived": found,
            "missing": embeds.missing,
            "wget_archived": embeds.wget_archived,
            "script_built": embeds.script_built,
            "never_requested": embeds.never_requested,
            "failed_live": embeds.failed_live,
        },
        "pages": [asdict(r) for r in results],
        "timing": timing,
    }


if __name__ == "__main__":
    sys.exit(main())
