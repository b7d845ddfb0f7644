"""Reading a user's text file (seed lists, chains, Nutch files) with a clear error."""

from __future__ import annotations

from pathlib import Path

from recrawl.core.errors import InvalidArgument


def read_text(path: Path, what: str = "file") -> str:
    """The UTF-8 text of ``path``; InvalidArgument saying what was wrong otherwise."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(f"cannot read {what} {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidArgument(f"{what} {path} is not UTF-8 text") from None
