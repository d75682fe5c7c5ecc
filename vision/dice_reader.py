"""The d6 reader: every pip die in a photo, a frame or a region of one.

Two readers, for the two ways a camera may look at dice:

- `top`: straight down over a tray (dice of any colour, translucent or marbled, touching): a
  small learned detector and pip counter (`vision/dice_tray.py`, ONNX models run by OpenCV);
- `oblique`: a camera at an angle over a desk, seeing side faces too (`vision/dice_oblique.py`,
  which reads only the top face).

`auto` takes a square picture for a top view and any other for an oblique one: the table's own
camera crops its tray, so the view is best set in the config (`[dice] view`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import ArrayLike

from vision.choices import VIEWS
from vision.dice_oblique import read_oblique
from vision.dice_settle import SeenDie
from vision.dice_tray import TrayReader
from vision.die import Die
from vision.drawing import outlined_text
from vision.image_files import Image

MODELS = Path(__file__).parent / "models"
PIPS = (MODELS / "dice_pips_1.onnx", MODELS / "dice_pips_2.onnx")
"""Two pip classifiers of one recipe (seeds 1 and 2): the second is asked where the first doubts."""
# How far from square a picture may be and still be taken for a top view by `auto`.
SQUARE_TOLERANCE = 0.05


def view_of(image: Image) -> str:
    height, width = image.shape[:2]
    return "top" if abs(width - height) <= SQUARE_TOLERANCE * max(width, height) else "oblique"


class DiceReader:
    """Reads the dice of each picture it is given; the learned models load on first use."""

    kinds = ("d6",)
    """The kinds of dice it reads (`DiceRequest.kind`)."""

    def __init__(self, view: str = "auto", threads: int = 2) -> None:
        if view not in VIEWS:
            raise ValueError(f"dice view must be one of {VIEWS}, not {view!r}")
        self.view = view
        self.threads = threads
        self._tray: TrayReader | None = None

    def read(self, image: Image, region: ArrayLike | None = None) -> list[Die]:
        """The dice in `image`, left to right; within `region` (a polygon in pixels) if given.

        Boxes are in the pixels of `image` whatever the region.
        """
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"a BGR picture is needed, not an array of shape {image.shape}")
        if min(image.shape[:2]) < 8:
            return []  # no die fits in a few pixels
        if region is None:
            return self._read(image)
        polygon = np.asarray(region, np.float32).reshape(-1, 2)
        height, width = image.shape[:2]
        left, top = np.floor(polygon.min(axis=0)).astype(int).clip(0, (width, height))
        right, bottom = np.ceil(polygon.max(axis=0)).astype(int).clip(0, (width, height))
        if right - left < 8 or bottom - top < 8:
            return []  # the region lies outside this picture
        found = self._read(image[top:bottom, left:right])
        dice = []
        for die in found:
            x, y, w, h = die.box
            box = (x + int(left), y + int(top), w, h)
            centre = (box[0] + w / 2, box[1] + h / 2)
            # A die belongs to the region its centre lies in: the crop is the region's bounds.
            if cv2.pointPolygonTest(polygon, centre, False) >= 0:
                dice.append(replace(die, box=box))
        return dice

    def _read(self, image: Image) -> list[Die]:
        view = view_of(image) if self.view == "auto" else self.view
        if view == "oblique":
            return read_oblique(image)
        if self._tray is None:
            self._tray = TrayReader(MODELS / "dice_detector.onnx", PIPS, threads=self.threads)
        return self._tray.read(image)


def draw_dice(image: Image, dice: Sequence[SeenDie], min_confidence: float) -> Image:
    """A copy of `image` with each die's box, value and confidence drawn on it: green if sure
    enough to apply, orange if not."""
    out = image.copy()
    scale = max(out.shape[:2]) / 640
    line = max(1, round(2 * scale))
    for die in dice:
        x, y, w, h = (int(v) for v in die.box)
        colour = (0, 200, 0) if die.confidence >= min_confidence else (0, 160, 255)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, line)
        label = f"{die.value} {die.confidence:.2f}"
        origin = (x, max(y - 4, 12))
        outlined_text(out, label, origin, 0.5 * scale, colour, line)
    return out
