"""Changes to files in some folders, as Linux's inotify reports them, for tests to wait on.

A test that must act at "the k-th thing a process did to its files" reads events one by
one instead of polling or sleeping. Linux only (ctypes on libc's inotify calls).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import struct
import sys
from pathlib import Path

IN_MODIFY = 0x002
IN_CLOSE_WRITE = 0x008
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_ISDIR = 0x40000000
CHANGES = IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE

_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len


def available() -> bool:
    return sys.platform.startswith("linux")


class FolderEvents:
    """Changes in the folders given, and in folders created in them meanwhile."""

    def __init__(self, *folders: Path) -> None:
        self._libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self._libc.inotify_init1(os.O_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._folders: dict[int, Path] = {}
        for folder in folders:
            self.watch(folder)
            for sub in folder.iterdir():
                if sub.is_dir():
                    self.watch(sub)

    def watch(self, folder: Path) -> None:
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), CHANGES)
        if wd >= 0:  # a folder gone already is no longer worth watching
            self._folders[wd] = folder

    def next_batch(self, also: int) -> list[tuple[Path, int]] | None:
        """Wait for the next changes, or for ``also`` (a pipe's end) to be readable.

        Returns (path, mask) pairs, or None when ``also`` became readable first.
        """
        ready, _, _ = select.select([self.fd, also], [], [])
        if self.fd not in ready:
            return None
        data = os.read(self.fd, 65536)
        events = []
        at = 0
        while at < len(data):
            wd, mask, _, size = _HEADER.unpack_from(data, at)
            name = data[at + _HEADER.size : at + _HEADER.size + size].rstrip(b"\0")
            at += _HEADER.size + size
            folder = self._folders.get(wd)
            if folder is None:
                continue
            path = folder / os.fsdecode(name)
            if mask & IN_CREATE and mask & IN_ISDIR:
                self.watch(path)
            events.append((path, mask))
        return events

    def close(self) -> None:
        os.close(self.fd)
