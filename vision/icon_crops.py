"""Where icon dice lie in a picture, and each die as a small centred crop with its features.

Classical OpenCV, shared by learning and reading so both see dice the same way:

- **Finding dice.** A die's outline (its darker sides, its shadow) and its icon are edges; a plain
  tray or board space has none. Colour edges (the strongest channel's Sobel, above the noise of
  the picture's quietest quarter) are closed, and the hull of each blob is kept when it is
  compact and large enough; its centre is that of the hull of its sharp edges alone, so a soft
  shadow does not pull it aside. So the surface must be plain (felt, wood, a printed board space:
  a smooth gradient of light is fine) and the dice apart: two touching dice make one long blob,
  which is not read.
- **Centred crop.** The die is cut out about its centre and scaled by its blob's area, so any
  die size reads alike; a d12's crop is its top face, where the numeral is.
- **Features.** Of the icon, ones that a turn of the die leaves unchanged (`shape_features`):
  no angle is guessed, and a few photos of each face are enough, whatever way it lies. Of the
  colour, the median Lab of the body: the larger of the two Otsu classes of the crop's middle,
  so the icon's ink does not count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.image_files import Image

CROP = 32
"""Side of the centred crop the features are taken from, pixels."""
ZOOM = 0.8
"""How much of the die the crop spans (its side over the blob's): a cube's icon fills most of
its top face."""
D12_ZOOM = 0.58
"""A d12's numeral sits in its top pentagon, a small part of the die. The d12 is a shape, as the
d6 is; every other kind of dice is a cube with an icon, whatever game rolls it."""
EDGE_FLOOR = 24.0
"""The weakest Sobel response, (|dx| + |dy|) / 2, taken for an edge (a smooth gradient of light
stays below it)."""
SHARP = 0.4
"""A sharp edge is at least this share of a blob's strongest (its 95th percentile)."""
NOISE_TIMES = 4.0
"""An edge is this many times stronger than the quietest quarter of the picture at least."""
MIN_SIDE = 12.0
"""The smallest die read, pixels (its area's square root)."""
MIN_FILL = 0.6
MAX_ASPECT = 1.6
"""A blob's hull fills at least this much of its rotated bounding box, which is at most this
long for its width: a die, not a stray line."""

RADII = 16
ANGLES = 64
HARMONICS = 16
"""The polar grid the crop is resampled on, and the angular harmonics kept."""

Features = NDArray[np.float32]


@dataclass(frozen=True)
class Blob:
    """A die found in a picture."""

    centre: tuple[float, float]
    side: float
    """The square root of its area, pixels."""
    box: tuple[int, int, int, int]
    """x, y, width, height in pixels."""


def edge_mask(image: Image) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """255 where the colour changes sharply; and how sharply, everywhere."""
    smooth = cv2.GaussianBlur(image, (0, 0), 1.0)
    dx = cv2.convertScaleAbs(cv2.Sobel(smooth, cv2.CV_16S, 1, 0))
    dy = cv2.convertScaleAbs(cv2.Sobel(smooth, cv2.CV_16S, 0, 1))
    b, g, r = cv2.split(cv2.addWeighted(dx, 0.5, dy, 0.5, 0))
    magnitude = cv2.max(cv2.max(b, g), r)
    # The quietest quarter of a tray or a cell is bare surface: its level is the noise's.
    counts = np.bincount(magnitude.reshape(-1), minlength=256).cumsum()
    quiet = float(np.searchsorted(counts, counts[-1] / 4))
    floor = max(EDGE_FLOOR, NOISE_TIMES * quiet)
    _, edges = cv2.threshold(magnitude, floor, 255, cv2.THRESH_BINARY)
    return np.asarray(edges, np.uint8), np.asarray(magnitude, np.uint8)


def find_blobs(
    image: Image, mask: NDArray[np.uint8] | None = None, close_px: int = 5
) -> list[Blob]:
    """Every compact blob of edges (within `mask` if given), at least MIN_SIDE across, biggest
    first."""
    edges, magnitude = edge_mask(image)
    if mask is not None:
        edges &= mask
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close_px, close_px))
    edges = np.asarray(cv2.morphologyEx(edges, cv2.MORPH_CLOSE, kernel), np.uint8)
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    blobs = []
    for contour in contours:
        # The hull, so that an outline broken at a corner (faint, or cut by a cell's edge)
        # still gives the whole die.
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area < MIN_SIDE**2:
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(hull)
        if area < MIN_FILL * w * h or max(w, h) > MAX_ASPECT * min(w, h):
            continue
        hull = _sharp_part(hull, magnitude)
        area = cv2.contourArea(hull)
        moments = cv2.moments(hull)
        centre = (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])
        box = cv2.boundingRect(hull)
        blobs.append((area, hull, Blob(centre, math.sqrt(area), (box[0], box[1], box[2], box[3]))))
    blobs.sort(key=lambda found: -found[0])
    kept: list[tuple[NDArray[Any], Blob]] = []
    for _, hull, blob in blobs:
        # An icon whose die's outline is open at a side is a blob of its own, inside the die's.
        if all(cv2.pointPolygonTest(other, blob.centre, False) < 0 for other, _ in kept):
            kept.append((hull, blob))
    return [blob for _, blob in kept]


def _sharp_part(hull: NDArray[Any], magnitude: NDArray[np.uint8]) -> NDArray[Any]:
    """The hull of the blob's sharp edges alone: a die's outline is a sharp step, its shadow
    a soft one, which would pull the centre its way."""
    x, y, w, h = cv2.boundingRect(hull)
    inside = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(inside, hull - np.array([x, y], np.int32), 255)
    window = magnitude[y : y + h, x : x + w]
    level = np.percentile(window[inside > 0], 95)
    points = cv2.findNonZero(((window >= SHARP * level) & (inside > 0)).astype(np.uint8))
    if points is None or len(points) < 3:
        return hull
    sharp = cv2.convexHull(points + np.array([x, y], np.int32))
    return sharp if cv2.contourArea(sharp) >= 0.5 * cv2.contourArea(hull) else hull


def zoom_of(kind: str) -> float:
    """How much of a die of `kind` its crop spans."""
    return D12_ZOOM if kind == "d12" else ZOOM


def centred(image: Image, blob: Blob, zoom: float) -> Image:
    """The die scaled to CROP x CROP about its centre, in colour; the crop spans `zoom` times
    the blob's side."""
    scale = CROP / (zoom * blob.side)
    matrix = np.asarray(cv2.getRotationMatrix2D(blob.centre, 0, scale), np.float64)
    matrix[:, 2] += CROP / 2 - np.array(blob.centre)
    if scale < 0.7:  # shrinking a lot: smooth first, or thin strokes alias away
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), 0.4 / scale), np.uint8)
    crop = cv2.warpAffine(image, matrix, (CROP, CROP), flags=cv2.INTER_LINEAR)
    return np.asarray(crop, np.uint8)


def shape_features(crops: list[Image]) -> Features:
    """Features of each crop's icon that do not change when the die turns, one row each.

    The grey crop, its contrast normalised, is resampled in polar coordinates about the die's
    centre: a turn of the die is then a circular shift along the angle, which multiplies each
    angular harmonic k of each ring by the same phase. Kept: every ring's harmonic magnitudes,
    each ring's phase relative to the whole crop's (its harmonic summed over the rings) and to
    the next ring's. The relative phases keep where things lie from one another (the bar under
    a 6 against the loop of the 6), which the magnitudes alone would lose.
    """
    rows = []
    centre = (CROP / 2, CROP / 2)
    for crop in crops:
        grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
        grey = (grey - grey.mean()) / (grey.std() + 1e-3)
        polar = cv2.warpPolar(grey, (RADII, ANGLES), centre, CROP / 2, cv2.WARP_POLAR_LINEAR)
        rings = np.fft.rfft(polar, axis=0)[:HARMONICS].T  # RADII x HARMONICS
        whole = rings.sum(axis=0)
        to_whole = rings * np.conj(whole) / (np.abs(whole) + 1e-3)
        to_next = rings[1:] * np.conj(rings[:-1])
        to_next /= np.sqrt(np.abs(to_next)) + 1e-3
        rows.append(
            np.concatenate(
                [
                    np.abs(rings).ravel(),
                    to_whole.real.ravel(),
                    to_whole.imag.ravel(),
                    to_next.real.ravel(),
                    to_next.imag.ravel(),
                ]
            )
        )
    return np.asarray(rows, np.float32)


def colour_features(crops: list[Image]) -> Features:
    """The body's median L, a, b (OpenCV's 8-bit Lab) of each crop, the icon's ink left out."""
    return np.stack([_body_colour(c) for c in crops])


def _body_colour(crop: Image) -> Features:
    margin = CROP // 6
    middle = crop[margin:-margin, margin:-margin]
    lab = cv2.cvtColor(middle, cv2.COLOR_BGR2LAB).reshape(-1, 3)
    _, split = cv2.threshold(lab[:, 0].copy(), 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = split.reshape(-1).astype(bool)
    body = lab[light] if light.sum() * 2 >= light.size else lab[~light]
    return np.asarray(np.median(body, axis=0), np.float32)
