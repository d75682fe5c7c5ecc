"""Capture the Akuma, rule by rule.

Each test cites its source: a clarification (AK-1 .. AK-10 in CLARIFICATIONS.md) or a short quote
of the rulebook (capture-the-akuma.txt). Positions are reached by playing actions from the start.

Conventions in the scripts below: a Hawk Moth roll of 1-9 ends its turn; `LB_IDLE` is a Ladybug
turn that changes nothing (a Cataclysm on square 9, which never holds a trap when it is used).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from akuma_play import HM_NOTHING_TO_DEEVILIZE, LB_IDLE, lb, new_state, play, roll

from controller.rules.akuma import (
    D6,
    DEFAULT_NAMES,
    GAME,
    HAWK_MOTH,
    LADYBUG,
    LINES,
    PIECES,
    POWERS,
    SQUARES,
    AkumaState,
    ChooseDice,
    DeEvilize,
    PlaceTrap,
    Power,
    Roll,
    Voyage,
)
from controller.rules.api import (
    CAMERA,
    CHANCE,
    PRESENT,
    REED,
    TERMINAL,
    Action,
    DiceRequest,
    IllegalActionError,
    Layout,
)

# --- Helpers -------------------------------------------------------------------------------------

CIVILIAN_CARDS = {str(sq): f"civilian-{sq}" for sq in SQUARES}


def pieces(layout: Layout) -> Layout:
    """The layout's pieces on reeds, without the cards the camera reads on the squares."""
    return {spot: token for spot, token in layout.items() if "." in spot}


def akumatize(*squares: int, options: dict[str, Any] | None = None) -> AkumaState:
    """Hawk Moth akumatizes `squares` one per turn, Ladybug idling; Ladybug is then to move."""
    state = new_state(options)
    for i, square in enumerate(squares):
        if i:
            play(state, LB_IDLE)
        play(state, roll(square))
    return state


def assert_turn(state: AkumaState, side: int) -> None:
    """`side` is to choose its dice: the previous turn is over."""
    assert not state.is_terminal()
    assert state.current_player() == side
    assert state.legal_actions() == [ChooseDice(1), ChooseDice(2)]
    assert GAME.describe(state)["side"] == GAME.player_names[side]


def assert_won(state: AkumaState, side: int) -> None:
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert state.chance_outcomes() == []
    expected = [1.0, -1.0] if side == HAWK_MOTH else [-1.0, 1.0]
    assert state.returns() == expected
    result = GAME.result(state)
    assert result is not None
    assert result["winners"] == [GAME.player_names[side]]
    assert result["returns"] == expected
    with pytest.raises(IllegalActionError):
        state.apply(ChooseDice(1))


def assert_going_on(state: AkumaState) -> None:
    assert not state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    assert GAME.result(state) is None


def outcomes(state: AkumaState) -> dict[Action, float]:
    return dict(state.chance_outcomes())


# --- Set-up and AK-1 Board -----------------------------------------------------------------------


def test_ak1_squares_are_numbered_1_to_9() -> None:
    assert list(SQUARES) == [1, 2, 3, 4, 5, 6, 7, 8, 9]


def test_ak1_the_8_winning_lines_are_the_keypad_rows_columns_and_diagonals() -> None:
    rows = {(1, 2, 3), (4, 5, 6), (7, 8, 9)}
    columns = {(1, 4, 7), (2, 5, 8), (3, 6, 9)}
    diagonals = {(1, 5, 9), (3, 5, 7)}
    assert len(LINES) == 8
    assert {tuple(sorted(line)) for line in LINES} == rows | columns | diagonals


def test_setup_place_one_civilian_card_in_each_of_the_nine_squares() -> None:
    """Set-up: "Place one civilian card (red border) in each of the nine squares"."""
    state = new_state()
    assert GAME.lights(state) == {str(sq): "civilian" for sq in SQUARES}
    # Markers, traps and tiles lie beside the board: the camera sees only the civilian cards.
    assert GAME.layout(state) == CIVILIAN_CARDS
    facts = GAME.describe(state)
    assert facts["akumatized"] == facts["traps"] == facts["tiles"] == []
    assert facts["hawkmoth_at"] is None
    assert facts["ladybug_at"] is None
    assert_going_on(state)


@pytest.mark.parametrize("line", LINES, ids=lambda line: "-".join(map(str, line)))
def test_ak1_ak9_hawk_moth_wins_on_each_winning_line(line: tuple[int, int, int]) -> None:
    """AK-9 "Hawk Moth wins the moment three akumatized civilians stand in a line" (AK-1 lines);
    rulebook: "Team Hawk Moth wins by akumatizing three people in a row"."""
    state = akumatize(*line[:2])
    assert_going_on(state)
    play(state, LB_IDLE, roll(line[2]))
    assert_won(state, HAWK_MOTH)
    assert state.winning_line == line
    result = GAME.result(state)
    assert result is not None
    assert result["winning_line"] == list(line)
    assert result["ended"] == "line"  # said in words on the page (values.ended)


@pytest.mark.parametrize(
    "squares",
    [(1, 2, 4), (1, 5, 6), (2, 4, 9), (3, 4, 8), (1, 2, 4, 6, 8), (2, 4, 6, 8)],
    ids=str,
)
def test_ak1_akumas_not_in_a_line_do_not_win(squares: tuple[int, ...]) -> None:
    """AK-1 / AK-9: only the 8 lines win; other shapes of three or more do not."""
    state = akumatize(*squares)
    assert state.akumatized == set(squares)
    assert_going_on(state)
    assert_turn(state, LADYBUG)


def test_ak9_hawk_moth_wins_the_moment_the_line_is_completed_among_other_akumas() -> None:
    """AK-9 "the moment three akumatized civilians stand in a line": 1-5-9 completes last."""
    state = akumatize(1, 2, 4, 5)
    assert_going_on(state)
    play(state, LB_IDLE, roll(9))
    assert_won(state, HAWK_MOTH)
    assert state.winning_line == (1, 5, 9)


# --- AK-2 Teams ----------------------------------------------------------------------------------


def test_ak2_two_sides_seen_as_two_players() -> None:
    """AK-2: "the program sees a side as one player"; 0 is Hawk Moth, 1 is Ladybug."""
    state = new_state()
    assert state.num_players == 2
    assert GAME.player_names == ("hawkmoth", "ladybug")
    assert (HAWK_MOTH, LADYBUG) == (0, 1)
    assert state.player_name(HAWK_MOTH) == "hawkmoth"
    assert state.player_name(LADYBUG) == "ladybug"
    assert state.player_name(CHANCE) == "chance"


def test_ak2_hawk_moth_always_goes_first() -> None:
    """AK-2 / rulebook: "Team Hawk Moth always goes first"."""
    assert_turn(new_state(), HAWK_MOTH)


def test_rulebook_alternate_turns() -> None:
    """Rulebook: "After Team Hawk Moth completes their turn, Team Ladybug will roll" and
    "Alternate turns until ..."."""
    state = new_state()
    sides = []
    for turn in [roll(1), LB_IDLE, roll(5), lb(8, "shellter"), roll(6), LB_IDLE]:
        sides.append(state.current_player())
        play(state, turn)
    assert sides == [HAWK_MOTH, LADYBUG] * 3
    assert_turn(state, HAWK_MOTH)


# --- AK-3 One die or two -------------------------------------------------------------------------


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth", "ladybug"])
def test_ak3_the_dice_choice_is_a_decision_before_the_chance_event(side: int) -> None:
    """AK-3: "This choice is a decision of the player, taken before the chance event"."""
    state = new_state() if side == HAWK_MOTH else akumatize(1)
    assert state.current_player() == side
    assert not state.is_chance_node()
    assert state.legal_actions() == [ChooseDice(1), ChooseDice(2)]
    assert state.chance_outcomes() == []
    assert GAME.dice_wanted(state) is None
    play(state, ChooseDice(1))
    assert state.current_player() == CHANCE
    assert state.legal_actions() == []


def test_ak3_ak6_the_side_to_move_throws_its_dice_and_ladybug_the_miraculous_die() -> None:
    """Where a roll is read on linked tables (`Game.roller`): the side whose turn it is throws
    its dice (AK-3), and Ladybug the Miraculous Powers die after landing (AK-6), though a roll,
    not her decision, comes just before it and Hawk Moth decides next."""
    state = new_state()
    play(state, ChooseDice(2))
    assert GAME.roller(state) == HAWK_MOTH
    state = akumatize(1)
    play(state, ChooseDice(1))
    assert GAME.roller(state) == LADYBUG
    play(state, Roll(4))
    wanted = GAME.dice_wanted(state)
    assert wanted is not None and wanted.kind == "miraculous"
    assert GAME.roller(state) == LADYBUG
    play(state, Power(POWERS[0]))
    assert GAME.roller(state) is None  # a decision, not a roll


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth", "ladybug"])
def test_ak3_one_die_gives_1_to_6(side: int) -> None:
    """AK-3: "One die gives 1-6"."""
    state = play(new_state() if side == HAWK_MOTH else akumatize(1), ChooseDice(1))
    odds = outcomes(state)
    assert list(odds) == [Roll(n) for n in range(1, 7)]
    assert all(p == pytest.approx(1 / 6) for p in odds.values())
    assert GAME.dice_wanted(state) == DiceRequest("d6", 1, D6)


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth", "ladybug"])
def test_ak3_two_dice_give_the_sum_2_to_12(side: int) -> None:
    """AK-3: "two dice give the sum, 2-12", with the odds of two dice."""
    state = play(new_state() if side == HAWK_MOTH else akumatize(1), ChooseDice(2))
    odds = outcomes(state)
    assert list(odds) == [Roll(n) for n in range(2, 13)]
    counts = Counter(a + b for a, b in itertools.product(range(1, 7), repeat=2))
    for total, n in counts.items():
        assert odds[Roll(total)] == pytest.approx(n / 36)
    assert GAME.dice_wanted(state) == DiceRequest("d6", 2, D6)


def test_ak3_a_one_die_roll_of_1_is_possible_and_two_dice_never_give_1() -> None:
    """AK-3: with one die a 1 can be rolled (square 1); two dice cannot make it."""
    play(state := new_state(), ChooseDice(1), Roll(1))
    assert state.akumatized == {1}
    with pytest.raises(IllegalActionError):
        play(new_state(), ChooseDice(2), Roll(1))
    with pytest.raises(IllegalActionError):
        play(new_state(), ChooseDice(1), Roll(10))


# --- AK-4 Rolls that act for either side ---------------------------------------------------------


@pytest.mark.parametrize("total", [10, 12])
def test_ak4_hawk_moth_rolls_10_or_12_and_places_a_trap_then_the_turn_ends(total: int) -> None:
    """AK-4 "10 or 12: Hawk Moth places a trap on a civilian with no trap. Then the turn ends";
    rulebook: "put a trap on any civilian on the board"."""
    state = play(new_state(), roll(total))
    assert state.current_player() == HAWK_MOTH
    assert not state.is_chance_node()
    assert state.legal_actions() == [PlaceTrap(sq) for sq in SQUARES]
    assert state.hawkmoth_at is None  # the marker does not move on 10-12
    play(state, PlaceTrap(5))
    assert state.traps == {5}
    assert state.akumatized == set()
    assert_turn(state, LADYBUG)


@pytest.mark.parametrize("total", [10, 12])
def test_ak4_ladybug_rolls_10_or_12_and_hawk_moth_places_a_trap(total: int) -> None:
    """AK-4 "Whichever side rolled: 10 or 12: Hawk Moth places a trap"; the trap may go on an
    akumatized civilian (rulebook: "If a civilian with a trap has also been akumatized")."""
    state = akumatize(1)
    play(state, roll(total))
    assert state.current_player() == HAWK_MOTH
    assert state.legal_actions() == [PlaceTrap(sq) for sq in SQUARES]
    assert state.ladybug_at is None  # no marker move and no Miraculous roll
    play(state, PlaceTrap(1))
    assert state.traps == {1}
    assert state.akumatized == {1}
    assert_turn(state, HAWK_MOTH)


def test_ak4_no_more_than_1_trap_per_person() -> None:
    """Rulebook "(no more than 1 trap per person)"; AK-4 "a civilian with no trap"."""
    state = play(new_state(), roll(10), PlaceTrap(5), roll(12))
    assert state.current_player() == HAWK_MOTH
    assert PlaceTrap(5) not in state.legal_actions()
    assert state.legal_actions() == [PlaceTrap(sq) for sq in SQUARES if sq != 5]
    with pytest.raises(IllegalActionError):
        state.apply(PlaceTrap(5))
    play(state, PlaceTrap(6))
    assert state.traps == {5, 6}


def test_ak4_no_civilian_without_a_trap_means_nothing_happens_and_the_turn_ends() -> None:
    """AK-4 "when no legal target exists, nothing happens and the turn ends" (all 9 trapped)."""
    state = new_state({"traps": 9})
    for sq in SQUARES:  # one trap per turn, sides alternating
        play(state, roll(10 if sq % 2 else 12), PlaceTrap(sq))
    assert state.traps == set(SQUARES)
    assert_turn(state, LADYBUG)
    play(state, roll(12))
    assert state.traps == set(SQUARES)
    assert_turn(state, HAWK_MOTH)
    play(state, roll(10))
    assert_turn(state, LADYBUG)


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth-rolled", "ladybug-rolled"])
def test_ak4_an_11_lets_ladybug_de_evilize_an_akuma_of_its_choice(side: int) -> None:
    """AK-4 "11: Ladybug de-evilizes one akumatized civilian of its choice. Then the turn ends";
    rulebook: "If an 11 is rolled by either team"."""
    state = akumatize(1, 5)
    if side == HAWK_MOTH:
        play(state, LB_IDLE)
    assert state.current_player() == side
    play(state, roll(11))
    assert state.current_player() == LADYBUG
    assert state.legal_actions() == [DeEvilize(1), DeEvilize(5)]
    play(state, DeEvilize(5))
    assert state.akumatized == {1}
    assert_going_on(state)
    assert_turn(state, 1 - side)


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth-rolled", "ladybug-rolled"])
def test_ak4_an_11_with_no_akuma_does_nothing_and_the_turn_ends(side: int) -> None:
    """AK-4 "when no legal target exists, nothing happens and the turn ends"."""
    state = new_state()
    if side == LADYBUG:
        play(state, HM_NOTHING_TO_DEEVILIZE)
    play(state, roll(11))
    assert state.akumatized == state.traps == set()
    assert_going_on(state)
    assert_turn(state, 1 - side)


def test_ak4_ak7_an_11_cannot_de_evilize_a_trapped_akuma() -> None:
    """AK-7 "A trapped akumatized civilian cannot be de-evilized ... by an 11"; the only akuma is
    trapped, so AK-4's "no legal target" applies."""
    state = akumatize(5, 1)
    play(state, roll(10), PlaceTrap(5))  # Ladybug's 10: Hawk Moth traps the akuma on 5
    play(state, roll(11))  # Hawk Moth's 11: only 1 can be chosen
    assert state.legal_actions() == [DeEvilize(1)]
    with pytest.raises(IllegalActionError):
        state.apply(DeEvilize(5))
    play(state, DeEvilize(1))
    assert state.akumatized == {5}
    play(state, roll(11))  # Ladybug's 11: nothing to choose
    assert state.akumatized == {5}
    assert state.traps == {5}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


# --- AK-5 Hawk Moth rolls 1-9 --------------------------------------------------------------------


@pytest.mark.parametrize("square", SQUARES)
def test_ak5_hawk_moth_moves_its_marker_and_akumatizes_the_civilian(square: int) -> None:
    """AK-5 "The Hawk Moth marker moves to that square ... else, the civilian becomes
    akumatized"; rulebook "put the Hawk Moth marker in the corner of that square"."""
    state = play(new_state(), roll(square))
    assert state.hawkmoth_at == square
    assert state.akumatized == {square}
    assert state.last_roll == square
    assert pieces(GAME.layout(state)) == {
        f"{square}.hawkmoth": PRESENT,
        f"{square}.akuma": PRESENT,
    }
    assert_turn(state, LADYBUG)


@pytest.mark.parametrize("square", SQUARES)
def test_rulebook_the_akumatized_card_covers_the_civilian_card(square: int) -> None:
    """Rulebook: "Team Hawk Moth will place the card featuring the person in his or her
    akumatized state over the civilian card" (AK-5, AK-10): the camera sees it on top, and the
    civilian's card again once de-evilized (AK-4: an 11)."""
    state = play(new_state(), roll(square))
    assert GAME.layout(state)[str(square)] == f"akumatized-{square}"
    others = {spot: card for spot, card in CIVILIAN_CARDS.items() if spot != str(square)}
    assert others.items() <= GAME.layout(state).items()
    play(state, ChooseDice(2), Roll(11), DeEvilize(square))
    assert GAME.layout(state)[str(square)] == f"civilian-{square}"


def test_ak5_a_shellter_tile_is_removed_and_nothing_else_happens() -> None:
    """AK-5 "if the square has a Shell-ter tile, the tile is removed and nothing else happens";
    rulebook "remove the Shell-ter tile after Hawk Moth rolls that number once. The civilian will
    then be vulnerable once again"."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, lb(5, "shellter"))
    assert state.tiles == {5}
    play(state, roll(5))
    assert state.hawkmoth_at == 5
    assert state.tiles == set()
    assert state.akumatized == set()
    assert_turn(state, LADYBUG)
    play(state, LB_IDLE, roll(5))
    assert state.akumatized == {5}


def test_ak5_an_already_akumatized_civilian_means_nothing_happens() -> None:
    """AK-5 "else, if the civilian is already akumatized, nothing happens" (the marker moves)."""
    state = akumatize(5, 1)
    play(state, LB_IDLE)
    assert state.hawkmoth_at == 1
    play(state, roll(5))
    assert state.hawkmoth_at == 5
    assert state.akumatized == {1, 5}
    assert_going_on(state)
    assert_turn(state, LADYBUG)


def test_rulebook_an_akuma_piece_may_be_placed_on_the_akumatized_card() -> None:
    """Rulebook "If desired, you may place an akuma on top of that card": the layout expects an
    akuma on each akumatized square, and lights show the akumatized (black-border) card."""
    state = akumatize(2, 7)
    akumas = {spot for spot in GAME.layout(state) if spot.endswith(".akuma")}
    assert akumas == {"2.akuma", "7.akuma"}
    lights = GAME.lights(state)
    assert lights["2"] == "akumatized"


# --- AK-6 Ladybug rolls 1-9 ----------------------------------------------------------------------


@pytest.mark.parametrize("square", SQUARES)
def test_ak6_ladybug_moves_its_marker_and_rolls_the_miraculous_die(square: int) -> None:
    """AK-6 "The Ladybug marker moves to that square, and Ladybug rolls the Miraculous Powers
    die"."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, roll(square))
    assert state.ladybug_at == square
    assert f"{square}.ladybug" in GAME.layout(state)
    assert state.akumatized == set()  # Ladybug never akumatizes
    assert state.current_player() == CHANCE
    assert GAME.dice_wanted(state) == DiceRequest("miraculous", 1, POWERS)
    odds = outcomes(state)
    assert list(odds) == [Power(face) for face in POWERS]
    assert all(p == pytest.approx(1 / 6) for p in odds.values())


def test_ak6_the_six_faces() -> None:
    """AK-6 "Cataclysm, Shell-ter, Venom, De-evilize, 2nd Chance and Voyage"."""
    assert POWERS == ("cataclysm", "shellter", "venom", "deevilize", "second_chance", "voyage")


# --- AK-7 Powers ---------------------------------------------------------------------------------


def test_ak7_cataclysm_destroys_the_trap_on_ladybugs_square() -> None:
    """Rulebook "Cataclysm- Destroys the trap on the square Team Ladybug is on"."""
    state = akumatize(1)
    play(state, LB_IDLE, roll(10), PlaceTrap(5))
    play(state, lb(5, "cataclysm"))
    assert state.traps == set()
    assert state.akumatized == {1}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_cataclysm_without_a_trap_does_nothing() -> None:
    """Rulebook "If there is no trap, nothing happens and it is now Team Hawk Moth's turn"."""
    state = akumatize(1)
    play(state, roll(10), PlaceTrap(6), roll(1))  # trap on 6; Hawk Moth idles
    play(state, lb(5, "cataclysm"))
    assert state.traps == {6}
    assert state.akumatized == {1}
    assert_turn(state, HAWK_MOTH)


def test_ak7_cataclysm_on_a_trapped_akuma_then_it_can_be_de_evilized() -> None:
    """AK-7 "cannot be de-evilized ... until Cataclysm destroys its trap"; rulebook "this person
    cannot be de-evilized without the trap being "Cataclysmed" first"."""
    state = akumatize(5)
    play(state, roll(10), PlaceTrap(5), roll(1))  # trap on akuma 5; Hawk Moth akumatizes 1
    play(state, lb(5, "deevilize"))
    assert state.akumatized == {1, 5}
    play(state, roll(5), lb(5, "cataclysm"))
    assert state.traps == set()
    assert state.akumatized == {1, 5}  # Cataclysm removes the trap only
    play(state, roll(5), lb(5, "deevilize"))
    assert state.akumatized == {1}
    assert_going_on(state)


def test_ak7_shellter_on_a_free_square_places_a_tile() -> None:
    """Rulebook "Shell-ter- Protects the civilian in Team Ladybug's square"."""
    state = akumatize(1)
    play(state, lb(5, "shellter"))
    assert state.tiles == {5}
    assert "5.shellter" in GAME.layout(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_shellter_does_nothing_on_an_akumatized_square() -> None:
    """AK-7 "Shell-ter does nothing on an akumatized square"; rulebook "If the person on the
    square is already akumatized ... nothing happens and the turn is over"."""
    state = akumatize(5)
    play(state, lb(5, "shellter"))
    assert state.tiles == set()
    assert_turn(state, HAWK_MOTH)


def test_ak7_ak8_shellter_does_nothing_on_a_square_that_already_has_a_tile() -> None:
    """AK-7 "or on a square that already has a tile"; AK-8 "at most one ... tile per square"."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, lb(5, "shellter"), HM_NOTHING_TO_DEEVILIZE)
    play(state, lb(5, "shellter"))
    assert state.tiles == {5}
    assert state.tile_supply == 4
    assert pieces(GAME.layout(state)) == {"5.shellter": PRESENT, "5.ladybug": PRESENT}
    assert_turn(state, HAWK_MOTH)


def test_ak7_venom_makes_hawk_moth_skip_exactly_its_next_turn() -> None:
    """AK-7 "Venom makes Hawk Moth skip its next turn"; rulebook "Team Hawk Moth loses one
    turn"."""
    state = akumatize(1)
    play(state, lb(5, "venom"))
    assert_turn(state, LADYBUG)  # Hawk Moth's turn is skipped
    play(state, LB_IDLE)
    assert_turn(state, HAWK_MOTH)  # only one turn
    play(state, roll(2))
    assert_turn(state, LADYBUG)
    play(state, LB_IDLE)
    assert_turn(state, HAWK_MOTH)
    assert state.akumatized == {1, 2}


def test_ak7_each_venom_costs_hawk_moth_one_turn() -> None:
    """AK-7 Venom, twice in a row: Hawk Moth's next turn is skipped each time."""
    state = akumatize(1)
    play(state, lb(5, "venom"), lb(6, "venom"))
    assert_turn(state, LADYBUG)
    play(state, LB_IDLE)
    assert_turn(state, HAWK_MOTH)


def test_ak4_ak7_a_10_during_the_extra_ladybug_turn_still_lets_hawk_moth_place_a_trap() -> None:
    """AK-4 "Whichever side rolled", also during a turn that Venom gave Ladybug."""
    state = akumatize(1)
    play(state, lb(5, "venom"), roll(10))
    assert state.current_player() == HAWK_MOTH
    play(state, PlaceTrap(3))
    assert state.traps == {3}
    assert_turn(state, HAWK_MOTH)


def test_ak7_deevilize_removes_the_akuma_on_ladybugs_square() -> None:
    """Rulebook "De-evilize- Removes the akuma on the square Team Ladybug is on"."""
    state = akumatize(1, 2)
    play(state, lb(2, "deevilize"))
    assert state.akumatized == {1}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_deevilize_without_an_akuma_does_nothing() -> None:
    """Rulebook "If there is no akuma, nothing happens and it is now Team Hawk Moth's turn"."""
    state = akumatize(1)
    play(state, lb(5, "deevilize"))
    assert state.akumatized == {1}
    assert_turn(state, HAWK_MOTH)


def test_ak7_deevilize_cannot_remove_a_trapped_akuma() -> None:
    """AK-7 "A trapped akumatized civilian cannot be de-evilized, by the De-evilize face"."""
    state = akumatize(5)
    play(state, roll(10), PlaceTrap(5), HM_NOTHING_TO_DEEVILIZE)
    play(state, lb(5, "deevilize"))
    assert state.akumatized == {5}
    assert state.traps == {5}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_second_chance_undoes_the_most_recent_akuma() -> None:
    """AK-7 "2nd Chance removes the single most recent akuma-or-trap that Hawk Moth placed"."""
    state = akumatize(1, 2)
    play(state, lb(9, "second_chance"))
    assert state.akumatized == {1}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_second_chance_undoes_the_most_recent_trap() -> None:
    """AK-7 2nd Chance: the trap is more recent than the akumas, so the trap goes."""
    state = akumatize(1, 2)
    play(state, roll(12), PlaceTrap(5))  # Ladybug's 12: Hawk Moth places the trap
    play(state, roll(2))  # already akumatized: nothing placed
    play(state, lb(9, "second_chance"))
    assert state.traps == set()
    assert state.akumatized == {1, 2}
    assert_turn(state, HAWK_MOTH)


def test_ak7_second_chance_does_nothing_when_the_latest_piece_is_gone() -> None:
    """AK-7 "if that piece is still on the board. Otherwise it does nothing. It does not walk
    further back in time"."""
    state = akumatize(1, 2)
    play(state, roll(11), DeEvilize(2))  # Ladybug's 11 removes the latest akuma
    play(state, roll(1))  # nothing placed
    play(state, lb(9, "second_chance"))
    assert state.akumatized == {1}
    assert_turn(state, HAWK_MOTH)


def test_ak7_second_chance_twice_does_not_walk_back() -> None:
    """AK-7 "It does not walk further back in time": a second 2nd Chance undoes nothing more."""
    state = akumatize(1, 2)
    play(state, lb(9, "second_chance"))
    assert state.akumatized == {1}
    play(state, roll(1))  # nothing placed
    play(state, lb(9, "second_chance"))
    assert state.akumatized == {1}
    assert_going_on(state)


def test_ak7_second_chance_cannot_undo_a_trapped_akuma() -> None:
    """AK-7 "Trapped akuma" (design: undoing an akuma de-evilizes it, which a trap forbids)."""
    state = play(new_state(), roll(10), PlaceTrap(3), LB_IDLE, roll(3))
    assert state.akumatized == {3}
    assert state.traps == {3}
    play(state, lb(9, "second_chance"))
    assert state.akumatized == {3}
    assert state.traps == {3}
    assert_going_on(state)


def test_ak7_second_chance_that_did_nothing_still_undoes_the_latest_piece_later() -> None:
    """AK-7 2nd Chance: it takes away Hawk Moth's single latest akuma-or-trap while that piece
    is on the board. A 2nd Chance that did nothing (the latest akuma stood on a trap) leaves that
    akuma the latest placement; once Cataclysm has destroyed the trap, a new 2nd Chance removes
    it, and still not the older akuma on 1."""
    state = play(new_state(), roll(1), roll(10), PlaceTrap(3), roll(3))
    assert state.akumatized == {1, 3}
    assert state.traps == {3}  # the akuma on 3 is the latest placement, and it is trapped
    play(state, lb(9, "second_chance"))  # AK-7 Trapped akuma: nothing happens
    assert state.akumatized == {1, 3}
    play(state, roll(1), lb(3, "cataclysm"))  # Hawk Moth places nothing; the trap goes
    assert state.traps == set()
    play(state, roll(1), lb(9, "second_chance"))
    assert state.akumatized == {1}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_second_chance_that_did_nothing_does_not_walk_back_to_an_older_piece() -> None:
    """AK-7 2nd Chance never reaches past the latest placement: with the latest akuma trapped,
    it leaves the older, untrapped akuma alone, however often it is rolled."""
    state = play(new_state(), roll(1), roll(10), PlaceTrap(3), roll(3))
    for _ in range(3):
        play(state, lb(9, "second_chance"), roll(1))
    assert state.akumatized == {1, 3}
    assert state.traps == {3}


def test_ak7_second_chance_with_nothing_placed_yet_does_nothing() -> None:
    """AK-7 2nd Chance "if that piece is still on the board. Otherwise it does nothing"."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, lb(5, "second_chance"))
    assert state.akumatized == state.traps == set()
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak7_voyage_moves_the_marker_to_another_square_and_rolls_again() -> None:
    """AK-7 "Voyage moves the Ladybug marker to any other square the side chooses, then the
    Miraculous die is rolled again"."""
    state = akumatize(1, 2)
    play(state, lb(5, "voyage"))
    assert state.current_player() == LADYBUG
    assert state.legal_actions() == [Voyage(sq) for sq in SQUARES if sq != 5]
    with pytest.raises(IllegalActionError):
        state.apply(Voyage(5))  # not the same square
    play(state, Voyage(1))
    assert state.ladybug_at == 1
    assert "1.ladybug" in GAME.layout(state)
    assert state.current_player() == CHANCE
    assert list(outcomes(state)) == [Power(face) for face in POWERS]
    play(state, Power("deevilize"))  # the new face acts on the new square
    assert state.akumatized == {2}
    assert_turn(state, HAWK_MOTH)


def test_ak7_a_repeated_voyage_is_rolled_again_without_another_move() -> None:
    """AK-7 "A repeated Voyage is rolled again, until another face appears"; rulebook "(Roll
    again if you get Voyage again.)"."""
    state = akumatize(1, 2)
    play(state, lb(5, "voyage", Voyage(1), "voyage"))
    assert state.current_player() == CHANCE
    assert state.legal_actions() == []
    assert state.ladybug_at == 1
    play(state, Power("voyage"))
    assert state.current_player() == CHANCE
    assert state.ladybug_at == 1
    play(state, Power("deevilize"))
    assert state.akumatized == {2}
    assert_turn(state, HAWK_MOTH)
    # In a later turn, a first Voyage moves the marker again.
    play(state, roll(3), lb(4, "voyage"))
    assert state.legal_actions() == [Voyage(sq) for sq in SQUARES if sq != 4]


# --- AK-8 Supply ---------------------------------------------------------------------------------


def test_ak8_the_box_holds_5_traps_and_5_tiles() -> None:
    """AK-8 "The box holds 5 traps and 5 Shell-ter tiles"."""
    state = new_state()
    assert state.options == {"traps": 5, "tiles": 5}
    assert state.trap_supply == 5
    assert state.tile_supply == 5


def test_ak8_a_trap_beyond_the_supply_does_nothing() -> None:
    """AK-8 "A placement beyond the supply does nothing" (and the turn ends, AK-4)."""
    state = new_state()
    for sq in range(1, 6):
        play(state, roll(10), PlaceTrap(sq))
    assert state.traps == {1, 2, 3, 4, 5}
    assert state.trap_supply == 0
    assert_turn(state, LADYBUG)
    play(state, roll(10))
    assert state.traps == {1, 2, 3, 4, 5}
    assert_turn(state, HAWK_MOTH)
    play(state, roll(12))
    assert state.traps == {1, 2, 3, 4, 5}
    assert_turn(state, LADYBUG)


def test_ak8_a_tile_beyond_the_supply_does_nothing() -> None:
    """AK-8 "A placement beyond the supply does nothing": a sixth Shell-ter."""
    state = new_state()
    for sq in range(1, 7):
        play(state, HM_NOTHING_TO_DEEVILIZE, lb(sq, "shellter"))
    assert state.tiles == {1, 2, 3, 4, 5}
    assert state.tile_supply == 0
    assert_turn(state, HAWK_MOTH)


def test_ak8_a_destroyed_trap_returns_to_the_supply() -> None:
    """AK-8 counts pieces on the board: a trap destroyed by Cataclysm can be placed again."""
    state = akumatize(1, options={"traps": 1})
    play(state, roll(10), PlaceTrap(5), roll(12))  # the 12 finds no trap left in the box
    assert state.traps == {5}
    assert_turn(state, LADYBUG)
    play(state, lb(5, "cataclysm"), roll(10))
    assert state.legal_actions() == [PlaceTrap(sq) for sq in SQUARES]
    play(state, PlaceTrap(6))
    assert state.traps == {6}


def test_ak8_a_removed_tile_returns_to_the_supply() -> None:
    """AK-8 counts pieces on the board: a tile removed by Hawk Moth's roll can be placed again."""
    state = new_state({"tiles": 1})
    play(state, HM_NOTHING_TO_DEEVILIZE, lb(5, "shellter"))
    play(state, HM_NOTHING_TO_DEEVILIZE, lb(6, "shellter"))
    assert state.tiles == {5}
    play(state, roll(5), lb(6, "shellter"))
    assert state.tiles == {6}


def test_ak8_the_supply_is_configurable() -> None:
    """AK-8 **Configurable**: traps=2, tiles=1."""
    state = new_state({"traps": 2, "tiles": 1})
    play(state, roll(10), PlaceTrap(1), roll(10), PlaceTrap(2), roll(10))
    assert state.traps == {1, 2}
    assert_turn(state, LADYBUG)
    play(state, lb(5, "shellter"), HM_NOTHING_TO_DEEVILIZE, lb(6, "shellter"))
    assert state.tiles == {5}


def test_ak8_an_empty_supply_means_no_trap_and_no_tile_ever() -> None:
    """AK-8 configurable down to zero: every 10 or 12 and every Shell-ter does nothing."""
    state = new_state({"traps": 0, "tiles": 0})
    play(state, roll(10))
    assert_turn(state, LADYBUG)
    play(state, lb(5, "shellter"), roll(12))
    assert state.traps == state.tiles == set()
    assert_turn(state, LADYBUG)


def test_ak8_at_most_one_trap_per_square() -> None:
    """AK-8 "There is at most one trap and one tile per square"."""
    state = play(new_state(), roll(10), PlaceTrap(4), roll(10))
    with pytest.raises(IllegalActionError):
        state.apply(PlaceTrap(4))
    assert state.traps == {4}
    assert pieces(GAME.layout(state)) == {"4.trap": PRESENT}


# --- AK-9 Winning --------------------------------------------------------------------------------


def test_ak9_ladybug_wins_when_de_evilize_leaves_no_akuma_and_no_trap() -> None:
    """AK-9 "Ladybug wins the moment one of its actions leaves the board with no akuma and no
    trap": De-evilize; rulebook "de-evilizing all akumas and destroying all traps"."""
    state = akumatize(5)
    play(state, lb(5, "deevilize"))
    assert_won(state, LADYBUG)
    assert state.winning_line is None
    result = GAME.result(state)
    assert result is not None
    assert result["winning_line"] == []
    assert result["ended"] == "cleared"


def test_ak9_ladybug_wins_when_cataclysm_destroys_the_last_trap() -> None:
    """AK-9 counted action: Cataclysm."""
    state = play(new_state(), roll(10), PlaceTrap(5))
    play(state, lb(5, "cataclysm"))
    assert_won(state, LADYBUG)


def test_ak9_ladybug_wins_when_second_chance_removes_the_last_akuma() -> None:
    """AK-9 counted action: 2nd Chance (undoing an akuma)."""
    state = akumatize(5)
    play(state, lb(9, "second_chance"))
    assert_won(state, LADYBUG)


def test_ak9_ladybug_wins_when_second_chance_removes_the_last_trap() -> None:
    """AK-9 counted action: 2nd Chance (undoing a trap)."""
    state = play(new_state(), roll(12), PlaceTrap(5))
    play(state, lb(9, "second_chance"))
    assert_won(state, LADYBUG)


@pytest.mark.parametrize("side", [HAWK_MOTH, LADYBUG], ids=["hawkmoth-rolled", "ladybug-rolled"])
def test_ak9_ladybug_wins_by_its_choice_after_an_11(side: int) -> None:
    """AK-9 counted action: "the choice after an 11", whoever rolled it."""
    state = akumatize(5)
    if side == HAWK_MOTH:
        play(state, LB_IDLE)
    play(state, roll(11), DeEvilize(5))
    assert_won(state, LADYBUG)


def test_ak9_ladybug_wins_by_de_evilizing_after_a_voyage() -> None:
    """AK-9 De-evilize after AK-7 Voyage."""
    state = akumatize(5)
    play(state, lb(1, "voyage", Voyage(5), "voyage", "deevilize"))
    assert_won(state, LADYBUG)


def test_ak9_no_ladybug_win_while_a_trap_remains() -> None:
    """AK-9 "no akuma and no trap": the last akuma goes, but a trap stays."""
    state = akumatize(5)
    play(state, roll(10), PlaceTrap(1), roll(11), DeEvilize(5))
    assert state.akumatized == set()
    assert state.traps == {1}
    assert_going_on(state)
    assert_turn(state, LADYBUG)


def test_ak9_no_ladybug_win_while_an_akuma_remains() -> None:
    """AK-9 "no akuma and no trap": the last trap goes, but an akuma stays."""
    state = akumatize(5)
    play(state, roll(10), PlaceTrap(1), roll(5), lb(1, "cataclysm"))
    assert state.traps == set()
    assert state.akumatized == {5}
    assert_going_on(state)
    assert_turn(state, HAWK_MOTH)


def test_ak9_shellter_tiles_do_not_stop_a_ladybug_win() -> None:
    """AK-9 counts akumas and traps only; Shell-ter tiles may stay on the board."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, lb(3, "shellter"), roll(5))
    play(state, lb(5, "deevilize"))
    assert state.tiles == {3}
    assert_won(state, LADYBUG)


def test_ak9_the_empty_board_at_the_start_is_no_win() -> None:
    """AK-9 "A board that is merely still empty, as at the start, is no win"."""
    state = new_state()
    assert_going_on(state)
    play(state, HM_NOTHING_TO_DEEVILIZE)
    assert_going_on(state)
    play(state, roll(11))
    assert_going_on(state)


@pytest.mark.parametrize("face", ["cataclysm", "deevilize", "second_chance", "shellter", "venom"])
def test_ak9_a_power_on_an_empty_board_is_no_win(face: str) -> None:
    """AK-9 "merely still empty ... is no win": e.g. Ladybug's Cataclysm on an empty board."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, lb(5, face))
    assert state.akumatized == state.traps == set()
    assert_going_on(state)


def test_ak9_returns_are_zero_until_the_end_then_plus_and_minus_one() -> None:
    """Returns: 0 for both while the game goes on, +1 for the winner and -1 for the loser."""
    state = akumatize(1, 2)
    assert state.returns() == [0.0, 0.0]
    play(state, LB_IDLE, roll(3))
    assert state.returns() == [1.0, -1.0]
    assert sum(state.returns()) == 0
    assert GAME.describe(state)["phase"] == "over"


# --- AK-10 Names ---------------------------------------------------------------------------------


def test_ak10_names_are_data_with_the_rulebook_example() -> None:
    """AK-10 "the rulebook's one example is Luka, whose akumatized state is Silencer. Names are
    data"; rulebook "(Ex: Luka will be covered by Silencer)"."""
    assert isinstance(DEFAULT_NAMES, dict)
    assert ("Luka", "Silencer") in DEFAULT_NAMES.values()
    for square, names in DEFAULT_NAMES.items():
        assert square in SQUARES
        civilian, akumatized = names
        assert isinstance(civilian, str)
        assert isinstance(akumatized, str)


def test_ak10_civilian_and_akumatized_cards_have_their_own_light_roles() -> None:
    """AK-10 "Civilian cards have a red border and akumatized-state cards a black border"."""
    state = akumatize(2, 7)
    play(state, roll(12))  # Ladybug's 12 clears the rolled square
    lights = GAME.lights(state)
    assert lights["2"] == lights["7"] == "akumatized"
    assert all(lights[str(sq)] == "civilian" for sq in SQUARES if sq not in (2, 7))


# --- Layout and lights ---------------------------------------------------------------------------


def busy_board() -> AkumaState:
    """Akumas on 1 and 2, a trap on 5, a tile on 6, Hawk Moth on 2, Ladybug on 9."""
    return play(
        new_state(),
        roll(1),
        lb(6, "shellter"),
        roll(10),
        PlaceTrap(5),
        LB_IDLE,
        roll(2),
    )


def test_layout_lists_the_spot_of_every_piece_on_the_board() -> None:
    state = busy_board()
    assert set(pieces(GAME.layout(state))) == {
        "1.akuma",
        "2.akuma",
        "5.trap",
        "6.shellter",
        "2.hawkmoth",
        "9.ladybug",
    }
    for spot in pieces(GAME.layout(state)):
        square, piece = spot.split(".")
        assert int(square) in SQUARES
        assert piece in PIECES
        assert GAME.layout(state)[spot] == PRESENT
        assert GAME.spots()[spot] == REED  # a spot whose sensor feels pieces


def test_spots_are_the_squares_and_a_spot_per_piece_on_each_square() -> None:
    spots = GAME.spots()
    assert {spot for spot, sensor in spots.items() if sensor == CAMERA} == {
        str(sq) for sq in SQUARES
    }
    assert {spot for spot, sensor in spots.items() if sensor == REED} == {
        f"{sq}.{piece}" for sq in SQUARES for piece in PIECES
    }
    assert GAME.board_rows() == [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    assert set(GAME.lights(busy_board())) <= set(spots)


def test_layout_follows_pieces_leaving_the_board() -> None:
    state = busy_board()
    play(state, lb(6, "voyage", Voyage(5), "cataclysm"))  # trap on 5 destroyed
    play(state, roll(6))  # Hawk Moth removes the tile on 6
    assert set(pieces(GAME.layout(state))) == {"1.akuma", "2.akuma", "6.hawkmoth", "5.ladybug"}


def test_lights_show_cards_pieces_markers_and_the_rolled_square() -> None:
    state = busy_board()
    lights = GAME.lights(state)
    assert lights["1"] == "akumatized"
    assert lights["2"] == "rolled"  # Hawk Moth has just rolled 2
    for sq in (3, 4, 5, 6, 7, 8, 9):
        assert lights[str(sq)] == "civilian"
    assert lights["1.akuma"] == lights["2.akuma"] == "akuma"
    assert lights["5.trap"] == "trap"
    assert lights["6.shellter"] == "shellter"
    assert lights["2.hawkmoth"] == "hawkmoth"
    assert lights["9.ladybug"] == "ladybug"
    assert set(lights) == {str(sq) for sq in SQUARES} | set(GAME.layout(state))
    play(state, roll(7))  # Ladybug rolls 7
    assert GAME.lights(state)["7"] == "rolled"
    assert GAME.lights(state)["2"] == "akumatized"


def test_lights_show_the_winning_line() -> None:
    state = akumatize(3, 5)
    play(state, LB_IDLE, roll(7))
    lights = GAME.lights(state)
    assert lights["3"] == lights["5"] == lights["7"] == "winning"
    assert "rolled" not in lights.values()
    assert all(lights[str(sq)] == "civilian" for sq in (1, 2, 4, 6, 8, 9))


def test_lights_after_a_ladybug_win_show_no_winning_line() -> None:
    state = akumatize(5)
    play(state, lb(5, "deevilize"))
    lights = GAME.lights(state)
    assert "winning" not in lights.values()
    assert "rolled" not in lights.values()
    assert all(lights[str(sq)] == "civilian" for sq in SQUARES)


# --- Dice readings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reading", "expected"),
    [
        ([3, 4], [ChooseDice(2), Roll(7)]),
        ([6, 6], [ChooseDice(2), Roll(12)]),
        ([1, 1], [ChooseDice(2), Roll(2)]),
        ([5], [ChooseDice(1), Roll(5)]),
        ([1], [ChooseDice(1), Roll(1)]),
    ],
    ids=str,
)
def test_dice_read_at_the_choose_dice_node_stand_for_the_choice_and_the_roll(
    reading: list[int], expected: list[Action]
) -> None:
    """AK-3: the number of dice in the tray tells the choice made before the roll."""
    state = new_state()
    actions = GAME.dice_actions(state, reading)
    assert actions == expected
    assert_turn(state, HAWK_MOTH)  # reading changes nothing
    play(state, *actions)  # and the actions are legal in turn
    assert state.last_roll == sum(reading)


def test_dice_read_after_the_choice_stand_for_the_roll() -> None:
    state = play(new_state(), ChooseDice(2))
    assert GAME.dice_actions(state, [2, 6]) == [Roll(8)]
    state = play(new_state(), ChooseDice(1))
    assert GAME.dice_actions(state, [6]) == [Roll(6)]


def test_the_miraculous_die_reading_stands_for_the_power() -> None:
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE, roll(5))
    for face in POWERS:
        assert GAME.dice_actions(state, [face]) == [Power(face)]


@pytest.mark.parametrize(
    ("make", "reading", "message"),
    [
        (
            lambda: play(new_state(), ChooseDice(2)),
            [3],
            "two dice were chosen for this roll .AK-3.: two faces are wanted, not 1",
        ),
        (
            lambda: play(new_state(), ChooseDice(1)),
            [3, 4],
            "one die was chosen for this roll .AK-3.: one face is wanted, not 2",
        ),
        (new_state, ["venom"], "1-6"),
        (new_state, [7], "1-6"),
        (new_state, [0], "1-6"),
        (new_state, [1, 2, 3], "1-6"),
        (new_state, [], "1-6"),
        (lambda: play(new_state(), ChooseDice(2)), ["voyage", 3], "1-6"),
        (lambda: play(new_state(), roll(11), roll(5)), [3], "Miraculous"),
        (lambda: play(new_state(), roll(11), roll(5)), ["venom", "voyage"], "Miraculous"),
        (lambda: play(new_state(), roll(11), roll(5)), ["bogus"], "Miraculous"),
        (lambda: play(new_state(), roll(10)), [3, 4], "no dice roll is expected"),
        (lambda: akumatize(1, 2, 3), [3, 4], "no dice roll is expected"),
    ],
    ids=[
        "one-of-two",
        "two-of-one",
        "power-for-pips",
        "seven",
        "zero",
        "three-dice",
        "nothing",
        "mixed",
        "pips-for-power",
        "two-powers",
        "unknown-face",
        "at-place-trap",
        "after-the-end",
    ],
)
def test_a_wrong_dice_reading_is_refused_with_a_clear_message(
    make: Any, reading: list[Any], message: str
) -> None:
    state: AkumaState = make()
    history = state.history()
    with pytest.raises(IllegalActionError, match=message):
        GAME.dice_actions(state, reading)
    assert state.history() == history


def test_dice_wanted_only_at_dice_chance_nodes() -> None:
    state = new_state()
    assert GAME.dice_wanted(state) is None
    play(state, ChooseDice(2))
    assert GAME.dice_wanted(state) == DiceRequest("d6", 2, D6)
    play(state, Roll(10))
    assert GAME.dice_wanted(state) is None  # Hawk Moth places a trap
    play(state, PlaceTrap(1), ChooseDice(1), Roll(4))
    assert GAME.dice_wanted(state) == DiceRequest("miraculous", 1, POWERS)
