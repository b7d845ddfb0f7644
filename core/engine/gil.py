"""How often the interpreter lock changes hands while a crawl runs.

The crawl's loop thread shares the lock with its store thread (and, in the app, the
window's thread). When the loop comes back from a system call (a socket write, a pipe
read) while another thread runs Python code, it waits for that thread to be made to let
go: after ``sys.getswitchinterval()``, 5 ms by default. The loop makes several such
calls per page, at hundreds of pages a second, so those waits add up; 1 ms keeps each
short, for a little more switching.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

#: The longest a thread waits for the lock another one holds, during a crawl.
CRAWL_SWITCH_INTERVAL_S = 0.001


@contextlib.contextmanager
def quick_handoffs() -> Iterator[None]:
    """Shorten the switch interval for the block (never lengthen it), then restore it."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, CRAWL_SWITCH_INTERVAL_S))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)
