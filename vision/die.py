"""One die as a reader sees it in a photo or frame."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Die:
    value: int
    """Pips on the top face, 1..6."""
    box: tuple[int, int, int, int]
    """x, y, width, height in pixels: top-left corner and size."""
    confidence: float
    """0..1: how sure the reader is of both the die and its value."""

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "box": list(self.box), "confidence": round(self.confidence, 3)}
