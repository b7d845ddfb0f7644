"""A page's screenshots, read and decoded off the GUI thread (issue 27, point 5).

The core finds them (:mod:`recrawl.core.archive.screenshots`); here Qt decodes them
(QImage: the bundle has no room for Pillow) on a worker thread of their own, so a
timeline's thumbnails never wait behind an export on the long-job lane, nor hold up
the store's queries. :class:`ScreenshotLoader` takes requests on the GUI thread and
answers by signal; thumbnails asked for a page no longer shown are skipped.

:func:`compare_screenshots` is the diff window's part: two captures' screenshots and
the share of their pixels that changed, run inside the diff's job.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PySide6.QtCore import QObject, QSize, Qt, QThread, Signal, Slot
from PySide6.QtGui import QImage
from recrawl.core.archive.captures import CaptureRef
from recrawl.core.archive.screenshots import CaptureShot, read_screenshot, shot_of
from recrawl.core.content.pixel_diff import PixelDiff, changed_mask
from recrawl.core.errors import RecrawlError
from recrawl.gui.common import formatting
from recrawl.gui.jobs.threads import start_thread

#: A thumbnail's box: a 16:9 viewport fits it whole.
THUMBNAIL = QSize(128, 72)
#: What marks a changed pixel (magenta: rare on pages), over a fifth of the pixel's own
#: colour, so what changed stays readable beneath.
MARK = (255, 0, 255)


def decode(png: bytes) -> QImage:
    """A PNG as an image (RecrawlError if Qt cannot read it)."""
    image = QImage.fromData(png)  # the format from its first bytes
    if image.isNull():
        raise RecrawlError("the screenshot is not a PNG image Qt can read")
    return image


def load_image(path: Path, offset: int) -> QImage:
    """The screenshot whose record is at ``offset`` of ``path``, decoded."""
    return decode(read_screenshot(path, offset))


def load_thumbnail(path: Path, offset: int, box: QSize = THUMBNAIL) -> QImage:
    """The screenshot at ``offset`` of ``path``, scaled to fit ``box``."""
    return load_image(path, offset).scaled(
        box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
    )


def rgba(image: QImage) -> NDArray[np.uint8]:
    """The image's pixels as height × width × 4 bytes (R, G, B, A), a copy of its own."""
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    bits = np.frombuffer(image.constBits(), np.uint8, count=stride * height)
    # a row may be padded past its pixels: cut to the width, copied while the image lives
    return bits.reshape(height, stride)[:, : width * 4].reshape(height, width, 4).copy()


def from_rgba(pixels: NDArray[np.uint8]) -> QImage:
    """Height × width × 4 bytes as an image holding its own copy."""
    height, width, _ = pixels.shape
    data = np.ascontiguousarray(pixels).tobytes()
    return QImage(data, width, height, 4 * width, QImage.Format.Format_RGBA8888).copy()


def marked(pixels: NDArray[np.uint8], mask: NDArray[np.bool_]) -> QImage:
    """``pixels`` on the mask's canvas (white where they do not reach), the pixels
    ``mask`` holds tinted with :data:`MARK`."""
    height, width = mask.shape
    canvas = np.full((height, width, 4), 255, dtype=np.uint8)
    canvas[: pixels.shape[0], : pixels.shape[1]] = pixels
    hit = canvas[mask].astype(np.uint16)
    hit[:, :3] = (hit[:, :3] + 4 * np.array(MARK, np.uint16)) // 5
    hit[:, 3] = 255
    canvas[mask] = hit.astype(np.uint8)
    return from_rgba(canvas)


@dataclass(frozen=True)
class VisualDiff:
    """Two captures' screenshots and how many of their pixels differ."""

    old: QImage
    new: QImage
    pixels: PixelDiff
    #: The new screenshot with the changed pixels marked (:func:`marked`).
    marked: QImage

    @property
    def summary(self) -> str:
        """``12.5 % of pixels changed``, and how the sizes differ when they do."""
        if self.pixels.same_size:
            return self.pixels.percent
        return (
            f"{self.pixels.percent} (the sizes differ, {_size(self.old)} and "
            f"{_size(self.new)}: the area both cover is compared, the rest counts as changed)"
        )


def _size(image: QImage) -> str:
    return f"{image.width()} × {image.height()}"


def compare_screenshots(old: CaptureRef, new: CaptureRef) -> tuple[VisualDiff | None, str | None]:
    """The screenshots of two captures compared when both kept one; else None and what
    the window says of it (None too when neither did: an HTTP page's diff is text only)."""
    before, after = shot_of(old), shot_of(new)
    if before.screenshot_offset is None or after.screenshot_offset is None:
        if before.has_screenshot == after.has_screenshot:
            return None, None
        without = after if before.has_screenshot else before
        when = formatting.local_time(without.date, seconds=True)
        return None, f"no screenshots compared: the capture of {when} has none"
    old_image = load_image(before.path, before.screenshot_offset)
    new_image = load_image(after.path, after.screenshot_offset)
    old_pixels, new_pixels = rgba(old_image), rgba(new_image)
    mask = changed_mask(old_pixels, new_pixels)
    pixels = PixelDiff(int(np.count_nonzero(mask)), mask.size, old_pixels.shape == new_pixels.shape)
    return VisualDiff(old_image, new_image, pixels, marked(new_pixels, mask)), None


class _Decoder(QObject):
    """On the loader's thread: reads a screenshot and decodes it."""

    sig_thumbnail = Signal(object, object)  # CaptureShot, QImage
    sig_thumbnail_failed = Signal(object, str)
    sig_image = Signal(int, object)  # ticket, QImage
    sig_image_failed = Signal(int, str)

    def __init__(self, wanted: _Wanted) -> None:
        super().__init__()
        self._wanted = wanted

    @Slot(int, object)
    def thumbnail(self, generation: int, shot: CaptureShot) -> None:
        if not self._wanted.still(generation) or shot.screenshot_offset is None:
            return  # asked for a page no longer shown
        try:
            image = load_thumbnail(shot.path, shot.screenshot_offset)
        except Exception as exc:  # a failed image must not end the thread
            self.sig_thumbnail_failed.emit(shot, _message(exc))
        else:
            self.sig_thumbnail.emit(shot, image)

    @Slot(int, object)
    def image(self, ticket: int, shot: CaptureShot) -> None:
        if shot.screenshot_offset is None:
            self.sig_image_failed.emit(ticket, "the capture kept no screenshot")
            return
        try:
            image = load_image(shot.path, shot.screenshot_offset)
        except Exception as exc:  # a failed image must not end the thread
            self.sig_image_failed.emit(ticket, _message(exc))
        else:
            self.sig_image.emit(ticket, image)


def _message(exc: Exception) -> str:
    return str(exc) if isinstance(exc, RecrawlError) else f"{type(exc).__name__}: {exc}"


class _Wanted:
    """Which page's thumbnails are still wanted (the GUI thread sets it, the worker reads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0

    def set(self, generation: int) -> None:
        with self._lock:
            self._generation = generation

    def still(self, generation: int) -> bool:
        with self._lock:
            return generation == self._generation


class ScreenshotLoader(QObject):
    """Thumbnails and full screenshots, decoded on a thread started when first asked."""

    #: (CaptureShot, QImage): a capture's thumbnail.
    sig_thumbnail = Signal(object, object)
    sig_thumbnail_failed = Signal(object, str)
    #: (ticket, QImage): a screenshot asked for by :meth:`image`.
    sig_image = Signal(int, object)
    sig_image_failed = Signal(int, str)
    _sig_thumbnail = Signal(int, object)
    _sig_image = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._wanted = _Wanted()
        self._decoder: _Decoder | None = None
        self._thread: QThread | None = None
        self._tickets = 0
        self._closed = False

    def want(self, generation: int) -> None:
        """Only thumbnails of the timeline ``generation`` are wanted from now on."""
        self._wanted.set(generation)

    def thumbnails(self, generation: int, shots: list[CaptureShot]) -> None:
        """Decode these captures' thumbnails, for the timeline ``generation``."""
        if self._closed:
            return
        self._start()
        for shot in shots:
            self._sig_thumbnail.emit(generation, shot)

    def image(self, shot: CaptureShot) -> int:
        """Decode ``shot``'s screenshot whole; its answer carries the ticket returned."""
        self._tickets += 1
        if not self._closed:
            self._start()
            self._sig_image.emit(self._tickets, shot)
        return self._tickets

    def shutdown(self) -> None:
        """Skip the thumbnails queued, let the one being decoded end, stop the thread."""
        self._closed = True
        self._wanted.set(-1)
        if self._thread is not None:
            self._thread.quit()
            self._thread.wait()

    def _start(self) -> None:
        if self._decoder is None:
            self._decoder = _Decoder(self._wanted)
            self._decoder.sig_thumbnail.connect(self.sig_thumbnail)
            self._decoder.sig_thumbnail_failed.connect(self.sig_thumbnail_failed)
            self._decoder.sig_image.connect(self.sig_image)
            self._decoder.sig_image_failed.connect(self.sig_image_failed)
            self._sig_thumbnail.connect(self._decoder.thumbnail)
            self._sig_image.connect(self._decoder.image)
            self._thread = start_thread(self._decoder, "screenshots")
