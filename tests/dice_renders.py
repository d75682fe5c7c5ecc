"""Rendered icon dice and d12s, as a camera over the tray or the Baron Voodoo board sees them.

A `Style` is one printed copy of a game: its icon variants, stroke, ink, body shades and the
d12's font. The model must learn the user's copy from photos of it, so tests learn from renders
of one style and read renders of the same style in other poses, light, blur and noise.

- Miraculous die and soul dice: a cube seen from above, its darker side faces as a rim, a
  shadow on the tray, one icon per face (drawn with cv2 primitives).
- d12: a dodecahedron seen from above, the top pentagon with its numeral amid five sloping
  faces; 6 and 9 carry a bar under the numeral, as printed d12s do.
- The Voodoo board: 7 x 7 spaces in the colours of controller/rules/voodoo.toml, soul dice on
  most, seen through a homography; `cells` gives each space's corners in the photo.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from controller.rules import icon_dice
from controller.rules.voodoo import COLOURS, builtin_rules_path, load_rules

Point = tuple[float, float]
BGR = tuple[int, int, int]

# The soul dice's body colours, BGR (each copy shifts them a little).
BODY = {
    "yellow": (40, 205, 235),
    "turquoise": (190, 185, 40),
    "red": (45, 40, 200),
    "purple": (140, 50, 120),
    "white": (235, 235, 232),
}
# The Voodoo board's printed spaces: duller than the dice, the centre black.
SPACE = {
    "yellow": (70, 170, 190),
    "turquoise": (150, 140, 60),
    "red": (60, 60, 160),
    "purple": (110, 60, 100),
    "white": (200, 200, 200),
    None: (30, 30, 30),
}
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
PATCH = 192  # side of the drawn die, pixels (drawn large, then shrunk to the photo's scale)


@dataclass(frozen=True)
class Style:
    """One copy of a game."""

    seed: int
    variant: int  # which of two drawings of each icon
    stroke: float  # line width, as a fraction of the die side
    ink: BGR
    body: BGR  # the miraculous die's and the d12's body
    shade: tuple[float, float, float]  # multiplies each soul body colour (B, G, R)
    font: int
    icon_scale: float


def random_style(rng: random.Random) -> Style:
    dark = rng.random() < 0.7
    ink = tuple(rng.randint(0, 60) for _ in range(3)) if dark else (235, 235, 235)
    body = (
        tuple(rng.randint(170, 240) for _ in range(3))
        if dark
        else tuple(rng.randint(20, 90) for _ in range(3))
    )
    return Style(
        seed=rng.randrange(1 << 30),
        variant=rng.randrange(2),
        stroke=rng.uniform(0.035, 0.06),
        ink=ink,  # type: ignore[arg-type]
        body=body,  # type: ignore[arg-type]
        shade=(rng.uniform(0.9, 1.08), rng.uniform(0.9, 1.08), rng.uniform(0.9, 1.08)),
        font=rng.choice(FONTS),
        icon_scale=rng.uniform(0.85, 1.05),
    )


# -- icons: each drawn in a box of half-side r around c --------------------------------------


def _pts(c: Point, r: float, points: list[Point]) -> np.ndarray:
    return np.array([[c[0] + r * x, c[1] + r * y] for x, y in points], np.int32)


def _circle(
    img: np.ndarray, c: Point, r: float, x: float, y: float, rr: float, ink: BGR, t: int
) -> None:
    cv2.circle(
        img, (int(c[0] + r * x), int(c[1] + r * y)), max(2, int(r * rr)), ink, t, cv2.LINE_AA
    )


def _line(img: np.ndarray, c: Point, r: float, a: Point, b: Point, ink: BGR, t: int) -> None:
    p, q = _pts(c, r, [a, b])
    cv2.line(img, tuple(p), tuple(q), ink, t, cv2.LINE_AA)


def _poly(img: np.ndarray, c: Point, r: float, points: list[Point], ink: BGR, t: int) -> None:
    if t < 0:
        cv2.fillPoly(img, [_pts(c, r, points)], ink, cv2.LINE_AA)
    else:
        cv2.polylines(img, [_pts(c, r, points)], True, ink, t, cv2.LINE_AA)


def _arc(
    img: np.ndarray, c: Point, r: float, rr: float, start: float, end: float, ink: BGR, t: int
) -> None:
    centre = (int(c[0]), int(c[1]))
    cv2.ellipse(img, centre, (int(r * rr), int(r * rr)), 0, start, end, ink, t, cv2.LINE_AA)


def _cataclysm(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A cat's paw: a pad and four toes.
    cv2.ellipse(
        img,
        (int(c[0]), int(c[1] + 0.3 * r)),
        (int(0.45 * r), int(0.35 * r)),
        0,
        0,
        360,
        ink,
        -1,
        cv2.LINE_AA,
    )
    for x, y in ((-0.6, -0.25), (-0.22, -0.65), (0.22, -0.65), (0.6, -0.25)):
        _circle(img, c, r, x, y, 0.17 if v else 0.2, ink, -1 if v else t)


def _shellter(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A turtle shell: a hexagon ring around a smaller one.
    hexagon = [
        (math.cos(a), math.sin(a)) for a in np.linspace(0, 2 * math.pi, 7)[:-1] + v * math.pi / 6
    ]
    _poly(img, c, 0.85 * r, hexagon, ink, t)
    _poly(img, c, 0.4 * r, hexagon, ink, -1)


def _venom(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A bee: a striped body and two wings.
    cv2.ellipse(
        img,
        (int(c[0]), int(c[1] + 0.15 * r)),
        (int(0.32 * r), int(0.7 * r)),
        0,
        0,
        360,
        ink,
        t,
        cv2.LINE_AA,
    )
    for y in (0.0, 0.35):
        _line(img, c, r, (-0.3, y), (0.3, y), ink, t)
    for side in (-1, 1):
        cv2.ellipse(
            img,
            (int(c[0] + side * 0.55 * r), int(c[1] - 0.45 * r)),
            (int(0.3 * r), int(0.18 * r)),
            side * (30 + 20 * v),
            0,
            360,
            ink,
            t,
            cv2.LINE_AA,
        )


def _deevilize(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A butterfly: two wings each side of a body.
    for side in (-1, 1):
        _poly(img, c, r, [(0, -0.1), (side * 0.9, -0.8), (side * 0.8, 0.05)], ink, -1 if v else t)
        _poly(img, c, r, [(0, 0.05), (side * 0.65, 0.25), (side * 0.45, 0.75)], ink, t)
    _line(img, c, r, (0, -0.5), (0, 0.6), ink, t)


def _second_chance(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A loop arrow: three quarters of a circle and its head.
    _arc(img, c, r, 0.7, -60, 210, ink, t)
    head = (
        [(0.35, -0.95), (0.55, -0.35), (0.0, -0.45)]
        if v
        else [(0.2, -0.95), (0.6, -0.4), (0.05, -0.35)]
    )
    _poly(img, c, r, head, ink, -1)
    _circle(img, c, r, 0, 0, 0.15, ink, -1)


def _voyage(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A horseshoe open at the bottom, its nails as dots.
    _arc(img, c, r, 0.7, 150, 390, ink, 2 * t if v else t)
    for a in (200, 270, 340):
        x, y = 0.7 * math.cos(math.radians(a)), 0.7 * math.sin(math.radians(a))
        _circle(img, c, r, x, y + 0.35, 0.09, ink, -1)


def _offering(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A bowl with a flame over it.
    _arc(img, (c[0], c[1] + 0.05 * r), r, 0.75, 0, 180, ink, -1)
    _poly(img, c, r, [(0, -0.9), (0.3 if v else 0.25, -0.2), (-0.25, -0.2)], ink, -1)


def _point(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A dot in a ring.
    _circle(img, c, r, 0, 0, 0.8, ink, t)
    _circle(img, c, r, 0, 0, 0.35 if v else 0.3, ink, -1)


def _change(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # Two opposed arrows, one over the other.
    for y, d in ((-0.35, 1), (0.35, -1)):
        _line(img, c, r, (-0.75 * d, y), (0.5 * d, y), ink, t)
        _poly(img, c, r, [(0.85 * d, y), (0.4 * d, y - 0.3), (0.4 * d, y + 0.3)], ink, -1)


def _protection(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A shield with a bar across.
    shield = [(-0.7, -0.8), (0.7, -0.8), (0.7, 0.0), (0.0, 0.9), (-0.7, 0.0)]
    _poly(img, c, r, shield, ink, t)
    _line(img, c, r, (-0.7, -0.25 if v else -0.1), (0.7, -0.25 if v else -0.1), ink, t)


def _steal(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # A claw: three curved fingers over a palm.
    for x in (-0.45, 0.0, 0.45):
        _line(img, c, r, (x, 0.2), (x * 1.3, -0.8), ink, t)
    _poly(img, c, r, [(-0.6, 0.2), (0.6, 0.2), (0.4, 0.8), (-0.4, 0.8)], ink, -1 if v else t)


def _switch(img: np.ndarray, c: Point, r: float, ink: BGR, t: int, v: int) -> None:
    # Two crossing arrows.
    for d in (-1, 1):
        _line(img, c, r, (-0.7 * d, 0.7), (0.6 * d, -0.6), ink, t)
        _poly(img, c, r, [(0.8 * d, -0.8), (0.25 * d, -0.7), (0.7 * d, -0.25)], ink, -1)
    if v:
        _circle(img, c, r, 0, 0, 0.15, ink, -1)


ICONS: dict[str, Callable[[np.ndarray, Point, float, BGR, int, int], None]] = {
    "cataclysm": _cataclysm,
    "shellter": _shellter,
    "venom": _venom,
    "deevilize": _deevilize,
    "second_chance": _second_chance,
    "voyage": _voyage,
    "offering": _offering,
    "point": _point,
    "change": _change,
    "protection": _protection,
    "steal": _steal,
    "switch": _switch,
}


# -- a die, drawn flat ------------------------------------------------------------------------


def _shaded(colour: BGR, factor: float) -> BGR:
    return tuple(int(min(255, max(0, v * factor))) for v in colour)  # type: ignore[return-value]


def draw_die(
    kind: str, face: str, colour: str | None, style: Style
) -> tuple[np.ndarray, np.ndarray]:
    """The die on a PATCH x PATCH canvas, and its mask (255 on the die)."""
    image = np.zeros((PATCH, PATCH, 3), np.uint8)
    mask = np.zeros((PATCH, PATCH), np.uint8)
    c = (PATCH / 2, PATCH / 2)
    side = 0.8 * PATCH
    t = max(2, int(style.stroke * side))
    if kind == "d12":
        body = style.body
        # Top view of a dodecahedron on a face: a decagon outline, the top pentagon inside.
        outer = [(math.cos(a), math.sin(a)) for a in np.radians(np.arange(10) * 36 - 90 + 18)]
        inner = [(math.cos(a), math.sin(a)) for a in np.radians(np.arange(5) * 72 - 90)]
        cv2.fillPoly(mask, [_pts(c, side / 2, outer)], 255, cv2.LINE_AA)
        cv2.fillPoly(image, [_pts(c, side / 2, outer)], _shaded(body, 0.7), cv2.LINE_AA)
        cv2.fillPoly(image, [_pts(c, 0.3 * side, inner)], body, cv2.LINE_AA)
        for a, b in zip(inner, inner[1:] + inner[:1], strict=True):
            mid = ((a[0] + b[0]) * 0.3 * side / 2, (a[1] + b[1]) * 0.3 * side / 2)
            ox, oy = mid[0] * 1.75, mid[1] * 1.75
            p = (int(c[0] + ox), int(c[1] + oy))
            cv2.line(
                image,
                (int(c[0] + mid[0]), int(c[1] + mid[1])),
                p,
                _shaded(body, 0.55),
                1,
                cv2.LINE_AA,
            )
        # Hershey fonts are about 22 px tall at scale 1.
        scale = 0.26 * side / 22 * style.icon_scale * (0.8 if len(face) == 2 else 1.0)
        thick = max(2, int(0.8 * t))
        (w, h), _ = cv2.getTextSize(face, style.font, scale, thick)
        org = (int(c[0] - w / 2), int(c[1] + h / 2))
        cv2.putText(image, face, org, style.font, scale, style.ink, thick, cv2.LINE_AA)
        if face in ("6", "9"):
            y = int(c[1] + h / 2 + 0.35 * h)
            cv2.line(image, (org[0], y), (org[0] + w, y), style.ink, thick, cv2.LINE_AA)
        return image, mask
    body, ink = style.body, style.ink
    if colour is not None:
        body = tuple(int(min(255, v * s)) for v, s in zip(BODY[colour], style.shade, strict=True))  # type: ignore[assignment]
        if sum(body) > 450 and sum(ink) > 450:  # a copy prints light dice's icons dark
            ink = (35, 30, 30)
    square = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    cv2.fillPoly(mask, [_pts(c, side / 2, square)], 255, cv2.LINE_AA)
    cv2.fillPoly(image, [_pts(c, side / 2, square)], _shaded(body, 0.6), cv2.LINE_AA)
    cv2.fillPoly(image, [_pts(c, 0.44 * side, square)], body, cv2.LINE_AA)
    ICONS[face](image, c, 0.3 * side * style.icon_scale, ink, t, style.variant)
    return image, mask


# -- photos -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    kind: str
    face: str
    colour: str | None
    centre: Point
    size: float  # the die's side (a d12's width) in the photo, pixels
    angle: float  # degrees


@dataclass(frozen=True)
class Photo:
    image: np.ndarray
    dice: list[Placed]


def _paste(canvas: np.ndarray, die: Placed, style: Style, rng: random.Random, hard: bool) -> None:
    patch, mask = draw_die(die.kind, die.face, die.colour, style)
    scale = die.size / (0.8 * PATCH)
    # Shrink gently first, so the warp does not alias the strokes.
    sigma = max(0.0, 0.45 / scale - 0.5)
    if sigma > 0:
        patch = cv2.GaussianBlur(patch, (0, 0), sigma)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
    rotation = cv2.getRotationMatrix2D((PATCH / 2, PATCH / 2), die.angle, scale)
    rotation[:, 2] += np.array(die.centre) - PATCH / 2
    square = np.array([[0, 0], [PATCH, 0], [PATCH, PATCH], [0, PATCH]], np.float32)
    target = cv2.transform(square[None], rotation)[0]
    wobble = 0.06 if hard else 0.03
    target += (
        np.array([[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]) * wobble * die.size
    )
    matrix = cv2.getPerspectiveTransform(square, target.astype(np.float32))
    height, width = canvas.shape[:2]
    # A soft shadow, offset away from the light.
    shadow = cv2.warpPerspective(mask, matrix, (width, height))
    shift = np.float32([[1, 0, 0.08 * die.size], [0, 1, 0.1 * die.size]])
    shadow = cv2.warpAffine(shadow, shift, (width, height))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.08 * die.size + 0.5).astype(np.float32) / 255
    canvas[:] = (canvas * (1 - 0.45 * shadow[..., None])).astype(np.uint8)
    warped = cv2.warpPerspective(patch, matrix, (width, height))
    alpha = cv2.warpPerspective(mask, matrix, (width, height)).astype(np.float32)[..., None] / 255
    canvas[:] = (canvas * (1 - alpha) + warped * alpha).astype(np.uint8)


def _camera(image: np.ndarray, rng: random.Random, hard: bool) -> np.ndarray:
    """Uneven light, brightness, blur, noise and JPEG, as a camera adds them."""
    height, width = image.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xs * math.cos(angle) + ys * math.sin(angle)) / max(width, height)
    spread = 0.45 if hard else 0.25
    light = rng.uniform(0.7, 1.2) * (1 + spread * (ramp - ramp.mean()))
    out = image.astype(np.float32) * light[..., None]
    blur = rng.uniform(0.0, 1.3 if hard else 0.8)
    if blur > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += np.random.default_rng(rng.randrange(1 << 30)).normal(
        0, rng.uniform(1, 6 if hard else 3), out.shape
    )
    image8 = np.clip(out, 0, 255).astype(np.uint8)
    quality = rng.randint(60, 95)
    return cv2.imdecode(
        cv2.imencode(".jpg", image8, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR
    )


def _tray(rng: random.Random, style: Style, kind: str) -> tuple[int, int, int]:
    """A plain tray, felt or wood, that the dice stand out on: dark, or light for dark dice."""
    if kind != "soul" and sum(style.body) < 300:
        return (rng.randint(140, 200), rng.randint(150, 210), rng.randint(140, 220))
    return (rng.randint(30, 90), rng.randint(40, 100), rng.randint(30, 110))


def _die_size(kind: str, rng: random.Random) -> float:
    """Pixels across: a 16 mm cube or a 20 mm d12 at about 2.1-3.6 px a millimetre."""
    return rng.uniform(50, 72) if kind == "d12" else rng.uniform(34, 56)


def die_photo(
    kind: str, face: str, colour: str | None, style: Style, rng: random.Random, hard: bool = True
) -> Photo:
    """One die roughly centred on the tray, as `dice learn` is shown it."""
    size = _die_size(kind, rng)
    side = 160 if kind == "d12" else 128
    canvas = np.full((side, side, 3), _tray(rng, style, kind), np.uint8)
    die = Placed(
        kind,
        face,
        colour,
        (side / 2 + rng.uniform(-12, 12), side / 2 + rng.uniform(-12, 12)),
        size,
        rng.uniform(0, 360),
    )
    _paste(canvas, die, style, rng, hard)
    return Photo(_camera(canvas, rng, hard), [die])


def tray_photo(
    kind: str, style: Style, rng: random.Random, count: int, size: tuple[int, int] = (480, 360)
) -> Photo:
    """`count` dice of `kind` apart from each other on a tray."""
    width, height = size
    canvas = np.full((height, width, 3), _tray(rng, style, kind), np.uint8)
    faces = icon_dice()[kind].faces
    dice: list[Placed] = []
    while len(dice) < count:
        die_size = _die_size(kind, rng)
        centre = (rng.uniform(40, width - 40), rng.uniform(40, height - 40))
        if any(math.dist(centre, d.centre) < 1.6 * max(die_size, d.size) for d in dice):
            continue
        colour = rng.choice(COLOURS) if kind == "soul" else None
        dice.append(Placed(kind, rng.choice(faces), colour, centre, die_size, rng.uniform(0, 360)))
    for die in dice:
        _paste(canvas, die, style, rng, hard=True)
    return Photo(_camera(canvas, rng, hard=True), dice)


@dataclass(frozen=True)
class Board:
    image: np.ndarray
    cells: dict[str, np.ndarray]  # "r0c0" -> 4 x 2 corners in the photo
    truth: dict[str, tuple[str, str] | None]  # the top die's (face, colour), None if empty


def board_photo(style: Style, rng: random.Random, empty: float = 0.2, cell_px: int = 64) -> Board:
    """The Voodoo board from above, about `cell_px` pixels a cell, through a camera homography."""
    colours = load_rules(str(builtin_rules_path())).colours
    margin = cell_px // 2
    side = 7 * cell_px + 2 * margin
    flat = np.full((side, side, 3), (40, 55, 70), np.uint8)
    truth: dict[str, tuple[str, str] | None] = {}
    placed: list[tuple[Placed, int]] = []
    for r in range(7):
        for c in range(7):
            x0, y0 = margin + c * cell_px, margin + r * cell_px
            cv2.rectangle(
                flat,
                (x0 + 2, y0 + 2),
                (x0 + cell_px - 3, y0 + cell_px - 3),
                SPACE[colours[r * 7 + c]],
                -1,
            )
            name = f"r{r}c{c}"
            if rng.random() < empty or colours[r * 7 + c] is None:
                truth[name] = None
                continue
            face, colour = rng.choice(icon_dice()["soul"].faces), rng.choice(COLOURS)
            height = rng.randint(1, 3)  # a higher stack's top die is nearer, so larger
            size = cell_px * rng.uniform(0.5, 0.58) * (1 + 0.04 * (height - 1))
            centre = (x0 + cell_px / 2 + rng.uniform(-4, 4), y0 + cell_px / 2 + rng.uniform(-4, 4))
            angle = rng.uniform(-25, 25) + 90 * rng.randrange(4)
            placed.append((Placed("soul", face, colour, centre, size, angle), height))
            truth[name] = (face, colour)
    for die, _ in placed:
        _paste(flat, die, style, rng, hard=False)
    # The camera: the board turned and seen a little from the side.
    width, height = 720, 720
    corners = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    out_side = rng.uniform(0.82, 0.92) * min(width, height)
    angle = math.radians(rng.uniform(-8, 8))
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    target = (corners / side - 0.5) * out_side @ rot.T + np.array([width / 2, height / 2])
    target += (
        np.array([[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(4)]) * 0.03 * out_side
    )
    matrix = cv2.getPerspectiveTransform(corners, target.astype(np.float32))
    image = cv2.warpPerspective(flat, matrix, (width, height), borderValue=(60, 60, 60))
    cells = {}
    for r in range(7):
        for c in range(7):
            x0, y0 = margin + c * cell_px, margin + r * cell_px
            square = np.array(
                [[x0, y0], [x0 + cell_px, y0], [x0 + cell_px, y0 + cell_px], [x0, y0 + cell_px]],
                np.float32,
            )
            cells[f"r{r}c{c}"] = cv2.perspectiveTransform(square[None], matrix)[0]
    return Board(_camera(image, rng, hard=False), cells, truth)


def learning_set(
    kind: str, style: Style, rng: random.Random, per_face: int
) -> list[tuple[np.ndarray, str, str | None]]:
    """`per_face` photos of each face (a soul die's colours in turn), as `learn` takes them."""
    samples = []
    for face in icon_dice()[kind].faces:
        for k in range(per_face):
            colour = COLOURS[(k + len(samples)) % len(COLOURS)] if kind == "soul" else None
            samples.append((die_photo(kind, face, colour, style, rng).image, face, colour))
    return samples
