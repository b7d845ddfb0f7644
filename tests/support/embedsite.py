"""A generated site on two loopback hosts whose pages embed every kind a page can.

The pages live on 127.0.0.1; most of what they embed on a "CDN", 127.0.0.2 (another
host, so another robots.txt and politeness slot). Each embed is a distinct small body,
so a replayed one can be told from any other. Some embeds answer a conditional GET
with 304 (their ETag), the others have no validators: a later crawl of unchanged ones
makes revisit records of both kinds.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.httpserver import Reply, TestServer

#: A 1×1 PNG, made distinct per path by a text chunk (still a valid image).
_PNG_HEAD = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

#: What a page embeds, by the CDN path or page path, and the content type served.
CDN_FILES: dict[str, str] = {
    "/style.css": "text/css",
    "/more.css": "text/css",
    "/print.css": "text/css",
    "/bg.png": "image/png",
    "/font.woff2": "font/woff2",
    "/set-1x.png": "image/png",
    "/set-2x.png": "image/png",
    "/icon.png": "image/png",
    "/touch.png": "image/png",
    "/app.js": "application/javascript",
    "/module.js": "application/javascript",
    "/preload.woff2": "font/woff2",
    "/manifest.json": "application/manifest+json",
    "/photo.jpg": "image/jpeg",
    "/photo-2x.jpg": "image/jpeg",
    "/lazy.jpg": "image/jpeg",
    "/lazy-2x.jpg": "image/jpeg",
    "/original.jpg": "image/jpeg",
    "/lazy-src.jpg": "image/jpeg",
    "/wide.webp": "image/webp",
    "/clip.mp4": "video/mp4",
    "/poster.jpg": "image/jpeg",
    "/sound.ogg": "audio/ogg",
    "/alt.webm": "video/webm",
    "/subs.vtt": "text/vtt",
    "/doc.pdf": "application/pdf",
    "/flash.swf": "application/x-shockwave-flash",
    "/button.png": "image/png",
    "/body-bg.png": "image/png",
    "/svg-image.png": "image/png",
    "/sprite.svg": "image/svg+xml",
    "/attr-bg.png": "image/png",
    "/block-bg.png": "image/png",
    "/frame.html": "text/html; charset=utf-8",
    "/frame-img.png": "image/png",
    "/header.css": "text/css",
    "/guessed.png": "image/png",
}
#: Embeds on the pages' own host.
LOCAL_FILES: dict[str, str] = {"/local.js": "application/javascript", "/logo.gif": "image/gif"}

#: CDN paths that answer a conditional GET with 304 (the rest: identical-payload revisits).
WITH_ETAG = frozenset({"/style.css", "/bg.png", "/app.js", "/photo.jpg", "/frame.html"})


def _body(path: str, kind: str, version: int = 1) -> bytes:
    tag = f"{path} v{version}".encode()
    if kind == "image/png":
        chunk = b"tEXt" + b"Comment\x00" + tag
        length = len(chunk) - 4
        crc = zlib.crc32(chunk).to_bytes(4, "big")
        return _PNG_HEAD[:33] + length.to_bytes(4, "big") + chunk + crc + _PNG_HEAD[33:]
    if kind.startswith("text/") or kind.endswith(("javascript", "json")):
        return b"/* " + tag + b" */\n"
    return b"BIN " + tag + b" " + bytes(range(256))


@dataclass
class EmbedSite:
    """The two hosts, their files and pages; :meth:`stop` when done."""

    pages: TestServer = field(default_factory=TestServer)
    cdn: TestServer = field(default_factory=lambda: TestServer(address="127.0.0.2"))
    #: Each embed's bytes as served, by absolute URL.
    bodies: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.pages.start()
        self.cdn.start()
        for path, kind in CDN_FILES.items():
            self.serve(self.cdn, path, kind)
        for path, kind in LOCAL_FILES.items():
            self.serve(self.pages, path, kind)
        self.serve(self.cdn, "/style.css", "text/css", body=self.style_css().encode())
        frame = '<html><body><img src="frame-img.png"><p>A frame</p></body></html>'
        self.serve(self.cdn, "/frame.html", "text/html", body=frame.encode())
        # a script that names the file it loads (a guess, against the script's URL)
        script = b'/* /app.js v1 */\ndocument.body.dataset.icon = "guessed.png";\n'
        self.serve(self.cdn, "/app.js", "application/javascript", body=script)
        self.pages.routes["/"] = self._page(self.index_html(), link=True)
        self.pages.html("/other.html", self.other_html())
        self.pages.html("/robots.txt", "User-agent: *\nAllow: /\n")

    def serve(
        self, server: TestServer, path: str, kind: str, version: int = 1, body: bytes | None = None
    ) -> None:
        """Serve ``path`` (its generated body of ``version``, or ``body``)."""
        body = _body(path, kind, version) if body is None else body
        url = server.url(path)
        self.bodies[url] = body
        if server is self.cdn and path in WITH_ETAG:
            server.routes[path] = self._etagged(path, body, kind)
        else:
            server.routes[path] = Reply(200, body, {"Content-Type": kind})

    def _etagged(
        self, path: str, body: bytes, kind: str
    ) -> Callable[[BaseHTTPRequestHandler], Reply]:
        etag = f'"{zlib.crc32(body):08x}"'

        def answer(handler: BaseHTTPRequestHandler) -> Reply:
            if handler.headers.get("If-None-Match") == etag:
                return Reply(304, b"", {"ETag": etag})
            return Reply(200, body, {"Content-Type": kind, "ETag": etag})

        return answer

    def style_css(self) -> str:
        return (
            f'@import "more.css";\n@import url("{self.cdn.url("/print.css")}") print;\n'
            "body { background: url(bg.png) }\n"
            '@font-face { font-family: F; src: url("font.woff2") format("woff2"), local(F) }\n'
            ".hero { background-image: image-set(url(set-1x.png) 1x, 'set-2x.png' 2x) }\n"
        )

    def _page(self, html: str, link: bool = False) -> Reply:
        headers = {"Content-Type": "text/html; charset=utf-8"}
        if link:
            headers["Link"] = f"<{self.cdn.url('/header.css')}>; rel=preload; as=style"
        return Reply(200, html.encode(), headers)

    def index_html(self) -> str:
        c = self.cdn.url
        return f"""<!doctype html>
<html><head>
<title>Embeds of every kind</title>
<link rel="stylesheet" href="{c("/style.css")}">
<link rel="icon" href="{c("/icon.png")}">
<link rel="apple-touch-icon" href="{c("/touch.png")}">
<link rel="preload" as="font" href="{c("/preload.woff2")}" crossorigin>
<link rel="modulepreload" href="{c("/module.js")}">
<link rel="manifest" href="{c("/manifest.json")}">
<script src="{c("/app.js")}"></script>
<script src="/local.js"></script>
<style>.box {{ background: url({c("/block-bg.png")}) }}</style>
<script>var later = "/nowhere.png";  /* a guess that is wrong: not missing */</script>
</head>
<body background="{c("/body-bg.png")}">
<h1>Every kind of embed</h1>
<img src="/logo.gif" alt="logo">
<img src="{c("/photo.jpg")}" srcset="{c("/photo.jpg")} 1x, {c("/photo-2x.jpg")} 2x">
<img data-src="{c("/lazy.jpg")}" data-srcset="{c("/lazy-2x.jpg")} 2x" alt="lazy">
<img data-original="{c("/original.jpg")}"><img data-lazy-src="{c("/lazy-src.jpg")}">
<picture><source srcset="{c("/wide.webp")}" type="image/webp"><img src="{c("/photo.jpg")}"></picture>
<video src="{c("/clip.mp4")}" poster="{c("/poster.jpg")}">
  <source src="{c("/alt.webm")}" type="video/webm"><track src="{c("/subs.vtt")}" kind="subtitles">
</video>
<audio src="{c("/sound.ogg")}"></audio>
<object data="{c("/doc.pdf")}" type="application/pdf"></object>
<embed src="{c("/flash.swf")}">
<form><input type="image" src="{c("/button.png")}" alt="go"></form>
<svg><image href="{c("/svg-image.png")}"/><use href="{c("/sprite.svg")}#icon"/></svg>
<div style="background-image: url('{c("/attr-bg.png")}')">styled</div>
<iframe src="{c("/frame.html")}"></iframe>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><a href="javascript:void(0)">x</a>
<p><a href="/other.html">another page</a></p>
</body></html>"""

    def other_html(self) -> str:
        return f"""<html><head><link rel="stylesheet" href="{self.cdn.url("/style.css")}">
<title>Another page</title></head><body><p>Another page, the same style.</p>
<img src="/logo.gif"></body></html>"""

    @property
    def embed_urls(self) -> set[str]:
        """Everything the pages embed, at any hop."""
        return set(self.bodies)

    @property
    def wrong_guesses(self) -> set[str]:
        """What an inline script names that is not there (fetched: a 404, never missing)."""
        return {self.pages.url("/nowhere.png")}

    @property
    def fetched(self) -> set[str]:
        """Every URL a crawl fetches as an embed."""
        return self.embed_urls | self.wrong_guesses

    def stop(self) -> None:
        self.pages.stop()
        self.cdn.stop()
