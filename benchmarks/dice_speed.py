"""Where the top-view d6 reader's time goes, on one thread, photo by photo.

Each photo of the folder is decoded once, then read REPEATS times by `TrayReader` as the daemon
runs it; the figure is the median over photos of each photo's fastest read (the machine's other
work shows as slower reads, not as a slower reader). The parts are timed the same way, apart:

- `shrink`: the photo shrunk and letterboxed into the detector's input;
- `detector`: the letterboxed photo through the detector network;
- `classifier`: the found dice's crops through the pip classifiers (the first on every die, the
  second and the quarter turns only where the reading is in doubt);
- `python`: the rest (peaks, crops, the Die objects): `read` less the three above.

The figures depend on the machine and its load on the day: compare readers measured on the same
day (run this in each checkout).

Run: .venv/bin/python benchmarks/dice_speed.py [--data DIR] [--threads N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from vision.dice_reader import MODELS, PIPS
from vision.dice_tray import TrayReader, crop_die, letterbox
from vision.image_files import Image, read_image

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
REPEATS = 3
TARGET_MS = 8.0


def fastest(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return 1000 * best


def parts(reader: TrayReader, image: Image) -> dict[str, float]:
    canvas, scale = letterbox(image)
    heat = reader._detect(canvas)
    peaks = reader._peaks(heat, scale, image.shape[1], image.shape[0])
    crops = [crop_die(image, p.cx, p.cy, max(p.w, p.h)) for p in peaks]
    read = fastest(lambda: reader.read(image))
    shrink = fastest(lambda: letterbox(image))
    detector = fastest(lambda: reader._detect(canvas))
    classifier = fastest(lambda: reader._classify(crops)) if crops else 0.0
    return {
        "read": read,
        "shrink": shrink,
        "detector": detector,
        "classifier": classifier,
        "python": max(0.0, read - shrink - detector - classifier),
        "dice": len(crops),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED / "data" / "dice" / "nell")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    photos = sorted(p for p in (args.data / "images").iterdir() if p.suffix.lower() == ".jpg")
    if not photos:
        print(f"dice speed: no .jpg photos in {args.data / 'images'}", file=sys.stderr)
        return 1
    reader = TrayReader(MODELS / "dice_detector.onnx", PIPS, threads=args.threads)
    rows = [parts(reader, read_image(photo)) for photo in photos]
    figures = {
        f"{name}_ms": round(statistics.median(row[name] for row in rows), 2)
        for name in ("read", "shrink", "detector", "classifier", "python")
    }
    figures["p90_read_ms"] = round(statistics.quantiles([r["read"] for r in rows], n=10)[-1], 2)
    figures["fps"] = round(1000 / figures["read_ms"], 1)
    summary = {"photos": len(rows), "threads": args.threads, **figures, "target_ms": TARGET_MS}
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{len(rows)} photos, {args.threads} thread(s): read {figures['read_ms']} ms median "
            f"(p90 {figures['p90_read_ms']}, {figures['fps']} a second): shrink "
            f"{figures['shrink_ms']}, detector "
            f"{figures['detector_ms']}, classifier {figures['classifier_ms']}, python "
            f"{figures['python_ms']} (target {TARGET_MS} ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
