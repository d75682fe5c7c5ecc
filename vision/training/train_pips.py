"""Train the pip-count classifier on die crops (PyTorch on CPU) and export it to ONNX.

usage: python -m vision.training.train_pips --data DIR[:KIND] [--data ...] --out FILE.onnx
  [--holdout F] [--steps N] [--minutes M] [--seed S] [--threads T] [--width W]

Input: a CROP_SIZE (48) square BGR crop (see vision.dice_tray.crop_die) centred on a die, side
1.4 x the longer box side, from the full-resolution photo. Output: 6 logits, one per value. Crops
are sampled with jittered centre and size (the detector's boxes are not exact), any rotation and
colour noise. With --holdout, the held-out photos' ground-truth boxes are scored at the end.

The shipped vision/models/dice_pips_1.onnx and dice_pips_2.onnx are two of these, seeds 1 and 2
(the reader asks the second where the first doubts; see vision/models/README.md). Each took
10000 steps of 128 crops (1,120-1,190 s on one CPU thread, two runs side by side on this 2-core
machine):
  OMP_WAIT_POLICY=PASSIVE python -m vision.training.train_pips \
    --data /work/shared/data/dice/nell:top --data /work/shared/data/dice/matteo:oblique \
    --steps 10000 --minutes 60 --seed 1 --threads 1 --out pips_s1.onnx
vision.training.heldout trains and scores it without each fold of nell in turn.
--minutes only stops a run early; the learning-rate schedule follows --steps.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.dice_tray import CROP_SIZE, crop_die
from vision.training.dataset import Sample, load_specs, pip_crop
from vision.training.train_detector import add_common_arguments, fuse_bn, save, seed_all


class PipNet(nn.Module):
    """Four 3x3 conv stages with max-pooling, then a 'fully connected' conv over the 4x4 map."""

    def __init__(self, w: int = 16) -> None:
        super().__init__()

        def cbr(ci: int, co: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(ci, co, 3, 1, 1, bias=False), nn.BatchNorm2d(co), nn.ReLU(inplace=True)
            )

        self.f = nn.Sequential(
            cbr(3, w),
            nn.MaxPool2d(2),
            cbr(w, 2 * w),
            nn.MaxPool2d(2),
            cbr(2 * w, 4 * w),
            cbr(4 * w, 4 * w),
            nn.MaxPool2d(2),
            cbr(4 * w, 4 * w),
        )
        self.fc = nn.Conv2d(4 * w, 6, CROP_SIZE // 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.f(x)).flatten(1)


def from_onnx(path: Path, width: int) -> nn.Module:
    """A PipNet holding an exported one's weights, to fine-tune: the file's batch norm is folded
    into its convolutions, so the model is built folded too and trains on without it."""
    import onnx  # the `train` extra, only for --init
    from onnx import numpy_helper

    weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    model = fuse_bn(PipNet(width))
    state = model.state_dict()
    missing = sorted(set(state) - set(weights))
    if missing:
        raise ValueError(f"{path} is not a PipNet of width {width}: no {', '.join(missing)}")
    model.load_state_dict({name: torch.from_numpy(weights[name].copy()) for name in state})
    return model


def make_batch(
    items: list[tuple[Sample, int]], rng: random.Random, hard: float
) -> tuple[torch.Tensor, torch.Tensor]:
    xs, ys = zip(*(pip_crop(s, j, rng, hard) for s, j in items), strict=True)
    x = torch.from_numpy(np.stack(xs)).permute(0, 3, 1, 2).float() / 255.0
    return x, torch.tensor(ys)


@torch.no_grad()
def score_held_out(model: nn.Module, held: list[Sample]) -> None:
    """Accuracy and log-loss on the held-out photos' ground-truth boxes, 1 and 4 quarter turns."""
    crops, ys, names = [], [], []
    for s in held:
        for v, cx, cy, w, h in s.boxes:
            crops.append(crop_die(s.image, float(cx), float(cy), float(max(w, h))))
            ys.append(round(float(v)) - 1)
            names.append(s.name)
    if not crops:
        return
    model.eval()
    y = torch.tensor(ys)
    probs = []
    for k in range(4):
        batch = np.stack([np.rot90(c, k) for c in crops])
        x = torch.from_numpy(batch.copy()).permute(0, 3, 1, 2).float() / 255.0
        probs.append(F.softmax(model(x), 1))
    for tta in (1, 2, 4):
        p = torch.stack(probs[:tta]).mean(0)
        acc = (p.argmax(1) == y).float().mean().item()
        nll = -torch.log(p[torch.arange(len(y)), y].clamp(min=1e-6)).mean().item()
        print(f"held-out gt boxes, tta {tta}: {len(y)} dice, acc {acc:.4f}, nll {nll:.4f}")
    p = torch.stack(probs).mean(0)
    for i in torch.nonzero(p.argmax(1) != y).flatten().tolist():
        pv = int(p[i].argmax())
        print(f"  {names[i]}: {ys[i] + 1} read {pv + 1} (p {p[i, pv]:.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_common_arguments(ap)
    ap.add_argument("--steps", type=int, default=10000, help="batches (sets the LR schedule)")
    ap.add_argument("--minutes", type=float, default=30.0, help="time budget (stops early)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--smoothing", type=float, default=0.05, help="label smoothing")
    ap.add_argument("--hard", type=float, default=0.0, help="chance of each hard case a crop")
    ap.add_argument("--init", type=Path, help="fine-tune this exported classifier (ONNX)")
    a = ap.parse_args()

    rng = seed_all(a.seed, a.threads)
    samples, held = load_specs(a.data, a.holdout)
    items = [(s, j) for s in samples for j in range(len(s.boxes))]
    print("training dice:", len(items), flush=True)
    model = from_onnx(a.init, a.width) if a.init else PipNet(a.width)
    print("params:", sum(p.numel() for p in model.parameters()), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    t0 = time.time()
    step = 0
    while step < a.steps and time.time() - t0 < a.minutes * 60:
        lr = a.lr * min(1.0, (step + 1) / 50) * 0.5 * (1 + math.cos(math.pi * step / a.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        model.train()
        x, y = make_batch(rng.choices(items, k=a.batch), rng, a.hard)
        logits = model(x)
        loss = F.cross_entropy(logits, y, label_smoothing=a.smoothing)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 200 == 0:
            acc = (logits.argmax(1) == y).float().mean().item()
            el = time.time() - t0
            msg = f"step {step} {el:.0f}s lr {lr:.5f} loss {loss.item():.4f} acc {acc:.3f}"
            print(msg, flush=True)
    if step < a.steps:
        print(f"time budget reached at step {step} of {a.steps}", flush=True)
    model.eval()
    if held:
        score_held_out(model, [s for s in held if s.kind == "top"])
    save(model, a, CROP_SIZE, ("crop", "logits"), True, step, t0)


if __name__ == "__main__":
    main()
