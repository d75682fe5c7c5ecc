"""Mightymania on the table: the board profile, the session reading the camera and the dice, the
lights, the command line and the daemon.

The rules themselves are tested in test_mightymania_rules.py; here the generic table machinery
meets them. Rule ids (MM-1 .. MM-8, CLARIFICATIONS.md) and the
rulebook's rule numbers are cited where the behaviour depends on one. The default decks are the
Titans for player_1 (T1 the Leader, T2 Pyra with 2 lives) and the Rogues for player_2 (R1 the
Leader, R3 Shade with 1 life, R4 Brute with 2).

Most tests start from one scripted game, built up below (`START` .. `DEFENCE`): player_1 rolls
6 against 1 and attacks from column 2 to column 2; T2 turns up, player_2 declines a defence
(MM-5), and R3 turns up; 3 rounds (thermokinetic,
speed, brainwashing against speed, force, invisibility) go 2-1 to player_1, so R3 loses its only
life and leaves. Player_2 then moves a card into the gap (MM-7) and attacks player_1's face-down
column 3, the Leader; R4 turns up, and player_1 decides on a defence while the Leader is still
face down (MM-5).
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from conftest import QUICK_CAMERA, fast_sim_config, smartboard
from mightymania_play import arrange, play
from table_session import journal_history, roles_of, session_over, without

from controller import cli
from controller.config import load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.rules.api import (
    CAMERA,
    Action,
    DiceRequest,
    GameState,
    Hidden,
    IllegalActionError,
    Layout,
)
from controller.rules.mightymania import (
    D6,
    DOWN,
    GAME,
    POS,
    SLOT,
    Attack,
    Clear,
    Defend,
    Lay,
    LayPower,
    MightymaniaHidden,
    MightymaniaState,
    Move,
    NoDefence,
    Phase,
    Reveal,
    RevealPower,
    Rounds,
    StartRoll,
    Stay,
)
from controller.session import Session
from controller.simulate import random_step
from hardware.profile import Region, builtin_profile_path, load_profile

PALETTE = load_config(None).palette
PROFILE = load_profile(builtin_profile_path("mightymania"), GAME.spots())
SESSION_ROLES = {"legal", "landing", "changed", "fix", "candidate"}  # the session's own prompts
P1, P2 = 0, 1

# The scripted game of the module docstring, step by step.
LAYS = tuple(Lay(p, col) for p in (P1, P2) for col in range(1, 5))
START = (*LAYS, StartRoll(6), StartRoll(1))  # rule 2: player_1 rolls higher and attacks
# MM-5: player_2 declines to defend s2.c2 (it may be the Leader) before it turns up.
FIRST_DUEL = (*START, Attack(2, 2), Reveal(P1, 2, "T2"), NoDefence(), Reveal(P2, 2, "R3"))
FIRST_POWERS = {  # MM-2, MM-4: each power beats the next two of the cycle, for +2
    "s1.r1": "thermokinetic",  # T2 8 + 2 (beats speed) against R3 3: player_1
    "s2.r1": "speed",
    "s1.r2": "speed",  # T2 5 + 2 (beats force) against R3 2: player_1
    "s2.r2": "force",
    "s1.r3": "brainwashing",  # T2 3 + 2 (beats invisibility) against R3 9: player_2
    "s2.r3": "invisibility",
}
FIRST_REVEALS = tuple(
    RevealPower(int(spot[1]) - 1, int(spot[-1]), power) for spot, power in FIRST_POWERS.items()
)
FIRST_LAID = (
    *FIRST_DUEL,
    Rounds(3),
    *(LayPower(P1, k) for k in (1, 2, 3)),  # rule 8: the attacker's first
    *(LayPower(P2, k) for k in (1, 2, 3)),
)
CLEARING = (*FIRST_LAID, *FIRST_REVEALS)  # R3 beaten, still on the table
MOVING = (*CLEARING, Clear())  # player_2 to attack, and first to move (MM-7)
DEFENCE = (*MOVING, Move(1, 2), Attack(2, 3), Reveal(P2, 2, "R4"))  # MM-5: player_1 decides


# -- helpers ----------------------------------------------------------------------------------


def new_state(options: dict[str, Any] | None = None) -> MightymaniaState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, MightymaniaState)
    return state


def after(*actions: Action) -> MightymaniaState:
    state = new_state()
    for action in actions:
        state.apply(action)
    return state


def start_session(tmp_path: Path, state: GameState, settle: float = 1.0) -> Session:
    return session_over(GAME, tmp_path, state, settle)


def mm_state(session: Session) -> MightymaniaState:
    state = session.state
    assert isinstance(state, MightymaniaState)
    return state


def quiet(session: Session, now: float) -> None:
    """Nothing to put right, however long the table stands so."""
    assert session.fixes(now + 100.0) == frozenset()
    assert not session.view(now + 100.0).blinking


ALL_DOWN = {spot: DOWN for row in POS for spot in row}


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


def test_spots_are_eighteen_camera_slots_in_four_rows() -> None:
    spots = GAME.spots()
    assert len(spots) == 18 and set(spots.values()) == {CAMERA}
    rows = GAME.board_rows()
    assert rows == [
        ["s2.r5", "s2.r4", "s2.r3", "s2.r2", "s2.r1"],
        ["s2.c1", "s2.c2", "s2.c3", "s2.c4"],
        ["s1.c1", "s1.c2", "s1.c3", "s1.c4"],
        ["s1.r1", "s1.r2", "s1.r3", "s1.r4", "s1.r5"],
    ]
    assert sorted(spot for row in rows for spot in row) == sorted(spots)


def test_squad_cards_go_by_their_decks_names_mm_1() -> None:
    """The page names a squad card as its deck file does ("Colossus"), not by the id the
    camera reads ("T1"); power cards keep the words' names."""
    names = GAME.token_names(GAME.new_initial_state())
    assert names["T1"] == "Colossus" and names["R1"] != "R1"
    assert sorted(names) == ["R1", "R2", "R3", "R4", "T1", "T2", "T3", "T4"]


def test_builtin_profile_gives_every_slot_one_led_and_a_camera_region_on_the_table() -> None:
    assert PROFILE.game == "mightymania"
    assert set(PROFILE.spots) == set(GAME.spots())
    assert not PROFILE.reed_channels() and all(s.reed is None for s in PROFILE.spots.values())
    size = PROFILE.table_size_mm
    assert size is not None
    regions = PROFILE.camera_regions()
    assert set(regions) == set(GAME.spots())
    for spot, region in regions.items():
        assert inside(region, size), (spot, region)
    for (a, ra), (b, rb) in combinations(regions.items(), 2):
        assert not overlap(ra, rb), (a, b)
    # MM-3: column k faces column k; player_2 sits across, so their round slots run from the
    # right as player_1 sees the table (rule 8: left to right from each player's side).
    for k in range(4):
        assert regions[POS[P1][k]].x == regions[POS[P2][k]].x
        assert regions[POS[P1][k]].y > regions[POS[P2][k]].y
    assert [regions[s].x for s in SLOT[P1]] == sorted(regions[s].x for s in SLOT[P1])
    assert [regions[s].x for s in SLOT[P2]] == sorted(
        (regions[s].x for s in SLOT[P2]), reverse=True
    )
    # One LED a slot, all different, covering the strip in the header's order.
    assert all(len(spot.leds) == 1 for spot in PROFILE.spots.values())
    leds = {spot_id: spot.leds[0] for spot_id, spot in PROFILE.spots.items()}
    assert PROFILE.led_count == 18 and sorted(leds.values()) == list(range(18))
    order = [*POS[P1], *SLOT[P1], *POS[P2], *SLOT[P2]]
    assert [leds[spot] for spot in order] == list(range(18))


# -- the session: set-up and the first roll ---------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_set_up_cards_laid_face_down_in_any_order_are_read(tmp_path: Path, seed: int) -> None:
    """Rule 1: the cards go face down; the session reads them in its order, whatever the hands'."""
    session = start_session(tmp_path, new_state(), settle=1.0)
    assert session.view(0.0).roles == {"s1.c1": "legal"}
    spots = list(ALL_DOWN)
    random.Random(seed).shuffle(spots)
    sensed: Layout = {}
    for n, spot in enumerate(spots):
        sensed[spot] = DOWN
        session.on_layout(sensed, now=float(n))
        laid = session.state.actions()
        # What is read is always the rules' order, as far as the table fills it without a gap.
        assert laid == LAYS[: len(laid)]
        assert {f"s{a.player + 1}.c{a.col}" for a in laid if isinstance(a, Lay)} <= set(sensed)
        quiet(session, float(n))
    assert session.state.actions() == LAYS
    assert journal_history(tmp_path) == [lay.to_json() for lay in LAYS]
    assert mm_state(session).phase is Phase.START_ROLL and session.sensed == session.expected


def test_a_card_laid_face_up_at_set_up_blinks(tmp_path: Path) -> None:
    session = start_session(tmp_path, new_state(), settle=1.0)
    session.on_layout({"s1.c1": "T1"}, now=0.0)
    assert session.state.actions() == ()
    assert session.message == "s1.c1: cards are laid face down (rule 1)"
    assert not session.view(0.5).blinking
    assert session.view(1.0).blinking == {"s1.c1"}


def test_first_attacker_is_rolled_and_a_tie_rolls_again(tmp_path: Path) -> None:
    """Rule 2: player_1's d6, then player_2's; the higher attacks first, a tie rolls again."""
    session = start_session(tmp_path, after(*LAYS))
    assert GAME.dice_wanted(session.state) == DiceRequest("d6", 1, D6)
    assert session.on_dice([4], now=0.0) == [StartRoll(4)]
    assert session.on_dice([4], now=0.0) == [StartRoll(4)]
    state = mm_state(session)
    assert state.phase is Phase.START_ROLL and state.rolls == []
    session.on_dice([2], now=1.0)
    session.on_dice([5], now=1.0)
    details = GAME.describe(session.state)
    assert details["attacker"] == "player_2" and details["phase"] == "attack"
    assert details["start_rolls"] == [2, 5]
    assert [a["value"] for a in journal_history(tmp_path)] == [4, 4, 2, 5]
    with pytest.raises(IllegalActionError, match="no die roll is expected now"):
        session.on_dice([3], now=2.0)
    with pytest.raises(IllegalActionError, match=r"one d6 \(1-6\) is wanted, not \[7\]"):
        GAME.dice_actions(after(*LAYS), [7])


# -- the session: an attack -------------------------------------------------------------------


def test_lights_during_the_attack_decision_show_sources_and_targets(tmp_path: Path) -> None:
    """MM-3: with full rows every card may attack, and every opposing card be attacked."""
    session = start_session(tmp_path, after(*START))
    roles = session.view(0.0).roles
    assert roles_of(roles, "attacker") == set(POS[P1])
    assert roles_of(roles, "target") == set(POS[P2])
    assert len(roles) == 8  # face-down cards show no lives


def test_attack_through_act_then_the_cards_turned_up_are_the_reveals(tmp_path: Path) -> None:
    """Rules 3-6, MM-5: the attack is named through the control interface (no slot shows it);
    the attacking card turned face up is read by the camera; the defender, whose attacked card
    may be the Leader, names the choice not to defend before it turns up (no slot shows that
    either), then the attacked card turned face up is read."""
    session = start_session(tmp_path, after(*START), settle=1.0)
    assert session.act("attack:2:2", now=0.0) == Attack(2, 2)
    assert session.message.endswith(" (control)") and ":" not in session.message
    assert session.sensed == session.expected == ALL_DOWN  # nothing moved
    assert roles_of(session.view(0.0).roles, "attacker") == set()
    assert session.view(0.0).roles == {"s1.c2": "legal"}  # the card to turn up first
    session.on_layout(ALL_DOWN | {"s1.c2": "T2"}, now=1.0)
    assert session.state.actions() == FIRST_DUEL[:-2]
    assert mm_state(session).phase is Phase.DEFEND
    assert session.act("no_defence", now=2.0) == NoDefence()
    session.on_layout(ALL_DOWN | {"s2.c2": "R3", "s1.c2": "T2"}, now=3.0)
    assert session.state.actions() == FIRST_DUEL
    assert journal_history(tmp_path) == [a.to_json() for a in FIRST_DUEL[len(START) :]]
    assert mm_state(session).phase is Phase.ROUNDS
    # Face-up cards show their lives (MM-1): T2 2 of 3, R3 1 of 3.
    assert session.view(3.0).roles == {"s1.c2": "life@0.67", "s2.c2": "life@0.33"}


def test_a_power_card_lifted_from_its_round_blinks_mm_4(tmp_path: Path) -> None:
    """The walk: a power card laid for round 1, lifted, was lit only as "changed" and never to
    be put right: the table is cleared after the duel, and that later step was taken to explain
    the empty slot. Only pieces laid or turned ahead wait; one taken away blinks."""
    state, rng = new_state(), random.Random(4)
    while not any(spot.endswith(".r1") for spot in GAME.layout(state)):
        random_step(state, rng)
    session = start_session(tmp_path, state, settle=1.0)
    laid = next(spot for spot in session.expected if spot.endswith(".r1"))
    session.on_layout(without(session.expected, laid), now=0.0)
    assert session.state.actions() == state.actions()
    assert session.view(1.0).blinking == {laid}
    assert session.fixes(1.0) == {laid}


def test_the_defenders_card_turned_up_ahead_waits_when_no_defence_is_open(
    tmp_path: Path,
) -> None:
    """Rule 6, MM-5: a card that cannot be the Leader (player_2's Leader lies face up) may turn
    up before the attacking card, with nothing to put right."""
    state = arrange("v v v v", "R1 v v v")
    session = start_session(tmp_path, state, settle=1.0)
    session.act("attack:2:3", now=0.0)
    ahead = session.expected | {"s2.c3": "R3"}
    session.on_layout(ahead, now=1.0)
    assert session.state.actions()[-1] == Attack(2, 3)
    quiet(session, 1.0)
    session.on_layout(ahead | {"s1.c2": "T2"}, now=2.0)
    assert session.state.actions()[-2:] == (Reveal(P1, 2, "T2"), Reveal(P2, 3, "R3"))


def test_a_card_of_the_other_deck_turned_up_blinks(tmp_path: Path) -> None:
    session = start_session(tmp_path, after(*START, Attack(2, 2)), settle=1.0)
    session.on_layout(ALL_DOWN | {"s1.c2": "R2"}, now=0.0)
    assert session.state.actions()[-1] == Attack(2, 2)
    assert session.message == "s1.c2: card R2 is Player 2's, not Player 1's"  # seats by name
    assert session.view(1.0).blinking == {"s1.c2"}


def test_rounds_roll_a_six_is_rolled_again(tmp_path: Path) -> None:
    """MM-4: the attacker's d6 is the number of rounds; a 6 is rolled again."""
    session = start_session(tmp_path, after(*FIRST_DUEL))
    assert GAME.dice_wanted(session.state) == DiceRequest("d6", 1, D6)
    assert session.on_dice([6], now=0.0) == [Rounds(6)]
    assert mm_state(session).phase is Phase.ROUNDS and mm_state(session).rounds == 0
    assert GAME.dice_wanted(session.state) == DiceRequest("d6", 1, D6)
    assert session.on_dice([3], now=0.0) == [Rounds(3)]
    state = mm_state(session)
    assert state.phase is Phase.LAY_POWER and state.rounds == 3
    assert GAME.describe(state)["duel"]["rounds"] == 3
    assert journal_history(tmp_path) == [Rounds(6).to_json(), Rounds(3).to_json()]


def test_power_cards_laid_face_down_in_any_order_then_turned_up_round_by_round(
    tmp_path: Path,
) -> None:
    """Rules 8-10, MM-4: power cards are laid face down, the attacker's first for the rules,
    then turned up round by round; each round's slots then light its winner and loser."""
    session = start_session(tmp_path, after(*FIRST_DUEL, Rounds(3)), settle=1.0)
    assert session.view(0.0).roles["s1.r1"] == "legal"
    sensed = dict(session.expected)
    for n, spot in enumerate(["s2.r3", "s1.r2", "s2.r1", "s1.r1", "s1.r3", "s2.r2"]):
        sensed[spot] = DOWN
        session.on_layout(sensed, now=float(n))
        quiet(session, float(n))
    assert session.state.actions() == FIRST_LAID
    assert mm_state(session).phase is Phase.REVEAL_POWER
    # A later round turned up ahead waits for its turn without blinking.
    session.on_layout(sensed | {"s1.r2": "speed"}, now=10.0)
    assert session.state.actions() == FIRST_LAID
    quiet(session, 10.0)
    session.on_layout(sensed, now=11.0)
    winners = {"s1.r1": "won", "s2.r1": "lost", "s1.r2": "won", "s2.r2": "lost"}
    winners |= {"s1.r3": "lost", "s2.r3": "won"}
    for n, (spot, power) in enumerate(FIRST_POWERS.items()):
        sensed[spot] = power
        session.on_layout(sensed, now=20.0 + n)
        assert session.state.actions()[-1] == FIRST_REVEALS[n]
        scored = {s: winners[s] for s in list(FIRST_POWERS)[: 2 * ((n + 1) // 2)]}
        roles = session.view(20.0 + n).roles
        assert {s: r for s, r in roles.items() if s in winners and r != "legal"} == scored
    state = mm_state(session)
    assert state.phase is Phase.CLEAR
    assert GAME.describe(state)["duel"]["results"] == ["player_1", "player_1", "player_2"]
    # MM-4, MM-6: R3 lost its only life; it lies there until taken away, its lives unlit, and
    # the table lights it as a card to take off.
    assert state.lives["R3"] == 0 and state.removed == ["R3"]
    assert session.expected["s2.c2"] == "R3" and "s2.c2" not in GAME.lights(state)
    assert session.view(30.0).roles["s2.c2"] == "legal"


def test_a_drawn_round_lights_draw_and_a_drawn_duel_costs_no_life() -> None:
    """MM-4: the same power on both sides adds nothing; equal totals draw the round."""
    state = after(*FIRST_DUEL, Rounds(1), LayPower(P1, 1), LayPower(P2, 1))
    state.apply(RevealPower(P1, 1, "force"))
    state.apply(RevealPower(P2, 1, "force"))  # T2 2 against R3 2
    roles = GAME.lights(state)
    assert roles["s1.r1"] == roles["s2.r1"] == "draw"
    assert state.phase is Phase.CLEAR and state.lives["T2"] == 2 and state.lives["R3"] == 1


def test_power_cards_that_break_the_rules_blink_with_a_message(tmp_path: Path) -> None:
    session = start_session(tmp_path, after(*FIRST_DUEL, Rounds(3)), settle=1.0)
    session.on_layout(session.expected | {"s1.r4": DOWN}, now=0.0)
    assert session.message == "s1.r4: 3 round(s) in this duel: no power card here (rule 8)"
    assert session.view(1.0).blinking == {"s1.r4"}
    state = after(*FIRST_LAID, FIRST_REVEALS[0], FIRST_REVEALS[1])
    session = start_session(tmp_path / "twice", state, settle=1.0)
    session.on_layout(session.expected | {"s1.r2": "thermokinetic"}, now=0.0)
    assert session.message == (
        "s1.r2: thermokinetic is already played in this duel: each power once (MM-4)"
    )
    assert session.view(1.0).blinking == {"s1.r2"}


def test_clearing_the_duel_one_card_at_a_time_never_blinks(tmp_path: Path) -> None:
    """Rule 14: the power cards and the beaten card are taken away one by one: no mistake."""
    session = start_session(tmp_path, after(*CLEARING), settle=1.0)
    assert session.view(0.0).roles["s2.c2"] == "legal"  # R3, beaten, to take away
    sensed = dict(session.expected)
    for n, spot in enumerate(["s1.r2", "s2.c2", "s2.r3", "s1.r1", "s1.r3", "s2.r1"]):
        del sensed[spot]
        session.on_layout(sensed, now=float(n))
        assert session.state.actions() == CLEARING
        quiet(session, float(n))
    del sensed["s2.r2"]
    session.on_layout(sensed, now=10.0)
    assert session.state.actions()[-1] == Clear()
    assert session.sensed == session.expected == without(ALL_DOWN, "s2.c2") | {"s1.c2": "T2"}
    state = mm_state(session)
    # MM-7: roles swap; player_2, with a gap in the row, may move a card first.
    assert state.phase is Phase.MOVE and state.movers == [P2] and state.attacker == P2
    assert GAME.describe(state)["removed"] == ["R3"]


def test_a_move_to_an_empty_position_is_seen_on_the_board(tmp_path: Path) -> None:
    """MM-7, rule 15: before the attack a card moves to an empty position of its row."""
    session = start_session(tmp_path, after(*MOVING), settle=1.0)
    assert roles_of(session.view(0.0).roles, "legal") == {"s2.c1", "s2.c3", "s2.c4"}
    moved = without(session.expected, "s2.c1") | {"s2.c2": DOWN}
    session.on_layout(moved, now=0.0)
    assert session.state.actions()[-1] == Move(1, 2)
    assert session.message == "Move the card in position 1 to position 2 (seen on the table)"
    assert journal_history(tmp_path) == [Move(1, 2).to_json()]
    assert mm_state(session).phase is Phase.ATTACK
    # MM-3: s2.c1 is empty now; s2.c2 reaches s1.c1 to s1.c3, s2.c4 reaches s1.c3 and s1.c4.
    roles = session.view(0.0).roles
    assert roles_of(roles, "attacker") == {"s2.c2", "s2.c3", "s2.c4"}
    assert roles_of(roles, "target") == set(POS[P1])


def test_staying_put_is_named_through_act(tmp_path: Path) -> None:
    session = start_session(tmp_path, after(*MOVING))
    assert session.act("stay", now=0.0) == Stay()
    assert mm_state(session).phase is Phase.ATTACK and session.sensed == session.expected
    assert roles_of(session.view(0.0).roles, "attacker") == {"s2.c1", "s2.c3", "s2.c4"}


def test_leader_defence_through_act_and_the_face_down_leader_stays_face_down(
    tmp_path: Path,
) -> None:
    """MM-5, rule 5: the defender decides before anything about the Leader shows; a card beside
    it fights instead, turned up on it; if it loses, it loses the life and the Leader nothing;
    then it goes back to its own position, and the Leader lies as it did, face down."""
    session = start_session(tmp_path, after(*MOVING, Move(1, 2)), settle=1.0)
    session.act("attack:2:3", now=0.0)
    table = session.expected | {"s2.c2": "R4"}
    session.on_layout(table, now=1.0)
    assert session.state.actions() == DEFENCE
    assert session.state.legal_actions() == [Defend(2), Defend(4), NoDefence()]
    roles = session.view(1.0).roles
    assert roles_of(roles, "guard") == {"s1.c2", "s1.c4"}  # T2 face up, and a face-down card
    assert "danger" not in roles.values()  # nothing shows whether s1.c3 is the Leader
    assert roles["s1.c3"] == "attacked"  # the card attacked, marked for its defender
    assert session.act("defend:4", now=2.0) == Defend(4)
    # The card from s1.c4 now lies face down on the Leader, to be turned up (rule 5); the
    # Leader beneath stays face down (MM-5).
    assert session.expected == without(table, "s1.c4") and table["s1.c3"] == DOWN
    session.on_layout(without(table, "s1.c4") | {"s1.c3": "T4"}, now=3.0)
    assert session.state.actions()[-1] == Reveal(P1, 4, "T4")
    assert session.sensed == session.expected
    details = GAME.describe(session.state)
    assert details["duel"]["attacked"] == "s1.c3" and details["duel"]["defending"] == "s1.c4"
    assert details["duel"]["defence"] == "defended"
    assert details["positions"]["s1.c3"] == {"card": DOWN, "lives": None, "leader": True}
    assert session.view(3.0).roles["s1.c3"] == "life@0.67"  # T4's lives show on the Leader
    # One round: R4's force (9 + 2, it beats brainwashing) against T4's brainwashing (2).
    session.on_dice([1], now=4.0)
    table = session.sensed | {"s2.r1": DOWN, "s1.r1": DOWN}
    session.on_layout(table, now=5.0)
    session.on_layout(table | {"s2.r1": "force", "s1.r1": "brainwashing"}, now=6.0)
    state = mm_state(session)
    assert state.phase is Phase.CLEAR and state.lives["T4"] == 1 and state.lives["T1"] == 3
    assert "T1" not in state.up
    roles = session.view(6.0).roles
    assert roles["s1.c3"] == "life@0.33" and roles["s2.r1"] == "won" and roles["s1.r1"] == "lost"
    # Cleared one card at a time: the power cards away, T4 off the Leader into the hand, which
    # shows the Leader face down as it lay ...
    cleared = without(table, "s2.r1", "s1.r1") | {"s1.c3": DOWN}
    session.on_layout(cleared, now=7.0)
    assert mm_state(session).phase is Phase.CLEAR
    quiet(session, 7.0)
    # ... and back in its own position (MM-5).
    session.on_layout(cleared | {"s1.c4": "T4"}, now=8.0)
    assert session.state.actions()[-1] == Clear()
    assert session.expected["s1.c3"] == DOWN and session.sensed == session.expected
    roles = session.view(8.0).roles
    assert not roles.get("s1.c3", "").startswith("life") and roles["s1.c4"] == "life@0.33"


def test_a_defending_card_laid_face_up_on_the_leader_in_one_go_is_the_defence(
    tmp_path: Path,
) -> None:
    """Rule 5: "place it revealed on his Leader Card". On a face-up Leader, the face-down card
    from s1.c4 put on it face up at once is both the defence and its reveal; no `act` needed."""
    state = arrange("v v T1 v", "v v v v", attacker=P2)
    play(state, [Attack(3, 3), Reveal(P2, 3, "R4")])
    assert state.phase is Phase.DEFEND
    session = start_session(tmp_path, state, settle=1.0)
    session.on_layout(without(session.expected, "s1.c4") | {"s1.c3": "T4"}, now=2.0)
    assert session.state.actions()[-2:] == (Defend(4), Reveal(P1, 4, "T4"))
    assert session.sensed == session.expected
    assert session.message == (
        "Defend with the card in position 4; "
        "Player 1\u2019s card in position 4 turned up: Bolt (seen on the table)"
    )


def test_a_card_laid_face_up_on_a_face_down_leader_asks_for_the_defence_by_name_mm_5(
    tmp_path: Path,
) -> None:
    """MM-5: on a face-down attacked card, a card from beside it laid face up looks to the
    camera like a card turned up there, and the defence itself shows nowhere: the table asks
    for it by name, then reads the card already turned up."""
    session = start_session(tmp_path, after(*DEFENCE), settle=1.0)
    laid = without(session.expected, "s1.c4") | {"s1.c3": "T4"}
    session.on_layout(laid, now=0.0)
    assert session.state.actions() == DEFENCE
    assert session.message == (
        "s1.c3: the card from s1.c4 defends it: name the defence, defend:4 (MM-5)"
    )
    assert session.view(1.0).blinking == {"s1.c3", "s1.c4"}
    assert session.act("defend:4", now=2.0) == Defend(4)
    assert session.state.actions()[-2:] == (Defend(4), Reveal(P1, 4, "T4"))
    assert session.sensed == session.expected


def test_the_attacked_card_turned_up_before_the_defence_is_decided_blinks_mm_5(
    tmp_path: Path,
) -> None:
    """MM-5: the defender decides before anything about the Leader is revealed; turned up
    early, the attacked card blinks until the choice not to defend is named, then is read."""
    session = start_session(tmp_path, after(*DEFENCE), settle=1.0)
    session.on_layout(session.expected | {"s1.c3": "T1"}, now=0.0)
    assert session.state.actions() == DEFENCE
    message = "s1.c3: the defence is decided before the attacked card turns up (MM-5)"
    assert session.message == message
    assert session.view(1.0).blinking == {"s1.c3"}
    assert session.act("no_defence", now=2.0) == NoDefence()
    assert session.state.actions()[-2:] == (NoDefence(), Reveal(P1, 3, "T1"))


def test_an_undefended_leader_is_turned_up_and_stays_in_danger_through_the_duel_mm_5(
    tmp_path: Path,
) -> None:
    session = start_session(tmp_path, after(*DEFENCE), settle=1.0)
    assert session.act("no_defence", now=0.0) == NoDefence()
    assert mm_state(session).phase is Phase.REVEAL  # MM-5: revealed when its duel begins
    assert roles_of(session.view(0.0).roles, "danger") == set()
    session.on_layout(session.expected | {"s1.c3": "T1"}, now=0.5)
    assert session.state.actions()[-1] == Reveal(P1, 3, "T1")
    assert mm_state(session).phase is Phase.ROUNDS
    assert roles_of(session.view(0.5).roles, "danger") == {"s1.c3"}
    session.on_dice([2], now=1.0)
    session.on_layout(session.expected | {"s2.r1": DOWN}, now=2.0)
    assert mm_state(session).phase is Phase.LAY_POWER
    assert roles_of(session.view(2.0).roles, "danger") == {"s1.c3"}


# -- the lights -------------------------------------------------------------------------------


def test_every_light_role_of_random_games_is_in_the_palette() -> None:
    used: set[str] = set()
    for seed in range(300):
        rng = random.Random(seed)
        state = new_state()
        hidden = GAME.deal(state, rng)
        while not state.is_terminal():
            random_step(state, rng, hidden)
            roles = GAME.lights(state)
            assert set(roles) <= set(GAME.spots())
            used.update(roles.values())
    names = {role.partition("@")[0] for role in used}
    for role in used:
        _, _, level = role.partition("@")
        assert not level or 0 <= float(level) <= 1, role
    assert {
        "life",
        "won",
        "lost",
        "draw",
        "attacker",
        "target",
        "attacked",
        "guard",
        "danger",
    } <= names
    assert names | SESSION_ROLES <= set(PALETTE), sorted(names - set(PALETTE))


# -- the daemon, end to end -------------------------------------------------------------------


class CheckedSecrets(Hidden):
    """The bots' secret cards, checking each card the session saw turned up against the one the
    bot really had there before the secrets move on."""

    def __init__(self, inner: Hidden) -> None:
        assert isinstance(inner, MightymaniaHidden)
        self.inner = inner
        self.reveals: list[tuple[str, bool]] = []  # (action id, as the secrets had it)
        self.seen = 0  # actions observed

    def choices(self, state: GameState) -> list[Action]:
        return self.inner.choices(state)

    def outcome(self, state: GameState) -> Action | None:
        return self.inner.outcome(state)

    def redeal(self, state: GameState, rng: random.Random, seat: int) -> Hidden:
        return self.inner.redeal(state, rng, seat)

    def observe(self, action: Action, state: GameState) -> None:
        match action:
            case Reveal(player, col, card):
                # A defending card is named by its own column, where the secrets keep it.
                self.reveals.append((action.id, self.inner.down[player].get(col - 1) == card))
            case RevealPower(player, round_number, power):
                held = self.inner.laid[player].get(round_number - 1)
                self.reveals.append((action.id, held == power))
        self.inner.observe(action, state)
        self.seen += 1

    def catch_up(self, state: GameState) -> None:
        """Observe what the bots never followed: they stop once the game is over."""
        shadow = after(*state.actions()[: self.seen])
        for action in state.actions()[self.seen :]:
            shadow.apply(action)
            self.observe(action, shadow)


def test_bots_play_mightymania_on_the_simulated_table_to_the_end(tmp_path: Path) -> None:
    run = RunOptions(
        state_dir=tmp_path / "state",
        socket_path=tmp_path / "control.sock",
        bots=True,
        pace=0.0,
        until_end=True,
        seed=5,
    )
    daemon = Daemon(fast_sim_config(game="mightymania", **QUICK_CAMERA), run)
    daemon.open()
    try:
        assert daemon.camera is not None and not daemon.reeds.channels
        assert daemon.bots is not None and daemon.bots.hands.hidden is not None
        secrets = CheckedSecrets(daemon.bots.hands.hidden)
        daemon.bots.hands.hidden = secrets
        assert daemon.run() == 0
        state = daemon.session.state
        assert isinstance(state, MightymaniaState) and state.is_terminal()
        result = GAME.result(state)
        assert result is not None
        if result["draw"]:  # MM-8: two passes in a row
            assert result["winners"] == [] and state.passes == 2
            assert not set(state.data.leaders) & set(state.removed)
        else:  # MM-6: the first Leader beaten loses
            assert len(result["winners"]) == 1
            loser = "player_1" if result["winners"] == ["player_2"] else "player_2"
            leader = state.data.leaders[0 if loser == "player_1" else 1]
            assert result["leader_beaten"] == {"player": loser, "card": leader}
            assert leader in state.removed
        secrets.catch_up(state)
        # Every card turned up was the one the bot had laid there.
        record = Journal(tmp_path / "state").read()
        shown = [GAME.action_from_json(a).id for a in record.history()]
        shown = [a for a in shown if a.startswith(("reveal:", "reveal_power:"))]
        assert shown and [a for a, _ in secrets.reveals] == shown
        assert all(ok for _, ok in secrets.reveals), [a for a, ok in secrets.reveals if not ok]
        replayed = GAME.replay(record.history(), record.options)
        assert replayed.history() == state.history() and GAME.result(replayed) == result
        types = {a["type"] for a in record.history()}
        assert {"Lay", "StartRoll", "Attack", "Reveal", "Rounds", "LayPower", "Clear"} <= types
        # The camera settled on the final table: the beaten Leader still lies there.
        assert daemon.session.sensed == daemon.session.expected == GAME.layout(state)
        assert daemon.settler.settled == GAME.layout(state)
    finally:
        daemon.close()


# -- the command line -------------------------------------------------------------------------


FAST_CAMERA = "[camera]\nfps = 120\nstable_frames = 2\n[session]\nsettle_s = 0.2\n"


def test_cli_run_with_bots_prints_the_result(tmp_path: Path) -> None:
    config = tmp_path / "fast.toml"
    config.write_text(FAST_CAMERA)
    state_dir = tmp_path / "state"
    args = ["--sim", "--bots", "--game", "mightymania", "--until-end", "--pace", "0"]
    done = smartboard(
        "run", *args, "--config", str(config), "--state-dir", str(state_dir), "--seed", "8"
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("result: ")
    result = json.loads(last.removeprefix("result: "))
    if result["draw"]:  # MM-8
        assert result["winners"] == [] and "leader_beaten" not in result
    else:  # MM-6
        assert len(result["winners"]) == 1 and result["leader_beaten"]["card"] in {"T1", "R1"}
    record = Journal(state_dir).read()
    assert record.game == "mightymania" and record.options["decks"] == "titans,rogues"


def test_cli_simulates_a_thousand_mightymania_games_to_the_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["simulate", "mightymania", "--games", "1000", "--seed", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["game"] == "mightymania" and report["games"] == report["finished"] == 1000
    # MM-6: a Leader beaten, one winner; MM-8: two passes in a row, a draw (rare, but seen).
    assert sum(report["wins"].values()) + report["draws"] == 1000 and report["draws"] > 0


def test_cli_accepts_the_decks_the_other_way_round(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "mightymania", "--option", "decks=rogues,titans", "--games", "20"]
    assert cli.main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finished"] == 20


@pytest.mark.parametrize("command", ["simulate", "run"])
@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "decks=titans,nobody",
            "unknown Mightymania deck 'nobody'; built-in decks: rogues, titans",
        ),
        ("decks=titans", "option 'decks' must name two decks separated by a comma"),
        ("decks=titans,titans", "share card ids"),
        ("deck=titans", "--option 'deck=titans': mightymania's options are decks, rules"),
    ],
)
def test_cli_refuses_bad_decks(
    tmp_path: Path, command: str, option: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["mightymania"] if command == "simulate" else ["--sim", "--game", "mightymania"]
    extra = ["--games", "1"] if command == "simulate" else ["--state-dir", str(tmp_path)]
    assert cli.main([command, *where, "--option", option, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("smartboard: ") and message in captured.err
    assert not Journal(tmp_path).exists()  # refused before any game was started


def test_a_card_moved_out_of_turn_and_put_back_leaves_no_message_mm_7(tmp_path: Path) -> None:
    """The walk: the rules' sentence names seats by their ids and the table says it with their
    names, so once put right it no longer matched the problem's and stayed on the page through
    the next turn ("Player 1 moves a card now, not Player 2")."""
    # player_2 moves first (MM-7); player_1's position 2 is empty.
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    session = start_session(tmp_path, state, settle=1.0)
    moved = without(session.expected, "s1.c1") | {"s1.c2": DOWN}
    session.on_layout(moved, now=0.0)
    assert "Player 2 moves a card now, not Player 1" in session.message
    session.on_layout(dict(session.expected), now=0.5)  # put back
    assert session.problem is None and session.message == ""
