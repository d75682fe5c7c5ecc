"""Reads d6 dice in top-down tray photos with two small ONNX networks (cv2.dnn + NumPy only).

A detector finds every die (one class-agnostic heatmap), then a classifier counts the pips on a
crop of each die taken from the full-resolution photo. vision/models/README.md describes both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.die import Die

# These must match vision/training (which imports them from here).
INPUT_SIZE = 288
"""Detector input: the photo is letterboxed into a square of this side. The detector's cost goes
with the area; at 256 it lost a small dark die and one touching another (vision/models/README)."""
STRIDE = 4
"""Detector output cell size in input pixels."""
SIZE_SCALE = 16.0
"""The detector predicts box width and height in input pixels divided by this."""
PAD_VALUE = 114
"""Grey used for the letterbox padding."""
CROP_SIZE = 48
"""Classifier input side: about the dice's own size in a 640 px photo, so a crop is hardly shrunk.
At 32 the blurred pips of the far face of a translucent die looked like real ones: held-out
errors fell from 57 to 29 of 1487 dice (vision/models/README.md)."""
CROP_FACTOR = 1.4
"""Crop side = CROP_FACTOR * the longer box side: some tray around the die, as in training."""
PEAK_WINDOW = 3
"""A die is a local maximum of the heatmap over PEAK_WINDOW x PEAK_WINDOW cells (12 input px).
Small dice touching diagonally have centres only 2 cells apart, so a 5x5 window lost the weaker
of the two; twin peaks of one die are left to NMS_FRACTION."""
NMS_FRACTION = 0.4
"""A weaker peak whose centre lies within this fraction of a stronger die's box (in both x and y)
is the same die. A guard: with the 3x3 window no labelled photo shows twin peaks of one die even
without it, while 0.5 dropped a real die cocked against its neighbour."""
PEAK_SURE = 0.6
"""A heatmap peak this high is surely a die: on the validation photos every die peaked at 0.53 or
more (median 0.73) and nothing else reached 0.1. Weaker peaks lower the confidence in proportion,
so a die found just at the default threshold (0.3) is at most 0.5 sure."""
PAIR_BELOW = 0.9
"""A die the first pip classifier is less sure of than this is read by all of them: nine dice in
ten are read by one classifier alone, with no more errors than the pair made on every die."""
TURNS_BELOW = 0.8
"""A die the classifiers are together less sure of than this (the default dice gate) is read
again in its three other quarter turns: a third of those that asked were read sure and right."""
MAX_SCALE = 0.45
"""The detector learned dice of 30-50 px in 640 px tray photos, shrunk to 288: a smaller picture
(a crop of the tray) is padded, not magnified, so its dice keep the size the detector knows."""


def letterbox(
    image: NDArray[np.uint8], size: int = INPUT_SIZE, max_scale: float = MAX_SCALE
) -> tuple[NDArray[np.uint8], float]:
    """Shrink so the long side fits `size` (by at least 1 / max_scale), pad bottom and right.
    Returns (canvas, scale)."""
    h, w = image.shape[:2]
    scale = min(size / max(h, w), max_scale)
    nw, nh = round(w * scale), round(h * scale)
    canvas = np.full((size, size, 3), PAD_VALUE, np.uint8)
    # INTER_AREA, though 640 -> 288 takes it 2.4 ms (a whole halving 0.2): halving first and
    # finishing with INTER_LINEAR (0.4 ms) or INTER_AREA (1.6 ms) each lost a die on nell's
    # photos, and applied a roll with it missing (2026-11-27, benchmarks/dice.py).
    canvas[:nh, :nw] = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
    return canvas, scale


def crop_die(
    image: NDArray[np.uint8], cx: float, cy: float, side: float, angle: float = 0.0
) -> NDArray[np.uint8]:
    """CROP_SIZE square around (cx, cy) covering CROP_FACTOR * side pixels, rotated by angle."""
    scale = CROP_SIZE / max(CROP_FACTOR * side, 4.0)
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[0, 2] += CROP_SIZE / 2 - cx
    m[1, 2] += CROP_SIZE / 2 - cy
    # INTER_AREA when shrinking a lot, so thin pips do not alias away.
    flags = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
    out = cv2.warpAffine(
        image, m, (CROP_SIZE, CROP_SIZE), flags=flags, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, np.uint8)


@dataclass
class _Peak:
    score: float
    cx: float
    cy: float
    w: float
    h: float


def _load(path: Path) -> cv2.dnn.Net:
    if not path.is_file():
        raise FileNotFoundError(f"dice model not found: {path}")
    # OpenCV 5 runs ONNX on its new DNN engine by default, which takes twice as long as the
    # classic one on these small networks (same outputs to 2e-5); OpenCV 4 has only the classic.
    classic = getattr(cv2.dnn, "ENGINE_CLASSIC", None)
    try:
        if classic is None:
            net = cv2.dnn.readNetFromONNX(str(path))
        else:
            net = cv2.dnn.readNetFromONNX(str(path), classic)
    except cv2.error as exc:
        raise ValueError(f"cannot read dice model {path}: {exc}") from exc
    if net.empty():
        raise ValueError(f"cannot read dice model {path}")
    return net


def _softmax(logits: NDArray[np.float32]) -> NDArray[np.float32]:
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return np.asarray(e / e.sum(axis=-1, keepdims=True), np.float32)


class TrayReader:
    """Reads the dice in top-down photos of a dice tray (BGR uint8 arrays)."""

    def __init__(
        self, detector: Path, pips: Sequence[Path], threshold: float = 0.3, threads: int = 2
    ) -> None:
        """`pips`: the pip classifiers, the first read on every die, the others on the dice it
        doubts (PAIR_BELOW) and, with it, in four quarter turns on the dice still unsure."""
        if not pips:
            raise ValueError("a pip classifier is needed")
        # cv2's thread pool is process-wide: this also limits any other cv2 work in the process.
        cv2.setNumThreads(threads)
        self._detector = _load(detector)
        self._pips = [_load(path) for path in pips]
        self.threshold = threshold
        # One dummy pass each: checks the outputs have the expected shape (a wrong file fails
        # here, not at the first roll) and pays the first-inference set-up cost up front.
        try:
            heat = self._detect(np.full((INPUT_SIZE, INPUT_SIZE, 3), PAD_VALUE, np.uint8))
        except cv2.error as exc:
            raise ValueError(f"{detector} is not a dice detector: {exc}") from exc
        if heat.shape != (3, INPUT_SIZE // STRIDE, INPUT_SIZE // STRIDE):
            raise ValueError(f"{detector} is not a dice detector: output shape {heat.shape}")
        blank = [np.zeros((CROP_SIZE, CROP_SIZE, 3), np.uint8)] * 2  # a batch must be taken
        for path, net in zip(pips, self._pips, strict=True):
            try:
                logits = _logits(net, blank)
            except cv2.error as exc:
                raise ValueError(f"{path} is not a pip classifier: {exc}") from exc
            if logits.shape != (2, 6):
                raise ValueError(f"{path} is not a pip classifier: output shape {logits.shape}")

    def read(self, image: NDArray[np.uint8]) -> list[Die]:
        """The dice in `image` (BGR), left to right."""
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"expected a BGR image, got shape {image.shape}")
        canvas, scale = letterbox(image)
        peaks = self._peaks(self._detect(canvas), scale, image.shape[1], image.shape[0])
        if not peaks:
            return []
        crops = [crop_die(image, p.cx, p.cy, max(p.w, p.h)) for p in peaks]
        probs = self._classify(crops)
        dice = []
        for p, pr in zip(peaks, probs, strict=True):
            k = int(pr.argmax())
            # Clip to the picture: a die at the edge must not get a box outside it.
            x0, y0 = max(0, round(p.cx - p.w / 2)), max(0, round(p.cy - p.h / 2))
            x1 = min(image.shape[1], round(p.cx + p.w / 2))
            y1 = min(image.shape[0], round(p.cy + p.h / 2))
            box = (x0, y0, x1 - x0, y1 - y0)
            # Both stages must be sure: a faint peak or a split vote between values is "unsure".
            found = min(1.0, p.score / PEAK_SURE)
            faces = tuple((face, found * q) for face, q in enumerate(pr.tolist(), 1))
            dice.append(Die(k + 1, box, faces[k][1], faces))
        dice.sort(key=lambda d: (d.box[0], d.box[1]))
        return dice

    def _detect(self, canvas: NDArray[np.uint8]) -> NDArray[np.float32]:
        self._detector.setInput(cv2.dnn.blobFromImage(canvas, 1.0 / 255.0, swapRB=False))
        # Channels: heatmap (already a sigmoid), box width / SIZE_SCALE, height / SIZE_SCALE.
        return np.asarray(self._detector.forward()[0], np.float32)

    def _peaks(
        self, out: NDArray[np.float32], scale: float, width: int, height: int
    ) -> list[_Peak]:
        heat = out[0]
        # A die is a local maximum over 3x3 cells (12 input px, about a third of a small die).
        local_max = heat >= cv2.dilate(heat, np.ones((PEAK_WINDOW, PEAK_WINDOW), np.uint8))
        ys, xs = np.nonzero(local_max & (heat >= self.threshold))
        # Sub-cell centres: the score-weighted centroid of each peak's 3x3 cells (zeros beyond
        # the map's edge add nothing), all peaks at once.
        padded = np.pad(heat, 1)
        dy, dx = np.mgrid[-1:2, -1:2].reshape(2, 1, 9)
        patches = padded[ys[:, None] + dy + 1, xs[:, None] + dx + 1]
        total = patches.sum(axis=1)
        cxs = ((xs + (patches * dx).sum(axis=1) / total + 0.5) * STRIDE / scale).tolist()
        cys = ((ys + (patches * dy).sum(axis=1) / total + 0.5) * STRIDE / scale).tolist()
        sizes = np.maximum(out[1:, ys, xs], 0.05) * SIZE_SCALE / scale
        found = [
            _Peak(score, cx, cy, w, h)
            for score, cx, cy, w, h in zip(
                heat[ys, xs].tolist(), cxs, cys, *sizes.tolist(), strict=True
            )
            if cx < width and cy < height  # not in the letterbox padding
        ]
        # Strongest first; a weaker peak near the centre of a kept die is the same die twice.
        found.sort(key=lambda p: -p.score)
        kept: list[_Peak] = []
        for p in found:
            if not any(
                abs(p.cx - k.cx) < NMS_FRACTION * k.w and abs(p.cy - k.cy) < NMS_FRACTION * k.h
                for k in kept
            ):
                kept.append(p)
        return kept

    def _classify(self, crops: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
        """Value probabilities (N x 6). Effort goes where the reading is in doubt: the first
        classifier reads every die; where it is less than PAIR_BELOW sure, the mean of all the
        classifiers' logits is taken; where that is less than TURNS_BELOW sure, the mean over
        four quarter turns of the crop as well."""
        first, *others = self._pips
        logits = _logits(first, crops)
        doubt = np.flatnonzero(_softmax(logits).max(axis=1) < PAIR_BELOW)
        if others and len(doubt):
            some = [crops[i] for i in doubt]
            logits[doubt] = np.mean([logits[doubt], *(_logits(n, some) for n in others)], axis=0)
        unsure = np.flatnonzero(_softmax(logits).max(axis=1) < TURNS_BELOW)
        if len(unsure):
            turned = [
                np.ascontiguousarray(np.rot90(crops[i], k)) for k in (1, 2, 3) for i in unsure
            ]
            quarters = np.mean([_logits(n, turned) for n in self._pips], axis=0)
            logits[unsure] = (logits[unsure] + quarters.reshape(3, len(unsure), -1).sum(axis=0)) / 4
        return _softmax(logits)


def _logits(net: cv2.dnn.Net, crops: list[NDArray[np.uint8]]) -> NDArray[np.float32]:
    net.setInput(cv2.dnn.blobFromImages(crops, 1.0 / 255.0, swapRB=False))
    return np.asarray(net.forward(), np.float32).reshape(len(crops), -1)
