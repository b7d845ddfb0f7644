"""A capture's text as a diff compares it: a page's main text, a text file's lines.

A browser capture's text is its rendered DOM's (docs/design.md §16), kept beside it.

The payload (a revisit's: the response it refers to) is decoded a piece at a time and
read up to :data:`~recrawl.core.config.VIEW`'s ``content_cap`` decoded bytes, so a decompression bomb or a huge page costs
that much at most; the markup is then parsed only up to the crawl's parse bounds
(:func:`recrawl.core.content.maintext.bounded`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from recrawl.core.archive.captures import CaptureRef, capture_payload
from recrawl.core.archive.rendering import DOM_MIME, rendering_at
from recrawl.core.config import VIEW
from recrawl.core.content.maintext import MainText, payload_text
from recrawl.core.content.text_rule import TextRule
from recrawl.core.errors import PayloadError
from recrawl.core.net.decoding import PayloadDecoder


@dataclass(frozen=True)
class CaptureText:
    url: str
    date: datetime
    content_type: str
    text: MainText
    #: Something the reader should know (the payload was cut at the cap).
    note: str | None


def capture_text(
    project_dir: Path, url: str, capture: CaptureRef, rule: TextRule | None = None
) -> CaptureText:
    """The text of ``capture`` (a capture of ``url``), what the change ``rule`` leaves of
    it if one is given; raises :class:`NotText` for a payload that is no text and
    :class:`PayloadError` for one that cannot be decoded."""
    rendered = rendering_at(capture.path, capture.offset).dom
    if rendered is not None:  # a browser capture: what the page showed, not its source
        body = rendered[: VIEW.content_cap]
        cut = len(rendered) > VIEW.content_cap
        note = (
            f"only the first {VIEW.content_cap >> 20} MiB of the page are compared" if cut else None
        )
        text = payload_text(body, DOM_MIME, url, rule)
        return CaptureText(url, capture.date, DOM_MIME, text, note)
    record = capture_payload(project_dir, capture)
    headers = {name.lower(): value for name, value in record.http_headers}
    decoder = PayloadDecoder(record.body, headers.get("content-encoding"), VIEW.content_cap)
    body = b"".join(decoder)
    if decoder.error is not None:
        raise PayloadError(f"{decoder.error} ({url}, captured {capture.date.isoformat()}Z)")
    content_type = headers.get("content-type", "")
    note = decoder.note
    if decoder.cut:
        note = f"only the first {VIEW.content_cap >> 20} MiB of the payload are compared"
    text = payload_text(body, content_type, url, rule)
    return CaptureText(url, capture.date, content_type, text, note)
