"""One die as a reader sees it in a photo or frame."""

from __future__ import annotations

from dataclasses import dataclass

from vision.dice_sources import Face


@dataclass(frozen=True)
class Die:
    value: Face
    """The top face as the game names it: pips 1..6 for a d6, a face's name for an icon die."""
    box: tuple[int, int, int, int]
    """x, y, width, height in pixels: top-left corner and size."""
    confidence: float
    """0..1: how sure the reader is of both the die and its value."""
    faces: tuple[tuple[Face, float], ...] = ()
    """What the reader knows beyond the top value, where it is cheap to say: each face it could
    show, with how sure the reader is of the die being there and showing it. These add up to the
    reader's certainty that a die lies there; the value's own is `confidence`. Empty: only the
    value and its confidence are known (the oblique and icon readers)."""

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "box": list(self.box), "confidence": round(self.confidence, 3)}
