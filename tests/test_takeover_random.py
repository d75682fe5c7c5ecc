"""Many random Hostile Takeover games, with the invariants checked after every action.

At least 2,000 games each for 2, 3 and 4 players. Random set-up decisions make random legal
maps; the checks after each action are kept cheap, since the games themselves take most of the
time, and the costlier ones (HT-3 over the whole map, HT-4) run once, when set-up is done.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from conftest import draws_evenly

from controller.rules.api import Action, GameState
from controller.rules.takeover import (
    COLOURS,
    FULL_POINTS,
    GAME,
    LAST_PLAYER_BONUS,
    LIVES,
    SUPPLY,
    TILES,
    Attack,
    Building,
    Claim,
    Displace,
    Pass,
    Phase,
    PlaceLarge,
    PlaceSmall,
    PlaceSpawn,
    PlaceTile,
    Roll,
    TakeoverState,
    map_problems,
)
from controller.simulate import random_step

# Games a configuration: enough for the rare steps to come up many times over, few enough for
# the suite to stay within CI's budget on two slow cores.
GAMES = 700

# How long a game can be. Set-up is bounded by the rules: after the rounds of rolls for the
# first player (one more round for each tie), exactly 20 tiles (HT-1), 15 buildings (HT-2) and a
# spawn each (HT-4). Play is not: HT-5 lets a pawn walk to and fro for ever, and only lost lives
# end the game (HT-6), so no rule bounds the moves. What the rules do fix is the number of
# combats that cost a life: each takes one of 3 lives, the game ends when all but one player
# are out, and the last one may have lost 2, so 3 (n - 1) to 3 (n - 1) + 2 of them. LIMIT is
# therefore random play's bound, not the rules': the longest of thousands of random games is
# under 3,000 actions (about 1,000 on average), and LIMIT is several times that.
LIMIT = 20_000


class Watcher:
    """Checks one game's invariants after each action, remembering what must never go back."""

    def __init__(self, state: TakeoverState) -> None:
        self.lives = list(state.lives)
        self.lost = 0  # lives lost so far
        self.set_up = False
        self.kinds: Counter[type[Action]] = Counter()

    def after(self, state: TakeoverState, action: Action) -> None:
        self.kinds[type(action)] += 1
        # HT-5: no two pawns on a cell, and pawns only on empty tile cells.
        pawns = [c for c in state.pawns if c is not None]
        assert len(set(pawns)) == len(pawns), "two pawns on one cell"
        for c in pawns:
            assert c in state.tiles, "a pawn on a hole"
            assert c not in state.building_at, "a pawn on a building"
        # HT-2 / HT-5: a building keeps 1..full points (it is claimed at 0).
        for b in state.buildings:
            assert 0 < b.points <= FULL_POINTS[b.size], f"{b} out of 1..full"
        # HT-6: 0..3 lives, never regained; no pawn once out.
        lives = state.lives
        for p, n in enumerate(lives):
            assert 0 <= n <= self.lives[p] <= LIVES
            if n == 0:
                assert state.pawns[p] is None, "an out player's pawn on the map"
        self.lost += sum(self.lives) - sum(lives)
        self.lives = list(lives)
        # HT-1: 2x2 tiles never overlap (4 new cells each), at most 20 of them.
        assert state.tiles_placed <= TILES
        assert len(state.tiles) == 4 * state.tiles_placed, "tiles overlap"
        if isinstance(action, PlaceTile):
            r, c = divmod(state.grid.index[action.cell], state.grid.size)
            size = state.grid.size
            assert {(r + i) * size + c + j for i in (0, 1) for j in (0, 1)} <= state.tiles
        # HT-2: the supply never goes below zero, and accounts for every building placed.
        supply = state.supply
        assert supply["small"] >= 0 and supply["large"] >= 0
        assert supply["small"] + supply["large"] + len(state.buildings) == sum(SUPPLY.values())
        if not self.set_up and state.phase is Phase.TURN:
            self.set_up = True
            self.check_set_up(state)

    def check_set_up(self, state: TakeoverState) -> None:
        """Once, when play starts: a legal map (HT-3), full supply placed (HT-2), spawns (HT-4)."""
        assert state.tiles_placed == TILES
        assert map_problems(state.tiles, state.buildings, state.grid) == []
        sizes = Counter(b.size for b in state.buildings)
        assert sizes == SUPPLY
        assert all(b.owner is None for b in state.buildings)
        large = {c for b in state.buildings if b.size == "large" for c in b.cells}
        assert len(set(state.spawns)) == state.players
        for p, spawn in enumerate(state.spawns):
            assert spawn is not None and state.pawns[p] == spawn
            assert not any(n in large for n in state.grid.around[spawn]), "HT-4"
        assert state.current_player() == state.first


def play(options: dict[str, Any], rng: random.Random) -> tuple[TakeoverState, Watcher]:
    state = GAME.new_initial_state(options)
    assert isinstance(state, TakeoverState)
    watcher = Watcher(state)
    for _ in range(LIMIT):
        if state.is_terminal():
            break
        # As `random_step` does, keeping the action for the watcher.
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(outcomes, weights)[0]
        else:
            action = rng.choice(state.legal_actions())
        state.apply(action)
        watcher.after(state, action)
    return state, watcher


def _check_end(state: TakeoverState) -> None:
    """HT-6: one player left; the buildings' points plus the bonus; the top score wins."""
    assert state.is_terminal(), f"no end within {LIMIT} actions"
    alive = [p for p in range(state.players) if state.lives[p] > 0]
    assert len(alive) == 1
    expected = [state.score(p) for p in range(state.players)]
    expected[alive[0]] += LAST_PLAYER_BONUS
    assert state.final_scores == expected
    best = max(expected)
    assert state.winners == [p for p, s in enumerate(expected) if s == best]
    assert state.returns() == [1.0 if s == best else -1.0 for s in expected]


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant(players: int, half: int) -> None:
    """Every game keeps the invariants after each action, and ends within the bounds the rules
    set (`_check_bounds`)."""
    # Two halves of the games, so that pytest-xdist shares them between cores.
    rng = random.Random(f"takeover {players} players, half {half}")
    kinds: Counter[type[Action]] = Counter()
    for _ in range(GAMES // 2):
        state, watcher = play({"players": players}, rng)
        _check_end(state)
        _check_bounds(state, watcher, players)
        kinds += watcher.kinds
    # The random games reach the rare steps too: displaced pawns, claims and combat.
    assert kinds[Displace] > 0 and kinds[Claim] > 0 and kinds[Attack] > 0
    # On a legal map (HT-3) a pawn always has an empty cell beside it, so nobody ever passes.
    assert kinds[Pass] == 0


def _check_bounds(state: TakeoverState, watcher: Watcher, players: int) -> None:
    """Set-up takes exactly the decisions of HT-1, HT-2 and HT-4; play ends after 3 (n - 1) to
    3 (n - 1) + 2 lives lost (HT-6); and every game ends within LIMIT (see above)."""
    assert len(state.actions()) <= LIMIT
    decisions = [a for a in state.actions() if not isinstance(a, Roll)]
    set_up = [a for a in decisions if isinstance(a, PlaceTile | PlaceSmall | PlaceLarge)]
    spawns = [a for a in decisions if isinstance(a, PlaceSpawn)]
    assert len(set_up) == TILES + sum(SUPPLY.values()) and len(spawns) == players
    # Before them, rounds of rolls: everyone, then each tie among the tied alone.
    rounds = GAME.describe(state)["first_rolls"]
    assert sum(map(len, rounds)) == state.actions().index(decisions[0])
    assert len(rounds[0]) == players
    for before, after in itertools.pairwise(rounds):
        assert set(after) == {p for p, v in before.items() if v == max(before.values())}
    last = rounds[-1]
    assert [p for p, v in last.items() if v == max(last.values())] == [COLOURS[state.first]]
    assert 3 * (players - 1) <= watcher.lost <= 3 * (players - 1) + 2


def reference_places(state: TakeoverState) -> list[Action]:
    """Straight from HT-2 and HT-3, the slow way: each small, then each large building that the
    supply still holds, on empty tile cells, after which `map_problems` finds nothing."""
    grid = state.grid
    empty = state.empty_cells()
    found: list[Action] = []
    if state.supply["small"]:
        for c in sorted(empty):
            after = [*state.buildings, Building("small", (c,))]
            if not map_problems(state.tiles, after, grid):
                found.append(PlaceSmall(grid.names[c]))
    if state.supply["large"]:
        for c in sorted(empty):
            for other in (c + 1, c + grid.size):
                if other in empty and other in grid.edges[c]:
                    after = [*state.buildings, Building("large", (c, other))]
                    if not map_problems(state.tiles, after, grid):
                        found.append(PlaceLarge(grid.names[c], grid.names[other]))
    return found


def crowding_step(state: TakeoverState, rng: random.Random) -> None:
    """A set-up step that packs buildings where empty cells are fewest, making narrow passages
    (the hard cases for HT-3); any other step at random."""
    if state.phase is not Phase.BUILDINGS:
        random_step(state, rng)
        return
    empty = state.empty_cells()

    def room(action: Action) -> int:
        assert isinstance(action, PlaceSmall | PlaceLarge)
        cells = [action.cell] if isinstance(action, PlaceSmall) else [action.first, action.second]
        around = {n for c in cells for n in state.grid.around[state.grid.index[c]]}
        return len(around & empty)

    actions = state.legal_actions()
    fewest = min(map(room, actions))
    state.apply(rng.choice([a for a in actions if room(a) == fewest]))


def test_building_listing_matches_a_straightforward_reference() -> None:
    """HT-2, HT-3: at every building placement of random set-ups (some packed tight), the
    listing offers exactly the placements after which the map is still legal, in the same
    order: against `map_problems` run on the map after each candidate, and against the engine's
    own check of each placement by itself (`_building_fits`)."""
    rng = random.Random("takeover listing")
    positions = 0
    for game in range(120):
        state = GAME.new_initial_state({"players": 2 + game % 3})
        assert isinstance(state, TakeoverState)
        step = crowding_step if game % 2 else random_step
        while state.phase is not Phase.SPAWNS:
            if state.phase is Phase.BUILDINGS:
                listed = state.legal_actions()
                assert listed == state._building_places_one_by_one(state.empty_cells())
                if game % 6 == 0:
                    assert listed == reference_places(state)
                positions += 1
            step(state, rng)
        assert map_problems(state.tiles, state.buildings, state.grid) == []
    assert positions == 120 * sum(SUPPLY.values())


def test_a_drawn_building_placement_is_legal_and_as_likely_as_any_other() -> None:
    """Random play draws a building placement without listing them (`sample`): each draw is
    one the listing offers, and over many draws from one position every listed placement comes
    up about as often (a chi-square test against even odds, and none left out)."""
    rng = random.Random("takeover sample")
    for game in range(6):
        state = GAME.new_initial_state({"players": 2 + game % 3})
        assert isinstance(state, TakeoverState)
        while state.phase is not Phase.BUILDINGS:
            random_step(state, rng)
        for _ in range(3 + 3 * game % 10):  # positions further into set-up, with fewer places
            random_step(state, rng)
        counts = draws_evenly(state, rng, each=40)
        # Smalls and larges both come up in proportion to how many of each fit.
        smalls = sum(n for a, n in counts.items() if isinstance(a, PlaceSmall))
        listed = state.legal_actions()
        share = sum(isinstance(a, PlaceSmall) for a in listed) / len(listed)
        assert abs(smalls / counts.total() - share) < 0.05


def test_random_games_replay_from_their_history() -> None:
    rng = random.Random("takeover replay")
    for players in (2, 3, 4):
        state, _ = play({"players": players}, rng)
        again = GAME.replay(state.history(), state.options)
        assert _public(again) == _public(state)
        assert again.history() == state.history()


def _public(state: GameState) -> Any:
    return GAME.describe(state), GAME.layout(state), GAME.result(state)


def test_a_clone_plays_on_without_touching_the_original() -> None:
    rng = random.Random("takeover clone")
    for players in (2, 3, 4):
        state = GAME.new_initial_state({"players": players})
        while len(state.actions()) < 200:  # into play, past set-up
            random_step(state, rng)
        before = _public(state), state.history()
        copy = state.clone()
        while not copy.is_terminal():
            random_step(copy, rng)
        assert (_public(state), state.history()) == before
