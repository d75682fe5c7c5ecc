"""Multipli Potion on the table: the board profile, the session reading the camera, the lights,
the command line and the daemon.

The rules themselves are tested in test_potions_rules.py; here the generic table machinery meets
them. Rule ids (MP-1 .. MP-4, CLARIFICATIONS.md) are cited where the behaviour depends on one.
Card ids are "TxM": monster T x M, potion M ("7x9": monster 63, potion 9). Most tests start from
the rulebook's worked example: player_1's zone holds "2x9" (potion 9), player_2's "7x9" (monster
63), and player_1 places "3x7" (potion 7) to capture it, 9 x 7 = 63.
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from conftest import QUICK_CAMERA, fast_sim_config, smartboard
from playwright.sync_api import Page, expect
from potions_play import alert_spots, full_zones
from table_session import journal_history, roles_of, session_over, without
from web_daemon import dashboard

from controller import cli
from controller.config import load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.rules.api import CAMERA, Action, GameState, Hidden, IllegalActionError
from controller.rules.potions import (
    GAME,
    Capture,
    Deal,
    EndTurn,
    Phase,
    Place,
    PotionsHidden,
    PotionsState,
    load_deck,
)
from controller.session import Session
from controller.simulate import random_step
from hardware.profile import Region, builtin_profile_path, load_profile

PALETTE = load_config(None).palette
PROFILE = load_profile(builtin_profile_path("potions"), GAME.spots())
SESSION_ROLES = {"legal", "landing", "changed", "fix", "candidate"}  # the session's own prompts
# The worked example: 9 x 7 = 63 takes player_2's monster.
EXAMPLE = Capture("7x9", "2x9", "3x7")
EXAMPLE_SPOTS = {"s2.z1", "s1.z1", "s1.z2"}


# -- helpers ----------------------------------------------------------------------------------


def new_state(options: dict[str, Any] | None = None) -> PotionsState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, PotionsState)
    return state


def dealt(*actions: Action, options: dict[str, Any] | None = None) -> PotionsState:
    """Player_1's zone starts with "2x9", player_2's with "7x9"; then `actions`."""
    state = new_state(options)
    for action in (Deal(0, "2x9"), Deal(1, "7x9"), *actions):
        state.apply(action)
    return state


def start_session(tmp_path: Path, state: GameState, settle: float = 1.0) -> Session:
    return session_over(GAME, tmp_path, state, settle)


def potions_state(session: Session) -> PotionsState:
    state = session.state
    assert isinstance(state, PotionsState)
    return state


def zone(player: int, *slots: int) -> set[str]:
    return {f"s{player + 1}.z{k}" for k in slots}


# -- the board profile ------------------------------------------------------------------------


def inside(region: Region, size: tuple[float, float]) -> bool:
    return (
        region.x >= 0
        and region.y >= 0
        and region.x + region.w <= size[0]
        and (region.y + region.h <= size[1])
    )


def overlap(a: Region, b: Region) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def test_spots_are_fifty_camera_slots_in_six_rows_as_the_profile_lays_them() -> None:
    spots = GAME.spots()
    assert set(spots.values()) == {CAMERA}
    rows = GAME.board_rows()
    assert [len(row) for row in rows] == [5, 10, 10, 10, 10, 5]  # trophies, two zones, trophies
    assert rows[0][0] == "s2.t1" and rows[4][9] == "s1.z20" and rows[5][4] == "s1.t5"
    # Row by row from the top edge, as the profile's regions lie on the table.
    tops = [{region_of(spot)[1] for spot in row} for row in rows]
    assert all(len(top) == 1 for top in tops)
    ys = [min(top) for top in tops]
    assert ys == sorted(ys) and len(set(ys)) == len(rows)
    assert sorted(spot for row in rows for spot in row) == sorted(spots)


def region_of(spot: str) -> Region:
    region = PROFILE.spots[spot].region
    assert region is not None
    return region


def test_builtin_profile_gives_every_slot_one_led_and_a_camera_region_on_the_table() -> None:
    assert PROFILE.game == "potions"
    assert set(PROFILE.spots) == set(GAME.spots())
    assert not PROFILE.reed_channels() and all(s.reed is None for s in PROFILE.spots.values())
    size = PROFILE.table_size_mm
    assert size is not None
    regions = PROFILE.camera_regions()
    assert set(regions) == set(GAME.spots())
    for spot, region in regions.items():
        assert inside(region, size), (spot, region)
    # The camera tells slots apart: no two regions share any of the table.
    for (a, ra), (b, rb) in combinations(regions.items(), 2):
        assert not overlap(ra, rb), (a, b)
    # One LED a slot, all different, covering the strip in the header's order.
    assert all(len(spot.leds) == 1 for spot in PROFILE.spots.values())
    leds = {spot_id: spot.leds[0] for spot_id, spot in PROFILE.spots.items()}
    assert PROFILE.led_count == 50 and sorted(leds.values()) == list(range(50))
    for k in range(1, 21):
        assert leds[f"s1.z{k}"] == k - 1 and leds[f"s2.z{k}"] == 24 + k
    for k in range(1, 6):
        assert leds[f"s1.t{k}"] == 19 + k and leds[f"s2.t{k}"] == 44 + k


# -- the session: set-up ----------------------------------------------------------------------


def test_set_up_deals_are_read_off_the_board(tmp_path: Path) -> None:
    session = start_session(tmp_path, new_state())
    assert session.view(0.0).roles == {"s1.z1": "legal"}  # where the first card goes face up
    session.on_layout({"s1.z1": "2x9"}, now=0.0)
    assert session.state.actions() == (Deal(0, "2x9"),)
    assert session.view(0.0).roles == {"s2.z1": "legal"}
    session.on_layout({"s1.z1": "2x9", "s2.z1": "7x9"}, now=1.0)
    assert session.state.actions() == (Deal(0, "2x9"), Deal(1, "7x9"))
    assert journal_history(tmp_path) == [Deal(0, "2x9").to_json(), Deal(1, "7x9").to_json()]
    details = GAME.describe(session.state)
    # Then 4 cards to each hand; the rest of the 80 is the pile (MP-1).
    assert details["phase"] == "place" and details["hands"] == {"player_1": 4, "player_2": 4}
    assert details["pile"] == 80 - 2 - 8
    assert session.state.current_player() == 0  # the youngest (option "youngest") starts


@pytest.mark.parametrize("second", ["7x9", "9x10", "2x1"])
def test_set_up_deals_laid_in_any_order_catch_up(tmp_path: Path, second: str) -> None:
    """Player_2's card turned up first is read once player_1's is down: nothing blinks meanwhile,
    whichever card it is ("2x1" is the first card of the deck's order)."""
    session = start_session(tmp_path, new_state(), settle=1.0)
    session.on_layout({"s2.z1": second}, now=0.0)
    assert session.state.actions() == ()
    assert session.fixes(now=100.0) == frozenset()
    assert not session.view(now=100.0).blinking
    session.on_layout({"s2.z1": second, "s1.z1": "5x5"}, now=1.0)
    assert session.state.actions() == (Deal(0, "5x5"), Deal(1, second))
    assert session.sensed == session.expected and not session.view(100.0).blinking


@pytest.mark.parametrize(
    ("options", "card"),
    [({}, "11x3"), ({"deck": "64"}, "2x10"), ({"colours": "green"}, "7x9")],
    ids=["no such card", "not in the 64-card edition", "purple with green only"],
)
def test_a_card_outside_the_chosen_deck_blinks_with_a_message(
    tmp_path: Path, options: dict[str, Any], card: str
) -> None:
    """MP-1: the deck and colours options decide which cards the camera may see."""
    session = start_session(tmp_path, new_state(options), settle=1.0)
    session.on_layout({"s1.z1": card}, now=0.0)
    assert session.state.actions() == ()
    assert session.message == f"s1.z1 shows {card!r}, which is not a card of this deck"
    assert not session.view(0.5).blinking
    assert session.view(1.0).blinking == {"s1.z1"}


# -- the session: a turn ----------------------------------------------------------------------


@pytest.mark.parametrize("slot", [2, 9, 20])
def test_a_card_put_down_in_an_empty_slot_is_the_place(tmp_path: Path, slot: int) -> None:
    """Step 1: the card goes beside the others; the session takes the slot the camera shows."""
    session = start_session(tmp_path, dealt())
    # Any empty slot of player_1's zone may take the card.
    assert roles_of(session.view(0.0).roles, "legal") == zone(0, *range(2, 21))
    session.on_layout(session.expected | {f"s1.z{slot}": "3x7"}, now=0.0)
    assert session.state.actions()[-1] == Place("3x7", slot)
    assert session.message == f"Play card 3\u00d77 into slot {slot} (seen on the table)"
    assert journal_history(tmp_path) == [Place("3x7", slot).to_json()]
    state = potions_state(session)
    assert state.phase is Phase.CAPTURE and state.hands == [3, 4]
    assert session.sensed == session.expected


def test_two_potions_and_a_monster_taken_off_with_the_trophy_laid_is_the_capture(
    tmp_path: Path,
) -> None:
    """MP-2, and the rulebook's example: afterwards neither play zone holds a card."""
    session = start_session(tmp_path, dealt(Place("3x7", 2)))
    assert potions_state(session).legal_actions() == [EXAMPLE, EndTurn()]
    # Nothing lit says a capture is open: the player's to find, without the hints option.
    assert roles_of(session.view(0.0).roles, "legal") == set()
    session.on_layout({"s1.t1": "7x9"}, now=0.0)
    assert session.state.actions()[-1] == EXAMPLE
    assert journal_history(tmp_path) == [EXAMPLE.to_json()]
    state = potions_state(session)
    assert state.trophies == [["7x9"], []] and not state.zone_cards(0) + state.zone_cards(1)
    assert list(state.pile_under) == [("2x9", "3x7")]  # spent: under the pile
    # Step 3 comes with the capture: player_1 draws back to 4, and player_2 is to place.
    assert state.hands == [4, 4] and state.current_player() == 1 and state.phase is Phase.PLACE
    assert session.view(0.0).roles["s1.t1"] == "trophy"


def test_a_monster_laid_beyond_the_next_trophy_slot_is_no_capture(tmp_path: Path) -> None:
    session = start_session(tmp_path, dealt(Place("3x7", 2)), settle=1.0)
    session.on_layout({"s1.t3": "7x9"}, now=0.0)
    assert session.state.actions() == dealt(Place("3x7", 2)).actions()
    assert session.view(1.0).blinking == EXAMPLE_SPOTS | {"s1.t3"}
    session.on_layout({"s1.t1": "7x9"}, now=2.0)  # moved along to the first slot
    assert session.state.actions()[-1] == EXAMPLE and not session.view(10.0).blinking


def test_second_capture_goes_in_the_next_trophy_slot(tmp_path: Path) -> None:
    # After the example: player_2 lays "6x3" (monster 18), player_1 "2x3" (potion 3), player_2
    # "9x9"; then player_1's "2x6" (potion 6) makes 3 x 6 = 18.
    state = dealt(Place("3x7", 2), EXAMPLE, Place("6x3", 1), EndTurn())
    state.apply(Place("2x3", 1))  # player_1: monster 6, potion 3
    state.apply(EndTurn())
    state.apply(Place("9x9", 2))  # player_2: potions 3 and 9, no monster 27 to take
    state.apply(EndTurn())
    session = start_session(tmp_path, state)
    session.on_layout(session.expected | {"s1.z2": "2x6"}, now=0.0)
    assert session.state.actions()[-1] == Place("2x6", 2)
    assert potions_state(session).captures(0) == [Capture("6x3", "2x3", "2x6")]
    assert roles_of(session.view(0.0).roles, "legal") == set()  # the player's to find
    session.on_layout(without(session.expected, "s2.z1", "s1.z1", "s1.z2") | {"s1.t2": "6x3"}, 1.0)
    assert session.state.actions()[-1] == Capture("6x3", "2x3", "2x6")
    assert potions_state(session).trophies[0] == ["7x9", "6x3"]
    assert roles_of(session.view(1.0).roles, "trophy") == {"s1.t1", "s1.t2"}


def test_end_turn_through_act_draws_back_to_four_and_passes(tmp_path: Path) -> None:
    session = start_session(tmp_path, dealt(Place("3x6", 2)))  # 9 x 6 = 54: no capture
    assert potions_state(session).legal_actions() == [EndTurn()]
    assert session.act("end_turn", now=0.0) == EndTurn()
    assert session.message == "End the turn (control)"
    assert journal_history(tmp_path) == [EndTurn().to_json()]
    state = potions_state(session)
    assert state.current_player() == 1 and state.hands == [4, 4] and state.pile_size == 69
    assert roles_of(session.view(0.0).roles, "legal") == zone(1, *range(2, 21))
    with pytest.raises(IllegalActionError, match="not a legal action now"):
        session.act("end_turn", now=0.0)  # player_2 places a card first (step 1)


def test_a_refused_id_is_answered_with_the_nearest_legal_ones(tmp_path: Path) -> None:
    """A turn has over a thousand legal placements: a refusal names a handful, on one line."""
    session = start_session(tmp_path, dealt())
    legal = [a.id for a in session.state.legal_actions()]
    assert len(legal) > 1000
    with pytest.raises(IllegalActionError) as refused:
        session.act("plac:2x2:3", now=0.0)
    message = str(refused.value)
    assert "\n" not in message
    named = message.partition("nearest legal: ")[2].partition(" (8 of ")[0].split(", ")
    assert named[0] == "place:2x2:3" and len(named) == 8 and set(named) <= set(legal)
    assert message.endswith(f"(8 of {len(legal)}, of kinds place: `smartboard actions` lists them)")


def test_end_turn_with_a_capture_open_is_flagged_until_it_is_made(tmp_path: Path) -> None:
    """MP-3: the forgotten capture's cards blink at once; one capture must be made; the opponent
    takes the top card of the pile, and their next draw fills their hand only back up to 4."""
    session = start_session(tmp_path, dealt(Place("3x7", 2)), settle=1.0)
    session.act("end_turn", now=0.0)
    state = potions_state(session)
    assert state.phase is Phase.FORGOTTEN and state.current_player() == 0
    view = session.view(now=0.0)
    assert view.blinking == EXAMPLE_SPOTS  # no settle time: nothing is out of place
    assert roles_of(view.roles, "forgotten") == EXAMPLE_SPOTS
    assert GAME.describe(state)["forgotten"] == [EXAMPLE.id]
    assert session.message == (
        "forgotten capture (MP-3): Player 1 must make one of 7x9 with 2x9 and 3x7; "
        "then Player 2 takes the pile's top card"
    )
    with pytest.raises(IllegalActionError, match=r"legal: capture:7x9:2x9:3x7$"):
        session.act("end_turn", now=0.0)
    session.on_layout({"s1.t1": "7x9"}, now=1.0)
    assert session.state.actions()[-1] == EXAMPLE
    assert not session.view(now=1.0).blinking
    assert (
        session.message
        == "Capture monster 63 with potions 9 and 7 (seen on the table)"  # values, as the page says
    )
    details = GAME.describe(session.state)
    assert details["forgotten"] is None
    # The spent pair went under the pile, which gave the reward and player_1's draw: 70 + 2 - 2.
    assert details["hands"] == {"player_1": 4, "player_2": 5} and details["pile"] == 70
    # Player_2 places from five: four left, and the end of the turn draws nothing.
    session.on_layout(session.expected | {"s2.z1": "5x5"}, now=2.0)
    session.act("end_turn", now=2.0)
    details = GAME.describe(session.state)
    assert details["hands"] == {"player_1": 4, "player_2": 4} and details["pile"] == 70
    assert [a["type"] for a in journal_history(tmp_path)] == [
        "EndTurn",
        "Capture",
        "Place",
        "EndTurn",
    ]


# player_1: "2x9" (potion 9) and "5x2" (potion 2); player_2: "7x9" (63) and "6x3" (18).
TWO_OPEN = (Place("5x2", 2), EndTurn(), Place("6x3", 2), EndTurn())
TWO_OPEN_SPOTS = {"s2.z1", "s2.z2", "s1.z1", "s1.z2", "s1.z3"}


def test_a_card_held_while_a_capture_is_to_find_never_blinks(tmp_path: Path) -> None:
    """The walk: a monster lifted for a right capture blinked before the potions were laid.
    Held, a card does not blink, whether its monster can be captured or not: blinking only for
    the others would say which can be. A capture laid out wrong blinks, as any mistake."""
    session = start_session(tmp_path, dealt(*TWO_OPEN, options={"hints": False}))
    session.on_layout(session.expected | {"s1.z3": "4x5"}, now=0.0)  # potion 5: 18 open, not 63
    assert {c.monster for c in potions_state(session).captures(0)} == {"6x3"}
    for monster in ("s2.z1", "s2.z2"):  # 63, then 18
        session.on_layout(without(session.expected, monster), now=0.5)
        view = session.view(now=9.0)
        assert not view.blinking and "landing" not in view.roles.values()
    # 63 laid in the trophy place with potions 9 and 5 (45): no capture, which blinks.
    session.on_layout(without(session.expected, "s2.z1", "s1.z1", "s1.z3") | {"s1.t1": "7x9"}, 1.0)
    assert session.view(now=9.0).blinking


@pytest.mark.parametrize("hints", [True, False])
def test_hints_option_lights_the_open_captures(tmp_path: Path, hints: bool) -> None:
    session = start_session(tmp_path, dealt(*TWO_OPEN, options={"hints": hints}))
    session.on_layout(session.expected | {"s1.z3": "3x7"}, now=0.0)
    assert set(potions_state(session).captures(0)) == {
        Capture("7x9", "2x9", "3x7"),  # 9 x 7 = 63
        Capture("6x3", "2x9", "5x2"),  # 9 x 2 = 18
    }
    view = session.view(now=0.0)
    assert roles_of(view.roles, "hint") == (TWO_OPEN_SPOTS if hints else set())
    assert not view.blinking  # a hint is no alarm
    # Without the hints, nothing says a capture is open (the walk: the trophy place lit as
    # "legal" as soon as one was): the player is to find it, and may still make it.
    assert roles_of(view.roles, "legal") == set()
    captures = [a for a in session.legal_actions() if isinstance(a, Capture)]
    assert [GAME.to_find(session.state, a) for a in captures] == [not hints] * 2
    session.table_seats = frozenset({0})  # the table's own capture is lit for hands, not found
    assert not any(session.to_find(a) for a in captures)
    session.table_seats = frozenset()
    # Nor where a monster lifted would land: lifting one is no way to ask.
    session.on_layout(without(session.expected, "s2.z1"), now=0.5)
    assert roles_of(session.view(now=0.5).roles, "landing") == ({"s1.t1"} if hints else set())
    session.on_layout(session.expected, now=0.6)
    # Once a capture is made, no hint stays (one capture a turn).
    session.on_layout(without(session.expected, "s2.z1", "s1.z1", "s1.z3") | {"s1.t1": "7x9"}, 1.0)
    assert session.state.actions()[-1] == Capture("7x9", "2x9", "3x7")
    assert "hint" not in session.view(now=1.0).roles.values()


def test_forgotten_captures_all_blink_and_the_player_makes_one_of_their_choice(
    tmp_path: Path,
) -> None:
    session = start_session(tmp_path, dealt(*TWO_OPEN, Place("3x7", 3)))
    session.act("end_turn", now=0.0)
    assert session.view(now=0.0).blinking == TWO_OPEN_SPOTS
    assert sorted(GAME.describe(session.state)["forgotten"]) == [
        "capture:6x3:2x9:5x2",
        "capture:7x9:2x9:3x7",
    ]
    session.on_layout(without(session.expected, "s2.z2", "s1.z1", "s1.z2") | {"s1.t1": "6x3"}, 1.0)
    assert session.state.actions()[-1] == Capture("6x3", "2x9", "5x2")
    assert not session.view(now=1.0).blinking


@pytest.mark.parametrize("trophy", [True, False], ids=["monster laid", "monster in hand"])
def test_a_wrong_capture_is_explained_and_its_cards_blink_after_settling(
    tmp_path: Path, trophy: bool
) -> None:
    """MP-2: 9 x 6 = 54 is not 63; the cards taken off are named and go back."""
    session = start_session(tmp_path, dealt(Place("3x6", 2)), settle=1.0)
    before = session.state.history()
    taken = without(session.expected, *EXAMPLE_SPOTS) | ({"s1.t1": "7x9"} if trophy else {})
    session.on_layout(taken, now=0.0)
    assert session.state.history() == before
    assert session.message == "9 x 6 = 54, not 63: put the cards back (MP-2)"
    assert session.problem is not None and session.problem.spots == EXAMPLE_SPOTS
    assert not session.view(now=0.5).blinking  # hands may still be at work
    view = session.view(now=1.0)
    assert view.blinking == EXAMPLE_SPOTS | ({"s1.t1"} if trophy else set())
    assert all(view.roles[spot] == "fix" for spot in view.blinking)
    session.on_layout(session.expected, now=2.0)  # put back
    assert session.problem is None and session.message == ""
    assert not session.view(now=10.0).blinking
    assert session.state.history() == before and journal_history(tmp_path) == []


@pytest.mark.parametrize(
    "placed", [(), (Place("3x6", 2),)], ids=["before placing", "after placing"]
)
def test_a_card_put_down_by_the_player_not_to_move_is_flagged(
    tmp_path: Path, placed: tuple[Action, ...]
) -> None:
    session = start_session(tmp_path, dealt(*placed), settle=1.0)
    before = session.state.history()
    session.on_layout(session.expected | {"s2.z4": "8x8"}, now=0.0)
    assert session.state.history() == before
    assert session.message.startswith("it is Player 1's turn: ")  # seats by their names
    assert session.problem is not None and session.problem.spots == {"s2.z4"}
    assert session.view(now=1.0).blinking == {"s2.z4"}


def test_a_stranger_card_beside_a_real_placement_is_the_one_flagged(tmp_path: Path) -> None:
    session = start_session(tmp_path, dealt(), settle=1.0)
    session.on_layout(session.expected | {"s1.z2": "3x7", "s2.z2": "8x8"}, now=0.0)
    assert session.state.actions() == dealt().actions()  # neither is read while both lie there
    assert session.problem is not None and session.problem.spots == {"s2.z2"}
    session.on_layout(session.expected | {"s1.z2": "3x7"}, now=1.0)  # the stranger taken back
    assert session.state.actions()[-1] == Place("3x7", 2) and session.problem is None


def test_cards_taken_before_placing_are_refused(tmp_path: Path) -> None:
    """Step 1 comes first: a capture with the cards already down must wait for a placement."""
    session = start_session(tmp_path, dealt(), settle=1.0)
    session.on_layout({"s2.z1": "7x9"}, now=0.0)
    assert session.message == "Player 1 places a card first (step 1): put back what was taken"
    assert session.view(now=1.0).blinking == {"s1.z1"}


def test_a_spent_card_cannot_be_placed(tmp_path: Path) -> None:
    """The capture's two potions went under the pile: neither can come back from a hand yet."""
    session = start_session(tmp_path, dealt(Place("3x7", 2), EXAMPLE), settle=1.0)
    session.on_layout(session.expected | {"s2.z1": "3x7"}, now=0.0)
    assert session.state.actions()[-1] == EXAMPLE
    assert session.message.startswith("card 3x7 was spent")
    assert session.view(now=1.0).blinking == {"s2.z1"}


def test_one_card_seen_in_two_slots_is_refused(tmp_path: Path) -> None:
    session = start_session(tmp_path, dealt(), settle=1.0)
    session.on_layout(session.expected | {"s1.z5": "2x9"}, now=0.0)
    assert session.message == "card 2x9 cannot lie in s1.z5: it is in s1.z1"
    assert session.view(now=1.0).blinking == {"s1.z5"}


def test_a_card_beside_a_full_zone_is_named_then_its_capture_is_seen(tmp_path: Path) -> None:
    """FAQ: nothing caps a play zone. With its 20 slots taken, the card goes beside the
    zone where the camera cannot see it: the message asks for it to be named through the control
    interface; a capture it makes shows on the table (the monster off, the trophy down)."""
    state = full_zones(tmp_path)
    session = start_session(tmp_path, state, settle=1.0)
    session.on_layout(session.expected, now=0.0)
    assert session.message == (
        "Player 1's zone has no free slot on the table: lay the card beside it and name it "
        "(place:CARD:21)"
    )
    view = session.view(now=0.0)
    assert not roles_of(view.roles, "legal") and not view.blinking  # nowhere to light
    layout = dict(session.expected)
    assert session.act("place:a:21", now=0.0) == Place("a", 21)
    assert session.expected == layout == session.sensed  # nothing the camera sees has moved
    assert potions_state(session).zone_cards(0)[-1] == "a"
    session.on_layout(without(session.expected, "s2.z1", "s1.z5") | {"s1.t1": "m"}, now=1.0)
    assert session.state.actions()[-1] == Capture("m", "a", "c8")  # 7 x 3 = 21
    assert not session.view(now=10.0).blinking
    assert GAME.describe(session.state)["zones"]["player_1"].get("21") is None  # a is spent


# -- the lights -------------------------------------------------------------------------------


def test_every_light_role_of_random_games_is_in_the_palette() -> None:
    used: set[str] = set()
    for seed in range(300):
        rng = random.Random(seed)
        state = new_state({"hints": seed % 2 == 0})
        hidden = GAME.deal(state, rng)
        while not state.is_terminal():
            random_step(state, rng, hidden)
            roles = GAME.lights(state)
            assert set(roles) <= set(GAME.spots())
            # MP-3: what blinks is the forgotten capture, lit as such.
            alerts = alert_spots(state)
            assert alerts == roles_of(roles, "forgotten")
            assert bool(alerts) == (state.phase is Phase.FORGOTTEN)
            used.update(roles.values())
    assert used >= {"trophy", "forgotten", "hint"}
    assert used | SESSION_ROLES <= set(PALETTE), sorted(used - set(PALETTE))


# -- the daemon, end to end -------------------------------------------------------------------


class CheckedHands(Hidden):
    """The bots' real hands, checking each card the session saw placed against the hand it came
    from before the hands forget it."""

    def __init__(self, inner: Hidden) -> None:
        assert isinstance(inner, PotionsHidden)
        self.inner = inner
        self.placed: list[tuple[str, bool]] = []  # (card, held by the player to move)
        self.seen = 0  # actions observed

    def choices(self, state: GameState) -> list[Action]:
        return self.inner.choices(state)

    def outcome(self, state: GameState) -> Action | None:
        return self.inner.outcome(state)

    def redeal(self, state: GameState, rng: random.Random, seat: int) -> Hidden:
        return self.inner.redeal(state, rng, seat)

    def observe(self, action: Action, state: GameState) -> None:
        if isinstance(action, Place):
            assert isinstance(state, PotionsState)
            # A placement leaves the mover to move (the capture step is theirs).
            self.placed.append((action.card, action.card in self.inner.hands[state.to_move]))
        self.inner.observe(action, state)
        self.seen += 1

    def catch_up(self, state: GameState) -> None:
        """Observe what the bots never followed: they stop once the game is over."""
        shadow = new_state(state.options)
        for action in state.actions()[: self.seen]:
            shadow.apply(action)
        for action in state.actions()[self.seen :]:
            shadow.apply(action)
            self.observe(action, shadow)


def test_bots_play_potions_on_the_simulated_table_to_the_end(tmp_path: Path) -> None:
    run = RunOptions(
        state_dir=tmp_path / "state",
        socket_path=tmp_path / "control.sock",
        bots=True,
        pace=0.0,
        until_end=True,
        seed=11,
    )
    daemon = Daemon(fast_sim_config(game="potions", **QUICK_CAMERA), run)
    daemon.open()
    try:
        assert daemon.camera is not None and not daemon.reeds.channels
        assert daemon.bots is not None and daemon.bots.hands.hidden is not None
        hands = CheckedHands(daemon.bots.hands.hidden)
        daemon.bots.hands.hidden = hands
        assert daemon.run() == 0
        state = daemon.session.state
        assert isinstance(state, PotionsState) and state.is_terminal()
        result = GAME.result(state)
        assert result is not None
        scores = result["scores"]
        assert scores == {"player_1": len(state.trophies[0]), "player_2": len(state.trophies[1])}
        if result["winners"]:
            (winner,) = result["winners"]
            assert scores[winner] > min(scores.values())
        else:
            # MP-4: equal captures draw, once the pile cannot be drawn from.
            assert result["ended_by"] == "pile" and len(set(scores.values())) == 1
        hands.catch_up(state)
        # Every card the session saw placed was in the hand of the bot placing it.
        record = Journal(tmp_path / "state").read()
        places = [a["card"] for a in record.history() if a["type"] == "Place"]
        assert places and [card for card, _ in hands.placed] == places
        assert all(held for _, held in hands.placed), [c for c, held in hands.placed if not held]
        replayed = GAME.replay(record.history(), record.options)
        assert replayed.history() == state.history() and GAME.result(replayed) == result
        types = {a["type"] for a in record.history()}
        assert {"Deal", "Place", "Capture", "EndTurn"} <= types
        # The camera settled on the final table, with the trophies lit.
        assert daemon.session.sensed == daemon.session.expected == GAME.layout(state)
        assert daemon.settler.settled == GAME.layout(state)
        roles = daemon.session.view(daemon.clock()).roles
        trophies = sum(len(t) for t in state.trophies)
        assert trophies and len(roles_of(roles, "trophy")) == trophies
    finally:
        daemon.close()


# -- the command line -------------------------------------------------------------------------


FAST_CAMERA = "[camera]\nfps = 120\nstable_frames = 2\n[session]\nsettle_s = 0.2\n"


def test_cli_run_with_bots_and_options_prints_the_result(tmp_path: Path) -> None:
    """`--option` reaches the game: the 64-card edition's green cards only, with hints."""
    config = tmp_path / "fast.toml"
    config.write_text(FAST_CAMERA)
    state_dir = tmp_path / "state"
    options = ["--option", "deck=64", "--option", "colours=green", "--option", "hints=true"]
    args = ["--sim", "--bots", "--game", "potions", "--until-end", "--pace", "0", *options]
    done = smartboard(
        "run", *args, "--config", str(config), "--state-dir", str(state_dir), "--seed", "4"
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("result: ")
    result = json.loads(last.removeprefix("result: "))
    assert set(result["scores"]) == {"player_1", "player_2"}
    assert len(result["winners"]) == 1 or result["ended_by"] == "pile"
    record = Journal(state_dir).read()
    assert record.game == "potions"
    assert record.options == {"deck": "64", "colours": "green", "hints": True, "youngest": 0}
    green = {card.id for card in load_deck("64", "green")}
    seen = {
        a[k]
        for a in record.history()
        for k in ("card", "monster", "potion_a", "potion_b")
        if k in a
    }
    assert seen and seen <= green


def test_cli_simulates_a_thousand_potions_games_to_the_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["simulate", "potions", "--games", "1000", "--seed", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "potions" and report["games"] == report["finished"] == 1000
    assert sum(report["wins"].values()) + report["draws"] == 1000
    assert set(report["mean_scores"]) == {"player_1", "player_2"}


@pytest.mark.parametrize("option", ["deck=64", "colours=green", "colours=purple", "hints=true"])
def test_cli_accepts_potions_options(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "potions", "--option", option, "--games", "20", "--seed", "1", "--json"]
    assert cli.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == 20


def test_cli_accepts_a_deck_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """MP-1: any edition is another deck file: here twelve cards of the 2 and 3 tables."""
    deck = tmp_path / "small.toml"
    cards = [(t, m) for t in (2, 3) for m in range(1, 7)]
    deck.write_text(
        'name = "small"\n'
        + "".join(
            f'[[cards]]\nid = "{t}x{m}"\nmonster = {t * m}\npotion = {m}\ncolour = "green"\n'
            for t, m in cards
        )
    )
    argv = ["simulate", "potions", "--option", f"deck={deck}", "--games", "50", "--json"]
    assert cli.main(argv) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == 50


@pytest.mark.parametrize("command", ["simulate", "run"])
@pytest.mark.parametrize(
    ("option", "message"),
    [
        ("speed=3", "--option 'speed=3': potions's options are colours, deck, hints, youngest"),
        ("hints", "--option 'hints': potions's options are colours, deck, hints, youngest"),
        ("hints=maybe", "--option hints takes true or false, not 'maybe'"),
        ("youngest=first", "--option youngest takes a whole number, not 'first'"),
        ("youngest=2", "option 'youngest' must be 0 or 1"),
        ("colours=red", "option 'colours' must be 'green', 'purple' or 'both', not 'red'"),
        ("deck=99", "no deck '99': neither a built-in edition (80, 64) nor a file"),
    ],
)
def test_cli_refuses_a_bad_potions_option(
    tmp_path: Path, command: str, option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["potions"] if command == "simulate" else ["--sim", "--game", "potions"]
    extra = ["--games", "1"] if command == "simulate" else ["--state-dir", str(tmp_path)]
    assert cli.main([command, *where, "--option", option, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("smartboard: ") and message in captured.err
    assert not Journal(tmp_path).exists()  # refused before any game was started


def test_an_open_capture_is_not_shown_on_the_page_and_is_made_by_guessing(
    page: Page, tmp_path: Path
) -> None:
    """The walks: as soon as a capture was open the page outlined the monster, lit the trophy
    place and listed "Capture…", while the game's hints were off, "since finding them is the
    lesson"; then a tap on a monster said whether it could be captured. Now a capture is
    guessed whole, its monster and two potions tapped in any order, as on the table: a wrong
    guess is said to make none and costs nothing; a right one is made."""
    state = dealt(*TWO_OPEN)
    state.apply(Place("3x7", 3))  # 9 x 7 = 63 and 9 x 2 = 18 open (MP-2)
    journal = Journal(tmp_path)
    journal.start("potions", state.options)
    journal.append_actions(state.history())
    with dashboard(tmp_path, "--game", "potions") as table:
        page.goto(table.page)
        expect(page.locator("#actions button")).to_have_text(["End the turn"])
        expect(page.locator("#all-actions-box")).to_be_hidden()
        expect(page.locator("#board .pointable")).to_have_count(0)
        expect(page.locator('#board [data-role="legal"]')).to_have_count(0)
        help_box = page.locator("#point-help")
        expect(help_box).to_contain_text("Tap the 3 pieces your move takes")
        capture = page.evaluate("snap.actions.find((a) => a.id === 'capture:7x9:2x9:3x7')")
        assert capture["find"] is True and sorted(capture["covers"]) == ["s1.z1", "s1.z3"]
        # A wrong guess: monster 63 with potions 9 and 2 (18).
        for spot in ("s1.z2", capture["at"], "s1.z1"):
            page.locator(f'#board [data-spot="{spot}"]').first.click()
        expect(help_box).to_contain_text("Those 3 pieces make no move")
        expect(page.locator("#log li")).to_have_count(len(state.history()))
        # The right one, in any order: made.
        for spot in ("s1.z3", capture["at"], "s1.z1"):
            page.locator(f'#board [data-spot="{spot}"]').first.click()
            if spot != "s1.z1":
                expect(page.locator(f'#board [data-spot="{spot}"].guessed')).to_have_count(1)
        expect(page.locator("#log li").last).to_have_text(
            "Player 1: Capture monster 63 with potions 9 and 7"
        )
