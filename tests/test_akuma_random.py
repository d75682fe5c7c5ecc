"""Capture the Akuma under many seeded random games, with invariants checked after every action.

The check is kept cheap (no clone per step): it snapshots only the akumas and traps of the
previous position, which is all the before/after comparisons need.

How long a game can last. The rules set no limit, and a game can go on for ever: Hawk Moth rolls
11 with no akuma to choose, Ladybug rolls 11 too, and the position is the same as two turns
before (test_the_rules_allow_a_game_without_end). The engine sets no limit either, since a turn
limit would be a rule that the book does not have; `play_random_game` stops at its
`max_actions`, and `smartboard simulate` counts the games that did not finish.

What the rules do bound is a turn: choose the dice, roll, then one of: a trap, a de-evilize
choice, or a Miraculous face, or a Voyage face, its square and another face (5 actions); each
repeated Voyage adds one more face (AK-3 to AK-7). Hence MAX_TURN_ACTIONS, checked on
every turn below. And from every position the game can end within a few turns (Hawk Moth clears
at most three Shell-ter tiles and akumatizes three squares of a line while Ladybug's rolls remove
nothing), so under random play it ends with probability 1 and its length has a geometric tail.
Measured over 4 x 20,000 and 50,000 random games (defaults and the supplies used below): mean
36-44 actions, longest 429; more than 200 actions in under 0.8% of games, 300 in 0.04%, 400 in
0.005%, the tail shrinking at least 8-fold for each further 100 actions. MAX_GAME_ACTIONS = 2,000
is 16 such steps beyond 400: a random game this long has a chance below 1e-18, so a seeded
game that does not end within it shows a bug (a loop, a piece that cannot be removed), not bad
luck.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from akuma_play import new_state, play, roll

from controller.rules.akuma import (
    GAME,
    LINES,
    PIECES,
    SQUARES,
    AkumaState,
    DeEvilize,
    Phase,
    PlaceTrap,
    Power,
    Voyage,
)
from controller.rules.api import PRESENT, GameState
from controller.simulate import play_random_game

SQUARE_SET = frozenset(SQUARES)
LINE_SETS = tuple(frozenset(line) for line in LINES)
KNOWN_SPOTS = frozenset(f"{sq}.{piece}" for sq in SQUARES for piece in PIECES)
# AK-9: the Ladybug actions that can win.
COUNTED_FACES = frozenset({"cataclysm", "deevilize", "second_chance"})
EMPTY: frozenset[int] = frozenset()
MAX_GAME_ACTIONS = 2_000  # see the module's docstring
MAX_TURN_ACTIONS = 5  # ChooseDice, Roll, Power (Voyage), Voyage, Power; repeated Voyages on top


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
        self.longest_game = 0  # actions
        self.longest_turn = 0  # actions, repeated Voyages left out
        self.turn_start = 0  # index in the history of the current turn's first action
        self.repeated_voyages = 0  # in the current turn
        self.trapped_akuma_steps = 0  # steps that started with a trapped akuma on the board
        self.wins: Counter[str] = Counter()  # how each game was won

    def __call__(self, state: GameState) -> None:
        assert isinstance(state, AkumaState)
        if state is not self.state:  # a new game: the position before its first action is empty
            self.state = state
            self.before_akumas = self.before_traps = EMPTY
            self.turn_start = self.repeated_voyages = 0
        self.steps += 1
        done = len(state.actions())
        self.longest_game = max(self.longest_game, done)
        assert done <= MAX_GAME_ACTIONS, state.history()
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

        self.check_turn_length(state)
        # The description costs more than the rest: every 4th step, and every step where the
        # side acting is not the side whose turn it is (AK-4), the rarer case.
        if self.steps % 4 == 0 or state.phase in (Phase.PLACE_TRAP, Phase.CHOOSE_DEEVILIZE):
            self.check_description(state)
        self.before_akumas = frozenset(akumas)
        self.before_traps = frozenset(traps)

    def check_turn_length(self, state: AkumaState) -> None:
        """A turn is at most MAX_TURN_ACTIONS actions plus its repeated Voyages (AK-7)."""
        history = state.actions()
        last = history[-1]
        if last == Power("voyage") and isinstance(history[-2], (Voyage, Power)):
            self.repeated_voyages += 1  # rolled again after the turn's first Voyage
        length = len(history) - self.turn_start - self.repeated_voyages
        assert length <= MAX_TURN_ACTIONS, state.history()[self.turn_start :]
        if state.phase in (Phase.CHOOSE_DICE, Phase.OVER):  # the turn is over
            self.longest_turn = max(self.longest_turn, length)
            self.turn_start = len(history)
            self.repeated_voyages = 0

    def check_description(self, state: AkumaState) -> None:
        """The description agrees with the engine: the side acting, the box, 2nd Chance."""
        facts = GAME.describe(state)
        player = state.current_player()
        if player >= 0:
            assert facts["side"] == GAME.player_names[player], state.history()
        assert (facts["side"] is None) == state.is_terminal()
        assert facts["traps_left"] == self.max_traps - len(state.traps)
        assert facts["tiles_left"] == self.max_tiles - len(state.tiles)
        undo = facts["second_chance"]
        if undo is not None:  # AK-7: the latest placement, on the board, not a trapped akuma
            square = undo["square"]
            assert facts["last_placement"] == {"piece": undo["piece"], "square": square}
            if undo["piece"] == "trap":
                assert square in state.traps
            else:
                assert square in state.akumatized and square not in state.traps


def run_games(games: int, seed: int, options: dict[str, Any] | None = None) -> Invariants:
    rng = random.Random(seed)
    check = Invariants(options)
    for _ in range(games):
        state = play_random_game(GAME, rng, options, max_actions=MAX_GAME_ACTIONS, check=check)
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


def test_every_random_game_ends_within_the_action_bound() -> None:
    """Each of 1,000 seeded random games ends within MAX_GAME_ACTIONS, every turn within
    MAX_TURN_ACTIONS plus its repeated Voyages (the module's docstring says why these bounds)."""
    check = run_games(1_000, 2026)
    assert check.longest_game <= MAX_GAME_ACTIONS
    assert check.longest_turn == MAX_TURN_ACTIONS  # reached: a Voyage, its square, a face


def test_the_rules_allow_a_game_without_end() -> None:
    """No rule ends a game by its length: Hawk Moth's 11 with no akuma to choose and Ladybug's 11
    bring back the same position (AK-4: no target, nothing happens), as often as they are
    rolled. Only the turn count grows."""
    state = play(new_state(), roll(1), roll(10), PlaceTrap(1))  # a trapped akuma on 1
    start = GAME.describe(state)
    for cycle in range(1, 101):
        play(state, roll(11), roll(11))
        now = GAME.describe(state)
        assert now.pop("last_event")["event"] == "no_akuma_to_free"
        expected = start | {"turn": start["turn"] + 2 * cycle, "last_roll": 11}
        del expected["last_event"]  # the trap laid; now each 11 that did nothing (AK-4)
        assert now == expected
    assert not state.is_terminal()
