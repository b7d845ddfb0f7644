"""The Filters panel's work with the core: each runs on a job thread (``context.jobs``).

They take and return plain values (chain text, folders, counts, frozen dataclasses),
never Qt objects or peewee rows, so they can cross threads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recrawl.core.errors import InvalidArgument
from recrawl.core.filters import parse_chain
from recrawl.core.filters.nutch import Exported, export_nutch, import_nutch
from recrawl.core.policy import choices
from recrawl.core.policy.filter_impact import known_urls, preview
from recrawl.core.policy.filter_reach import Progress, Reach
from recrawl.core.watch.wake import wake_watcher


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
    text: str,
    base: str | None,
    project_dir: Path,
    progress: Progress | None = None,
) -> Applied:
    """Apply ``text`` unless the stored chain moved on since the editor loaded ``base``:
    stored and applied to the known pages (``progress(done, total)`` as they are
    judged), then the project's watcher, if one runs, is told."""
    if base is not None and choices.chain_text() != base:
        # e.g. new seeds added their hosts to the scope filter: writing the old draft
        # back would silently take them out again
        raise InvalidArgument(
            "the project's chain changed since it was loaded (adding seeds adds their hosts "
            "to the scope filter); Revert to see it, then make your edit again"
        )
    applied = choices.apply_chain(text, progress=progress)
    wake_watcher(project_dir)
    return Applied(len(applied.chain.filters), choices.chain_text(), applied.reach)


def import_folder(folder: str) -> str:
    """The chain (TOML) made of a Nutch conf folder's filter files, with the project's
    embed rules (which Nutch has none of)."""
    return import_nutch(Path(folder), embeds=choices.project_chain().embed_rules.filters)


def export_folder(text: str, folder: str) -> list[Exported]:
    """Write the enabled filters of ``text`` as Nutch files in ``folder``."""
    return export_nutch(parse_chain(text), Path(folder))
