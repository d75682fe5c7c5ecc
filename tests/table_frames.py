"""Simulated camera frames of the table: printed cards in their slots, the calibration markers
around the table, seen from above at a slant, slightly blurred and noisy.

The table is drawn straight down in millimetres (`PX_MM` pixels each), with a margin for the
markers, then warped by a homography into the camera's frame. `calibrated` finds the markers
in a frame as `smartboard calibrate` does.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from controller.game_vision import all_cards
from hardware.profile import BoardProfile, Region
from vision.calibration import Calibration, calibrate, detect_markers, marker_dictionary
from vision.card_deck import Card
from vision.card_sheet import card_image

PX_MM = 3.0  # the drawing's scale, before the camera's warp
MARGIN_MM = 70.0  # room around the table for the markers
QUIET_MM = 8.0  # white paper around each marker


@functools.cache
def _card(card_id: str | None) -> np.ndarray:
    cards: dict[str, Card] = {c.id: c for c in all_cards()}
    return card_image(None if card_id is None else cards[card_id], dpi=round(PX_MM * 25.4))


def _at(x_mm: float, y_mm: float) -> tuple[int, int]:
    return round((x_mm + MARGIN_MM) * PX_MM), round((y_mm + MARGIN_MM) * PX_MM)


def table_drawing(profile: BoardProfile, cards: dict[str, str | None]) -> np.ndarray:
    """The table from straight above: `cards` maps a slot to a card id, None face down."""
    assert profile.table_size_mm is not None
    width, height = profile.table_size_mm
    size = _at(width + MARGIN_MM, height + MARGIN_MM)
    image = np.full((size[1], size[0], 3), (60, 95, 70), np.uint8)
    corner, far = _at(0, 0), _at(width, height)
    cv2.rectangle(image, corner, far, (50, 80, 120), -1)  # the board, darker than the cloth
    for marker in profile.markers:
        x, y = marker.center_mm
        half = marker.size_mm / 2 + QUIET_MM
        left, top = _at(x - half, y - half)
        right, bottom = _at(x + half, y + half)
        image[top:bottom, left:right] = 255
        pixels = round(marker.size_mm * PX_MM)
        code = cv2.aruco.generateImageMarker(marker_dictionary(), marker.id, pixels)
        left, top = _at(x - marker.size_mm / 2, y - marker.size_mm / 2)
        image[top : top + pixels, left : left + pixels] = code[:, :, None]
    regions = profile.camera_regions()
    for slot, card_id in cards.items():
        side = _card(card_id)
        region: Region = regions[slot]
        left, top = _at(region.x + 0.5, region.y + 0.5)
        image[top : top + side.shape[0], left : left + side.shape[1]] = side
    return image


def photograph(
    drawing: np.ndarray, size: tuple[int, int] = (1280, 960), seed: int = 0
) -> np.ndarray:
    """The drawing as the camera sees it: filling the frame at a slant, blurred and noised."""
    rng = np.random.default_rng(seed)
    height, width = drawing.shape[:2]
    w, h = size
    scale = min(w / width, h / height) * 0.96
    dw, dh = width * scale, height * scale
    x0, y0 = (w - dw) / 2, (h - dh) / 2
    target = np.array([[x0, y0], [x0 + dw, y0], [x0 + dw, y0 + dh], [x0, y0 + dh]])
    # The camera a little off the table's centre: one edge nearer, so larger, than the other.
    target += rng.uniform(-0.02, 0.02, (4, 2)) * [dw, dh]
    target[:2, 0] += [0.03 * dw, -0.03 * dw]
    source = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, target.astype(np.float32))
    frame = cv2.warpPerspective(drawing, matrix, size, flags=cv2.INTER_AREA,
                                borderValue=(40, 60, 50))  # fmt: skip
    frame = cv2.GaussianBlur(frame, (0, 0), 0.6).astype(np.float32)
    frame += rng.normal(0, 3, frame.shape)
    return np.clip(frame, 0, 255).astype(np.uint8)


def calibrated(frame: np.ndarray, profile: BoardProfile) -> Calibration:
    height, width = frame.shape[:2]
    return calibrate(detect_markers(frame), profile, (width, height))
