"""A learned model of one copy's icon dice (or d12): the classifiers and their file.

Each classifier is a small neural network (one hidden layer) trained and run with NumPy alone:
OpenCV 5 has no `cv2.ml` in its main package, and a network of this size learns in a few seconds
and reads 49 cells in well under a millisecond. Its softmax gives the confidence.

What a kind of dice is (its name, faces and colours) comes in as data, a `DiceKind`: each game
declares its own, and vision imports no game. A model file keeps its kind, faces and colours in
its meta, so it is read with no list of kinds at hand.

The file is a NumPy `.npz` (`numpy.load` opens it; no pickles):

- `meta`: UTF-8 JSON `{"format": "smartboard-icon-model", "version": 1, "kind": K,
  "faces": [...], "colours": [...] or null}`;
- per classifier (`face`, and `colour` for dice of several colours), prefixed `face_` /
  `colour_`, float32: `mean` and `scale` (features are standardised as (x - mean) / scale), `w1`,
  `b1` (the hidden layer, ReLU), `w2`, `b2` (the output, softmax over the faces or colours in
  `meta`'s order).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

FORMAT = "smartboard-icon-model"
VERSION = 1
COMPONENTS = 160
PCA_SAMPLE = 600
STEPS = 2000
BATCH = 128
LEARNING_RATE = 0.003
DECAY = 1e-3

Array = NDArray[np.float32]


class DiceKind(Protocol):
    """A kind of dice with pictures: its name, its faces, and for dice of several body colours
    the colours told apart (else None). The rules' `IconDice` is one; so is an `IconModel`."""

    @property
    def kind(self) -> str: ...

    @property
    def faces(self) -> tuple[str, ...]: ...

    @property
    def colours(self) -> tuple[str, ...] | None: ...


class IconModelError(ValueError):
    """A model file that cannot be used: unreadable, of another format, version or kind."""


@dataclass(frozen=True)
class Classifier:
    """A small neural network: standardised features, one hidden ReLU layer, softmax."""

    mean: Array
    scale: Array
    w1: Array
    b1: Array
    w2: Array
    b2: Array

    @classmethod
    def train(
        cls, features: Array, labels: NDArray[np.int32], classes: int, hidden: int = 96
    ) -> Classifier:
        """Fitted by Adam on minibatches, with weight decay; the same data gives the same net."""
        with threadpool_limits(1, user_api="blas"):
            return cls._train(features, labels, classes, hidden)

    @classmethod
    def _train(
        cls, features: Array, labels: NDArray[np.int32], classes: int, hidden: int
    ) -> Classifier:
        present = set(np.unique(labels).tolist())
        if present != set(range(classes)):
            raise ValueError(f"every one of {classes} classes must be shown, not {sorted(present)}")
        rng = np.random.default_rng(0)
        mean = features.mean(axis=0)
        scale = features.std(axis=0) + 1e-3
        x = ((features - mean) / scale).astype(np.float32)
        d = x.shape[1]
        basis = np.eye(d, dtype=np.float32)
        if d > COMPONENTS:
            # Learned on the features' main components, for speed; the projection is folded into
            # the first layer afterwards. The components come from a sample's Gram matrix, far
            # quicker than the covariance's when the features outnumber the sample.
            sample = x[rng.permutation(len(x))[:PCA_SAMPLE]]
            values, vectors = np.linalg.eigh(sample @ sample.T)
            top = np.argsort(values)[::-1][:COMPONENTS]
            basis = sample.T @ vectors[:, top] / np.sqrt(np.maximum(values[top], 1e-6))
            basis = basis.astype(np.float32)
        x = x @ basis
        n, d = x.shape
        params = [
            rng.normal(0, math.sqrt(2 / d), (d, hidden)).astype(np.float32),
            np.zeros(hidden, np.float32),
            rng.normal(0, math.sqrt(1 / hidden), (hidden, classes)).astype(np.float32),
            np.zeros(classes, np.float32),
        ]
        moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
        onehot = np.eye(classes, dtype=np.float32)[labels]
        batch = min(BATCH, n)
        for step in range(1, STEPS + 1):
            rows = rng.integers(0, n, batch)
            xb, yb = x[rows], onehot[rows]
            hidden_in = xb @ params[0] + params[1]
            h = np.maximum(hidden_in, 0)
            p = _softmax(h @ params[2] + params[3])
            dz = (p - yb) / batch
            dh = (dz @ params[2].T) * (hidden_in > 0)
            grads = [xb.T @ dh, dh.sum(axis=0), h.T @ dz, dz.sum(axis=0)]
            rate = LEARNING_RATE * min(1.0, 2 * (STEPS - step) / STEPS + 0.05)  # then down
            for i, (param, grad) in enumerate(zip(params, grads, strict=True)):
                if param.ndim == 2:
                    grad = grad + DECAY * param
                m, v = moments[i]
                m *= 0.9
                m += 0.1 * grad
                v *= 0.999
                v += 0.001 * grad * grad
                param -= rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        w1, b1, w2, b2 = params
        return cls(mean.astype(np.float32), scale.astype(np.float32), basis @ w1, b1, w2, b2)

    def predict(self, features: Array) -> tuple[NDArray[np.intp], Array]:
        """Each row's class and its probability."""
        x = (np.atleast_2d(features) - self.mean) / self.scale
        with threadpool_limits(1, user_api="blas"):
            p = _softmax(np.maximum(x @ self.w1 + self.b1, 0) @ self.w2 + self.b2)
        best = np.argmax(p, axis=1)
        return best, p[np.arange(len(best)), best]

    def arrays(self, prefix: str) -> dict[str, Array]:
        names = ("mean", "scale", "w1", "b1", "w2", "b2")
        return {f"{prefix}_{name}": getattr(self, name) for name in names}

    @classmethod
    def from_arrays(cls, data: Any, prefix: str, classes: int) -> Classifier:
        names = ("mean", "scale", "w1", "b1", "w2", "b2")
        a = {name: np.asarray(data[f"{prefix}_{name}"], np.float32) for name in names}
        d, hidden = a["w1"].shape
        if (
            a["mean"].shape != (d,)
            or a["scale"].shape != (d,)
            or a["b1"].shape != (hidden,)
            or a["w2"].shape != (hidden, classes)
            or a["b2"].shape != (classes,)
        ):
            raise ValueError(f"the {prefix} classifier's arrays do not fit together")
        return cls(*(a[name] for name in names))


def _softmax(z: Array) -> Array:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


@dataclass(frozen=True)
class IconModel:
    """What `dice learn` learned of one kind of dice: its faces (and colours) and classifiers."""

    kind: str
    faces: tuple[str, ...]
    colours: tuple[str, ...] | None
    face: Classifier
    colour: Classifier | None

    def save(self, path: Path) -> None:
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "kind": self.kind,
            "faces": list(self.faces),
            "colours": None if self.colours is None else list(self.colours),
        }
        arrays: dict[str, Any] = self.face.arrays("face")
        if self.colour is not None:
            arrays |= self.colour.arrays("colour")
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(buffer.getvalue())

    @classmethod
    def load(cls, path: Path, dice: DiceKind | None = None) -> IconModel:
        """The model in `path`; if `dice` is given, a model of those dice: their kind, with
        their faces and colours in their order (the order of the classifiers' outputs).
        IconModelError else."""
        try:
            data = np.load(io.BytesIO(path.read_bytes()), allow_pickle=False)
        except OSError as error:
            raise IconModelError(f"icon model {path}: {error.strerror or error}") from None
        except (ValueError, zipfile.BadZipFile, EOFError):
            raise IconModelError(f"icon model {path}: not a model file (npz)") from None
        try:
            meta = json.loads(bytes(np.asarray(data["meta"], np.uint8)).decode())
            if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                raise IconModelError(f"icon model {path}: not a smartboard icon model")
            if meta.get("version") != VERSION:
                raise IconModelError(
                    f"icon model {path}: version {meta.get('version')!r}, this smartboard reads "
                    f"version {VERSION}: learn it again with `smartboard dice learn`"
                )
            kind = meta["kind"]
            if not isinstance(kind, str) or not kind:
                raise ValueError(f"no kind of dice: {kind!r}")
            if dice is not None and kind != dice.kind:
                raise IconModelError(f"icon model {path}: a {kind} model, not {dice.kind}")
            faces = tuple(str(f) for f in meta["faces"])
            colours = None if meta["colours"] is None else tuple(str(c) for c in meta["colours"])
            if dice is not None and (faces, colours) != (dice.faces, dice.colours):
                # Learned when the game's dice had other faces: its outputs would be misnamed.
                raise IconModelError(
                    f"icon model {path}: its faces or colours are not those of the {kind} dice; "
                    "learn it again with `smartboard dice learn`"
                )
            face = Classifier.from_arrays(data, "face", len(faces))
            colour = (
                None if colours is None else Classifier.from_arrays(data, "colour", len(colours))
            )
            return cls(kind, faces, colours, face, colour)
        except IconModelError:
            raise
        except (KeyError, TypeError, ValueError, zipfile.BadZipFile, EOFError) as error:
            raise IconModelError(f"icon model {path}: damaged ({error})") from None
