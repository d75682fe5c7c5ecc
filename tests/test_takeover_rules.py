"""Hostile Takeover, rule by rule.

Each test cites its source: a clarification (HT-1 .. HT-6 in CLARIFICATIONS.md) or a short quote
of the rulebook (hostile-takeover.txt). Set-up is driven through the engine (`set_up` and the
drawn `BLOCK_MAP` of `takeover_play`); positions of play are drawn compactly as text and their
fields set directly, then checked for consistency (see `takeover_play`).

Seats: 0 red (R), 1 blue (B), 2 green (G), 3 yellow (Y); clockwise is the seat order.
"""

from __future__ import annotations

import doctest
import json
import random
from typing import Any

import pytest
from conftest import docstring_test
from takeover_play import (
    BLOCK_MAP,
    BLOCK_TILES,
    building,
    building_actions,
    cells_of,
    consistency_problems,
    drawn,
    first_rolls,
    ids,
    legal,
    neighbours,
    new_state,
    parse,
    pawn,
    play,
    position,
    rolls,
    rows,
    set_up,
    snapshot,
    spawn_actions,
)

from controller.rules.api import (
    CHANCE,
    TERMINAL,
    Action,
    DiceRequest,
    HistoryError,
    IllegalActionError,
)
from controller.rules.takeover import (
    COLOURS,
    D12,
    FULL_POINTS,
    GAME,
    LAST_PLAYER_BONUS,
    LIVES,
    SCORE,
    SUPPLY,
    TILES,
    Attack,
    Building,
    Claim,
    Displace,
    Grid,
    MapError,
    Move,
    Pass,
    Phase,
    PlaceLarge,
    PlaceSmall,
    PlaceSpawn,
    PlaceTile,
    Roll,
    TakeoverState,
    check_map,
    map_problems,
)
from controller.simulate import random_step

RED, BLUE, GREEN, YELLOW = range(4)
GRID = Grid(12)

# --- Helpers -------------------------------------------------------------------------------------


def names(cells: list[int]) -> list[str]:
    return [GRID.names[c] for c in cells]


def assert_refused(state: TakeoverState, action: Action) -> None:
    """The action raises IllegalActionError and leaves the state exactly as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


def tiles_phase(players: int = 2, first: int = 0) -> TakeoverState:
    state = new_state(players)
    play(state, first_rolls(first, players))
    assert state.phase is Phase.TILES
    return state


def buildings_phase(players: int = 2, first: int = 0) -> TakeoverState:
    state = tiles_phase(players, first)
    play(state, [PlaceTile(c) for c in BLOCK_TILES])
    assert state.phase is Phase.BUILDINGS
    return state


def problems_of(board: str) -> list[str]:
    """`map_problems` of a drawn map, as cell names."""
    drawing = parse(board)
    built = [Building(kind, cells) for kind, cells in drawing.buildings]
    return names(map_problems(drawing.tiles, built, GRID))


def walled(board: str) -> list[list[str]]:
    """The cells of each drawn building that touches no empty tile cell."""
    drawing = parse(board)
    empty = drawing.tiles - {c for _, cells in drawing.buildings for c in cells}
    return [
        names(list(cells))
        for _, cells in drawing.buildings
        if not any(n in empty for c in cells for n in GRID.around[c])
    ]


def with_building(state: TakeoverState, kind: str, cells: tuple[int, ...]) -> list[int]:
    """`map_problems` of the state's map with one more building."""
    built = [*state.buildings, Building(kind, cells)]
    return map_problems(state.tiles, built, state.grid)


def roll_claim(state: TakeoverState, at: str, value: int) -> None:
    play(state, Claim(building(state, at)), Roll(value))


def fight(state: TakeoverState, target: int, attack: int, defend: int) -> None:
    play(state, Attack(COLOURS[target]), Roll(attack), Roll(defend))


# --- Set-up: the first player --------------------------------------------------------------------


def test_setup_every_player_rolls_a_d12_for_the_first_player_in_seat_order() -> None:
    """Rulebook "they roll to determine the first player": each player's d12, a chance node."""
    state = new_state(3)
    for roller, value in zip((RED, BLUE, GREEN), (4, 9, 2), strict=True):
        assert state.current_player() == CHANCE
        assert state.roller() == roller
        assert state.legal_actions() == []
        assert GAME.dice_wanted(state) == DiceRequest("d12", 1, D12)
        odds = state.chance_outcomes()
        assert [a for a, _ in odds] == [Roll(v) for v in range(1, 13)]
        assert all(p == pytest.approx(1 / 12) for _, p in odds)
        state.apply(Roll(value))
    assert state.phase is Phase.TILES
    assert state.first == BLUE


def test_setup_the_highest_roller_places_the_first_tile() -> None:
    """Rulebook "they roll to determine the first player, who places the first tile"."""
    state = play(new_state(4), rolls(3, 5, 11, 7))
    assert state.phase is Phase.TILES
    assert state.first == GREEN
    assert state.current_player() == GREEN
    assert GAME.dice_wanted(state) is None


def test_setup_the_tied_highest_rollers_roll_again_among_themselves() -> None:
    """Rulebook "they roll to determine the first player": a tie for the highest is rolled
    again by the tied players only, as often as needed."""
    state = play(new_state(4), rolls(7, 11, 11, 2))
    assert state.phase is Phase.FIRST_ROLL
    assert state.roller() == BLUE
    play(state, Roll(9))
    assert state.roller() == GREEN  # red and yellow, below 11, do not roll again
    play(state, Roll(9))  # tied again
    assert state.phase is Phase.FIRST_ROLL
    assert state.roller() == BLUE
    play(state, Roll(1))
    assert state.roller() == GREEN
    play(state, Roll(2))
    assert state.phase is Phase.TILES
    assert state.first == GREEN
    assert state.current_player() == GREEN


def test_setup_when_every_player_ties_everyone_rolls_again() -> None:
    state = play(new_state(2), rolls(6, 6))
    assert state.phase is Phase.FIRST_ROLL
    assert state.roller() == RED
    play(state, rolls(2, 12))
    assert state.first == BLUE


# --- HT-1 The map --------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "first"), [(2, 1), (3, 2), (4, 2)])
def test_ht1_tiles_are_placed_clockwise_from_the_first_player(players: int, first: int) -> None:
    """Rulebook "Starting clockwise from the first player, each player places a tile"; HT-1
    "20 tiles of 2x2 cells"."""
    state = tiles_phase(players, first)
    for k, corner in enumerate(BLOCK_TILES):
        assert state.phase is Phase.TILES
        assert state.current_player() == (first + k) % players
        assert state.tiles_placed == k
        play(state, PlaceTile(corner))
    assert state.tiles_placed == TILES == 20
    assert len(state.tiles) == 4 * TILES
    assert state.phase is Phase.BUILDINGS


def test_ht1_a_tile_covers_2x2_cells_from_its_top_left_corner() -> None:
    """HT-1 "tiles of 2x2 cells" on "a square grid of cells"."""
    state = play(tiles_phase(), PlaceTile("r4c7"))
    assert names(sorted(state.tiles)) == ["r4c7", "r4c8", "r5c7", "r5c8"]


def test_ht1_the_first_tile_may_go_anywhere_it_fits_on_the_grid() -> None:
    """HT-1: only tiles after the first must touch one already placed."""
    state = tiles_phase()
    size = state.grid.size
    expected = {f"r{r}c{c}" for r in range(size - 1) for c in range(size - 1)}
    assert cells_of(state, PlaceTile) == expected
    assert len(expected) == 121


def test_ht1_a_tile_must_share_a_cell_edge_with_a_placed_tile() -> None:
    """HT-1 "Each placed tile must share at least one cell edge with a tile already placed";
    rulebook "with at least one square touching another tile". Touching at a corner only does
    not count, and tiles do not overlap."""
    state = play(tiles_phase(), PlaceTile("r4c4"))  # cells r4c4, r4c5, r5c4, r5c5
    above = {f"r2c{c}" for c in (3, 4, 5)}
    below = {f"r6c{c}" for c in (3, 4, 5)}
    left = {f"r{r}c2" for r in (3, 4, 5)}
    right = {f"r{r}c6" for r in (3, 4, 5)}
    assert cells_of(state, PlaceTile) == above | below | left | right
    for corner_only in ("r2c2", "r2c6", "r6c2", "r6c6"):
        assert_refused(state, PlaceTile(corner_only))
    for overlapping in ("r4c4", "r3c3", "r5c5", "r4c3", "r3c4"):
        assert_refused(state, PlaceTile(overlapping))
    assert_refused(state, PlaceTile("r0c0"))  # not touching at all
    play(state, PlaceTile("r2c5"))  # one cell edge in common (r3c5 above r4c5) is enough
    assert len(state.tiles) == 8


def test_ht1_a_tile_off_the_grid_is_refused() -> None:
    """HT-1 "a square grid of cells": a tile cannot hang over its edge."""
    state = tiles_phase()
    for corner in ("r11c0", "r0c11", "r11c11", "r12c0", "r-1c0", "nowhere"):
        assert_refused(state, PlaceTile(corner))
    play(state, PlaceTile("r10c10"))  # the last corner that fits
    assert_refused(state, PlaceTile("r10c11"))


def test_ht1_exactly_20_tiles_are_placed_then_the_buildings_follow() -> None:
    """Rulebook "Once all 20 tiles have been placed"."""
    state = tiles_phase()
    play(state, [PlaceTile(c) for c in BLOCK_TILES[:-1]])
    assert state.phase is Phase.TILES
    play(state, PlaceTile(BLOCK_TILES[-1]))
    assert state.phase is Phase.BUILDINGS
    assert_refused(state, PlaceTile("r8c0"))
    assert not legal(state, PlaceTile)


def test_ht1_holes_are_allowed_in_the_map() -> None:
    """Rulebook "Holes are allowed in the board"; HT-1 "Cells not covered by a tile are holes":
    a ring of tiles around a hole is a map."""
    state = tiles_phase()
    ring = ["r0c0", "r0c2", "r0c4", "r2c4", "r4c4", "r4c2", "r4c0", "r2c0"]
    play(state, [PlaceTile(c) for c in ring])
    assert drawn(state) == rows(
        """
        oooooo
        oooooo
        oo..oo
        oo..oo
        oooooo
        oooooo
        """
    )
    assert map_problems(state.tiles, [], state.grid) == []


def test_ht1_holes_are_impassable() -> None:
    """HT-1 "holes are impassable"; rulebook "Holes ... are impassable in game play"."""
    state = position(
        """
        o o . . B
        o R . . o
        o o o o o
        """
    )
    assert cells_of(state, Move) == {"r0c0", "r0c1", "r1c0", "r2c0", "r2c1", "r2c2"}
    assert_refused(state, Move("r1c2"))
    assert_refused(state, Move("r0c2"))


@pytest.mark.parametrize("size", [10, 11])
def test_ht1_grids_too_small_for_20_tiles_are_refused(size: int) -> None:
    """HT-1 "The map is built ... from 20 tiles": on grids under 12x12, tiles placed as HT-1
    allows can leave no room for the rest, and set-up would have no legal action."""
    with pytest.raises(ValueError, match=f"option 'size' must be 12 to 16 cells, not {size}"):
        new_state(2, size=size)


# --- HT-2 Buildings ------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "first"), [(2, 0), (3, 1), (4, 1), (4, 3)])
def test_ht2_the_last_tile_placer_places_the_first_building_then_counter_clockwise(
    players: int, first: int
) -> None:
    """Rulebook "the last player to place a tile places the first unclaimed building, moving
    counter-clockwise for each player around the map"."""
    state = buildings_phase(players, first)
    last_tiler = (first + TILES - 1) % players
    for k, action in enumerate(building_actions(BLOCK_MAP)):
        assert state.phase is Phase.BUILDINGS
        assert state.current_player() == (last_tiler - k) % players
        play(state, action)
    assert state.phase is Phase.SPAWNS


def test_ht2_10_small_and_5_large_unclaimed_buildings_at_full_points() -> None:
    """HT-2 "At set-up, 10 small and 5 large unclaimed buildings are placed"; "A small building
    has 10 points; a large building has 25"."""
    assert SUPPLY == {"small": 10, "large": 5}
    assert FULL_POINTS == {"small": 10, "large": 25}
    state = set_up(2)
    assert drawn(state) == rows(BLOCK_MAP).replace("G", "o").replace("Y", "o")
    sizes = [b.size for b in state.buildings]
    assert sizes.count("small") == 10 and sizes.count("large") == 5
    assert all(b.owner is None for b in state.buildings)
    assert all(b.points == FULL_POINTS[b.size] for b in state.buildings)
    assert state.supply == {"small": 0, "large": 0}


def test_ht2_the_supply_limits_each_size() -> None:
    """HT-2 "10 small and 5 large": once one size is spent only the other is offered, and set-up
    moves on to the spawns after the 15th."""
    board = """
        oooooo
        oooooo
        oooooo
        oooooo
    """
    only_large = position(board, phase=Phase.BUILDINGS, supply={"small": 0, "large": 1})
    assert legal(only_large, PlaceLarge) and not legal(only_large, PlaceSmall)
    assert_refused(only_large, PlaceSmall("r0c0"))
    only_small = position(board, phase=Phase.BUILDINGS, supply={"small": 1, "large": 0})
    assert legal(only_small, PlaceSmall) and not legal(only_small, PlaceLarge)
    assert_refused(only_small, PlaceLarge("r0c0", "r0c1"))
    play(only_small, PlaceSmall("r1c1"))
    assert only_small.supply == {"small": 0, "large": 0}
    assert only_small.phase is Phase.SPAWNS


def test_ht2_the_supply_counts_down_during_set_up() -> None:
    state = buildings_phase()
    for action in building_actions(BLOCK_MAP):
        before = dict(state.supply)
        play(state, action)
        kind = "small" if isinstance(action, PlaceSmall) else "large"
        assert state.supply[kind] == before[kind] - 1
        assert state.buildings[-1].size == kind
        assert state.buildings[-1].owner is None
        assert state.buildings[-1].points == FULL_POINTS[kind]


def test_ht2_a_small_building_covers_one_empty_tile_cell() -> None:
    """HT-2 "A small building covers 1 cell"; rulebook "laid in the middle of a square on a
    tile": not on a hole, nor on another building."""
    state = position(
        """
        o o o o . .
        o s o o . .
        o o o o o o
        o o o o o o
        """,
        phase=Phase.BUILDINGS,
    )
    play(state.clone(), PlaceSmall("r2c4"))
    assert_refused(state, PlaceSmall("r0c4"))  # a hole
    assert_refused(state, PlaceSmall("r1c1"))  # a building
    assert_refused(state, PlaceSmall("r9c9"))  # a hole far off
    assert_refused(state, PlaceSmall("nowhere"))
    assert {"r0c4", "r0c5", "r1c1"}.isdisjoint(cells_of(state, PlaceSmall))


def test_ht2_a_large_building_covers_two_cells_that_share_an_edge() -> None:
    """HT-2 "A large building covers 2 cells that share an edge"; rulebook "large buildings are
    laid across two squares". Each pair is listed once: `second` right of or below `first`."""
    state = position(
        """
        o o o o . .
        o s o o . .
        o o o o o o
        o o o o o o
        """,
        phase=Phase.BUILDINGS,
    )
    play(state.clone(), PlaceLarge("r2c2", "r2c3"))  # side by side
    play(state.clone(), PlaceLarge("r2c2", "r3c2"))  # one above the other
    for bad in (
        PlaceLarge("r2c2", "r3c3"),  # diagonal: a corner, not an edge
        PlaceLarge("r2c2", "r2c4"),  # apart
        PlaceLarge("r0c3", "r0c4"),  # half on a hole
        PlaceLarge("r0c1", "r1c1"),  # half on a building
        PlaceLarge("r2c2", "nowhere"),
        PlaceLarge("nowhere", "r2c2"),
    ):
        assert_refused(state, bad)
    pairs = [(a.first, a.second) for a in legal(state, PlaceLarge)]
    assert len(pairs) == len(set(pairs))
    for first, second in pairs:
        a, b = state.grid.index[first], state.grid.index[second]
        assert b in (a + 1, a + state.grid.size)
        assert b in state.grid.edges[a]


def test_ht2_a_large_building_named_from_either_cell_is_the_same_building() -> None:
    """HT-2: a large building covers two cells, whichever is named first. The legal actions
    list it once, top or left cell first; the other way round is accepted and recorded in the
    listed form, so that both play and replay alike."""
    board = """
        o o o o . .
        o s o o . .
        o o o o o o
        o o o o o o
    """
    listed = position(board, phase=Phase.BUILDINGS)
    turned = position(board, phase=Phase.BUILDINGS)
    assert PlaceLarge("r2c2", "r2c3") in listed.legal_actions()
    assert PlaceLarge("r2c3", "r2c2") not in listed.legal_actions()
    assert turned.canonical(PlaceLarge("r2c3", "r2c2")) == PlaceLarge("r2c2", "r2c3")
    assert turned.canonical(PlaceLarge("r3c2", "r2c2")) == PlaceLarge("r2c2", "r3c2")
    assert turned.is_legal(PlaceLarge("r2c3", "r2c2"))
    play(listed, PlaceLarge("r2c2", "r2c3"))
    play(turned, PlaceLarge("r2c3", "r2c2"))
    assert snapshot(turned) == snapshot(listed)
    assert turned.history() == [{"type": "PlaceLarge", "first": "r2c2", "second": "r2c3"}]
    assert turned.buildings[-1].cells == (26, 27)
    # A child, which skips the checks, lays the same building too.
    child = position(board, phase=Phase.BUILDINGS).child(PlaceLarge("r3c2", "r2c2"))
    assert child.buildings[-1].cells == (26, 38)
    # Unknown names and pairs that share no edge are refused either way round.
    for bad in (PlaceLarge("r3c3", "r2c2"), PlaceLarge("nowhere", "r2c2")):
        assert_refused(position(board, phase=Phase.BUILDINGS), bad)


def test_ht2_a_large_building_named_backwards_replays() -> None:
    """HT-2: a saved history that names a large building from its second cell still replays."""
    state = new_state(2)
    play(state, first_rolls(0, 2))
    play(state, [PlaceTile(c) for c in BLOCK_TILES])
    actions = building_actions(BLOCK_MAP)
    turned = [PlaceLarge(a.second, a.first) if isinstance(a, PlaceLarge) else a for a in actions]
    history = [*state.history(), *(a.to_json() for a in turned)]
    replayed = GAME.replay(history, state.options)
    play(state, actions)
    assert snapshot(replayed) == snapshot(state)


# --- HT-3 A legal map ----------------------------------------------------------------------------


def test_ht3_map_problems_is_empty_for_legal_maps() -> None:
    """HT-3: one 8-connected region of empty cells, every building touching one of them."""
    assert problems_of(BLOCK_MAP) == []
    state = set_up(4)
    assert map_problems(state.tiles, state.buildings, state.grid) == []
    # Diagonal contact is enough, both for the region and for a building.
    diagonal_wall = """
        o o s o
        o s o o
        s o o o
    """
    corner_to_corner = """
        o o . .
        o o . .
        . . o o
        . . o o
    """
    building_at_a_corner = """
        o . .
        . s .
        . . .
    """
    for board in (diagonal_wall, corner_to_corner, building_at_a_corner):
        assert problems_of(board) == [], board


def test_ht3_a_second_region_of_empty_cells_is_named() -> None:
    """HT-3 "All empty tile cells form one 8-connected region"; "its first offending cells are
    named": the cells outside the first region (the one holding the first empty cell)."""
    assert problems_of(
        """
        o o s o o
        o o s o o
        """
    ) == ["r0c3", "r0c4", "r1c3", "r1c4"]
    assert problems_of(
        """
        o o L o o o
        o o L s o .
        . . . . s o
        """
    ) == ["r0c3", "r0c4", "r0c5", "r1c4", "r2c5"]


def test_ht3_a_building_touching_no_empty_cell_is_named() -> None:
    """HT-3 "Every building touches at least one empty tile cell, in any of its 8 directions":
    the first (in placement order) that does not is named, by its cells."""
    assert problems_of(
        """
        o o o o o
        o s s s o
        o s L s o
        o s L s o
        o s s s o
        o o o o o
        """
    ) == ["r2c2", "r3c2"]
    assert problems_of(
        """
        s s o o
        s . o o
        """
    ) == ["r0c0"]


def test_ht3_the_rulebooks_first_illegal_layout_two_inaccessible_buildings() -> None:
    """Rulebook "This layout is illegal because there are two buildings that are completely
    inaccessible" (reconstructed: two small buildings walled in by others). The first is
    named."""
    board = """
        o o o o o o
        o L L L L o
        o s s s s o
        o L L L L o
        o o o o o o
    """
    assert walled(board) == [["r2c2"], ["r2c3"]]
    assert problems_of(board) == ["r2c2"]


def test_ht3_the_rulebooks_second_illegal_layout_a_player_cut_off() -> None:
    """Rulebook "This layout is illegal because a player (blue) is unable to proceed around the
    board" (reconstructed: large buildings across the only link leave blue's corner apart)."""
    board = """
        o o . . o o
        R o . . o B
        o o L L o o
        o o L L o o
    """
    blue_corner = ["r0c4", "r0c5", "r1c4", "r1c5", "r2c4", "r2c5", "r3c4", "r3c5"]
    assert problems_of(board) == blue_corner
    state = position(board, legal_map=False)
    assert cells_of(state, Move) == {"r0c0", "r0c1", "r1c1", "r2c0", "r2c1"}
    play(state, Move("r1c1"))
    assert cells_of(state, Move) == {"r0c4", "r0c5", "r1c4", "r2c4", "r2c5"}  # never out


def test_ht3_a_split_is_named_before_a_walled_in_building() -> None:
    """HT-3 "its first offending cells": the region check comes first."""
    assert problems_of(
        """
        s s o s o
        s s o s o
        """
    ) == ["r0c4", "r1c4"]


def test_ht3_a_placement_that_would_split_the_empty_cells_is_not_offered() -> None:
    """HT-3 "An illegal layout is refused" at each placement: the empty cells stay one
    8-connected region. A diagonal link keeps them together."""
    state = position(
        """
        o o o o o o
        o o o o o o
        """,
        phase=Phase.BUILDINGS,
    )
    assert ("r0c2", "r1c2") not in {(a.first, a.second) for a in legal(state, PlaceLarge)}
    assert_refused(state, PlaceLarge("r0c2", "r1c2"))
    play(state, PlaceSmall("r0c2"))
    assert "r1c2" not in cells_of(state, PlaceSmall)
    assert_refused(state, PlaceSmall("r1c2"))
    assert "r1c3" in cells_of(state, PlaceSmall)  # r1c2 and r0c3 still touch at a corner
    play(state, PlaceSmall("r1c3"))
    assert map_problems(state.tiles, state.buildings, state.grid) == []


def test_ht3_a_placement_that_would_wall_in_a_building_is_not_offered() -> None:
    """HT-3 "Every building touches at least one empty tile cell": a placement taking the last
    empty cell around a building is refused."""
    state = position(
        """
        s s o o
        s o o o
        o o o o
        o o o o
        """,
        phase=Phase.BUILDINGS,
    )
    assert "r1c1" not in cells_of(state, PlaceSmall)
    assert_refused(state, PlaceSmall("r1c1"))
    assert_refused(state, PlaceLarge("r1c1", "r1c2"))
    assert_refused(state, PlaceLarge("r1c1", "r2c1"))
    assert {"r0c2", "r2c2", "r3c3"} <= cells_of(state, PlaceSmall)
    large = position(
        """
        L L s o
        s s o o
        o o o o
        """,
        phase=Phase.BUILDINGS,
    )
    assert_refused(large, PlaceSmall("r1c2"))  # r1c2 is the large building's last empty cell
    assert_refused(large, PlaceLarge("r1c2", "r1c3"))
    assert_refused(large, PlaceLarge("r1c2", "r2c2"))
    play(large.clone(), PlaceSmall("r0c3"))  # r0c2 still touches r1c2 and r1c3
    play(large, PlaceSmall("r2c0"))


def test_ht3_a_new_building_must_itself_touch_an_empty_cell() -> None:
    """HT-3 "Every building touches at least one empty tile cell": the last empty cell of a map
    is never built on."""
    state = position(
        """
        s o
        s s
        """,
        phase=Phase.BUILDINGS,
    )
    assert_refused(state, PlaceSmall("r0c1"))
    pair = position(
        """
        s o o s
        """,
        phase=Phase.BUILDINGS,
    )
    assert_refused(pair, PlaceLarge("r0c1", "r0c2"))


def test_ht3_the_placements_offered_are_exactly_those_that_keep_the_map_legal() -> None:
    """HT-3 "An illegal layout is refused": in random set-ups, at each building placement, a
    placement on empty cells is offered exactly when `map_problems` finds nothing after it."""
    rng = random.Random("takeover ht3")
    for players in (2, 3, 4):
        state = new_state(players)
        while state.phase is not Phase.SPAWNS:
            if state.phase is Phase.BUILDINGS:
                empty = state.empty_cells()
                offered = set(ids(state))
                small, large = (state.supply[k] > 0 for k in ("small", "large"))
                for c in sorted(empty):
                    action: Action = PlaceSmall(state.grid.names[c])
                    fits = small and not with_building(state, "small", (c,))
                    assert (action.id in offered) == fits, action
                    for other in (c + 1, c + state.grid.size):
                        if other in empty and other in state.grid.edges[c]:
                            action = PlaceLarge(state.grid.names[c], state.grid.names[other])
                            fits = large and not with_building(state, "large", (c, other))
                            assert (action.id in offered) == fits, action
            random_step(state, rng)
        assert map_problems(state.tiles, state.buildings, state.grid) == []


def plain(board: str) -> tuple[list[str], list[list[str]]]:
    """A drawn map as plain values: the names of its tile cells and of each building's cells."""
    drawing = parse(board)
    return names(sorted(drawing.tiles)), [names(list(cells)) for _, cells in drawing.buildings]


HT3_BOARDS = [
    BLOCK_MAP,
    """
    o o s o
    o s o o
    s o o o
    """,
    """
    o o s o o
    o o s o o
    """,
    """
    o o L o o o
    o o L s o .
    . . . . s o
    """,
    """
    o o o o o o
    o L L L L o
    o s s s s o
    o L L L L o
    o o o o o o
    """,
    """
    s s o s o
    s s o s o
    """,
    """
    s s o o
    s . o o
    """,
]


@pytest.mark.parametrize("board", HT3_BOARDS, ids=range(len(HT3_BOARDS)))
def test_ht3_check_map_takes_a_map_as_plain_values(board: str) -> None:
    """HT-3 on a map given as names, with no state and no sensed layout: the same first
    offending cells as `map_problems`."""
    tiles, buildings = plain(board)
    assert check_map(tiles, buildings) == problems_of(board)
    # The order of a building's cells and of the tiles does not matter.
    turned = [list(reversed(cells)) for cells in buildings]
    assert check_map(reversed(tiles), turned) == problems_of(board)


def test_ht3_check_map_docstring_examples_run() -> None:
    test = docstring_test("controller.rules.takeover", "check_map")
    result = doctest.DocTestRunner().run(test)
    assert result.attempted > 0 and result.failed == 0


def test_ht3_check_map_on_random_set_ups_and_a_bigger_grid() -> None:
    """HT-3: every map that random set-ups build is legal by `check_map` too; HT-1 lets a bigger
    grid be named by its size."""
    rng = random.Random("takeover check_map")
    for players in (2, 4):
        state = new_state(players, size=14)
        while state.phase is not Phase.SPAWNS:
            random_step(state, rng)
        tiles = [state.grid.names[c] for c in state.tiles]
        buildings = [[state.grid.names[c] for c in b.cells] for b in state.buildings]
        assert check_map(tiles, buildings, size=14) == []
        # Walled in: a building on every empty cell around the first building is named.
        first = state.buildings[0]
        around = {n for c in first.cells for n in state.grid.around[c]} & state.empty_cells()
        walls = [[state.grid.names[c]] for c in sorted(around)]
        assert check_map(tiles, [*buildings, *walls], size=14) != []


@pytest.mark.parametrize(
    ("tiles", "buildings", "size", "message"),
    [
        (["r0c0", "r12c0"], [], 12, "'r12c0' is no cell of the 12x12 grid"),
        (["r0c0", "nowhere"], [], 12, "'nowhere' is no cell"),
        (["r0c0", "r0c1"], [["r0c1", "r0c0", "r0c1"]], 12, "2 sharing an edge (HT-2)"),
        (["r0c0", "r1c1"], [["r0c0", "r1c1"]], 12, "2 sharing an edge (HT-2)"),
        (["r0c0", "r0c2"], [["r0c0", "r0c2"]], 12, "2 sharing an edge (HT-2)"),
        (["r0c0"], [[]], 12, "2 sharing an edge (HT-2)"),
        (["r0c0"], [["r0c1"]], 12, "building 0 is off the tiles at r0c1"),
        (["r0c0", "r0c1"], [["r0c0"], ["r0c1", "r0c0"]], 12, "buildings 0 and 1 both cover r0c0"),
        (["r0c0"], ["r0c0"], 12, "a list of cell names"),
        (["r0c0"], [], 10, "12 to 16 cells a side"),
    ],
)
def test_ht3_check_map_refuses_a_description_that_is_no_map(
    tiles: list[str], buildings: list[Any], size: int, message: str
) -> None:
    with pytest.raises(MapError) as raised:
        check_map(tiles, buildings, size)
    assert message in str(raised.value)


def test_ht3_building_listing_matches_the_one_by_one_check_on_hand_drawn_maps() -> None:
    """HT-3: the listing, worked out on the whole map at once, offers what checking each
    placement by itself offers, on the drawn maps of these tests (legal or not), and on the
    same tiles with no building yet."""
    for board in HT3_BOARDS:
        bare = "\n".join(
            "".join(ch if ch == "." else "o" for ch in line.replace(" ", ""))
            for line in board.strip().splitlines()
        )
        for text in (board, bare):
            state = position(text, players=4, phase=Phase.BUILDINGS, legal_map=False, supply=SUPPLY)
            expected = state._building_places_one_by_one(state.empty_cells())
            assert state.legal_actions() == expected, text


# --- HT-4 Spawns ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "first"), [(2, 1), (3, 2), (4, 2)])
def test_ht4_spawns_are_placed_from_the_first_player_clockwise(players: int, first: int) -> None:
    """Rulebook "Starting from the first player again, each player will place their spawn
    point"; "When each player places their spawn, they put their pawn on top of it. Then the
    game begins" (with the first player, HT-5)."""
    state = buildings_phase(players, first)
    play(state, building_actions(BLOCK_MAP))
    spawns = spawn_actions(BLOCK_MAP, first, players)
    for k, action in enumerate(spawns):
        assert state.phase is Phase.SPAWNS
        placer = (first + k) % players
        assert state.current_player() == placer
        play(state, action)
        assert isinstance(action, PlaceSpawn)
        assert state.spawns[placer] == state.pawns[placer] == state.grid.index[action.cell]
    assert state.phase is Phase.TURN
    assert state.current_player() == first
    assert state.turn == 1
    assert consistency_problems(state) == []


SPAWN_BOARD = """
    s o o o .
    o o o L .
    o o o L o
    o o o o o
"""


def test_ht4_a_spawn_may_touch_small_buildings_but_no_large_one() -> None:
    """HT-4 "The spawn may touch small buildings"; "No large building may lie within its 8
    neighbouring cells"; rulebook "must be at least one square away from large buildings"."""
    state = position(SPAWN_BOARD, phase=Phase.SPAWNS)
    touching_small = {"r0c1", "r1c0", "r1c1"}
    assert cells_of(state, PlaceSpawn) == touching_small | {"r2c0", "r2c1", "r3c0", "r3c1"}
    for near_large in ("r0c2", "r1c2", "r2c2", "r3c2"):  # beside the large building
        assert_refused(state, PlaceSpawn(near_large))
    for diagonal in ("r0c3", "r3c4"):  # at a corner: "8 neighbouring cells"
        assert_refused(state, PlaceSpawn(diagonal))
    for beside in ("r2c4", "r3c3"):
        assert_refused(state, PlaceSpawn(beside))
    play(state, PlaceSpawn("r0c1"))
    assert pawn(state, RED) == "r0c1"  # HT-4 "The pawn starts on the spawn"


def test_ht4_a_spawn_is_on_an_empty_tile_cell_not_on_another_spawn() -> None:
    """HT-4 "Each player places a spawn on an empty tile cell": not a hole, not a building, and
    (a pawn standing on it) not another player's spawn."""
    state = position(SPAWN_BOARD, phase=Phase.SPAWNS, players=3, to_move=BLUE, spawns={RED: "r2c0"})
    assert pawn(state, RED) == "r2c0"
    assert "r2c0" not in cells_of(state, PlaceSpawn)
    for bad in ("r2c0", "r0c0", "r1c3", "r0c4", "r5c5", "nowhere"):
        assert_refused(state, PlaceSpawn(bad))
    play(state, PlaceSpawn("r3c0"))
    assert state.current_player() == GREEN


# --- HT-5 A turn ---------------------------------------------------------------------------------


def test_ht5_play_starts_with_the_first_player_and_goes_clockwise_one_action_each() -> None:
    """Rulebook "Starting with the first player and going clockwise, each player can either
    move their pawn one space, attempt to claim a building, or declare combat"; HT-5 "A turn:
    exactly one action"."""
    state = set_up(4, first=GREEN)
    order = []
    for _ in range(8):
        order.append(state.current_player())
        turn = state.turn
        play(state, legal(state, Move)[0])
        assert state.turn == turn + 1
    assert order == [GREEN, YELLOW, RED, BLUE] * 2


OPEN = """
    o o o o o
    o o o o o
    o o R o o
    o o o o o
    o o o o B
"""


def test_ht5_a_pawn_moves_to_any_of_its_8_neighbours() -> None:
    """HT-5 "Move to one of the 8 neighbouring cells"; rulebook "Players can move in any of the
    8 spaces around them" and "move their pawn one space"."""
    state = position(OPEN)
    assert cells_of(state, Move) == neighbours(state, "r2c2")
    assert len(cells_of(state, Move)) == 8
    for far in ("r0c0", "r2c4", "r4c2", "r0c2"):
        assert_refused(state, Move(far))
    play(state, Move("r1c3"))
    assert pawn(state, RED) == "r1c3"
    assert state.spawns[RED] == state.grid.index["r2c2"]  # the spawn stays where it was
    assert state.current_player() == BLUE


def test_ht5_a_move_stays_on_the_grid() -> None:
    state = position(OPEN.replace("R", "o").replace("o", "R", 1))
    assert cells_of(state, Move) == {"r0c1", "r1c0", "r1c1"}


def test_ht5_no_move_onto_a_hole_a_building_or_another_pawn() -> None:
    """HT-5 "an empty tile cell with no pawn"; rulebook "no player is allowed to occupy the
    same space as another player, nor can they occupy a building space"."""
    state = position(
        """
        . s o R
        L r b o
        L o . o
        o o o B
        """
    )
    assert cells_of(state, Move) == {"r0c2", "r2c1"}
    for bad in ("r0c0", "r0c1", "r1c0", "r2c0", "r1c2", "r2c2", "r1c1"):
        assert_refused(state, Move(bad))


def test_ht5_a_pawn_may_stand_on_another_players_spawn() -> None:
    """HT-4 / HT-5: a spawn is an empty tile cell, so any pawn may stand on it (the rulebook's
    "If another player happens to currently be on a losing player's spawn point")."""
    state = position(
        """
        o o o o
        o R B o
        o o b o
        """,
    )
    assert "r1c2" in cells_of(state, Move)
    play(state, Move("r1c2"))
    assert pawn(state, RED) == "r1c2"


MOVE_AROUND = """
    o o o o o o
    o r L L o o
    o o o o o o
    R o o o o B
"""


def test_ht5_a_pawn_touching_its_own_building_may_move_to_any_empty_cell_touching_it() -> None:
    """HT-5 "When the pawn touches (8 directions) a building that the player has already claimed,
    the pawn may move to any empty cell touching that building"; rulebook "If a player is
    attempting to move around a building they already claimed, they can move to any space that
    building touches"."""
    state = position(MOVE_AROUND, owners={"r1c2": RED})
    around = {"r0c1", "r0c2", "r0c3", "r0c4", "r1c4", "r2c1", "r2c2", "r2c3", "r2c4"}
    one_step = {"r0c0", "r0c1", "r0c2", "r1c0", "r2c0", "r2c1", "r2c2"}
    assert cells_of(state, Move) == around | one_step
    play(state, Move("r1c4"))  # round to the far side in one turn
    assert pawn(state, RED) == "r1c4"


def test_ht5_moving_around_needs_the_building_to_be_ones_own() -> None:
    """HT-5 "a building that the player has already claimed": not an unclaimed one, nor
    another player's."""
    one_step = {"r0c0", "r0c1", "r0c2", "r1c0", "r2c0", "r2c1", "r2c2"}
    assert cells_of(position(MOVE_AROUND), Move) == one_step
    assert cells_of(position(MOVE_AROUND, owners={"r1c2": BLUE}), Move) == one_step
    state = position(MOVE_AROUND, owners={"r1c2": BLUE})
    assert_refused(state, Move("r1c4"))


def test_ht5_moving_around_needs_the_pawn_to_touch_the_building_diagonals_included() -> None:
    """HT-5 "When the pawn touches (8 directions)"."""
    elsewhere = MOVE_AROUND.replace("r", "o")
    diagonal = position(elsewhere, pawns={RED: "r0c4"}, owners={"r1c2": RED})
    assert "r2c1" in cells_of(diagonal, Move)  # touching r1c3 at a corner is enough
    apart = position(elsewhere, pawns={RED: "r0c5"}, owners={"r1c2": RED})
    assert cells_of(apart, Move) == {"r0c4", "r1c4", "r1c5"}


def test_ht5_moving_around_goes_only_to_free_empty_cells() -> None:
    """HT-5 "any empty cell touching that building", and no pawn's cell (rulebook "no player is
    allowed to occupy the same space as another player"). Holes and buildings stay out."""
    state = position(
        """
        o o o . o o
        o o s L L o
        o b r o s o
        R o o o o B
        """,
        owners={"r1c3": RED},
    )
    around = {"r0c2", "r0c4", "r0c5", "r1c5", "r2c3", "r2c5"}
    one_step = {"r1c1", "r2c3", "r3c1", "r3c2", "r3c3"}
    assert cells_of(state, Move) == around | one_step
    # Not r0c3 (a hole), r2c4 and r1c2 (unclaimed buildings), r2c1 (blue's pawn), nor r0c1,
    # which touches only the unclaimed small building.


def test_ht5_moving_around_a_small_building_of_ones_own() -> None:
    state = position(
        """
        o o o
        R s o
        o o o
        o o B
        """,
        owners={"r1c1": RED},
    )
    assert cells_of(state, Move) == {"r0c0", "r0c1", "r0c2", "r1c2", "r2c0", "r2c1", "r2c2"}


CLAIMS = """
    o s o o o L
    o o r o o L
    s o o L L o
    o o o o o o
    R o o o B o
"""


def test_ht5_claims_are_offered_for_touching_buildings_that_are_not_ones_own() -> None:
    """HT-5 "When the pawn touches a building that is not the player's own"; rulebook "When a
    player's pawn is adjacent to a building, they can attempt to claim it"."""
    state = position(CLAIMS)
    touching = {building(state, at) for at in ("r0c1", "r2c3")}  # r2c3 at a corner
    assert {a.building for a in legal(state, Claim)} == touching
    for far in ("r2c0", "r0c5"):
        assert_refused(state, Claim(building(state, far)))
    assert_refused(state, Claim(99))
    owned = position(CLAIMS, owners={"r0c1": RED, "r2c3": BLUE})
    assert [a.building for a in legal(owned, Claim)] == [building(owned, "r2c3")]
    assert_refused(owned, Claim(building(owned, "r0c1")))


def test_ht5_a_claim_rolls_the_claimers_d12_and_takes_that_many_points_off() -> None:
    """HT-5 "the player rolls their d12 and takes that many points off the building"; rulebook
    "Claiming is based on die rolls, with one roll per turn"."""
    state = position(CLAIMS)
    k = building(state, "r0c1")
    play(state, Claim(k))
    assert state.current_player() == CHANCE
    assert state.roller() == RED
    assert GAME.dice_wanted(state) == DiceRequest("d12", 1, D12)
    play(state, Roll(7))
    assert state.buildings[k].points == 3
    assert state.buildings[k].owner is None
    assert state.current_player() == BLUE  # one roll, and the turn is over
    large = building(state, "r2c3")
    play(state, Move("r3c4"), Claim(large), Roll(12))
    assert state.buildings[large].points == 13


def test_ht5_damage_stays_on_a_building_between_attempts_by_anyone() -> None:
    """HT-5 "Damage stays on a building between attempts, by anyone"; rulebook "Whoever strikes
    last claims first, making each building a race to the roll"."""
    state = position(
        """
        o o o o
        o R s B
        o o o o
        """
    )
    k = building(state, "r1c2")
    roll_claim(state, "r1c2", 4)
    assert state.buildings[k].points == 6
    roll_claim(state, "r1c2", 5)  # blue goes on from red's damage
    assert state.buildings[k].points == 1
    assert state.buildings[k].owner is None
    roll_claim(state, "r1c2", 1)  # red strikes last
    assert state.buildings[k].owner == RED
    assert state.buildings[k].points == FULL_POINTS["small"]


@pytest.mark.parametrize(("left", "roll"), [(3, 3), (3, 12), (1, 1), (10, 12)])
def test_ht5_at_zero_or_below_the_building_becomes_the_claimers_at_full_points(
    left: int, roll: int
) -> None:
    """HT-5 "At 0 points, the building becomes the player's, at full points"; rulebook "When a
    building reaches zero points, it is replaced by the player's matching building with full
    points" (a roll beyond the points left claims it too)."""
    state = position(CLAIMS, points={"r0c1": left})
    roll_claim(state, "r0c1", roll)
    k = building(state, "r0c1")
    assert state.buildings[k].owner == RED
    assert state.buildings[k].points == FULL_POINTS["small"] == 10
    assert state.score(RED) == SCORE["small"]


def test_ht5_a_large_building_is_claimed_at_25_points() -> None:
    state = position(CLAIMS, points={"r2c3": 2})
    roll_claim(state, "r2c3", 2)
    k = building(state, "r2c3")
    assert (state.buildings[k].owner, state.buildings[k].points) == (RED, 25)
    assert state.score(RED) == SCORE["large"] == 3


def test_ht5_a_building_one_point_short_is_not_claimed() -> None:
    state = position(CLAIMS, points={"r0c1": 5})
    roll_claim(state, "r0c1", 4)
    k = building(state, "r0c1")
    assert (state.buildings[k].owner, state.buildings[k].points) == (None, 1)


def test_ht5_another_players_building_can_be_stolen() -> None:
    """Rulebook "Building claims aren't permanent either; each building can be stolen by other
    players as well"; HT-5 "a building that is not the player's own" (claimed at full points,
    so a theft starts from 10 or 25)."""
    state = position(CLAIMS, owners={"r0c1": BLUE})
    k = building(state, "r0c1")
    assert state.score(BLUE) == 1
    roll_claim(state, "r0c1", 6)
    assert (state.buildings[k].owner, state.buildings[k].points) == (BLUE, 4)
    play(state, Move("r3c5"))  # blue, away
    roll_claim(state, "r0c1", 4)
    assert (state.buildings[k].owner, state.buildings[k].points) == (RED, 10)
    assert (state.score(RED), state.score(BLUE)) == (1, 0)
    play(state, Move("r2c5"))  # blue
    assert_refused(state, Claim(k))  # now red's own


def test_ht5_combat_is_declared_only_on_a_touching_pawn() -> None:
    """HT-5 "When the pawn touches another pawn"; rulebook "If two players happen to be adjacent
    to each other, they can enter combat"."""
    state = position(
        """
        o o o o o o
        o R o g o o
        o o b o o o
        o o o o o o
        B G o o o Y
        """,
        players=4,
        pawns={YELLOW: "r0c0"},
    )
    assert sorted(a.target for a in legal(state, Attack)) == ["blue", "yellow"]  # diagonals
    assert_refused(state, Attack("green"))  # two cells away
    assert_refused(state, Attack("red"))
    assert_refused(state, Attack("purple"))


COMBAT = """
    R o o o o o
    o o o o o o
    o o r b o o
    o o o o o o
    o o o o o B
"""


def test_ht5_combat_rolls_the_attackers_d12_then_the_defenders() -> None:
    """HT-5 "both players roll their d12"; rulebook "a player declares they are attacking
    another player, then each player rolls their dice"."""
    state = position(COMBAT)
    play(state, Attack("blue"))
    assert (state.current_player(), state.roller()) == (CHANCE, RED)
    play(state, Roll(5))
    assert (state.current_player(), state.roller()) == (CHANCE, BLUE)
    assert GAME.dice_wanted(state) == DiceRequest("d12", 1, D12)
    play(state, Roll(4))
    assert GAME.describe(state)["last_combat"] == {
        "attacker": "red",
        "defender": "blue",
        "rolls": [5, 4],
        "outcome": "attacker_won",  # HT-5: the higher roll wins
    }


def test_ht5_an_attacker_who_wins_takes_the_defenders_cell() -> None:
    """HT-5 "An attacker who wins takes the defender's cell"; "The lower roll loses a life, and
    their pawn goes back to its spawn"; rulebook "If the high roll is the attacking player, they
    take the spot of the defending player"."""
    state = position(COMBAT)
    fight(state, BLUE, 9, 4)
    assert pawn(state, RED) == "r2c3"
    assert pawn(state, BLUE) == "r4c5"  # back on its spawn
    assert state.lives == [LIVES, LIVES - 1]
    assert state.current_player() == BLUE


def test_ht5_a_defender_who_wins_stays_and_the_attacker_goes_back_to_spawn() -> None:
    """HT-5 "The lower roll loses a life, and their pawn goes back to its spawn"; rulebook "the
    defending player stays in place if they win"."""
    state = position(COMBAT)
    fight(state, BLUE, 3, 10)
    assert pawn(state, BLUE) == "r2c3"
    assert pawn(state, RED) == "r0c0"
    assert state.lives == [LIVES - 1, LIVES]
    assert state.current_player() == BLUE


def test_ht5_a_tie_changes_nothing() -> None:
    """HT-5 "A tie changes nothing"; rulebook "on the rare chance of a tie occurring, neither
    player does anything" (the attacker's turn is spent)."""
    state = position(COMBAT)
    before = (list(state.pawns), list(state.lives), drawn(state))
    fight(state, BLUE, 6, 6)
    assert (list(state.pawns), list(state.lives), drawn(state)) == before
    assert state.current_player() == BLUE
    assert state.phase is Phase.TURN


DISPLACE = """
    R o o o o o
    o o o o o o
    o o r b o o
    o o o o o o
    o o o o B o
    G o o o o o
"""


def test_ht5_a_pawn_on_the_losers_spawn_moves_to_a_free_neighbouring_cell_of_its_choice() -> None:
    """HT-5 "A pawn standing on the loser's spawn moves to a free neighbouring cell of its
    owner's choice"; rulebook "If another player happens to currently be on a losing player's
    spawn point, the player occupying the spawn must move to an adjacent square"."""
    state = position(DISPLACE, players=3, pawns={GREEN: "r4c4"})
    fight(state, BLUE, 12, 1)
    assert state.phase is Phase.DISPLACE
    assert state.current_player() == GREEN  # the owner of the pawn chooses
    assert pawn(state, BLUE) is None  # waiting for its spawn
    assert GAME.describe(state)["returning"] == "blue"
    assert GAME.describe(state)["to_move"] == "green"
    assert cells_of(state, Displace) == neighbours(state, "r4c4")
    for bad in ("r4c4", "r2c3", "r0c0", "r2c2"):
        assert_refused(state, Displace(bad))
    assert_refused(state, Move("r3c3"))
    play(state, Displace("r5c5"))
    assert pawn(state, GREEN) == "r5c5"
    assert pawn(state, BLUE) == "r4c4"
    assert pawn(state, RED) == "r2c3"
    assert state.lives == [3, 2, 3]
    assert state.current_player() == BLUE  # the turn goes on after the attacker's
    assert consistency_problems(state) == []


def test_ht5_the_displaced_pawn_avoids_other_pawns() -> None:
    state = position(DISPLACE, players=3, pawns={GREEN: "r4c4", RED: "r3c3", BLUE: "r3c4"})
    fight(state, BLUE, 12, 1)
    assert cells_of(state, Displace) == neighbours(state, "r4c4") - {"r3c4"}  # red's new cell
    assert "r3c3" in cells_of(state, Displace)  # red's old cell is free now


def test_ht5_an_attacker_who_wins_onto_the_defenders_own_spawn_steps_aside() -> None:
    """HT-5: the attacker takes the defender's cell, which is the defender's spawn; the
    defender goes back to it, so the attacker, standing on the loser's spawn, moves aside."""
    state = position(
        """
        R o o o
        o r B o
        o o o o
        """
    )
    fight(state, BLUE, 8, 2)
    assert state.phase is Phase.DISPLACE
    assert state.current_player() == RED
    assert pawn(state, RED) == "r1c2"
    assert "r1c1" in cells_of(state, Displace)  # where red came from
    play(state, Displace("r2c3"))
    assert (pawn(state, RED), pawn(state, BLUE)) == ("r2c3", "r1c2")
    assert state.current_player() == BLUE


def test_ht5_a_defender_who_wins_on_the_attackers_spawn_steps_aside() -> None:
    """HT-5 "A pawn standing on the loser's spawn moves": here the winning defender."""
    state = position(
        """
        R o o o
        o r o o
        o o o B
        """,
        pawns={BLUE: "r0c0"},
    )
    fight(state, BLUE, 2, 8)
    assert state.phase is Phase.DISPLACE
    assert state.current_player() == BLUE
    assert cells_of(state, Displace) == {"r0c1", "r1c0", "r1c1"}
    play(state, Displace("r0c1"))
    assert (pawn(state, RED), pawn(state, BLUE)) == ("r0c0", "r0c1")
    assert state.lives == [2, 3]
    assert state.current_player() == BLUE


def test_ht5_a_displaced_pawn_with_no_free_neighbour_still_moves() -> None:
    """Beyond the rules: when no neighbouring cell of the spawn is free, the engine offers other
    free cells, so the game never stalls."""
    state = position(
        """
        s s o o o
        R r b o o
        s s o o B
        G o o o o
        """,
        players=3,
        pawns={GREEN: "r1c0"},
        to_move=BLUE,
    )
    fight(state, RED, 12, 1)  # blue takes r1c1, the last free cell beside red's spawn
    assert state.phase is Phase.DISPLACE
    assert state.current_player() == GREEN
    offered = cells_of(state, Displace)
    assert offered
    free = state.empty_cells() - {c for c in state.pawns if c is not None}
    assert offered <= {state.grid.names[c] for c in free}
    play(state, Displace(sorted(offered)[0]))
    assert pawn(state, RED) == "r1c0"
    assert state.current_player() == GREEN
    assert consistency_problems(state) == []


def test_ht5_pass_only_when_nothing_else_is_possible() -> None:
    """A turn is one action; a pawn that can neither move, claim nor fight passes. On a legal
    map (HT-3) a pawn always has a neighbouring empty cell, so only an illegal map shows it."""
    state = position(
        """
        . . . . o o
        . R s b o B
        . . . . o o
        """,
        owners={"r1c2": RED},
        legal_map=False,
    )
    assert [a.id for a in state.legal_actions()] == ["pass"]
    play(state, Pass())
    assert state.current_player() == BLUE
    assert pawn(state, RED) == "r1c1"
    open_state = position(OPEN)
    assert_refused(open_state, Pass())
    assert "pass" not in ids(open_state)


# --- HT-6 Lives and the end ----------------------------------------------------------------------


def test_ht6_each_player_has_3_lives() -> None:
    """HT-6 "Each player has 3 lives"; rulebook "Each player has 3 lives before they're out"."""
    assert LIVES == 3
    assert set_up(4).lives == [3, 3, 3, 3]
    assert GAME.describe(set_up(2))["lives"] == {"red": 3, "blue": 3}


OUT = """
    R o o o o o
    o o o o o s
    o o r b o o
    o o o o o o
    o o o o o B
    G o o s o o
"""


def test_ht6_a_player_with_no_lives_is_out_their_pawn_leaves_their_buildings_stay() -> None:
    """HT-6 "A player with none is out: their pawn leaves the map, and their buildings stay
    theirs"; rulebook "just because they're out doesn't mean they lose. Any claimed buildings
    stay claimed by that player"."""
    state = position(OUT, players=3, lives=[3, 1, 3], owners={"r1c5": BLUE, "r5c3": BLUE})
    fight(state, BLUE, 11, 3)
    assert state.lives == [3, 0, 3]
    assert pawn(state, BLUE) is None
    assert pawn(state, RED) == "r2c3"
    assert state.phase is Phase.TURN  # no trip back to spawn
    assert [b.owner for b in state.buildings] == [BLUE, BLUE]
    assert state.score(BLUE) == 2
    assert BLUE not in state.alive()
    assert consistency_problems(state) == []


def test_ht6_out_players_are_skipped() -> None:
    """HT-6 "A player with none is out": the turns go round the others."""
    state = position(OUT, players=3, lives=[3, 1, 3])
    fight(state, BLUE, 11, 3)
    order = []
    for _ in range(4):
        order.append(state.current_player())
        play(state, legal(state, Move)[0])
    assert order == [GREEN, RED, GREEN, RED]


def test_ht6_an_out_player_is_not_sent_back_and_moves_no_pawn_off_its_spawn() -> None:
    state = position(OUT, players=3, lives=[3, 1, 3], pawns={GREEN: "r4c5"})
    fight(state, BLUE, 11, 3)
    assert state.phase is Phase.TURN
    assert pawn(state, GREEN) == "r4c5"


def test_ht6_an_attacker_can_lose_their_last_life() -> None:
    state = position(OUT, players=3, lives=[1, 3, 3])
    fight(state, BLUE, 2, 9)
    assert state.lives == [0, 3, 3]
    assert pawn(state, RED) is None
    assert state.current_player() == BLUE


def test_ht6_the_game_ends_when_one_player_remains() -> None:
    """HT-6 "The game ends when one player remains"; rulebook "When only one player remains,
    the game is over"."""
    state = position(OUT, players=3, lives=[3, 1, 1], pawns={GREEN: "r3c3"})
    fight(state, BLUE, 11, 3)
    assert not state.is_terminal()
    assert state.current_player() == GREEN
    fight(state, RED, 1, 12)  # green attacks red and loses its last life
    assert state.lives == [3, 0, 0]
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.alive() == [RED]
    assert state.legal_actions() == []
    assert state.chance_outcomes() == []
    assert_refused(state, Pass())
    assert GAME.dice_wanted(state) is None


def test_ht6_returns_are_zero_while_the_game_goes_on() -> None:
    assert set_up(3).returns() == [0.0, 0.0, 0.0]


WORKED = """
    L L o s o s o
    o o o o o o o
    L L o s o s o
    o o o o o o o
    L L o s o s o
    o o o o o o o
    s o r b o o B
    R o o o o o o
"""
RED_BUILDINGS = ("r0c0", "r2c0", "r0c3", "r0c5", "r2c3", "r2c5", "r4c3")
BLUE_BUILDINGS = ("r4c0", "r4c5", "r6c0")


def test_ht6_the_rulebooks_worked_example_11_beats_10_with_the_bonus() -> None:
    """Rulebook "one player has 2 large buildings and 5 small buildings, they would have 11
    points, while another player has 1 large building, 2 small buildings, and was the last
    remaining player, they would have 10 points. Being the last remaining player won't always
    guarantee a victory"; HT-6 "A large building scores 3, a small one 1, and the last player
    remaining scores +5. Highest score wins"."""
    owners = dict.fromkeys(RED_BUILDINGS, RED) | dict.fromkeys(BLUE_BUILDINGS, BLUE)
    state = position(WORKED, lives=[1, 2], owners=owners)
    assert (state.score(RED), state.score(BLUE)) == (2 * 3 + 5 * 1, 1 * 3 + 2 * 1)
    fight(state, BLUE, 1, 12)  # red attacks and loses its last life
    assert state.is_terminal()
    assert state.final_scores == [11, 10]
    assert state.winners == [RED]
    assert state.returns() == [1.0, -1.0]
    assert GAME.result(state) == {
        "winners": ["red"],
        "returns": [1.0, -1.0],
        "scores": {"red": 11, "blue": 10},
        "last_remaining": "blue",
    }
    assert (SCORE, LAST_PLAYER_BONUS) == ({"small": 1, "large": 3}, 5)


def test_ht6_the_last_player_remaining_scores_5_and_can_win_with_it() -> None:
    owners = dict.fromkeys(RED_BUILDINGS[:2], RED) | dict.fromkeys(BLUE_BUILDINGS, BLUE)
    state = position(WORKED, lives=[1, 2], owners=owners)
    fight(state, BLUE, 1, 12)
    assert state.final_scores == [6, 10]
    assert state.winners == [BLUE]
    assert state.returns() == [-1.0, 1.0]


def test_ht6_tied_top_scores_share_the_win_and_unclaimed_buildings_score_nothing() -> None:
    """HT-6 "Highest score wins": two players level at the top both win."""
    owners = dict.fromkeys(RED_BUILDINGS[2:], RED)
    state = position(WORKED, players=3, lives=[1, 3, 0], owners=owners, spawns={GREEN: "r7c6"})
    fight(state, BLUE, 1, 12)
    assert state.final_scores == [5, 5, 0]
    assert state.winners == [RED, BLUE]
    assert state.returns() == [1.0, 1.0, -1.0]


def test_ht6_out_players_buildings_still_score() -> None:
    """HT-6 "their buildings stay theirs" and count at the end."""
    owners = dict.fromkeys(BLUE_BUILDINGS, BLUE)
    owners[RED_BUILDINGS[0]] = GREEN
    state = position(WORKED, players=3, lives=[2, 1, 0], owners=owners, spawns={GREEN: "r7c6"})
    fight(state, BLUE, 12, 1)
    assert state.final_scores == [5, 5, 3]
    assert state.winners == [RED, BLUE]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ht6_2_to_4_players(players: int) -> None:
    """HT-6 "2-4 players"."""
    state = set_up(players)
    assert state.num_players == players
    assert [state.player_name(p) for p in range(players)] == list(COLOURS[:players])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "2 to 4 players, not 1"),
        ({"players": 5}, "2 to 4 players, not 5"),
        ({"size": 9}, "option 'size' must be 12 to 16 cells, not 9"),
        ({"size": 17}, "option 'size' must be 12 to 16 cells, not 17"),
        ({"players": "3"}, "option 'players' for takeover must be int"),
        ({"size": 12.0}, "option 'size' for takeover must be int"),
        ({"colours": 3}, "unknown option 'colours' for takeover"),
    ],
)
def test_bad_options_are_refused_clearly(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GAME.new_initial_state(options)


@pytest.mark.parametrize("size", [12, 16])
def test_the_grid_size_option_within_its_range(size: int) -> None:
    state = new_state(2, size=size)
    assert state.grid.size == size
    assert GAME.new_initial_state().options == {"players": 2, "size": 12}


# --- Illegal actions, dice, replay -------------------------------------------------------------


def at_each_phase() -> dict[str, TakeoverState]:
    tiles = tiles_phase()
    builds = buildings_phase()
    spawns = play(buildings_phase(), building_actions(BLOCK_MAP))
    turn = position(COMBAT)
    claim = play(position(CLAIMS), Claim(0))
    attack = play(position(COMBAT), Attack("blue"))
    defend = play(position(COMBAT), Attack("blue"), Roll(3))
    displace = position(DISPLACE, players=3, pawns={GREEN: "r4c4"})
    fight(displace, BLUE, 12, 1)
    return {
        "first roll": new_state(),
        "tiles": tiles,
        "buildings": builds,
        "spawns": spawns,
        "turn": turn,
        "claim roll": claim,
        "attack roll": attack,
        "defend roll": defend,
        "displace": displace,
    }


BAD: list[Action] = [
    Roll(0),
    Roll(13),
    PlaceTile("r11c11"),
    PlaceSmall("r20c0"),
    PlaceLarge("r0c0", "r1c1"),
    PlaceSpawn("r11c11"),
    Move("r11c11"),
    Claim(-1),
    Attack("nobody"),
    Displace("r11c11"),
]


@pytest.mark.parametrize("where", list(at_each_phase()))
def test_an_illegal_action_raises_and_changes_nothing(where: str) -> None:
    """The API: "an illegal one raises and changes nothing", in every phase."""
    state = at_each_phase()[where]
    for action in BAD:
        assert_refused(state, action)
    if state.is_chance_node():
        assert_refused(state, Pass())
        assert_refused(state, Move("r0c1"))
    else:
        assert_refused(state, Roll(5))
    with pytest.raises(HistoryError):  # True == 1, but it is no d12's roll
        GAME.action_from_json({"type": "Roll", "value": True})


def test_actions_out_of_their_phase_are_refused() -> None:
    phases = at_each_phase()
    assert_refused(phases["tiles"], PlaceSmall("r0c0"))
    assert_refused(phases["buildings"], PlaceTile("r8c0"))
    assert_refused(phases["buildings"], PlaceSpawn("r0c0"))
    assert_refused(phases["spawns"], PlaceSmall("r0c0"))
    assert_refused(phases["turn"], PlaceSpawn("r1c1"))
    assert_refused(phases["turn"], Displace("r1c1"))
    assert_refused(phases["displace"], Move("r3c3"))
    assert_refused(phases["displace"], Attack("red"))


def test_nothing_is_played_after_the_end() -> None:
    state = position(COMBAT, lives=[3, 1])
    fight(state, BLUE, 11, 3)
    assert state.is_terminal()
    for action in (Pass(), Move("r2c2"), Roll(3)):
        assert_refused(state, action)


def test_dice_actions_read_one_d12_for_whoever_rolls() -> None:
    """The table reads the roller's d12 at each chance node (first player, claim, combat)."""
    for state in (new_state(), play(position(CLAIMS), Claim(0))):
        assert GAME.dice_actions(state, [7]) == [Roll(7)]
        assert GAME.dice_actions(state, [12]) == [Roll(12)]


@pytest.mark.parametrize("reading", [[], [3, 4], [0], [13], ["6"], ["x"], [True]])
def test_dice_actions_refuse_a_reading_that_is_not_one_d12(reading: list[int | str]) -> None:
    with pytest.raises(IllegalActionError, match="d12 is wanted: one face, 1 to 12"):
        GAME.dice_actions(new_state(), reading)


def test_dice_actions_refuse_a_roll_when_none_is_expected() -> None:
    for state in (tiles_phase(), play(buildings_phase(), building_actions(BLOCK_MAP))):
        assert GAME.dice_wanted(state) is None
        with pytest.raises(IllegalActionError, match="no d12 roll is expected now"):
            GAME.dice_actions(state, [6])
    state = position(OPEN)  # a turn with nothing to claim or fight: no roll means anything
    assert GAME.dice_wanted(state) is None
    with pytest.raises(IllegalActionError):
        GAME.dice_actions(state, [6])


def random_game(options: dict[str, Any], seed: int) -> TakeoverState:
    rng = random.Random(seed)
    state = GAME.new_initial_state(options)
    assert isinstance(state, TakeoverState)
    while not state.is_terminal():
        random_step(state, rng)
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_replay_of_a_history_gives_the_same_state(players: int) -> None:
    """The history is the save format: replaying its JSON gives the same game."""
    state = random_game({"players": players}, seed=players)
    history = json.loads(json.dumps(state.history()))
    again = GAME.replay(history, state.options)
    assert isinstance(again, TakeoverState)
    assert snapshot(again) == snapshot(state)
    assert GAME.result(again) == GAME.result(state)
    assert GAME.layout(again) == GAME.layout(state)
    half = GAME.replay(history[: len(history) // 2], state.options)
    assert half.history() == history[: len(history) // 2]


def test_replay_refuses_a_history_that_does_not_play() -> None:
    state = set_up(2)
    history = state.history()
    bad_large = {"type": "PlaceLarge", "first": "r0c0", "second": "nowhere"}
    for broken in (
        [*history[:2], {"type": "PlaceTile", "cell": "r11c11"}],
        [*history[:22], bad_large],
        [*history, {"type": "Move", "cell": "r9c9"}],
        [{"type": "Roll", "value": "12"}],
    ):
        with pytest.raises(HistoryError):
            GAME.replay(broken, state.options)


def test_a_clone_is_independent() -> None:
    state = position(CLAIMS, owners={"r0c1": BLUE})
    before = snapshot(state)
    copy = state.clone()
    roll_claim(copy, "r0c1", 12)
    play(copy, Move("r3c5"))
    assert snapshot(state) == before
    assert state.buildings[0].owner == BLUE and copy.buildings[0].owner == RED


def test_drawn_positions_are_checked_for_consistency() -> None:
    """The helpers refuse a drawn position the rules could not reach."""
    with pytest.raises(AssertionError, match="HT-4"):
        position("R L L o")  # a spawn beside a large building
    with pytest.raises(AssertionError, match="HT-3"):
        position("R o s o B")  # two regions
    with pytest.raises(AssertionError, match="out but still has a pawn"):
        position("R o o B", lives=[3, 0], pawns={BLUE: "r0c3"})
    with pytest.raises(AssertionError, match="two pawns"):
        position("R o o B", pawns={BLUE: "r0c0"})
    with pytest.raises(ValueError, match="lone large"):
        parse("o L o")
    assert parse(rows(BLOCK_MAP)).buildings == parse(BLOCK_MAP).buildings
