"""Dice at rest: the dice reader's frames turned into rolls, each reported once.

Frames come while dice are thrown, tumble and are picked up again. A roll is reported once
`stable_frames` frames in a row agree: the same values, each die's box within `tolerance_px` of
its own box in the frame before. Then:

- a reading whose least sure die is below `min_confidence` is reported *uncertain*, for the
  table to show while it waits; if the same resting dice later read surely, they are reported
  again, settled;
- dice that stay where they were reported (or some of them, after others were taken away) are
  the same roll, never reported twice, even if their values flicker;
- an empty tray is not a roll, but it ends the last one: dice put back are a new roll;
- after the camera lost sight of the tray (a failure, a reconnect), dice found lying still are
  no new roll: they may be the roll reported before, seen anew by a camera that moved a little,
  or one thrown unseen, which the players type in. Only once the tray has changed (dice moved,
  taken away) is the next roll news.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from vision.dice_sources import DiceReading, Face


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


@dataclass(frozen=True)
class SettledRoll:
    values: tuple[Face, ...]
    """Left to right across the frame."""
    confidence: float
    """The least sure die's."""
    certain: bool
    """Sure enough to apply; if not, show it and wait for it to firm up or be corrected."""

    @property
    def reading(self) -> DiceReading:
        return DiceReading(self.values, self.confidence, source="camera")


class DiceSettler:
    def __init__(self, stable_frames: int, min_confidence: float, tolerance_px: float) -> None:
        if stable_frames < 1 or not 0 <= min_confidence <= 1 or tolerance_px < 0:
            raise ValueError(
                "stable_frames must be >= 1, min_confidence in 0..1, tolerance_px >= 0: "
                f"{stable_frames}, {min_confidence}, {tolerance_px}"
            )
        self.stable_frames = stable_frames
        self.min_confidence = min_confidence
        self.tolerance_px = tolerance_px
        self._last: list[SeenDie] | None = None
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
        frame = sorted(dice, key=lambda die: (die.box[0], die.box[1]))
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
        return SettledRoll(tuple(die.value for die in frame), confidence, certain)

    def _placed(self, dice: list[SeenDie], into: list[SeenDie]) -> bool:
        """The same dice lying in the same places, whatever values they read as."""
        return len(dice) == len(into) and self._fits(dice, into, False)

    def _fits(self, dice: list[SeenDie], into: list[SeenDie], same_values: bool) -> bool:
        """Whether each die pairs off with its own die of `into` lying where it lies (and, if
        `same_values`, showing the same value): a bipartite matching by augmenting paths, as
        touching dice may each lie within the tolerance of two others."""
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

        return all(place(i, set()) for i in range(len(dice)))
