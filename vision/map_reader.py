"""Reading a map built from a printed kit: the top piece on each cell, from the pieces' markers.

Every cell of every piece carries a marker of its own (vision/map_kit.py). The board is first
straightened through the calibration into an image of the table at a fixed scale, so that
markers are found in table millimetres, at a size known in advance. Each marker seen gives its
piece, which of the piece's cells it is, the cell it lies on and how the piece is turned, and so
every cell the piece covers: markers of one piece laid once agree on that *placement*.

A cell reads the token of the top piece covering it. Where a piece's own marker is hidden (a
pawn, a hand) the cell still reads it from its other markers, if nothing could lie on it unseen
(a piece of the kit's top layer); a lower piece whose marker there is hidden (under a pawn, a
top piece may lie between) leaves the cell *hidden*: unsure, and named in `hidden`.

Anything that does not make one consistent map leaves the cells involved unsure, with a
sentence in `problems`, and is never guessed: a marker between cells or turned off a quarter,
two pieces of one layer overlapping, a piece reaching off the board, more of a piece than the
kit has, a marker seen where a piece of a higher layer should hide it. Markers far from the
printed size (another sheet's, or a piece held up over the board) are not the kit's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from hardware.profile import Region
from vision.calibration import Calibration
from vision.image_files import Image
from vision.map_kit import MARKER_SHARE, Piece, dictionary, number_markers
from vision.table_reader import BoardReaderError, BoardReading, check_size

Cell = tuple[int, int]  # column, row on the grid of the regions (may lie off the board)
PLACE_TOLERANCE = 0.35  # a marker's centre from its cell's centre, as a share of the pitch
TURN_TOLERANCE = 20.0  # degrees from a quarter turn
SIZE_RANGE = (0.75, 1.33)  # a marker's side against the printed one: else not the kit's
MARGIN = 0.35  # the straightened image reaches this share of the pitch beyond the board
# The straightened board's pixels a mm: some 5 pixels a bit of a 20 mm marker at least.
MIN_PX_PER_MM, MAX_PX_PER_MM = 2.0, 2.6
CELLS = 8  # a 6x6 marker and its black border
SUBCELL = np.array([0.3, 0.5, 0.7])  # where a marker's cell is sampled again, each way
MIN_SCORE = 0.95  # cells of a marker sampled again that match its code: at most 3 of 64 wrong


@dataclass(frozen=True)
class _Marker:
    piece: Piece
    col: int
    row: int
    cells: tuple[Cell, ...]  # the cells it may lie on: one when it lies well
    turns: tuple[int, ...]  # clockwise quarter turns it may have: one when it lies well


@dataclass(frozen=True)
class _Placement:
    piece: Piece
    turns: int
    origin: Cell  # where the piece's printed top-left cell lies


def _turned(turns: int, dx: int, dy: int) -> Cell:
    """(dx, dy) turned clockwise `turns` quarter turns (y down)."""
    for _ in range(turns % 4):
        dx, dy = -dy, dx
    return dx, dy


def _covers(place: _Placement) -> list[Cell]:
    columns, rows = place.piece.cells
    cells = []
    for row in range(rows):
        for col in range(columns):
            dx, dy = _turned(place.turns, col, row)
            cells.append((place.origin[0] + dx, place.origin[1] + dy))
    return cells


def _placement(marker: _Marker, cell: Cell, turns: int) -> _Placement:
    dx, dy = _turned(turns, marker.col, marker.row)
    return _Placement(marker.piece, turns, (cell[0] - dx, cell[1] - dy))


class MapCells:
    """The cells of a map built from `pieces`: each cell's region (table mm) is one spot, the
    regions a regular grid of square cells (the profile's pitch)."""

    def __init__(
        self, pieces: Sequence[Piece], calibration: Calibration, regions: Mapping[str, Region]
    ) -> None:
        if not regions:
            raise BoardReaderError("the board profile gives the map's cells no camera regions")
        self.calibration = calibration
        self.markers = number_markers(pieces)
        self.top_layer = max((piece.layer for piece in pieces), default=0)
        self.pitch = float(np.median([r.w for r in regions.values()]))
        self.left = min(r.x + r.w / 2 for r in regions.values())
        self.top = min(r.y + r.h / 2 for r in regions.values())
        self.spots: dict[Cell, str] = {}
        for spot, r in regions.items():
            other = self.spots.setdefault(self._cell(r.x + r.w / 2, r.y + r.h / 2), spot)
            if other != spot:
                raise BoardReaderError(
                    f"the board profile puts {other} and {spot} on one cell of the grid"
                )
        # The straightened board: table mm -> pixels of an image of the board and a margin.
        x0 = min(r.x for r in regions.values()) - MARGIN * self.pitch
        y0 = min(r.y for r in regions.values()) - MARGIN * self.pitch
        x1 = max(r.x + r.w for r in regions.values()) + MARGIN * self.pitch
        y1 = max(r.y + r.h for r in regions.values()) + MARGIN * self.pitch
        self.origin = (x0, y0)
        # As many pixels a mm as the camera gives over the board, within bounds: more would
        # only add time, fewer would lose what the camera sees.
        corners = calibration.to_pixels([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        seen = math.sqrt(cv2.contourArea(corners.astype(np.float32)) / ((x1 - x0) * (y1 - y0)))
        self.scale = min(max(seen, MIN_PX_PER_MM), MAX_PX_PER_MM)
        self.size = (math.ceil((x1 - x0) * self.scale), math.ceil((y1 - y0) * self.scale))
        to_board = np.array([[self.scale, 0, -x0 * self.scale], [0, self.scale, -y0 * self.scale],
                             [0, 0, 1]])  # fmt: skip
        self.straighten = to_board @ np.array(calibration.homography)
        self.marker_px = MARKER_SHARE * self.pitch * self.scale
        parameters = cv2.aruco.DetectorParameters()
        # One threshold window, about a marker's cell wide, and candidates of about the
        # printed size only: most of the time goes to thresholds and contours.
        window = max(3, int(self.marker_px / CELLS * 2.5) | 1)
        parameters.adaptiveThreshWinSizeMin = window
        parameters.adaptiveThreshWinSizeMax = window + 12
        parameters.adaptiveThreshWinSizeStep = 12
        longest = max(self.size)
        parameters.minMarkerPerimeterRate = 4 * self.marker_px * SIZE_RANGE[0] * 0.9 / longest
        parameters.maxMarkerPerimeterRate = 4 * self.marker_px * SIZE_RANGE[1] * 1.1 / longest
        parameters.errorCorrectionRate = 0.4  # fewer bits mended: fewer wrong ids
        parameters.perspectiveRemovePixelPerCell = 6
        parameters.perspectiveRemoveIgnoredMarginPerCell = 0.2
        self.detector = cv2.aruco.ArucoDetector(dictionary(), parameters)
        self.codes = {
            marker: cv2.aruco.generateImageMarker(dictionary(), marker, CELLS) > 127
            for marker in self.markers
        }

    def _cell(self, x: float, y: float) -> Cell:
        return round((x - self.left) / self.pitch), round((y - self.top) / self.pitch)

    def read(self, image: Image) -> BoardReading:
        check_size(image, self.calibration)
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        board: Image = np.asarray(
            cv2.warpPerspective(grey, self.straighten, self.size, flags=cv2.INTER_LINEAR), np.uint8
        )
        corners, ids, _ = self.detector.detectMarkers(board)
        if ids is None:
            return _Map(self, []).reading()
        known = [k for k, marker in enumerate(ids.ravel()) if int(marker) in self.markers]
        if not known:
            return _Map(self, []).reading()
        quads = np.array([np.asarray(corners[k], np.float64).reshape(4, 2) for k in known])
        marker_ids = [int(ids.ravel()[k]) for k in known]
        scores = self._scores(board, quads, marker_ids)
        sides = np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2).mean(axis=1)
        centres = quads.mean(axis=1) / self.scale + self.origin
        up = quads[:, 0] + quads[:, 1] - quads[:, 2] - quads[:, 3]  # bottom edge to top edge
        angles = np.degrees(np.arctan2(up[:, 0], -up[:, 1])) % 360  # clockwise from table up
        seen = []
        for k, marker in enumerate(marker_ids):
            if scores[k] < MIN_SCORE:
                continue
            if not SIZE_RANGE[0] <= sides[k] / self.marker_px <= SIZE_RANGE[1]:
                continue  # another sheet's marker, or a piece held up over the board
            found = self._place(self.markers[marker], centres[k], float(angles[k]))
            if found is not None:
                seen.append(found)
        return _Map(self, seen).reading()

    def _place(
        self, entry: tuple[Piece, int, int], centre: NDArray[np.float64], angle: float
    ) -> _Marker | None:
        """The marker on the grid: the cells and turns it may have; None if beside the board."""
        quarter = angle / 90
        turns = {round(quarter) % 4}
        if abs(quarter - round(quarter)) * 90 > TURN_TOLERANCE:
            turns = {math.floor(quarter) % 4, math.ceil(quarter) % 4}
        x, y = (centre[0] - self.left) / self.pitch, (centre[1] - self.top) / self.pitch
        cells = {(round(x), round(y))}
        if math.hypot(x - round(x), y - round(y)) > PLACE_TOLERANCE:
            cells = {(cx, cy) for cx in {math.floor(x), math.ceil(x)}
                     for cy in {math.floor(y), math.ceil(y)}}  # fmt: skip
        if not any(cell in self.spots for cell in cells):
            return None  # beside the board: the kit's supply
        return _Marker(entry[0], entry[1], entry[2], tuple(sorted(cells)), tuple(sorted(turns)))

    def _scores(
        self, grey: Image, quads: NDArray[np.float64], ids: Sequence[int]
    ) -> NDArray[np.float64]:
        """How well each marker's cells, sampled again, match its code: 1 perfect, 0 none.

        Points inside each cell are interpolated between the marker's corners (the board is
        straightened, so perspective within a marker is negligible), for all markers at once.
        """
        u = (np.arange(CELLS)[:, None] + SUBCELL[None, :]).ravel() / CELLS  # CELLS * 3
        v, u = np.meshgrid(u, u, indexing="ij")  # rows, columns
        weights = np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v], axis=-1)
        points = weights.reshape(-1, 4) @ quads  # markers x points x 2
        x = np.clip(np.rint(points[..., 0]).astype(np.intp), 0, grey.shape[1] - 1)
        y = np.clip(np.rint(points[..., 1]).astype(np.intp), 0, grey.shape[0] - 1)
        n, side = len(ids), len(SUBCELL)
        samples = grey[y, x].astype(np.float32).reshape(n, CELLS, side, CELLS, side)
        cells = samples.mean(axis=(2, 4)).reshape(n, -1)
        code = np.array([self.codes[marker].ravel() for marker in ids])
        light = (cells * code).sum(axis=1) / code.sum(axis=1)
        dark = (cells * ~code).sum(axis=1) / (~code).sum(axis=1)
        threshold = ((light + dark) / 2)[:, None]
        wrong = np.where(code, cells < threshold, cells >= threshold).sum(axis=1)
        return np.where(light > dark, 1.0 - wrong / CELLS**2, 0.0)


class _Map:
    """The markers of one frame made into a map, or into the problems that stop it."""

    def __init__(self, cells: MapCells, seen: Sequence[_Marker]) -> None:
        self.grid = cells
        self.unsure: set[Cell] = set()
        self.problems: list[str] = []
        self.placements: dict[_Placement, set[Cell]] = defaultdict(set)  # -> its markers seen
        for marker in seen:
            if len(marker.cells) == 1 and len(marker.turns) == 1:
                self.placements[_placement(marker, marker.cells[0], marker.turns[0])].add(
                    marker.cells[0]
                )
                continue
            where = {c for cell in marker.cells for t in marker.turns
                     for c in _covers(_placement(marker, cell, t))}  # fmt: skip
            how = "between cells" if len(marker.cells) > 1 else "turned off the grid"
            self._problem(f"a {marker.piece.token} lies {how}", where)

    def _problem(self, what: str, cells: Iterable[Cell]) -> None:
        on_board = sorted({c for c in cells if c in self.grid.spots}, key=lambda c: (c[1], c[0]))
        self.unsure.update(on_board)
        names = ", ".join(self.grid.spots[c] for c in on_board[:6])
        more = f" and {len(on_board) - 6} more" if len(on_board) > 6 else ""
        sentence = f"{what}: {names}{more}"
        if sentence not in self.problems:  # the same overlap, seen from each of its cells
            self.problems.append(sentence)

    def reading(self) -> BoardReading:
        places = {p: set(_covers(p)) for p in self.placements}
        for place, covered in places.items():
            if not covered <= self.grid.spots.keys():
                self._problem(f"a {place.piece.token} reaches off the board", covered)
        by_piece: dict[str, list[_Placement]] = defaultdict(list)
        for place in places:
            by_piece[place.piece.token].append(place)
        for token, laid in sorted(by_piece.items()):
            copies = laid[0].piece.copies
            if len(laid) > copies:
                self._problem(f"{len(laid)} {token} seen, the kit has {copies}",
                              (c for p in laid for c in places[p]))  # fmt: skip
        # Per cell: the placements covering it, layer by layer.
        layers: dict[Cell, dict[int, list[_Placement]]] = defaultdict(lambda: defaultdict(list))
        for place, covered in places.items():
            for cell in covered:
                layers[cell][place.piece.layer].append(place)
        for cell, on in sorted(layers.items()):
            for layer, laid in sorted(on.items()):
                if len(laid) > 1:
                    tokens = " and ".join(sorted({p.piece.token for p in laid}))
                    self._problem(
                        f"pieces overlap ({tokens})", (c for p in laid for c in places[p])
                    )
                    continue
                higher = [p for above, ps in on.items() if above > layer for p in ps]
                if higher and cell in self.placements[laid[0]]:
                    self._problem(f"a {laid[0].piece.token} shows where a "
                                  f"{higher[0].piece.token} should hide it",
                                  places[laid[0]] | places[higher[0]])  # fmt: skip
        board: dict[str, str] = {}
        hidden = []
        for cell, on in layers.items():
            if cell not in self.grid.spots or cell in self.unsure:
                continue
            layer = max(on)
            place = on[layer][0]
            if cell in self.placements[place] or layer == self.grid.top_layer:
                board[self.grid.spots[cell]] = place.piece.token
            else:
                hidden.append(cell)
        unsure = {self.grid.spots[c] for c in self.unsure | set(hidden)}
        return BoardReading(
            dict(sorted(board.items())),
            tuple(sorted(unsure)),
            tuple(self.problems),
            tuple(sorted(self.grid.spots[c] for c in hidden)),
        )
