"""Random playouts (controller/simulate.py): wins by each player's name, and mean scores."""

from __future__ import annotations

import pytest
import stack_game

from controller.rules.akuma import GAME as AKUMA
from controller.simulate import simulate


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
