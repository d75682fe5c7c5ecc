"""The four ways a die is hard to read (issue 22), told from a labelled photo, and the reader's
figures for each.

On photos the project had never seen, every die read wrong was one of these:

- `dark`: a dark face with low-contrast pips (the face's median grey under DARK_GREY and the
  spread of its greys under DARK_SPREAD);
- `glare`: a bright spot on the face (at least GLARE_SHARE of it far brighter than the rest),
  read as a pip or hiding one;
- `tilted`: the top face foreshortened: a die leaning on another shows its sides, so its box is
  TILT_SIZE times the photo's usual die or more (top view); the top face's box is TILT_ASPECT
  times longer than wide (oblique view);
- `touching`: its box meets or overlaps another die's, so the two may be found as one.

A die may be hard in several ways, or none. The thresholds were chosen on the development
photos so that each mode holds the dice that look like it (about 4 % glare, 12 % dark, 4 %
tilted and 28 % touching of nell's dice; 35 % of matteo's are tilted by TILT_ASPECT).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.die import Die
from vision.training.dataset import Sample, load_folder

MODES = ("dark", "glare", "tilted", "touching")
DARK_GREY = 90
DARK_SPREAD = 80
GLARE_SHARE = 0.01
GLARE_OVER = 60
TILT_SIZE = 1.2
TILT_ASPECT = 1.6
INNER = 0.3
"""The face is read in the middle of the box: +-INNER of its width and height from the centre
(a whole-die box's edges are the die's sides and the tray)."""


def die_modes(sample: Sample) -> list[frozenset[str]]:
    """The hard modes of each labelled die of `sample`, in label order."""
    grey = cv2.cvtColor(sample.image, cv2.COLOR_BGR2GRAY)
    boxes = sample.boxes
    sides = np.maximum(boxes[:, 3], boxes[:, 4]) if len(boxes) else np.zeros(0)
    usual = float(np.median(sides)) if len(sides) else 0.0
    out = []
    for j, (_, cx, cy, w, h) in enumerate(boxes.tolist()):
        modes = set()
        x0, x1 = max(0, round(cx - INNER * w)), max(0, round(cx + INNER * w))
        y0, y1 = max(0, round(cy - INNER * h)), max(0, round(cy + INNER * h))
        face = grey[y0:y1, x0:x1].astype(np.float32)
        if face.size:
            middle = float(np.median(face))
            spread = float(np.percentile(face, 95) - np.percentile(face, 5))
            if middle < DARK_GREY and spread < DARK_SPREAD:
                modes.add("dark")
            if float((face > max(235.0, middle + GLARE_OVER)).mean()) >= GLARE_SHARE:
                modes.add("glare")
        if sample.kind == "top":
            if max(w, h) >= TILT_SIZE * usual:
                modes.add("tilted")
        elif max(w, h) >= TILT_ASPECT * max(1.0, min(w, h)):
            modes.add("tilted")
        for k, (_, cx2, cy2, w2, h2) in enumerate(boxes.tolist()):
            gap = max(abs(cx - cx2) - (w + w2) / 2, abs(cy - cy2) - (h + h2) / 2)
            if k != j and gap <= 0:
                modes.add("touching")
                break
        out.append(frozenset(modes))
    return out


@dataclass
class ModeFigures:
    """How the reader did on the dice of one mode."""

    dice: int = 0
    sure_right: int = 0
    """Read right and at or above the confidence gate: applied without asking."""
    unsure: int = 0
    """Below the gate: the table asks (right or wrong)."""
    sure_wrong: int = 0
    """Read wrong yet above the gate: a wrong roll applied. The figure that must stay 0."""
    missed: int = 0
    """Not found at all."""

    def to_json(self) -> dict[str, float]:
        share = self.sure_right / self.dice if self.dice else 0.0
        return {
            "dice": self.dice,
            "sure_right": self.sure_right,
            "unsure": self.unsure,
            "sure_wrong": self.sure_wrong,
            "missed": self.missed,
            "read_without_asking": round(share, 4),
        }


def matched(sample: Sample, dice: Sequence[Die]) -> list[Die | None]:
    """The die read for each labelled die (its centre inside the label's box, nearest first), or
    None where none was."""
    left = list(dice)
    out: list[Die | None] = []
    for _, cx, cy, w, h in sample.boxes.tolist():
        inside = [
            d
            for d in left
            if abs(d.box[0] + d.box[2] / 2 - cx) <= w / 2
            and abs(d.box[1] + d.box[3] / 2 - cy) <= h / 2
        ]
        best = min(
            inside,
            key=lambda d: (d.box[0] + d.box[2] / 2 - cx) ** 2 + (d.box[1] + d.box[3] / 2 - cy) ** 2,
            default=None,
        )
        if best is not None:
            left.remove(best)
        out.append(best)
    return out


def figures(
    samples: Sequence[Sample], read: Callable[[Sample], Sequence[Die]], min_confidence: float
) -> dict[str, ModeFigures]:
    """Per mode (and `all` and `easy`, the dice of no mode): how `read` did on every labelled die
    of `samples`."""
    out = {name: ModeFigures() for name in (*MODES, "easy", "all")}
    for sample in samples:
        found = matched(sample, read(sample))
        for label, modes, die in zip(sample.boxes.tolist(), die_modes(sample), found, strict=True):
            for name in (*sorted(modes), "all") if modes else ("easy", "all"):
                tally = out[name]
                tally.dice += 1
                if die is None:
                    tally.missed += 1
                elif die.confidence < min_confidence:
                    tally.unsure += 1
                elif die.value == round(label[0]):
                    tally.sure_right += 1
                else:
                    tally.sure_wrong += 1
    return out


def lines_figures(labelled: Path, lines: Path, min_confidence: float) -> dict[str, ModeFigures]:
    """`figures` of a reader's JSON lines (as `smartboard dice read --json` prints them, one
    photo a line) over the labelled folder of those photos."""
    read: dict[str, list[Die]] = {}
    for line in lines.read_text().splitlines():
        found = json.loads(line)
        read[Path(found["image"]).name] = [
            Die(d["value"], tuple(d["box"]), d["confidence"]) for d in found["dice"]
        ]
    samples, _ = load_folder(labelled, None, 0.0)
    return figures(samples, lambda sample: read[sample.name], min_confidence)


def add(into: dict[str, ModeFigures], more: dict[str, ModeFigures]) -> None:
    """Pool `more` into `into`, mode by mode."""
    for name, tally in more.items():
        pooled = into.setdefault(name, ModeFigures())
        pooled.dice += tally.dice
        pooled.sure_right += tally.sure_right
        pooled.unsure += tally.unsure
        pooled.sure_wrong += tally.sure_wrong
        pooled.missed += tally.missed
