"""ICU's data cut to what Qt reads (Linux): 32 MB of the bundle's 181 were ICU's data.

Qt Core links ICU, and ICU's data (``libicudata.so.<N>``, one ``icudt<N>_dat`` symbol
holding a package of items) serves every ICU service. Qt calls four: collation
(``ucol_*``), converters (``ucnv_*``), time zone names and calendars (``ucal_*``) and case
mapping (``u_strTo*``). This rebuilds the library without the data trees that none of
them reads (:data:`REMOVED_TREES`) and checks, before the bundle takes it:

1. the bundle's binaries call no ICU function beyond :data:`QT_ICU_CALLS` (a Qt that
   starts using, say, break iterators keeps the whole data until this is reviewed);
2. ``icupkg`` (ICU's own tool, Debian's ``icu-devtools``) removes the trees and finds no
   kept item depending on a removed one; the new package holds every other item, byte
   for byte;
3. Qt answers the same with both libraries (packaging/icu_probe.py: collation in every
   locale Qt knows, every converter, every time zone's names in nine locales).

Without ``icupkg``, ``as`` or ``ld``, or if a check fails, the bundle keeps ICU's data
whole and the build says why.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from elf import file_offset

#: Every ICU function Qt 6.11's libQt6Core imports (ICU's version suffix left off).
QT_ICU_CALLS = frozenset(
    {
        # collation: QCollator, QString::localeAwareCompare (sorting in file dialogs)
        "ucol_open", "ucol_close", "ucol_setAttribute", "ucol_strcoll", "ucol_getSortKey",
        # converters: QStringConverter for the encodings Qt does not implement itself
        "ucnv_open", "ucnv_close", "ucnv_reset", "ucnv_getName", "ucnv_getStandardName",
        "ucnv_countAvailable", "ucnv_getAvailableName", "ucnv_getMaxCharSize",
        "ucnv_toUnicode", "ucnv_fromUnicode", "ucnv_toUCountPending",
        "ucnv_fromUCountPending", "ucnv_getToUCallBack", "ucnv_setToUCallBack",
        "ucnv_getFromUCallBack", "ucnv_setFromUCallBack", "ucnv_cbToUWriteUChars",
        "ucnv_cbFromUWriteUChars", "UCNV_TO_U_CALLBACK_SUBSTITUTE",
        "UCNV_FROM_U_CALLBACK_SUBSTITUTE",
        # time zones: QTimeZone's display names and canonical ids
        "ucal_open", "ucal_close", "ucal_getCanonicalTimeZoneID", "ucal_getTimeZoneDisplayName",
        # case mapping for a locale: QLocale::toUpper, toLower
        "u_strToLower", "u_strToUpper",
    }
)  # fmt: skip
#: The data trees left out (15 MB of ICU 73's 32), each serving an ICU service that no
#: function above uses. Kept: collation (coll/), time zone names (zone/), converters and
#: their aliases, the locales' own data and the core items (properties, normalization).
REMOVED_TREES = {
    "brkitr": "break iterators and their dictionaries (ubrk_*)",
    "curr": "currency names (ucurr_*, number formatting)",
    "lang": "language display names (uldn_*, uloc_getDisplayLanguage)",
    "rbnf": "spelled-out numbers (RuleBasedNumberFormat)",
    "region": "region display names (uldn_*, uloc_getDisplayCountry)",
    "translit": "transliteration (utrans_*)",
    "unit": "measurement units (unumf_*, MeasureFormat)",
}
TOOLS = ("icupkg", "as", "ld", "nm", "objdump")


class Refused(Exception):
    """A check failed: the bundle keeps ICU's data whole."""


Entry = tuple[str, str, str]  # PyInstaller's (path in the bundle, source, typecode)


def with_trimmed_data(binaries: list[Entry], work: Path) -> list[Entry]:
    """PyInstaller's binaries, ``libicudata.so.<N>`` replaced by the trimmed library."""
    found = [
        e for e in binaries if Path(e[0]).name.startswith("libicudata.so.") and e[2] != "SYMLINK"
    ]
    if len(found) != 1:
        return binaries
    [(dest, source, kind)] = found
    users = [Path(e[1]) for e in binaries if e[2] != "SYMLINK" and e[0] != dest]
    try:
        trimmed = trim(Path(source), users, work)
    except Refused as why:
        print(f"icu_data: ICU's data is bundled whole: {why}")
        return binaries
    return [(dest, str(trimmed), kind) if e[0] == dest else e for e in binaries]


def trim(library: Path, users: Iterable[Path], work: Path) -> Path:
    """Builds ``work/lib/<library's name>`` without :data:`REMOVED_TREES`; checks it."""
    if missing := [tool for tool in TOOLS if shutil.which(tool) is None]:
        raise Refused(f"no {', '.join(missing)} (Debian: apt-get install icu-devtools binutils)")
    version = library.name.rsplit(".", 1)[-1]
    if extra := icu_calls(users, version) - QT_ICU_CALLS:
        raise Refused(f"the bundle calls ICU functions not reviewed here: {sorted(extra)}")
    symbol = f"icudt{version}_dat"
    package = read_package(library, symbol)
    name = f"icudt{version}l"  # ICU's package name for little-endian ASCII data
    shutil.rmtree(work, ignore_errors=True)
    (work / "full").mkdir(parents=True)
    (work / "lib").mkdir()
    (work / "full" / f"{name}.dat").write_bytes(package)
    kept = remove_trees(work / "full" / f"{name}.dat", work / f"{name}.dat", name)
    trimmed = work / "lib" / library.name
    link_library(work / f"{name}.dat", symbol, soname(library), trimmed)
    compare_answers(library, trimmed)
    full, cut = len(package) / 1e6, (work / f"{name}.dat").stat().st_size / 1e6
    print(
        f"icu_data: ICU's data {full:.1f} -> {cut:.1f} MB ({kept} items; without "
        f"{', '.join(REMOVED_TREES)}); Qt's answers unchanged"
    )
    return trimmed


def icu_calls(binaries: Iterable[Path], version: str) -> set[str]:
    """The ICU functions the binaries import, except ICU's own libraries' calls."""
    files = [str(b) for b in binaries if not b.name.startswith("libicu")]
    suffix = f"_{version}"
    calls: set[str] = set()
    for start in range(0, len(files), 100):
        done = subprocess.run(
            ["nm", "-D", "--undefined-only", *files[start : start + 100]],
            capture_output=True,
            text=True,
        )
        calls |= {
            w[: -len(suffix)]
            for line in done.stdout.splitlines()
            for w in line.split()[-1:]
            if w.endswith(suffix)
        }
    return calls


def read_package(library: Path, symbol: str) -> bytes:
    """The data package the library exports as ``symbol``."""
    done = subprocess.run(
        ["nm", "-D", "-S", "--defined-only", str(library)],
        capture_output=True,
        text=True,
        check=True,
    )
    found = [line.split() for line in done.stdout.splitlines() if line.endswith(f" {symbol}")]
    if len(found) != 1:
        raise Refused(f"{library.name} exports no single {symbol}")
    address, size = int(found[0][0], 16), int(found[0][1], 16)
    data = library.read_bytes()
    start = file_offset(data, address)
    package = data[start : start + size]
    # the header: magic 0xda27, then UDataInfo: little-endian, ASCII, format "CmnD"
    if package[2:4] != b"\xda\x27" or package[8:10] != b"\0\0" or package[12:16] != b"CmnD":
        raise Refused(f"{symbol} in {library.name} is not a little-endian ICU data package")
    return package


def package_items(package: bytes) -> dict[str, bytes]:
    """A common-data package's items by name (``icudt73l/coll/root.res``), each with its
    bytes up to the next item (the table of contents lists them in file order)."""
    (toc,) = struct.unpack_from("<H", package, 0)  # items are placed after the header
    (count,) = struct.unpack_from("<I", package, toc)
    names, starts = [], []
    for i in range(count):
        name_at, data_at = struct.unpack_from("<II", package, toc + 4 + 8 * i)
        end = package.index(b"\0", toc + name_at)
        names.append(package[toc + name_at : end].decode("ascii"))
        starts.append(toc + data_at)
    if starts != sorted(starts):
        raise Refused("the package's items are not in file order")
    ends = [*starts[1:], len(package)]
    return {name: package[s:e] for name, s, e in zip(names, starts, ends, strict=True)}


def remove_trees(full: Path, out: Path, name: str) -> int:
    """``icupkg -r``: ``out`` (same package name) without the removed trees; checks that
    everything else is there unchanged. Returns the number of items kept."""
    before = package_items(full.read_bytes())
    removed = [n for n in before if n.split("/")[1] in REMOVED_TREES]
    listing = full.with_name("removed.txt")  # icupkg reads a list from a file named *.txt
    listing.write_text("".join(n.split("/", 1)[1] + "\n" for n in removed))
    # icupkg names the items after the output file: it must be called <name>.dat
    done = subprocess.run(
        ["icupkg", "-r", str(listing), str(full), str(out)], capture_output=True, text=True
    )
    if done.returncode != 0:  # e.g. a kept item depends on a removed one
        raise Refused(f"icupkg: {(done.stdout + done.stderr).strip()[-500:]}")
    after = package_items(out.read_bytes())
    expected = {n: item for n, item in before.items() if n not in removed}
    if after != expected or not all(n.startswith(f"{name}/") for n in after):
        raise Refused("icupkg's package does not hold exactly the kept items")
    return len(after)


def soname(library: Path) -> str:
    done = subprocess.run(
        ["objdump", "-p", str(library)], capture_output=True, text=True, check=True
    )
    for line in done.stdout.splitlines():
        if line.split()[:1] == ["SONAME"]:
            return line.split()[1]
    return library.name


def link_library(package: Path, symbol: str, name: str, out: Path) -> None:
    """A shared library exporting ``package`` as ``symbol``, as ICU builds its own."""
    source = out.with_suffix(".s")
    source.write_text(
        "\t.section .rodata\n"
        f"\t.globl {symbol}\n"
        f'\t.type {symbol}, "object"\n'
        "\t.balign 16\n"  # ICU reads the package in place: its header wants this alignment
        f"{symbol}:\n"
        f'\t.incbin "{package}"\n'
        f"\t.size {symbol}, . - {symbol}\n"
    )
    obj = out.with_suffix(".o")
    subprocess.run(["as", "--noexecstack", "-o", str(obj), str(source)], check=True)
    subprocess.run(
        ["ld", "-shared", "-z", "noexecstack", "-soname", name, "-o", str(out), str(obj)],
        check=True,
    )
    obj.unlink()
    source.unlink()


def compare_answers(library: Path, trimmed: Path) -> None:
    """Runs packaging/icu_probe.py with each library; their answers must be the same."""
    answers = [probe(None), probe(trimmed.parent)]
    libraries = [Path(a["library"]).resolve() for a in answers]
    if answers[0]["stderr"] != answers[1]["stderr"]:
        raise Refused(f"Qt warns without the trees: {answers[1]['stderr'].splitlines()[:3]}")
    if libraries != [library.resolve(), trimmed.resolve()]:
        raise Refused(f"the probe loaded {libraries}, not {library} and {trimmed}")
    full, cut = (a["answers"] for a in answers)
    if differ := [
        f"{kind}: {key}"
        for kind in full
        for key in full[kind]
        if full[kind][key] != cut.get(kind, {}).get(key)
    ]:
        raise Refused(f"Qt answers differently without the trees ({len(differ)}: {differ[:5]})")


def probe(library_dir: Path | None) -> dict:  # type: ignore[type-arg]  # the probe's JSON
    env = {**os.environ}
    if library_dir is not None:  # the loader searches LD_LIBRARY_PATH before Qt's RUNPATH
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            [str(library_dir), *filter(None, [env.get("LD_LIBRARY_PATH")])]
        )
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("icu_probe.py"))],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    if done.returncode != 0:
        raise Refused(f"packaging/icu_probe.py failed: {done.stderr.strip()[-500:]}")
    return {**json.loads(done.stdout), "stderr": done.stderr}
