"""The table drawn in a terminal (controller/terminal.py), for reed and camera games."""

from __future__ import annotations

import stack_game
from stack_game import Move, Put

from controller.config import load_config
from controller.rules.akuma import GAME as AKUMA
from controller.rules.akuma import ChooseDice, Roll
from controller.session import View
from controller.terminal import abbreviate, draw

PALETTE = load_config(None).palette


def test_tokens_are_abbreviated_to_four_characters() -> None:
    assert abbreviate("yellow:steal") == "Y.st"
    assert abbreviate("red:1") == "R.1 "
    assert abbreviate("bone") == "bone"
    assert abbreviate(None) == " .. "


def test_camera_cells_show_their_top_token_and_role_mark() -> None:
    state = stack_game.GAME.new_initial_state()
    for action in (Put("a", "red:1", 0), Put("b", "blue:2", 0), Put("c", "blue:2", 0)):
        state.apply(action)
    state.apply(Move("a", "b"))
    view = View({"a": "landing", "c": "fix"}, frozenset({"c"}))
    text = draw(stack_game.GAME, state, view, PALETTE, colour=False)
    assert text.splitlines()[0] == " .. v R.1   B.2 !"
    coloured = draw(stack_game.GAME, state, view, PALETTE, colour=True)
    assert "R.1" in coloured and "\x1b[38;2;255;0;16m" in coloured  # red ink for a red die


def test_akuma_squares_still_show_their_piece_spots() -> None:
    state = AKUMA.new_initial_state()
    state.apply(ChooseDice(2))
    state.apply(Roll(5))
    view = View(AKUMA.lights(state), frozenset())
    rows = draw(AKUMA, state, view, PALETTE, colour=False).splitlines()
    assert rows[1] == "4 [     ] 5+[AH   ] 6 [     ]"
    assert rows[3].startswith("turn 2 · to move: Ladybug")
