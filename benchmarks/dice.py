"""The d6 reader on the labelled photos: accuracy and speed per folder, as the user runs it.

For each folder (default: every folder of ../shared/data/dice), `smartboard dice read --json`
reads all its photos in one process and `../shared/tools/dice_eval.py` scores the lines;
`ms_per_image` is the command's wall time over the photos, start-up included, as dice_eval.py
counts it with --run. Then, of the labelled dice, how many were read at or above the config's
`dice.min_confidence` and right (applied without asking), below it (the table asks), at or above
it yet wrong (a wrong roll applied) or not found: all together, and for each of the four hard
cases of vision/training/hard_cases.py (dark, glare, tilted, touching) and the other dice.

The shipped models were trained on every photo of nell/: its figures here are not held out.
The held-out figures are in vision/models/README.md.

Run: .venv/bin/python benchmarks/dice.py [--data DIR ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.config import load_config
from vision.training.hard_cases import lines_figures
from vision.training.heldout import EVAL, dice_eval
from vision.training.label_fixes import mended

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SMARTBOARD = Path(sys.executable).parent / "smartboard"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
TARGETS = {"die_accuracy": 0.98, "frame_exact": 0.90, "ms_per_image": 15.0}


def evaluate(labelled: Path) -> dict[str, Any]:
    """dice_eval.py's summary of `smartboard dice read --json` over `labelled`, its labels
    mended where vision/training/label_fixes.toml says."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = mended(labelled, Path(scratch))
        images = sorted(
            str(p) for p in (folder / "images").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
        )
        lines = Path(scratch) / "lines.jsonl"
        start = time.perf_counter()
        with lines.open("w") as out:
            subprocess.run(
                [str(SMARTBOARD), "dice", "read", "--json", *images], stdout=out, check=True
            )
        elapsed = time.perf_counter() - start
        summary = dice_eval(folder, lines)
        summary["ms_per_image"] = round(1000 * elapsed / len(images), 2)
        summary.update(mode_figures(labelled, lines))
    return summary


def mode_figures(labelled: Path, lines: Path) -> dict[str, Any]:
    """Of every labelled die: the share read below min_confidence (the table asks), the value
    accuracy of those read at or above it, and both per hard case (vision/training/hard_cases)."""
    threshold = load_config(None).dice_min_confidence
    modes = lines_figures(labelled, lines, threshold)
    every = modes["all"]
    sure = every.sure_right + every.sure_wrong
    return {
        "min_confidence": threshold,
        "share_unsure": round(every.unsure / every.dice, 4) if every.dice else 0.0,
        "sure_value_accuracy": round(every.sure_right / sure, 4) if sure else 0.0,
        "modes": {name: tally.to_json() for name, tally in modes.items() if tally.dice},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        action="append",
        help="a folder of images/ and labels/ (repeatable; default: each of shared/data/dice)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per folder")
    args = parser.parse_args()
    if not EVAL.exists():
        print(f"dice benchmark: {EVAL} is missing: ../shared must sit beside the repo")
        return 1
    folders = args.data or sorted(p.parent for p in (SHARED / "data" / "dice").glob("*/images"))
    models = sorted((REPO / "vision" / "models").glob("*.onnx"))
    size_mb = sum(p.stat().st_size for p in models) / 1e6
    if not args.json:
        print(f"models: {', '.join(p.name for p in models)}: {size_mb:.2f} MB in all (max 5)")
    met = True
    for folder in folders:
        summary = evaluate(folder)
        ok = (
            summary["die_accuracy"] >= TARGETS["die_accuracy"]
            and summary["frame_exact"] >= TARGETS["frame_exact"]
            and summary["ms_per_image"] <= TARGETS["ms_per_image"]
        )
        met &= ok
        if args.json:
            print(json.dumps({"folder": folder.name, **summary, "targets_met": ok}))
            continue
        print(
            f"{folder.name}: {summary['images']} photos, {summary['dice']} dice: "
            f"recall {summary['recall']:.3f}, precision {summary['precision']:.3f}, "
            f"die_accuracy {summary['die_accuracy']:.3f}, "
            f"frame_exact {summary['frame_exact']:.3f}, "
            f"{summary['ms_per_image']:.1f} ms/image; below min_confidence "
            f"{summary['min_confidence']}: {summary['share_unsure']:.1%} of dice, the rest "
            f"{summary['sure_value_accuracy']:.3f} right; targets {'met' if ok else 'NOT met'}"
        )
        for name, tally in summary["modes"].items():
            print(
                f"  {name}: {tally['dice']} dice, {tally['read_without_asking']:.1%} read sure "
                f"and right, {tally['unsure']} unsure, {tally['sure_wrong']} sure but wrong, "
                f"{tally['missed']} missed"
            )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
