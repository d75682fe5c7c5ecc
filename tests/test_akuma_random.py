"""Capture the Akuma under many seeded random games, with invariants checked after every action.

The check is kept cheap (no clone per step): it snapshots only the akumas and traps of the
previous position, which is all the before/after comparisons need.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from controller.rules.akuma import (
    GAME,
    LINES,
    PIECES,
    SQUARES,
    AkumaState,
    DeEvilize,
    Power,
)
from controller.rules.api import PRESENT, GameState
from controller.simulate import play_random_game

SQUARE_SET = frozenset(SQUARES)
LINE_SETS = tuple(frozenset(line) for line in LINES)
KNOWN_SPOTS = frozenset(f"{sq}.{piece}" for sq in SQUARES for piece in PIECES)
# AK-9: the Ladybug actions that can win.
COUNTED_FACES = frozenset({"cataclysm", "deevilize", "second_chance"})
EMPTY: frozenset[int] = frozenset()


class Invariants:
    """A `check` callback for play_random_game; it follows one game after another."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        merged = {**GAME.default_options, **(options or {})}
        self.max_traps = int(merged["traps"])
        self.max_tiles = int(merged["tiles"])
        self.state: GameState | None = None
        self.before_akumas = EMPTY
        self.before_traps = EMPTY
        self.steps = 0
        self.trapped_akuma_steps = 0  # steps that started with a trapped akuma on the board
        self.wins: Counter[str] = Counter()  # how each game was won

    def __call__(self, state: GameState) -> None:
        assert isinstance(state, AkumaState)
        if state is not self.state:  # a new game: the position before its first action is empty
            self.state = state
            self.before_akumas = self.before_traps = EMPTY
        self.steps += 1
        akumas = state.akumatized
        traps = state.traps
        tiles = state.tiles
        before_akumas = self.before_akumas
        before_traps = self.before_traps

        # AK-8: the supply, and one trap / one tile per square (sets of squares 1..9).
        assert len(traps) <= self.max_traps, (traps, state.history())
        assert len(tiles) <= self.max_tiles, (tiles, state.history())
        assert akumas <= SQUARE_SET and traps <= SQUARE_SET and tiles <= SQUARE_SET
        # AK-5 / AK-7: a tile never sits on an akumatized civilian.
        assert not akumas & tiles, state.history()

        # The layout: a known spot per piece, none shared, and the card on top of each square
        # (AK-10): the akumatized card exactly where the civilian is akumatized.
        layout = GAME.layout(state)
        pieces = {spot: token for spot, token in layout.items() if "." in spot}
        assert pieces.keys() <= KNOWN_SPOTS, layout
        assert set(pieces.values()) <= {PRESENT}, layout
        markers = (state.hawkmoth_at is not None) + (state.ladybug_at is not None)
        assert len(pieces) == len(akumas) + len(traps) + len(tiles) + markers, layout
        cards = {int(spot): token for spot, token in layout.items() if "." not in spot}
        assert cards == {
            sq: f"{'akumatized' if sq in akumas else 'civilian'}-{sq}" for sq in SQUARES
        }, layout

        # Every action places or removes at most one akuma-or-trap.
        assert len(akumas ^ before_akumas) + len(traps ^ before_traps) <= 1, state.history()

        # AK-7: a trapped akuma is never de-evilized, unless its trap is gone first.
        trapped = before_akumas & before_traps
        if trapped:
            self.trapped_akuma_steps += 1
            assert not (trapped & traps) - akumas, state.history()

        # AK-9: terminal exactly when a side has won, and the returns say who.
        line = any(line <= akumas for line in LINE_SETS)
        last = state.actions()[-1]
        counted = isinstance(last, DeEvilize) or (
            isinstance(last, Power) and last.face in COUNTED_FACES
        )
        removed = bool(before_akumas - akumas or before_traps - traps)
        ladybug_won = counted and removed and not akumas and not traps
        assert not (line and ladybug_won)
        assert state.is_terminal() == (line or ladybug_won), state.history()
        returns = state.returns()
        assert sum(returns) == 0
        if line:
            assert returns == [1.0, -1.0]
            self.wins["hawkmoth"] += 1
        elif ladybug_won:
            assert returns == [-1.0, 1.0]
            self.wins[f"ladybug:{last.id}"] += 1
        else:
            assert returns == [0.0, 0.0]

        self.before_akumas = frozenset(akumas)
        self.before_traps = frozenset(traps)


def run_games(games: int, seed: int, options: dict[str, Any] | None = None) -> Invariants:
    rng = random.Random(seed)
    check = Invariants(options)
    for _ in range(games):
        state = play_random_game(GAME, rng, options, max_actions=100_000, check=check)
        assert state.is_terminal(), state.history()
    assert sum(check.wins.values()) == games
    return check


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_10000_random_games_keep_the_invariants(seed: int) -> None:
    """4 x 2,500 = 10,000 games with the default supply (5 traps, 5 tiles)."""
    check = run_games(2_500, seed)
    assert check.steps > 50_000
    assert check.trapped_akuma_steps > 0
    # Both sides win, and Ladybug wins by each kind of counted action (AK-9).
    assert check.wins["hawkmoth"] > 0
    ways = {way.split(":")[1] for way in check.wins if way.startswith("ladybug:")}
    assert ways == {"de_evilize", "power"}
    faces = {way.rsplit(":", 1)[1] for way in check.wins if way.startswith("ladybug:power")}
    assert faces == COUNTED_FACES


@pytest.mark.parametrize(
    "options",
    [{"traps": 2, "tiles": 1}, {"traps": 0, "tiles": 0}, {"traps": 9, "tiles": 9}],
    ids=["traps2-tiles1", "traps0-tiles0", "traps9-tiles9"],
)
def test_random_games_with_another_supply_keep_the_invariants(options: dict[str, Any]) -> None:
    """AK-8 **Configurable**: the supply limits hold for other sizes too."""
    check = run_games(1_000, 99, options)
    assert check.wins["hawkmoth"] > 0
    assert sum(n for way, n in check.wins.items() if way.startswith("ladybug")) > 0


def test_the_supply_is_reached_in_random_games() -> None:
    """The supply checks above are not vacuous: games do reach the limits."""
    rng = random.Random(7)
    most_traps = most_tiles = 0

    def watch(state: GameState) -> None:
        nonlocal most_traps, most_tiles
        assert isinstance(state, AkumaState)
        most_traps = max(most_traps, len(state.traps))
        most_tiles = max(most_tiles, len(state.tiles))

    for _ in range(300):
        play_random_game(GAME, rng, {"traps": 2, "tiles": 1}, check=watch)
    assert (most_traps, most_tiles) == (2, 1)
