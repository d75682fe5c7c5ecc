"""Helpers shared by the Capture the Akuma tests: a fresh state, and a script of actions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.rules.akuma import GAME, AkumaState
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
