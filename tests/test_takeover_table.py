"""Hostile Takeover on the table: layout, lights, the board profile, the session, the daemon.

The rules themselves are tested in test_takeover_rules.py; here the generic table machinery meets
them. Rule ids (HT-1 .. HT-6, CLARIFICATIONS.md) are cited where the behaviour depends on one.

Most tests start from one hand-built set-up (`set_up`): red rolls 12 and goes first; 20 tiles
cover rows 0-7 and columns 0-9; the 15 unclaimed buildings are SMALL and LARGE below; then each
player places a spawn with their pawn on it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from conftest import QUICK_CAMERA, fast_sim_config, wait_for
from daemon_run import call, serving
from table_session import roles_of, session_over

from controller import cli
from controller.config import load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.lights import render, role_colour, shown_roles
from controller.rules.api import CAMERA, PRESENT, REED, DiceRequest, IllegalActionError, Layout
from controller.rules.takeover import (
    COLOURS,
    D12,
    GAME,
    Attack,
    Claim,
    Move,
    Phase,
    PlaceLarge,
    PlaceSmall,
    PlaceSpawn,
    PlaceTile,
    Roll,
    TakeoverState,
)
from controller.rules.words import action_text
from controller.session import Session, View, describe_state
from controller.simulate import random_step
from controller.terminal import draw
from hardware.profile import Channel, builtin_profile_path, load_profile

PALETTE = load_config(None).palette
PROFILE = load_profile(builtin_profile_path("takeover"), GAME.spots())

TILE_CORNERS = [f"r{2 * i}c{2 * j}" for i in range(4) for j in range(5)]  # rows 0-7, cols 0-9
SMALL = ["r0c1", "r1c0", "r0c5", "r0c9", "r7c0", "r7c3", "r7c6", "r7c9", "r3c5", "r5c5"]
LARGE = [("r4c7", "r4c8"), ("r5c0", "r6c0"), ("r6c3", "r6c4"), ("r2c8", "r3c8"), ("r4c2", "r4c3")]
# Red two cells left of blue, for combat; red cornered at r0c0 (one cell to go to, two claims).
APART = ["r1c3", "r1c5"]
CORNERED = ["r0c0", "r1c5"]


# -- helpers ----------------------------------------------------------------------------------


def first_roll(players: int = 2) -> TakeoverState:
    """Red rolls 12, the others 1: red places the first tile."""
    state = GAME.new_initial_state({"players": players})
    assert isinstance(state, TakeoverState)
    for value in (12, *[1] * (players - 1)):
        state.apply(Roll(value))
    return state


def set_up(
    spawns: Sequence[str] | None = APART, buildings: int = len(SMALL) + len(LARGE)
) -> TakeoverState:
    """The map of the module docstring, its first `buildings` buildings, then the spawns."""
    state = first_roll(len(spawns or APART))
    for corner in TILE_CORNERS:
        state.apply(PlaceTile(corner))
    placements = [PlaceSmall(c) for c in SMALL] + [PlaceLarge(a, b) for a, b in LARGE]
    for action in placements[:buildings]:
        state.apply(action)
    if buildings == len(placements) and spawns is not None:
        for cell in spawns:
            state.apply(PlaceSpawn(cell))
    return state


def start_session(tmp_path: Path, state: TakeoverState, settle: float = 1.0) -> Session:
    return session_over(GAME, tmp_path, state, settle)


def moved(layout: Layout, source: str, target: str) -> Layout:
    """The layout with the piece on `source` moved to `target`."""
    after = {s: t for s, t in layout.items() if s != source}
    after[target] = layout[source]
    return after


def with_map(layout: Layout, **cells: str) -> Layout:
    """The layout with camera tokens laid on cells: with_map(layout, r4c4="small:none")."""
    return {**layout, **{f"{cell}.map": token for cell, token in cells.items()}}


def tile_at(corner: str) -> dict[str, str]:
    r, c = (int(n) for n in corner[1:].split("c"))
    return {f"r{r + dr}c{c + dc}": "tile" for dr in (0, 1) for dc in (0, 1)}


def led(spot: str) -> int:
    (index,) = PROFILE.spots[spot].leds
    return index


# -- what the sensors see ---------------------------------------------------------------------


def test_layout_reeds_feel_pawns_and_the_camera_sees_tiles_buildings_and_spawns() -> None:
    state = set_up()
    layout = GAME.layout(state)
    # Reeds: only the two pawns, each on its spawn (HT-4), as PRESENT.
    assert {s: t for s, t in layout.items() if "." not in s} == {"r1c3": PRESENT, "r1c5": PRESENT}
    assert layout["r1c3.map"] == "spawn:red" and layout["r1c5.map"] == "spawn:blue"
    assert layout["r1c4.map"] == "tile"
    assert layout["r0c1.map"] == layout["r5c5.map"] == "small:none"
    assert layout["r4c7.map"] == layout["r4c8.map"] == "large:none"
    assert "r8c0.map" not in layout and "r0c10.map" not in layout  # holes: nothing seen
    assert len([s for s in layout if s.endswith(".map")]) == 80  # 20 tiles of 4 cells (HT-1)
    # A claimed building shows its new owner's colour (HT-5).
    state.buildings[10].owner = 0  # the large building on r4c7, r4c8
    state.buildings[0].owner = 1
    layout = GAME.layout(state)
    assert layout["r4c7.map"] == layout["r4c8.map"] == "large:red"
    assert layout["r0c1.map"] == "small:blue"


def test_layout_moves_with_the_pawn() -> None:
    state = set_up()
    before = GAME.layout(state)
    state.apply(Move("r2c4"))
    assert GAME.layout(state) == moved(before, "r1c3", "r2c4")


def test_spots_are_a_reed_and_a_camera_spot_for_each_of_144_cells() -> None:
    spots = GAME.spots()
    assert len(spots) == 288
    assert spots["r0c0"] == spots["r11c11"] == REED
    assert spots["r0c0.map"] == spots["r11c11.map"] == CAMERA
    rows = GAME.board_rows()
    assert len(rows) == 12 and all(len(row) == 12 for row in rows)
    assert rows[0][0] == "r0c0" and rows[3][7] == "r3c7" and rows[11][11] == "r11c11"


# -- the board profile ------------------------------------------------------------------------


def test_builtin_profile_gives_each_cell_a_reed_an_led_and_a_camera_region() -> None:
    assert PROFILE.game == "takeover" and len(PROFILE.spots) == 288
    assert PROFILE.pull_up and PROFILE.table_size_mm == (400.0, 400.0)
    reeds = PROFILE.reed_channels()
    assert len(reeds) == 144 and all("." not in spot for spot in reeds)
    # Nine MCP23017s (gpiochip2..10), 16 lines each, cells in reading order (the header).
    assert sorted(reeds.values()) == [
        Channel(chip, line) for chip in range(2, 11) for line in range(16)
    ]
    assert reeds["r0c0"] == Channel(2, 0) and reeds["r1c3"] == Channel(2, 15)
    assert reeds["r1c4"] == Channel(3, 0) and reeds["r11c11"] == Channel(10, 15)
    regions = PROFILE.camera_regions()
    assert set(regions) == {f"{cell}.map" for row in GAME.board_rows() for cell in row}
    for r in range(12):
        for c in range(12):
            # 30 mm cells inside a 20 mm margin; one LED a cell, in a serpentine.
            assert tuple(regions[f"r{r}c{c}.map"]) == (20 + 30 * c, 20 + 30 * r, 30, 30)
            assert PROFILE.spots[f"r{r}c{c}"].leds == (12 * r + (c if r % 2 == 0 else 11 - c),)
            assert PROFILE.spots[f"r{r}c{c}.map"].leds == ()  # lit through the cell's LED
    assert PROFILE.led_count == 144


# -- the lights -------------------------------------------------------------------------------


def test_lights_show_buildings_by_owner_and_points_spawns_and_the_pawn_to_move() -> None:
    state = set_up()
    state.buildings[0].points = 4  # small on r0c1, damaged: 4 of 10 left
    state.buildings[10].owner, state.buildings[10].points = 1, 25  # large r4c7, r4c8: blue's
    state.buildings[11].points = 5  # large r5c0, r6c0: 5 of 25
    roles = GAME.lights(state)
    assert roles["r0c1"] == "white@0.40"
    assert roles["r4c7"] == roles["r4c8"] == "blue@1.00"
    assert roles["r5c0"] == roles["r6c0"] == "white@0.20"
    assert roles["r7c9"] == "white@1.00"
    assert roles["r1c5"] == "blue@0.25"  # a spawn, dim in its owner's colour
    assert roles["r1c3"] == "red"  # red's pawn, to move, on its spawn
    assert "r1c4" not in roles and "r10c10" not in roles
    # A building left with no points would vanish: it keeps the dimmest light.
    state.buildings[0].points = 0
    assert GAME.lights(state)["r0c1"] == "white@0.10"


def test_lights_show_the_pawns_in_reach_as_targets_and_the_spawn_of_a_player_out() -> None:
    state = set_up()
    state.apply(Move("r1c4"))  # red now touches blue's pawn
    roles = GAME.lights(state)
    assert roles["r1c5"] == "blue" and roles["r1c4"] == "target"  # blue to move, may attack red
    state.apply(Attack("red"))
    state.apply(Roll(4))
    roles = GAME.lights(state)
    assert roles["r1c4"] == roles["r1c5"] == "target"  # in combat until the defender rolls
    state.lives[0] = 0  # HT-6: red is out, its pawn leaves the map
    state.pawns[0] = None
    assert GAME.lights(state)["r1c3"] == "out"


def test_every_light_role_of_random_games_is_in_the_palette() -> None:
    used: set[str] = set()
    for seed, players in enumerate((2, 3, 4)):
        rng = random.Random(seed)
        state = GAME.new_initial_state({"players": players})
        while not state.is_terminal():
            random_step(state, rng)
            roles = GAME.lights(state)
            assert set(roles) <= set(GAME.spots())
            used.update(roles.values())
    names = {role.partition("@")[0] for role in used}
    assert {"white", "red", "blue", "green", "yellow", "target", "out"} <= names
    for role in used:
        _, _, level = role.partition("@")
        assert not level or 0 < float(level) <= 1, role
    assert names | {"legal", "landing", "changed", "fix", "candidate"} <= set(PALETTE)


def test_a_role_at_a_level_is_its_palette_colour_scaled() -> None:
    palette = {"red": (250, 0, 10), "white": (192, 192, 192)}
    assert role_colour("red", palette) == (250, 0, 10)
    assert role_colour("red@0.40", palette) == (100, 0, 4)
    assert role_colour("white@0.25", palette) == (48, 48, 48)
    assert role_colour("red@1.70", palette) == (250, 0, 10)  # clamped to full
    assert role_colour("red@dim", palette) == (250, 0, 10)  # not a number: full
    assert role_colour("nothing@0.50", palette) == (128, 128, 128)  # unknown: white, scaled


def test_render_scales_levels_and_lights_camera_spots_on_their_cells_leds() -> None:
    palette = {**PALETTE, "red": (250, 0, 10)}
    roles = {
        "r0c0": "red@0.40",
        "r0c1": "white@1.00",  # a building ...
        "r0c1.map": "changed",  # ... moved: the prompt shows, not the building
        "r0c2.map": "legal",  # a tile may go here: shown on the cell's LED
        "r0c3": "fix",
        "r0c3.map": "legal",  # the cell's own, more urgent, prompt wins
        "r0c4": "blue@0.25",
        "r0c4.map": "fix",
    }
    view = View(roles, frozenset({"r0c4.map", "r0c3"}))
    on = render(view, PROFILE, palette, blink_on=True)
    assert on[led("r0c0")] == (100, 0, 4)
    assert on[led("r0c1")] == palette["changed"]
    assert on[led("r0c2")] == palette["legal"]
    assert on[led("r0c3")] == palette["fix"]
    assert on[led("r0c4")] == palette["fix"]
    assert on[led("r0c5")] == (0, 0, 0)
    off = render(view, PROFILE, palette, blink_on=False)
    # Blinking spots go dark, the cell showing a blinking camera spot with them.
    assert off[led("r0c3")] == off[led("r0c4")] == (0, 0, 0)
    assert off[led("r0c0")] == (100, 0, 4) and off[led("r0c1")] == palette["changed"]
    assert shown_roles(view, PROFILE)["r0c4"] == ("fix", "r0c4.map")


def test_a_move_shown_stands_out_over_the_games_lights_and_the_legal_moves() -> None:
    """The table's move (or a hint) lit among the game's lights: those and the legal moves
    dim, so that where the move goes is not taken for one of theirs; a prompt stays bright."""
    roles = {"r0c0": "red", "r0c1": "legal", "r0c2": "fix", "r0c3": "shown_from"}
    roles["r0c4"] = "shown_to"
    frame = render(View(roles, frozenset()), PROFILE, PALETTE, blink_on=True)
    assert frame[led("r0c0")] == role_colour("red@0.25", PALETTE)
    assert frame[led("r0c1")] == role_colour("legal@0.25", PALETTE)
    assert frame[led("r0c2")] == PALETTE["fix"]
    assert frame[led("r0c3")] == PALETTE["shown_from"]
    assert frame[led("r0c4")] == PALETTE["shown_to"]
    # With no move shown, the game's lights are as bright as ever.
    del roles["r0c3"], roles["r0c4"]
    frame = render(View(roles, frozenset()), PROFILE, PALETTE, blink_on=True)
    assert frame[led("r0c0")] == PALETTE["red"] and frame[led("r0c1")] == PALETTE["legal"]


# -- the session --------------------------------------------------------------------------------


def test_first_roll_and_tiles_are_read_from_dice_and_camera(tmp_path: Path) -> None:
    state = GAME.new_initial_state({"players": 2})
    assert isinstance(state, TakeoverState)
    session = start_session(tmp_path, state)
    assert GAME.dice_wanted(state) == DiceRequest("d12", 1, D12)
    session.on_dice([5], 0.0)
    session.on_dice([9], 0.0)  # blue rolls higher: blue places the first tile
    assert session.state.current_player() == 1
    # Any cell may take the first tile: the camera spots of the whole grid are lit as legal.
    roles = session.view(0.0).roles
    assert {"r0c0.map", "r11c11.map", "r5c5.map"} <= roles_of(roles, "legal")
    session.on_layout(with_map(session.expected, **tile_at("r4c4")), 0.0)
    assert session.state.actions()[-1] == PlaceTile("r4c4")
    assert "Lay a tile with its top-left corner on E5" in session.message
    # HT-1: the next tile shares an edge with it, so only cells near it are lit now.
    legal = roles_of(session.view(0.0).roles, "legal")
    assert "r4c6.map" in legal and "r3c4.map" in legal and "r0c0.map" not in legal
    record = Journal(tmp_path).read()
    assert record.history()[-1] == {"type": "PlaceTile", "cell": "r4c4"}


def test_buildings_placed_on_the_map_are_seen_small_and_large(tmp_path: Path) -> None:
    state = set_up(spawns=None, buildings=0)
    session = start_session(tmp_path, state)
    session.on_layout(with_map(session.expected, r2c2="small:none"), 0.0)
    assert session.state.actions()[-1] == PlaceSmall("r2c2")
    session.on_layout(with_map(session.expected, r5c7="large:none", r6c7="large:none"), 0.0)
    assert session.state.actions()[-1] == PlaceLarge("r5c7", "r6c7")
    assert session.sensed == session.expected and not session.fixes(10.0)


def test_spawn_and_pawn_placed_together_are_the_spawn(tmp_path: Path) -> None:
    state = set_up(spawns=None)
    session = start_session(tmp_path, state)
    # The reed feels the pawn before the camera sees the spawn: the session waits.
    session.on_layout({**session.expected, "r2c2": PRESENT}, 0.0)
    assert session.state is state and state.phase is Phase.SPAWNS
    session.on_layout(with_map({**session.expected, "r2c2": PRESENT}, r2c2="spawn:red"), 0.5)
    assert session.state.actions()[-1] == PlaceSpawn("r2c2")


def test_pawn_move_is_read_off_the_reeds_and_a_lifted_pawn_lights_its_cells(
    tmp_path: Path,
) -> None:
    session = start_session(tmp_path, set_up())
    targets = {"r0c2", "r0c3", "r0c4", "r1c2", "r1c4", "r2c2", "r2c3", "r2c4"}
    assert roles_of(session.view(0.0).roles, "legal") == targets  # HT-5: 8 neighbours
    lifted = {s: t for s, t in session.expected.items() if s != "r1c3"}
    session.on_layout(lifted, 0.0)
    view = session.view(10.0)
    assert roles_of(view.roles, "landing") == targets and not view.blinking
    session.on_layout(moved(session.expected, "r1c3", "r2c4"), 10.0)
    assert session.state.actions()[-1] == Move("r2c4")
    assert session.state.current_player() == 1 and not session.view(20.0).blinking


def test_pawn_with_one_cell_to_go_to_lights_that_cell(tmp_path: Path) -> None:
    session = start_session(tmp_path, set_up(CORNERED))
    assert [a.id for a in session.state.legal_actions()] == ["move:r1c1", "claim:0", "claim:1"]
    assert roles_of(session.view(0.0).roles, "legal") == {"r1c1"}


def test_pawn_set_down_on_an_illegal_cell_blinks_until_put_back(tmp_path: Path) -> None:
    session = start_session(tmp_path, set_up(), settle=1.0)
    before = session.state.history()
    session.on_layout(moved(session.expected, "r1c3", "r3c3"), 0.0)  # two cells away
    assert session.state.history() == before
    assert session.problem is None  # the map is fine: a pawn is misplaced
    view = session.view(0.5)
    assert roles_of(view.roles, "changed") == {"r1c3", "r3c3"} and not view.blinking
    view = session.view(1.5)
    assert roles_of(view.roles, "fix") == {"r1c3", "r3c3"} == view.blinking
    frame = render(view, PROFILE, PALETTE, blink_on=True)
    assert frame[led("r1c3")] == frame[led("r3c3")] == PALETTE["fix"]
    session.on_layout(dict(session.expected), 2.0)
    assert not session.view(5.0).blinking and session.state.history() == before


@pytest.mark.parametrize("attacker_wins", [True, False])
def test_after_a_lost_combat_the_table_waits_for_the_pawn_on_its_spawn(
    tmp_path: Path, attacker_wins: bool
) -> None:
    session = start_session(tmp_path, set_up(), settle=1.0)
    session.on_layout(moved(session.expected, "r1c3", "r1c4"), 0.0)  # red next to blue
    if attacker_wins:
        # Blue attacks red and wins: red goes back to its spawn, blue takes red's cell.
        session.act("attack:red", 0.0)
        rolls, expected = (10, 3), {"r1c3": PRESENT, "r1c4": PRESENT}
        differing = {"r1c3", "r1c5"}
    else:
        session.on_layout(moved(session.expected, "r1c5", "r2c5"), 0.0)
        # Red attacks blue and loses: red goes back to its spawn, blue stays.
        session.act("attack:blue", 0.0)
        rolls, expected = (2, 9), {"r1c3": PRESENT, "r2c5": PRESENT}
        differing = {"r1c3", "r1c4"}
    assert GAME.dice_wanted(session.state) == DiceRequest("d12", 1, D12)
    session.on_dice([rolls[0]], 1.0)  # the attacker's d12, then the defender's: two chance nodes
    assert session.state.is_chance_node()
    session.on_dice([rolls[1]], 1.0)
    state = session.state
    assert isinstance(state, TakeoverState) and state.lives == [2, 3]  # HT-5: red lost a life
    assert {s: t for s, t in session.expected.items() if "." not in s} == expected
    # The pawns still stand where the combat was: both cells light, then blink.
    view = session.view(1.5)
    assert {s for s in differing if view.roles[s] == "changed"} == differing
    view = session.view(2.5)
    assert roles_of(view.roles, "fix") == differing == view.blinking
    assert view.roles["r1c3"] == "fix"  # red's spawn, where the pawn must go
    # Put right by hand, one pawn at a time: then the game goes on.
    sensed = dict(session.sensed)
    if attacker_wins:
        sensed = moved(moved(sensed, "r1c4", "r1c3"), "r1c5", "r1c4")
    else:
        sensed = moved(sensed, "r1c4", "r1c3")
    session.on_layout(sensed, 3.0)
    assert session.sensed == session.expected and not session.view(10.0).blinking
    assert len(session.state.actions()) == len(state.actions())  # nothing played meanwhile


def test_one_building_in_reach_is_claimed_by_the_d12_alone(tmp_path: Path) -> None:
    session = start_session(tmp_path, set_up(), settle=1.0)
    session.on_layout(moved(session.expected, "r1c3", "r2c3"), 0.0)  # blue to move
    # Blue's pawn on r1c5 touches one building (r0c5, number 2) and no pawn.
    assert [a for a in session.state.legal_actions() if not isinstance(a, Move)] == [Claim(2)]
    applied = session.on_dice([7], 0.0)
    assert applied == [Claim(2), Roll(7)]
    state = session.state
    assert isinstance(state, TakeoverState) and state.buildings[2].points == 3  # HT-5


def test_with_two_buildings_in_reach_the_player_names_one_before_rolling(tmp_path: Path) -> None:
    session = start_session(tmp_path, set_up(CORNERED))
    with pytest.raises(IllegalActionError, match=r"claim or fight 2 things.*claim:0, claim:1"):
        session.on_dice([7], 0.0)
    assert session.state.actions()[-1] == PlaceSpawn("r1c5")  # nothing applied
    session.act("claim:1", 0.0)
    assert session.on_dice([12], 0.0) == [Roll(12)]
    state = session.state
    assert isinstance(state, TakeoverState)
    assert (state.buildings[1].owner, state.buildings[1].points) == (0, 10)  # HT-5: red's now
    with pytest.raises(IllegalActionError, match="d12 is wanted: one face, 1 to 12"):
        GAME.dice_actions(GAME.new_initial_state(), [13])


# -- a map that breaks the rules ----------------------------------------------------------------


def test_a_tile_that_touches_no_tile_is_refused_naming_its_cells(tmp_path: Path) -> None:
    state = first_roll()
    state.apply(PlaceTile("r0c0"))
    session = start_session(tmp_path, state, settle=1.0)
    session.on_layout(with_map(session.expected, **tile_at("r6c6")), 0.0)
    assert session.state.tiles_placed == 1  # type: ignore[attr-defined]
    assert session.message == "illegal map: tile shares no edge with the map (HT-1): " + (
        "r6c6, r6c7, r7c6, r7c7"
    )
    cells = {"r6c6", "r6c7", "r7c6", "r7c7"}
    assert session.problem is not None and session.problem.spots == cells
    assert not session.view(0.5).blinking  # hands may still be at work
    view = session.view(1.0)
    assert cells <= view.blinking and all(view.roles[c] == "fix" for c in cells)
    frame = render(view, PROFILE, PALETTE, blink_on=True)
    assert all(frame[led(c)] == PALETTE["fix"] for c in cells)
    assert describe_state(GAME, session.state)["to_move"] == "blue"


def test_a_building_that_cuts_cells_off_is_refused_naming_them(tmp_path: Path) -> None:
    state = set_up(spawns=None, buildings=2)  # small buildings on r0c1 and r1c0
    session = start_session(tmp_path, state, settle=1.0)
    session.on_layout(with_map(session.expected, r1c1="small:none"), 0.0)
    assert len(session.state.buildings) == 2  # type: ignore[attr-defined]
    # HT-3: the corner r0c0 is cut off from the other empty cells.
    assert session.message == "illegal map: empty cells cut off from the map (HT-3): r0c0"
    view = session.view(1.0)
    assert view.roles["r0c0"] == "fix" and view.roles["r1c1.map"] == "fix"
    assert {"r0c0", "r1c1.map"} <= view.blinking
    # Taken off again: the problem and the lights go.
    session.on_layout(dict(session.expected), 1.5)
    assert session.problem is None and not session.view(5.0).blinking
    assert session.message == ""


def test_a_building_touching_no_empty_cell_is_refused(tmp_path: Path) -> None:
    state = set_up(spawns=None, buildings=2)
    session = start_session(tmp_path, state, settle=1.0)
    # Filling the corner: r0c0's building touches only buildings, and holes (HT-3).
    sensed = with_map(session.expected, r0c0="small:none", r1c1="small:none")
    session.on_layout(sensed, 0.0)
    assert session.problem is not None
    assert session.message == "illegal map: building touches no empty tile cell (HT-3): r0c0"


def test_a_spawn_next_to_a_large_building_is_refused(tmp_path: Path) -> None:
    session = start_session(tmp_path, set_up(spawns=None), settle=1.0)
    sensed = with_map({**session.expected, "r3c2": PRESENT}, r3c2="spawn:red")
    session.on_layout(sensed, 0.0)
    assert session.state.phase is Phase.SPAWNS  # type: ignore[attr-defined]
    assert session.message == (
        "illegal map: spawn next to a large building (HT-4): r3c2, r4c2, r4c3"
    )


def test_a_building_or_spawn_off_the_tiles_is_refused_naming_its_cells(tmp_path: Path) -> None:
    """HT-2, HT-4: they lie on tiles; on the bare board (r11c11: the set-up's tiles cover rows 0-7
    and columns 0-9) they are named as off the tiles, not as a tile out of place."""
    for token in ("small:none", "spawn:red"):
        session = start_session(tmp_path / token, set_up(spawns=None), settle=1.0)
        session.on_layout(with_map(session.expected, r11c11=token), 0.0)
        assert (
            session.message == "illegal map: a building or spawn off the tiles (HT-2, HT-4): r11c11"
        )


def test_cells_of_no_whole_tile_are_named_until_the_tile_is_whole(tmp_path: Path) -> None:
    """HT-1: a tile is 2x2. Entered cell by cell on a table without a camera, the cells are
    named as no tile yet; the fourth makes the tile, placed."""
    session = start_session(tmp_path, first_roll(2), settle=1.0)
    cells = ["r4c4", "r4c5", "r5c4"]
    session.on_layout(with_map(session.expected, **dict.fromkeys(cells, "tile")), 0.0)
    assert session.message == ("illegal map: cells of no whole 2x2 tile (HT-1): r4c4, r4c5, r5c4")
    assert session.problem is not None and session.problem.key == "tile_partial"
    whole = with_map(session.expected, **dict.fromkeys([*cells, "r5c5"], "tile"))
    session.on_layout(whole, 0.0)
    assert [a.id for a in session.state.actions()][-1] == "place_tile:r4c4"


def test_explain_is_silent_for_the_expected_map_and_a_legal_one() -> None:
    state = set_up(spawns=None, buildings=2)
    expected = GAME.layout(state)
    assert GAME.explain(state, expected) is None
    assert GAME.explain(state, moved(expected, "r0c1.map", "r6c6.map")) is None


# -- status and the terminal ------------------------------------------------------------------


def test_describe_is_the_tracking_sheet() -> None:
    state = set_up()
    state.apply(Move("r1c4"))
    state.apply(Attack("red"))
    state.apply(Roll(10))
    state.apply(Roll(3))
    details = GAME.describe(state)
    assert details["phase"] == "turn" and details["rolling"] is None
    assert details["lives"] == {"red": 2, "blue": 3}
    assert details["pawns"] == {"red": "r1c3", "blue": "r1c4"}
    assert details["scores"] == {"red": 0, "blue": 0}
    assert details["tiles_placed"] == 20
    assert details["last_combat"] == {
        "attacker": "blue",
        "defender": "red",
        "rolls": [10, 3],
        "outcome": "attacker_won",
    }
    assert len(details["buildings"]) == 15
    assert details["buildings"][10] == {
        "id": 10,
        "size": "large",
        "cells": ["r4c7", "r4c8"],
        "owner": None,
        "points": 25,
    }
    summary = describe_state(GAME, state)
    assert summary["to_move"] == "red" and summary["turn"] == details["turn"]


def test_describe_declares_every_field() -> None:
    """Each field of the description is declared with its meaning (`GameType.details`), and no
    more."""
    assert [detail.name for detail in GAME.info.details] == list(GAME.describe(set_up()))


def test_describe_gives_every_field_at_a_known_position() -> None:
    """Every field during a fight: the first player chosen after a tie, the map, the attacker
    and the defender while the defender's d12 is awaited (HT-1 to HT-5)."""
    state = GAME.new_initial_state({"players": 2})
    for value in (5, 5, 12, 1):  # a tie, then red rolls highest
        state.apply(Roll(value))
    for corner in TILE_CORNERS:
        state.apply(PlaceTile(corner))
    for action in [PlaceSmall(c) for c in SMALL] + [PlaceLarge(a, b) for a, b in LARGE]:
        state.apply(action)
    for cell in APART:
        state.apply(PlaceSpawn(cell))
    state.apply(Move("r1c4"))
    state.apply(Attack("red"))  # blue attacks
    state.apply(Roll(9))
    details = GAME.describe(state)
    buildings = [(c,) for c in SMALL] + list(LARGE)
    assert details == {
        "turn": 2,
        "phase": "defend_roll",
        "to_move": None,
        "rolling": "red",
        "first_player": "red",
        "first_rolls": [{"red": 5, "blue": 5}, {"red": 12, "blue": 1}],
        "map_size": 12,
        "tiles": TILE_CORNERS,
        "tiles_placed": 20,
        "buildings_to_place": {"small": 0, "large": 0},
        "spawns": {"red": "r1c3", "blue": "r1c5"},
        "lives": {"red": 3, "blue": 3},
        "pawns": {"red": "r1c4", "blue": "r1c5"},
        "scores": {"red": 0, "blue": 0},
        "buildings": [
            {
                "id": k,
                "size": "small" if len(cells) == 1 else "large",
                "cells": list(cells),
                "owner": None,
                "points": 10 if len(cells) == 1 else 25,
            }
            for k, cells in enumerate(buildings)
        ],
        "building_at": {cell: k for k, cells in enumerate(buildings) for cell in cells},
        "building_worn": {},
        "claim": None,
        "fight": {"attacker": "blue", "defender": "red", "attack_roll": 9},
        "returning": None,
        "last_combat": None,
        "last_claim": None,
    }


def test_describe_during_set_up_shows_the_rolls_tiles_and_buildings_to_place() -> None:
    """HT-1, HT-2, HT-4: what set-up has laid and what it has still to lay."""
    state = GAME.new_initial_state({"players": 3})
    state.apply(Roll(7))
    details = GAME.describe(state)
    assert details["first_player"] is None and details["first_rolls"] == [{"red": 7}]
    assert details["rolling"] == "blue" and details["to_move"] is None
    assert details["buildings_to_place"] == {"small": 10, "large": 5}
    state.apply(Roll(2))
    state.apply(Roll(8))
    details = GAME.describe(state)
    assert details["first_player"] == "green" and details["to_move"] == "green"
    assert details["first_rolls"] == [{"red": 7, "blue": 2, "green": 8}]
    for corner in TILE_CORNERS:
        state.apply(PlaceTile(corner))
    for cell in SMALL[:3]:
        state.apply(PlaceSmall(cell))
    state.apply(PlaceLarge(*LARGE[0]))
    details = GAME.describe(state)
    assert details["tiles"] == TILE_CORNERS and details["tiles_placed"] == 20
    assert details["buildings_to_place"] == {"small": 7, "large": 4}
    assert details["spawns"] == {"red": None, "blue": None, "green": None}


def test_describe_names_the_claim_being_rolled_and_the_last_one() -> None:
    """HT-5: the claimer and the building while the claim's d12 is awaited; then the roll, and
    whether it claimed the building."""
    state = set_up()
    state.apply(Move("r2c3"))
    state.apply(Claim(2))  # blue, on the small building at r0c5
    details = GAME.describe(state)
    assert details["claim"] == {"player": "blue", "building": 2}
    assert details["rolling"] == "blue" and details["fight"] is None
    state.apply(Roll(4))
    details = GAME.describe(state)
    assert details["claim"] is None
    assert details["last_claim"] == {
        "player": "blue",
        "building": 2,
        "roll": 4,
        "claimed": False,
        "outcome": "damaged",
    }
    state.apply(Move("r2c4"))
    state.apply(Claim(2))
    state.apply(Roll(6))  # HT-5: 6 points were left, and damage stays
    last = GAME.describe(state)["last_claim"]
    assert last == {
        "player": "blue",
        "building": 2,
        "roll": 6,
        "claimed": True,
        "outcome": "claimed",
    }
    assert GAME.describe(state)["buildings"][2]["owner"] == "blue"


def test_status_prints_one_line_per_building(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = set_up()
    state.apply(Move("r2c3"))
    state.apply(Claim(2))
    state.apply(Roll(7))
    journal = Journal(tmp_path)
    journal.start(GAME.name, state.options)
    for action in state.actions():
        journal.append_action(action.to_json())
    journal.close()
    assert cli.main(["status", "--state-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # In the page's words (the walk: ids, and buildings counted from 0 where `hint` and `undo`
    # count from 1): cells by their column letter and row number.
    assert lines[0].startswith("Hostile Takeover, turn 3, ") and lines[0].endswith("to move: Red")
    assert "  Lives: Red 3; Blue 3" in lines
    assert "  Points: Red 0; Blue 0" in lines
    at = lines.index("  Buildings:")
    assert lines[at + 1] == "    1: Size small; Cells B1; Owner -; Points 10"
    assert lines[at + 3] == "    3: Size small; Cells F1; Owner -; Points 3"
    assert lines[at + 11] == "    11: Size large; Cells H5, I5; Owner -; Points 25"
    claimed = "  Last claim: Player Blue; Building 3; Roll 7; Claimed no; "
    assert any(line.startswith(claimed) for line in lines)
    assert action_text(GAME, Claim(2).id) == "Claim building 3"  # the same building


def test_terminal_draws_each_cell_with_its_map_token_pawn_and_light() -> None:
    state = set_up(CORNERED)
    roles = GAME.lights(state) | {"r1c1": "legal", "r6c6.map": "fix"}
    text = draw(GAME, state, View(roles, frozenset()), PALETTE, colour=False)
    rows = text.splitlines()
    assert len(rows) == 13

    def cell(r: int, c: int) -> str:
        return rows[r][5 * c : 5 * c + 4]

    # Red's spawn with its pawn, unclaimed small buildings, tiles, where red may go.
    assert [cell(0, c) for c in range(3)] == ["@R* ", "s-  ", "t   "]
    assert [cell(1, c) for c in range(2)] == ["s-  ", "t  o"]
    assert cell(1, 5) == "@B* " and cell(4, 2) == cell(4, 3) == "L-  "
    assert cell(6, 6) == "t  !"  # the fix on r6c6's camera spot marks the cell
    assert cell(0, 10) == cell(10, 0) == "    "  # holes
    assert rows[12].startswith("turn 1 · to move: Red")
    coloured = draw(GAME, state, View(roles, frozenset()), PALETTE, colour=True)
    assert "\x1b[38;2;255;0;16m@R*" in coloured  # red ink for red's spawn ...
    assert "\x1b[48;2;85;0;5m\x1b[38;2;255;0;16m@R*" in coloured  # ... on red's pawn light
    assert "\x1b[48;2;64;64;64m\x1b[38;2;200;200;200ms-" in coloured  # an unclaimed building


# -- the daemon -------------------------------------------------------------------------------


def test_bots_play_takeover_on_the_simulated_table_to_the_end(tmp_path: Path) -> None:
    run = RunOptions(
        state_dir=tmp_path / "state",
        socket_path=tmp_path / "control.sock",
        options={"players": 2},
        bots=True,
        pace=0.0,
        until_end=True,
        seed=3,
    )
    daemon = Daemon(fast_sim_config(game="takeover", **QUICK_CAMERA), run)
    daemon.open()
    try:
        assert len(daemon.reeds.channels) == 144 and daemon.camera is not None
        assert daemon.run() == 0
        state = daemon.session.state
        assert isinstance(state, TakeoverState) and state.is_terminal()
        result = GAME.result(state)
        assert result is not None and set(result["scores"]) == {"red", "blue"}
        winner = result["winners"][0]
        assert result["scores"][winner] == max(result["scores"].values())
        loser = "red" if result["last_remaining"] == "blue" else "blue"
        assert state.lives[COLOURS.index(loser)] == 0  # HT-6: one player left
        # Every decision came through the sensors or the control interface, in the journal.
        record = Journal(tmp_path / "state").read()
        types = [a["type"] for a in record.history()]
        assert types.count("PlaceTile") == 20 and types.count("PlaceSpawn") == 2
        assert types.count("PlaceSmall") == 10 and types.count("PlaceLarge") == 5
        assert "Move" in types and "Attack" in types and "Claim" in types
        replayed = GAME.replay(record.history(), record.options)
        assert replayed.history() == state.history() and GAME.result(replayed) == result
        # The table shows the final position, the camera settled on it.
        assert daemon.session.sensed == daemon.session.expected == GAME.layout(state)
        camera = {s: t for s, t in daemon.session.expected.items() if s.endswith(".map")}
        assert daemon.settler.settled == camera
        roles = daemon.session.view(daemon.clock()).roles
        spawn = state.spawns[COLOURS.index(loser)]
        assert spawn is not None and roles[state.grid.names[spawn]] == "out"
    finally:
        daemon.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Daemon]:
    with serving(
        fast_sim_config(game="takeover", **QUICK_CAMERA),
        RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock"),
    ) as daemon:
        yield daemon


def test_tiles_entered_through_act_appear_on_the_simulated_camera(running: Daemon) -> None:
    assert call(running, op="roll", values=[12])["applied"] == ["roll:12"]
    assert call(running, op="roll", values=[3])["applied"] == ["roll:3"]
    assert call(running, op="act", id="place_tile:r4c4")["applied"] == ["place_tile:r4c4"]
    assert running.sim_camera is not None
    wait_for(lambda: running.settler.settled == tile_at_map("r4c4"), what="the camera")
    status = call(running, op="status")
    assert status["fix"] == [] and status["sensed"] == status["expected"]
    # A tile laid far off on the table is refused, and the status names its cells (HT-1).
    running.sim_camera.show({**tile_at_map("r4c4"), **tile_at_map("r9c9")})
    wait_for(lambda: "HT-1" in call(running, op="status")["message"], what="the refusal")
    status = call(running, op="status")
    assert status["message"] == (
        "illegal map: tile shares no edge with the map (HT-1): r9c9, r9c10, r10c9, r10c10"
    )
    wait_for(lambda: call(running, op="status")["fix"] != [], what="the settle time")
    assert set(call(running, op="status")["fix"]) == set(tile_at_map("r9c9"))


def tile_at_map(corner: str) -> dict[str, str]:
    return {f"{cell}.map": token for cell, token in tile_at(corner).items()}


def test_explain_never_objects_to_a_legal_placement() -> None:
    """Whatever the set-up, the map after any legal tile, building or spawn is not refused."""
    checked = 0
    for seed, players in enumerate((2, 4)):
        rng = random.Random(seed)
        state = GAME.new_initial_state({"players": players})
        assert isinstance(state, TakeoverState)
        while state.phase is not Phase.TURN:
            if not state.is_chance_node():
                for action in state.legal_actions()[::3]:
                    assert GAME.explain(state, GAME.layout(state.child(action))) is None, action
                    checked += 1
            random_step(state, rng)
    assert checked > 1000
