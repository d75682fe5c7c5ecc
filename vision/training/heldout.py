"""Held-out figures for the pip classifier: train it once per fold without that fold, read the fold.

usage: python -m vision.training.heldout --data DIR --work DIR [--extra DIR[:KIND] ...]
  [--folds K] [--steps N] [--seeds S ...] [--jobs J]

Photo i of DIR (sorted by name) is held out in fold i mod K: new photos of the dice sets the
classifier saw, as the reader meets them on a table. For each fold, train_pips learns from the
other photos (and every --extra folder) once per seed, and the fold's photos are read end to end
as the shipped reader reads them (the shipped detector, the fold's classifiers in seed order,
TrayReader's defaults) and scored by ../shared/tools/dice_eval.py. It prints each
fold and all folds pooled. The detector saw every photo of nell/, but it found every labelled
die of every fold, so the figures measure the values read.

Each 10000-step run took about 20 min on one thread of this 2-core machine (--jobs 2 runs two
at a time). Runs already in --work are reused, so an interrupted run picks up again. The
figures in vision/models/README.md came from (MATTEO_75: a folder of matteo's first 233 photos):
  OMP_WAIT_POLICY=PASSIVE python -m vision.training.heldout --data /work/shared/data/dice/nell \
    --extra MATTEO_75:oblique --work build/heldout --jobs 2
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from vision.dice_tray import TrayReader
from vision.image_files import read_image
from vision.training.hard_cases import ModeFigures, add, lines_figures
from vision.training.label_fixes import mended

REPO = Path(__file__).resolve().parents[2]
EVAL = REPO.parent / "shared" / "tools" / "dice_eval.py"
DETECTOR = REPO / "vision" / "models" / "dice_detector.onnx"
SUFFIXES = (".jpg", ".jpeg", ".png")
GATE = 0.8
"""The table's default [dice] min_confidence: the hard cases are counted against it."""


def make_folds(data: Path, folds: int, work: Path) -> None:
    """work/fK_train and work/fK_test: images/ and labels/ of symlinks into data."""
    names = sorted(p.name for p in (data / "images").iterdir() if p.suffix.lower() in SUFFIXES)
    for k in range(folds):
        for part in ("train", "test"):
            for sub in ("images", "labels"):
                (work / f"f{k}_{part}" / sub).mkdir(parents=True, exist_ok=True)
        for i, name in enumerate(names):
            part = work / f"f{k}_{'test' if i % folds == k else 'train'}"
            label = Path(name).stem + ".txt"
            for sub, file in (("images", name), ("labels", label)):
                link = part / sub / file
                if not link.is_symlink():
                    link.symlink_to((data / sub / file).resolve())


def train(k: int, seed: int, a: argparse.Namespace) -> Path:
    out = a.work / f"pips_f{k}_s{seed}.onnx"
    if out.exists():
        return out
    extra = [arg for spec in a.extra for arg in ("--data", spec)]
    command = [
        sys.executable, "-m", "vision.training.train_pips",
        "--data", f"{a.work / f'f{k}_train'}:top", *extra,
        "--steps", str(a.steps), "--minutes", "600", "--seed", str(seed), "--threads", "1",
        "--out", str(out.with_suffix(".part.onnx")),
    ]  # fmt: skip
    with (a.work / f"train_f{k}_s{seed}.log").open("w") as log:
        subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=True, cwd=REPO)
    out.with_suffix(".part.onnx").rename(out)
    return out


def score(k: int, pips: list[Path], work: Path) -> tuple[dict[str, float], dict[str, ModeFigures]]:
    """dice_eval.py's summary of fold k read end to end, and its hard cases' figures."""
    folder = work / f"f{k}_test"
    reader = TrayReader(DETECTOR, pips)
    lines = work / f"read_f{k}.jsonl"
    with lines.open("w") as out:
        for image in sorted((folder / "images").iterdir()):
            dice = [d.to_json() for d in reader.read(read_image(image))]
            out.write(json.dumps({"image": str(image), "dice": dice}) + "\n")
    return dice_eval(folder, lines), lines_figures(folder, lines, GATE)


def dice_eval(folder: Path, lines: Path) -> dict[str, float]:
    """../shared/tools/dice_eval.py's summary of a reader's JSON lines over a labelled folder."""
    scored = [str(folder), "--predictions", str(lines), "--json", "--gate", str(GATE)]
    done = subprocess.run(
        [sys.executable, str(EVAL), *scored],
        capture_output=True,
        text=True,
        check=True,
    )
    summary: dict[str, float] = json.loads(done.stdout)
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, required=True, help="top-down photos to fold (nell/)")
    ap.add_argument("--extra", action="append", default=[], help="DIR[:KIND] always trained on")
    ap.add_argument("--work", type=Path, required=True, help="folds, models and logs go here")
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="classifiers per fold")
    ap.add_argument("--jobs", type=int, default=1, help="runs trained at once")
    a = ap.parse_args()
    if not EVAL.exists():
        print(f"heldout: {EVAL} is missing: ../shared must sit beside the repo", file=sys.stderr)
        return 1
    make_folds(mended(a.data, a.work / "mended"), a.folds, a.work)
    runs = [(k, seed) for k in range(a.folds) for seed in a.seeds]
    with ThreadPoolExecutor(a.jobs) as pool:
        trained = list(pool.map(lambda run: train(*run, a), runs))
    models = [
        [path for path, (fold, _) in zip(trained, runs, strict=True) if fold == k]
        for k in range(a.folds)
    ]
    dice = right = frames = exact = auto = auto_wrong = 0.0
    modes: dict[str, ModeFigures] = {}
    for k, pips in enumerate(models):
        s, fold_modes = score(k, pips, a.work)
        add(modes, fold_modes)
        print(
            f"fold {k}: {s['images']} photos, {s['dice']} dice, recall {s['recall']:.3f}, "
            f"die_accuracy {s['die_accuracy']:.4f}, frame_exact {s['frame_exact']:.2f}, "
            f"applied without asking {s['auto_frames']:.2f}, of them wrong "
            f"{s['auto_frames_wrong']:.0f}"
        )
        dice += s["dice"]
        right += s["die_accuracy"] * s["dice"]
        frames += s["images"]
        exact += s["frame_exact"] * s["images"]
        auto += s["auto_frames"] * s["images"]
        auto_wrong += s["auto_frames_wrong"]
    print(
        f"all {a.folds} folds: {frames:.0f} photos, {dice:.0f} dice, {dice - right:.0f} wrong, "
        f"die_accuracy {right / dice:.4f}, frame_exact {exact / frames:.3f}, "
        f"applied without asking {auto / frames:.3f} (gate {GATE}), of them wrong {auto_wrong:.0f}"
    )
    for name, tally in modes.items():
        print(f"  {name} (gate {GATE}): {json.dumps(tally.to_json())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
