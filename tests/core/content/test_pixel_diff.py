"""The share of pixels that changed between two screenshots, on arrays made here."""

from __future__ import annotations

import numpy as np
import pytest
from recrawl.core.content import pixel_diff as pd


def image(height: int, width: int, value: int = 200) -> np.ndarray:
    return np.full((height, width, 4), value, dtype=np.uint8)


def test_identical_images_changed_nothing():
    result = pd.pixel_diff(image(30, 40), image(30, 40))
    assert (result.changed, result.total, result.same_size) == (0, 1200, True)
    assert result.percent == "0.0 % of pixels changed"


def test_each_differing_pixel_counts_once_whatever_its_channels():
    old, new = image(10, 10), image(10, 10)
    new[0, 0, 0] = 1  # red only
    new[5, 7] = (1, 2, 3, 4)  # all four
    new[9, 9, 3] = 0  # alpha only
    result = pd.pixel_diff(old, new)
    assert result.changed == 3 and result.total == 100
    assert result.share == pytest.approx(0.03)
    assert result.percent == "3.0 % of pixels changed"


def test_images_taller_than_a_slice_are_counted_across_slices():
    old, new = image(pd._ROWS * 2 + 5, 3), image(pd._ROWS * 2 + 5, 3)
    new[0, 0, 1] = 0
    new[pd._ROWS, 2, 2] = 0
    new[-1, 1, 0] = 0
    assert pd.pixel_diff(old, new).changed == 3


def test_different_sizes_compare_the_overlap_and_count_the_rest_as_changed():
    old, new = image(10, 20), image(15, 10)  # canvas 15 × 20 = 300, overlap 10 × 10
    new[0, 0, 0] = 0
    result = pd.pixel_diff(old, new)
    assert (result.changed, result.total, result.same_size) == (300 - 100 + 1, 300, False)


def test_arrays_that_are_not_rgba_are_refused():
    with pytest.raises(ValueError, match="RGBA"):
        pd.pixel_diff(np.zeros((4, 4, 3), np.uint8), image(4, 4))


def test_the_mask_marks_the_changed_pixels_and_what_one_image_alone_covers():
    old, new = image(2, 3), image(3, 2)
    new[1, 0, 2] = 7
    assert pd.changed_mask(old, new).tolist() == [
        [False, False, True],
        [True, False, True],
        [True, True, True],
    ]
