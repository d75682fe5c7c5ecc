"""Classical d6 reader for oblique photos: white dice with black pips, seen from above at a slant.

The camera sees the top face and one or two side faces of every die, so a die shows more pips
than its value. The reader finds the bright dice, the dark pips inside each die, then groups the
pips into faces: pips on one face are images of equal circles on one plane, so whitening their
positions by the pips' own ellipse shape turns the face into a true square in units of the pip
radius, where the d6 layouts have fixed spacings. Every visible side face lies below the top face
in the image, so the top face is the highest well-fitting group.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.die import Die

FloatArray = NDArray[np.float64]

_REF_AREA = 640.0 * 480.0
"""Image area the pixel sizes below were set for; other sizes scale them."""

# Pip centres in units of the pip radius, measured on the face plane. Values 1..5 share one grid
# (corner to centre ~3 radii); the six's pips sit closer in rows and farther apart in columns.
_HALF = 2.1
_LAYOUTS: dict[int, list[tuple[float, float]]] = {
    2: [(-_HALF, -_HALF), (_HALF, _HALF)],
    3: [(-_HALF, -_HALF), (0.0, 0.0), (_HALF, _HALF)],
    4: [(-_HALF, -_HALF), (_HALF, -_HALF), (-_HALF, _HALF), (_HALF, _HALF)],
    5: [(-_HALF, -_HALF), (_HALF, -_HALF), (-_HALF, _HALF), (_HALF, _HALF), (0.0, 0.0)],
    6: [(sx * 2.32, sy * 2.85) for sx in (-1, 1) for sy in (-1, 0, 1)],
}

_MAX_COST = 0.12
"""Layout misfit (relative error of the pip spacings) above which a pip group is not a face."""
_SCALE_SLACK = 0.2
"""Blur and thresholding grow or shrink pips: spacing may differ this much (log) at no cost."""


def _sorted_distances(points: FloatArray) -> FloatArray:
    upper = np.triu_indices(len(points), 1)
    return np.sort(np.linalg.norm(points[:, None] - points[None], axis=2)[upper])


_CANON = {k: _sorted_distances(np.array(v, np.float64)) for k, v in _LAYOUTS.items()}


@dataclass(frozen=True)
class _Pips:
    """The dark holes found in one die blob."""

    xy: FloatArray  # n x 2 centres, pixels
    area: FloatArray  # n, pixels
    shape: FloatArray  # n x 2 x 2 covariance scaled so a disc of radius R gives R^2 * I
    roundness: FloatArray  # n, minor / major axis


def _die_blobs(image: NDArray[np.uint8]) -> list[_Pips]:
    """The pips of every die-sized white blob."""
    h, w = image.shape[:2]
    scale = h * w / _REF_AREA
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    value = hsv[:, :, 2]
    # The desk is lit unevenly: compare each pixel with the local median, not a global level.
    small = cv2.resize(value, (max(w // 4, 1), max(h // 4, 1)), interpolation=cv2.INTER_AREA)
    ksize = max(3, int(31 * np.sqrt(scale)) | 1)
    local = cv2.resize(cv2.medianBlur(small, ksize), (w, h), interpolation=cv2.INTER_LINEAR)
    local16 = local.astype(np.int16)
    # White dice: brighter than the wood around them and unsaturated (the wood is yellowish).
    raw = ((value.astype(np.int16) > local16 + 10) & (hsv[:, :, 1] < 70)).astype(np.uint8)
    bright = cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if not 300 * scale <= area <= 20000 * scale:
            continue
        x, y, bw, bh = cv2.boundingRect(contour)
        mask = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(mask, [contour - [x, y]], -1, 1, -1)
        # Pips: holes in the die that are darker than the desk would be there.
        holes = (
            (mask > 0)
            & (bright[y : y + bh, x : x + bw] == 0)
            & (value[y : y + bh, x : x + bw] < local16[y : y + bh, x : x + bw])
        ).astype(np.uint8)
        pips = _pips(holes, (x, y), max(2.0, 6 * scale), 0.1 * area)
        if len(pips.xy):
            out.append(pips)
    return out


def _pips(
    holes: NDArray[np.uint8], origin: tuple[int, int], min_area: float, max_area: float
) -> _Pips:
    n, labels, stats, centres = cv2.connectedComponentsWithStats(holes)
    xy, areas, shapes = [], [], []
    for i in range(1, n):
        px, py, pw, ph, pa = (int(s) for s in stats[i])
        if not min_area <= pa <= max_area:
            continue
        m = cv2.moments((labels[py : py + ph, px : px + pw] == i).astype(np.uint8), True)
        cov = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / pa
        # A disc of radius R has covariance R^2/4; the quarter pixel keeps tiny pips invertible.
        shapes.append(4 * cov + 0.25 * np.eye(2))
        xy.append(centres[i] + origin)
        areas.append(float(pa))
    if not xy:
        empty = np.zeros((0, 2), np.float64)
        return _Pips(empty, np.zeros(0), np.zeros((0, 2, 2)), np.zeros(0))
    area = np.array(areas)
    # Specks of dirt or JPEG noise are far smaller than the pips beside them.
    keep = area >= 0.35 * np.median(area)
    shape = np.array(shapes)[keep]
    eig = np.linalg.eigvalsh(shape)
    return _Pips(np.array(xy)[keep], area[keep], shape, np.sqrt(eig[:, 0] / eig[:, 1]))


def _layout_cost(pips: _Pips, group: tuple[int, ...]) -> float:
    """How far a pip group is from the d6 layout of its size, in the face plane (0 = perfect)."""
    if len(group) == 1:
        return 0.0
    idx = list(group)
    whiten = np.linalg.inv(np.linalg.cholesky(pips.shape[idx].mean(0)))
    dist = _sorted_distances(pips.xy[idx] @ whiten.T)
    canon = _CANON[len(group)]
    scale = float(dist @ canon / (canon @ canon))
    misfit = float(np.sqrt(np.mean(((dist - scale * canon) / (scale * canon)) ** 2)))
    # The spacing in pip radii is the only cue that tells a two from a one beside a side pip.
    return misfit + 0.75 * max(0.0, abs(float(np.log(scale))) - _SCALE_SLACK)


def _compatible(pips: _Pips, most: float) -> NDArray[np.bool_]:
    """Pairs of pips that could share a face: alike in size and shape, spaced like d6 pips.

    ``most`` is the largest spacing allowed, in pip radii.
    """
    n = len(pips.xy)
    ok = np.zeros((n, n), bool)
    for i, j in combinations(range(n), 2):
        ai, aj = pips.area[i], pips.area[j]
        if min(ai, aj) < 0.6 * max(ai, aj) or abs(pips.roundness[i] - pips.roundness[j]) > 0.2:
            continue
        step = pips.xy[i] - pips.xy[j]
        radii = float(np.sqrt(step @ np.linalg.solve((pips.shape[i] + pips.shape[j]) / 2, step)))
        ok[i, j] = ok[j, i] = 2.3 < radii < most
    return ok


def _grid_misfit(points: FloatArray) -> float:
    """How far six points are from any affine image of the six's 2 x 3 grid (0 = exact).

    Whitening by the points' own spread undoes any slant, so this needs no pip shapes: it still
    holds when motion blur smears the pips and their ellipses no longer show the slant.
    """
    centred = points - points.mean(0)
    spread = centred.T @ centred / len(points)
    if np.linalg.det(spread) <= 1e-9 * max(float(np.trace(spread)), 1e-9) ** 2:
        return np.inf
    dist = _sorted_distances(centred @ np.linalg.inv(np.linalg.cholesky(spread)).T)
    canon = _CANON[6]
    scale = float(dist @ canon / (canon @ canon))
    return float(np.sqrt(np.mean(((dist - scale * canon) / (scale * canon)) ** 2)))


def _faces(pips: _Pips) -> list[tuple[tuple[int, ...], float]]:
    """Splits the pips into faces: each a group of 1..6 pips and its layout cost."""
    ok = _compatible(pips, 9.5)
    # Blur smears pips across the motion, so the far pairs of a six can look too far apart.
    far = _compatible(pips, 13.0)
    groups: list[tuple[tuple[int, ...], float]] = []

    def grow(group: tuple[int, ...], rest: list[int]) -> None:
        cost = _layout_cost(pips, group)
        if len(group) == 6 and cost < 2 * _MAX_COST:
            # A clean 2 x 3 grid is a six even when the blurred pips misjudge the slant.
            cost = min(cost, _grid_misfit(pips.xy[list(group)]) + 0.5 * cost)
        if cost < _MAX_COST and (
            len(group) == 6 or ok[np.ix_(group, group)].sum() == len(group) * (len(group) - 1)
        ):
            groups.append((group, cost))
        if len(group) < 6:
            for t, j in enumerate(rest):
                grow((*group, j), [q for q in rest[t + 1 :] if far[j, q]])

    for i in range(len(pips.xy)):
        grow((i,), [j for j in range(i + 1, len(pips.xy)) if far[i, j]])
    # Greedy cover: a whole face explains its pips better than two fragments of it.
    groups.sort(key=lambda g: (-len(g[0]), g[1]))
    used: set[int] = set()
    faces = []
    for group, cost in groups:
        if used.isdisjoint(group):
            faces.append((group, cost))
            used.update(group)
    return faces


def _confidence(pips: _Pips, faces: list[tuple[tuple[int, ...], float]], top: int) -> float:
    group, cost = faces[top]
    idx = list(group)
    fit = 1.0 - cost / _MAX_COST
    # Top-face pips are near-circles of one size; smeared or merged pips (blur) are not.
    round_ = float(np.clip((pips.roundness[idx].mean() - 0.3) / 0.4, 0.0, 1.0))
    sizes = float(pips.area[idx].min() / pips.area.max())
    # A face just below the top one with pips as round as the top's could have been the top.
    centre_y = pips.xy[idx, 1].mean()
    radius = float(np.sqrt(pips.area[idx].mean() / np.pi))
    clear = 1.0
    for j, (other, _) in enumerate(faces):
        if j != top:
            gap = (pips.xy[list(other), 1].mean() - centre_y) / radius
            alike = pips.roundness[list(other)].mean() / pips.roundness[idx].mean()
            clear = min(clear, float(np.clip(gap / 4.0 + (1.0 - alike) * 2.0, 0.0, 1.0)))
    single = 0.8 if len(group) == 1 else 1.0  # a lone pip has no layout to check
    return float(np.clip(single * (0.5 + 0.5 * fit) * round_ * min(1.0, sizes / 0.6) * clear, 0, 1))


def _other_top(pips: _Pips, a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether face b is the top of another die than face a's: parallel and a die apart.

    A side face stands at a right angle to the top face, so the camera squashes its pips along
    another direction or by another amount; a face seen just like the top is another die's top.
    """
    shape_a, shape_b = pips.shape[list(a)].mean(0), pips.shape[list(b)].mean(0)
    ratios = np.linalg.eigvals(np.linalg.solve(shape_a, shape_b)).real
    size = pips.area[list(b)].mean() / pips.area[list(a)].mean()
    # Tops of two dice are a face width (about ten pip radii on the face plane) apart or more.
    step = pips.xy[list(b)].mean(0) - pips.xy[list(a)].mean(0)
    apart = float(np.sqrt(step @ np.linalg.solve(shape_a, step)))
    alike = np.log(ratios.max() / ratios.min()) / 2 < 0.15
    return bool(alike and 0.6 < size < 1 / 0.6 and apart > 8.0)


def read_oblique(image: NDArray[np.uint8]) -> list[Die]:
    """Reads the top faces of the white dice in a BGR frame, left to right."""
    dice = []
    for pips in _die_blobs(image):
        faces = _faces(pips)
        if not faces:
            continue
        first = min(range(len(faces)), key=lambda f: float(pips.xy[list(faces[f][0]), 1].mean()))
        # Touching dice make one blob: a second laid-out face with the top's slant is a top too.
        tops = [first] + [
            f
            for f, (group, _) in enumerate(faces)
            if f != first and len(group) > 1 and _other_top(pips, faces[first][0], group)
        ]
        for top in tops:
            idx = list(faces[top][0])
            centres = pips.xy[idx]
            # Box the top face: the pips plus the margin a d6 leaves around its outer pips.
            margin = 3.0 * float(np.sqrt(pips.area[idx].max() / np.pi))
            x0, y0 = centres.min(0) - margin
            x1, y1 = centres.max(0) + margin
            box = (int(x0), int(y0), round(float(x1 - x0)), round(float(y1 - y0)))
            # The other tops are no rivals: only side faces could have been this die's top.
            rivals = [face for f, face in enumerate(faces) if f == top or f not in tops]
            confidence = _confidence(pips, rivals, rivals.index(faces[top]))
            dice.append(Die(len(idx), box, confidence))
    return sorted(dice, key=lambda d: d.box[0])
