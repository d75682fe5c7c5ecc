"""Rendered camera frames of Hostile Takeover maps built from the printed kit.

A map is a layout as `TakeoverGame.layout` gives it: "rRcC.map" -> the top piece's token, and
"rRcC" -> a pawn. Its pieces are laid back from the tokens (`laid`): every map cell lies on a
tile, the tiles found in reading order; a large building's two cells paired; each piece turned
a random quarter and nudged a little, always the same way for the same piece in the same place,
so that a sequence of layouts looks like one table. The table is drawn straight down in
millimetres from the kit's printed pieces (vision/map_sheet.py), with the calibration markers
around it, pawns as coloured discs (seen a little in perspective) and sometimes a hand; then
seen in perspective in a 1600x1200 frame, lit unevenly, shadowed, with glare, blurred, noised
and JPEG-compressed. The truth is the layout, and the cells whose marker a pawn or a hand
touches (`covered`): those may read hidden or unsure, never as another piece.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.game_vision import map_kit
from controller.rules import GAMES
from controller.rules.api import Layout
from controller.rules.takeover import COLOURS, PRINTED
from controller.simulate import random_step
from hardware.profile import (
    CAMERA,
    BoardProfile,
    Region,
    Spot,
    builtin_profile_path,
    default_markers,
    load_profile,
)
from vision.calibration import Calibration, marker_dictionary
from vision.map_kit import MARKER_SHARE, Piece
from vision.map_sheet import piece_image

GAME = GAMES["takeover"]
KIT = {piece.token: piece for piece in map_kit(GAME)}
PX_MM = 4.0  # the drawing's scale, before the camera's warp
MARGIN_MM = 70.0  # room around the board for the calibration markers
QUIET_MM = 8.0
PAWN_MM = 22.0
SIZE = (1600, 1200)
SPOT = re.compile(r"r(\d+)c(\d+)\.map")
Cell = tuple[int, int]  # column, row


@dataclass(frozen=True)
class Laid:
    """A piece on the board: its printed top-left cell's place, its clockwise quarter turns,
    and a nudge (mm, degrees) off the exact place, as hands lay pieces."""

    piece: Piece
    origin: Cell
    turns: int
    nudge: tuple[float, float, float]

    def cells(self) -> list[Cell]:
        out = []
        for row in range(self.piece.cells[1]):
            for col in range(self.piece.cells[0]):
                dx, dy = col, row
                for _ in range(self.turns):
                    dx, dy = -dy, dx
                out.append((self.origin[0] + dx, self.origin[1] + dy))
        return out


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    calibration: Calibration
    layout: Layout
    covered: frozenset[str]  # ".map" spots whose marker a pawn or a hand touches


def map_cells(layout: Layout) -> dict[Cell, str]:
    out = {}
    for spot, token in layout.items():
        match = SPOT.fullmatch(spot)
        if match:
            out[int(match[2]), int(match[1])] = token
    return out


def _nudged(piece: Piece, origin: Cell, turns: int, salt: str) -> Laid:
    rng = random.Random(f"{salt}:{piece.token}:{origin}:{turns}")
    return Laid(piece, origin, turns, (rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2),
                                       rng.uniform(-2.5, 2.5)))  # fmt: skip


def laid(layout: Layout, salt: str = "") -> list[Laid]:
    """The pieces of a layout's map, tiles first (see the module's docstring)."""
    cells = map_cells(layout)
    pieces: list[Laid] = []
    free = set(cells)
    for col, row in sorted(cells, key=lambda c: (c[1], c[0])):
        if (col, row) in free:  # the first cell of a tile not yet laid: its top-left
            turns = random.Random(f"{salt}:tile:{col},{row}").randrange(4)
            corner = [(col, row), (col + 1, row), (col + 1, row + 1), (col, row + 1)][turns]
            pieces.append(_nudged(KIT["tile"], corner, turns, salt))
            free -= {(col, row), (col + 1, row), (col, row + 1), (col + 1, row + 1)}
    pairs = _pairs(sorted((c for c, t in cells.items() if t.startswith("large:")),
                          key=lambda c: (c[1], c[0])), cells)  # fmt: skip
    for cell, token in sorted(cells.items(), key=lambda c: (c[0][1], c[0][0])):
        if token == "tile" or (token.startswith("large:") and cell not in pairs):
            continue
        turns = random.Random(f"{salt}:{token}:{cell}").randrange(4)
        if token.startswith("large:"):
            pair = pairs[cell]
            turns = (turns % 2) * 2 + (pair[1] > cell[1])
            cell = {0: cell, 1: cell, 2: pair, 3: pair}[turns]
        pieces.append(_nudged(KIT[token], cell, turns, salt))
    return pieces


def _pairs(large: list[Cell], cells: dict[Cell, str]) -> dict[Cell, Cell]:
    """The large buildings' cells paired: each first cell (in reading order) -> its other."""
    if not large:
        return {}
    first = large[0]
    for other in ((first[0] + 1, first[1]), (first[0], first[1] + 1)):
        if other in large and cells[other] == cells[first]:
            rest = _pairs([c for c in large[1:] if c != other], cells)
            if len(rest) * 2 == len(large) - 2:
                return {first: other} | rest
    return {}


@functools.cache
def _printed(token: str, pitch: float, turns: int) -> np.ndarray:
    image = piece_image(KIT[token], pitch, PX_MM)
    return np.ascontiguousarray(np.rot90(image, k=-turns))


def _at(x_mm: float, y_mm: float) -> tuple[int, int]:
    return round((x_mm + MARGIN_MM) * PX_MM), round((y_mm + MARGIN_MM) * PX_MM)


def _grid(profile: BoardProfile) -> tuple[float, tuple[float, float]]:
    """The pitch, and the centre of the cell r0c0 (table mm): cells lie on a regular grid."""
    region = profile.camera_regions()["r0c0.map"]
    return region.w, (region.x + region.w / 2, region.y + region.h / 2)


def drawing(
    profile: BoardProfile,
    pieces: Sequence[Laid],
    pawns: Iterable[str] = (),
    hand: random.Random | None = None,
    blots: Iterable[str] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """The table from straight above: `pieces` laid in order of layer, a pawn on each cell of
    `pawns` ("rRcC"), a hand placed by `hand`, a fingertip on each cell of `blots`; and the
    occluders (pawns, hand, fingertips) at 1 px a mm."""
    assert profile.table_size_mm is not None
    width, height = profile.table_size_mm
    size = _at(width + MARGIN_MM, height + MARGIN_MM)
    image = np.full((size[1], size[0], 3), (60, 95, 70), np.uint8)
    cv2.rectangle(image, _at(0, 0), _at(width, height), (50, 80, 120), -1)
    for marker in profile.markers:
        paste(image, marker_dictionary(), marker.id, marker.center_mm, marker.size_mm, QUIET_MM)
    pitch, first = _grid(profile)
    for piece in sorted(pieces, key=lambda p: p.piece.layer):
        _lay(image, piece, pitch, first)
    occluders = np.zeros((round(height + 2 * MARGIN_MM), round(width + 2 * MARGIN_MM)), np.uint8)
    centre = np.array([width / 2, height / 2])
    for spot in pawns:
        col, row = _cell(spot)
        base = np.array(first) + np.array((col, row)) * pitch
        colour = PRINTED[COLOURS[(row * 7 + col) % len(COLOURS)]]
        bgr = tuple(int(colour[k : k + 2], 16) for k in (5, 3, 1))
        _pawn(image, occluders, base, base + (base - centre) * 0.035, bgr)
    if hand is not None:
        _hand(image, occluders, hand, width, height)
    for spot in blots:
        col, row = _cell(spot)
        tip = np.array(first) + np.array((col, row)) * pitch
        cv2.circle(image, _at(*tip), round(13 * PX_MM), (120, 150, 200), -1, cv2.LINE_AA)
        cv2.circle(occluders, tuple(int(v) for v in tip + MARGIN_MM), 13, 255, -1)
    return image, occluders


def paste(
    image: np.ndarray, family: cv2.aruco.Dictionary, marker: int, centre_mm: tuple[float, float],
    size_mm: float, quiet_mm: float = 0.0,
) -> None:  # fmt: skip
    """The marker `marker` of `family` drawn on the table at `centre_mm`, `size_mm` wide, in
    white paper `quiet_mm` wide."""
    x, y = centre_mm
    half = size_mm / 2 + quiet_mm
    (left, top), (right, bottom) = _at(x - half, y - half), _at(x + half, y + half)
    image[top:bottom, left:right] = 255
    pixels = round(size_mm * PX_MM)
    code = cv2.aruco.generateImageMarker(family, marker, family.markerSize + 2)
    left, top = _at(x - size_mm / 2, y - size_mm / 2)
    scaled = cv2.resize(code, (pixels, pixels), interpolation=cv2.INTER_NEAREST)
    image[top : top + pixels, left : left + pixels] = scaled[:, :, None]


def _cell(spot: str) -> Cell:
    match = re.fullmatch(r"r(\d+)c(\d+)(\.map)?", spot)
    assert match is not None, spot
    return int(match[2]), int(match[1])


def _lay(image: np.ndarray, piece: Laid, pitch: float, first: tuple[float, float]) -> None:
    printed = _printed(piece.piece.token, pitch, piece.turns)
    cells = piece.cells()
    dx, dy, angle = piece.nudge
    x_mm = first[0] + pitch * float(np.mean([c[0] for c in cells])) + dx
    y_mm = first[1] + pitch * float(np.mean([c[1] for c in cells])) + dy
    centre = _at(x_mm, y_mm)
    h, w = printed.shape[:2]
    reach = math.ceil(math.hypot(w, h) / 2) + 2
    x, y = centre[0] - reach, centre[1] - reach
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    matrix[:, 2] += (reach - w / 2, reach - h / 2)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), matrix, (2 * reach, 2 * reach))
    part = cv2.warpAffine(printed, matrix, (2 * reach, 2 * reach), flags=cv2.INTER_LINEAR)
    alpha = mask[:, :, None].astype(np.float32) / 255
    window = image[y : y + 2 * reach, x : x + 2 * reach]
    window[:] = (window * (1 - alpha) + part * alpha).astype(np.uint8)


def _pawn(image: np.ndarray, occluders: np.ndarray, base: np.ndarray, top: np.ndarray,
          colour: tuple[int, ...]) -> None:  # fmt: skip
    dark = tuple(int(c * 0.55) for c in colour)
    radius = PAWN_MM / 2
    for t in np.linspace(0, 1, 8):
        at = base + (top - base) * t
        cv2.circle(image, _at(*at), round(radius * PX_MM), dark if t < 1 else colour, -1,
                   cv2.LINE_AA)  # fmt: skip
        cv2.circle(occluders, tuple(int(v) for v in at + MARGIN_MM), round(radius), 255, -1)
    light = tuple(min(255, c + 50) for c in colour)
    cv2.circle(image, _at(*top), round(radius * 0.5 * PX_MM), light, -1, cv2.LINE_AA)


def _hand(image: np.ndarray, occluders: np.ndarray, rng: random.Random, width: float,
          height: float) -> None:  # fmt: skip
    """A hand reaching in over the board: a palm and four fingers, seen from above."""
    tip = np.array([rng.uniform(40, width - 40), rng.uniform(40, height - 40)])
    angle = rng.uniform(0, 2 * math.pi)
    towards = np.array([math.cos(angle), math.sin(angle)])  # from the fingertips to the wrist
    side = np.array([-towards[1], towards[0]])
    skin = (rng.uniform(90, 150), rng.uniform(120, 170), rng.uniform(170, 230))
    shapes = [(tip + towards * 70, (32, 45), 0.0)]
    shapes += [(tip + side * k * 11 + towards * (28 + abs(k) * 6), (6, 26), 0.0)
               for k in (-1.5, -0.5, 0.5, 1.5)]  # fmt: skip
    shapes += [(tip + towards * 210, (30, 140), 0.0)]  # the arm, out to the edge
    for centre, (a, b), _ in shapes:
        rotation = math.degrees(angle) + 90
        cv2.ellipse(image, _at(*centre), (round(a * PX_MM), round(b * PX_MM)), rotation, 0, 360,
                    skin, -1, cv2.LINE_AA)  # fmt: skip
        cv2.ellipse(occluders, tuple(int(v) for v in centre + MARGIN_MM), (a, b), rotation, 0, 360,
                    255, -1)  # fmt: skip


def covered(profile: BoardProfile, layout: Layout, occluders: np.ndarray) -> frozenset[str]:
    """The map's cells whose marker an occluder touches."""
    pitch, first = _grid(profile)
    half = MARKER_SHARE * pitch / 2 + 1.5  # and the nudge
    out = set()
    for spot in layout:
        if not spot.endswith(".map"):
            continue
        col, row = _cell(spot)
        x, y = first[0] + col * pitch + MARGIN_MM, first[1] + row * pitch + MARGIN_MM
        if occluders[round(y - half) : round(y + half), round(x - half) : round(x + half)].any():
            out.add(spot)
    return frozenset(out)


@dataclass(frozen=True)
class Camera:
    """Where the camera looks from: the drawing's corners in the frame."""

    matrix: np.ndarray  # drawing pixels -> frame pixels

    @classmethod
    def random(cls, drawing_size: tuple[int, int], rng: random.Random) -> Camera:
        w, h = drawing_size
        scale = min(SIZE[0] / w, SIZE[1] / h) * 0.97
        angle = math.radians(rng.uniform(-8, 8))
        c, s = math.cos(angle), math.sin(angle)
        box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], np.float64) / 2 * scale
        target = box @ np.array([[c, -s], [s, c]]).T
        target += np.array([[rng.uniform(-0.03, 0.03) * w * scale for _ in range(2)]
                            for _ in range(4)])  # fmt: skip
        # The camera off the table's middle: the nearer edge larger than the other.
        near = rng.randrange(4)
        target[[near, (near + 1) % 4]] *= 1 + rng.uniform(0, 0.08)
        reach = np.abs(target).max(axis=0)  # from the frame's middle
        fit = min(1.0, *((np.array(SIZE) / 2 - 3) / reach))
        target = target * fit + np.array(SIZE) / 2
        source = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        return cls(cv2.getPerspectiveTransform(source, target.astype(np.float32)))

    def calibration(self, profile: BoardProfile) -> Calibration:
        to_drawing = np.array([[PX_MM, 0, MARGIN_MM * PX_MM], [0, PX_MM, MARGIN_MM * PX_MM],
                               [0, 0, 1]])  # fmt: skip
        to_table = np.linalg.inv(self.matrix @ to_drawing)
        to_table /= to_table[2, 2]
        rows = tuple((float(a), float(b), float(c)) for a, b, c in to_table)
        ids = tuple(sorted(m.id for m in profile.markers))
        return Calibration(profile.name, SIZE, rows, ids, 0.0)


def photograph(drawing: np.ndarray, camera: Camera, rng: random.Random, hard: bool) -> np.ndarray:
    """The drawing as the camera sees it: perspective, light, shadow, glare, blur, noise, JPEG."""
    width, height = SIZE
    frame = cv2.warpPerspective(drawing, camera.matrix, SIZE, flags=cv2.INTER_AREA,
                                borderValue=(40, 60, 50)).astype(np.float32)  # fmt: skip
    yy, xx = np.mgrid[0:height:8, 0:width:8].astype(np.float32)
    direction = rng.uniform(0, 2 * math.pi)
    ramp = (math.cos(direction) * xx + math.sin(direction) * yy) / max(width, height)
    low = rng.uniform(0.55, 0.85) if hard else 0.9
    light = low + (1.1 - low) * (ramp - ramp.min()) / max(1e-6, float(np.ptp(ramp)))
    if hard:
        shadow = np.zeros_like(light)
        corner = np.array([rng.uniform(0, width / 8), rng.uniform(0, height / 8)])
        polygon = corner + np.array([[rng.uniform(-50, 50), rng.uniform(-50, 50)]
                                     for _ in range(5)])  # fmt: skip
        cv2.fillPoly(shadow, [polygon.astype(np.int32)], 1.0)
        light *= 1 - rng.uniform(0.25, 0.45) * cv2.GaussianBlur(shadow, (0, 0), 3)
    light = cv2.resize(light, SIZE, interpolation=cv2.INTER_LINEAR)
    frame *= light[:, :, None]
    if hard:  # glare: a soft bright patch, as from a lamp on glossy card
        glare = np.zeros((height // 8, width // 8), np.float32)
        at = (rng.randrange(width // 8), rng.randrange(height // 8))
        cv2.ellipse(glare, at, (rng.randint(8, 20), rng.randint(5, 12)), rng.uniform(0, 180),
                    0, 360, 1.0, -1)  # fmt: skip
        glare = cv2.resize(cv2.GaussianBlur(glare, (0, 0), 4), SIZE)
        frame += glare[:, :, None] * rng.uniform(40, 90)
    frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(0.5, 1.5) if hard else 0.6)
    noise = np.random.default_rng(rng.randrange(2**32))
    frame += noise.normal(0, rng.uniform(2, 5) if hard else 2, frame.shape).astype(np.float32)
    image = np.clip(frame, 0, 255).astype(np.uint8)
    quality = rng.randint(72, 92) if hard else 90
    return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], 1)


def board_profile(size: int = 12) -> BoardProfile:
    """The built-in 12x12 profile; another size as the same table grown: 30 mm cells inside a
    20 mm margin, the four markers just outside its corners."""
    if size == 12:
        return load_profile(builtin_profile_path("takeover"), GAME.spots())
    table = 40.0 + 30.0 * size
    spots = {
        f"r{r}c{c}.map": Spot(f"r{r}c{c}.map", None, (), CAMERA, Region(20 + 30 * c, 20 + 30 * r,
                                                                         30, 30))
        for r in range(size)
        for c in range(size)
    }  # fmt: skip
    return BoardProfile("takeover", f"{size}x{size}", 0, True, spots, "test", (table, table),
                        default_markers((table, table)))  # fmt: skip


def random_layout(rng: random.Random, size: int = 12) -> Layout:
    """A map from the rules: set-up stopped anywhere, or some turns of play (claims swap
    buildings to their owners' colours)."""
    state = GAME.new_initial_state({"players": rng.randint(2, 4), "size": size})
    steps = rng.randint(8, 45) if rng.random() < 0.4 else rng.randint(45, 400)
    for _ in range(steps):
        if state.is_terminal():
            break
        random_step(state, rng)
    return GAME.layout(state)


def pawns(layout: Layout) -> list[str]:
    return [spot for spot in layout if not spot.endswith(".map")]


def frame(
    profile: BoardProfile, layout: Layout, rng: random.Random, hand: bool = False,
    hard: bool = True,
) -> Frame:  # fmt: skip
    """A frame of `layout` seen by a camera placed at random."""
    pieces = laid(layout, str(rng.random()))
    image, occluders = drawing(profile, pieces, pawns(layout), rng if hand else None)
    photo, calibration = shoot(profile, image, rng, hard)
    return Frame(photo, calibration, layout, covered(profile, layout, occluders))


def shoot(
    profile: BoardProfile, image: np.ndarray, rng: random.Random, hard: bool = True
) -> tuple[np.ndarray, Calibration]:
    """A drawing seen by a camera placed at random, and the camera's calibration."""
    camera = Camera.random((image.shape[1], image.shape[0]), rng)
    return photograph(image, camera, rng, hard), camera.calibration(profile)


def write_frames(
    folder: Path, profile: BoardProfile, layouts: Sequence[Layout], seed: int = 0
) -> Calibration:
    """One frame file a layout (00000.jpg, 00001.jpg ...) as one camera over one table sees
    them, for `smartboard run --camera-folder`; the camera's calibration, to save in the state
    directory as `smartboard calibrate` would. A piece keeps its place and turn from frame to
    frame, as on a real table."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    camera: Camera | None = None
    for number, layout in enumerate(layouts):
        image, _ = drawing(profile, laid(layout, str(seed)), pawns(layout))
        if camera is None:
            camera = Camera.random((image.shape[1], image.shape[0]), random.Random(seed))
        cv2.imwrite(str(folder / f"{number:05d}.jpg"), photograph(image, camera, rng, False))
    if camera is None:
        raise ValueError("no layouts to draw")
    return camera.calibration(profile)
