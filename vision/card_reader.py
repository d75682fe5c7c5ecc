"""Reading the cards in a picture: each card's id (or its back), outline and confidence.

Every card side carries two ArUco markers (vision/card_deck.py): one in its top-left corner, one
turned half round in its bottom-right corner, with different ids. One marker seen is enough: its
corners give the homography from card millimetres to pixels, and so the card's four corners.
Markers whose cards' outlines coincide are one card; two markers that agree make it surer.
A marker is only taken when its cells, sampled again here, match its code: that check, and a
card's second marker disagreeing, keep wrong ids out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.profile import Region
from vision.calibration import Calibration
from vision.card_deck import (
    CARD_CORNERS_MM,
    CARD_MM,
    MARKER_CORNERS_MM,
    Card,
    dictionary,
    marker_table,
)
from vision.image_files import Image

CELLS = 7  # a 5x5 marker and its black border
SAMPLE = 10  # pixels per cell when a marker is sampled again
MIN_MARKER_SCORE = 0.5


@dataclass(frozen=True)
class SeenCard:
    """A card seen: `id` None for a back; corners clockwise from the card's top-left, pixels."""

    id: str | None
    face: str  # "up" or "down"
    corners: tuple[tuple[float, float], ...]
    confidence: float
    markers: int  # how many of its two markers were read
    slot: str | None = None

    @property
    def centre(self) -> tuple[float, float]:
        x, y = np.mean(np.array(self.corners), axis=0)
        return float(x), float(y)

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "face": self.face,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
        }
        if self.slot is not None:
            out["slot"] = self.slot
        return out


@dataclass(frozen=True)
class _Marker:
    card: str | None
    position: int  # 0 top-left, 1 bottom-right
    corners: NDArray[np.float64]  # 4 x 2, pixels
    card_corners: NDArray[np.float64]  # 4 x 2, pixels
    score: float


class CardReader:
    """Reads the markers of `cards` (say, one game's deck) and of the backs."""

    def __init__(self, cards: Iterable[Card]) -> None:
        self._table = marker_table(cards)
        self._dictionary = cv2.aruco.getPredefinedDictionary(dictionary(self._table))
        parameters = cv2.aruco.DetectorParameters()
        parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        parameters.adaptiveThreshWinSizeMin = 5
        parameters.adaptiveThreshWinSizeMax = 53
        parameters.adaptiveThreshWinSizeStep = 8
        parameters.errorCorrectionRate = 0.4  # fewer bits mended: fewer wrong ids
        parameters.perspectiveRemovePixelPerCell = 8
        parameters.perspectiveRemoveIgnoredMarginPerCell = 0.2
        self._detector = cv2.aruco.ArucoDetector(self._dictionary, parameters)
        self._codes = {
            marker: cv2.aruco.generateImageMarker(self._dictionary, marker, CELLS) > 127
            for marker in self._table
        }

    def read(self, image: Image) -> list[SeenCard]:
        grey = np.asarray(
            image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8
        )
        corners, ids, _ = self._detector.detectMarkers(grey)
        markers = []
        for quad, marker in zip(corners, [] if ids is None else ids.ravel(), strict=False):
            entry = self._table.get(int(marker))
            if entry is None:
                continue
            points = np.asarray(quad, np.float64).reshape(4, 2)
            score = self._score(grey, points, int(marker))
            if score < MIN_MARKER_SCORE:
                continue
            markers.append(
                _Marker(entry[0], entry[1], points, _card_corners(points, entry[1]), score)
            )
        return _group(markers)

    def _score(self, grey: NDArray[np.uint8], points: NDArray[np.float64], marker: int) -> float:
        """How well the marker's cells, sampled again, match its code: 1 perfect, 0 none."""
        size = CELLS * SAMPLE
        target = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
        matrix = cv2.getPerspectiveTransform(points.astype(np.float32), target)
        patch = cv2.warpPerspective(grey, matrix, (size, size), flags=cv2.INTER_LINEAR)
        m = SAMPLE // 4
        cells = patch.reshape(CELLS, SAMPLE, CELLS, SAMPLE)[:, m:-m, :, m:-m].mean(axis=(1, 3))
        code = self._codes[marker]
        light, dark = cells[code], cells[~code]
        if light.size == 0 or dark.size == 0:
            return 0.0
        contrast = float(light.mean() - dark.mean())
        if contrast <= 0:
            return 0.0
        threshold = (light.mean() + dark.mean()) / 2
        wrong = int((light < threshold).sum() + (dark >= threshold).sum())
        # The margin of the worst cells, as a share of the contrast.
        margin = min(float(light.min()) - threshold, threshold - float(dark.max())) / contrast
        agreement = 1.0 - wrong / CELLS**2
        return float(np.clip(agreement**6 * (0.75 + 0.5 * max(-0.5, min(0.5, margin))), 0, 1))


def read_cards(image: Image, cards: Iterable[Card]) -> list[SeenCard]:
    """Every card seen in a picture (see `CardReader`)."""
    return CardReader(cards).read(image)


def place_in_slots(
    cards: list[SeenCard], calibration: Calibration, regions: Mapping[str, Region]
) -> list[SeenCard]:
    """The cards with the slot whose region (table mm) holds each card's centre, if any."""
    placed = []
    for card in cards:
        x, y = calibration.to_table([card.centre])[0]
        slot = next(
            (
                name
                for name, r in regions.items()
                if r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h
            ),
            None,
        )
        placed.append(
            SeenCard(card.id, card.face, card.corners, card.confidence, card.markers, slot)
        )
    return placed


def _card_corners(points: NDArray[np.float64], position: int) -> NDArray[np.float64]:
    """The card's corners in pixels, from one of its markers' corners."""
    source = np.array(MARKER_CORNERS_MM[position], np.float32)
    homography = cv2.getPerspectiveTransform(source, points.astype(np.float32))
    card = np.array(CARD_CORNERS_MM, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(card, homography), np.float64).reshape(4, 2)


def _group(markers: list[_Marker]) -> list[SeenCard]:
    """Markers whose cards coincide are one card: at most a top and a bottom marker each."""
    used = [False] * len(markers)
    order = sorted(range(len(markers)), key=lambda k: -markers[k].score)
    cards = []
    for k in order:
        if used[k]:
            continue
        used[k] = True
        first = markers[k]
        size = float(np.linalg.norm(first.card_corners[0] - first.card_corners[2]))
        centre = first.card_corners.mean(axis=0)
        partner, rival = None, None
        for j in order:
            other = markers[j]
            if used[j] or other.position == first.position:
                continue
            if np.linalg.norm(other.card_corners.mean(axis=0) - centre) > 0.3 * size:
                continue
            if other.card == first.card:
                if partner is None:
                    partner, used[j] = other, True
            elif rival is None:
                rival, used[j] = other, True
        group = [first] if partner is None else [first, partner]
        corners = _fit(group) if partner is not None else first.card_corners
        confidence = first.score
        if partner is not None:
            confidence = 1 - (1 - first.score) * (1 - partner.score)
        if rival is not None:  # a card's two markers read as two cards: trust neither much
            confidence = min(confidence, 0.3)
        cards.append(
            SeenCard(
                first.card,
                "down" if first.card is None else "up",
                tuple((float(x), float(y)) for x, y in corners),
                float(confidence),
                len(group),
            )
        )
    return cards


def _fit(group: list[_Marker]) -> NDArray[np.float64]:
    """The card's corners from the homography fitted to all its markers' corners."""
    source = np.concatenate([np.array(MARKER_CORNERS_MM[m.position]) for m in group])
    target = np.concatenate([m.corners for m in group])
    homography, _ = cv2.findHomography(source.astype(np.float32), target.astype(np.float32))
    if homography is None:
        return group[0].card_corners
    card = np.array(CARD_CORNERS_MM, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(card, homography), np.float64).reshape(4, 2)


__all__ = ["CARD_MM", "CardReader", "SeenCard", "place_in_slots", "read_cards"]
