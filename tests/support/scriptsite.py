"""A loopback site whose pages build their content with scripts: the HTML says
"Loading", a script fetches the stories from a JSON API, writes them into the page and
adds an image; a stylesheet and a font-free image make up the rest. The JSON is the
site's content: edit :attr:`ScriptSite.stories` and the pages change only in the DOM."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from tests.support.httpserver import Reply, TestServer
from tests.support.screenshots import png

SHELL = """<!doctype html>
<html><head><title>{title}</title><link rel="stylesheet" href="/style.css"></head>
<body><h1>{title}</h1><main id="stories"><p>Loading…</p></main>
<script src="/app.js"></script></body></html>"""

APP_JS = b"""
const name = location.pathname === "/" ? "index" : location.pathname.slice(1);
fetch("/api/" + name + ".json").then(r => r.json()).then(data => {
  const main = document.getElementById("stories");
  main.innerHTML = "";
  for (const story of data.stories) {
    const article = document.createElement("article");
    const h = document.createElement("h2");
    h.textContent = story.title;
    const p = document.createElement("p");
    p.textContent = story.text;
    article.append(h, p);
    if (story.link) {
      const a = document.createElement("a");
      a.href = story.link;
      a.textContent = "more";
      article.append(a);
    }
    main.append(article);
  }
  const img = document.createElement("img");
  img.src = "/img/" + name + ".png";
  img.alt = "picture";
  main.append(img);
});
"""

#: Each page's picture, added by its script: a small solid PNG.
PICTURE = png(4, 4, (200, 30, 30, 255))

STYLE = b"body { font-family: sans-serif; background: #fafafa } article { margin: 1em }"


@dataclass
class ScriptSite:
    server: TestServer
    #: Each page's stories, by page name ("index" is "/"): (title, text, link or None).
    stories: dict[str, list[tuple[str, str, str | None]]] = field(default_factory=dict)

    def url(self, path: str = "/") -> str:
        return self.server.url(path)

    def add_page(self, name: str, stories: list[tuple[str, str, str | None]]) -> None:
        self.stories[name] = stories
        path = "/" if name == "index" else f"/{name}"
        self.server.html(path, SHELL.format(title=name.title()))
        self.server.routes[f"/api/{name}.json"] = lambda handler, name=name: self._json(name)
        self.server.routes[f"/img/{name}.png"] = Reply(200, PICTURE, {"Content-Type": "image/png"})

    def _json(self, name: str) -> Reply:
        data = {
            "stories": [
                {"title": title, "text": text, "link": link}
                for title, text, link in self.stories[name]
            ]
        }
        body = json.dumps(data).encode("utf-8")
        return Reply(200, body, {"Content-Type": "application/json"})


def script_site(server: TestServer, pages: int = 1) -> ScriptSite:
    """The site with ``pages`` pages: the index links (by script) to the others."""
    server.html("/robots.txt", "User-agent: *\nAllow: /\n")
    server.routes["/app.js"] = Reply(200, APP_JS, {"Content-Type": "text/javascript"})
    server.routes["/style.css"] = Reply(200, STYLE, {"Content-Type": "text/css"})
    site = ScriptSite(server)
    others = [f"story{n}" for n in range(1, pages)]
    site.add_page(
        "index",
        [("Harbour news", "The harbour wall will close for repairs.", None)]
        + [(f"Story {name}", f"Text of {name}.", f"/{name}") for name in others],
    )
    for name in others:
        site.add_page(name, [(f"Story {name}", f"The whole of {name}, told by script.", None)])
    return site
