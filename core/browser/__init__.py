"""Browser capture (docs/design.md §16): pages loaded in the system's Chromium.

The browser only renders: every request a page makes is paused in the browser and
handed to the crawl (:class:`~.load.RequestHandler`), which fetches it with its own
client, robots.txt and embed rules, archives it, and answers the browser with the
body. What the browser itself gives back is the page once it has settled
(:class:`~.load.Rendering`): its DOM, its title and a screenshot.
"""
