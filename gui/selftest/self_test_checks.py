"""What the self-test checks besides the crawl: that this install's Qt still does what the
packaged build trims around (packaging/: ICU's data, Qt's OpenGL module, stripped
libraries).

- plots draw (pyqtgraph without OpenGL): a plot widget rendered holds its data's colour;
- text in other scripts is laid out and wrapped (Qt's own line breaking, not ICU's);
- ICU's data that Qt reads is there: a Swedish sort, a time zone's name, a legacy
  encoding decoded, Turkish upper case.

Each takes milliseconds; each raises AssertionError saying what is wrong.
"""

from __future__ import annotations

from functools import cmp_to_key

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QCollator, QLocale, QTimeZone, QXmlStreamReader
from PySide6.QtGui import QColor, QFont, QImage, QTextLayout
from PySide6.QtWidgets import QWidget

#: Text without spaces between words (Chinese, Japanese) and with them, in other scripts:
#: each must wrap onto several lines when a line holds a third of it.
TEXTS = {
    "Chinese": "网页存档工具记录每个页面何时变化并据此安排下一次访问的时间",
    "Japanese": "ウェブアーカイブはページの変化を記録して次の訪問を決めます",
    "Arabic": "أرشيف الويب يسجل كل تغيير في الصفحات ويحدد موعد الزيارة التالية",
    "Hindi": "वेब संग्रह हर पृष्ठ के बदलाव को दर्ज करता है और अगली यात्रा तय करता है",
    "Russian": "Веб-архив записывает каждое изменение страницы и планирует следующий визит",
}


def check_plot_draws(name: str, plot: QWidget, colour: str) -> None:
    """The plot, rendered, shows ``colour`` (its data's points or lines)."""
    if pg.getConfigOption("useOpenGL"):
        raise AssertionError("pyqtgraph draws with OpenGL, which the bundle leaves out")
    image = plot.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    pixel = QColor(colour)
    # RGB32 in memory is B, G, R, 0xff per pixel
    wanted = bytes((pixel.blue(), pixel.green(), pixel.red(), 0xFF))
    data = bytes(image.constBits())
    found = data.find(wanted)
    while found % 4:
        found = data.find(wanted, found + 1)
    if found < 0:
        raise AssertionError(f"the {name} plot drew nothing in {colour}")


def check_text_layout() -> None:
    for script, text in TEXTS.items():
        natural = _lines(text, 1e6)
        if natural[0] != 1 or natural[1] <= 0:
            raise AssertionError(f"{script} text was not laid out: {natural}")
        lines, _ = _lines(text, natural[1] / 3)
        if lines < 3:
            raise AssertionError(f"{script} text wrapped onto {lines} lines, not 3 or more")


def _lines(text: str, width: float) -> tuple[int, float]:
    """How many lines ``text`` takes at ``width``, and the widest line's width."""
    layout = QTextLayout(text, QFont())
    layout.beginLayout()
    count, widest = 0, 0.0
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        count, widest = count + 1, max(widest, line.naturalTextWidth())
    layout.endLayout()
    return count, widest


def check_locale_data() -> None:
    """ICU's data that Qt reads: collation tailorings, time zone names, converters."""
    words = ["z", "ä", "a"]
    for locale, expected in (("sv_SE", ["a", "z", "ä"]), ("de_DE", ["a", "ä", "z"])):
        ordered = sorted(words, key=cmp_to_key(QCollator(QLocale(locale)).compare))
        if ordered != expected:
            raise AssertionError(f"sorted in {locale}: {ordered}, expected {expected}")
    zone = QTimeZone(b"Asia/Tokyo")
    if zone.isValid():  # a system without time zone files has no zones at all
        name = zone.displayName(
            QTimeZone.TimeType.StandardTime, QTimeZone.NameType.LongName, QLocale("en_US")
        )
        if not name or name.startswith(("GMT", "UTC")):  # an offset: no names in ICU's data
            raise AssertionError(f"Asia/Tokyo is called {name!r}, not by its name")
    if (decoded := _decode_xml(b"\x80", "windows-1252")) != "\u20ac":
        raise AssertionError(f"windows-1252 0x80 decoded as {decoded!r}, not the euro sign")
    if (upper := QLocale("tr_TR").toUpper("i")) != "\u0130":
        raise AssertionError(f"Turkish upper case of i is {upper!r}, not dotted I")


def _decode_xml(payload: bytes, encoding: str) -> str:
    """``payload`` decoded by Qt (PySide6 exposes no decoder call; an XML reader decodes
    its document through one)."""
    header = f'<?xml version="1.0" encoding="{encoding}"?><t>'.encode()
    buffer = QBuffer()
    buffer.setData(QByteArray(header + payload + b"</t>"))
    buffer.open(QBuffer.OpenModeFlag.ReadOnly)
    reader = QXmlStreamReader(buffer)
    text = []
    while not reader.atEnd():
        reader.readNext()
        if reader.isCharacters():
            text.append(reader.text())
    return "".join(text) if not reader.hasError() else f"error: {reader.errorString()}"
