"""Re-keying a project's CDXJ indexes with the standard SURT, once (issue 16).

Indexes written before Recrawl keyed them with the ``surt`` package carry a key of its
own making (``legacy_surt``) and are sorted by it: pywb binary-searches them with the
standard key and misses every URL whose two keys differ (a query string, a ``www2.``
host, a percent-escape). Store migration 11 marks such a project (the ``index_keys``
setting says ``legacy``); the first writer to hold the project (recovery: a crawl, a
compaction, or opening it while nobody writes) rewrites every index, then records
``surt``.

Each index is rewritten on its own: keys recomputed from its lines' ``"url"``, lines
sorted bytewise, written to ``<name>.tmp``, made durable, renamed over the old file. A
kill leaves every index whole (old keys or new), and re-keying an index already
re-keyed changes nothing, so the next writer simply goes through them all again; until
then lookups by URL try both keys (:func:`recrawl.core.archive.captures.find_captures`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from recrawl.core import store
from recrawl.core.archive.cdxj import surt, write_index
from recrawl.core.archive.segments import index_files
from recrawl.core.archive.warc import fsync_dir
from recrawl.core.errors import WarcError

# the stamp and the JSON after the key: found from the left, so that an old key with a
# space in it (an unescaped one in a URL's path) is taken whole
_REST = re.compile(r" (\d{14}) (\{.*)$")


def needs_rekey() -> bool:
    keys: str = store.get_setting(store.INDEX_KEYS, store.STANDARD_KEYS)
    return keys != store.STANDARD_KEYS


def rekey_indexes(project_dir: Path) -> list[str]:
    """Re-key every index still carrying old keys, unless done; returns what to say.

    The caller holds the project lock (and on PostgreSQL the compaction lock: a
    compaction rewrites indexes too)."""
    if not needs_rekey():
        return []
    try:
        changed = sum(rekey_index(index) for index in index_files(project_dir))
    except OSError as exc:
        # what is done stays done, and every index is whole: the next writer goes on
        raise WarcError(f"could not re-key the index {exc.filename}: {exc.strerror}") from None
    store.set_setting(store.INDEX_KEYS, store.STANDARD_KEYS)
    if not changed:
        return []
    return [
        f"re-keyed {changed} CDXJ {'index' if changed == 1 else 'indexes'} with the standard "
        "SURT (pywb's and cdxj-indexer's), once"
    ]


def rekey_index(path: Path) -> bool:
    """Rewrite one index with standard keys, sorted; False if it had them already."""
    with open(path, encoding="utf-8", newline="\n") as fh:
        old = [line for line in fh.read().split("\n") if line.strip()]
    new = [rekeyed_line(line) for line in old]
    new.sort()
    if new == old:
        return False
    tmp = path.with_name(path.name + ".tmp")
    write_index(tmp, new)
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return True


def rekeyed_line(line: str) -> str:
    """The line under the standard key of its ``"url"``."""
    rest = _REST.search(line)
    if rest is None:
        return line  # not a CDXJ line (no reader takes it either): left as it is
    try:
        url = json.loads(rest.group(2))["url"]
    except (ValueError, KeyError, TypeError):
        return line
    if not isinstance(url, str):
        return line
    return f"{surt(url)}{line[rest.start() :]}"
