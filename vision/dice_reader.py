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
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import ArrayLike

from vision.choices import VIEWS
from vision.dice_oblique import read_oblique
from vision.dice_settle import SettledRoll
from vision.dice_sources import Face
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
        left, top, right, bottom = bounds(polygon, image)
        if right - left < 8 or bottom - top < 8:
            return []  # the region lies outside this picture
        found = self._read(image[top:bottom, left:right])
        dice = []
        for die in found:
            x, y, w, h = die.box
            box = (x + left, y + top, w, h)
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


def bounds(polygon: ArrayLike, image: Image) -> tuple[int, int, int, int]:
    """The left, top, right and bottom of `polygon` (in pixels) within `image`."""
    points = np.asarray(polygon, np.float32).reshape(-1, 2)
    height, width = image.shape[:2]
    left, top = np.floor(points.min(axis=0)).astype(int).clip(0, (width, height))
    right, bottom = np.ceil(points.max(axis=0)).astype(int).clip(0, (width, height))
    return int(left), int(top), int(right), int(bottom)


class DrawnDie(Protocol):
    """A die as `draw_dice` draws it."""

    @property
    def value(self) -> Face: ...

    @property
    def box(self) -> Sequence[float]: ...

    @property
    def confidence(self) -> float: ...


def draw_dice(
    image: Image,
    dice: Sequence[DrawnDie],
    min_confidence: float,
    labels: Sequence[str] | None = None,
    size: float = 1.0,
) -> Image:
    """A copy of `image` with each die's box drawn on it, green if sure enough to apply, orange
    if not, and its label: `labels`, one a die, or its value and confidence; `size` times the
    usual size of the lines and the labels."""
    out = image.copy()
    scale = max(out.shape[:2]) / 640 * size
    line = max(1, round(2 * scale))
    font = 0.5 * scale
    for i, die in enumerate(dice):
        x, y, w, h = (int(v) for v in die.box)
        sure = die.confidence >= min_confidence
        colour = (0, 200, 0) if sure else (0, 160, 255)
        # An unsure die stands out: a thicker box, drawn around the die, not over its face.
        thick = line if sure else 2 * line
        pad = thick // 2
        cv2.rectangle(out, (x - pad, y - pad), (x + w + pad, y + h + pad), colour, thick)
        label = f"{die.value} {die.confidence:.2f}" if labels is None else labels[i]
        origin = (x, max(y - pad - 4, round(24 * font)))
        outlined_text(out, label, origin, font, colour, line)
    return out


ROLL_PICTURE_SIDE = 480
"""The longest side of `roll_picture`'s picture, in pixels: enough for a phone to show."""
ROLL_PICTURE_MARGIN = 2.0
"""How far around the dice `roll_picture` shows the tray, in die widths."""


def roll_picture(roll: SettledRoll, tray: ArrayLike | None, min_confidence: float) -> Image | None:
    """The dice of `roll` in the frame it was read in: the part of the tray (all of the frame
    with no `tray` polygon) within ROLL_PICTURE_MARGIN die widths of them, scaled to
    ROLL_PICTURE_SIDE pixels a side, each die outlined and numbered left to right as the players
    are asked about them. Small dice in a big tray are shown large enough to tell apart. None if
    the roll kept no frame."""
    frame = roll.frame
    if frame is None:
        return None
    height, width = frame.shape[:2]
    whole = 0, 0, width, height
    left, top, right, bottom = whole if tray is None else bounds(tray, frame)
    if right - left < 8 or bottom - top < 8:
        left, top, right, bottom = whole  # a tray outside the frame: all of it
    if roll.dice:
        boxes = np.array([die.box for die in roll.dice])
        margin = round(ROLL_PICTURE_MARGIN * boxes[:, 2:].max())
        left = max(left, int(boxes[:, 0].min()) - margin)
        top = max(top, int(boxes[:, 1].min()) - margin)
        right = min(right, int((boxes[:, 0] + boxes[:, 2]).max()) + margin)
        bottom = min(bottom, int((boxes[:, 1] + boxes[:, 3]).max()) + margin)
    scale = ROLL_PICTURE_SIDE / max(right - left, bottom - top)
    size = (round((right - left) * scale), round((bottom - top) * scale))
    shrink = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    crop = np.asarray(
        cv2.resize(frame[top:bottom, left:right], size, interpolation=shrink), np.uint8
    )

    def moved(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        x, y, w, h = box
        return (
            round((x - left) * scale),
            round((y - top) * scale),
            round(w * scale),
            round(h * scale),
        )

    dice = [replace(die, box=moved(die.box)) for die in roll.dice]
    labels = [str(number) for number in range(1, len(dice) + 1)]
    # Labels a phone can read, the picture shown about 350 pixels wide.
    return draw_dice(crop, dice, min_confidence, labels, size=2.5)
