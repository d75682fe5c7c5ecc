"""The oblique dice reader on drawn frames: white dice with black pips on a wood-coloured desk."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.dice_oblique import read_oblique

WOOD = (120, 170, 210)  # BGR: light, yellowish, saturated enough not to pass for a die
GRID = {  # pip centres in pip radii, as on a real d6
    1: [(0.0, 0.0)],
    2: [(-2.1, -2.1), (2.1, 2.1)],
    3: [(-2.1, -2.1), (0.0, 0.0), (2.1, 2.1)],
    4: [(-2.1, -2.1), (2.1, -2.1), (-2.1, 2.1), (2.1, 2.1)],
    5: [(-2.1, -2.1), (2.1, -2.1), (-2.1, 2.1), (2.1, 2.1), (0.0, 0.0)],
    6: [(sx * 2.32, sy * 2.85) for sx in (-1, 1) for sy in (-1, 0, 1)],
}


def draw_die(frame: NDArray[np.uint8], value: int, centre: tuple[int, int], radius: int) -> None:
    """A top face seen slightly from the front: squashed vertically, as the webcam sees it."""
    cx, cy = centre
    half, squash = int(5.2 * radius), 0.9
    top, bottom = cy - int(half * squash), cy + int(half * squash)
    cv2.rectangle(frame, (cx - half, top), (cx + half, bottom), (245, 245, 245), -1)
    for px, py in GRID[value]:
        pip = (cx + round(px * radius), cy + round(py * radius * squash))
        cv2.ellipse(frame, (pip, (2 * radius, 2 * radius * squash), 0), (20, 20, 20), -1)


def wood(h: int = 480, w: int = 640) -> NDArray[np.uint8]:
    return np.full((h, w, 3), WOOD, np.uint8)


@pytest.mark.parametrize("value", range(1, 7))
def test_reads_each_value(value: int) -> None:
    frame = wood()
    draw_die(frame, value, (320, 240), 5)
    dice = read_oblique(frame)
    assert [d.value for d in dice] == [value]
    x, y, w, h = dice[0].box
    assert x < 320 < x + w and y < 240 < y + h
    assert 0.5 <= dice[0].confidence <= 1.0


def test_several_dice_left_to_right_and_a_larger_frame() -> None:
    frame = wood(960, 1280)
    for value, x in ((5, 900), (2, 200), (6, 560)):
        draw_die(frame, value, (x, 480), 10)
    assert [d.value for d in read_oblique(frame)] == [2, 6, 5]


@pytest.mark.parametrize("frame", [wood(), np.zeros((480, 640, 3), np.uint8)])
def test_no_dice(frame: NDArray[np.uint8]) -> None:
    assert read_oblique(frame) == []


def test_two_touching_dice_in_one_blob_are_both_read() -> None:
    frame = wood()
    draw_die(frame, 3, (280, 200), 5)
    draw_die(frame, 2, (326, 242), 5)  # corners overlap: the two faces make one bright blob
    dice = read_oblique(frame)
    assert [d.value for d in dice] == [3, 2]
    assert dice[0].box[1] < dice[1].box[1]


def test_a_six_with_pips_smeared_across_its_rows_is_still_a_six() -> None:
    """Motion blur stretches every pip one way: the ellipses no longer show the slant."""
    frame = wood()
    cx, cy, radius = 320, 240, 6
    cv2.rectangle(frame, (cx - 31, cy - 28), (cx + 31, cy + 28), (245, 245, 245), -1)
    for px, py in GRID[6]:
        pip = (cx + round(py * radius * 0.9), cy + round(px * radius * 0.9))
        cv2.ellipse(frame, (pip, (2 * radius * 0.55, 2 * radius), 0), (20, 20, 20), -1)
    dice = read_oblique(frame)
    assert [d.value for d in dice] == [6]
