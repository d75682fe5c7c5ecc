"""Random playouts (controller/simulate.py): wins by each player's name, and mean scores."""

from __future__ import annotations

import random

import pytest
import stack_game

from controller.rules import GAMES
from controller.rules.akuma import GAME as AKUMA
from controller.simulate import random_step, simulate


def test_wins_are_keyed_by_the_states_player_names_and_scores_are_averaged() -> None:
    report = simulate(stack_game.GAME, 50, seed=1, options={"moves": 3})
    assert report["finished"] == 50
    # The names come from the state (they depend on the options), not Game.player_names.
    assert report["wins"] == {"p0-of-3": 50, "p1-of-3": 0}  # three moves: the first player's last
    scores = report["mean_scores"]
    assert set(scores) == {"p0-of-3", "p1-of-3"}
    assert 0 <= scores["p0-of-3"] <= 3 and scores["p1-of-3"] == 0


def test_a_game_without_scores_reports_none() -> None:
    report = simulate(AKUMA, 20, seed=1)
    assert "mean_scores" not in report
    assert sum(report["wins"].values()) == 20


def test_bad_options_are_refused_before_playing() -> None:
    with pytest.raises(ValueError, match="unknown option 'players'"):
        simulate(AKUMA, 5, seed=1, options={"players": 3})


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_dice_request_names_a_kind_the_game_declares(name: str) -> None:
    """The table chooses its dice readers from `dice_kinds` before any roll is wanted."""
    game = GAMES[name]
    # Baron Voodoo wants a roll of soul dice only when they are then placed in turn.
    options = {"setup": "place"} if name == "voodoo" else {}
    rng = random.Random(4)
    seen: set[str] = set()
    for _ in range(20):
        state = game.new_initial_state(options)
        hidden = game.deal(state, rng)
        while not state.is_terminal():
            wanted = game.dice_wanted(state)
            if wanted is not None:
                seen.add(wanted.kind)
            random_step(state, rng, hidden)
    assert seen == set(game.dice_kinds)
