"""The real dice photos kept in tests/data/dice, with their labels."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.die import Die
from vision.image_files import Image, read_image

PHOTOS = Path(__file__).parent / "data" / "dice"


@dataclass(frozen=True)
class Label:
    value: int
    box: tuple[float, float, float, float]  # x, y, width, height in pixels


def photos(kind: str) -> list[Path]:
    """`nell` (top-down over a tray) or `matteo` (an oblique webcam)."""
    return sorted((PHOTOS / kind / "images").glob("*.jpg"))


def labels(photo: Path, image: Image) -> list[Label]:
    height, width = image.shape[:2]
    text = (photo.parent.parent / "labels" / f"{photo.stem}.txt").read_text()
    out = []
    for line in text.splitlines():
        value, xc, yc, w, h = line.split()
        bw, bh = float(w) * width, float(h) * height
        out.append(
            Label(int(value), (float(xc) * width - bw / 2, float(yc) * height - bh / 2, bw, bh))
        )
    return out


def load(photo: Path) -> tuple[Image, list[Label]]:
    image = read_image(photo)
    return image, labels(photo, image)


def matches(die: Die, label: Label) -> bool:
    """dice_eval.py's rule: the die's centre lies in the label's box grown by half its size on
    every side, or the label's centre lies in the die's box."""
    x, y, w, h = label.box
    cx, cy = die.box[0] + die.box[2] / 2, die.box[1] + die.box[3] / 2
    if x - w / 2 <= cx <= x + 1.5 * w and y - h / 2 <= cy <= y + 1.5 * h:
        return True
    dx, dy, dw, dh = die.box
    lx, ly = x + w / 2, y + h / 2
    return dx <= lx <= dx + dw and dy <= ly <= dy + dh


def read_right(dice: list[Die], truth: list[Label]) -> bool:
    """Every labelled die found once, with its value, and nothing else."""
    left = list(truth)
    for die in dice:
        found = next((t for t in left if matches(die, t) and t.value == die.value), None)
        if found is None:
            return False
        left.remove(found)
    return not left
