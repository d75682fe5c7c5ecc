"""Helpers shared by the Capture the Akuma tests: a fresh state, a script of actions, and the
turns that scripts are made of."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.rules.akuma import GAME, AkumaState, ChooseDice, Power, Roll
from controller.rules.api import Action

Step = Action | Sequence[Action]


def new_state(options: dict[str, Any] | None = None) -> AkumaState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, AkumaState)
    return state


def play(state: AkumaState, *steps: Step) -> AkumaState:
    """Apply actions, or lists of actions, in order."""
    for step in steps:
        for action in [step] if isinstance(step, Action) else step:
            state.apply(action)
    return state


def roll(total: int) -> list[Action]:
    """Choose the dice (one for 1-6, two for 7-12) and roll `total`."""
    return [ChooseDice(1 if total <= 6 else 2), Roll(total)]


def lb(square: int, *then: Action | str) -> list[Action]:
    """A Ladybug turn: roll `square`, then Miraculous faces (strings) or Voyage decisions."""
    rest = [Power(x) if isinstance(x, str) else x for x in then]
    return [*roll(square), *rest]


LB_IDLE = lb(9, "cataclysm")  # a Ladybug turn that changes nothing while 9 holds no trap
HM_NOTHING_TO_DEEVILIZE = roll(11)  # Hawk Moth rolls 11 while no akuma can be de-evilized
