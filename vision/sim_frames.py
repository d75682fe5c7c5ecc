"""Frames of the simulated table, as a camera fixed over it would give them.

The table is drawn straight down in millimetres (`PX_MM` pixels each): the cloth, the board, the
profile's ArUco markers on white paper, the dice tray, a white card on each camera region where
something lies, and the dice lying in the tray. A homography, fixed for the camera's life, puts
it into the frame at a slant; each frame is slightly blurred and noised. So calibration, the
camera picture and the learning of dice all work on the simulated table as on a real one.

A die in the tray is drawn at a new place and turn in each frame, as one rolled again: the
builder learning dice on the dashboard "rolls" the face asked for (`show_dice`). Its top shows
the face's number (a simulated copy of the dice: any mark tells the faces apart, as a real copy's
icons do); a die of several colours has its body in the colour named.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Mapping, Sequence

import cv2
import numpy as np

from hardware.profile import BoardProfile, Region
from vision.calibration import marker_dictionary
from vision.image_files import Image

PX_MM = 2.0
QUIET_MM = 8.0
"""White paper around each marker, which the detector needs."""
MARGIN_MM = 20.0
"""Cloth beyond the markers and the table."""
DIE_MM = 30.0
CLOTH = (60, 95, 70)
BOARD = (50, 80, 120)
TRAY = (70, 70, 70)
BODY = (225, 228, 230)
INK = (30, 30, 30)
# The body colours of dice of several colours, by name (BGR); another name gets a grey.
COLOURS = {
    "yellow": (40, 205, 235),
    "turquoise": (190, 185, 40),
    "red": (45, 40, 200),
    "purple": (140, 50, 120),
    "white": (235, 235, 232),
    "black": (40, 40, 40),
    "green": (60, 160, 60),
    "blue": (180, 90, 30),
}
SimDie = tuple[int, str | None]
"""A die in the tray: its face's number (1-based), and its colour (None: the plain body)."""


class SimFrames:
    """The simulated camera over one board profile's table."""

    def __init__(self, profile: BoardProfile, size: tuple[int, int], seed: int | None) -> None:
        if profile.table_size_mm is None:
            raise ValueError(f"board profile {profile.source} gives no [table] size_mm")
        self.profile = profile
        self.size = size
        self._rng = random.Random(None if seed is None else f"sim frames {seed}")
        self._lock = threading.Lock()
        self._dice: tuple[SimDie, ...] = ()
        self._board: dict[str, str] = {}
        corners = [c for m in profile.markers for c in m.corners_mm()]
        width, height = profile.table_size_mm
        pad = QUIET_MM + MARGIN_MM
        self._left = min([0.0, *(x for x, _ in corners)]) - pad
        self._top = min([0.0, *(y for _, y in corners)]) - pad
        right = max([width, *(x for x, _ in corners)]) + pad
        bottom = max([height, *(y for _, y in corners)]) + pad
        self._drawing = self._table((right - self._left, bottom - self._top))
        self._matrix = self._pose()

    def show_dice(self, dice: Sequence[SimDie]) -> None:
        """The dice lying in the tray from now on (none: the tray is empty)."""
        with self._lock:
            self._dice = tuple(dice)

    def show_board(self, board: Mapping[str, str]) -> None:
        """What lies on the camera's regions: each shows a white card."""
        with self._lock:
            self._board = dict(board)

    def frame(self) -> Image:
        """The table as the camera sees it now. Safe from any thread."""
        with self._lock:
            dice, board = self._dice, self._board
            seed = self._rng.getrandbits(32)
        rng = random.Random(seed)
        image = self._drawing.copy()
        regions = self.profile.camera_regions()
        for spot in board:
            region = regions.get(spot)
            if region is not None:
                inset = min(region.w, region.h) * 0.1
                self._box(image, Region(*self._inset(region, inset)), (235, 235, 235))
        tray = self.profile.dice_tray
        if tray is not None:
            for index, die in enumerate(dice):
                self._die(image, die, self._place(tray, index, len(dice), rng), rng)
        frame = cv2.warpPerspective(
            image, self._matrix, self.size, flags=cv2.INTER_AREA, borderValue=(40, 60, 50)
        )
        frame = cv2.GaussianBlur(frame, (0, 0), 0.6)
        # Uniform noise of +-4, with OpenCV's saturating sums: no wider type needed.
        noise = np.random.default_rng(seed).integers(0, 9, frame.shape, np.uint8)
        noisy = cv2.add(frame, noise)
        return np.asarray(cv2.subtract(noisy, np.full(frame.shape, 4, np.uint8)), np.uint8)

    # -- the drawing ------------------------------------------------------------------------

    def _px(self, x_mm: float, y_mm: float) -> tuple[int, int]:
        return round((x_mm - self._left) * PX_MM), round((y_mm - self._top) * PX_MM)

    @staticmethod
    def _inset(region: Region, by: float) -> tuple[float, float, float, float]:
        return region.x + by, region.y + by, region.w - 2 * by, region.h - 2 * by

    def _box(self, image: Image, region: Region, colour: tuple[int, int, int]) -> None:
        x, y, w, h = region
        cv2.rectangle(image, self._px(x, y), self._px(x + w, y + h), colour, -1)

    def _table(self, size_mm: tuple[float, float]) -> Image:
        profile = self.profile
        assert profile.table_size_mm is not None
        width, height = (round(side * PX_MM) for side in size_mm)
        image = np.full((height, width, 3), CLOTH, np.uint8)
        self._box(image, Region(0, 0, *profile.table_size_mm), BOARD)
        for region in profile.camera_regions().values():
            cv2.rectangle(
                image,
                self._px(region.x, region.y),
                self._px(region.x + region.w, region.y + region.h),
                (90, 120, 150),
                2,
            )
        if profile.dice_tray is not None:
            self._box(image, profile.dice_tray, TRAY)
        for marker in profile.markers:
            x, y = marker.center_mm
            half = marker.size_mm / 2
            paper = half + QUIET_MM
            self._box(image, Region(x - paper, y - paper, 2 * paper, 2 * paper), (255, 255, 255))
            pixels = round(marker.size_mm * PX_MM)
            code = cv2.aruco.generateImageMarker(marker_dictionary(), marker.id, pixels)
            left, top = self._px(x - half, y - half)
            image[top : top + pixels, left : left + pixels] = code[:, :, None]
        return image

    def _pose(self) -> np.ndarray:
        """The camera a little off the table's centre, turned a little: one edge nearer, so
        larger, than the other. Fixed for the camera's life."""
        height, width = self._drawing.shape[:2]
        w, h = self.size
        scale = min(w / width, h / height) * 0.94
        dw, dh = width * scale, height * scale
        x0, y0 = (w - dw) / 2, (h - dh) / 2
        target = np.array([[x0, y0], [x0 + dw, y0], [x0 + dw, y0 + dh], [x0, y0 + dh]])
        jitter = [[self._rng.uniform(-0.015, 0.015) for _ in range(2)] for _ in range(4)]
        target += np.array(jitter) * [dw, dh]
        target[:2, 0] += [0.025 * dw, -0.025 * dw]
        source = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        return np.asarray(cv2.getPerspectiveTransform(source, target.astype(np.float32)))

    def _place(
        self, tray: Region, index: int, count: int, rng: random.Random
    ) -> tuple[float, float]:
        """Where die `index` of `count` lands in the tray: its own band of it, so dice lie apart."""
        margin = DIE_MM
        band = (tray.h - 2 * margin) / max(count, 1)
        x = tray.x + margin + rng.uniform(0, max(tray.w - 2 * margin, 0))
        y = tray.y + margin + band * (index + rng.uniform(0.2, 0.8))
        return x, y

    def _die(self, image: Image, die: SimDie, at: tuple[float, float], rng: random.Random) -> None:
        """A die seen from above: its shadow, its darker sides as a rim, its top with its number,
        turned any way."""
        face, colour = die
        body = BODY if colour is None else COLOURS.get(colour, (150, 150, 150))
        angle = rng.uniform(0, math.tau)
        half = DIE_MM / 2
        cx, cy = at

        def square(side: float, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
            points = []
            for k in range(4):
                a = angle + math.pi / 4 + k * math.pi / 2
                r = side / math.sqrt(2)
                points.append(self._px(cx + dx + r * math.cos(a), cy + dy + r * math.sin(a)))
            return np.array(points, np.int32)

        cv2.fillConvexPoly(image, square(half * 1.05, 1.5, 2.0), (35, 35, 35), cv2.LINE_AA)
        cv2.fillConvexPoly(image, square(half), tuple(int(c * 0.7) for c in body), cv2.LINE_AA)
        cv2.fillConvexPoly(image, square(half * 0.86), body, cv2.LINE_AA)
        # A number, drawn upright on a patch then turned with the die: 6 and 9 are underlined.
        side = round(DIE_MM * PX_MM)
        patch = np.zeros((side, side), np.uint8)
        text = str(face)
        scale = 0.45 * PX_MM * DIE_MM / 40
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        origin = ((side - tw) // 2, (side + th) // 2)
        cv2.putText(patch, text, origin, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 2, cv2.LINE_AA)
        if face in (6, 9):
            y = origin[1] + 4
            cv2.line(patch, (origin[0], y), (origin[0] + tw, y), 255, 2)
        turn = cv2.getRotationMatrix2D((side / 2, side / 2), -math.degrees(angle), 1.0)
        patch = np.asarray(cv2.warpAffine(patch, turn, (side, side)), np.uint8)
        left, top = self._px(cx - half, cy - half)
        window = image[top : top + side, left : left + side]
        ink = patch[: window.shape[0], : window.shape[1], None].astype(np.float32) / 255
        window[:] = (window * (1 - ink) + np.array(INK) * ink).astype(np.uint8)
