"""Telling a project's watcher that something it waits on changed.

Whoever changes the seeds, the filter chain, the schedule or the crawl settings of a
project calls :func:`wake_watcher` afterwards, so a sleeping watcher looks at what is due
now instead of at its next due page.
"""

from __future__ import annotations

from pathlib import Path


def wake_watcher(project_dir: Path) -> bool:
    """Wake the project's watcher, if one runs; whether one was told."""
    return False
