"""Many random Baron Voodoo games, with the invariants checked after every action.

The issue asks for at least 2,000 games for each of 2, 3 and 4 players and for team mode.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import draws_evenly

from controller.rules.api import GameState
from controller.rules.voodoo import (
    CELLS,
    GAME,
    MAX_STACK,
    RESERVE_TOTAL,
    WHITE,
    ErzulieFreda,
    Jump,
    Phase,
    VoodooState,
)
from controller.simulate import random_step

# Games a configuration: enough for the rare steps to come up many times over, few enough for
# the suite to stay within CI's budget on two slow cores.
GAMES = 1000
DICE = 48

# The most actions a game can take, from the rules alone. Set-up lays each die once: one chance
# event each by rolling, a roll and a placement each by placing. Each capture takes a die off the
# board for good (BV-5: into a capture zone; powers only move dice on the board, BV-6, and effects
# only between zones and spirit worlds, BV-8), and the jumping die stays: at most DICE - 1
# captures. Every turn played has a capture, except a turn whose start power leaves none, which
# triggers the end (BV-11): at most one a player, in the last round. A turn is at most a start
# power (Gran Bwa: one action for each die above the bottom one, BV-4, BV-6), the capture, steps
# 1 to 4 once each (BV-7), combos of 3 dice or more from a zone of at most DICE (BV-9), and an end
# power or the end of the turn.
SET_UP_ACTIONS = 2 * DICE
POWER_ACTIONS = MAX_STACK - 1
TURN_ACTIONS = POWER_ACTIONS + 1 + 4 + DICE // 3 + POWER_ACTIONS
MOST_ACTIONS = SET_UP_ACTIONS + (DICE - 1 + 4) * TURN_ACTIONS
CONFIGS: dict[str, dict[str, Any]] = {
    "2 players": {"players": 2},
    "3 players": {"players": 3},
    "4 players": {"players": 4},
    "teams": {"teams": True},
}


class Watcher:
    """Checks one game's invariants after each action, remembering what must never go back."""

    def __init__(self, state: VoodooState) -> None:
        self.scores = list(state.scores)

    def before(self, state: VoodooState) -> None:
        self.shielded = state.shielded()

    def after(self, state: VoodooState) -> None:
        # 48 dice, conserved across the board, capture zones, spirit worlds (and the set-up pool).
        on_board = sum(len(s) for s in state.board)
        held = sum(map(len, state.zones)) + sum(map(len, state.spirits)) + len(state.pool)
        if state.phase in (Phase.SETUP_ROLL, Phase.SETUP_POOL):
            assert on_board + len(state.pool) == len(state.actions())
        else:
            assert on_board + held == DICE
        assert all(len(s) <= 3 for s in state.board), "BV-4: a column above 3"
        # BV-7: 20 Offerings, conserved, never negative.
        assert state.reserve + sum(state.offerings) == RESERVE_TOTAL
        assert state.reserve >= 0 and min(state.offerings) >= 0
        assert all(now >= then for now, then in zip(state.scores, self.scores, strict=True))
        self.scores = list(state.scores)
        action = state.actions()[-1]
        if isinstance(action, Jump):
            taken = state.captured
            assert taken is not None and state.last_capture is not None
            assert CELLS[state.last_capture[1]] != action.to
            assert taken[0] not in self.shielded, f"BV-5: protected die {taken} captured"
            assert taken in state.zones[state.side_of(state.player)]
        whites = [sum(1 for c, _ in s if c == WHITE) for s in state.spirits]
        if state.teams:
            assert state.samedi is None  # BV-12
        elif not state.is_terminal() and max(whites) > 0 and whites.count(max(whites)) == 1:
            assert state.samedi == whites.index(max(whites))  # BV-10, while it still matters


def play(options: dict[str, Any], rng: random.Random) -> VoodooState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, VoodooState)
    watcher = Watcher(state)
    for _ in range(MOST_ACTIONS + 1):
        if state.is_terminal():
            break
        watcher.before(state)
        random_step(state, rng)
        watcher.after(state)
    return state


def _check_end(state: VoodooState) -> None:
    assert state.is_terminal(), f"no end within {MOST_ACTIONS} actions"
    assert len(state.actions()) <= MOST_ACTIONS
    # BV-11: the round was finished, and everything captured went to the spirit worlds.
    assert state.ending and state.seat == 0
    assert not any(state.zones)
    assert state.winner is not None
    assert state.scores[state.winner] == max(state.scores)
    returns = state.returns()
    assert sorted(set(returns)) in ([-1.0, 1.0], [1.0])


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_games_keep_every_invariant(name: str, half: int) -> None:
    # Two halves of the games, so that pytest-xdist shares them between cores.
    rng = random.Random(f"voodoo {name}, half {half}")
    for _ in range(GAMES // 2):
        _check_end(play(CONFIGS[name], rng))


def test_random_games_end_within_the_bound_the_rules_set() -> None:
    """No game runs on: every one ends within MOST_ACTIONS (worked out from BV-4 to BV-11 above).
    The random games of every seating check it (`_check_end`); these, set up by placing."""
    rng = random.Random("voodoo bound")
    for _ in range(60):
        state = play({"players": 4, "setup": "place"}, rng)
        _check_end(state)


def test_random_games_end_by_either_trigger() -> None:
    """BV-11: the target score, and a player to move with no capture even with a power."""
    rng = random.Random("voodoo triggers")
    by_score = by_block = 0
    for _ in range(200):
        state = play(CONFIGS["2 players"], rng)
        bonus = state.end_bonus or []
        before_end = [score - b for score, b in zip(state.scores, bonus, strict=True)]
        if max(before_end) >= state.target():
            by_score += 1
        else:
            by_block += 1
    assert by_score > 0 and by_block > 0


def test_random_games_with_set_up_by_placing() -> None:
    rng = random.Random("voodoo place")
    for players in (2, 3, 4):
        for _ in range(50):
            _check_end(play({"players": players, "setup": "place"}, rng))


def test_random_games_replay_from_their_history() -> None:
    rng = random.Random("voodoo replay")
    for options in CONFIGS.values():
        state = play(options, rng)
        again = GAME.replay(state.history(), state.options)
        assert _public(again) == _public(state)


def _public(state: GameState) -> Any:
    return GAME.describe(state), GAME.layout(state), GAME.result(state)


def test_a_clone_plays_on_without_touching_the_original() -> None:
    rng = random.Random("voodoo clone")
    for options in CONFIGS.values():
        state = GAME.new_initial_state(options)
        while len(state.actions()) < 80:
            random_step(state, rng)
        before = _public(state), state.history()
        copy = state.clone()
        while not copy.is_terminal():
            random_step(copy, rng)
        assert (_public(state), state.history()) == before


@pytest.mark.parametrize("players", [2, 4])
def test_a_drawn_action_is_the_one_a_choice_from_the_listing_would_be(players: int) -> None:
    """Random play draws through `sample`, which counts Erzulie Freda's swaps rather than
    listing them: at every decision of random games, with the same seeds, it draws what
    `rng.choice(legal_actions())` draws; at a turn's start, where a power must leave a
    capture (BV-5, BV-11), a legal action, a power that would leave none drawn again."""
    rng = random.Random(f"voodoo sample {players}")
    swaps_drawn = starts = 0
    for _ in range(6):
        state = GAME.new_initial_state({"players": players})
        while not state.is_terminal():
            if not state.is_chance_node():
                listed = state.legal_actions()
                for seed in range(4):
                    drawn = state.sample(random.Random(seed))
                    if state.phase is Phase.START:
                        assert drawn in listed
                        starts += 1
                    else:
                        assert drawn == random.Random(seed).choice(listed)
                    swaps_drawn += isinstance(drawn, ErzulieFreda)
            random_step(state, rng)
    assert swaps_drawn > 50 and starts > 50  # the counted swaps were drawn, and the starts


def test_at_a_turns_start_each_legal_action_is_drawn_as_often() -> None:
    """Powers that would leave no capture are drawn again (`sample`): the rest come evenly,
    not the ones after a refused power twice as often."""
    state = GAME.new_initial_state({"players": 2})
    rng = random.Random("voodoo start")
    while not (_refuses_a_power(state) and len(state.legal_actions()) <= 300):
        random_step(state, rng)
        if state.is_terminal():
            state, rng = GAME.new_initial_state({"players": 2}), random.Random(rng.random())
    draws_evenly(state, rng, each=200)


def _refuses_a_power(state: VoodooState) -> bool:
    """A turn's start where some power the player could pay for would leave no capture."""
    if state.phase is not Phase.START:
        return False
    every = len(state._capture_actions()) + len(state._powers())
    return len(state.legal_actions()) < every
