"""The session (DESIGN.md §2): decisions inferred from the sensed layout, dice as chance events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import stack_game
from stack_game import Move, Put

from controller.journal import Journal
from controller.rules.akuma import (
    GAME,
    ChooseDice,
    DeEvilize,
    PlaceTrap,
    Power,
    Roll,
    Voyage,
    square_cards,
)
from controller.rules.api import PRESENT, Action, Game, IllegalActionError, Layout
from controller.session import Session, differing


def make_session(
    tmp_path: Path,
    actions: list[Action],
    settle: float = 1.0,
    game: Game = GAME,
    options: dict[str, Any] | None = None,
) -> Session:
    state = game.new_initial_state(options)
    for action in actions:
        state.apply(action)
    journal = Journal(tmp_path)
    journal.start(game.name, state.options)
    for action in actions:
        journal.append_action(action.to_json())
    return Session(game, state, journal, settle)


def pieces(*spots: str) -> Layout:
    """A layout of reed spots, each feeling a piece."""
    return dict.fromkeys(spots, PRESENT)


CIVILIANS = square_cards(())
"""Akuma's squares as the camera sees them before any akumatization: each civilian's card."""


def without(layout: Layout, spot: str) -> Layout:
    return {s: token for s, token in layout.items() if s != spot}


def journal_history(tmp_path: Path) -> list[dict[str, object]]:
    return Journal(tmp_path).read().history()


def test_trap_appearing_is_the_trap_placement(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(2), Roll(10)])
    session.on_layout(session.expected | {"7.trap": PRESENT}, now=0.0)
    assert session.state.actions()[-1] == PlaceTrap(7)
    assert 7 in session.state.traps  # type: ignore[attr-defined]
    assert journal_history(tmp_path)[-1] == PlaceTrap(7).to_json()
    assert session.fixes(now=100.0) == frozenset()


def test_ladybug_marker_moving_is_the_voyage(tmp_path: Path) -> None:
    hm_turn = [ChooseDice(1), Roll(2)]
    session = make_session(tmp_path, [*hm_turn, ChooseDice(1), Roll(4), Power("voyage")])
    assert "4.ladybug" in session.expected
    sensed = session.expected | {"9.ladybug": PRESENT}
    del sensed["4.ladybug"]
    session.on_layout(sensed, now=0.0)
    assert session.state.actions()[-1] == Voyage(9)
    assert session.state.is_chance_node()  # AK-7: the Miraculous die is rolled again


def test_akuma_taken_off_after_an_eleven_is_the_choice(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(1), Roll(3), ChooseDice(2), Roll(11)])
    assert session.state.legal_actions() == [DeEvilize(3)]
    # The akuma piece alone is not enough: the akumatized card must leave the civilian's.
    session.on_layout(without(session.expected, "3.akuma"), now=0.0)
    assert session.state.actions()[-1] == Roll(11)
    session.on_layout(without(session.expected, "3.akuma") | {"3": "civilian-3"}, now=0.1)
    assert session.state.actions()[-1] == DeEvilize(3)


@pytest.mark.parametrize(("values", "count"), [((5,), 1), ((3, 4), 2)])
def test_number_of_dice_seen_tells_one_or_two(
    tmp_path: Path, values: tuple[int, ...], count: int
) -> None:
    """AK-3: the count of dice read is the choice made before the roll."""
    session = make_session(tmp_path, [])
    applied = session.on_dice(values, now=0.0)
    assert applied == [ChooseDice(count), Roll(sum(values))]
    assert journal_history(tmp_path) == [a.to_json() for a in applied]


def test_unmatched_layout_never_changes_the_state_and_blinks_after_settling(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(2), Roll(10)], settle=1.5)
    before = session.state.history()
    wrong = session.expected | pieces("4.akuma", "2.shellter")  # no legal action puts these
    session.on_layout(wrong, now=10.0)
    assert session.state.history() == before
    assert session.fixes(now=11.0) == frozenset()  # still within the settle time
    assert session.next_deadline(now=11.0) == 11.5  # the loop wakes then to light them
    view = session.view(now=11.0)
    assert view.roles["4.akuma"] == "changed" and not view.blinking
    assert session.fixes(now=11.5) == {"4.akuma", "2.shellter"}
    assert session.view(now=11.5).blinking == {"4.akuma", "2.shellter"}
    assert session.next_deadline(now=11.5) is None  # passed: the blinking keeps the time
    # Put right: the blinking stops, and the state is as it was.
    session.on_layout(session.expected, now=12.0)
    assert session.fixes(now=20.0) == frozenset()
    assert session.state.history() == before


def test_settle_time_restarts_while_hands_keep_moving(tmp_path: Path) -> None:
    session = make_session(tmp_path, [], settle=1.0)
    session.on_layout(CIVILIANS | pieces("1.trap"), now=0.0)
    session.on_layout(CIVILIANS | pieces("1.trap", "2.trap"), now=0.9)
    assert session.fixes(now=1.5) == frozenset()
    assert session.fixes(now=1.9) == {"1.trap", "2.trap"}


def test_chance_result_asks_the_table_to_follow(tmp_path: Path) -> None:
    """After Hawk Moth rolls a 5, the marker and an akuma must go on square 5."""
    session = make_session(tmp_path, [], settle=0.5)
    session.on_layout(CIVILIANS, now=0.0)
    session.on_dice((2, 3), now=0.0)
    after = CIVILIANS | {"5": "akumatized-5"} | pieces("5.hawkmoth", "5.akuma")
    assert session.expected == after
    assert session.fixes(now=0.6) == {"5", "5.hawkmoth", "5.akuma"}  # the card too (AK-5)
    session.on_layout(after, now=1.0)
    assert session.fixes(now=5.0) == frozenset()


def test_a_move_made_before_the_table_caught_up_waits_and_is_not_undone(tmp_path: Path) -> None:
    """Hawk Moth's 1 asks for an akuma and the marker on square 1; the Ladybug lays a trap on 7
    (legal after its 10) before they are down. Only square 1 is to be put right; once it is,
    the trap is the placement (issue 20)."""
    session = make_session(tmp_path, [ChooseDice(1), Roll(1), ChooseDice(2), Roll(10)])
    behind = without(without(without(session.expected, "1.akuma"), "1.hawkmoth"), "1")
    session.on_layout(behind | {"1": "civilian-1"} | pieces("7.trap"), now=0.0)
    assert session.fixes(now=5.0) == {"1", "1.akuma", "1.hawkmoth"}
    assert session.view(now=5.0).roles["7.trap"] == "changed"
    session.on_layout(session.expected | pieces("7.trap"), now=6.0)
    assert session.state.actions()[-1] == PlaceTrap(7)
    assert session.fixes(now=10.0) == frozenset()


def test_legal_spots_are_lit_for_a_decision(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(1), Roll(3), ChooseDice(2), Roll(12)])
    roles = session.view(now=0.0).roles
    legal = {spot for spot, role in roles.items() if role == "legal"}
    assert legal == {f"{sq}.trap" for sq in range(1, 10)}


def test_a_roll_the_software_drew_is_not_offered_for_correction(tmp_path: Path) -> None:
    """The walk: "Misread? The right values" stood under every roll the simulated table drew.
    A roll read or typed may be corrected until played on; one drawn in software was not read."""
    typed = make_session(tmp_path / "typed", [])
    typed.on_dice((2, 3), now=0.0, source="typed")
    assert typed.correctable
    drawn = make_session(tmp_path / "drawn", [])
    drawn.on_dice((2, 3), now=0.0, source="virtual")
    assert not drawn.correctable
    with pytest.raises(IllegalActionError, match="no dice reading to correct"):
        drawn.correct_dice((2, 4), now=0.0)


def test_act_by_id_applies_and_refuses_clearly(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(2), Roll(12)])
    with pytest.raises(IllegalActionError, match="place_trap:1"):
        session.act("voyage:3", now=0.0)
    assert session.act("place_trap:6", now=0.0) == PlaceTrap(6)
    assert session.expected == CIVILIANS | {"6.trap": PRESENT}


def test_misread_die_is_corrected_in_state_and_journal(tmp_path: Path) -> None:
    session = make_session(tmp_path, [])
    session.on_dice((2, 3), now=0.0)  # read as 5: square 5 akumatized
    session.correct_dice((2, 4), now=0.0)  # it was a 6
    assert session.state.actions() == (ChooseDice(2), Roll(6))
    assert session.expected == CIVILIANS | {"6": "akumatized-6"} | pieces("6.hawkmoth", "6.akuma")
    record = Journal(tmp_path).read()
    replayed = GAME.replay(record.history(), record.options)
    assert replayed.history() == session.state.history()


def test_correction_is_refused_once_the_roll_was_played_on(tmp_path: Path) -> None:
    session = make_session(tmp_path, [])
    session.on_dice((5, 5), now=0.0)  # a 10: Hawk Moth places a trap
    session.act("place_trap:2", now=0.0)
    with pytest.raises(IllegalActionError, match="played on"):
        session.correct_dice((5, 6), now=0.0)


def test_dice_that_do_not_fit_change_nothing(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(1), Roll(2), ChooseDice(1), Roll(4)])
    before = session.state.history()
    with pytest.raises(IllegalActionError, match="Miraculous"):
        session.on_dice((3, 4), now=0.0)
    assert session.state.history() == before
    assert journal_history(tmp_path) == before


# -- layouts of tokens ------------------------------------------------------------------------


def test_differing_compares_tokens_and_absence() -> None:
    before = {"a": "red:1", "b": "blue:2", "c": "red:1"}
    after = {"a": "red:1", "b": "red:1", "d": "blue:2"}
    assert differing(before, after) == {"b", "c", "d"}
    assert differing(after, before) == differing(before, after)
    assert differing(before, dict(before)) == frozenset()
    assert differing({}, {}) == frozenset()


# -- chance seen on the board (a set-up laid out die by die) ----------------------------------

SET_UP = [Put("a", "red:1", 0), Put("b", "blue:2", 0), Put("c", "blue:2", 0)]
SET_UP_BOARD = {"a": "red:1", "b": "blue:2", "c": "blue:2"}


def stacks_session(tmp_path: Path, actions: list[Action], **options: Any) -> Session:
    return make_session(tmp_path, actions, 1.0, stack_game.GAME, options)


def test_board_chance_outcome_is_applied_when_the_die_shows(tmp_path: Path) -> None:
    session = stacks_session(tmp_path, [])
    assert session.view(now=0.0).roles == {"a": "legal"}  # where the next die goes
    session.on_layout({"a": "blue:2"}, now=0.0)
    assert session.state.actions() == (Put("a", "blue:2", 0),)
    assert journal_history(tmp_path) == [Put("a", "blue:2", 0).to_json()]
    assert session.view(now=0.0).roles == {"b": "legal"}


def test_board_chance_chain_catches_up_with_cells_filled_out_of_order(tmp_path: Path) -> None:
    session = stacks_session(tmp_path, [])
    session.on_layout({"c": "blue:2"}, now=0.0)  # c first: the rules want a first
    assert session.state.actions() == ()
    session.on_layout({"c": "blue:2", "b": "blue:2"}, now=0.5)
    assert session.state.actions() == ()
    session.on_layout(SET_UP_BOARD, now=1.0)  # a at last: a, b and c follow in turn
    assert session.state.actions() == tuple(SET_UP)
    assert session.state.current_player() == 0
    assert session.fixes(now=10.0) == frozenset()


def test_board_chance_with_no_fitting_outcome_blinks_after_settling(tmp_path: Path) -> None:
    session = stacks_session(tmp_path, [])
    session.on_layout({"a": "green:6"}, now=0.0)  # a misread, or a die of no set-up
    assert session.state.actions() == ()
    assert session.view(now=0.5).roles == {"a": "changed"}
    assert session.fixes(now=1.0) == {"a"}


def test_board_chance_outcomes_that_look_alike_are_not_guessed(tmp_path: Path) -> None:
    session = stacks_session(tmp_path, [], twins=True)
    session.on_layout({"a": "red:1"}, now=0.0)
    assert session.state.actions() == ()


def test_move_taken_by_name_is_not_read_back_from_the_table_not_yet_moved(tmp_path: Path) -> None:
    """A die moved on the page, the table still as it was: that is not the next player moving
    it back (a Baron Voodoo die, in a walk through the dashboard); a hand that does is read."""
    session = stacks_session(tmp_path, SET_UP, moves=3)
    session.on_layout(SET_UP_BOARD, now=0.0)
    session.act("move:a:b", now=0.0)
    session.on_layout(SET_UP_BOARD, now=0.5)
    assert session.state.actions()[len(SET_UP) :] == (Move("a", "b"),)
    session.on_layout(dict(session.expected), now=1.0)  # carried out
    session.on_layout(SET_UP_BOARD, now=2.0)  # and the second player moves it back
    assert session.state.actions()[len(SET_UP) :] == (Move("a", "b"), Move("b", "a"))


# -- a piece lifted mid-move ------------------------------------------------------------------


def test_lifted_die_lights_where_it_may_land_and_never_blinks(tmp_path: Path) -> None:
    # a's red:1 moved onto b: b is a stack of blue:2 under red:1, and a is empty.
    session = stacks_session(tmp_path, [*SET_UP, Move("a", "b")])
    assert session.expected == {"b": "red:1", "c": "blue:2"}
    session.on_layout({"b": "blue:2", "c": "blue:2"}, now=0.0)  # red:1 lifted off b
    assert session.next_deadline(now=0.0) is None
    view = session.view(now=100.0)
    assert view.roles == {"a": "landing", "c": "landing", "b": "changed"}
    assert not view.blinking
    session.on_layout({"b": "blue:2", "c": "red:1"}, now=1.0)  # and put down on c
    assert session.state.actions()[-1] == Move("b", "c")
    assert session.state.is_terminal()


def test_die_put_back_where_it_was_lifted_changes_nothing(tmp_path: Path) -> None:
    session = stacks_session(tmp_path, [*SET_UP, Move("a", "b")], moves=3)
    before = session.state.history()
    session.on_layout({"b": "blue:2", "c": "blue:2"}, now=0.0)
    session.on_layout(dict(session.expected), now=1.0)
    assert session.state.history() == before
    assert "landing" not in session.view(now=1.0).roles.values()


def test_lifting_a_piece_that_no_move_takes_is_a_mistake_to_put_right(tmp_path: Path) -> None:
    """Akuma: a trap taken off while Hawk Moth chooses the dice blinks like any mistake."""
    session = make_session(tmp_path, [ChooseDice(2), Roll(10), PlaceTrap(4)])
    session.on_layout(CIVILIANS, now=0.0)
    assert session.fixes(now=1.0) == {"4.trap"}
    assert "landing" not in session.view(now=1.0).roles.values()


def test_ladybug_marker_in_the_hand_lights_its_voyage_squares(tmp_path: Path) -> None:
    hm_turn = [ChooseDice(1), Roll(2)]
    session = make_session(tmp_path, [*hm_turn, ChooseDice(1), Roll(4), Power("voyage")])
    session.on_layout(without(session.expected, "4.ladybug"), now=0.0)
    roles = session.view(now=100.0).roles
    landing = {spot for spot, role in roles.items() if role == "landing"}
    assert landing == {f"{sq}.ladybug" for sq in (1, 2, 3, 5, 6, 7, 8, 9)}
    assert roles["4.ladybug"] == "changed"
    assert session.fixes(now=100.0) == frozenset()
