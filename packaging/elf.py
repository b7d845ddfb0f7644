"""ELF files as the dynamic loader sees them, and stripping that leaves that unchanged.

Linux only, 64-bit little-endian (x86-64 and arm64): the bundle's platforms. A file in
another format is left as it is.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PT_LOAD = 1
#: where the ELF header says where the section table is (e_shoff) and how many sections
#: it holds (e_shnum, e_shstrndx): the loader never reads them, strip rewrites them
SECTION_TABLE_FIELDS = ((0x28, 0x30), (0x3C, 0x40))


@dataclass(frozen=True)
class Segment:
    """A PT_LOAD program header: ``filesz`` bytes at ``offset`` mapped at ``vaddr``."""

    offset: int
    vaddr: int
    filesz: int


def is_elf64(data: bytes) -> bool:
    """64-bit, little-endian ELF (class 2, data 1)."""
    return data[:4] == b"\x7fELF" and data[4:6] == b"\x02\x01"


def program_headers(data: bytes) -> list[tuple[int, ...]]:
    """Every program header, as (type, flags, offset, vaddr, paddr, filesz, memsz, align)."""
    (phoff,) = struct.unpack_from("<Q", data, 0x20)
    entry_size, count = struct.unpack_from("<HH", data, 0x36)
    return [struct.unpack_from("<IIQQQQQQ", data, phoff + i * entry_size) for i in range(count)]


def segments(data: bytes) -> list[Segment]:
    return [Segment(h[2], h[3], h[5]) for h in program_headers(data) if h[0] == PT_LOAD]


def loaded_bytes(data: bytes) -> list[bytes]:
    """The bytes each loadable segment maps, with the ELF header's section-table fields
    blanked (they sit in the first segment but nothing at run time reads them)."""
    image = bytearray(data)
    for start, end in SECTION_TABLE_FIELDS:
        image[start:end] = bytes(end - start)
    return [bytes(image[s.offset : s.offset + s.filesz]) for s in segments(data)]


def file_offset(data: bytes, vaddr: int) -> int:
    """Where in the file the byte the loader maps at ``vaddr`` is."""
    for s in segments(data):
        if s.vaddr <= vaddr < s.vaddr + s.filesz:
            return s.offset + vaddr - s.vaddr
    raise ValueError(f"no loadable segment holds address {vaddr:#x}")


def strip_unneeded(files: Iterable[Path]) -> tuple[list[Path], int, list[Path]]:
    """Strips symbol tables and debug information from each ELF file in place, but only
    where the stripped file gives the loader exactly the same program headers and mapped
    bytes: what a program sees at run time cannot change. (Libraries rewritten by
    patchelf, as auditwheel leaves them in ``numpy.libs`` for example, carry segments that
    strip lays out anew, and some then no longer load.) Returns the files stripped, the
    bytes saved, and the files left as they were because stripping would change them."""
    stripped_files: list[Path] = []
    saved, refused = 0, []
    with tempfile.TemporaryDirectory(prefix="recrawl-strip-") as tmp:
        copy = Path(tmp) / "stripped"
        for path in files:
            with path.open("rb") as file:
                if not is_elf64(file.read(6)):
                    continue
            original = path.read_bytes()
            shutil.copyfile(path, copy)
            subprocess.run(["strip", "--strip-unneeded", str(copy)], check=True)
            stripped = copy.read_bytes()
            if len(stripped) >= len(original):
                continue
            same = program_headers(stripped) == program_headers(original) and loaded_bytes(
                stripped
            ) == loaded_bytes(original)
            if not same:
                refused.append(path)
                continue
            shutil.copyfile(copy, path)  # keeps the original's permissions
            stripped_files.append(path)
            saved += len(original) - len(stripped)
    return stripped_files, saved, refused
