"""Dice at rest: the dice reader's frames turned into rolls, each reported once.

Frames come while dice are thrown, tumble and are picked up again. A roll is reported once
`stable_frames` frames in a row agree: the same values, each die's box within `tolerance_px` of
its own box in the frame before. Then:

- a reading whose least sure die is below `min_confidence` is reported *uncertain*, for the
  table to show while it waits; if the same resting dice later read surely, they are reported
  again, settled;
- dice that stay where they were reported (or some of them, after others were taken away) are
  the same roll, never reported twice, even if their values flicker;
- where the reader says how sure it is of each face (`Die.faces`), each die is read from the
  last `frames` frames in which it lay where it lies, its values allowed to flicker (`combine`):
  a die read about 0.6 sure, give or take, in each of five frames is sure; one read two ways, or
  read just alike in every frame (the die, not the camera, is what is unclear) stays unsure;
- an empty tray is not a roll, but it ends the last one: dice put back are a new roll;
- after the camera lost sight of the tray (a failure, a reconnect), dice found lying still are
  no new roll: they may be the roll reported before, seen anew by a camera that moved a little,
  or one thrown unseen, which the players type in. Only once the tray has changed (dice moved,
  taken away) is the next roll news.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from vision.dice_sources import DiceReading, Face

if TYPE_CHECKING:
    # Not at run time: the command line, which reads `SettledRoll`s, loads no OpenCV.
    from vision.image_files import Image


class SeenDie(Protocol):
    """One die as the reader sees it in a frame."""

    @property
    def value(self) -> Face: ...

    @property
    def box(self) -> Sequence[float]:
        """x, y, width, height in pixels."""
        ...

    @property
    def confidence(self) -> float: ...

    @property
    def faces(self) -> Sequence[tuple[Face, float]]:
        """Each face and how sure the reader is of it (`Die.faces`); empty if it cannot say."""
        ...


FLOOR = 1e-4
"""The least chance a frame leaves any face: one frame's firm no is outweighed by a few firm yes,
and a face no frame named keeps a little."""
FRAME_WEIGHT = 0.5
"""`n` frames that differ as much as independent readings weigh as n ** FRAME_WEIGHT readings:
frames of resting dice share their light, glare and tilt (benchmarks/dice_frames.py; 0.75 and 1
applied wrong rolls there)."""
SPREAD_FULL = 0.2
"""How much the frames must differ for that weight: the spread (standard deviation) of the log
chance of the face read. Frames that read a die alike tell no more than one: what keeps it unsure
is the die itself (glare, a tilt), not the camera's noise, and more of the same will not resolve
it. Without this, five near-identical frames each reading a die wrong at 0.60-0.65 read it
wrong at 0.92."""


@dataclass(frozen=True)
class CombinedDie:
    """One die read from several frames (`combine`)."""

    value: Face
    box: Sequence[float]
    confidence: float
    faces: tuple[tuple[Face, float], ...]


def combine(track: Sequence[SeenDie]) -> SeenDie:
    """The die lying still in each frame of `track` (oldest first) read once from all of them.

    Each frame's chances of the faces, given a die is there, are multiplied (their logs summed,
    floored at FLOOR), tempered by how much the frames differ (FRAME_WEIGHT, SPREAD_FULL); the
    certainty that a die is there is the frames' mean; the box is the latest. A die whose reader
    says nothing of its faces in one of the frames is read from the latest frame alone.
    """
    latest = track[-1]
    found = [sum(p for _, p in die.faces) for die in track]
    n = len(track)
    if n == 1 or min(found) <= 0:  # no faces, or nothing said of them
        return latest
    names = list(dict.fromkeys(face for die in track for face, _ in die.faces))
    frames = []
    for die, there in zip(track, found, strict=True):
        given = dict(die.faces)
        frames.append({face: math.log(max(given.get(face, 0.0) / there, FLOOR)) for face in names})
    logs = {face: sum(frame[face] for frame in frames) for face in names}
    best = max(logs.values())
    read = next(face for face in names if logs[face] == best)
    spread = math.sqrt(sum((frame[read] - best / n) ** 2 for frame in frames) / n)
    weight = 1 + (n**FRAME_WEIGHT - 1) * min(1.0, spread / SPREAD_FULL)
    odds = {face: math.exp(weight / n * (log - best)) for face, log in logs.items()}
    there = sum(found) / n / sum(odds.values())
    faces = tuple((face, there * odds[face]) for face in names)
    return CombinedDie(read, latest.box, there * odds[read], faces)


@dataclass(frozen=True)
class RolledDie:
    """One die of a settled roll, as a player checking an unsure roll needs it."""

    value: Face
    box: tuple[int, int, int, int]
    """x, y, width, height in the frame's pixels."""
    confidence: float
    readings: tuple[tuple[Face, float], ...]
    """Its value then the runner-up, each with how sure the reader is of it; its value alone
    where the reader says nothing of the other faces (the oblique and icon readers)."""
    sure: bool
    """At or above `min_confidence`."""


def rolled(die: SeenDie, min_confidence: float) -> RolledDie:
    """`die` as a roll keeps it: its value and the likeliest other face."""
    others = [(face, p) for face, p in die.faces if face != die.value]
    runner_up = (max(others, key=lambda reading: reading[1]),) if others else ()
    x, y, w, h = (round(v) for v in die.box)
    readings = ((die.value, die.confidence), *runner_up)
    sure = die.confidence >= min_confidence
    return RolledDie(die.value, (x, y, w, h), die.confidence, readings, sure)


@dataclass(frozen=True)
class SettledRoll:
    values: tuple[Face, ...]
    """Left to right across the frame."""
    confidence: float
    """The least sure die's."""
    certain: bool
    """Sure enough to apply; if not, show it and wait for it to firm up or be corrected."""
    # How each die was seen, and where: what a player settling an unsure roll looks at. The
    # roll itself is its values.
    dice: tuple[RolledDie, ...] = field(default=(), compare=False)
    """Left to right, as `values`."""
    frame: Image | None = field(default=None, compare=False, repr=False)
    """The frame it was read in, kept for an uncertain roll (`TrayDice`)."""

    @property
    def reading(self) -> DiceReading:
        return DiceReading(self.values, self.confidence, source="camera")


class DiceSettler:
    def __init__(
        self, stable_frames: int, min_confidence: float, tolerance_px: float, frames: int = 1
    ) -> None:
        """`frames`: how many of the latest frames in which a die lay still it is read from."""
        if stable_frames < 1 or not 0 <= min_confidence <= 1 or tolerance_px < 0 or frames < 1:
            raise ValueError(
                "stable_frames must be >= 1, min_confidence in 0..1, tolerance_px >= 0, "
                f"frames >= 1: {stable_frames}, {min_confidence}, {tolerance_px}, {frames}"
            )
        self.stable_frames = stable_frames
        self.min_confidence = min_confidence
        self.tolerance_px = tolerance_px
        self.frames = frames
        self._last: list[SeenDie] | None = None
        self._tracks: list[list[SeenDie]] = []  # each die of _last, as in its latest frames
        self._run = 0
        self._reported: list[SeenDie] | None = None
        self._reported_certain = False
        self._waking = False  # sight lost, and the tray not seen to change since

    def lost_sight(self) -> None:
        """The camera stopped seeing the tray: what it finds lying there when it sees again is
        taken as already reported."""
        self._last = None
        self._run = 0
        self._waking = True

    def feed(self, dice: Sequence[SeenDie]) -> SettledRoll | None:
        """The roll these dice have come to rest on, if it is news; otherwise None."""
        frame = self._combined(sorted(dice, key=lambda die: (die.box[0], die.box[1])))
        last = self._last
        still = last is not None and len(last) == len(frame) and self._fits(frame, last, True)
        if self._waking and last is not None and not still and not self._placed(frame, last):
            self._waking = False  # the tray changed since sight came back: what settles is news
        self._run = self._run + 1 if still else 1
        self._last = frame
        if self._run < self.stable_frames:
            return None
        if not frame:
            self._reported = None
            self._waking = False
            return None
        confidence = min(die.confidence for die in frame)
        certain = confidence >= self.min_confidence
        reported = self._reported
        if self._waking:
            # Lying still since sight came back: taken as reported, and sure, so that it does not
            # "firm up" into a roll either.
            self._waking = False
            self._reported, self._reported_certain = frame, True
            return None
        if reported is not None and self._fits(frame, reported, False):
            # No die has moved since that report: only an uncertain one firming up is news.
            firmed = certain and not self._reported_certain and len(frame) == len(reported)
            if not firmed:
                return None
        self._reported, self._reported_certain = frame, certain
        values = tuple(die.value for die in frame)
        seen = tuple(rolled(die, self.min_confidence) for die in frame)
        return SettledRoll(values, confidence, certain, seen)

    @property
    def combined(self) -> list[SeenDie]:
        """The dice of the latest frame, each read from the frames it lay still in."""
        return list(self._last or [])

    def _combined(self, frame: list[SeenDie]) -> list[SeenDie]:
        """Each die of `frame` read from the frames it lay still in, values flickering or not:
        a die that moved, or came, starts afresh."""
        last = self._last
        pairs = {} if last is None else self._pair(frame, last, False)
        self._tracks = [
            [*self._tracks[pairs[i]], die][-self.frames :] if i in pairs else [die]
            for i, die in enumerate(frame)
        ]
        return [combine(track) for track in self._tracks]

    def _placed(self, dice: list[SeenDie], into: list[SeenDie]) -> bool:
        """The same dice lying in the same places, whatever values they read as."""
        return len(dice) == len(into) and self._fits(dice, into, False)

    def _fits(self, dice: list[SeenDie], into: list[SeenDie], same_values: bool) -> bool:
        """Whether each die pairs off with its own die of `into` lying where it lies (and, if
        `same_values`, showing the same value)."""
        return len(self._pair(dice, into, same_values)) == len(dice)

    def _pair(self, dice: list[SeenDie], into: list[SeenDie], same_values: bool) -> dict[int, int]:
        """As many dice as can be paired off with a die of `into` lying where they lie (index
        in `dice` -> index in `into`): a bipartite matching by augmenting paths, as touching
        dice may each lie within the tolerance of two others."""
        partner: dict[int, int] = {}  # index in `into` -> index in `dice`

        def near(a: SeenDie, b: SeenDie) -> bool:
            return (not same_values or a.value == b.value) and all(
                abs(p - q) <= self.tolerance_px for p, q in zip(a.box, b.box, strict=True)
            )

        def place(i: int, tried: set[int]) -> bool:
            for j, other in enumerate(into):
                if j not in tried and near(dice[i], other):
                    tried.add(j)
                    if j not in partner or place(partner[j], tried):
                        partner[j] = i
                        return True
            return False

        for i in range(len(dice)):
            place(i, set())
        return {i: j for j, i in partner.items()}
