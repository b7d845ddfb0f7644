"""CDXJ index lines: ``<SURT> <14-digit timestamp> <JSON>``, sorted bytewise."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit


def surt(url: str) -> str:
    """Sort-friendly URL key: ``com,example)/path?query`` (host reversed, no scheme, no www)."""
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
    payload = json.dumps({"url": url, **fields}, separators=(", ", ": "), ensure_ascii=False)
    return f"{surt(url)} {date.strftime('%Y%m%d%H%M%S')} {payload}"
