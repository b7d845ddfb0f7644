"""Nutch's own URL filter files ⇄ Recrawl chains (docs/design.md §6).

Each Nutch plugin reads one file; each file becomes one ``[[filter]]`` whose ``rules``
are the file's text exactly, so rule line numbers are the file's line numbers.

Nutch runs every URL filter plugin and a URL must pass them all; nothing short-circuits
in Nutch, so the order only changes speed and which filter is named for a reject. The
default order puts the cheap, decisive rejections first (suffixes, the deny list), then
the scope (domains), then the pattern filters: ``suffix, domain-deny, domain, regex,
prefix, automaton``. (Nutch's own default, ``urlfilter.order`` empty, is plugin loading
order, which is not defined, so it cannot be reproduced.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from recrawl.core.errors import InvalidArgument
from recrawl.core.filters.chain import Chain, Filter, build_filter, parse_chain
from recrawl.core.filters.kinds import KINDS
from recrawl.core.textfile import read_text

DEFAULT_ORDER = ("suffix", "domain-deny", "domain", "regex", "prefix", "automaton")

#: The file (base) names each kind is read from; the first is the one export writes.
#: Nutch's deny-list plugin reads ``domaindenylist-urlfilter.txt`` (written on export);
#: the hyphenated spelling ``domain-denylist-urlfilter.txt`` is read too.
FILE_NAMES: dict[str, tuple[str, ...]] = {
    "suffix": ("suffix-urlfilter",),
    "regex": ("regex-urlfilter",),
    "prefix": ("prefix-urlfilter",),
    "automaton": ("automaton-urlfilter",),
    "domain": ("domain-urlfilter",),
    "domain-deny": ("domaindenylist-urlfilter", "domain-denylist-urlfilter"),
}

TEMPLATE = ".template"


def parse_order(text: str | None) -> list[str] | None:
    """``suffix,regex,...`` → kinds; InvalidArgument naming an unknown kind."""
    if text is None:
        return None
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise InvalidArgument(
            f"unknown filter kind {unknown[0]!r} in --order (known: {', '.join(KINDS)})"
        )
    if len(set(kinds)) != len(kinds):
        raise InvalidArgument(f"--order names a kind twice: {text!r}")
    return kinds


def _full_order(order: list[str] | None) -> list[str]:
    """The kinds to import, in order: all of them in the default order, or those
    ``order`` names, in its order (the others are left out: :func:`left_out`)."""
    if order is None:
        return list(DEFAULT_ORDER)
    for kind in order:
        if kind not in KINDS:
            raise InvalidArgument(f"unknown filter kind {kind!r} (known: {', '.join(KINDS)})")
    return list(dict.fromkeys(order))


def left_out(conf_dir: Path, order: list[str] | None) -> list[tuple[str, Path]]:
    """(kind, file) of the filter files in ``conf_dir`` that an import in ``order``
    leaves out: those of the kinds it does not name (none without an order)."""
    if order is None or not Path(conf_dir).is_dir():
        return []
    return [
        (kind, path)
        for kind in DEFAULT_ORDER
        if kind not in order
        for _, path in kind_files(Path(conf_dir), kind)
    ]


def kind_files(conf_dir: Path, kind: str) -> list[tuple[str, Path]]:
    """(filter name, file) for one kind: ``X.txt`` (else ``X.txt.template``), then the
    numbered extra files export writes (``X-2.txt``, ``X-3.txt``, ...)."""
    found: list[tuple[str, Path]] = []
    for base in FILE_NAMES[kind]:
        for candidate in (conf_dir / f"{base}.txt", conf_dir / f"{base}.txt{TEMPLATE}"):
            if candidate.is_file():
                found.append((base, candidate))
                break
        if found:
            extra = re.compile(re.escape(base) + r"-(\d+)\.txt")
            numbered = sorted(
                (int(m.group(1)), p)
                for p in conf_dir.iterdir()
                if (m := extra.fullmatch(p.name)) and p.is_file()
            )
            found += [(p.name[: -len(".txt")], p) for _, p in numbered]
            break
    return found


def import_nutch(
    conf_dir: Path, order: list[str] | None = None, embeds: Sequence[Filter] = ()
) -> str:
    """The chain (TOML) made of the Nutch filter files present in ``conf_dir``, with the
    embed rules ``embeds`` (Nutch has none: the project's own are kept). ``order``: only
    the files of those kinds, in that order (None: every kind, in the default order).

    Raises InvalidArgument when there is no such folder or no filter file in it, and
    ChainError quoting the file, the line number and the line when a file does not parse.
    """
    conf_dir = Path(conf_dir)
    if not conf_dir.is_dir():
        raise InvalidArgument(f"no Nutch conf folder at {conf_dir}")
    if order is not None and not order:
        raise InvalidArgument("--order names no kind of filter (e.g. --order regex,prefix)")
    filters: list[Filter] = []
    for kind in _full_order(order):
        for name, path in kind_files(conf_dir, kind):
            table = {"kind": kind, "name": name, "rules": read_text(path)}
            filters.append(build_filter(len(filters), table, where=str(path)))
    if not filters:
        kinds = FILE_NAMES.values() if order is None else [FILE_NAMES[k] for k in order]
        names = ", ".join(f"{n[0]}.txt" for n in kinds)
        raise InvalidArgument(f"no Nutch URL filter file in {conf_dir} (looked for {names})")
    text = Chain(filters, embeds).to_toml()
    parse_chain(text)  # what we hand back always loads
    return text


@dataclass(frozen=True)
class Exported:
    index: int
    name: str
    path: Path | None  # None: not written (a disabled filter)


def export_nutch(chain: Chain, out_dir: Path) -> list[Exported]:
    """Write each enabled filter to its Nutch file in ``out_dir``.

    A second (third, ...) filter of one kind goes to ``X-2.txt`` (``X-3.txt``, ...),
    which Nutch does not read but :func:`import_nutch` does. Disabled filters are not
    written (Nutch has no such thing): they come back with ``path=None``.
    """
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InvalidArgument(f"cannot create {out_dir}: {exc.strerror}") from None
    seen: dict[str, int] = {}
    out: list[Exported] = []
    for index, flt in enumerate(chain.filters):
        if not flt.enabled:
            out.append(Exported(index, flt.name, None))
            continue
        count = seen[flt.kind] = seen.get(flt.kind, 0) + 1
        base = FILE_NAMES[flt.kind][0]
        path = out_dir / (f"{base}.txt" if count == 1 else f"{base}-{count}.txt")
        try:
            path.write_text(flt.rules_text, encoding="utf-8")
        except OSError as exc:
            raise InvalidArgument(f"cannot write {path}: {exc.strerror}") from None
        out.append(Exported(index, flt.name, path))
    return out
