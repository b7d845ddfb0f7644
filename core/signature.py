"""Signatures (DESIGN.md §5): the pluggable "page equality" that decides a change."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol

from core.errors import InvalidArgument
from core.schedule import Change


class Signature(Protocol):
    kind: str

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        """The page's signature from its decoded payload (and text and links when HTML)."""
        ...

    def same(self, old: bytes, new: bytes) -> bool:
        """Whether two signatures mean the content did not change."""
        ...


@dataclass(frozen=True)
class Md5Signature:
    """MD5 of the decoded payload: any byte changed is a change."""

    kind: str = "md5"

    def compute(self, payload: bytes, text: str | None, links: tuple[str, ...]) -> bytes:
        return hashlib.md5(payload, usedforsecurity=False).digest()

    def same(self, old: bytes, new: bytes) -> bool:
        return old == new


SIGNATURES: dict[str, type] = {"md5": Md5Signature}


def make_signature(kind: str = "md5") -> Signature:
    try:
        return SIGNATURES[kind]()
    except KeyError:
        raise InvalidArgument(
            f"unknown signature {kind!r} (known: {', '.join(sorted(SIGNATURES))})"
        ) from None


def compare(signature: Signature, old: bytes | None, old_kind: str | None, new: bytes) -> Change:
    """Changed/unchanged against the stored signature; unknown without a comparable one."""
    if old is None or old_kind != signature.kind:
        return Change.UNKNOWN
    return Change.UNCHANGED if signature.same(old, new) else Change.CHANGED
