"""Dice sources: each settled roll becomes one `DiceReading`.

The virtual dice roll on request (bots, `make run`) or take values typed in through the control
interface; the camera source joins them in a later issue.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

Face = int | str


@dataclass(frozen=True)
class DiceReading:
    """The faces of the dice that came to rest, one per die."""

    values: tuple[Face, ...]
    confidence: float = 1.0
    source: str = "virtual"


class VirtualDice:
    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def roll(self, faces: Sequence[Face], count: int) -> DiceReading:
        return DiceReading(tuple(self._rng.choice(faces) for _ in range(count)))

    @staticmethod
    def typed(values: Sequence[Face]) -> DiceReading:
        """Values entered by hand: a correction or a roll the camera did not see."""
        return DiceReading(tuple(values), source="typed")
