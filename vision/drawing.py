"""Text drawn over camera pictures, readable on light and dark alike."""

from __future__ import annotations

import cv2

from vision.image_files import Image

FONT = cv2.FONT_HERSHEY_SIMPLEX


def outlined_text(
    image: Image,
    text: str,
    origin: tuple[int, int],
    scale: float,
    colour: tuple[int, int, int],
    thickness: int,
) -> None:
    """`text` in `colour` with a dark halo made of offset copies: a thicker dark stroke would
    also widen OpenCV 5's glyphs, and the two texts would drift apart along the line."""
    x, y = origin
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, 2)):
        cv2.putText(image, text, (x + dx, y + dy), FONT, scale, (0, 0, 0), thickness, cv2.LINE_AA)
    cv2.putText(image, text, origin, FONT, scale, colour, thickness, cv2.LINE_AA)
