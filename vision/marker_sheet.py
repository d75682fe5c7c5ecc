"""The marker sheet: a profile's ArUco markers at true size on A4 pages, as a PDF to print.

Each marker is drawn at its `size_mm` (300 dpi) inside a cut line, with its id and its place on
the table printed under it. A 100 mm scale bar on every page shows whether the printer scaled the
page. The PDF is written here, a page being one grey image: no PDF library needed for that.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from hardware.profile import BoardProfile, Marker
from vision.calibration import marker_dictionary, profile_markers, where_on_table
from vision.image_files import Image

DPI = 300
PAGE_MM = (210.0, 297.0)  # A4
MARGIN_MM = 12.0  # inside what printers leave unprinted
HEADER_MM = 16.0
FOOTER_MM = 22.0
GAP_MM = 6.0
SCALE_BAR_MM = 100
FONT = cv2.FONT_HERSHEY_SIMPLEX
TEXT_SCALE = 1.3  # about 9 pt at 300 dpi
LINE_MM = 4.5


class MarkerSheetError(ValueError):
    """A marker sheet that cannot be printed, such as a marker larger than a page."""


@dataclass(frozen=True)
class _Cell:
    """A marker's place on a page, in mm from the page's top-left corner."""

    marker: Marker
    x: float
    y: float


def write_marker_sheet(profile: BoardProfile, path: Path) -> int:
    """Write the profile's marker sheet as a PDF; the number of pages."""
    pages = sheet_pages(profile)
    path.write_bytes(pdf_bytes(pages))
    return len(pages)


def sheet_pages(profile: BoardProfile) -> list[Image]:
    """The sheet's pages, grey images of A4 at DPI, every marker at its size."""
    layout = _layout(profile_markers(profile), profile.table_size_mm)
    pages = []
    for number, cells in enumerate(layout, 1):
        # Whole pixels within the page, never beyond it: the PDF draws them at exactly DPI.
        page = np.full((px(PAGE_MM[1], floor=True), px(PAGE_MM[0], floor=True)), 255, np.uint8)
        _header(page, profile, number, len(layout))
        for cell in cells:
            _draw_marker(page, cell, profile.table_size_mm)
        scale_bar(page)
        pages.append(page)
    return pages


def px(mm: float, floor: bool = False) -> int:
    """Millimetres on paper to pixels of a page at DPI."""
    pixels = mm * DPI / 25.4
    return int(pixels) if floor else round(pixels)


def _quiet_mm(marker: Marker) -> float:
    """White paper between a marker and its cut line: the detector needs a light border."""
    return max(5.0, marker.size_mm / 6)


def _labels(marker: Marker, table_size: tuple[float, float] | None) -> list[str]:
    return [
        f"marker {marker.id}: {marker.size_mm:g} mm",
        where_on_table(marker, table_size),
        "top edge towards the table's top edge",
    ]


def _text_mm(text: str) -> float:
    (width, _), _ = cv2.getTextSize(text, FONT, TEXT_SCALE, 2)
    return width * 25.4 / DPI


def _cell_size(marker: Marker, table_size: tuple[float, float] | None) -> tuple[float, float]:
    framed = marker.size_mm + 2 * _quiet_mm(marker)
    label = max(_text_mm(line) for line in _labels(marker, table_size))
    return max(framed, label), framed + 3 * LINE_MM


def _layout(markers: Sequence[Marker], table_size: tuple[float, float] | None) -> list[list[_Cell]]:
    """Markers in rows, left to right and top to bottom, as many to a page as fit."""
    top, bottom = MARGIN_MM + HEADER_MM, PAGE_MM[1] - MARGIN_MM - FOOTER_MM
    sizes = [_cell_size(marker, table_size) for marker in markers]
    for marker, (width, height) in zip(markers, sizes, strict=True):
        if width > PAGE_MM[0] - 2 * MARGIN_MM or height > bottom - top:
            raise MarkerSheetError(
                f"marker {marker.id} is {marker.size_mm:g} mm: with its border and labels it "
                f"needs {width:.0f} x {height:.0f} mm, more than an A4 page's "
                f"{PAGE_MM[0] - 2 * MARGIN_MM:.0f} x {bottom - top:.0f} mm"
            )
    return [
        [_Cell(markers[i], x, y) for i, x, y in page]
        for page in shelves(sizes, MARGIN_MM, top, lambda _page: bottom, GAP_MM)
    ]


def shelves(
    sizes: Sequence[tuple[float, float]],
    margin: float,
    top: float,
    bottom: Callable[[int], float],
    gap: float,
) -> list[list[tuple[int, float, float]]]:
    """Boxes of `sizes` (width, height in mm, each fitting a page) laid in rows `gap` apart,
    left to right within `margin` of the sides and top to bottom between `top` and
    `bottom(page)` (pages counted from 0), on as many A4 pages as it takes: each page's boxes as
    (index, x, y) of their top-left corner."""
    left, right = margin, PAGE_MM[0] - margin
    pages: list[list[tuple[int, float, float]]] = [[]]
    x, y, row_height = left, top, 0.0
    for index, (width, height) in enumerate(sizes):
        if x + width > right + 0.01:  # a hundredth of a mm: sums of pitches round
            x, y, row_height = left, y + row_height + gap, 0.0
        if y + height > bottom(len(pages) - 1) + 0.01:
            pages.append([])
            x, y, row_height = left, top, 0.0
        pages[-1].append((index, x, y))
        x += width + gap
        row_height = max(row_height, height)
    return pages


def _draw_marker(page: Image, cell: _Cell, table_size: tuple[float, float] | None) -> None:
    marker = cell.marker
    quiet = _quiet_mm(marker)
    width, _ = _cell_size(marker, table_size)
    framed = marker.size_mm + 2 * quiet
    frame_x = cell.x + (width - framed) / 2
    cut = (px(frame_x), px(cell.y)), (px(frame_x + framed), px(cell.y + framed))
    cv2.rectangle(page, cut[0], cut[1], 190, 2)
    side = px(marker.size_mm)
    x, y = px(frame_x + quiet), px(cell.y + quiet)
    page[y : y + side, x : x + side] = cv2.aruco.generateImageMarker(
        marker_dictionary(), marker.id, side
    )
    centre = cell.x + width / 2
    for line, text in enumerate(_labels(marker, table_size), 1):
        _text(page, text, centre, cell.y + framed + line * LINE_MM - 1, bold=line == 1)


def _header(page: Image, profile: BoardProfile, number: int, count: int) -> None:
    centre = PAGE_MM[0] / 2
    title = f"smartboard markers: {profile.name} (page {number} of {count})"
    _text(page, title, centre, MARGIN_MM + 5)
    advice = "Print at 100 % (actual size), not fit to page. Cut along the grey lines."
    _text(page, advice, centre, MARGIN_MM + 10)


def scale_bar(page: Image) -> None:
    """A 100 mm bar with a tick every 10 mm, at the bottom of the page."""
    left = (PAGE_MM[0] - SCALE_BAR_MM) / 2
    y = PAGE_MM[1] - MARGIN_MM - FOOTER_MM + 12
    cv2.rectangle(page, (px(left), px(y - 1)), (px(left + SCALE_BAR_MM), px(y)), 0, -1)
    for mm in range(0, SCALE_BAR_MM + 1, 10):
        tall = 4 if mm % 50 == 0 else 2.5
        x = px(left + mm)
        cv2.line(page, (x, px(y - 1 - tall)), (x, px(y)), 0, 3)
    _text(
        page, f"This bar must measure {SCALE_BAR_MM} mm. If it does not, print again.", 105, y + 6
    )


def _text(page: Image, text: str, centre_mm: float, baseline_mm: float, bold: bool = False) -> None:
    thickness = 3 if bold else 2
    (width, _), _ = cv2.getTextSize(text, FONT, TEXT_SCALE, thickness)
    origin = (px(centre_mm) - width // 2, px(baseline_mm))
    cv2.putText(page, text, origin, FONT, TEXT_SCALE, 0, thickness, cv2.LINE_AA)


def pdf_bytes(pages: Sequence[Image]) -> bytes:
    """A PDF of A4 pages, each one image (Flate-compressed) drawn at DPI from the top: grey
    (height x width) or BGR colour (height x width x 3), as OpenCV draws them."""
    page_w, page_h = (mm * 72 / 25.4 for mm in PAGE_MM)
    objects: list[bytes] = [b"", b""]  # 1: the catalog, 2: the page tree, filled in below
    kids = []
    for page in pages:
        height, width = page.shape[:2]
        colour = page.ndim == 3
        samples = cv2.cvtColor(page, cv2.COLOR_BGR2RGB) if colour else page
        pixels = zlib.compress(np.ascontiguousarray(samples).tobytes(), 6)
        space = b"/DeviceRGB" if colour else b"/DeviceGray"
        objects.append(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
            % (width, height, space, len(pixels), pixels)
        )
        image = len(objects)
        # Drawn at exactly DPI, from the page's top-left: true scale, whatever the rounding.
        w_pt, h_pt = width * 72 / DPI, height * 72 / DPI
        draw = b"q %.4f 0 0 %.4f 0 %.4f cm /Im0 Do Q" % (w_pt, h_pt, page_h - h_pt)
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(draw), draw))
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] "
            b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
            % (page_w, page_h, image, image + 1)
        )
        kids.append(b"%d 0 R" % len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(kids), len(kids))

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")  # the comment marks the file binary
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
