"""The services' tests share a watcher's wake channel (tests/support/wakes.py)."""

from tests.support.wakes import woken

__all__ = ["woken"]
