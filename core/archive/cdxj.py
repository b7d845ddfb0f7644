"""CDXJ index lines: ``<SURT> <14-digit timestamp> <JSON>``, sorted bytewise."""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit


def surt(url: str) -> str:
    """The standard SURT key, ``com,example)/a?a=2&b=1``: the ``surt`` package's, as pywb
    computes it to look a URL up and cdxj-indexer to index one (host reversed, no scheme,
    ``www``/``www2`` dropped, query sorted, session ids stripped, escapes normalised).

    A lookup of any other key misses, so the indexes carry no key of their own making.
    """
    try:
        key = _standard_surt()(url)
    except Exception:  # cdxj-indexer indexes a URL the package chokes on under itself
        return url
    return key


@cache
def _standard_surt() -> Callable[[str], str]:
    # loaded when a key is first needed, and without tldextract (below)
    if "tldextract" not in sys.modules:
        sys.modules["tldextract"] = _TldextractOnFirstUse("tldextract")
    from surt import surt as standard

    return standard  # type: ignore[no-any-return]


class _TldextractOnFirstUse(types.ModuleType):
    """Stands for tldextract until something uses it. The surt package imports it (and
    through it requests: 0.1 s, half a quick command's start-up such as ``show --at``)
    for its public-suffix helpers, which keys never call."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get("tldextract") is self:
            del sys.modules["tldextract"]
        return getattr(importlib.import_module("tldextract"), name)


def legacy_surt(url: str) -> str:
    """The key indexes carried before they were re-keyed (:mod:`.index_keys`): only
    looked for until a project's indexes are upgraded."""
    parts = urlsplit(url)
    host = (parts.hostname or "").strip(".")
    labels = host.split(".")
    if labels and labels[0] == "www":
        labels = labels[1:]
    key = ",".join(reversed(labels))
    if parts.port and parts.port not in (80, 443):
        key += f":{parts.port}"
    path = parts.path or "/"
    key += ")" + path.lower()
    if parts.query:
        key += "?" + parts.query.lower()
    return key


def cdxj_line(url: str, date: datetime, fields: dict[str, Any]) -> str:
    return _line(surt(url), date.strftime("%Y%m%d%H%M%S"), {"url": url, **fields})


def _line(key: str, stamp: str, fields: dict[str, Any]) -> str:
    return f"{key} {stamp} {json.dumps(fields, separators=(', ', ': '), ensure_ascii=False)}"


# Offsets and lengths are read straight from the lines: a compaction reads and rewrites
# every line of the segments it folds, and a JSON round trip per line cost more than
# copying the records. Lines this module wrote end with length, offset and filename in
# that order (one regex over a whole file finds them); other lines are searched in their
# JSON part, where every quote inside a string is escaped, so the patterns only ever
# match the real fields.
_OUR_TAILS = re.compile(r'"length": (\d+), "offset": (\d+), "filename": "[^"\\\n]*"\}$', re.M)
_OFFSET = re.compile(r'"offset":\s*(\d+)')
_OFFSET_KEY = '"offset": '
_LENGTH = re.compile(r'"length":\s*(\d+)')


class IndexEntry(NamedTuple):
    """One CDXJ line and where its record sits; other fields are parsed when asked for."""

    line: str
    offset: int
    length: int

    @property
    def stamp(self) -> str:
        return self.line.split(" ", 2)[1]

    def fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = json.loads(self.line.split(" ", 2)[2])
        return fields


def parse_line(line: str) -> IndexEntry:
    """Raises ValueError for a line that is not ``<key> <stamp> <json>`` with both fields."""
    line = line.rstrip("\n")
    parts = line.split(" ", 2)
    if len(parts) != 3:
        raise ValueError(f"not a CDXJ line: {line[:80]!r}")
    payload = parts[2]
    offset, length = _OFFSET.search(payload), _LENGTH.search(payload)
    if offset is None or length is None:
        raise ValueError(f"no offset or length in {line[:80]!r}")
    return IndexEntry(line, int(offset.group(1)), int(length.group(1)))


@dataclass
class Index:
    """A CDXJ file as columns, in record (offset) order rather than key order.

    Columns, not one object per line: a compaction reads every line of every segment it
    folds, and per-line objects cost more than copying the records they describe.
    """

    lines: list[str]
    offsets: list[int]
    lengths: list[int]
    #: Every line ends with our own length/offset/filename tail (relocated without JSON).
    ours: bool


def read_index(path: Path) -> Index:
    with open(path, encoding="utf-8", newline="\n") as fh:
        return parse_index(fh.read())


def parse_index(text: str) -> Index:
    # only "\n" ends a line: str.splitlines() would also split at U+0085 or U+2028
    # inside a field (a server's odd Content-Type), where the regex does not
    lines = [line for line in text.split("\n") if line.strip()]
    tails = _OUR_TAILS.findall(text)
    ours = len(tails) == len(lines)  # at most one tail per line: every line has one
    if ours:
        offsets = [int(offset) for _, offset in tails]
        lengths = [int(length) for length, _ in tails]
    else:
        entries = [parse_line(line) for line in lines]
        offsets = [e.offset for e in entries]
        lengths = [e.length for e in entries]
    order = sorted(range(len(lines)), key=offsets.__getitem__)
    return Index(
        [lines[i] for i in order], [offsets[i] for i in order], [lengths[i] for i in order], ours
    )


def relocated_lines(lines: list[str], offsets: list[int], filename: str, ours: bool) -> list[str]:
    """The lines for the same records copied to ``offsets`` of ``filename``."""
    if ours:
        name = json.dumps(filename, ensure_ascii=False)
        return [
            f'{line[: line.rfind(_OFFSET_KEY)]}"offset": {offset}, "filename": {name}}}'
            for line, offset in zip(lines, offsets, strict=True)
        ]
    out = []
    for line, offset in zip(lines, offsets, strict=True):
        key, stamp, payload = line.split(" ", 2)
        fields = json.loads(payload)
        fields.update(offset=offset, filename=filename)
        out.append(_line(key, stamp, fields))
    return out


def write_index(path: Path, lines: list[str]) -> None:
    """Write sorted lines to ``path`` and make them durable (the caller renames)."""
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        if lines:
            fh.write("\n".join(sorted(lines)) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
