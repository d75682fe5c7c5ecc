"""A settled roll read from several frames (DiceSettler's `frames`) against one frame alone.

On the table the camera sees resting dice in many frames that differ only by sensor noise, light
flicker and compression. Each labelled photo is made into FRAMES such frames, seeded (every run
makes the same frames), at two levels of jitter:

- `camera`: re-encoded as JPEG at a quality of 60 to 95, shifted by up to 1.5 px, rescaled by up
  to 0.5 %, brightness jittered by up to 6 % and 5 levels, Gaussian noise of 2 levels;
- `still`: only the noise, and JPEG at 90: frames far more alike, as a fixed camera's are. The
  combination takes frames as partly independent readings (FRAME_WEIGHT), so this is where it
  could grow surer than the frames warrant.

Each frame is read as the daemon reads it (`DiceReader`), then:

- `single`: every frame read alone;
- `combined_3`, `combined_5`: the dice read from the 3 (5) latest frames, each time the window
  is full;
- `settled_1`, `settled_5`: what the daemon ends up applying: every frame fed to a settler with
  [dice] stable_frames and min_confidence, reading each frame alone (as before) or combining 5
  (the default `combine_frames`); the roll is the last one reported.

Figures: `die_accuracy` (labelled dice found with the right value, matched as
../shared/tools/dice_eval.py matches them), `frame_exact` (every die found and right, nothing
extra), `applied` (every die at or above min_confidence: applied without asking; for settled, a
certain roll reported), `wrong_applied` (of those, not exactly right: must stay 0), `read_ms`
(median reader time a frame, one thread) and `feed_ms` (mean time of DiceSettler.feed a frame).

Kinds: `nell` (top view, ONNX reader, which fills `Die.faces`) and `matteo` (oblique view: its
reader gives no per-face chances, so each die is read from its latest frame alone; shown as the
control, its settings should agree). Labels are read mended (vision/training/label_fixes.toml);
IMG_20191208_111530 is left out, whose labels leave out a die lying outside the tray (the daemon
reads only the calibrated tray).

NOT HELD OUT: the shipped top-view models were trained on every photo of nell/, so the nell
figures are for photos the reader has seen (its held-out one-frame figures are in
vision/models/README.md); fewer of them read unsure than new photos would, so the gain measured
here is likely smaller than on new photos. The oblique reader learned nothing; its thresholds
were set looking at matteo/.

Run: .venv/bin/python benchmarks/dice_frames.py [--kind nell|matteo ...] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from controller.config import load_config
from vision.dice_reader import DiceReader
from vision.dice_settle import DiceSettler, SeenDie, SettledRoll
from vision.die import Die
from vision.image_files import Image, read_image
from vision.training.label_fixes import label_text

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data" / "dice"
FRAMES = 8
VIEWS = {"nell": "top", "matteo": "oblique"}
UNLABELLED_DIE = {"IMG_20191208_111530"}
WINDOWS = {"single": 1, "combined_3": 3, "combined_5": 5}
SETTLED = {"settled_1": 1, "settled_5": 5}
Truth = list[tuple[int, float, float, float, float]]
"""Value, centre x, centre y, width, height in pixels."""


def jittered(image: Image, rng: np.random.Generator, level: str) -> Image:
    """`image` as another frame of a camera looking at the same resting dice."""
    quality = 90
    if level == "camera":
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 0.0, 1 + rng.uniform(-0.005, 0.005))
        m[:, 2] += rng.uniform(-1.5, 1.5, 2)
        image = np.asarray(cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
        lit = image.astype(np.float32) * (1 + rng.uniform(-0.06, 0.06)) + rng.uniform(-5, 5)
        quality = int(rng.integers(60, 96))
    else:
        lit = image.astype(np.float32)
    noisy = np.clip(lit + rng.normal(0, 2, lit.shape), 0, 255).astype(np.uint8)
    _, jpeg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8)


def truth(photo: Path, image: Image) -> Truth:
    h, w = image.shape[:2]
    label = photo.parent.parent / "labels" / f"{photo.stem}.txt"
    rows = [line.split() for line in label_text(label).splitlines() if line.strip()]
    return [
        (int(v), float(x) * w, float(y) * h, float(bw) * w, float(bh) * h)
        for v, x, y, bw, bh in rows
    ]


def right_dice(labels: Truth, dice: Sequence[SeenDie]) -> tuple[int, bool]:
    """Labelled dice read right, and whether the reading is exact: dice_eval.py's matching
    (greedy, nearest centres first)."""
    pairs = []
    for i, (_, gx, gy, gw, gh) in enumerate(labels):
        for j, die in enumerate(dice):
            x, y, w, h = die.box
            cx, cy = x + w / 2, y + h / 2
            if (abs(cx - gx) <= gw and abs(cy - gy) <= gh) or (
                x <= gx <= x + w and y <= gy <= y + h
            ):
                pairs.append((((cx - gx) / max(gw, 1)) ** 2 + ((cy - gy) / max(gh, 1)) ** 2, i, j))
    used_label: set[int] = set()
    used_die: set[int] = set()
    right = 0
    for _, i, j in sorted(pairs):
        if i not in used_label and j not in used_die:
            used_label.add(i)
            used_die.add(j)
            right += labels[i][0] == dice[j].value
    return right, right == len(labels) == len(dice)


@dataclass
class Tally:
    readings: int = 0
    dice: int = 0
    right: int = 0
    exact: int = 0
    applied: int = 0
    wrong_applied: int = 0
    feed_s: float = 0.0
    feeds: int = 0
    wrong_photos: list[str] = field(default_factory=list)

    def add(
        self,
        labels: Truth,
        dice: Sequence[SeenDie],
        gate: float,
        applied: bool | None = None,
        photo: str = "",
    ) -> None:
        """One reading; `applied`: whether the roll was applied, if not by the gate."""
        right, exact = right_dice(labels, dice)
        self.readings += 1
        self.dice += len(labels)
        self.right += right
        self.exact += exact
        if applied is None:
            applied = bool(dice) and min(die.confidence for die in dice) >= gate
        if applied:
            self.applied += 1
            self.wrong_applied += not exact
            if not exact:
                self.wrong_photos.append(photo)

    def figures(self) -> dict[str, object]:
        return {
            "readings": self.readings,
            "die_accuracy": round(self.right / max(self.dice, 1), 4),
            "frame_exact": round(self.exact / max(self.readings, 1), 4),
            "applied": round(self.applied / max(self.readings, 1), 4),
            "wrong_applied": self.wrong_applied,
            "wrong_photos": sorted(set(self.wrong_photos)),
            "feed_ms": round(1000 * self.feed_s / max(self.feeds, 1), 3),
        }


def feed(
    settler: DiceSettler, frames: list[list[Die]], tally: Tally
) -> list[tuple[list[SeenDie], SettledRoll | None]]:
    """Each frame's dice as the settler reads them (combined), and the roll it reports."""
    out = []
    for dice in frames:
        start = time.perf_counter()
        roll = settler.feed(dice)
        tally.feed_s += time.perf_counter() - start
        tally.feeds += 1
        out.append((settler.combined, roll))
    return out


def run(kind: str, level: str, limit: int | None) -> dict[str, object]:
    config = load_config(None)
    gate, tolerance = config.dice_min_confidence, config.dice_box_tolerance_px
    reader = DiceReader(VIEWS[kind], threads=1)
    photos = [
        p for p in sorted((DATA / kind / "images").glob("*.jpg")) if p.stem not in UNLABELLED_DIE
    ][:limit]
    tallies = {name: Tally() for name in [*WINDOWS, *SETTLED]}
    read_s: list[float] = []
    for n, photo in enumerate(photos):
        image = read_image(photo)
        labels = truth(photo, image)
        rng = np.random.default_rng(n)
        frames = []
        for _ in range(FRAMES):
            frame = jittered(image, rng, level)
            start = time.perf_counter()
            frames.append(reader.read(frame))
            read_s.append(time.perf_counter() - start)
        for name, window in WINDOWS.items():
            settler = DiceSettler(1, gate, tolerance, window)
            for i, (dice, _) in enumerate(feed(settler, frames, tallies[name])):
                if i + 1 >= window:
                    tallies[name].add(labels, dice, gate, photo=photo.stem)
        for name, window in SETTLED.items():
            settler = DiceSettler(config.dice_stable_frames, gate, tolerance, window)
            reported: tuple[Sequence[SeenDie], bool] = ([], False)
            for dice, roll in feed(settler, frames, tallies[name]):
                if roll is not None:
                    reported = (dice, roll.certain)
            tallies[name].add(labels, reported[0], gate, reported[1], photo.stem)
    return {
        "kind": kind,
        "jitter": level,
        "photos": len(photos),
        "frames": FRAMES,
        "min_confidence": gate,
        "stable_frames": config.dice_stable_frames,
        "read_ms": round(1000 * statistics.median(read_s), 2),
        **{name: tally.figures() for name, tally in tallies.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", action="append", choices=sorted(VIEWS), help="default: both")
    parser.add_argument(
        "--jitter", action="append", choices=["camera", "still"], help="default: both"
    )
    parser.add_argument("--limit", type=int, help="the first N photos of each kind")
    parser.add_argument("--json", action="store_true", help="one JSON object per kind")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"dice frames benchmark: {DATA} is missing: ../shared must sit beside the repo")
        return 1
    for kind in args.kind or sorted(VIEWS, reverse=True):
        for level in args.jitter or ["camera", "still"]:
            result = run(kind, level, args.limit)
            if args.json:
                print(json.dumps(result))
                continue
            print(
                f"{kind}, {level} jitter: {result['photos']} photos x {FRAMES} frames, "
                f"{result['read_ms']} ms a frame to read; min_confidence "
                f"{result['min_confidence']}, stable_frames {result['stable_frames']}"
            )
            for name in [*WINDOWS, *SETTLED]:
                f = result[name]
                assert isinstance(f, dict)
                print(
                    f"  {name:<11} die_accuracy {f['die_accuracy']:.4f}  "
                    f"frame_exact {f['frame_exact']:.4f}  applied {f['applied']:.1%}  "
                    f"wrong_applied {f['wrong_applied']} of {f['readings']}  "
                    f"feed {f['feed_ms']:.3f} ms"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
