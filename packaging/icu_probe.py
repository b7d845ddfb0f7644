"""Prints, as JSON, what Qt answers through ICU: collation, converters, time zone names
and locale case mapping, the four services Qt Core calls ICU for.

    python packaging/icu_probe.py          (packaging/icu_data.py runs it)

packaging/icu_data.py runs this twice, once with ICU's whole data and once with the
trimmed library first on LD_LIBRARY_PATH (which the dynamic loader searches before
Qt's RUNPATH), and builds the bundle only if every answer is the same. The answers cover
every locale Qt knows, every converter ICU offers and every time zone, so data a service
reads but the trim removed shows up as a difference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCollator,
    QDateTime,
    QLocale,
    QStringConverter,
    Qt,
    QTimeZone,
    QXmlStreamReader,
)

#: words whose order differs between collations: accents, case, digits, punctuation,
#: Nordic and German letters, and the scripts with tailored orders (Han by pinyin or
#: stroke, kana, Hangul, Cyrillic, Greek, Arabic, Devanagari, Thai)
WORDS = [
    "a", "A", "á", "ä", "å", "æ", "ø", "ö", "o", "z", "Z", "ß", "ss", "ch", "c", "č", "h",
    "ll", "l", "ñ", "n", "y", "ü", "i", "ı", "İ", "file10", "file9", "file-2", "co-op",
    "coop", "中", "文", "字", "汉", "漢", "日本", "かな", "カナ", "한국", "가", "ё", "е", "я",
    "α", "ω", "ع", "ب", "क", "ख", "ก", "ข",
]  # fmt: skip
#: locales whose time zone names and case mapping are compared, across scripts
NAME_LOCALES = ["en_US", "de_DE", "fr_FR", "ru_RU", "ja_JP", "zh_CN", "ar_EG", "hi_IN", "tr_TR"]


def collation() -> dict[str, list[list[int]]]:
    locales = QLocale.matchingLocales(
        QLocale.Language.AnyLanguage, QLocale.Script.AnyScript, QLocale.Country.AnyCountry
    )
    orders: dict[str, list[list[int]]] = {}
    for locale in locales:
        results = []
        for numeric, case, punctuation in ((False, True, False), (True, False, True)):
            collator = QCollator(locale)
            collator.setNumericMode(numeric)
            collator.setCaseSensitivity(
                Qt.CaseSensitivity.CaseSensitive if case else Qt.CaseSensitivity.CaseInsensitive
            )
            collator.setIgnorePunctuation(punctuation)
            keys = [collator.sortKey(word) for word in WORDS]
            order = sorted(range(len(WORDS)), key=lambda i: (_Key(keys[i]), i))
            results.append(order)
        orders[locale.name()] = results
    return orders


class _Key:
    """A QCollatorSortKey ordered by its own compare()."""

    def __init__(self, key: object) -> None:
        self.key = key

    def __lt__(self, other: _Key) -> bool:
        return bool(self.key.compare(other.key) < 0)  # type: ignore[attr-defined]  # QCollatorSortKey

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.key.compare(other.key) == 0  # type: ignore[attr-defined]  # QCollatorSortKey


def converters() -> dict[str, str]:
    """Each converter ICU offers, decoding a document that declares it (PySide6 wraps
    no QStringDecoder call; QXmlStreamReader decodes through one)."""
    text = bytes(b for b in range(0x20, 0x100) if b not in b"<&]" and not 0x7F <= b < 0xA0)
    answers: dict[str, str] = {}
    for name in QStringConverter.availableCodecs():
        document = f'<?xml version="1.0" encoding="{name}"?><t>'.encode() + text + b"</t>"
        buffer = QBuffer()
        buffer.setData(QByteArray(document))
        buffer.open(QBuffer.OpenModeFlag.ReadOnly)
        reader = QXmlStreamReader(buffer)
        decoded = []
        while not reader.atEnd():
            reader.readNext()
            if reader.isCharacters():
                decoded.append(reader.text())
        answers[name] = "".join(decoded) + f" | {reader.errorString()}"
    return answers


def time_zone_names() -> dict[str, list[str]]:
    winter = QDateTime.fromSecsSinceEpoch(1_700_000_000)  # November 2023
    summer = QDateTime.fromSecsSinceEpoch(1_720_000_000)  # July 2024
    kinds = [
        (time, name)
        for time in (QTimeZone.TimeType.StandardTime, QTimeZone.TimeType.DaylightTime)
        for name in (QTimeZone.NameType.LongName, QTimeZone.NameType.ShortName)
    ]
    answers: dict[str, list[str]] = {}
    for zone_id in QTimeZone.availableTimeZoneIds():
        zone = QTimeZone(zone_id)
        names = []
        for tag in NAME_LOCALES:
            locale = QLocale(tag)
            names += [zone.displayName(time, name, locale) for time, name in kinds]
            names += [
                zone.displayName(moment, QTimeZone.NameType.DefaultName, locale)
                for moment in (winter, summer)
            ]
            names.append(locale.toString(summer.toTimeZone(zone), QLocale.FormatType.LongFormat))
        answers[bytes(zone_id.data()).decode()] = names
    return answers


def case_mapping() -> dict[str, list[str]]:
    text = "Istanbul iı İI ŁÓDŹ Ǆemal ΣΊΣΥΦΟΣ ß ﬁ Lituanie i̇̀ Ĳssel"
    return {
        tag: [QLocale(tag).toUpper(text), QLocale(tag).toLower(text)]
        for tag in [*NAME_LOCALES, "az_AZ", "lt_LT", "el_GR", "nl_NL"]
    }


def icu_data_library() -> str:
    """The libicudata this process mapped, so the caller can check which one it tested."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        if "libicudata" in line:
            return line.split()[-1]
    return ""


def main() -> int:
    answers = {
        "collation": collation(),
        "converters": converters(),
        "time zone names": time_zone_names(),
        "case mapping": case_mapping(),
    }
    json.dump({"library": icu_data_library(), "answers": answers}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
