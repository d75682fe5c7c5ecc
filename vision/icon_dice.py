"""Icon dice and the d12, learned from photos of the user's own dice (issue 7).

Printed icons differ from one copy of a game to the next, so the table learns the user's dice:
`learn` takes a few labelled photos of each face (a die roughly in the middle of each), makes many
more of each by turning, scaling, tilting, relighting, blurring and noising it, and trains the
classifiers of `vision/icon_model.py` on the features of `vision/icon_crops.py`. `IconReader`
then reads the dice of that kind lying in a tray, or the top die of each board cell (Baron
Voodoo's). What a kind of dice is (a `DiceKind`: its faces and colours) comes from the game that
rolls it; vision knows no game's dice.

A d12 is read from its numeral in any rotation: the features do not change with a turn but keep
where each stroke lies from the others, so 6 and 9 are told apart by the bar printed under them
(as on real d12s: a 6 turned over is a 9 with its bar above), 1 and 11 or 2 and 12 by their
shapes.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from vision.icon_crops import (
    Blob,
    Features,
    centred,
    colour_features,
    find_blobs,
    shape_features,
    zoom_of,
)
from vision.icon_model import Classifier, DiceKind, IconModel, IconModelError
from vision.image_files import Image

__all__ = [
    "DiceKind",
    "IconDie",
    "IconModel",
    "IconModelError",
    "IconReader",
    "NoDieError",
    "Score",
    "label_of",
    "learn",
    "learn_and_score",
    "model_path",
]

MIN_PHOTOS = 3
"""Photos of each face (and each colour, for dice of several) that learning needs at least."""
AUGMENTED = 40
"""Made-up variants of each photo that learning adds to it."""
LEARN_SIDE = 48.0
"""Learning photos are scaled so that the die is about this many pixels across."""
FOLDS = 5
CELL_MARGIN = 0.15
"""The share of a board cell left out at its rim, where the printed space's edge lies."""

JSON = dict[str, Any]


def label_of(name: str, dice: DiceKind) -> tuple[str | None, str | None]:
    """The face and colour of `dice` a photo's file name gives, each None if it gives none (or
    several).

    The name is cut into words at `-`, `_`, `.` and spaces. A face is named as in `dice.faces`
    (`second_chance` or `second-chance`), a colour by its name, a d12's face by a word 1 to 12
    with no leading zero ("d12" is not one, nor a camera's `IMG_0012`). So `venom_3.jpg`,
    `red-steal-2.png`, `d12_11_a.jpg`.
    """
    words = [w for w in re.split(r"[-_. ]+", Path(name).stem.lower()) if w]
    joined = "_" + "_".join(words) + "_"
    faces = [f for f in dice.faces if f"_{f}_" in joined]
    colours = [c for c in dice.colours or () if f"_{c}_" in joined]
    return (faces[0] if len(faces) == 1 else None), (colours[0] if len(colours) == 1 else None)


def model_path(folder: Path, kind: str) -> Path:
    """Where `smartboard dice learn` saves a kind's model by default (the daemon's state dir)."""
    return folder / f"icon-model-{kind}.npz"


@dataclass(frozen=True)
class IconDie:
    face: str
    colour: str | None
    """The body colour, for dice of several colours (soul dice); else None."""
    box: tuple[int, int, int, int]
    """x, y, width, height in pixels of the image read."""
    confidence: float
    """0..1: how sure the reader is of the face (and colour)."""

    def to_json(self) -> JSON:
        return {
            "face": self.face,
            "colour": self.colour,
            "box": list(self.box),
            "confidence": round(self.confidence, 3),
        }


class NoDieError(ValueError):
    """A learning photo in which no die could be found."""

    def __init__(self, index: int) -> None:
        super().__init__(f"no die found in photo {index + 1}: a die on a plain surface, alone")
        self.index = index


@dataclass(frozen=True)
class Score:
    """How learning went: the photos of each face (and colour), and cross-validated accuracy."""

    faces: dict[str, int]
    colours: dict[str, int] | None
    face_accuracy: float
    colour_accuracy: float | None


def learn(
    dice: DiceKind, samples: Sequence[tuple[Image, str, str | None]], variants: int = AUGMENTED
) -> IconModel:
    """A model of `dice` from photos of one die each, labelled (face, colour or None), each
    photo also seen in `variants` made-up variants.

    ValueError if a label is not of these dice, or a face (a colour) is shown fewer than
    MIN_PHOTOS times (named); NoDieError (a ValueError) if a photo shows no die.
    """
    return _fit(dice, _examples(dice, samples, variants))


def learn_and_score(
    dice: DiceKind,
    samples: Sequence[tuple[Image, str, str | None]],
    variants: int = AUGMENTED,
    folds: int = FOLDS,
) -> tuple[IconModel, Score]:
    """`learn`, and its accuracy on each photo when learned without it (k-fold by photo)."""
    examples = _examples(dice, samples, variants)
    faces, colours = dice.faces, dice.colours
    fold = np.zeros(len(samples), np.intp)
    for label in set(examples.face_labels):  # each fold gets its share of every face
        members = [i for i, f in enumerate(examples.face_labels) if f == label]
        for rank, i in enumerate(members):
            fold[i] = rank % folds
    face_right = colour_right = 0
    for k in range(folds):
        held = fold == k
        if not held.any():
            continue
        model = _fit(dice, examples.subset(~held))
        shapes = np.stack([examples.shapes[i][0] for i in np.flatnonzero(held)])
        predicted, _ = model.face.predict(shapes)
        face_right += int((predicted == examples.face_labels[held]).sum())
        if model.colour is not None:
            tints = np.stack([examples.tints[i][0] for i in np.flatnonzero(held)])
            predicted, _ = model.colour.predict(tints)
            colour_right += int((predicted == examples.colour_labels[held]).sum())
    score = Score(
        {f: int((examples.face_labels == i).sum()) for i, f in enumerate(faces)},
        None
        if colours is None
        else {c: int((examples.colour_labels == i).sum()) for i, c in enumerate(colours)},
        face_right / len(samples),
        None if colours is None else colour_right / len(samples),
    )
    return _fit(dice, examples), score


@dataclass(frozen=True)
class _Examples:
    """Features of each photo: its own first, then its augmented variants."""

    shapes: list[Features]
    tints: list[Features]
    face_labels: NDArray[np.int32]
    colour_labels: NDArray[np.int32]

    def subset(self, keep: NDArray[np.bool_]) -> _Examples:
        chosen = np.flatnonzero(keep)
        return _Examples(
            [self.shapes[i] for i in chosen],
            [self.tints[i] for i in chosen],
            self.face_labels[chosen],
            self.colour_labels[chosen],
        )


def _examples(
    dice: DiceKind, samples: Sequence[tuple[Image, str, str | None]], variants: int
) -> _Examples:
    faces, colours, zoom = dice.faces, dice.colours, zoom_of(dice.kind)
    for face, colour in ((s[1], s[2]) for s in samples):
        if face not in faces:
            raise ValueError(f"{face!r} is not a face of the {dice.kind} die: {', '.join(faces)}")
        if colours is not None and colour not in colours:
            raise ValueError(
                f"a {dice.kind} die's colour is one of {', '.join(colours)}, not {colour!r}"
            )
    _enough("face", faces, Counter(s[1] for s in samples))
    if colours is not None:
        _enough("colour", colours, Counter(s[2] for s in samples))
    rng = np.random.default_rng(7)
    shapes, tints = [], []
    for index, (image, _, _) in enumerate(samples):
        blob = _the_die(image)
        if blob is None:
            raise NoDieError(index)
        scale = LEARN_SIDE / blob.side
        crops = [centred(image, blob, zoom)]
        small = np.asarray(
            cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8
        )
        centre = (blob.centre[0] * scale, blob.centre[1] * scale)
        for _ in range(variants):
            variant = _augment(small, centre, rng)
            found = _the_die(variant)
            if found is not None:
                crops.append(centred(variant, found, zoom))
        shapes.append(shape_features(crops))
        tints.append(colour_features(crops))
    return _Examples(
        shapes,
        tints,
        np.asarray([faces.index(s[1]) for s in samples], np.int32),
        np.asarray([colours.index(str(s[2])) if colours else 0 for s in samples], np.int32),
    )


def _enough(what: str, wanted: Sequence[str], counts: Counter[str | None]) -> None:
    few = [f"{name} ({counts[name]})" for name in wanted if counts[name] < MIN_PHOTOS]
    if few:
        raise ValueError(
            f"each {what} must be shown in {MIN_PHOTOS} photos at least; too few of: "
            + ", ".join(few)
        )


def _the_die(image: Image) -> Blob | None:
    """The biggest blob whose centre lies in the middle half of the photo."""
    height, width = image.shape[:2]
    for blob in find_blobs(image):
        x, y = blob.centre
        if abs(x - width / 2) < width / 4 and abs(y - height / 2) < height / 4:
            return blob
    return None


def _augment(image: Image, centre: tuple[float, float], rng: np.random.Generator) -> Image:
    """The photo turned any way, scaled, tilted, relit, blurred and noised, die in the middle."""
    side = int(2.5 * LEARN_SIDE)
    scale = rng.uniform(0.75, 1.25)
    matrix = np.asarray(cv2.getRotationMatrix2D(centre, rng.uniform(0, 360), scale), np.float64)
    matrix[:, 2] += side / 2 - np.array(centre)
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    tilted = (corners + rng.uniform(-0.05, 0.05, (4, 2)) * side).astype(np.float32)
    tilt = np.asarray(cv2.getPerspectiveTransform(corners, tilted), np.float64)
    warp = tilt @ np.vstack([matrix, [0, 0, 1]])
    out = cv2.warpPerspective(image, warp, (side, side), borderMode=cv2.BORDER_REPLICATE)
    ramp = np.linspace(-0.5, 0.5, side, dtype=np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    slope = rng.uniform(0, 0.5)
    light = rng.uniform(0.65, 1.3) * (
        1 + slope * (ramp[None, :] * math.cos(angle) + ramp[:, None] * math.sin(angle))
    )
    lit = np.asarray(out, np.float32) * light[..., None]
    blur = rng.uniform(0, 1.4)
    if blur > 0.3:
        lit = np.asarray(cv2.GaussianBlur(lit, (0, 0), blur), np.float32)
    lit += rng.standard_normal(lit.shape, np.float32) * np.float32(rng.uniform(0, 6))
    return np.clip(lit, 0, 255).astype(np.uint8)


def _fit(dice: DiceKind, examples: _Examples) -> IconModel:
    counts = [len(s) for s in examples.shapes]
    faces = np.repeat(examples.face_labels, counts)
    face = Classifier.train(np.concatenate(examples.shapes), faces, len(dice.faces))
    colour = None
    if dice.colours is not None:
        labels = np.repeat(examples.colour_labels, counts)
        colour = Classifier.train(np.concatenate(examples.tints), labels, len(dice.colours))
    return IconModel(dice.kind, dice.faces, dice.colours, face, colour)


class IconReader:
    """Reads the dice of one model's kind: in a picture or region, or one per board cell."""

    def __init__(self, model: IconModel) -> None:
        self.model = model

    def read(self, image: Image, region: ArrayLike | None = None) -> list[IconDie]:
        """Every die of this kind in `image`, left to right; within `region` (a polygon in
        pixels, e.g. the tray) if given. Boxes are in the pixels of `image`."""
        _check(image)
        left, top, crop, mask = 0, 0, image, None
        if region is not None:
            polygon = np.asarray(region, np.float32).reshape(-1, 2)
            left, top, cut, mask = _cut(image, polygon)
            if cut is None:
                return []
            crop = cut
        # A blob nearly the picture's size is the tray's own rim, not a die.
        blobs = [b for b in find_blobs(crop, mask=mask) if b.side < 0.75 * min(crop.shape[:2])]
        dice = self._classify(crop, blobs, (left, top))
        return sorted(dice, key=lambda d: d.box[0])

    def read_cells(self, image: Image, cells: Mapping[str, ArrayLike]) -> dict[str, IconDie | None]:
        """The top die of each cell (a polygon in pixels), None for an empty cell."""
        _check(image)
        crops, blobs, origins, names = [], [], [], []
        out: dict[str, IconDie | None] = {}
        for name, corners in cells.items():
            out[name] = None
            polygon = np.asarray(corners, np.float32).reshape(-1, 2)
            left, top, crop, mask = _cut(image, polygon, shrink=CELL_MARGIN)
            if crop is None:
                continue
            centre = polygon.mean(axis=0) - (left, top)
            cell_side = math.sqrt(abs(cv2.contourArea(polygon)))
            near = [
                b
                for b in find_blobs(crop, mask=mask)
                if 0.25 * cell_side <= b.side <= cell_side
                and math.dist(b.centre, centre) < 0.3 * cell_side
            ]
            if near:
                crops.append(crop)
                blobs.append(near[0])
                origins.append((left, top))
                names.append(name)
        for name, die in zip(names, self._classify_many(crops, blobs, origins), strict=True):
            out[name] = die
        return out

    def _classify(self, image: Image, blobs: list[Blob], origin: tuple[int, int]) -> list[IconDie]:
        return self._classify_many([image] * len(blobs), blobs, [origin] * len(blobs))

    def _classify_many(
        self, images: list[Image], blobs: list[Blob], origins: list[tuple[int, int]]
    ) -> list[IconDie]:
        if not blobs:
            return []
        zoom = zoom_of(self.model.kind)
        crops = [centred(image, blob, zoom) for image, blob in zip(images, blobs, strict=True)]
        faces, sure = self.model.face.predict(shape_features(crops))
        colours: list[str | None] = [None] * len(crops)
        if self.model.colour is not None and self.model.colours is not None:
            found, colour_sure = self.model.colour.predict(colour_features(crops))
            colours = [self.model.colours[i] for i in found]
            sure = np.minimum(sure, colour_sure)
        dice = []
        for i, blob in enumerate(blobs):
            x, y, w, h = blob.box
            left, top = origins[i]
            dice.append(
                IconDie(
                    self.model.faces[faces[i]],
                    colours[i],
                    (x + left, y + top, w, h),
                    float(sure[i]),
                )
            )
        return dice


def _check(image: Image) -> None:
    if image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 8:
        raise ValueError(f"a BGR picture is needed, not an array of shape {image.shape}")


def _cut(
    image: Image, polygon: NDArray[np.float32], shrink: float = 0.0
) -> tuple[int, int, Image | None, NDArray[np.uint8] | None]:
    """The polygon's bounding part of `image` and a mask of the polygon in it (shrunk toward
    its middle by `shrink`, so the edges of a board cell's neighbours are left out)."""
    height, width = image.shape[:2]
    left, top = np.floor(polygon.min(axis=0)).astype(int).clip(0, (width, height))
    right, bottom = np.ceil(polygon.max(axis=0)).astype(int).clip(0, (width, height))
    if right - left < 8 or bottom - top < 8:
        return 0, 0, None, None  # the region lies outside this picture
    middle = polygon.mean(axis=0)
    inner = middle + (polygon - middle) * (1 - shrink) - (left, top)
    mask = np.zeros((bottom - top, right - left), np.uint8)
    cv2.fillPoly(mask, [np.round(inner).astype(np.int32)], 255)
    return int(left), int(top), image[top:bottom, left:right], mask
