"""The Filters panel's work with the core: each runs on a job thread (``context.jobs``).

They take and return plain values (chain text, folders, counts, frozen dataclasses),
never Qt objects or peewee rows, so they can cross threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recrawl.core.filters import parse_chain
from recrawl.core.filters.nutch import Exported, export_nutch, import_nutch
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview
from recrawl.core.policy.filter_reach import Progress, Reach
from recrawl.core.services import Services


def load() -> str:
    """The project's chain, as TOML."""
    return choices.chain_text()


def preview_edit(text: str) -> dict[str, Any]:
    """What applying ``text`` would change over every known URL (``filter preview``'s
    answer), plus ``known``: how many URLs that is."""
    urls = known_urls()
    result = preview(choices.project_chain(), parse_chain(text), urls)
    return {**result, "known": len(urls)}


@dataclass(frozen=True)
class Applied:
    """What Apply did: the chain's filters, the chain as stored, the known pages changed."""

    filters: int
    stored: str
    reach: Reach


def apply(
    services: Services,
    text: str,
    base: str | None,
    progress: Progress | None = None,
) -> Applied:
    """Apply ``text`` unless the stored chain moved on since the editor loaded ``base``
    (:meth:`recrawl.core.services.chain.ChainService.apply`)."""
    applied = services.chain.apply(text, base=base, progress=progress)
    return Applied(len(applied.chain.filters), choices.chain_text(), applied.reach)


def import_folder(folder: str) -> str:
    """The chain (TOML) made of a Nutch conf folder's filter files, with the project's
    embed rules (which Nutch has none of)."""
    return import_nutch(Path(folder), embeds=choices.project_chain().embed_rules.filters)


def export_folder(text: str, folder: str) -> list[Exported]:
    """Write the enabled filters of ``text`` as Nutch files in ``folder``."""
    return export_nutch(parse_chain(text), Path(folder))
