"""How much of a page's screenshot changed between two captures: the share of pixels that differ.

Two RGBA images as arrays (height × width × 4 bytes); a pixel changed when any of its
four bytes differs (a browser renders the same page to the same bytes: no tolerance is
needed, and any would hide a one-pixel edit). Images of different sizes are laid on
one canvas from the top left, as large as both: the overlap is compared and every
other pixel of the canvas counts as changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: Rows compared at a time: a full-page screenshot's comparison copies a slice of its
#: pixels at a time, not the page's.
_ROWS = 1024


@dataclass(frozen=True)
class PixelDiff:
    changed: int
    #: The canvas' pixels: the larger height by the larger width.
    total: int
    same_size: bool

    @property
    def share(self) -> float:
        """The changed pixels' share of the canvas, 0 to 1 (two empty images: 0)."""
        return self.changed / self.total if self.total else 0.0

    @property
    def percent(self) -> str:
        """``12.5 % of pixels changed``."""
        return f"{100 * self.share:.1f} % of pixels changed"


def pixel_diff(old: NDArray[np.uint8], new: NDArray[np.uint8]) -> PixelDiff:
    """How ``new`` differs from ``old``, pixel by pixel (both height × width × 4)."""
    mask = changed_mask(old, new)
    return PixelDiff(int(np.count_nonzero(mask)), mask.size, old.shape == new.shape)


def changed_mask(old: NDArray[np.uint8], new: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """The canvas (the larger height by the larger width): True where a pixel changed,
    or where only one of the images covers it."""
    for image in (old, new):
        if image.ndim != 3 or image.shape[2] != 4:
            raise ValueError(f"an RGBA image is height × width × 4, not {image.shape}")
    (old_h, old_w, _), (new_h, new_w, _) = old.shape, new.shape
    height, width = min(old_h, new_h), min(old_w, new_w)
    mask = np.ones((max(old_h, new_h), max(old_w, new_w)), dtype=np.bool_)
    for top in range(0, height, _ROWS):
        rows = slice(top, min(top + _ROWS, height))
        # a pixel's four bytes as one number: one comparison a pixel
        before = np.ascontiguousarray(old[rows, :width]).view(np.uint32)[..., 0]
        after = np.ascontiguousarray(new[rows, :width]).view(np.uint32)[..., 0]
        mask[rows, :width] = before != after
    return mask
