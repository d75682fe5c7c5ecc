"""The map kit's sheet: every piece of a game's kit at the table's cell pitch on A4, as a PDF.

Each piece is drawn as many times as the kit has copies, at `cell_mm` a cell (the profile's
pitch), upright, inside a grey cut line, with 2 mm of paper between pieces. Every cell carries
its marker (vision/map_kit.py) centred on it, in white paper, on the piece's printed colour;
the piece's label and title are printed in that border, for the players. The first page says
how to print, with a 100 mm bar to check the scale. The PDF is marker_sheet's writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.image_files import Image
from vision.map_kit import MARKER_SHARE, QUIET_SHARE, KitError, Piece, dictionary
from vision.marker_sheet import DPI, FONT, PAGE_MM, pdf_bytes, px, scale_bar, shelves

MARGIN_MM = 10.0
HEADER_MM = 18.0
FOOTER_MM = 34.0  # the first page's scale bar and its sentence
GAP_MM = 2.0
CUT = (170, 170, 170)
ADVICE = (
    "Print at 100 % (actual size, not fit to page) on card stock (200-300 g/m2). "
    "Cut along the grey lines."
)


@dataclass(frozen=True)
class Placed:
    """A piece on a page: its top-left corner in page mm."""

    piece: Piece
    x: float
    y: float


def sheet_layout(pieces: Sequence[Piece], cell_mm: float) -> list[list[Placed]]:
    """Every copy of every piece in rows, left to right and top to bottom, pages as needed."""
    top = MARGIN_MM + HEADER_MM

    def bottom(page: int) -> float:  # the first page keeps room for its scale bar
        return PAGE_MM[1] - MARGIN_MM - (FOOTER_MM if page == 0 else 0)

    copies = [each for each in pieces for _ in range(each.copies)]
    sizes = [(piece.cells[0] * cell_mm, piece.cells[1] * cell_mm) for piece in copies]
    for piece, (width, height) in zip(copies, sizes, strict=True):
        if width > PAGE_MM[0] - 2 * MARGIN_MM or height > bottom(0) - top:
            raise KitError(
                f"a piece of {piece.cells[0]} x {piece.cells[1]} cells of {cell_mm:g} mm is "
                "larger than an A4 page"
            )
    return [
        [Placed(copies[i], x, y) for i, x, y in page]
        for page in shelves(sizes, MARGIN_MM, top, bottom, GAP_MM)
    ]


def sheet_pages(pieces: Sequence[Piece], cell_mm: float, title: str) -> list[Image]:
    """The sheet's pages, BGR images of A4 at DPI (see `sheet_layout`)."""
    layout = sheet_layout(pieces, cell_mm)
    images = []
    for number, placed in enumerate(layout, 1):
        page = np.full((px(PAGE_MM[1], floor=True), px(PAGE_MM[0], floor=True), 3), 255, np.uint8)
        heading = f"smartboard map kit: {title}, {cell_mm:g} mm cells (page {number} of "
        _text(page, heading + f"{len(layout)})", PAGE_MM[0] / 2, MARGIN_MM + 6, 1.2, 2)
        _text(page, ADVICE, PAGE_MM[0] / 2, MARGIN_MM + 12, 0.95, 2)
        for item in placed:
            image = piece_image(item.piece, cell_mm, DPI / 25.4)
            x, y = px(item.x), px(item.y)
            page[y : y + image.shape[0], x : x + image.shape[1]] = image
            cut = (x - 1, y - 1), (x + image.shape[1], y + image.shape[0])
            cv2.rectangle(page, cut[0], cut[1], CUT, 2)
        if number == 1:
            scale_bar(page)
        images.append(page)
    return images


def write_map_sheet(pieces: Sequence[Piece], cell_mm: float, title: str, path: Path) -> int:
    """Write a game's map kit as a PDF; the number of pages."""
    pages = sheet_pages(pieces, cell_mm, title)
    path.write_bytes(pdf_bytes(pages))
    return len(pages)


def piece_image(piece: Piece, cell_mm: float, px_per_mm: float) -> Image:
    """One piece as printed, upright, BGR, at `px_per_mm`: its cells' markers centred on them."""
    columns, rows = piece.cells

    def at(mm: float) -> int:
        return round(mm * px_per_mm)

    image = np.full((at(rows * cell_mm), at(columns * cell_mm), 3), piece.colour, np.uint8)
    ink = (0, 0, 0) if sum(piece.colour) > 3 * 140 else (255, 255, 255)
    marker_mm = MARKER_SHARE * cell_mm
    paper_mm = marker_mm + 2 * QUIET_SHARE * cell_mm
    side = at(marker_mm)
    border = (cell_mm - paper_mm) / 2
    for row in range(rows):
        for col in range(columns):
            x0, y0 = col * cell_mm, row * cell_mm
            paper = at(x0 + border), at(y0 + border)
            cv2.rectangle(image, paper, (at(x0 + border + paper_mm) - 1,
                          at(y0 + border + paper_mm) - 1), (255, 255, 255), -1)  # fmt: skip
            code = cv2.aruco.generateImageMarker(dictionary(), piece.marker(col, row), side)
            mx, my = at(x0 + (cell_mm - marker_mm) / 2), at(y0 + (cell_mm - marker_mm) / 2)
            image[my : my + side, mx : mx + side] = code[:, :, None]
            if piece.label:
                _fit(image, piece.label, (x0, x0 + cell_mm), y0 + border * 0.85, border, ink,
                     px_per_mm)  # fmt: skip
    # Where two cells of a piece meet, a thin line: the players see the cells.
    height, width = image.shape[:2]
    for col in range(1, columns):
        cv2.line(image, (at(col * cell_mm), 0), (at(col * cell_mm), height), ink, 1)
    for row in range(1, rows):
        cv2.line(image, (0, at(row * cell_mm)), (width, at(row * cell_mm)), ink, 1)
    if piece.layer:
        # Its title across the piece's bottom border: which piece it is, in the players' words.
        bottom = rows * cell_mm - border * 0.15
        _fit(image, piece.title or piece.token, (0, columns * cell_mm), bottom, border, ink,
             px_per_mm)  # fmt: skip
    return image


def _fit(
    image: Image, text: str, span_mm: tuple[float, float], baseline_mm: float, height_mm: float,
    colour: tuple[int, int, int], px_per_mm: float,
) -> None:  # fmt: skip
    """Text centred in a span, as tall as the border allows and no wider than the span."""
    thickness = max(1, round(0.3 * px_per_mm))
    (width, tall), _ = cv2.getTextSize(text, FONT, 1.0, thickness)
    scale = min(0.7 * height_mm * px_per_mm / tall, 0.8 * (span_mm[1] - span_mm[0]) * px_per_mm
                / width)  # fmt: skip
    (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
    centre = (span_mm[0] + span_mm[1]) / 2 * px_per_mm
    origin = round(centre - width / 2), round(baseline_mm * px_per_mm)
    cv2.putText(image, text, origin, FONT, scale, colour, thickness, cv2.LINE_AA)


def _text(page: Image, text: str, centre_mm: float, baseline_mm: float, scale: float,
          thickness: int) -> None:  # fmt: skip
    (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
    origin = (px(centre_mm) - width // 2, px(baseline_mm))
    cv2.putText(page, text, origin, FONT, scale, (0, 0, 0), thickness, cv2.LINE_AA)
