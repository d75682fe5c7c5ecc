"""The card sheet: a game's cards at true size on A4, faces and backs, as a PDF to print.

Nine cards of 63 x 88 mm to a page, three by three, touching, the grid centred on the page, with
cut marks in the margins and a light outline. Pages alternate: faces, then their backs. Printed
double-sided (flip on the long edge, the default), each back lands behind its face: the backs'
page is the faces' page mirrored left to right. All backs are alike, so a print flipped on the
short edge lines up too. The page images are drawn here; the PDF is marker_sheet's writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.card_deck import (
    BACK_INDEX,
    CARD_MM,
    DICTIONARIES,
    MARKER_CORNERS_MM,
    MARKER_MM,
    Card,
    marker_ids,
)
from vision.image_files import Image
from vision.marker_sheet import DPI, FONT, PAGE_MM, pdf_bytes, px

COLUMNS, ROWS = 3, 3
GRID_MM = (COLUMNS * CARD_MM[0], ROWS * CARD_MM[1])
ORIGIN_MM = ((PAGE_MM[0] - GRID_MM[0]) / 2, (PAGE_MM[1] - GRID_MM[1]) / 2)
CUT_MARK_MM = 4.0
BORDER_MM = 1.5


@dataclass(frozen=True)
class Placed:
    """A card side on a page: `card` None for a back; x, y its top-left corner in page mm."""

    card: Card | None
    x: float
    y: float

    def corners_px(self) -> list[tuple[float, float]]:
        """The card's corners in page pixels, clockwise from its top-left."""
        scale = DPI / 25.4
        w, h = CARD_MM
        return [
            ((self.x + dx) * scale, (self.y + dy) * scale)
            for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))
        ]


def sheet_layout(deck: Sequence[Card]) -> list[list[Placed]]:
    """The sheet's pages in print order: faces, their backs, the next faces, ..."""
    cards = [card for card in deck for _ in range(card.copies)]
    per_page = COLUMNS * ROWS
    pages: list[list[Placed]] = []
    for start in range(0, len(cards), per_page):
        faces, backs = [], []
        for k, card in enumerate(cards[start : start + per_page]):
            row, column = divmod(k, COLUMNS)
            y = ORIGIN_MM[1] + row * CARD_MM[1]
            faces.append(Placed(card, ORIGIN_MM[0] + column * CARD_MM[0], y))
            backs.append(Placed(None, ORIGIN_MM[0] + (COLUMNS - 1 - column) * CARD_MM[0], y))
        pages += [faces, backs]
    return pages


def sheet_pages(deck: Sequence[Card], title: str) -> list[Image]:
    """The sheet's pages, BGR images of A4 at DPI (see `sheet_layout`); `title`: the game's."""
    layout = sheet_layout(deck)
    images = []
    for number, placed in enumerate(layout, 1):
        page = np.full((px(PAGE_MM[1], floor=True), px(PAGE_MM[0], floor=True), 3), 255, np.uint8)
        side = "backs" if placed[0].card is None else "faces"
        heading = f"smartboard cards: {title}, {side} (page {number} of {len(layout)})"
        _text(page, heading, PAGE_MM[0] / 2, ORIGIN_MM[1] - 8.5, 1.2, (0, 0, 0), 2)
        advice = (
            "Print double-sided at 100 % (actual size), flip on the long edge. Cut at the marks."
        )
        _text(page, advice, PAGE_MM[0] / 2, PAGE_MM[1] - ORIGIN_MM[1] + 11, 1.0, (0, 0, 0), 2)
        for item in placed:
            _draw_card(page, item)
        _cut_marks(page)
        images.append(page)
    return images


def write_card_sheet(deck: Sequence[Card], title: str, path: Path) -> int:
    """Write a game's card sheet as a PDF; the number of pages."""
    pages = sheet_pages(deck, title)
    path.write_bytes(pdf_bytes(pages))
    return len(pages)


def card_image(card: Card | None, dpi: int = DPI) -> Image:
    """One card side alone (None: the back), BGR, at `dpi`."""
    scale = dpi / DPI
    page = np.full((px(CARD_MM[1]), px(CARD_MM[0]), 3), 255, np.uint8)
    _draw_card(page, Placed(card, 0.0, 0.0))
    if scale == 1:
        return page
    size = (round(CARD_MM[0] * dpi / 25.4), round(CARD_MM[1] * dpi / 25.4))
    return np.asarray(cv2.resize(page, size, interpolation=cv2.INTER_AREA), np.uint8)


def _draw_card(page: Image, placed: Placed) -> None:
    card, x0, y0 = placed.card, placed.x, placed.y
    w, h = CARD_MM
    colour = (70, 70, 70) if card is None else card.colour
    # The printed border: thin, so white paper is left round the markers.
    outer = (px(x0), px(y0)), (px(x0 + w) - 1, px(y0 + h) - 1)
    inner = (
        (px(x0 + BORDER_MM), px(y0 + BORDER_MM)),
        (px(x0 + w - BORDER_MM), px(y0 + h - BORDER_MM)),
    )
    cv2.rectangle(page, outer[0], outer[1], colour, -1)
    cv2.rectangle(page, inner[0], inner[1], (255, 255, 255), -1)
    cv2.rectangle(page, outer[0], outer[1], (200, 200, 200), 1)  # the outline to cut along
    index = BACK_INDEX if card is None else card.index
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARIES[-1][1])  # holds all the others
    side = px(MARKER_MM)
    for which, marker in enumerate(marker_ids(index)):
        image = cv2.aruco.generateImageMarker(dictionary, marker, side)
        if which == 1:
            image = cv2.rotate(image, cv2.ROTATE_180)
        left = min(x for x, _ in MARKER_CORNERS_MM[which])
        top = min(y for _, y in MARKER_CORNERS_MM[which])
        mx, my = px(x0 + left), px(y0 + top)
        page[my : my + side, mx : mx + side] = image[:, :, None]
    right_x = x0 + MARKER_CORNERS_MM[0][1][0]  # beside the top marker
    if card is None:
        _text(page, "smartboard", x0 + w / 2, y0 + h / 2 + 2, 1.6, colour, 3)
        return
    _fit_text(
        page, card.title, (right_x + 1.5, x0 + w - BORDER_MM - 1.5), y0 + 14, 1.8, (0, 0, 0), 4
    )
    _fit_text(page, card.id, (right_x + 1.5, x0 + w - BORDER_MM - 1.5), y0 + 22, 1.1, colour, 2)
    top = y0 + MARKER_CORNERS_MM[0][2][1] + 7
    bottom = y0 + MARKER_CORNERS_MM[1][2][1] - 2
    step = min(8.0, (bottom - top) / max(1, len(card.lines) - 1)) if len(card.lines) > 1 else 0
    for k, line in enumerate(card.lines):
        big = card.headline and k == 0
        _fit_text(
            page, line, (x0 + 4, x0 + w - 4), top + k * (step or 8) + (3 * k if big else 0),
            1.7 if big else 1.3, (0, 0, 0), 4 if big else 3,
        )  # fmt: skip


def _cut_marks(page: Image) -> None:
    """Lines in the margins along every card edge, stopping short of the cards."""
    (left, top), (width, height) = ORIGIN_MM, GRID_MM
    gap = 2.0
    for k in range(COLUMNS + 1):
        x = px(left + k * CARD_MM[0])
        for y1, y2 in (
            (top - gap - CUT_MARK_MM, top - gap),
            (top + height + gap, top + height + gap + CUT_MARK_MM),
        ):
            cv2.line(page, (x, px(y1)), (x, px(y2)), (0, 0, 0), 2)
    for k in range(ROWS + 1):
        y = px(top + k * CARD_MM[1])
        for x1, x2 in (
            (left - gap - CUT_MARK_MM, left - gap),
            (left + width + gap, left + width + gap + CUT_MARK_MM),
        ):
            cv2.line(page, (px(x1), y), (px(x2), y), (0, 0, 0), 2)


def _text(
    page: Image, text: str, centre_mm: float, baseline_mm: float, scale: float,
    colour: tuple[int, int, int], thickness: int,
) -> None:  # fmt: skip
    (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
    origin = (px(centre_mm) - width // 2, px(baseline_mm))
    cv2.putText(page, text, origin, FONT, scale, colour, thickness, cv2.LINE_AA)


def _fit_text(
    page: Image, text: str, span_mm: tuple[float, float], baseline_mm: float, scale: float,
    colour: tuple[int, int, int], thickness: int,
) -> None:  # fmt: skip
    """Text centred in a span, made smaller if it would not fit."""
    room = px(span_mm[1] - span_mm[0])
    (width, _), _ = cv2.getTextSize(text, FONT, scale, thickness)
    if width > room:
        scale *= room / width
        thickness = max(1, round(thickness * room / width))
    _text(page, text, (span_mm[0] + span_mm[1]) / 2, baseline_mm, scale, colour, thickness)
