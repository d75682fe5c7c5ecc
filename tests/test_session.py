"""The session (DESIGN.md §2): decisions inferred from the sensed layout, dice as chance events."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.journal import Journal
from controller.rules.akuma import GAME, ChooseDice, DeEvilize, PlaceTrap, Power, Roll, Voyage
from controller.rules.api import Action, IllegalActionError
from controller.session import Session


def make_session(tmp_path: Path, actions: list[Action], settle: float = 1.0) -> Session:
    state = GAME.new_initial_state()
    for action in actions:
        state.apply(action)
    journal = Journal(tmp_path)
    journal.start(GAME.name, state.options)
    for action in actions:
        journal.append_action(action.to_json())
    return Session(GAME, state, journal, settle)


def journal_history(tmp_path: Path) -> list[dict[str, object]]:
    return Journal(tmp_path).read().history()


def test_trap_appearing_is_the_trap_placement(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(2), Roll(10)])
    session.on_layout(session.expected | {"7.trap"}, now=0.0)
    assert session.state.actions()[-1] == PlaceTrap(7)
    assert 7 in session.state.traps  # type: ignore[attr-defined]
    assert journal_history(tmp_path)[-1] == PlaceTrap(7).to_json()
    assert session.fixes(now=100.0) == frozenset()


def test_ladybug_marker_moving_is_the_voyage(tmp_path: Path) -> None:
    hm_turn = [ChooseDice(1), Roll(2)]
    session = make_session(tmp_path, [*hm_turn, ChooseDice(1), Roll(4), Power("voyage")])
    assert "4.ladybug" in session.expected
    session.on_layout((session.expected - {"4.ladybug"}) | {"9.ladybug"}, now=0.0)
    assert session.state.actions()[-1] == Voyage(9)
    assert session.state.is_chance_node()  # AK-7: the Miraculous die is rolled again


def test_akuma_taken_off_after_an_eleven_is_the_choice(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(1), Roll(3), ChooseDice(2), Roll(11)])
    assert session.state.legal_actions() == [DeEvilize(3)]
    session.on_layout(session.expected - {"3.akuma"}, now=0.0)
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
    wrong = session.expected | {"4.akuma", "2.shellter"}  # no legal action puts these down
    session.on_layout(wrong, now=10.0)
    assert session.state.history() == before
    assert session.fixes(now=11.0) == frozenset()  # still within the settle time
    view = session.view(now=11.0)
    assert view.roles["4.akuma"] == "changed" and not view.blinking
    assert session.fixes(now=11.5) == {"4.akuma", "2.shellter"}
    assert session.view(now=11.5).blinking == {"4.akuma", "2.shellter"}
    # Put right: the blinking stops, and the state is as it was.
    session.on_layout(session.expected, now=12.0)
    assert session.fixes(now=20.0) == frozenset()
    assert session.state.history() == before


def test_settle_time_restarts_while_hands_keep_moving(tmp_path: Path) -> None:
    session = make_session(tmp_path, [], settle=1.0)
    session.on_layout(frozenset({"1.trap"}), now=0.0)
    session.on_layout(frozenset({"1.trap", "2.trap"}), now=0.9)
    assert session.fixes(now=1.5) == frozenset()
    assert session.fixes(now=1.9) == {"1.trap", "2.trap"}


def test_chance_result_asks_the_table_to_follow(tmp_path: Path) -> None:
    """After Hawk Moth rolls a 5, the marker and an akuma must go on square 5."""
    session = make_session(tmp_path, [], settle=0.5)
    session.on_layout(frozenset(), now=0.0)
    session.on_dice((2, 3), now=0.0)
    assert session.expected == {"5.hawkmoth", "5.akuma"}
    assert session.fixes(now=0.6) == {"5.hawkmoth", "5.akuma"}
    session.on_layout(frozenset({"5.hawkmoth", "5.akuma"}), now=1.0)
    assert session.fixes(now=5.0) == frozenset()


def test_legal_spots_are_lit_for_a_decision(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(1), Roll(3), ChooseDice(2), Roll(12)])
    roles = session.view(now=0.0).roles
    legal = {spot for spot, role in roles.items() if role == "legal"}
    assert legal == {f"{sq}.trap" for sq in range(1, 10)}


def test_act_by_id_applies_and_refuses_clearly(tmp_path: Path) -> None:
    session = make_session(tmp_path, [ChooseDice(2), Roll(12)])
    with pytest.raises(IllegalActionError, match="place_trap:1"):
        session.act("voyage:3", now=0.0)
    assert session.act("place_trap:6", now=0.0) == PlaceTrap(6)
    assert session.expected == {"6.trap"}


def test_misread_die_is_corrected_in_state_and_journal(tmp_path: Path) -> None:
    session = make_session(tmp_path, [])
    session.on_dice((2, 3), now=0.0)  # read as 5: square 5 akumatized
    session.correct_dice((2, 4), now=0.0)  # it was a 6
    assert session.state.actions() == (ChooseDice(2), Roll(6))
    assert session.expected == {"6.hawkmoth", "6.akuma"}
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
