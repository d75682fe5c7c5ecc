"""Baron Voodoo on the table: the camera's layout, the lights, the session, the CLI and the daemon.

The rules themselves are tested in test_voodoo_rules.py; here the generic table machinery meets
them. Rule ids (BV-1 .. BV-12, CLARIFICATIONS.md) are cited where the behaviour depends on one.
Positions are written compactly with `voodoo_play.position`: 2 players unless said, seat 0 Mamy
Wata (yellow, Y), 1 Gran Bwa (turquoise, T), 2 Papa Legba (red, R), 3 Erzulie Freda (purple, P).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from table_session import journal_history, roles_of, session_over, without
from voodoo_play import new_state, play, position, rolled

from controller import cli
from controller.config import load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.rules.api import CAMERA, DiceRequest, GameState, IllegalActionError, Layout
from controller.rules.voodoo import (
    CELLS,
    FACES,
    GAME,
    SIZE,
    EffectPoint,
    EndTurn,
    ExtraTurn,
    GranBwa,
    Jump,
    MamyWata,
    PapaLegba,
    Phase,
    Place,
    PlaceCombo,
    PoolFace,
    SetupFace,
    TakeOffering,
    VoodooState,
    load_rules,
    token,
)
from controller.session import Session, describe_state
from controller.simulate import random_step
from hardware.profile import builtin_profile_path, load_profile

PALETTE = load_config(None).palette
COLOURS = load_rules("").colours  # BV-1: the colour of each space, None for the black centre
SPARE = {"r6c0": "Y", "r6c1": "R"}  # Mamy Wata's spare capture: r6c0 over r6c1 to r6c2


# -- helpers ----------------------------------------------------------------------------------


def start_session(tmp_path: Path, state: GameState, settle: float = 1.0) -> Session:
    return session_over(GAME, tmp_path, state, settle)


def rolled_board(seed: int) -> tuple[list[SetupFace], Layout]:
    """A set-up by rolling (BV-1) with random faces: its 48 outcomes and the board they lay."""
    rng = random.Random(seed)
    outcomes = [SetupFace(rng.choice(FACES)) for _ in range(SIZE * SIZE - 1)]
    return outcomes, GAME.layout(play(new_state(), outcomes))


# -- what the camera sees ---------------------------------------------------------------------


def test_layout_is_each_cells_top_die_and_heights_are_invisible() -> None:
    """BV-4 "Only the top die of a column is accessible": the camera sees the top dice only."""
    tall = position({"r0c0": "TRYs", "r2c5": "Wo", "r6c6": "RP", **SPARE})
    short = position({"r0c0": "Ys", "r2c5": "TWo", "r6c6": "P", **SPARE})
    expected = {
        "r0c0": "yellow:steal",
        "r2c5": "white:offering",
        "r6c6": "purple:point",
        "r6c0": "yellow:point",
        "r6c1": "red:point",
    }
    assert GAME.layout(tall) == expected  # empty cells are absent
    assert GAME.layout(short) == expected  # the same board to the camera
    # What a lifted top die would uncover: the die beneath, only where there is one.
    assert GAME.lifted(tall) == {"r0c0": "red:point", "r6c6": "red:point"}
    assert GAME.lifted(short) == {"r2c5": "turquoise:point"}


def test_layout_after_set_up_fills_every_coloured_cell_and_leaves_the_centre() -> None:
    """BV-1: 48 coloured spaces take a die of their own colour; the black centre starts empty."""
    layout = GAME.layout(rolled(face="switch"))
    assert set(layout) == set(CELLS) - {"r3c3"}
    for cell, seen in layout.items():
        assert seen == f"{COLOURS[CELLS.index(cell)]}:switch"
    assert GAME.lifted(rolled()) == {}


def test_layout_and_lifted_follow_the_board_through_random_games() -> None:
    for seed, options in enumerate([{"players": 2}, {"players": 3}, {"teams": True}]):
        rng = random.Random(seed)
        state = new_state(options)
        while not state.is_terminal():
            random_step(state, rng)
            layout, lifted = GAME.layout(state), GAME.lifted(state)
            for i, stack in enumerate(state.board):
                assert layout.get(CELLS[i]) == (token(stack[-1]) if stack else None)
                assert lifted.get(CELLS[i]) == (token(stack[-2]) if len(stack) >= 2 else None)


def test_spots_are_the_49_camera_cells_and_board_rows_lay_them_out() -> None:
    spots = GAME.spots()
    assert list(spots) == [f"r{r}c{c}" for r in range(7) for c in range(7)]
    assert set(spots.values()) == {CAMERA}
    rows = GAME.board_rows()
    assert len(rows) == 7 and all(len(row) == 7 for row in rows)
    assert rows[0][:2] == ["r0c0", "r0c1"] and rows[6][6] == "r6c6"
    assert [cell for row in rows for cell in row] == list(CELLS)


def test_builtin_profile_gives_every_cell_a_camera_region_and_two_leds() -> None:
    profile = load_profile(builtin_profile_path("voodoo"), GAME.spots())
    assert profile.game == "voodoo"
    regions = profile.camera_regions()
    assert set(regions) == set(CELLS)  # the black centre too: dice may land there (BV-5)
    assert not profile.reed_channels()
    assert profile.table_size_mm == (400.0, 400.0)
    leds = [i for spot in profile.spots.values() for i in spot.leds]
    assert profile.led_count == 98 and sorted(leds) == list(range(98))
    for cell, region in regions.items():
        r, c = int(cell[1]), int(cell[3])
        # 50 mm cells inside a 25 mm margin, as the profile's header says.
        assert tuple(region) == (25 + 50 * c, 25 + 50 * r, 50, 50)
        # The strip runs in a serpentine: even rows left to right, odd rows right to left.
        along = c if r % 2 == 0 else 6 - c
        first = 2 * (7 * r + along)
        assert profile.spots[cell].leds == (first, first + 1)


# -- the lights -------------------------------------------------------------------------------

# Mamy Wata to move; Gran Bwa's Protection is active (BV-8).
LIT = {
    "r0c0": "Y",  # jumps r0c1 to the empty r0c2
    "r0c1": "R",
    "r4c4": "TY",  # Y on a T: jumps r5c4 to r6c4, and r3c4 onto the 2 dice of r2c4
    "r5c4": "W",
    "r3c4": "P",
    "r2c4": "RR",
    "r4c5": "T",  # protected: r4c4 cannot jump it (BV-5)
    "r4c3": "Ts",  # protected too
    "r6c6": "T",  # protected
    "r1c5": "TR",  # a turquoise die under a red one: not accessible, not lit
}


def test_lights_at_the_start_show_capturers_landings_and_protected_dice() -> None:
    """BV-5: the player's colour jumps over an adjacent die onto a space of 0-2 dice; a
    protected player's top dice cannot be jumped (BV-5, BV-8)."""
    state = position(LIT, protected=[1])
    roles = GAME.lights(state)
    assert roles_of(roles, "capturer") == {"r0c0", "r4c4"}
    assert roles_of(roles, "landing") == {"r0c2", "r6c4", "r2c4"}
    assert roles_of(roles, "protected") == {"r4c5", "r4c3", "r6c6"}
    assert set(roles) == {"r0c0", "r4c4", "r0c2", "r6c4", "r2c4", "r4c5", "r4c3", "r6c6"}


def test_a_turns_start_lights_the_games_own_not_legal_everywhere(tmp_path: Path) -> None:
    """The walk: at a turn's start the Loas' powers may move almost any die, and "legal" lit 47
    of the 49 spaces, drowning BV-5's capturers and landings. Lit everywhere it says nothing:
    the game's own lights stay, and a die lifted still lights where it may go."""
    outcomes, board = rolled_board(4)
    session = start_session(tmp_path, play(new_state(), outcomes))
    session.on_layout(board, now=0.0)
    roles = session.view(now=0.0).roles
    assert "legal" not in roles.values()
    assert roles_of(roles, "capturer") == roles_of(GAME.lights(session.state), "capturer") != set()
    cell = next(iter(roles_of(roles, "capturer")))
    lifted = GAME.lifted(session.state).get(cell)
    session.on_layout({**without(board, cell), **({cell: lifted} if lifted else {})}, now=1.0)
    assert roles_of(session.view(now=1.0).roles, "landing")


def test_lights_without_protection_show_more_captures() -> None:
    state = position(LIT)
    roles = GAME.lights(state)
    assert "protected" not in roles.values()
    # r4c4 now also jumps r4c5 to r4c6 and r4c3 to r4c2.
    assert roles_of(roles, "landing") == {"r0c2", "r6c4", "r2c4", "r4c6", "r4c2"}


def test_lights_show_the_other_players_capturers_on_their_turn() -> None:
    state = position({"r0c0": "Y", "r0c1": "R", "r5c5": "T", "r5c4": "Y"}, to_move=1)
    roles = GAME.lights(state)
    assert roles_of(roles, "capturer") == {"r5c5"}
    assert roles_of(roles, "landing") == {"r5c3"}


def test_lights_show_the_last_capture_until_the_next() -> None:
    # Gran Bwa's capture for the next turn: r1c0 over r2c0 to r3c0.
    state = position({"r3c3": "Y", "r3c4": "RT", "r1c0": "T", "r2c0": "R", **SPARE})
    play(state, Jump("r3c3", "r3c5"))
    assert state.phase is Phase.STEPS
    assert GAME.lights(state) == {"r3c4": "last_capture"}  # no capturer lit after the capture
    play(state, EndTurn())
    assert state.current_player() == 1
    roles = GAME.lights(state)
    assert roles["r3c4"] == "last_capture"
    assert roles_of(roles, "capturer") == {"r1c0"} and roles_of(roles, "landing") == {"r3c0"}


def test_lights_during_gran_bwa_show_the_source_and_the_targets() -> None:
    """BV-6 Gran Bwa: the dice above the bottom one move one at a time onto columns of 1 or 2."""
    board = {"r0c0": "RPY", "r0c6": "W", "r2c2": "RR", "r6c0": "T", "r6c1": "R", "r6c3": "RRR"}
    state = position(board, to_move=1)
    play(state, GranBwa("r0c0", "r0c6"))
    assert state.phase is Phase.GRAN_BWA
    roles = GAME.lights(state)
    # r6c3 already holds 3 dice: only columns of 1 or 2 are targets, never an empty space; nor
    # r6c0, Gran Bwa's only turquoise die, which covered would leave no capture (BV-5, BV-11).
    assert roles == dict.fromkeys({"r0c0", "r0c6", "r6c1", "r2c2"}, "power")
    play(state, GranBwa("r0c0", "r6c1"))  # the last die to move: the capture comes next
    assert state.phase is Phase.CAPTURE
    roles = GAME.lights(state)
    assert "power" not in roles.values()
    assert roles_of(roles, "capturer") == {"r6c0"}


def test_lights_at_the_end_show_each_seated_colour() -> None:
    """BV-3: the seated Loas' colours light their top dice; white belongs to nobody."""
    board = {"r0c0": "Y", "r6c6": "RT", "r3c3": "W"}
    state = position(board, offerings=[0, 0], expect_play=False)
    assert state.is_terminal()  # BV-11: nobody can capture, even after a power
    assert GAME.lights(state) == {"r0c0": "yellow", "r6c6": "turquoise"}


@pytest.mark.parametrize("options", [{"players": 3}, {"players": 4}, {"teams": True}])
def test_lights_at_the_end_of_random_games_show_the_seated_colours(
    options: dict[str, Any],
) -> None:
    rng = random.Random(11)
    state = new_state(options)
    while not state.is_terminal():
        random_step(state, rng)
    assert isinstance(state, VoodooState)
    seated = {state.colour_of(p) for p in range(state.num_players)}
    expected = {
        CELLS[i]: stack[-1][0]
        for i, stack in enumerate(state.board)
        if stack and stack[-1][0] in seated
    }
    assert expected and GAME.lights(state) == expected


def test_every_light_role_is_in_the_default_palette() -> None:
    used: set[str] = set()
    for seed, options in enumerate([{"players": 2}, {"players": 4}, {"teams": True}]):
        rng = random.Random(seed)
        state = new_state(options)
        while not state.is_terminal():
            random_step(state, rng)
            roles = GAME.lights(state)
            assert set(roles) <= set(GAME.spots())
            used.update(roles.values())
    used.update(GAME.lights(position(LIT, protected=[1])).values())
    bwa = position({"r0c0": "RPY", "r0c6": "W", "r6c0": "T", "r6c1": "R"}, to_move=1)
    used.update(GAME.lights(play(bwa, GranBwa("r0c0", "r0c6"))).values())
    assert {"capturer", "landing", "protected", "last_capture", "power"} <= used
    assert {"yellow", "turquoise", "red", "purple"} <= used
    # And the session's own roles, on top of the game's (see the session tests below).
    used.update({"legal", "landing", "changed", "fix", "candidate"})
    assert used <= set(PALETTE), sorted(used - set(PALETTE))


# -- the session: set-up by rolling, read off the board ---------------------------------------


def test_set_up_by_rolling_is_read_off_the_board_cell_by_cell(tmp_path: Path) -> None:
    """BV-1: each space takes a die of its colour; the camera reads the face rolled."""
    outcomes, board = rolled_board(seed=3)
    session = start_session(tmp_path, new_state())
    assert session.view(now=0.0).roles == {"r0c0": "legal"}  # where the next die goes
    sensed: Layout = {}
    for n, cell in enumerate(c for c in CELLS if c in board):
        sensed[cell] = board[cell]
        session.on_layout(sensed, now=float(n))
        assert session.state.actions() == tuple(outcomes[: n + 1])
    assert journal_history(tmp_path) == [o.to_json() for o in outcomes]
    state = session.state
    assert isinstance(state, VoodooState)
    assert state.phase is Phase.START and state.current_player() == 0
    assert session.expected == board
    assert session.fixes(now=1000.0) == frozenset()


def test_set_up_cells_filled_out_of_order_catch_up(tmp_path: Path) -> None:
    outcomes, board = rolled_board(seed=4)
    session = start_session(tmp_path, new_state())
    ahead = {cell: board[cell] for cell in ("r6c6", "r2c1", "r0c1")}
    session.on_layout(ahead, now=0.0)
    assert session.state.actions() == ()  # the rules want r0c0 first
    # Dice put down ahead are read in their turn: nothing to put right meanwhile (BV-1).
    assert session.fixes(now=100.0) == frozenset()
    assert board["r6c5"].startswith("red:")  # BV-1: a red space in the built-in layout
    session.on_layout(ahead | {"r6c5": "white:point"}, now=0.0)
    assert session.fixes(now=100.0) == {"r6c5"}  # no outcome puts a white die there
    session.on_layout(ahead, now=0.0)
    session.on_layout(ahead | {"r0c0": board["r0c0"]}, now=1.0)
    assert session.state.actions() == tuple(outcomes[:2])  # r0c0, then r0c1 at once
    session.on_layout(board, now=2.0)  # everything else: the chain catches up
    assert session.state.actions() == tuple(outcomes)
    assert session.state.current_player() == 0
    record = Journal(tmp_path).read()
    assert GAME.replay(record.history(), record.options).history() == session.state.history()
    assert session.fixes(now=100.0) == frozenset()


def test_set_up_die_of_the_wrong_colour_blinks_after_settling(tmp_path: Path) -> None:
    session = start_session(tmp_path, new_state(), settle=1.5)
    wrong = "yellow:point" if COLOURS[0] != "yellow" else "red:point"
    session.on_layout({"r0c0": wrong}, now=0.0)
    assert session.state.actions() == ()
    assert session.fixes(now=1.0) == frozenset()
    assert session.fixes(now=1.5) == {"r0c0"}
    centre = start_session(tmp_path / "centre", new_state(), settle=1.5)
    centre.on_layout({"r3c3": "yellow:point"}, now=0.0)  # BV-1: the centre starts empty
    assert centre.fixes(now=2.0) == {"r3c3"}


# -- the session: play ------------------------------------------------------------------------

# Erzulie Freda (purple) to move with 4 players and no Offerings: no power can carry the die on
# r2c2 anywhere (BV-6: she only swaps single dice), so its landing cells are its captures'.
HELD = {
    "r2c2": "TP",  # P on a T: jumps r2c3 to r2c4, r1c2 onto r0c2, r3c2 to r4c2
    "r2c3": "R",
    "r1c2": "Y",
    "r0c2": "W",
    "r3c2": "Y",
}


def held_position(extra: dict[str, str] | None = None) -> VoodooState:
    board = {**HELD, **(extra or {})}
    return position(board, players=4, to_move=3, offerings=[0, 0, 0, 0])


def test_die_held_over_the_board_lights_its_landing_cells_and_never_blinks(
    tmp_path: Path,
) -> None:
    session = start_session(tmp_path, held_position(), settle=0.5)
    assert roles_of(GAME.lights(session.state), "capturer") == {"r2c2"}
    lifted = session.expected | {"r2c2": "turquoise:point"}  # the die beneath shows
    before = session.state.history()
    session.on_layout(lifted, now=0.0)
    assert session.state.history() == before
    assert session.next_deadline(now=0.0) is None
    view = session.view(now=100.0)
    assert roles_of(view.roles, "landing") == {"r2c4", "r0c2", "r4c2"}
    assert view.roles["r2c2"] == "changed"
    assert not view.blinking and session.fixes(now=100.0) == frozenset()


def test_held_die_lights_only_its_own_landing_cells(tmp_path: Path) -> None:
    """Another purple die that can capture elsewhere: while one die is in the hand, only the
    cells that die may land on are lit for landing."""
    session = start_session(tmp_path, held_position({"r6c6": "P", "r6c5": "R"}), settle=0.5)
    assert roles_of(GAME.lights(session.state), "landing") == {"r2c4", "r0c2", "r4c2", "r6c4"}
    session.on_layout(session.expected | {"r2c2": "turquoise:point"}, now=0.0)
    view = session.view(now=100.0)
    assert roles_of(view.roles, "landing") == {"r2c4", "r0c2", "r4c2"}
    assert not view.blinking


def test_held_die_whose_landing_cell_shows_the_same_die_is_not_a_mistake(
    tmp_path: Path,
) -> None:
    """The purple point die on r2c2 can only land on r2c4, already topped by a purple point
    die: the camera sees no change there, yet the die in the hand is a move under way. (r2c4
    cannot jump back: r2c2 holds 3 dice, BV-5.)"""
    state = position(
        {"r2c2": "YTP", "r2c3": "R", "r2c4": "P"}, players=4, to_move=3, offerings=[0] * 4
    )
    assert roles_of(GAME.lights(state), "capturer") == {"r2c2"}
    session = start_session(tmp_path, state, settle=0.5)
    session.on_layout(session.expected | {"r2c2": "turquoise:point"}, now=0.0)
    assert session.fixes(now=100.0) == frozenset()
    assert session.view(now=100.0).roles.get("r2c4") == "landing"


def test_jump_seen_on_the_board_is_applied_and_journalled(tmp_path: Path) -> None:
    """BV-5: the jumping die ends on the landing space and the jumped top die is captured."""
    session = start_session(tmp_path, held_position(), settle=0.5)
    landed = session.expected | {"r2c2": "turquoise:point", "r2c4": "purple:point"}
    session.on_layout(landed, now=0.0)  # put down, the jumped die still there
    assert journal_history(tmp_path) == []
    assert session.fixes(now=0.6) == {"r2c2", "r2c4"}
    session.on_layout(without(landed, "r2c3"), now=1.0)  # and the red die taken off
    assert session.state.actions()[-1] == Jump("r2c2", "r2c4")
    assert journal_history(tmp_path) == [Jump("r2c2", "r2c4").to_json()]
    assert session.fixes(now=100.0) == frozenset()
    details = GAME.describe(session.state)
    assert details["capture_zones"]["erzulie_freda"] == ["red:point"]
    assert details["phase"] == "steps"
    roles = session.view(now=100.0).roles
    assert roles["r2c3"] == "last_capture" and "capturer" not in roles.values()


def test_power_seen_on_the_board_is_applied_die_by_die(tmp_path: Path) -> None:
    """BV-6 Gran Bwa, one die at a time, then the capture (BV-7)."""
    board = {"r0c0": "RPY", "r0c6": "W", "r6c0": "T", "r6c1": "R"}
    session = start_session(tmp_path, position(board, to_move=1))
    first = session.expected | {"r0c0": "purple:point", "r0c6": "yellow:point"}
    session.on_layout(first, now=0.0)
    assert session.state.actions()[-1] == GranBwa("r0c0", "r0c6")
    roles = session.view(now=0.0).roles
    assert roles_of(roles, "power") == {"r0c0", "r0c6", "r6c1"}  # not over the capturer r6c0
    # The next die in the hand: the columns of 1 or 2 dice it may go onto are lit for landing.
    session.on_layout(first | {"r0c0": "red:point"}, now=0.5)
    view = session.view(now=100.0)
    # Not onto the turquoise die that is to capture: that would leave none (BV-5, BV-11).
    assert roles_of(view.roles, "landing") == {"r0c6", "r6c1"}
    assert view.roles["r0c0"] == "changed" and not view.blinking
    second = first | {"r0c0": "red:point", "r6c1": "purple:point"}
    session.on_layout(second, now=1.0)
    assert session.state.actions()[-1] == GranBwa("r0c0", "r6c1")
    assert journal_history(tmp_path)[-2:] == [
        GranBwa("r0c0", "r0c6").to_json(),
        GranBwa("r0c0", "r6c1").to_json(),
    ]
    state = session.state
    assert isinstance(state, VoodooState) and state.phase is Phase.CAPTURE


def test_board_matching_no_action_blinks_after_settling(tmp_path: Path) -> None:
    session = start_session(tmp_path, position(LIT), settle=1.5)
    before = session.state.history()
    wrong = session.expected | {"r0c0": "yellow:steal", "r5c5": "white:point"}
    session.on_layout(wrong, now=10.0)
    assert session.state.history() == before
    view = session.view(now=11.0)
    assert view.roles["r0c0"] == view.roles["r5c5"] == "changed" and not view.blinking
    assert session.fixes(now=11.5) == {"r0c0", "r5c5"}
    assert session.view(now=11.5).blinking == {"r0c0", "r5c5"}
    session.on_layout(session.expected, now=12.0)  # put right
    assert session.fixes(now=20.0) == frozenset()
    assert session.state.history() == before
    assert journal_history(tmp_path) == []


# A lone die in row r0: Mamy Wata sliding the row west leaves it where Papa Legba would put it.
LONE = {"r0c3": "Rs", **SPARE}
SLID = {"r0c0": "red:steal", "r6c0": "yellow:point", "r6c1": "red:point"}


def test_two_actions_that_look_alike_are_candidates(tmp_path: Path) -> None:
    """BV-6: Mamy Wata slides every stack of a line toward an end; Papa Legba moves one die to
    an empty space of its line. On a line of one die they can leave the same board."""
    session = start_session(tmp_path, position(LONE), settle=1.0)
    before = session.state.history()
    session.on_layout(SLID, now=0.0)
    assert session.state.history() == before  # nothing guessed
    assert set(session.candidates()) == {MamyWata("r0", "w"), PapaLegba("r0c3", "r0c0")}
    assert journal_history(tmp_path) == []
    assert "several moves fit" in session.message
    roles = session.view(now=0.0).roles
    assert roles["r0c0"] == roles["r0c3"] == "candidate"
    # A choice to make through `smartboard act`, not a mistake: nothing blinks, even later.
    assert session.fixes(now=100.0) == frozenset()
    assert session.view(now=100.0).roles["r0c0"] == "candidate"


@pytest.mark.parametrize(
    ("action_id", "offerings"),
    [("mamy_wata:r0:w", 3), ("papa_legba:r0c3:r0c0", 2)],
)
def test_candidate_named_through_act_is_applied(
    tmp_path: Path, action_id: str, offerings: int
) -> None:
    """BV-7: Mamy Wata's own power is free; another Loa's costs 1 Offering."""
    session = start_session(tmp_path, position(LONE))
    session.on_layout(SLID, now=0.0)
    applied = session.act(action_id, now=0.5)
    assert applied.id == action_id
    assert journal_history(tmp_path) == [applied.to_json()]
    assert session.candidates() == []
    assert session.expected == SLID and session.fixes(now=100.0) == frozenset()
    assert GAME.describe(session.state)["offerings"]["mamy_wata"] == offerings


def test_off_board_decisions_go_through_act(tmp_path: Path) -> None:
    """Steps 1 and 5 (BV-7, BV-9): an Offering for capturing one's own colour, and a combo of
    three point dice of different colours placed in the spirit world for 3 points."""
    board = {"r3c2": "Y", "r3c3": "Yo", "r0c4": "T", "r0c5": "R", **SPARE}  # r0c4: Gran Bwa's
    state = position(board, zones=["Rv Tv", ""])
    session = start_session(tmp_path, state)
    session.on_layout(without(session.expected, "r3c2", "r3c3") | {"r3c4": "yellow:point"}, 0.0)
    assert session.state.actions()[-1] == Jump("r3c2", "r3c4")
    with pytest.raises(IllegalActionError, match=r"of kinds .*take_offering"):
        session.act("effect_point", now=0.0)  # the captured die shows an Offering
    assert session.act("take_offering", now=0.0) == TakeOffering()
    details = GAME.describe(session.state)
    assert details["offerings"]["mamy_wata"] == 4 and details["reserve"] == 13
    combo = "red:point+turquoise:point+yellow:offering"
    with pytest.raises(IllegalActionError, match="not a legal action"):
        session.act(f"place_combo:{combo}", now=0.0)  # not one face: no combo (BV-9)
    session.act("change_face:point", now=0.0)  # step 2: 1 Offering turns the die to a point
    combo = "red:point+turquoise:point+yellow:point"
    assert session.act(f"place_combo:{combo}", now=0.0) == PlaceCombo(combo)
    details = GAME.describe(session.state)
    assert details["scores"]["mamy_wata"] == 3
    assert details["spirit_worlds"]["mamy_wata"] == combo.split("+")
    assert details["capture_zones"]["mamy_wata"] == []
    session.act("end_turn", now=0.0)
    assert session.state.current_player() == 1
    assert [a["type"] for a in journal_history(tmp_path)] == [
        "Jump",
        "TakeOffering",
        "ChangeFace",
        "PlaceCombo",
        "EndTurn",
    ]


# -- the session: set-up by placing -----------------------------------------------------------


def test_set_up_by_placing_rolls_the_pool_then_reads_each_placement(tmp_path: Path) -> None:
    session = start_session(tmp_path, new_state({"setup": "place"}))
    assert GAME.dice_wanted(session.state) == DiceRequest("soul", 48, FACES)
    assert session.on_dice(["steal"] * 40, now=0.0) == [PoolFace("steal")] * 40
    assert GAME.dice_wanted(session.state) == DiceRequest("soul", 8, FACES)
    with pytest.raises(IllegalActionError, match="1 to 8 soul dice"):
        session.on_dice(["point"] * 9, now=0.0)
    session.on_dice(["switch"] * 8, now=0.0)  # the last 8 of BV-2's order: the white dice
    # A misread roll is put right before anything is played on it.
    assert session.correct_dice(["point"] * 8, now=0.0) == [PoolFace("point")] * 8
    assert GAME.describe(session.state)["pool"].count("white:point") == 8
    state = session.state
    assert isinstance(state, VoodooState) and state.phase is Phase.SETUP_PLACE
    assert len(journal_history(tmp_path)) == 48
    assert session.expected == {}
    legal = roles_of(session.view(now=0.0).roles, "legal")
    assert legal == set(CELLS) - {"r3c3"}  # any empty coloured space
    first = COLOURS[0]
    session.on_layout({"r0c0": f"{first}:steal"}, now=1.0)
    assert session.state.actions()[-1] == Place("r0c0", f"{first}:steal")
    assert session.state.current_player() == 1  # each player places in turn
    white = next(c for i, c in enumerate(CELLS) if COLOURS[i] == "white")
    session.on_layout({"r0c0": f"{first}:steal", white: "white:point"}, now=2.0)
    assert session.state.actions()[-1] == Place(white, "white:point")
    assert session.state.current_player() == 0
    assert journal_history(tmp_path)[-2:] == [
        Place("r0c0", f"{first}:steal").to_json(),
        Place(white, "white:point").to_json(),
    ]
    # A die of the wrong colour for its space is no placement: it blinks once settled.
    wrong = "white:point" if COLOURS[1] != "white" else "red:steal"
    session.on_layout(session.expected | {"r0c1": wrong}, now=3.0)
    assert len(session.state.actions()) == 50
    assert session.fixes(now=10.0) == {"r0c1"}


# -- dice readings that do not fit ------------------------------------------------------------


def test_dice_readings_refused_with_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(IllegalActionError, match="no dice roll is expected now"):
        GAME.dice_actions(new_state(), ["point"])  # set-up by rolling: read on the board
    with pytest.raises(IllegalActionError, match="no dice roll is expected now"):
        GAME.dice_actions(position(LONE), ["point"])  # during play
    pool = new_state({"setup": "place"})
    with pytest.raises(IllegalActionError, match=r"soul dice faces \(offering, point") as info:
        GAME.dice_actions(pool, ["point", "skull"])
    assert "skull" in str(info.value)
    with pytest.raises(IllegalActionError, match="1 to 48 soul dice"):
        GAME.dice_actions(pool, [3])
    with pytest.raises(IllegalActionError, match="1 to 48 soul dice"):
        GAME.dice_actions(pool, ["point"] * 49)
    with pytest.raises(IllegalActionError, match="1 to 48 soul dice"):
        GAME.dice_actions(pool, [])
    # Through the session, nothing is played or written.
    session = start_session(tmp_path, pool)
    with pytest.raises(IllegalActionError, match="soul dice"):
        session.on_dice(["point", "skull"], now=0.0)
    assert session.state.actions() == () and journal_history(tmp_path) == []


# -- what the status shows --------------------------------------------------------------------


def test_describe_gives_scores_offerings_reserve_zones_protection_and_samedi() -> None:
    """BV-7 (20 Offerings in all), BV-8 (Protection), BV-10 (Baron Samedi)."""
    state = position(
        LONE,
        offerings=[1, 4],
        zones=["Rv Ts", ""],
        spirits=["Pc", "Wv Wo"],
        scores=[5, 7],
        protected=[1],
        samedi=1,
    )
    details = describe_state(GAME, state)["details"]
    assert details["scores"] == {"mamy_wata": 5, "gran_bwa": 7}
    assert details["offerings"] == {"mamy_wata": 1, "gran_bwa": 4}
    assert details["reserve"] == 15
    assert details["capture_zones"] == {
        "mamy_wata": ["red:point", "turquoise:steal"],
        "gran_bwa": [],
    }
    assert details["spirit_worlds"] == {
        "mamy_wata": ["purple:change"],
        "gran_bwa": ["white:offering", "white:point"],
    }
    assert details["protection"] == {"mamy_wata": False, "gran_bwa": True}
    assert details["baron_samedi"] == "gran_bwa"
    json.dumps(details)  # the status goes over the control socket as JSON


def test_describe_in_team_mode_names_the_teams() -> None:
    """BV-12: teams share Offerings, zones, spirit worlds and score; Protection is personal;
    there is no Baron Samedi."""
    state = position(LONE, teams=True, offerings=[2, 3], scores=[1, 2], protected=[3])
    details = GAME.describe(state)
    sides = ["mamy_wata+gran_bwa", "papa_legba+erzulie_freda"]
    assert list(details["scores"]) == sides
    assert details["offerings"] == dict(zip(sides, [2, 3], strict=True))
    assert details["reserve"] == 15
    assert list(details["capture_zones"]) == list(details["spirit_worlds"]) == sides
    assert details["protection"] == {
        "mamy_wata": False,
        "gran_bwa": False,
        "papa_legba": False,
        "erzulie_freda": True,
    }
    assert details["baron_samedi"] is None


def test_describe_declares_every_field() -> None:
    """Each field of the description is declared with its meaning (`GameType.details`), and no
    more."""
    details = GAME.describe(position(LONE))
    assert [detail.name for detail in GAME.info.details] == list(details)


def test_describe_gives_every_field_at_a_known_position() -> None:
    """Every field, after a capture and step 4 (BV-7), then in the extra turn bought."""
    board = {"r3c3": "Y", "r3c4": "Rs", "r0c0": "TWPp", **SPARE}
    state = position(
        board, offerings=[3, 3], spirits=["Wv", ""], scores=[4, 2], protected=[1], samedi=0
    )
    play(state, Jump("r3c3", "r3c5"), ExtraTurn())
    details = GAME.describe(state)
    assert details == {
        "turn": 1,
        "round": 1,
        "phase": "steps",
        "step": 4,
        "to_move": "mamy_wata",
        "turn_order": ["mamy_wata", "gran_bwa"],
        "target": 18,
        "ending": False,
        "ended_by": None,
        "scores": {"mamy_wata": 4, "gran_bwa": 2},
        "offerings": {"mamy_wata": 1, "gran_bwa": 3},
        "reserve": 16,
        "capture_zones": {"mamy_wata": ["red:steal"], "gran_bwa": []},
        "spirit_worlds": {"mamy_wata": ["white:point"], "gran_bwa": []},
        "protection": {"mamy_wata": False, "gran_bwa": True},
        "baron_samedi": "mamy_wata",
        "captured": "red:steal",
        "last_capture": {"from": "r3c3", "over": "r3c4", "to": "r3c5"},
        "power_used": False,
        "end_power_available": True,
        "gran_bwa_from": None,
        "extra_turn_bought": True,
        "extra_turn": False,
        "columns": {
            "r0c0": ["turquoise:point", "white:point", "purple:protection"],
            "r3c5": ["yellow:point"],
            "r6c0": ["yellow:point"],
            "r6c1": ["red:point"],
        },
        "board_colours": {
            CELLS[i]: "black" if colour is None else colour for i, colour in enumerate(COLOURS)
        },
        "setup_space": None,
        "pool": [],
    }
    json.dumps(details)
    play(state, EndTurn())
    details = GAME.describe(state)
    assert (details["turn"], details["to_move"], details["step"]) == (2, "mamy_wata", 0)
    assert details["extra_turn"] and not details["extra_turn_bought"]
    assert details["captured"] is None
    assert details["last_capture"] == {"from": "r3c3", "over": "r3c4", "to": "r3c5"}


def test_describe_board_colours_follow_the_rules() -> None:
    """BV-1: 10 spaces each of the four Loa colours, 8 white, and the black centre."""
    colours = GAME.describe(rolled())["board_colours"]
    assert len(colours) == SIZE * SIZE and colours["r3c3"] == "black"
    counts = {c: list(colours.values()).count(c) for c in set(colours.values())}
    assert counts == {
        "yellow": 10,
        "turquoise": 10,
        "red": 10,
        "purple": 10,
        "white": 8,
        "black": 1,
    }


def test_describe_shows_whole_columns_not_only_the_top_die() -> None:
    """BV-4: what the camera cannot see under the top die is still in the description."""
    state = position({"r0c0": "TRYs", "r2c5": "Wo", **SPARE})
    columns = GAME.describe(state)["columns"]
    assert columns["r0c0"] == ["turquoise:point", "red:point", "yellow:steal"]
    assert GAME.layout(state)["r0c0"] == "yellow:steal"


def test_describe_the_power_used_at_the_start_closes_the_end_power() -> None:
    """BV-7 "optional power at the end, only if none was used at the start"; BV-6 Gran Bwa's
    column being emptied die by die."""
    state = position({"r0c0": "RPY", "r0c6": "W", "r6c0": "T", "r6c1": "R"}, to_move=1)
    assert GAME.describe(state)["end_power_available"]
    play(state, GranBwa("r0c0", "r0c6"))
    details = GAME.describe(state)
    assert details["phase"] == "gran_bwa" and details["gran_bwa_from"] == "r0c0"
    assert details["power_used"] and not details["end_power_available"]


def test_describe_names_who_triggered_the_end() -> None:
    """BV-11: the player who reaches the target triggers the end and wins a tie, so the
    description names them while the round is finished."""
    state = position({"r3c3": "Y", "r3c4": "Rv", **SPARE}, scores=[17, 0])
    assert GAME.describe(state)["ended_by"] is None
    play(state, Jump("r3c3", "r3c5"), EffectPoint())
    details = GAME.describe(state)
    assert details["ending"] and details["ended_by"] == "mamy_wata"


# -- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [["--players", "3"], ["--teams"]], ids=["3 players", "teams"])
def test_cli_simulates_voodoo_games_to_the_end(
    seats: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "voodoo", *seats, "--games", "20", "--seed", "7", "--json"]
    assert cli.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "voodoo" and report["games"] == report["finished"] == 20
    sides = (
        ["mamy_wata+gran_bwa", "papa_legba+erzulie_freda"]
        if seats == ["--teams"]
        else ["mamy_wata", "gran_bwa", "papa_legba"]
    )
    assert sorted(report["mean_scores"]) == sorted(sides)
    assert all(score > 0 for score in report["mean_scores"].values())
    # One winning side a game: in team mode both teammates win (BV-12).
    assert sum(report["wins"].values()) == 20 * (2 if seats == ["--teams"] else 1)
    # The same seed plays the same games.
    assert cli.main(argv) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["wins"] == report["wins"] and again["mean_scores"] == report["mean_scores"]


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        (["--players", "5"], "Baron Voodoo is for 2 to 4 players, not 5 (BV-3)"),
        (["--players", "1"], "Baron Voodoo is for 2 to 4 players, not 1 (BV-3)"),
        (["--teams", "--players", "3"], "team mode is for 4 players, not 3 (BV-3)"),
    ],
)
def test_cli_refuses_a_table_voodoo_cannot_seat(
    seats: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["simulate", "voodoo", *seats, "--games", "20", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


# -- the daemon, end to end -------------------------------------------------------------------


def test_bots_play_voodoo_on_the_simulated_table_to_the_end(tmp_path: Path) -> None:
    config = replace(
        load_config(None).simulated(),
        game="voodoo",
        debounce_s=0.005,
        settle_s=0.2,
        camera_fps=200,
        stable_frames=2,
    )
    run = RunOptions(
        state_dir=tmp_path / "state",
        socket_path=tmp_path / "control.sock",
        options={"players": 2},
        bots=True,
        pace=0.0,
        until_end=True,
        seed=7,
    )
    daemon = Daemon(config, run)
    daemon.open()
    try:
        assert daemon.camera is not None and not daemon.reeds.channels
        assert daemon.run() == 0
        state = daemon.session.state
        assert state.is_terminal()
        result = GAME.result(state)
        assert result is not None
        assert set(result["scores"]) == {"mamy_wata", "gran_bwa"}
        assert len(result["winners"]) == 1
        winner = result["winners"][0]
        assert result["scores"][winner] == max(result["scores"].values())
        # The camera settled on the final board, which the lights show in the Loas' colours.
        assert daemon.settler.settled == daemon.session.expected == GAME.layout(state)
        roles = daemon.session.view(daemon.clock()).roles
        assert roles and set(roles.values()) <= {"yellow", "turquoise"}
        record = Journal(tmp_path / "state").read()
        assert record.game == "voodoo" and record.options["players"] == 2
        replayed = GAME.replay(record.history(), record.options)
        assert replayed.is_terminal()
        assert replayed.history() == state.history()
        assert GAME.result(replayed) == result
        # The set-up was read off the board: 48 dice, one a cell (BV-1).
        assert [a["type"] for a in record.history()[:48]] == ["SetupFace"] * 48
    finally:
        daemon.close()
