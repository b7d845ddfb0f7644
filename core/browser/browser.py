"""The system's Chromium, headless, driven over its DevTools pipe: one tab per lane.

Every request of a tab is paused (the Fetch domain) and answered by the crawl's
:class:`~.load.RequestHandler`, so nothing the page loads reaches the network by itself.
What a page may do to the crawl is bounded here, each bound said on the
:class:`~.load.Rendering`: its load time, its scrolls, its navigations, its memory (its
tab crashes alone), its dialogs, popups and downloads, a script that never ends (its tab
is replaced), and a browser that dies, hangs or grows past ``capture.max_memory`` (the
load gets an error, the next one starts a new browser). Nothing reaches a server round
the crawl: frames of other sites share the page's process (so its Fetch pauses theirs),
service workers and WebSockets are refused, and no connection is opened ahead.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import json
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recrawl.core.browser.cdp import (
    CALL_TIMEOUT,
    CdpClosed,
    CdpError,
    CdpTimeout,
    Connection,
    Message,
)
from recrawl.core.browser.chromium import find_chromium
from recrawl.core.browser.load import Answer, Intercepted, Refusal, Rendering, RequestHandler
from recrawl.core.browser.profiles import PROFILE_PREFIX, lock_profile, sweep_profiles
from recrawl.core.config import CaptureSettings
from recrawl.core.errors import BrowserError

log = logging.getLogger(__name__)

MIB = 1024 * 1024
#: A browser starting on a loaded 2-core machine beside a crawl: its first answer, at most.
START_TIMEOUT = 30.0
#: After each scroll the page may load what the scroll showed: network idle for
#: ``capture.idle``, waited for at most that plus this long.
SCROLL_PATIENCE = 2.0
#: The name the init script reports through (a CDP binding: a function on ``window``).
BINDING = "__recrawlReport"
#: Headers that describe the body as it came over the wire; the body the browser is
#: given is the decoded one, its length its own.
WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
#: Run in every document of a tab before its own scripts. Service workers would answer a
#: page's requests from their own cache on later loads (and outlive the page): navigator
#: says there are none, as in an insecure context. window.open would open a tab whose
#: requests are not paused: it opens nothing. A WebSocket's traffic cannot be paused or
#: archived: there is none.
INIT_SCRIPT = f"""(() => {{
  const report = (what) => {{ try {{ window.{BINDING}(what); }} catch (e) {{}} }};
  try {{
    Object.defineProperty(Navigator.prototype, 'serviceWorker', {{
      get() {{ return undefined; }}, configurable: true }});
  }} catch (e) {{}}
  window.open = function () {{ report('popup'); return null; }};
  window.WebSocket = function () {{ report('websocket'); throw new DOMException(
    'WebSockets are not archived', 'SecurityError'); }};
}})();"""
#: Scrolls down one viewport unless the page's bottom is in view already (true then).
SCROLL_JS = """(() => {
  const root = document.scrollingElement || document.documentElement;
  if (!root || window.scrollY + window.innerHeight >= root.scrollHeight - 1) return true;
  window.scrollBy(0, window.innerHeight);
  return false;
})()"""
AT_BOTTOM_JS = """(() => {
  const root = document.scrollingElement || document.documentElement;
  return !root || window.scrollY + window.innerHeight >= root.scrollHeight - 1;
})()"""
#: The DOM as serialised markup, cut in the page at a length that still holds more bytes
#: than the limit (a character is one UTF-8 byte or more), so the copy over the pipe is
#: bounded too.
DOM_JS = """((limit) => {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
  const root = document.documentElement ? document.documentElement.outerHTML : '';
  let dom = doctype ? doctype + '\\n' + root : root;
  if (dom.length > limit) dom = dom.slice(0, limit + 1);
  return { dom, title: document.title || '', url: location.href };
})(%d)"""
DIALOGS = {
    "alert": "an alert dismissed",
    "confirm": "a confirm dialog dismissed",
    "prompt": "a prompt dismissed",
    "beforeunload": "a leave-page dialog accepted",
}


@dataclass
class _Load:
    """One load in a tab: what its events change, and what its requests are doing."""

    url: str
    handler: RequestHandler
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: The loop's time of the last request start or end, or load event.
    last_change: float = 0.0
    inflight: int = 0
    #: The page's own document is committed (its frame navigated), then its load event fired.
    committed: bool = False
    loaded: bool = False
    navigated: bool = False
    navigations: int = 0
    #: Set when the load must end now: ``error`` with no rendering, or (None) stop and
    #: render what is there (the navigation limit).
    ended: bool = False
    error: str | None = None
    notes: dict[str, int] = field(default_factory=dict)
    #: The URLs the page asked for.
    requested: set[str] = field(default_factory=set)
    #: The page's own document was answered (its body given to the browser).
    answered: bool = False
    tasks: set[asyncio.Future[Any]] = field(default_factory=set)

    def note(self, text: str) -> None:
        self.notes[text] = self.notes.get(text, 0) + 1

    def end(self, error: str | None = None) -> None:
        if not self.ended:
            self.ended, self.error = True, error
        self.changed.set()

    def poke(self) -> None:
        self.last_change = asyncio.get_running_loop().time()
        self.changed.set()

    def noted(self) -> tuple[str, ...]:
        return tuple(text if n == 1 else f"{text} ({n} times)" for text, n in self.notes.items())


@dataclass
class _Process:
    """The browser's main process, started by posix_spawn: its exit seen and reaped."""

    pid: int
    returncode: int | None = None

    def poll(self) -> int | None:
        """Its exit status once it has exited (reaped then), else None."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped already
                self.returncode = -1
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    async def reap(self, patience: float = 10.0) -> None:
        """Waits for it to exit (killed already), at most ``patience`` seconds."""
        deadline = asyncio.get_running_loop().time() + patience
        while self.poll() is None and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)


@dataclass
class _Tab:
    target: str
    session: str
    frames: set[str] = field(default_factory=set)
    load: _Load | None = None
    #: Set when the tab's own frame has committed about:blank (the last page is gone).
    blank: asyncio.Event = field(default_factory=asyncio.Event)
    gone: str | None = None


class Browser:
    """One Chromium process (restarted when it dies, hangs or grows past
    ``capture.max_memory``) and a tab for each lane that loads pages."""

    def __init__(self, settings: CaptureSettings, user_agent: str, max_dom_bytes: int) -> None:
        self.settings = settings
        self.user_agent = user_agent
        self.max_dom_bytes = max_dom_bytes
        #: A command's answer, at most (tests shorten it to catch a hung browser sooner).
        self.call_timeout = CALL_TIMEOUT
        self.restarts = 0
        self.peak_memory = 0
        self._process: _Process | None = None
        self._connection: Connection | None = None
        self._profile: Path | None = None
        self._profile_lock: int | None = None
        self._tabs: dict[int, _Tab] = {}
        self._started = False
        #: A command timed out: the browser is hung, and is replaced before the next load.
        self._broken = False
        self._active = 0
        self._gate = asyncio.Condition()
        self._background: set[asyncio.Task[Any]] = set()

    # -- the process ---------------------------------------------------------------

    async def start(self) -> None:
        """Starts the browser; raises :class:`BrowserMissing` or :class:`BrowserError`,
        each one line."""
        if self._connection is not None and not self._connection.closed.is_set():
            return
        if self._process is not None or self._connection is not None:
            await self.close()  # what is left of one that died
        binary = find_chromium(self.settings.chromium)
        await asyncio.to_thread(sweep_profiles)
        profile = Path(tempfile.mkdtemp(prefix=PROFILE_PREFIX))
        self._profile_lock = lock_profile(profile)
        commands_r, commands_w = os.pipe()
        events_r, events_w = os.pipe()
        # above 4, so putting them on 3 and 4 in the child cannot overwrite one another
        child_in = fcntl.fcntl(commands_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(events_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(commands_r)
        os.close(events_w)
        # no connections opened ahead to hosts a page names (<link rel=preconnect>, links):
        # the crawl opens every connection itself
        (profile / "Default").mkdir()
        (profile / "Default" / "Preferences").write_text(
            json.dumps({"net": {"network_prediction_options": 2}})
        )
        stderr = os.open(profile / "stderr.log", os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            # posix_spawn, not subprocess: subprocess keeps only fds open in this process
            # as their own numbers (pass_fds), and 3 or 4 may not be; and its preexec_fn
            # is unsafe beside the crawl's threads. Each dup2 clears close-on-exec.
            pid = os.posix_spawn(
                binary,
                [str(binary), *self._flags(profile)],
                child_environment(os.environ, frozen=getattr(sys, "frozen", False)),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, stderr, 2),
                    (os.POSIX_SPAWN_DUP2, child_in, 3),
                    (os.POSIX_SPAWN_DUP2, child_out, 4),
                ],
                setsid=True,  # its own process group: killed as one
            )
        except OSError as exc:
            for fd in (commands_w, events_r):
                os.close(fd)
            shutil.rmtree(profile, ignore_errors=True)
            self._unlock_profile()
            raise BrowserError(f"cannot start {binary}: {exc.strerror or exc}") from None
        finally:
            for fd in (stderr, child_in, child_out):
                os.close(fd)
        self._process = _Process(pid)
        self._profile = profile
        self._connection = await Connection.open(events_r, commands_w)
        self._connection.listen(None, self._browser_event)
        self._tabs.clear()
        self._broken = False
        try:
            await self._connection.send("Browser.getVersion", timeout=START_TIMEOUT)
            await self._connection.send("Target.setDiscoverTargets", {"discover": True})
            await self._connection.send(
                "Browser.setDownloadBehavior", {"behavior": "deny", "eventsEnabled": True}
            )
            # the window it opened with: the lanes make tabs of their own
            for target in (await self._connection.send("Target.getTargets"))["targetInfos"]:
                if target.get("type") == "page":
                    await self._connection.send(
                        "Target.closeTarget", {"targetId": target["targetId"]}
                    )
        except BrowserError as exc:
            said = self._last_words()
            await self.close()
            raise BrowserError(
                f"Chromium ({binary}) did not start: {said or exc}".rstrip()
            ) from None
        if self._started:
            self.restarts += 1
        self._started = True
        self.memory()

    def _flags(self, profile: Path) -> list[str]:
        s = self.settings
        return [
            "--headless=new",
            "--no-sandbox",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--disable-breakpad",
            "--disable-crash-reporter",
            "--disable-dev-shm-usage",
            "--disable-background-timer-throttling",
            "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--password-store=basic",
            "--use-mock-keychain",
            "--mute-audio",
            "--hide-scrollbars",
            "--autoplay-policy=user-gesture-required",
            # cross-site frames in the page's own process, so the tab's Fetch pauses
            # their requests too (a frame in a process of its own is another target)
            "--disable-site-isolation-trials",
            "--disable-features=IsolateOrigins,site-per-process,Translate,MediaRouter,"
            "OptimizationHints,AutofillServerCommunication",
            # images and frames marked loading=lazy load at once: the archive wants all
            # of them, not only those a scroll reached
            "--blink-settings=lazyLoadEnabled=false",
            f"--js-flags=--max-old-space-size={max(16, s.page_memory // MIB)}",
            f"--window-size={s.viewport_width},{s.viewport_height}",
            f"--user-agent={self.user_agent}",
            "about:blank",
        ]

    def _last_words(self) -> str:
        """The last line the browser wrote to its stderr (why it did not start)."""
        if self._profile is None:
            return ""
        with contextlib.suppress(OSError):
            lines = (self._profile / "stderr.log").read_bytes().decode(errors="replace")
            for line in reversed(lines.splitlines()):
                if line.strip():
                    return line.strip()[:300]
        return ""

    async def close(self) -> None:
        """Ends the browser and all its processes; safe to call at any time, and again."""
        for task in list(self._background):
            task.cancel()
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()
        process, self._process = self._process, None
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.reap()
        profile, self._profile = self._profile, None
        if profile is not None:
            await asyncio.to_thread(shutil.rmtree, profile, True)
        self._unlock_profile()
        self._tabs.clear()

    def _unlock_profile(self) -> None:
        lock, self._profile_lock = self._profile_lock, None
        if lock is not None:
            os.close(lock)

    def _pids(self) -> Iterator[int]:
        """The browser's live processes: its process group (its renderers, GPU, zygotes)."""
        if self._process is None:
            return
        group = self._process.pid
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    # the fields after the command name (in parentheses, maybe with spaces)
                    fields = stat.read().rsplit(b")", 1)[1].split()
                # a zombie (state Z) is dead already, waiting to be reaped
                if int(fields[2]) == group and fields[0] != b"Z":
                    yield int(entry.name)

    def memory(self) -> int:
        """The memory of all the browser's processes now, in bytes: each one's own pages
        (anonymous and shared memory), and the pages of files (the browser's code, mapped
        by all) once, at the most any one maps. The plain sum of their RSS counts the code
        once a process: with four tabs three times as much as they take, past
        ``capture.max_memory`` with nothing loaded; their PSS is that estimate's within
        10 %, but takes the kernel 30 times as long (2 ms a process)."""
        own, files = 0, 0
        for pid in self._pids():
            with contextlib.suppress(OSError, ValueError, IndexError):
                sizes = _resident(pid)
                own += sizes.get(b"RssAnon", 0) + sizes.get(b"RssShmem", 0)
                files = max(files, sizes.get(b"RssFile", 0))
        total = own + files
        self.peak_memory = max(self.peak_memory, total)
        return total

    def _alive(self) -> bool:
        return (
            self._connection is not None
            and not self._connection.closed.is_set()
            and self._process is not None
            and self._process.poll() is None
            and not self._broken
        )

    async def _ready(self) -> None:
        """A browser to load in: started, or restarted when it died or hung, or (once the
        other lanes' loads are over) when it grew past ``capture.max_memory``."""
        async with self._gate:
            if self._alive() and self.memory() > self.settings.max_memory:
                await self._gate.wait_for(lambda: self._active == 0)
                if self._alive() and self.memory() > self.settings.max_memory:
                    log.info("browser over capture.max_memory: restarted")
                    await self.close()
            if not self._alive():
                if self._connection is not None or self._process is not None:
                    await self.close()
                await self.start()
            self._active += 1

    async def _done(self) -> None:
        self.memory()  # the peak with the page still in its tab
        async with self._gate:
            self._active -= 1
            self._gate.notify_all()

    # -- events ----------------------------------------------------------------------

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(_quiet)

    def _tab_of(self, target: str) -> _Tab | None:
        return next((tab for tab in self._tabs.values() if tab.target == target), None)

    def _browser_event(self, method: str, params: Message) -> None:
        if method == "Connection.closed":
            for each in self._tabs.values():
                if each.load is not None:
                    each.load.end("the browser exited during the load")
        elif method == "Target.targetCrashed":
            tab = self._tab_of(params.get("targetId", ""))
            if tab is not None:
                tab.gone = "crashed"
                if tab.load is not None:
                    tab.load.end(
                        "the page crashed the browser tab (out of memory? capture.page_memory)"
                    )
        elif method in ("Target.targetDestroyed", "Target.detachedFromTarget"):
            tab = self._tab_of(params.get("targetId", ""))
            if tab is not None:
                tab.gone = "closed"
                if tab.load is not None:
                    tab.load.end("the browser tab closed during the load")
        elif method == "Target.targetCreated":
            info = params.get("targetInfo", {})
            opener = self._tab_of(info.get("openerId", ""))
            if opener is not None and info.get("type") == "page":
                # a popup the init script could not stop (a link with target=_blank, which
                # Chromium's own popup blocker lets through only after a user's click)
                if opener.load is not None:
                    opener.load.note("a popup closed")
                self._spawn(self._call("Target.closeTarget", {"targetId": info["targetId"]}))
        elif method == "Browser.downloadWillBegin":
            frame, url = params.get("frameId", ""), params.get("url", "")
            for each in self._tabs.values():
                load = each.load
                mine = frame == each.target or frame in each.frames
                # the URL asked for in this load: not a late event of the tab's last page
                if load is not None and mine and url in load.requested:
                    load.note("a download refused")

    def _tab_event(self, tab: _Tab, method: str, params: Message) -> None:
        load = tab.load
        if method == "Fetch.requestPaused":
            own_document = (
                params.get("resourceType") == "Document" and params.get("frameId") == tab.target
            )
            # before this load's document is given to the browser, no request but that
            # document is this page's: any other is the tab's last page's, made as it was
            # being left and paused late: the next page's handler must not get it
            if load is None or load.ended or not (load.answered or own_document):
                self._spawn(self._fail(tab, params["requestId"], "Aborted"))
                return
            load.inflight += 1
            load.poke()
            task = asyncio.ensure_future(self._answer(tab, load, params))
            load.tasks.add(task)
            task.add_done_callback(load.tasks.discard)
            task.add_done_callback(_quiet)
        elif method == "Page.frameAttached":
            tab.frames.add(params.get("frameId", ""))
        elif method == "Page.frameNavigated":
            frame = params.get("frame", {})
            if frame.get("parentId"):
                return
            if frame.get("url") == "about:blank":
                tab.blank.set()
            elif load is not None:
                load.committed, load.loaded = True, False
                load.poke()
        elif load is None:
            return
        elif method == "Page.loadEventFired":
            if load.committed:
                load.loaded = True
                load.poke()
        elif method == "Page.javascriptDialogOpening":
            kind = params.get("type", "alert")
            load.note(DIALOGS.get(kind, f"a {kind} dialog dismissed"))
            self._spawn(
                self._call(
                    "Page.handleJavaScriptDialog",
                    {"accept": kind == "beforeunload"},
                    tab.session,
                )
            )
        elif method == "Runtime.bindingCalled" and params.get("name") == BINDING:
            payload = params.get("payload")
            if payload == "popup":
                load.note("a popup closed")  # as Rendering.notes names it: none opened
            elif payload == "websocket":
                load.note("a WebSocket refused")
        elif method == "Inspector.targetCrashed":
            tab.gone = "crashed"
            load.end("the page crashed the browser tab (out of memory? capture.page_memory)")

    async def _call(self, method: str, params: Message, session: str | None = None) -> Message:
        if self._connection is None:
            raise CdpClosed("the browser has exited")
        return await self._connection.send(method, params, session, self.call_timeout)

    async def _fail(self, tab: _Tab, request: str, reason: str) -> None:
        with contextlib.suppress(BrowserError):
            await self._call(
                "Fetch.failRequest", {"requestId": request, "errorReason": reason}, tab.session
            )

    async def _answer(self, tab: _Tab, load: _Load, params: Message) -> None:
        """One paused request, given to the crawl and its answer to the browser."""
        try:
            request = params.get("request", {})
            kind = params.get("resourceType", "Other")
            own_document = kind == "Document" and params.get("frameId") == tab.target
            navigation = own_document and not load.navigated
            if own_document and load.navigated:
                load.navigations += 1
                if load.navigations > self.settings.max_navigations:
                    limit = self.settings.max_navigations
                    load.note(
                        f"stopped after {limit} navigations by the page (capture.max_navigations)"
                    )
                    await self._fail(tab, params["requestId"], "Aborted")
                    load.end()
                    return
            load.navigated = load.navigated or navigation
            load.requested.add(request.get("url", ""))
            intercepted = Intercepted(
                url=request.get("url", "") + request.get("urlFragment", ""),
                method=request.get("method", "GET"),
                headers=dict(request.get("headers", {})),
                resource_type=kind,
                navigation=navigation,
            )
            try:
                answer = await load.handler(intercepted)
            except Exception as exc:  # the crawl's own bug: this request fails, not the load
                log.exception("browser request handler failed on %s", intercepted.url)
                answer = Refusal(f"not fetched: {exc}")
            if isinstance(answer, Refusal):
                await self._fail(tab, params["requestId"], "BlockedByClient")
                if navigation:
                    load.end(answer.reason)
                return
            # before the body goes: the page's requests for what it names may come first
            load.answered = load.answered or navigation
            await self._fulfill(tab, params["requestId"], answer)
        finally:
            load.inflight -= 1
            load.poke()

    async def _fulfill(self, tab: _Tab, request: str, answer: Answer) -> None:
        headers = [
            {"name": name, "value": value}
            for name, value in answer.headers
            if name.lower() not in WIRE_HEADERS
        ]
        params: Message = {
            "requestId": request,
            "responseCode": answer.status,
            "responseHeaders": headers,
            "body": base64.b64encode(answer.body).decode("ascii"),
        }
        if answer.reason:
            params["responsePhrase"] = answer.reason
        with contextlib.suppress(CdpError):  # the page went away meanwhile
            await self._call("Fetch.fulfillRequest", params, tab.session)

    # -- tabs ------------------------------------------------------------------------

    async def _tab(self, lane: int) -> _Tab:
        tab = self._tabs.get(lane)
        if tab is not None and tab.gone is None:
            return tab
        if tab is not None:
            del self._tabs[lane]
            if self._connection is not None:
                self._connection.listen(tab.session, None)
            self._spawn(self._call("Target.closeTarget", {"targetId": tab.target}))
        created = await self._call("Target.createTarget", {"url": "about:blank", "newWindow": True})
        target = created["targetId"]
        attached = await self._call("Target.attachToTarget", {"targetId": target, "flatten": True})
        tab = _Tab(target, attached["sessionId"])
        assert self._connection is not None
        self._connection.listen(tab.session, lambda m, p: self._tab_event(tab, m, p))
        s = self.settings
        session = tab.session
        await asyncio.gather(
            self._call("Page.enable", {}, session),
            # the binding's calls are events only with the domain enabled
            self._call("Runtime.enable", {}, session),
            self._call("Runtime.addBinding", {"name": BINDING}, session),
            self._call("Page.addScriptToEvaluateOnNewDocument", {"source": INIT_SCRIPT}, session),
            self._call("Network.setBypassServiceWorker", {"bypass": True}, session),
            self._call(
                "Emulation.setDeviceMetricsOverride",
                {
                    "width": s.viewport_width,
                    "height": s.viewport_height,
                    "deviceScaleFactor": 1,
                    "mobile": False,
                },
                session,
            ),
            self._call(
                "Fetch.enable",
                {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]},
                session,
            ),
        )
        self._tabs[lane] = tab
        return tab

    # -- a load ----------------------------------------------------------------------

    async def load(self, url: str, lane: int, handler: RequestHandler) -> Rendering:
        """``url`` loaded in ``lane``'s tab, every request given to ``handler``; one load
        at a time in a lane, lanes at once.

        Bounded in time by ``capture.page_timeout`` to network idle, then
        ``capture.max_scrolls`` × (``capture.idle`` + 2 s) for the scrolls, then a few
        browser calls of at most 15 s each (a hung browser: the load's error). Never
        raises for what the page or the browser did: that is the rendering's error.
        """
        try:
            await self._ready()
        except BrowserError as exc:
            return Rendering(url, b"", "", None, error=str(exc))
        load = _Load(url, handler)
        tab: _Tab | None = None
        try:
            tab = await self._tab(lane)
            tab.load = load
            return await self._run(tab, load)
        except CdpTimeout as exc:
            error = str(exc)
            if tab is not None and await self._answers():
                tab.gone = "hung"  # the browser is well: its tab is not
                error = (
                    f"the page did not answer {exc.method} in {exc.timeout:g} s "
                    "(a script running without end?)"
                )
            else:
                self._broken = True
            return self._failed(load, error)
        except CdpClosed:
            return self._failed(load, "the browser exited during the load")
        except CdpError as exc:
            if tab is not None:
                tab.gone = "failed"
            return self._failed(load, f"the browser failed: {exc}")
        finally:
            if tab is not None:
                await self._reset(tab, load)
            await self._done()

    @staticmethod
    def _failed(load: _Load, error: str) -> Rendering:
        # what the page did first (it crashed its tab), else what the call met
        return Rendering(load.url, b"", "", None, load.noted(), error=load.error or error)

    async def _answers(self) -> bool:
        """The browser itself answers (a tab's call that timed out was the tab's fault)."""
        try:
            await self._call("Browser.getVersion", {})
        except BrowserError:
            return False
        return True

    async def _reset(self, tab: _Tab, load: _Load) -> None:
        """The tab back on about:blank, so the page stops running and is forgotten; or,
        for a page still fetching, a new tab for the lane's next page."""
        busy = load.inflight > 0
        tab.load = None
        for task in list(load.tasks):
            task.cancel()
        if tab.gone is not None or not self._alive():
            return
        if busy:
            # a request it made as it was left may be paused after about:blank commits,
            # when nothing tells it from the next page's: in a tab of its own it never is
            tab.gone = "busy"
            return
        tab.blank.clear()
        try:
            await self._call("Page.navigate", {"url": "about:blank"}, tab.session)
            # its answer comes as the navigation starts; the page runs (and makes requests)
            # until about:blank replaces it
            await asyncio.wait_for(tab.blank.wait(), self.call_timeout)
        except TimeoutError:
            tab.gone = "hung"
        except CdpTimeout:
            self._broken = True
        except BrowserError:
            tab.gone = "failed"

    async def _run(self, tab: _Tab, load: _Load) -> Rendering:
        loop = asyncio.get_running_loop()
        s = self.settings
        deadline = loop.time() + s.page_timeout
        load.last_change = loop.time()
        navigate = asyncio.ensure_future(
            self._connection.send(  # type: ignore[union-attr]
                "Page.navigate", {"url": load.url}, tab.session, s.page_timeout + self.call_timeout
            )
        )
        load.tasks.add(navigate)
        navigate.add_done_callback(lambda done: self._navigated(load, done))
        if not await self._settle(load, deadline, s.idle):
            if not load.committed:  # the tab still shows about:blank
                load.end(f"the page did not load in {s.page_timeout:g} s (capture.page_timeout)")
            load.note(f"still loading after {s.page_timeout:g} s (capture.page_timeout)")
        if load.error is not None:
            return Rendering(load.url, b"", "", None, load.noted(), error=load.error)
        await self._scroll(tab, load)
        if load.error is not None:
            return Rendering(load.url, b"", "", None, load.noted(), error=load.error)
        return await self._capture(tab, load)

    def _navigated(self, load: _Load, done: asyncio.Future[Message]) -> None:
        if done.cancelled() or load.ended:
            return
        exc = done.exception()
        if isinstance(exc, CdpTimeout):
            return  # the page timeout ends the load first
        if exc is not None:
            load.end(f"the browser failed to load the page: {exc}")
            return
        error = done.result().get("errorText")
        if error:
            # the document answered, then dropped before it was shown: the browser took it
            # for a download (refused; its event may come later than this answer)
            if load.answered and error == "net::ERR_ABORTED":
                load.end("the page is a download (refused)")
            else:
                load.end(f"the browser failed to load the page: {error}")

    async def _settle(self, load: _Load, deadline: float, idle: float) -> bool:
        """Waits for network idle after the load event (True), the load's end (True), or
        ``deadline`` (False)."""
        loop = asyncio.get_running_loop()
        while True:
            if load.ended:
                return True
            now = loop.time()
            if load.loaded and load.inflight == 0 and now >= load.last_change + idle:
                return True
            if now >= deadline:
                return False
            until = deadline
            if load.loaded and load.inflight == 0:
                until = min(deadline, load.last_change + idle)
            load.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(load.changed.wait(), max(0.0, until - now))

    async def _evaluate(self, tab: _Tab, expression: str) -> Any:
        result = await self._call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, tab.session
        )
        if "exceptionDetails" in result:
            raise CdpError(result["exceptionDetails"].get("text", "a script error"))
        return result.get("result", {}).get("value")

    async def _scroll(self, tab: _Tab, load: _Load) -> None:
        """Down one viewport at a time, each followed by a wait for network idle, until
        the bottom or ``capture.max_scrolls``; then back to the top."""
        s = self.settings
        if s.max_scrolls == 0 or load.ended:
            return
        loop = asyncio.get_running_loop()
        for _ in range(s.max_scrolls):
            if await self._evaluate(tab, SCROLL_JS):
                break
            load.poke()
            await self._settle(load, loop.time() + s.idle + SCROLL_PATIENCE, s.idle)
            if load.ended:
                return
        else:
            if not await self._evaluate(tab, AT_BOTTOM_JS):
                load.note(f"scrolled {s.max_scrolls} times (capture.max_scrolls)")
        await self._evaluate(tab, "window.scrollTo(0, 0)")

    async def _capture(self, tab: _Tab, load: _Load) -> Rendering:
        page = await self._evaluate(tab, DOM_JS % self.max_dom_bytes) or {}
        dom = str(page.get("dom", "")).encode("utf-8", errors="replace")
        if len(dom) > self.max_dom_bytes:
            # not inside a character: its first bytes alone would not decode
            dom = dom[: self.max_dom_bytes].decode("utf-8", errors="ignore").encode()
            load.note(f"the DOM cut at {self.max_dom_bytes} bytes")
        screenshot = None
        if self.settings.screenshots:
            try:
                shot = await self._call("Page.captureScreenshot", {"format": "png"}, tab.session)
                screenshot = base64.b64decode(shot["data"])
            except CdpError as exc:
                load.note(f"no screenshot: {exc}")
            except CdpTimeout:
                if not await self._answers():
                    raise
                tab.gone = "hung"  # a tab that draws no more: the lane's next one is new
                load.note("no screenshot: the tab drew nothing")
        if load.error is not None:  # crashed while being captured
            return Rendering(load.url, b"", "", None, load.noted(), error=load.error)
        return Rendering(
            url=str(page.get("url") or load.url),
            dom=dom,
            title=str(page.get("title", "")),
            screenshot=screenshot,
            notes=load.noted(),
        )


def child_environment(environ: Mapping[str, str], frozen: bool) -> dict[str, str]:
    """The browser's environment: this process's, less what the app's bundle set for its
    own libraries (PyInstaller's bootloader puts them first on LD_LIBRARY_PATH, keeping
    the user's in LD_LIBRARY_PATH_ORIG): Chromium must load the system's."""
    env = dict(environ)
    if frozen:
        original = env.pop("LD_LIBRARY_PATH_ORIG", None)
        if original:
            env["LD_LIBRARY_PATH"] = original
        else:
            env.pop("LD_LIBRARY_PATH", None)
    return env


def _resident(pid: int) -> dict[bytes, int]:
    """A process's resident memory by kind (RssAnon, RssFile, RssShmem), in bytes."""
    sizes: dict[bytes, int] = {}
    with open(f"/proc/{pid}/status", "rb") as status:
        for line in status:
            if line.startswith(b"Rss"):
                name, value = line.split(b":", 1)
                sizes[name] = int(value.split()[0]) * 1024
    return sizes


def _quiet(task: asyncio.Future[Any]) -> None:
    """A background call's failure is seen by what it left undone, not raised again."""
    if not task.cancelled():
        task.exception()
