"""Labelled dice photos (YOLO folders) and the augmentations both networks train with.

A folder holds images/NAME.jpg and labels/NAME.txt, one `VALUE XC YC W H` line per die (centre
and size as fractions of the image). KIND is 'top' (top-down tray: any rotation, any die colour,
boxes enclose the whole die) or 'oblique' (webcam: flips and small tilts only, white dice).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice_tray import CROP_SIZE, INPUT_SIZE, PAD_VALUE, SIZE_SCALE, STRIDE, crop_die
from vision.training.label_fixes import label_text

Image = NDArray[np.uint8]
Boxes = NDArray[np.float32]  # N x 5: value, cx, cy, w, h in pixels


@dataclass
class Sample:
    name: str
    image: Image  # BGR
    boxes: Boxes
    kind: str  # 'top' | 'oblique'


def parse_spec(spec: str) -> tuple[Path, str | None]:
    """'DIR' or 'DIR:KIND' -> (DIR, KIND or None: guessed from the image shape)."""
    root, _, kind = spec.partition(":")
    if kind not in ("", "top", "oblique"):
        raise ValueError(f"unknown kind {kind!r} in {spec!r} (top or oblique)")
    return Path(root), kind or None


def load_folder(root: Path, kind: str | None, holdout: float) -> tuple[list[Sample], list[Sample]]:
    """(training, held-out) samples: the last `holdout` fraction by sorted name is held out (the
    photos are numbered in shooting order, so this holds out a later session, not neighbours of
    training photos)."""
    names = sorted(
        p.name for p in (root / "images").iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    n_train = len(names) - int(len(names) * holdout)
    samples = []
    for name in names:
        img = cv2.imread(str(root / "images" / name))
        if img is None:
            raise ValueError(f"cannot read {root / 'images' / name}")
        h, w = img.shape[:2]
        rows = []
        label = root / "labels" / (Path(name).stem + ".txt")
        if label.exists():
            for line in label_text(label).splitlines():
                p = line.split()
                if len(p) == 5:
                    xc, yc, bw, bh = map(float, p[1:])
                    rows.append((int(p[0]), xc * w, yc * h, bw * w, bh * h))
        k = kind or ("top" if h == w else "oblique")
        boxes = np.array(rows, np.float32).reshape(-1, 5)
        samples.append(Sample(name, np.asarray(img, np.uint8), boxes, k))
    return samples[:n_train], samples[n_train:]


def load_specs(specs: list[str], holdout: float) -> tuple[list[Sample], list[Sample]]:
    """All folders' (training, held-out) samples; prints what was held out."""
    train: list[Sample] = []
    held: list[Sample] = []
    for spec in specs:
        root, kind = parse_spec(spec)
        t, h = load_folder(root, kind, holdout)
        train += t
        held += h
        span = f" ({h[0].name} .. {h[-1].name})" if h else ""
        print(f"{root}: {len(t)} training photos, {len(h)} held out{span}", flush=True)
    return train, held


def colour_jitter(img: Image, kind: str, rng: random.Random) -> Image:
    """Photometric noise. Tray dice come in every colour, light on dark and dark on light, so
    'top' rotates hue freely and sometimes inverts; webcam dice are always white."""
    out = img
    if kind == "top":
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
        hue = hsv[..., 0].astype(np.int16)
        hsv[..., 0] = ((hue + rng.randint(0, 179)) % 180).astype(np.uint8)
        sat = hsv[..., 1].astype(np.float32) * rng.uniform(0.4, 1.6)
        hsv[..., 1] = np.clip(sat, 0, 255).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
        if rng.random() < 0.25:
            out = 255 - out
        if rng.random() < 0.1:
            out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    else:
        gains = np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
        out = np.clip(out.astype(np.float32) * gains, 0, 255).astype(np.uint8)
    a = rng.uniform(0.6, 1.4)  # contrast around mid-grey, brightness, gamma, sensor noise
    f = out.astype(np.float32) * a + rng.uniform(-40, 40) + (1 - a) * 128
    if rng.random() < 0.3:
        f = 255.0 * (np.clip(f, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:
        f = f + np.random.normal(0, rng.uniform(2, 10), f.shape)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        k = rng.choice([3, 5])
        out = cv2.GaussianBlur(out, (k, k), 0)
    return np.asarray(out, np.uint8)


# ----------------------------------------------------------------------------- detector
def augment_photo(s: Sample, rng: random.Random) -> tuple[Image, Boxes]:
    """Random scale / rotation / shift / flip into an INPUT_SIZE canvas, then colour noise.
    Returns (canvas BGR, boxes N x 5 in canvas pixels)."""
    h, w = s.image.shape[:2]
    scale = INPUT_SIZE / max(h, w) * math.exp(rng.uniform(math.log(0.7), math.log(1.35)))
    ang = 90.0 * rng.randint(0, 3) + rng.uniform(-10, 10) if s.kind == "top" else rng.uniform(-8, 8)
    flip = rng.random() < 0.5
    tx = rng.uniform(-0.25, 0.25) * INPUT_SIZE
    ty = rng.uniform(-0.25, 0.25) * INPUT_SIZE
    img = s.image[:, ::-1] if flip else s.image
    boxes = s.boxes.copy()
    if flip and len(boxes):
        boxes[:, 1] = w - boxes[:, 1]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, scale)
    m[0, 2] += INPUT_SIZE / 2 - w / 2 + tx
    m[1, 2] += INPUT_SIZE / 2 - h / 2 + ty
    canvas = cv2.warpAffine(
        np.ascontiguousarray(img),
        m,
        (INPUT_SIZE, INPUT_SIZE),
        flags=cv2.INTER_AREA if scale < 0.6 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(PAD_VALUE, PAD_VALUE, PAD_VALUE),
    )
    if len(boxes):
        pts = np.c_[boxes[:, 1:3], np.ones(len(boxes))] @ m.T
        odd = round(ang / 90.0) % 2  # a quarter turn swaps width and height
        bw, bh = (boxes[:, 4], boxes[:, 3]) if odd else (boxes[:, 3], boxes[:, 4])
        if s.kind == "oblique":  # a top-face box grows with the tilt; a whole-die box does not
            rad = math.radians(ang % 90.0)
            small = min(rad, math.pi / 2 - rad)
            c, sn = math.cos(small), math.sin(small)
            bw, bh = bw * c + bh * sn, bh * c + bw * sn
        boxes = np.c_[boxes[:, 0], pts, bw * scale, bh * scale].astype(np.float32)
        inside = (
            (boxes[:, 1] >= 0)
            & (boxes[:, 1] < INPUT_SIZE)
            & (boxes[:, 2] >= 0)
            & (boxes[:, 2] < INPUT_SIZE)
        )
        boxes = boxes[inside]
    return colour_jitter(np.asarray(canvas, np.uint8), s.kind, rng), boxes


def detector_targets(
    boxes: Boxes,
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]:
    """CenterNet targets: Gaussian 'die' heatmap (1 x H x W), size (2 x H x W), mask (H x W)."""
    o = INPUT_SIZE // STRIDE
    heat = np.zeros((1, o, o), np.float32)
    size = np.zeros((2, o, o), np.float32)
    mask = np.zeros((o, o), np.float32)
    ys, xs = np.mgrid[0:o, 0:o].astype(np.float32)
    for _, cx, cy, bw, bh in boxes:
        ix, iy = round(cx / STRIDE - 0.5), round(cy / STRIDE - 0.5)
        if not (0 <= ix < o and 0 <= iy < o):
            continue
        sigma = max(0.7, 0.12 * max(bw, bh) / STRIDE)
        g = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma**2))
        heat[0] = np.maximum(heat[0], g)
        size[:, iy, ix] = (bw / SIZE_SCALE, bh / SIZE_SCALE)
        mask[iy, ix] = 1.0
    return heat, size, mask


# ----------------------------------------------------------------------------- pip classifier
def pip_crop(s: Sample, j: int, rng: random.Random, hard: float = 0.0) -> tuple[Image, int]:
    """A training crop of die j and its class (value - 1). The centre and side are jittered like
    the detector's box errors (and a bit more); rotation is free since a pip count does not
    depend on it; some crops are shrunk and blown up again, as small dice look at run time.
    `hard`: the chance of each of the hard cases (`hard_case`) on top."""
    v, cx, cy, w, h = (float(x) for x in s.boxes[j])
    side = max(w, h) * math.exp(rng.uniform(-0.25, 0.35))
    cx += rng.uniform(-0.12, 0.12) * side
    cy += rng.uniform(-0.12, 0.12) * side
    crop = crop_die(s.image, cx, cy, side, angle=rng.uniform(0, 360))
    if rng.random() < 0.5:
        crop = np.ascontiguousarray(crop[:, ::-1])
    if rng.random() < hard:
        crop = tilted(crop, rng)
    if rng.random() < 0.2:
        small = rng.randint(CROP_SIZE // 2, CROP_SIZE - 4)
        crop = cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA)
        crop = cv2.resize(crop, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_LINEAR)
    crop = colour_jitter(np.asarray(crop, np.uint8), s.kind, rng)
    if rng.random() < hard:
        crop = darkened(crop, rng)
    if rng.random() < hard:
        crop = glared(crop, rng)
    return crop, round(v) - 1


# The hard cases of vision/training/hard_cases.py, made on any crop. Touching dice are the
# detector's case (two found as one): a crop already shows its neighbours at the edge.
def tilted(crop: Image, rng: random.Random) -> Image:
    """The die leaning: its face squeezed along one direction, as a face turned away from the
    camera is foreshortened."""
    angle = rng.uniform(0, 180)
    squeeze = rng.uniform(0.65, 0.92)
    centre = (CROP_SIZE / 2, CROP_SIZE / 2)
    turn = cv2.getRotationMatrix2D(centre, angle, 1.0)
    back = cv2.getRotationMatrix2D(centre, -angle, 1.0)
    shrink = np.array([[squeeze, 0, (1 - squeeze) * centre[0]], [0, 1, 0], [0, 0, 1]])
    m = back @ shrink @ np.vstack([turn, [0, 0, 1]])
    out = cv2.warpAffine(crop, m, (CROP_SIZE, CROP_SIZE), borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)


def darkened(crop: Image, rng: random.Random) -> Image:
    """A dark die in dim light: everything darker, the pips' contrast low. (Darkening the die
    alone left a grey halo around it that no camera shows.)"""
    f = crop.astype(np.float32)
    mean = f.mean()
    f = (mean + (f - mean) * rng.uniform(0.35, 0.7)) * rng.uniform(0.3, 0.6)
    return np.asarray(np.clip(f, 0, 255), np.uint8)


def glared(crop: Image, rng: random.Random) -> Image:
    """A light's reflection on the face: a small bright spot, sometimes over a pip, sometimes
    where no pip is."""
    yy, xx = np.mgrid[0:CROP_SIZE, 0:CROP_SIZE].astype(np.float32)
    cx, cy = (CROP_SIZE / 2 + rng.uniform(-0.22, 0.22) * CROP_SIZE for _ in range(2))
    rx = rng.uniform(0.04, 0.12) * CROP_SIZE
    ry = rx * rng.uniform(0.5, 1.0)
    a = math.radians(rng.uniform(0, 180))
    u = ((xx - cx) * math.cos(a) + (yy - cy) * math.sin(a)) / rx
    v = (-(xx - cx) * math.sin(a) + (yy - cy) * math.cos(a)) / ry
    spot = np.exp(-(u * u + v * v) * 1.5)[..., None] * rng.uniform(0.7, 1.0)
    f = crop.astype(np.float32) * (1 - spot) + 255.0 * spot
    return np.asarray(np.clip(np.rint(f), 0, 255), np.uint8)
