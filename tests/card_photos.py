"""Simulated photos of printed card sheets: a page seen by a camera over the table.

The page (a raster from vision/card_sheet.py) is scaled to 2.2-4 pixels a millimetre (a 720 mm
table over 1600-2900 pixels), turned any way, seen in perspective, lit unevenly, shadowed, with
finger-like blobs over some cards' markers, blurred, noised and JPEG-compressed. The truth is
every card's id (None for a back) and its corners in the photo.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_deck import CARD_MM, MARKER_CORNERS_MM
from vision.card_sheet import Placed
from vision.marker_sheet import DPI

PX_PER_MM = DPI / 25.4


@dataclass(frozen=True)
class Truth:
    id: str | None
    corners: np.ndarray  # 4 x 2, photo pixels, clockwise from the card's top-left


@dataclass(frozen=True)
class Photo:
    image: np.ndarray
    cards: list[Truth]


def photograph(
    page: np.ndarray,
    placed: list[Placed],
    rng: random.Random,
    size: tuple[int, int] = (1600, 1200),
    scale: tuple[float, float] = (2.2, 4.0),
    fingers: int = 2,
    hard: bool = True,
) -> Photo:
    """A photo of `page`, whose cards lie at `placed` (page mm)."""
    width, height = size
    size_xy = np.array(size, np.float64)
    px_mm = rng.uniform(*scale)
    # Pre-shrink the page to about the photo's scale (no aliasing), then warp.
    pre = min(1.0, 1.6 * px_mm / PX_PER_MM)
    small = cv2.resize(page, None, fx=pre, fy=pre, interpolation=cv2.INTER_AREA)
    ph, pw = small.shape[:2]
    source = np.array([[0, 0], [pw, 0], [pw, ph], [0, ph]], np.float32)
    # The page's outline in the photo: rotated, scaled, shifted, then each corner moved a bit.
    angle = rng.uniform(0, 2 * math.pi)
    page_w, page_h = pw / pre / PX_PER_MM * px_mm, ph / pre / PX_PER_MM * px_mm
    centre = np.array([width / 2 + rng.uniform(-60, 60), height / 2 + rng.uniform(-60, 60)])
    c, s = math.cos(angle), math.sin(angle)
    rotation = np.array([[c, -s], [s, c]])
    box = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [page_w / 2, page_h / 2]
    tilt = 0.12 if hard else 0.04
    target = box @ rotation.T + centre
    target += np.array([[rng.uniform(-tilt, tilt) * page_w, rng.uniform(-tilt, tilt) * page_h]
                        for _ in range(4)])  # fmt: skip
    # The whole page in the photo: shrunk about its centre if it would not fit.
    low, high = target.min(axis=0), target.max(axis=0)
    fit = min(1.0, *((centre - 8) / (centre - low)), *((size_xy - centre - 8) / (high - centre)))
    target = centre + (target - centre) * fit
    matrix = cv2.getPerspectiveTransform(source, target.astype(np.float32))
    table = np.array([rng.randint(40, 110), rng.randint(50, 120), rng.randint(60, 140)], np.uint8)
    photo = cv2.warpPerspective(
        small, matrix, (width, height), flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(int(v) for v in table),
    ).astype(np.float32)  # fmt: skip

    def to_photo(points_mm: np.ndarray) -> np.ndarray:
        points = (points_mm * PX_PER_MM * pre).reshape(-1, 1, 2).astype(np.float64)
        return np.asarray(cv2.perspectiveTransform(points, matrix), np.float64).reshape(-1, 2)

    truths = []
    for item in placed:
        w, h = CARD_MM
        outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) + np.array(
            [item.x, item.y]
        )
        truths.append(Truth(None if item.card is None else item.card.id, to_photo(outline)))

    # Light: a gradient across the photo, and a soft shadow over part of it.
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = (math.cos(direction) * xx + math.sin(direction) * yy) / max(width, height)
    low = rng.uniform(0.4, 0.8) if hard else 0.85
    light = low + (1.1 - low) * (ramp - ramp.min()) / max(1e-6, float(np.ptp(ramp)))
    if hard:
        shadow = np.zeros((height, width), np.float32)
        corner = np.array([rng.uniform(0, width), rng.uniform(0, height)])
        polygon = corner + np.array(
            [[rng.uniform(-400, 400), rng.uniform(-400, 400)] for _ in range(5)]
        )
        cv2.fillPoly(shadow, [polygon.astype(np.int32)], 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 25)
        light *= 1 - rng.uniform(0.3, 0.55) * shadow
    photo *= light[:, :, None]

    # Fingers: a skin-coloured blob over one marker of a card, never over both.
    for item in rng.sample(placed, min(fingers, len(placed))):  # one finger a card at most
        which = rng.randrange(2)
        marker = np.mean(MARKER_CORNERS_MM[which], axis=0) + np.array([item.x, item.y])
        tip = to_photo(marker.reshape(1, 2))[0]
        axes = (9 * px_mm, 32 * px_mm)
        away = rng.uniform(0, 360)
        mask = np.zeros((height, width), np.float32)
        cv2.ellipse(mask, (int(tip[0]), int(tip[1])), (int(axes[0]), int(axes[1])), away, 0, 360,
                    1.0, -1)  # fmt: skip
        mask = cv2.GaussianBlur(mask, (0, 0), 2)[:, :, None]
        skin = np.array([rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 230)])
        photo = photo * (1 - mask) + mask * skin * rng.uniform(0.6, 1.0)

    sigma = rng.uniform(0.5, 1.6) if hard else 0.6
    photo = cv2.GaussianBlur(photo, (0, 0), sigma)
    photo += np.random.default_rng(rng.randrange(2**32)).normal(0, rng.uniform(2, 7), photo.shape)
    image = np.clip(photo, 0, 255).astype(np.uint8)
    quality = rng.randint(70, 92)
    image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], 1)
    return Photo(image, truths)


@dataclass
class Score:
    cards: int = 0
    read: int = 0
    wrong: int = 0  # a card read with another id, or a card seen where there is none
    worst_corner: float = 0.0  # pixels

    def add(self, photo: Photo, seen: list[object]) -> None:
        from vision.card_reader import SeenCard

        taken = [False] * len(seen)
        for truth in photo.cards:
            self.cards += 1
            centre = truth.corners.mean(axis=0)
            size = float(np.linalg.norm(truth.corners[0] - truth.corners[2]))
            for k, card in enumerate(seen):
                assert isinstance(card, SeenCard)
                if taken[k] or np.linalg.norm(np.array(card.centre) - centre) > 0.2 * size:
                    continue
                taken[k] = True
                if card.id != truth.id:
                    self.wrong += 1
                else:
                    self.read += 1
                    error = float(np.abs(np.array(card.corners) - truth.corners).max())
                    self.worst_corner = max(self.worst_corner, error)
                break
        self.wrong += taken.count(False)
