"""Train the dice detector (class-agnostic CenterNet, PyTorch on CPU) and export it to ONNX.

usage: python -m vision.training.train_detector --data DIR[:KIND] [--data ...] --out FILE.onnx
  [--holdout F] [--minutes M] [--epochs N] [--seed S] [--threads T]

The network sees a photo letterboxed into 320x320 and outputs, at stride 4, one sigmoid "die"
heatmap and the box width and height (input pixels / 16). It does not read values: the pip
classifier (train_pips.py) does, on a full-resolution crop.

The shipped vision/models/dice_detector.onnx was made with (seed 0, 1800 steps; 794 s on one
CPU thread of a machine shared with other jobs):
  OMP_WAIT_POLICY=PASSIVE python -m vision.training.train_detector \
    --data /work/shared/data/dice/nell:top --epochs 150 --minutes 40 --seed 0 --threads 1 \
    --out vision/models/dice_detector.onnx
Its held-out twin (same 1800 steps: 150 photos x 200 epochs; 1231 s) left out the last 25% of
nell by name (split in /work/scratch/dice/hold):
  ... --data /work/scratch/dice/hold/nell_train:top --epochs 200 --minutes 30 --seed 0 --threads 1
--minutes only stops a run early; the learning-rate schedule follows --epochs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.dice_tray import INPUT_SIZE
from vision.training.dataset import Sample, augment_photo, detector_targets, load_specs


def cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)
    )


class DiceNet(nn.Module):
    """Small FPN-style encoder/decoder, output stride 4: 1 heat + 2 size channels (174k params).
    The stride-4 layers cost the most (their maps are the largest): one convolution each at
    the stride-4 level is enough there, and the decoder narrows to w channels before it."""

    def __init__(self, w: int = 16) -> None:
        super().__init__()
        self.s2 = cbr(3, w, 2)
        self.s4 = cbr(w, 2 * w, 2)
        self.s8 = nn.Sequential(cbr(2 * w, 3 * w, 2), cbr(3 * w, 3 * w))
        self.s16 = nn.Sequential(cbr(3 * w, 4 * w, 2), cbr(4 * w, 4 * w), cbr(4 * w, 4 * w))
        self.lat16 = nn.Conv2d(4 * w, 3 * w, 1)
        self.m8 = cbr(3 * w, 3 * w)
        self.lat8 = nn.Conv2d(3 * w, 2 * w, 1)
        self.m4 = cbr(2 * w, w)
        self.head = nn.Sequential(cbr(w, w), nn.Conv2d(w, 3, 1))
        with torch.no_grad():
            self.head[-1].bias[0] = -2.19  # focal-loss prior: start at p = 0.1 everywhere
            # Sizes start at about a die's (1.25 x 16 px) so their ReLU is not dead from the
            # start: a 12-channel run that began below zero never learned a size.
            self.head[-1].bias[1:] = 1.25
        self.up = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.s4(self.s2(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        p8 = self.m8(f8 + self.up(self.lat16(f16)))
        p4 = self.m4(f4 + self.up(self.lat8(p8)))
        out = self.head(p4)
        return torch.cat([torch.sigmoid(out[:, :1]), F.relu(out[:, 1:])], 1)


def focal_loss(pred: torch.Tensor, gt: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the heatmap."""
    pred = pred.clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    pos_l = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_l = torch.log(1 - pred) * pred**2 * (1 - gt) ** 4 * (1 - pos)
    return -(pos_l.sum() + neg_l.sum()) / pos.sum().clamp(min=1)


def fuse_bn(model: nn.Module) -> nn.Module:
    """Fold every Conv2d + BatchNorm2d pair inside an nn.Sequential into one Conv2d with bias,
    so the ONNX file is plain convolutions (fewer ops for cv2.dnn, same output)."""
    for mod in model.modules():
        if not isinstance(mod, nn.Sequential):
            continue
        items = list(mod._modules.items())
        for (n1, a), (n2, b) in itertools.pairwise(items):
            if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                assert b.running_var is not None and b.running_mean is not None
                std = torch.sqrt(b.running_var + b.eps)
                weight = a.weight * (b.weight / std).reshape(-1, 1, 1, 1)
                bias = a.bias if a.bias is not None else torch.zeros_like(b.running_mean)
                bias = (bias - b.running_mean) * b.weight / std + b.bias
                conv = nn.Conv2d(
                    a.in_channels, a.out_channels, a.kernel_size, a.stride, a.padding, bias=True
                )
                conv.weight.data.copy_(weight.detach())
                assert conv.bias is not None
                conv.bias.data.copy_(bias.detach())
                mod._modules[n1] = conv
                mod._modules[n2] = nn.Identity()
    return model


def export_onnx(
    model: nn.Module, path: Path, size: int, input_name: str, output_name: str, batch: bool
) -> None:
    """BN-folded export (opset 13, legacy exporter: plain ops cv2.dnn reads)."""
    model = fuse_bn(model.eval())
    axes = {input_name: {0: "n"}, output_name: {0: "n"}} if batch else None
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, size, size),),
        str(path),
        input_names=[input_name],
        output_names=[output_name],
        opset_version=13,
        dynamo=False,
        do_constant_folding=True,
        dynamic_axes=axes,
    )


def save(
    model: nn.Module,
    a: argparse.Namespace,
    size: int,
    names: tuple[str, str],
    batch: bool,
    steps: int,
    started: float,
) -> None:
    """The state dict if --checkpoint was given, then the ONNX file of --out, and a last line."""
    if a.checkpoint:
        torch.save(model.state_dict(), a.checkpoint)
    export_onnx(model, a.out, size, *names, batch=batch)
    mb = os.path.getsize(a.out) / 1e6
    print(
        f"done: {steps} steps in {time.time() - started:.0f}s -> {a.out} ({mb:.2f} MB)", flush=True
    )


def batches(
    samples: list[Sample], bs: int, rng: random.Random
) -> Iterator[tuple[torch.Tensor, ...]]:
    idx = list(range(len(samples)))
    rng.shuffle(idx)
    for i in range(0, len(idx) - bs + 1, bs):
        ims, heats, sizes, masks = [], [], [], []
        for j in idx[i : i + bs]:
            canvas, boxes = augment_photo(samples[j], rng)
            h, s, m = detector_targets(boxes)
            ims.append(canvas)
            heats.append(h)
            sizes.append(s)
            masks.append(m)
        x = torch.from_numpy(np.stack(ims)).permute(0, 3, 1, 2).float() / 255.0
        yield (
            x,
            torch.from_numpy(np.stack(heats)),
            torch.from_numpy(np.stack(sizes)),
            torch.from_numpy(np.stack(masks)),
        )


def add_common_arguments(ap: argparse.ArgumentParser) -> None:
    """What both trainers take: the data, the held-out share, the outputs, seed and threads."""
    ap.add_argument("--data", action="append", required=True, help="DIR or DIR:KIND (top|oblique)")
    ap.add_argument("--holdout", type=float, default=0.0, help="fraction of each folder left out")
    ap.add_argument("--out", type=Path, required=True, help="ONNX file to write")
    ap.add_argument("--checkpoint", type=Path, help="also save the PyTorch state dict here")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)


def seed_all(seed: int, threads: int) -> random.Random:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    cv2.setNumThreads(1)  # augmentation runs in the training thread; keep cv2 from adding more
    return random.Random(seed)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    add_common_arguments(ap)
    ap.add_argument("--init", type=Path, help="start from this state dict")
    ap.add_argument("--minutes", type=float, default=40.0, help="time budget (stops early)")
    ap.add_argument("--epochs", type=int, default=150, help="epochs (sets the LR schedule)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=16, help="channels at stride 2 (DiceNet's w)")
    a = ap.parse_args()

    rng = seed_all(a.seed, a.threads)
    samples, _ = load_specs(a.data, a.holdout)
    # Oversample the smaller kind so both are seen about equally often.
    by_kind: dict[str, list[Sample]] = {}
    for s in samples:
        by_kind.setdefault(s.kind, []).append(s)
    n_max = max(len(v) for v in by_kind.values())
    epoch_set = [s for v in by_kind.values() for s in (v * math.ceil(n_max / len(v)))[:n_max]]
    steps_per_epoch = len(epoch_set) // a.batch
    total = a.epochs * steps_per_epoch

    model = DiceNet(a.width)
    if a.init:
        model.load_state_dict(torch.load(a.init))
    print("params:", sum(p.numel() for p in model.parameters()), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    t0 = time.time()
    step = 0
    for ep in range(a.epochs):
        model.train()
        sums = np.zeros(2)
        lr = a.lr
        for x, h, s, m in batches(epoch_set, a.batch, rng):
            # Warm-up, then cosine decay over the planned steps.
            lr = a.lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * step / total))
            for g in opt.param_groups:
                g["lr"] = lr
            out = model(x)
            lf = focal_loss(out[:, :1], h)
            ls = (F.l1_loss(out[:, 1:], s, reduction="none") * m.unsqueeze(1)).sum()
            ls = ls / m.sum().clamp(min=1)
            loss = lf + ls
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            sums += (lf.item(), ls.item())
        el = time.time() - t0
        f, sz = sums / max(1, steps_per_epoch)
        print(f"epoch {ep} {el:.0f}s lr {lr:.5f} focal {f:.4f} size {sz:.4f}", flush=True)
        if el > a.minutes * 60:
            print(f"time budget reached after {ep + 1} epochs", flush=True)
            break
    save(model, a, INPUT_SIZE, ("image", "out"), False, step, t0)


if __name__ == "__main__":
    main()
