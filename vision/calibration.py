"""Camera calibration: ArUco markers around the table map camera pixels to table millimetres.

The board profile places its markers on the table (`BoardProfile.markers`, in mm). A frame that
shows them all gives a homography from pixels to table millimetres: each marker's four corners
are four points whose place on the table is known. The calibration is saved as JSON; with it the
profile's regions (cells, slots, the dice tray) become polygons of pixels, and pixels become
table positions.

OpenCV 4.7 replaced ArUco's free functions (`Dictionary_get`, `DetectorParameters_create`,
`detectMarkers`, `drawMarker`) with `getPredefinedDictionary`, `DetectorParameters`,
`ArucoDetector(...).detectMarkers` and `generateImageMarker`; OpenCV 5 keeps only these.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from hardware.profile import MARKER_IDS, BoardProfile, Marker, ProfileError, Region
from vision.drawing import FONT, outlined_text
from vision.image_files import Image

# 4x4 bits: the largest cells for a marker's size, so the surest reading from a camera high
# above the table; its 50 ids are the profile's MARKER_IDS.
DICTIONARY = cv2.aruco.DICT_4X4_50
# A marker whose corners land farther than this from where the profile puts them is not where
# the profile says: turned, moved, or from another profile's sheet.
MARKER_TOLERANCE_MM = 10.0
# A calibration file is some 600 bytes; anything much larger is not one, and is refused unread.
MAX_CALIBRATION_BYTES = 64 * 1024
MAX_IMAGE_SIDE = 65_535
MAX_PROFILE_NAME = 200

Points = NDArray[np.float64]
"""N x 2 points: pixels (x right, y down) or table millimetres (from the top-left corner)."""


class CalibrationError(Exception):
    """A frame that cannot calibrate the camera, with what to put right."""


class Detection(NamedTuple):
    """A marker seen in a frame: its id and its corners in pixels, clockwise from its top-left."""

    id: int
    corners: Points


def marker_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def profile_markers(profile: BoardProfile) -> tuple[Marker, ...]:
    """The profile's markers; a profile without any cannot be calibrated."""
    if not profile.markers:
        raise ProfileError(
            f"board profile {profile.source} places no markers: "
            "give its [table] size_mm (for the four corner markers) or [[markers]]"
        )
    return profile.markers


def detect_markers(frame: Image) -> list[Detection]:
    """Every marker of the dictionary seen in a frame (grey or BGR), in no particular order."""
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    parameters = cv2.aruco.DetectorParameters()
    # Sub-pixel corners: the homography is only as good as they are.
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(marker_dictionary(), parameters)
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return []
    return [
        Detection(int(marker_id), np.asarray(quad, dtype=np.float64).reshape(4, 2))
        for marker_id, quad in zip(np.asarray(ids).reshape(-1), corners, strict=True)
    ]


def where_on_table(marker: Marker, table_size: tuple[float, float] | None) -> str:
    """Where a marker goes, for a person at the table: "bottom-right, centre at [430, 430] mm"."""
    x, y = marker.center_mm
    at = f"centre at [{x:g}, {y:g}] mm"
    if table_size is None:
        return at
    width, height = table_size
    vertical = "top" if y < height / 3 else "bottom" if y > height * 2 / 3 else ""
    horizontal = "left" if x < width / 3 else "right" if x > width * 2 / 3 else ""
    side = "-".join(part for part in (vertical, horizontal) if part) or "middle"
    return f"{side}, {at}"


@dataclass(frozen=True)
class Calibration:
    """A camera's view of the table: `homography` maps pixels to table millimetres."""

    profile: str
    image_size: tuple[int, int]  # width, height in pixels
    homography: tuple[tuple[float, float, float], ...]
    marker_ids: tuple[int, ...]
    error_mm: float  # root mean square, over every marker corner

    def to_table(self, pixels: ArrayLike) -> Points:
        return _transform(pixels, np.array(self.homography))

    def to_pixels(self, table_mm: ArrayLike) -> Points:
        return _transform(table_mm, np.linalg.inv(np.array(self.homography)))

    def region_polygon(self, region: Region) -> Points:
        """A region's corners in pixels, clockwise from its top-left on the table."""
        x, y, w, h = region
        return self.to_pixels([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])

    def save(self, path: Path) -> None:
        data = {
            "profile": self.profile,
            "image_size": list(self.image_size),
            "homography": [list(row) for row in self.homography],
            "marker_ids": list(self.marker_ids),
            "error_mm": self.error_mm,
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        try:
            with path.open("rb") as file:
                raw = file.read(MAX_CALIBRATION_BYTES + 1)
        except OSError as error:
            raise CalibrationError(f"cannot read calibration {path}: {error.strerror}") from error
        if len(raw) > MAX_CALIBRATION_BYTES:
            raise CalibrationError(
                f"calibration {path} is larger than {MAX_CALIBRATION_BYTES // 1024} KiB"
            )
        try:
            data = json.loads(raw.decode("utf-8"))
        # ValueError: also an integer of 4,300 digits or more.
        except (ValueError, RecursionError) as error:
            raise CalibrationError(f"calibration {path} is not valid JSON: {error}") from None
        try:
            return cls._from_json(data)
        except (KeyError, TypeError, ValueError, ArithmeticError) as error:
            raise CalibrationError(f"calibration {path} is malformed: {error!r}") from error

    @classmethod
    def _from_json(cls, data: Any) -> Calibration:
        matrix = np.array(data["homography"], dtype=np.float64)
        width, height = (int(n) for n in data["image_size"])
        if matrix.shape != (3, 3) or not np.isfinite(matrix).all():
            raise ValueError("homography must be 3 x 3 finite numbers")
        # The profile's regions are mapped to pixels through its inverse.
        if not np.isfinite(np.linalg.inv(matrix)).all():
            raise ValueError("homography must be invertible")
        if not (0 < width <= MAX_IMAGE_SIDE and 0 < height <= MAX_IMAGE_SIDE):
            raise ValueError(f"image_size must be two sides in 1..{MAX_IMAGE_SIDE} pixels")
        marker_ids = tuple(int(i) for i in data["marker_ids"])
        if len(marker_ids) > MARKER_IDS or not all(0 <= i < MARKER_IDS for i in marker_ids):
            raise ValueError(f"marker_ids must be distinct ids in 0..{MARKER_IDS - 1}")
        error_mm = float(data["error_mm"])
        if not math.isfinite(error_mm) or error_mm < 0:
            raise ValueError("error_mm must be a finite number, at least 0")
        profile = data["profile"]
        if not isinstance(profile, str) or len(profile) > MAX_PROFILE_NAME:
            raise ValueError(f"profile must be a name of at most {MAX_PROFILE_NAME} characters")
        return cls(
            profile=profile,
            image_size=(width, height),
            homography=_rows(matrix),
            marker_ids=marker_ids,
            error_mm=error_mm,
        )


def calibrate(
    found: Sequence[Detection], profile: BoardProfile, image_size: tuple[int, int]
) -> Calibration:
    """The homography from the markers found to where the profile puts them, all of them."""
    markers = profile_markers(profile)
    seen = [d.id for d in found]
    twice = sorted({i for i in seen if seen.count(i) > 1 and i in {m.id for m in markers}})
    if twice:
        raise CalibrationError(
            f"marker {_ids(twice)} seen more than once in the frame: lay each marker once"
        )
    by_id = {d.id: d for d in found}
    missing = [m for m in markers if m.id not in by_id]
    if missing:
        places = "; ".join(f"{m.id} ({where_on_table(m, profile.table_size_mm)})" for m in missing)
        others = sorted(set(seen) - {m.id for m in markers})
        raise CalibrationError(
            f"marker{'s' if len(missing) > 1 else ''} not found in the frame: {places}. "
            "Check that the camera sees them, uncovered and evenly lit"
            + (f"; seen instead: {_ids(others)}, not in this profile" if others else "")
        )
    pixels = np.concatenate([by_id[m.id].corners for m in markers])
    table = np.array([corner for m in markers for corner in m.corners_mm()], dtype=np.float64)
    # Least median of squares: a marker turned or moved (fewer than half of them) falls out of the
    # fit, to be named below, without a threshold to tune to the camera's accuracy.
    homography, _ = cv2.findHomography(pixels, table, cv2.LMEDS)
    if homography is None:
        raise CalibrationError("the markers give no homography: are they all in one line?")
    matrix = np.asarray(homography, dtype=np.float64)
    misses = np.linalg.norm(_transform(pixels, matrix) - table, axis=1)
    for index, marker in enumerate(markers):
        worst = float(misses[index * 4 : index * 4 + 4].max())
        if worst > MARKER_TOLERANCE_MM:
            raise CalibrationError(
                f"marker {marker.id} is {worst:.0f} mm from where the profile puts it "
                f"({where_on_table(marker, profile.table_size_mm)}, its top edge towards the "
                "table's top edge): is it turned or moved, or is this another table?"
            )
    return Calibration(
        profile=profile.name,
        image_size=image_size,
        homography=_rows(matrix),
        marker_ids=tuple(sorted(m.id for m in markers)),
        error_mm=float(np.sqrt(np.mean(misses**2))),
    )


def annotate(
    frame: Image,
    found: Sequence[Detection],
    profile: BoardProfile,
    calibration: Calibration | None,
    seen: Mapping[str, str] | None = None,
) -> Image:
    """The frame with the markers found outlined and named, and every region drawn on it, with
    what a reader `seen` there (spot -> token).

    Without a calibration (markers missing) it shows the markers found, and names the others.
    """
    image: Image = np.asarray(
        cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy(), np.uint8
    )
    line = max(1, round(min(image.shape[:2]) / 400))
    if calibration is not None:
        if profile.table_size_mm is not None:
            table = Region(0, 0, *profile.table_size_mm)
            _outline(image, calibration.region_polygon(table), (160, 160, 160), line)
        for spot_id, region in profile.camera_regions().items():
            polygon = calibration.region_polygon(region)
            _outline(image, polygon, (255, 160, 0), line)
            text = spot_id if seen is None else f"{spot_id}: {seen.get(spot_id, '-')}"
            _label(image, text, polygon.mean(axis=0), _width(polygon), (255, 160, 0))
        if profile.dice_tray is not None:
            polygon = calibration.region_polygon(profile.dice_tray)
            _outline(image, polygon, (0, 220, 255), line)
            # Along its top edge: the dice lie in its middle.
            top = (polygon[:, 0].mean(), polygon[:, 1].min() + 4 * line)
            _label(image, "dice tray", top, _width(polygon), (0, 220, 255), top=True)
    expected = {m.id for m in profile.markers}
    for detection in found:
        # Green: the profile's markers; orange: markers from some other sheet.
        colour = (0, 200, 0) if detection.id in expected else (0, 140, 255)
        corners = detection.corners
        _outline(image, corners, colour, line * 2)
        top_left = tuple(int(v) for v in corners[0].round())
        cv2.circle(image, top_left, line * 4, colour, -1)  # shows which way the marker is turned
        below = (corners[:, 0].mean(), corners[:, 1].max() + 8 * line)
        _label(image, f"id {detection.id}", below, _width(corners), colour)
    if calibration is not None:
        summary = f"{profile.name}: error {calibration.error_mm:.2f} mm"
    else:
        missing = sorted(expected - {d.id for d in found})
        summary = f"{profile.name}: markers missing: {_ids(missing) or 'none'}"
    width = image.shape[1]
    _label(image, summary, (width / 2, 16 * line), width * 0.9, (255, 255, 255), top=True)
    return image


def _transform(points: ArrayLike, matrix: NDArray[np.float64]) -> Points:
    array = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(array, matrix), dtype=np.float64).reshape(-1, 2)


def _rows(matrix: NDArray[np.float64]) -> tuple[tuple[float, float, float], ...]:
    return tuple((float(a), float(b), float(c)) for a, b, c in matrix / matrix[2, 2])


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(map(str, ids))


def _outline(image: Image, polygon: Points, colour: tuple[int, int, int], line: int) -> None:
    cv2.polylines(image, [polygon.round().astype(np.int32)], True, colour, line, cv2.LINE_AA)


def _width(polygon: Points) -> float:
    return float(polygon[:, 0].max() - polygon[:, 0].min())


def _label(
    image: Image,
    text: str,
    at: Sequence[float] | Points,
    span: float,
    colour: tuple[int, int, int],
    top: bool = False,
) -> None:
    """Text centred on `at` (or hanging from it, `top`), as large as fits `span` pixels."""
    (width, height), _ = cv2.getTextSize(text, FONT, 1.0, 1)
    scale = max(0.35, min(1.5, 0.8 * span / width))
    thickness = max(1, round(scale * 2))
    x = int(at[0] - width * scale / 2)
    y = int(at[1] + height * scale * (1 if top else 0.5))
    outlined_text(image, text, (x, y), scale, colour, thickness)
