"""Mightymania, rule by rule.

Each test cites its source: a rule of the rulebook (mightymania.txt, "rule 7") or a
clarification (MM-1 .. MM-7 in CLARIFICATIONS.md). Positions of play are written compactly and
their fields set directly (`mightymania_play.arrange`); duels are played through the engine.

The shipped decks play: player_1 the Titans, player_2 the Rogues. Values used below, as
brainwashing / thermokinetic / invisibility / speed / force, and lives:

    T1 Leader 4 6 2 3 9, 3 lives    R1 Leader 9 4 5 4 3, 3 lives
    T2        3 8 4 5 2, 2 lives    R2        2 7 3 5 6, 2 lives
    T3        7 2 8 4 1, 1 life     R3        5 4 9 3 2, 1 life
    T4        2 4 5 9 3, 2 lives    R4        2 3 3 6 9, 2 lives

MM-2: brainwashing beats thermokinetic and invisibility, thermokinetic beats invisibility and
speed, invisibility beats speed and force, speed beats force and brainwashing, force beats
brainwashing and thermokinetic.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from mightymania_play import (
    P1,
    P2,
    arrange,
    attack,
    consistency_problems,
    duel,
    first_rolls,
    hidden_problems,
    lays,
    new_state,
    play,
    snapshot,
    started,
)

from controller.config import load_config
from controller.journal import Journal
from controller.rules import get_game
from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    DiceRequest,
    HistoryError,
    IllegalActionError,
)
from controller.rules.mightymania import (
    DOWN,
    GAME,
    POS,
    SLOT,
    Attack,
    Clear,
    Defend,
    Lay,
    LayPower,
    MightymaniaDataError,
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
    beating,
    load_game_data,
)
from controller.session import Session
from controller.simulate import random_step

DECKS = Path(__file__).parent.parent / "controller" / "rules" / "decks"
POWERS = ("brainwashing", "thermokinetic", "invisibility", "speed", "force")


def assert_refused(state: MightymaniaState, action: Action) -> None:
    """The action raises IllegalActionError and leaves the state exactly as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


def phase(state: MightymaniaState) -> Phase:
    """The phase, read afresh (mypy keeps an earlier assert's narrowing across actions)."""
    return state.phase


def leader_attacked(lives: dict[str, int] | None = None) -> MightymaniaState:
    """player_1 attacks R1, face up in column 2, with the face-down card of its column 2 (T4)."""
    state = arrange("v v v v", "v R1 v v", lives=lives)
    attack(state, 2, 2, "T4")
    assert state.phase is Phase.DEFEND
    return state


# -- data: decks (MM-1) and the power cycle (MM-2) ----------------------------------------------


def test_shipped_decks_hold_a_leader_and_three_squad_cards_with_1_to_3_lives_mm_1() -> None:
    data = load_game_data("titans,rogues", "")
    assert data.powers == POWERS
    for deck, leader in zip(data.decks, ("T1", "R1"), strict=True):
        assert len(deck.cards) == 4
        assert [c.id for c in deck.cards if c.leader] == [leader]
        assert all(1 <= c.lives <= 3 and set(c.powers) == set(POWERS) for c in deck.cards)
    assert not set(data.ids[0]) & set(data.ids[1])  # the camera tells them apart


def test_game_data_is_loaded_once_per_option_value() -> None:
    assert load_game_data("titans,rogues", "") is load_game_data("titans,rogues", "")
    first, second = new_state(), new_state()
    assert first.data is second.data
    swapped = new_state({"decks": "rogues,titans"})
    assert swapped.data.leaders == ("R1", "T1")


def test_decks_may_be_named_by_path() -> None:
    path = DECKS / "mightymania-rogues.toml"
    state = new_state({"decks": f"titans, {path}"})
    assert state.data.ids[1] == ("R1", "R2", "R3", "R4")


def test_each_power_beats_the_next_two_and_loses_to_the_other_two_mm_2() -> None:
    beats = beating(POWERS)
    assert {loser for winner, loser in beats if winner == "brainwashing"} == {
        "thermokinetic",
        "invisibility",
    }
    assert {winner for winner, loser in beats if loser == "brainwashing"} == {"speed", "force"}
    for power in POWERS:
        assert sum(1 for w, _ in beats if w == power) == 2
        assert sum(1 for _, loser in beats if loser == power) == 2
        assert (power, power) not in beats


def test_a_longer_cycle_beats_the_next_half_mm_2_configurable() -> None:
    seven = ("a", "b", "c", "d", "e", "f", "g")
    beats = beating(seven)
    assert {loser for winner, loser in beats if winner == "a"} == {"b", "c", "d"}
    assert {loser for winner, loser in beats if winner == "g"} == {"a", "b", "c"}


def write_deck(tmp_path: Path, text: str, name: str = "deck.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def deck_text(ids: str = "X1 X2 X3 X4", **changes: str) -> str:
    """A valid deck, with TOML lines of its first card replaced or added by `changes`."""
    cards = []
    for k, card_id in enumerate(ids.split()):
        fields = {
            "id": f'"{card_id}"',
            "name": f'"Card {k}"',
            "lives": "2",
            "leader": "true" if k == 0 else "false",
            "powers": "{ brainwashing = 1, thermokinetic = 2, invisibility = 3, speed = 4, "
            "force = 5 }",
        }
        if k == 0:
            fields.update(changes)
        body = "\n".join(f"{key} = {value}" for key, value in fields.items() if value != "-")
        cards.append(f"[[cards]]\n{body}\n")
    return 'name = "Test"\n\n' + "\n".join(cards)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (deck_text("X1 X2 X3"), "cards must be exactly 4"),
        (deck_text("X1 X2 X3 X4 X5"), "cards must be exactly 4"),
        (deck_text(leader="false"), "exactly one card must have leader = true"),
        (deck_text("X1 X2 X3 X4").replace("false", "true", 1), "exactly one card"),
        (deck_text(lives="4"), "cards[0].lives must be a whole number 1 to 3"),
        (deck_text(lives="0"), "cards[0].lives"),
        (deck_text(lives='"2"'), "cards[0].lives"),
        (deck_text(leader='"yes"'), "cards[0].leader must be true or false"),
        (deck_text(id='"down"'), "cards[0].id must be a name"),
        (deck_text(id='"force"'), "cards[0].id must be a name"),
        (deck_text("X1 X1 X3 X4"), "cards[].id must differ"),
        (deck_text(name="-"), "cards[0].name must be a non-empty string"),
        (deck_text(powers="{ brainwashing = 1, force = 5 }"), "cards[0].powers must give"),
        (
            deck_text(
                powers="{ brainwashing = 1, thermokinetic = 2, invisibility = 3, speed = 4, "
                "force = 5, luck = 6 }"
            ),
            "cards[0].powers must give",
        ),
        (
            deck_text(
                powers="{ brainwashing = -1, thermokinetic = 2, invisibility = 3, speed = 4, "
                "force = 5 }"
            ),
            "cards[0].powers.brainwashing must be a whole number",
        ),
        (deck_text().replace('name = "Test"', "name = 3"), "name must be a non-empty string"),
        ("name = [", "is not valid TOML"),
        ('name = "Test"\ncards = [1, 2, 3, 4]\n', "cards[0] must be a table"),
    ],
)
def test_a_bad_deck_is_refused_naming_the_file_and_the_field_mm_1(
    tmp_path: Path, text: str, field: str
) -> None:
    path = write_deck(tmp_path, text)
    with pytest.raises(ValueError) as error:
        new_state({"decks": f"titans,{path}"})
    assert field in str(error.value)
    assert path in str(error.value)


def test_a_valid_deck_file_of_ones_own_plays(tmp_path: Path) -> None:
    path = write_deck(tmp_path, deck_text())
    state = new_state({"decks": f"titans,{path}"})
    assert state.data.leaders == ("T1", "X1")


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        ("titans", "option 'decks' must name two decks"),
        ("titans,rogues,titans", "option 'decks' must name two decks"),
        ("titans,", "option 'decks' must name two decks"),
        ("titans,nobody", "unknown Mightymania deck 'nobody'; built-in decks: rogues, titans"),
        ("titans,titans", "share card ids ['T1', 'T2', 'T3', 'T4']"),
        ("titans,/no/such/deck.toml", "cannot read Mightymania deck /no/such/deck.toml"),
    ],
)
def test_bad_deck_options_are_refused_clearly(decks: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        new_state({"decks": decks})


@pytest.mark.parametrize(
    ("powers", "message"),
    [
        ('["a", "b", "c"]', "odd number of powers, at least 5, not 3"),
        ('["a", "b", "c", "d", "e", "f"]', "odd number of powers, at least 5, not 6"),
        ('["a", "b", "c", "d", "a"]', "must be different names"),
        ('["a", "b", "c", "d", "down"]', "must be different names, none of them 'down'"),
        ('"force"', "must be a list of power names"),
        ('["a", "b", 3, "d", "e"]', "must be a list of power names"),
    ],
)
def test_a_bad_power_cycle_is_refused_naming_the_file_mm_2(
    tmp_path: Path, powers: str, message: str
) -> None:
    path = write_deck(tmp_path, f"powers = {powers}\n", "cycle.toml")
    with pytest.raises(MightymaniaDataError) as error:
        new_state({"rules": path})
    assert f"Mightymania rules {path}: powers" in str(error.value)
    assert message in str(error.value)


def test_decks_must_give_the_powers_of_the_cycle_in_use_mm_2(tmp_path: Path) -> None:
    path = write_deck(tmp_path, 'powers = ["a", "b", "c", "d", "e"]\n', "cycle.toml")
    with pytest.raises(MightymaniaDataError, match=r"cards\[0\].powers must give exactly"):
        new_state({"rules": path})


def test_unknown_options_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown option 'players'"):
        new_state({"players": 3})
    with pytest.raises(ValueError, match="option 'decks' for mightymania must be str"):
        new_state({"decks": 2})


def test_the_game_is_registered_for_two_players() -> None:
    assert get_game("mightymania") is GAME
    assert GAME.player_names == ("player_1", "player_2")
    assert new_state().num_players == 2
    with pytest.raises(TypeError, match="not a Mightymania state"):
        GAME.layout(get_game("akuma").new_initial_state())


# -- rule 1: set-up -------------------------------------------------------------------------------


def test_set_up_lays_every_position_face_down_one_by_one_rule_1() -> None:
    state = new_state()
    expected = [Lay(p, col) for p in (P1, P2) for col in range(1, 5)]
    for lay in expected:
        assert state.current_player() == CHANCE
        assert GAME.dice_wanted(state) is None  # read from the board
        assert state.chance_outcomes() == [(lay, 1.0)]
        state.apply(lay)
        spot = POS[lay.player][lay.col - 1]
        assert GAME.layout(state)[spot] == DOWN
    assert state.phase is Phase.START_ROLL
    assert GAME.layout(state) == dict.fromkeys([*POS[0], *POS[1]], DOWN)


def test_set_up_cards_are_accepted_from_the_table_in_any_order_rule_1(tmp_path: Path) -> None:
    session = start_session(tmp_path, new_state())
    player_2_first = dict.fromkeys(POS[1], DOWN)
    session.on_layout(player_2_first, now=0.0)
    assert session.fixes(now=100.0) == frozenset()  # laid ahead, not a mistake
    assert GAME.explain(session.state, player_2_first) is None
    session.on_layout(dict.fromkeys([*POS[0], *POS[1]], DOWN), now=1.0)
    assert session.state.actions() == tuple(lays())


def test_a_card_laid_face_up_at_set_up_is_explained_rule_1() -> None:
    problem = GAME.explain(new_state(), {"s1.c1": "T1"})
    assert problem is not None
    assert problem.message == "s1.c1: cards are laid face down (rule 1)"
    assert problem.spots == {"s1.c1"}


# -- rule 2: the first attacker -------------------------------------------------------------------


def test_the_highest_start_roll_attacks_first_rule_2() -> None:
    for first in (P1, P2):
        state = new_state()
        play(state, lays())
        assert GAME.dice_wanted(state) == DiceRequest("d6", 1, (1, 2, 3, 4, 5, 6))
        play(state, first_rolls(first))
        assert state.attacker == first
        assert state.current_player() == first


def test_a_tied_start_roll_is_rolled_again_by_both_rule_2() -> None:
    state = new_state()
    play(state, [*lays(), StartRoll(4), StartRoll(4)])
    assert state.phase is Phase.START_ROLL and state.rolls == []
    play(state, [StartRoll(2), StartRoll(5)])
    assert state.attacker == P2


def test_dice_are_read_as_the_start_roll_and_the_rounds() -> None:
    state = new_state()
    play(state, lays())
    assert GAME.dice_actions(state, [3]) == [StartRoll(3)]
    state = started()
    with pytest.raises(IllegalActionError, match="no die roll is expected now"):
        GAME.dice_actions(state, [3])
    attack(state, 1, 1, "T2", "R2")
    assert GAME.dice_actions(state, [6]) == [Rounds(6)]
    for reading in ([7], [1, 2], ["force"], [True]):
        with pytest.raises(IllegalActionError, match=r"one d6 \(1-6\) is wanted"):
            GAME.dice_actions(state, reading)


# -- rules 3-4, MM-3: attacks ---------------------------------------------------------------------


def test_a_card_attacks_the_facing_card_and_the_two_diagonals_only_mm_3_rule_3() -> None:
    state = started()
    attacks = {(a.from_col, a.to_col) for a in state.legal_actions() if isinstance(a, Attack)}
    assert attacks == {(i, j) for i in range(1, 5) for j in range(1, 5) if abs(i - j) <= 1}
    for far in (Attack(1, 3), Attack(4, 2), Attack(1, 4), Attack(5, 4), Attack(0, 1)):
        assert_refused(state, far)


def test_only_cards_present_attack_and_are_attacked_mm_3() -> None:
    state = arrange("v . . .", "v v . v", removed=["T2", "T3", "T4", "R3"])
    play(state, [Stay(), Stay()])  # the defender's move step, then the attacker's (MM-7)
    assert state.legal_actions() == [Attack(1, 1), Attack(1, 2)]


def test_the_attacker_chooses_the_attack_rule_4() -> None:
    state = started(P2)
    assert state.current_player() == P2
    assert all(isinstance(a, Attack) for a in state.legal_actions())


# -- MM-8: no attack possible -------------------------------------------------------------------


def test_an_attacker_with_an_attack_must_make_one_mm_8() -> None:
    """MM-8: an attacker who has an attack must make one: no pass is offered."""
    state = started()
    assert all(isinstance(a, Attack) for a in state.legal_actions())
    assert_refused(state, Stay())


def test_with_no_attack_after_the_moves_the_attacker_passes_and_roles_swap_mm_8() -> None:
    """MM-8: an attacker with no possible attack after the moves of MM-7 passes (Stay), and
    the roles swap as after an attack."""
    state = arrange("v . . .", ". . . v", removed=["T2", "T3", "T4", "R2", "R3", "R4"])
    play(state, [Stay(), Stay()])
    assert state.phase is Phase.ATTACK and state.legal_actions() == [Stay()]
    turn = state.turn
    state.apply(Stay())
    assert (state.attacker, state.turn, state.phase) == (P2, turn + 1, Phase.MOVE)
    assert state.current_player() == P1  # the new defender moves first (MM-7)
    assert not state.is_terminal()


def test_a_move_that_brings_an_attack_in_reach_rules_the_pass_out_mm_8() -> None:
    state = arrange("v . . .", ". . v v", removed=["T2", "T3", "T4", "R2", "R3"])
    play(state, [Stay(), Move(1, 2)])  # player_2 stays; player_1 moves into reach
    assert state.legal_actions() == [Attack(2, 3)]


def test_two_passes_in_a_row_end_the_game_in_a_draw_mm_8() -> None:
    """MM-8: when two turns in a row end in a pass, the game ends in a draw."""
    state = arrange("v . . .", ". . . v", removed=["T2", "T3", "T4", "R2", "R3", "R4"])
    play(state, [Stay(), Stay(), Stay()])  # the moves (MM-7), then player_1's pass
    assert not state.is_terminal() and state.attacker == P2
    play(state, [Stay(), Stay()])
    assert state.legal_actions() == [Stay()]
    state.apply(Stay())  # player_2's pass: the second in a row
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [0.0, 0.0]
    assert GAME.result(state) == {
        "winners": [],
        "returns": [0.0, 0.0],
        "draw": True,
        "ended": "passes",
    }
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    assert_refused(state, Stay())


def test_an_attack_between_two_passes_ends_the_run_of_passes_mm_8() -> None:
    state = arrange("v . . .", ". . v v", removed=["T2", "T3", "T4", "R2", "R3"])
    play(state, [Stay(), Stay(), Stay()])  # player_1 passes
    play(state, [Stay(), Move(3, 2)])  # player_1 stays; player_2 moves into reach
    assert state.legal_actions() == [Attack(2, 1)]
    play(state, [Attack(2, 1), Reveal(P2, 2, "R4"), Reveal(P1, 1, "T1")])
    duel(state, "force", "force")  # R4 9 against T1 9: drawn, no life lost
    state.apply(Clear())
    play(state, [Move(2, 3), Stay()])  # player_2 moves out of reach; player_1 stays
    state.apply(Stay())  # player_1 passes: one pass in a row, not two
    assert not state.is_terminal() and state.attacker == P2


# -- rule 6: reveals ------------------------------------------------------------------------------


def test_both_fighters_are_revealed_attacker_first_rule_6() -> None:
    state = started()
    state.apply(Attack(2, 3))
    assert state.current_player() == CHANCE and GAME.dice_wanted(state) is None
    outcomes = state.chance_outcomes()
    assert outcomes == [(Reveal(P1, 2, c), 0.25) for c in ("T1", "T2", "T3", "T4")]
    state.apply(Reveal(P1, 2, "T4"))
    assert GAME.layout(state)["s1.c2"] == "T4"
    state.apply(NoDefence())  # MM-5: decided while the attacked card, maybe R1, is face down
    assert [o for o, _ in state.chance_outcomes()] == [
        Reveal(P2, 3, c) for c in ("R1", "R2", "R3", "R4")
    ]
    state.apply(Reveal(P2, 3, "R3"))
    assert GAME.layout(state)["s2.c3"] == "R3"
    assert state.phase is Phase.ROUNDS


def test_a_revealed_card_is_revealed_for_good_rule_6() -> None:
    state = started()
    attack(state, 2, 2, "T4", "R2")
    duel(state, "thermokinetic brainwashing", "speed force")  # one round each: a draw
    state.apply(Clear())
    assert GAME.layout(state)["s1.c2"] == "T4" and GAME.layout(state)["s2.c2"] == "R2"
    # Now player_2 attacks: its card in column 2 is known, the one it attacks still hidden.
    state.apply(Attack(2, 1))
    state.apply(NoDefence())  # MM-5: it may be the Leader, T4 beside it may defend it
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P1, 1, c) for c in ("T1", "T2", "T3")]
    state.apply(Reveal(P1, 1, "T1"))
    assert state.phase is Phase.ROUNDS
    assert_refused(state, Reveal(P1, 1, "T1"))


def test_a_card_already_seen_cannot_turn_up_again_rule_6() -> None:
    state = started()
    attack(state, 2, 2, "T4")
    state.apply(NoDefence())  # MM-5
    assert_refused(state, Reveal(P2, 2, "T4"))  # another player's card
    assert_refused(state, Reveal(P2, 3, "R2"))  # not the card being revealed
    state.apply(Reveal(P2, 2, "R2"))
    state.apply(Rounds(1))
    play(state, [LayPower(P1, 1), LayPower(P2, 1)])
    play(state, [RevealPower(P1, 1, "force"), RevealPower(P2, 1, "force")])  # T4 3, R2 6
    state.apply(Clear())
    state.apply(Attack(3, 3))
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P2, 3, c) for c in ("R1", "R3", "R4")]


# -- rule 5, MM-5: the Leader's defence -----------------------------------------------------------


def test_an_attacked_leader_may_be_defended_from_an_adjacent_position_only_mm_5() -> None:
    state = arrange("v v v v", "v v R1 v")
    attack(state, 3, 3, "T2")
    assert state.current_player() == P2
    assert state.legal_actions() == [Defend(2), Defend(4), NoDefence()]
    assert_refused(state, Defend(1))
    assert_refused(state, Defend(3))


def test_defence_applies_only_to_an_attack_on_the_leader_rule_5() -> None:
    state = arrange("v v v v", "v v R1 v")
    attack(state, 3, 4, "T2", "R4")
    assert state.phase is Phase.ROUNDS
    assert_refused(state, Defend(3))


def test_a_leader_with_no_card_beside_it_fights_itself_rule_5() -> None:
    state = arrange("v v v v", ". R1 . v", removed=["R2", "R3"])
    state.apply(Stay())  # player_2's move step
    attack(state, 2, 2, "T4")
    assert state.phase is Phase.ROUNDS


def test_the_defending_card_lies_on_the_leader_and_is_revealed_rule_5() -> None:
    state = leader_attacked()
    state.apply(Defend(1))
    layout = GAME.layout(state)
    assert layout["s2.c2"] == DOWN and "s2.c1" not in layout  # moved onto the Leader
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P2, 1, c) for c in ("R2", "R3", "R4")]
    state.apply(Reveal(P2, 1, "R3"))
    layout = GAME.layout(state)
    assert layout["s2.c2"] == "R3" and "s2.c1" not in layout
    assert state.phase is Phase.ROUNDS


def test_a_beaten_defending_card_loses_the_life_not_the_leader_mm_5() -> None:
    state = leader_attacked()
    play(state, [Defend(3), Reveal(P2, 3, "R4")])
    duel(state, "brainwashing", "force")  # T4 2 against R4 9 + 2: R4 wins
    assert state.lives["T4"] == 1 and state.lives["R1"] == 3
    state = leader_attacked()
    play(state, [Defend(3), Reveal(P2, 3, "R4")])
    duel(state, "speed", "invisibility")  # T4 9 against R4 3 + 2: T4 wins
    assert state.lives["R4"] == 1 and state.lives["R1"] == 3
    assert not state.is_terminal()


def test_the_defending_card_goes_back_to_its_own_position_mm_5() -> None:
    state = leader_attacked()
    play(state, [Defend(3), Reveal(P2, 3, "R4")])
    duel(state, "speed", "invisibility")
    layout = GAME.layout(state)
    assert layout["s2.c2"] == "R4" and "s2.c3" not in layout  # until the table is cleared
    state.apply(Clear())
    layout = GAME.layout(state)
    assert layout["s2.c2"] == "R1" and layout["s2.c3"] == "R4"
    assert state.guard is None


def test_a_defending_card_beaten_for_good_leaves_the_leader_mm_5_mm_6() -> None:
    state = leader_attacked()
    play(state, [Defend(1), Reveal(P2, 1, "R3")])
    duel(state, "speed", "force")  # T4 9 + 2 against R3 2
    assert state.lives["R3"] == 0 and state.removed == ["R3"]
    assert GAME.layout(state)["s2.c2"] == "R3"  # still on the Leader until cleared
    state.apply(Clear())
    layout = GAME.layout(state)
    assert layout["s2.c2"] == "R1" and "s2.c1" not in layout


def test_an_undefended_leader_fights_itself_rule_5() -> None:
    state = leader_attacked()
    state.apply(NoDefence())
    duel(state, "speed", "force")  # T4 9 + 2 against R1 3
    assert state.lives["R1"] == 2


# -- MM-5 (clarified): the defence is decided before anything about the Leader shows -----------


def test_the_defender_decides_before_anything_about_the_leader_is_revealed_mm_5() -> None:
    """MM-5: the defender chooses whether to defend before anything about the Leader is
    revealed. A face-down card that may be the Leader is attacked: the attacker's own card turns
    up (rule 6), then the defender decides while the attacked card is still face down."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4")])
    assert phase(state) is Phase.DEFEND and state.current_player() == P2
    assert state.legal_actions() == [Defend(1), Defend(3), NoDefence()]
    assert state.chance_outcomes() == []
    assert GAME.layout(state)["s2.c2"] == DOWN and state.up == {"T4"}


def test_a_defended_face_down_leader_stays_face_down_mm_5() -> None:
    """MM-5: a defended Leader is not involved in the fight and stays as it was, face down if
    it was face down: only the defending card turns up and fights, then goes home."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4"), Defend(3)])
    # The defending card cannot be the Leader: the Leader is the card it defends.
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P2, 3, c) for c in ("R2", "R3", "R4")]
    state.apply(Reveal(P2, 3, "R4"))
    assert phase(state) is Phase.ROUNDS
    assert GAME.layout(state)["s2.c2"] == "R4" and "s2.c3" not in GAME.layout(state)
    duel(state, "speed", "invisibility")  # T4 9 against R4 3 + 2: T4 wins
    assert state.lives["R4"] == 1 and state.lives["R1"] == 3
    assert "R1" not in state.up
    state.apply(Clear())
    layout = GAME.layout(state)
    assert layout["s2.c2"] == DOWN and layout["s2.c3"] == "R4"
    assert "life" not in GAME.lights(state).get("s2.c2", "")  # face down: no lives shown


def test_an_undefended_leader_is_revealed_when_its_duel_begins_mm_5() -> None:
    """MM-5: an undefended Leader is revealed when its duel begins, like any fighting card."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4"), NoDefence()])
    assert [o for o, _ in state.chance_outcomes()] == [
        Reveal(P2, 2, c) for c in ("R1", "R2", "R3", "R4")
    ]
    state.apply(Reveal(P2, 2, "R1"))
    assert phase(state) is Phase.ROUNDS and "R1" in state.up
    assert GAME.lights(state)["s2.c2"] == "danger"


def test_a_card_known_not_to_be_the_leader_offers_no_defence_mm_5() -> None:
    """MM-5 is about an attack on the Leader only: with the Leader face up elsewhere, an
    attacked face-down card is a Squad card, turned up with no defence asked."""
    state = arrange("v v v v", "R1 v v v")
    play(state, [Attack(3, 3), Reveal(P1, 3, "T2")])
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P2, 3, c) for c in ("R2", "R3", "R4")]


def defended_face_down() -> MightymaniaState:
    """player_1's T4 (column 2) attacked player_2's face-down column 2; R3 from column 1
    defended it, so it is R1, still face down (MM-5); R3 lost its only life and left."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4"), Defend(1), Reveal(P2, 1, "R3")])
    duel(state, "speed", "force")  # T4 9 + 2 against R3 2
    state.apply(Clear())
    assert state.removed == ["R3"] and "R1" not in state.up
    assert GAME.layout(state)["s2.c2"] == DOWN and "s2.c1" not in GAME.layout(state)
    return state


def test_no_other_card_turns_up_as_a_leader_whose_place_a_defence_showed_mm_5() -> None:
    """MM-5: only the Leader may be defended, so once defended face down its place is public,
    and a reveal anywhere else cannot show it."""
    state = defended_face_down()
    play(state, [Stay(), Attack(3, 3)])  # player_2's face-down column 3 attacks
    assert [o for o, _ in state.chance_outcomes()] == [Reveal(P2, 3, c) for c in ("R2", "R4")]
    assert_refused(state, Reveal(P2, 3, "R1"))


def test_a_known_face_down_leader_attacked_again_can_only_turn_up_as_the_leader_mm_5() -> None:
    state = arrange("v v v v", ". v v v", removed=["R3"])
    state.apply(Stay())  # player_2's move step
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4"), Defend(3), Reveal(P2, 3, "R4")])
    duel(state, "speed", "invisibility")  # T4 9 against R4 3 + 2
    state.apply(Clear())
    play(state, [Stay(), Attack(3, 2)])  # player_2's R4 attacks T4, both face up
    duel(state, "force", "force")  # R4 9 against T4 3
    state.apply(Clear())
    play(state, [Stay(), Attack(2, 2)])  # player_1 at the Leader it knows to lie there
    assert phase(state) is Phase.DEFEND and GAME.lights(state)["s2.c2"] == "danger"
    state.apply(NoDefence())
    assert state.chance_outcomes() == [(Reveal(P2, 2, "R1"), 1.0)]


def test_a_known_face_down_leader_is_followed_when_it_moves_mm_5_mm_7() -> None:
    state = defended_face_down()
    state.apply(Move(2, 1))  # player_2 moves the face-down R1 into R3's gap (MM-7)
    state.apply(Attack(1, 1))  # and attacks with it: turned up, it can only be R1 (rule 6)
    assert state.chance_outcomes() == [(Reveal(P2, 1, "R1"), 1.0)]


# -- rules 7-10, MM-4: the duel -------------------------------------------------------------------


def test_the_attacker_rolls_the_rounds_and_a_6_is_rolled_again_mm_4_rule_7() -> None:
    state = started()
    attack(state, 1, 1, "T2", "R2")
    assert GAME.dice_wanted(state) == DiceRequest("d6", 1, (1, 2, 3, 4, 5, 6))
    assert [o for o, _ in state.chance_outcomes()] == [Rounds(v) for v in range(1, 7)]
    state.apply(Rounds(6))
    assert phase(state) is Phase.ROUNDS and state.rounds == 0
    state.apply(Rounds(5))
    assert phase(state) is Phase.LAY_POWER and state.rounds == 5
    assert_refused(state, Rounds(3))


def test_power_cards_are_laid_face_down_left_to_right_attacker_first_rule_8() -> None:
    state = started(P2)
    attack(state, 1, 1, "R2", "T2")
    state.apply(Rounds(3))
    order = []
    while state.phase is Phase.LAY_POWER:
        (outcome, probability), *others = state.chance_outcomes()
        assert probability == 1.0 and not others and GAME.dice_wanted(state) is None
        order.append(outcome)
        state.apply(outcome)
    assert order == [LayPower(P2, k) for k in (1, 2, 3)] + [LayPower(P1, k) for k in (1, 2, 3)]
    layout = GAME.layout(state)
    assert all(layout[SLOT[p][k]] == DOWN for p in (P1, P2) for k in range(3))
    assert "s1.r4" not in layout and "s2.r4" not in layout


def test_power_cards_turn_up_round_by_round_attacker_first_rule_9() -> None:
    state = started()
    attack(state, 1, 1, "T2", "R2")
    state.apply(Rounds(2))
    play(state, [LayPower(P1, 1), LayPower(P1, 2), LayPower(P2, 1), LayPower(P2, 2)])
    assert [o for o, _ in state.chance_outcomes()] == [
        RevealPower(P1, 1, power) for power in POWERS
    ]
    assert_refused(state, RevealPower(P2, 1, "speed"))
    assert_refused(state, RevealPower(P1, 2, "speed"))
    assert_refused(state, RevealPower(P1, 1, "luck"))
    state.apply(RevealPower(P1, 1, "speed"))
    assert GAME.layout(state)["s1.r1"] == "speed"
    state.apply(RevealPower(P2, 1, "speed"))
    # MM-4: each power once a duel, so player_1's speed is spent; player_2's too.
    assert state.chance_outcomes() == [
        (RevealPower(P1, 2, power), 0.25) for power in POWERS if power != "speed"
    ]
    assert_refused(state, RevealPower(P1, 2, "speed"))


def test_the_power_that_beats_the_other_adds_2_either_way_mm_2_rule_10() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(
        state,
        "brainwashing invisibility speed",  # T2: 3, 4, 5
        "invisibility brainwashing speed",  # R2: 3, 2, 5
    )
    a, d = state.attacker, state.defender
    assert [state.score(a, k) for k in range(3)] == [3 + 2, 4, 5]  # brainwashing beats inv.
    assert [state.score(d, k) for k in range(3)] == [3, 2 + 2, 5]  # and the same power: none
    assert state.results == [P1, None, None]
    assert state.lives["R2"] == 1  # MM-4: more rounds won wins the duel


def test_equal_totals_draw_the_round_and_an_even_duel_costs_no_life_mm_4() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "thermokinetic brainwashing", "speed force")  # 8 + 2 v 5, then 3 v 6 + 2
    assert state.results == [P1, P2]
    assert state.lives["T2"] == 2 and state.lives["R2"] == 2
    assert state.phase is Phase.CLEAR
    assert GAME.describe(state)["duel_won_by"] == "no_one"  # said as such while clearing
    assert GAME.describe(state)["last_duel"] == duel_news("drawn", 1, 1, None, 0)


def duel_news(event: str, a: int, d: int, card: str | None, lives: int, turn: int = 1) -> JSON:
    """`describe`'s `last_duel`, player_1 attacking: what the page's news says (MM-4, MM-6)."""
    winner = None if event == "drawn" else "player_1" if a > d else "player_2"
    return {
        "event": event,
        "attacker": "player_1",
        "defender": "player_2",
        "winner": winner,
        "attacker_rounds": a,
        "defender_rounds": d,
        "card": card,
        "lives": lives,
        "turn": turn,
    }


def test_the_loser_of_the_duel_loses_one_life_mm_4_rule_12() -> None:
    state = started()
    attack(state, 4, 4, "T2", "R4")
    duel(state, "brainwashing thermokinetic invisibility", "force speed thermokinetic")
    # T2 3 v R4 9 + 2; T2 8 + 2 v R4 6; T2 4 v R4 3 + 2: R4 wins 2 rounds to 1.
    assert state.results == [P2, P1, P2]
    assert state.lives["T2"] == 1 and state.lives["R4"] == 2
    assert GAME.describe(state)["last_duel"] == duel_news("life_lost", 1, 2, "T2", 1)


def test_a_card_with_no_lives_left_leaves_the_table_rule_12_mm_6() -> None:
    state = started()
    attack(state, 2, 3, "T4", "R3")
    duel(state, "speed", "force")
    assert state.lives["R3"] == 0 and state.removed == ["R3"]
    assert GAME.layout(state)["s2.c3"] == "R3"  # until the table is cleared (rule 14)
    state.apply(Clear())
    assert "s2.c3" not in GAME.layout(state)
    assert consistency_problems(state) == []
    # What it came to is still said once the table is cleared, until the next duel ends.
    assert GAME.describe(state)["last_duel"] == duel_news("card_left", 1, 0, "R3", 0)


def test_the_table_is_cleared_after_each_duel_rule_14() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "speed force", "speed brainwashing")
    assert state.chance_outcomes() == [(Clear(), 1.0)]
    assert GAME.dice_wanted(state) is None
    layout = GAME.layout(state)
    assert layout["s1.r2"] == "force" and layout["s2.r2"] == "brainwashing"
    state.apply(Clear())
    assert not any(spot in GAME.layout(state) for spot in (*SLOT[0], *SLOT[1]))
    assert state.powers == [[], []] and state.results == []


# -- rule 15, MM-7: moves between attacks -------------------------------------------------------


def test_attacker_and_defender_alternate_every_attack_mm_7() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "thermokinetic brainwashing", "speed force")  # a draw: roles swap all the same
    state.apply(Clear())
    assert state.attacker == P2 and state.turn == 2
    attack(state, 2, 2)  # both known now: no reveal
    duel(state, "speed", "speed")
    state.apply(Clear())
    assert state.attacker == P1 and state.turn == 3


def test_no_moves_while_every_position_is_taken_rule_15() -> None:
    state = started()
    assert state.phase is Phase.ATTACK  # straight to the attack
    attack(state, 2, 3, "T4", "R3")
    duel(state, "speed", "force")
    state.apply(Clear())  # R3 is gone: player_2, the attacker now, may move
    assert phase(state) is Phase.MOVE and state.current_player() == P2
    assert state.legal_actions() == [Stay(), Move(1, 3), Move(2, 3), Move(4, 3)]


def test_the_defender_moves_first_then_the_attacker_mm_7_rule_15() -> None:
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    assert state.current_player() == P2
    assert state.legal_actions() == [Stay(), Move(1, 3), Move(2, 3), Move(4, 3)]
    state.apply(Move(1, 3))
    assert state.current_player() == P1
    assert state.legal_actions() == [Stay(), Move(1, 2), Move(3, 2), Move(4, 2)]
    state.apply(Stay())
    assert state.phase is Phase.ATTACK and state.current_player() == P1


def test_a_card_moves_only_to_an_empty_position_of_its_own_row_rule_15() -> None:
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    for wrong in (Move(1, 2), Move(3, 3), Move(3, 5), Move(0, 3), Attack(1, 1)):
        assert_refused(state, wrong)


def test_a_moved_card_keeps_its_face_rule_6_rule_15() -> None:
    state = arrange("v . v v", "R2 v . v", removed=["T3", "R3"])
    state.apply(Move(1, 3))
    layout = GAME.layout(state)
    assert layout["s2.c3"] == "R2" and "s2.c1" not in layout
    state.apply(Move(4, 2))
    assert GAME.layout(state)["s1.c2"] == DOWN and "s1.c4" not in GAME.layout(state)


def test_only_the_side_with_an_empty_position_has_a_move_step_rule_15() -> None:
    state = arrange("v . v v", "v v v v", removed=["T3"])
    assert state.movers == [P1]
    state = arrange("v v v v", "v v . v", removed=["R3"])
    assert state.movers == [P2]


# -- rule 16, MM-6: the end ---------------------------------------------------------------------


def test_beating_the_leader_for_good_wins_the_game_rule_16_mm_6() -> None:
    state = leader_attacked(lives={"R1": 1})
    state.apply(NoDefence())
    duel(state, "speed", "force")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.returns() == [1.0, -1.0]
    assert GAME.result(state) == {
        "winners": ["player_1"],
        "returns": [1.0, -1.0],
        "draw": False,
        "leader_beaten": {"player": "player_2", "card": "R1"},
        "ended": "leader",  # the page says why
    }
    assert GAME.describe(state)["last_duel"] == duel_news("leader_beaten", 1, 0, "R1", 0)
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    assert_refused(state, Clear())


def test_a_leader_that_attacks_and_loses_for_good_loses_the_game_mm_6() -> None:
    state = arrange("T1 v v v", "v v v v", lives={"T1": 1})
    attack(state, 1, 1, "R4")
    duel(state, "brainwashing", "force")  # T1 4 against R4 9 + 2
    assert state.returns() == [-1.0, 1.0]
    result = GAME.result(state)
    assert result is not None
    assert result["leader_beaten"] == {"player": "player_1", "card": "T1"}


def test_the_game_goes_on_while_both_leaders_stand() -> None:
    assert GAME.result(started()) is None
    assert started().returns() == [0.0, 0.0]


# -- illegal actions ----------------------------------------------------------------------------


def in_attack() -> MightymaniaState:
    return started()


def in_reveal() -> MightymaniaState:
    state = started()
    state.apply(Attack(2, 2))
    return state


def in_rounds() -> MightymaniaState:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    return state


def in_lay_power() -> MightymaniaState:
    state = in_rounds()
    state.apply(Rounds(2))
    return state


def _after_lays() -> MightymaniaState:
    state = new_state()
    play(state, lays())
    return state


ILLEGAL = [
    ("set-up out of order", new_state, Lay(P2, 1)),
    ("set-up to a column past 4", new_state, Lay(P1, 5)),
    ("a start roll of 7", _after_lays, StartRoll(7)),
    ("a move with a full row", in_attack, Move(1, 2)),
    ("a pass with attacks in reach", in_attack, Stay()),
    ("a defence without an attack", in_attack, Defend(1)),
    ("a reveal of another column", in_reveal, Reveal(P1, 3, "T1")),
    ("a reveal of the other side", in_reveal, Reveal(P2, 2, "R1")),
    ("a decision at a chance node", in_reveal, Attack(2, 2)),
    ("rounds of 0", in_rounds, Rounds(0)),
    ("rounds of 7", in_rounds, Rounds(7)),
    ("a start roll for the rounds", in_rounds, StartRoll(3)),
    ("power cards before the rounds", in_rounds, LayPower(P1, 1)),
    ("the defender's power card first", in_lay_power, LayPower(P2, 1)),
    ("a power card past the rounds", in_lay_power, LayPower(P1, 3)),
    ("clearing mid-duel", in_lay_power, Clear()),
]


@pytest.mark.parametrize(("make", "action"), [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL])
def test_illegal_actions_are_refused_and_change_nothing(make: Any, action: Action) -> None:
    assert_refused(make(), action)


def test_a_bool_for_a_column_is_refused() -> None:
    """True == 1, but it is no column: refused as it comes in (compiled, Attack(True, 1) is
    Attack(1, 1) already)."""
    with pytest.raises(HistoryError, match="from_col must be int"):
        GAME.action_from_json({"type": "Attack", "from_col": True, "to_col": 1})


# -- layouts, lights, spots ---------------------------------------------------------------------


def test_spots_are_camera_positions_and_round_slots() -> None:
    spots = GAME.spots()
    assert len(spots) == 18 and set(spots.values()) == {CAMERA}
    assert {"s1.c1", "s2.c4", "s1.r1", "s2.r5"} <= set(spots)
    rows = GAME.board_rows()
    assert rows[1] == ["s2.c1", "s2.c2", "s2.c3", "s2.c4"]
    assert rows[2] == ["s1.c1", "s1.c2", "s1.c3", "s1.c4"]
    assert rows[3] == [f"s1.r{k}" for k in range(1, 6)]
    assert sorted(rows[0]) == [f"s2.r{k}" for k in range(1, 6)]
    assert {spot for row in rows for spot in row} == set(spots)


def test_lights_show_attacks_in_reach_during_the_attack_decision() -> None:
    state = arrange("v . . .", "v v . v", removed=["T2", "T3", "T4", "R3"])
    play(state, [Stay(), Stay()])
    assert GAME.lights(state) == {"s1.c1": "attacker", "s2.c1": "target", "s2.c2": "target"}


def test_lights_show_lives_of_face_up_cards_rule_13() -> None:
    state = started()
    attack(state, 2, 2, "T4", "R2")
    lights = GAME.lights(state)
    assert lights == {"s1.c2": "life@0.67", "s2.c2": "life@0.67"}
    duel(state, "speed", "force")  # T4 9 + 2 against R2 6
    assert GAME.lights(state)["s2.c2"] == "life@0.33"


def test_lights_show_the_leader_in_danger_and_who_may_defend_it_rule_5() -> None:
    state = leader_attacked()
    lights = GAME.lights(state)
    assert lights["s2.c2"] == "danger"
    assert lights["s2.c1"] == "guard" and lights["s2.c3"] == "guard"
    assert lights["s1.c2"] == "life@0.67"
    state.apply(NoDefence())
    assert GAME.lights(state)["s2.c2"] == "danger" and "s2.c1" not in GAME.lights(state)
    state = leader_attacked()
    play(state, [Defend(1), Reveal(P2, 1, "R2")])
    assert GAME.lights(state)["s2.c2"] == "life@0.67"  # the defender's lives, not the Leader's


def test_lights_show_each_scored_round_won_lost_or_drawn_rule_11() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "brainwashing invisibility force", "invisibility brainwashing speed")
    # T2 3 + 2 v R2 3; T2 4 v R2 2 + 2; T2 2 v R2 5 + 2.
    lights = GAME.lights(state)
    assert [lights[s] for s in SLOT[0][:3]] == ["won", "draw", "lost"]
    assert [lights[s] for s in SLOT[1][:3]] == ["lost", "draw", "won"]
    state.apply(Clear())
    assert not any(spot in GAME.lights(state) for spot in (*SLOT[0], *SLOT[1]))


def test_every_light_role_of_random_games_is_in_the_palette() -> None:
    palette = load_config(None).palette
    used: set[str] = set()
    rng = random.Random("mightymania lights")
    for _ in range(30):
        state = new_state()
        hidden = GAME.deal(state, rng)
        while not state.is_terminal():
            random_step(state, rng, hidden)
            roles = GAME.lights(state)
            assert set(roles) <= set(GAME.spots())
            used.update(roles.values())
    names = {role.partition("@")[0] for role in used}
    assert names == {
        "attacker",
        "target",
        "attacked",
        "life",
        "guard",
        "danger",
        "won",
        "lost",
        "draw",
    }
    assert names <= set(palette)
    for role in used:
        _, _, level = role.partition("@")
        assert not level or level in ("0.33", "0.67", "1.00"), role


# -- explaining a table that fits no action -----------------------------------------------------


def explained(state: MightymaniaState, **changes: str | None) -> tuple[str, frozenset[str]]:
    sensed = GAME.layout(state)
    for key, token in changes.items():
        spot = key.replace("_", ".")
        if token is None:
            sensed.pop(spot, None)
        else:
            sensed[spot] = token
    problem = GAME.explain(state, sensed)
    assert problem is not None
    return problem.message, problem.spots


def test_explain_names_a_second_card_where_one_lies_rule_15() -> None:
    state = arrange("v . v v", "R2 v . v", removed=["T3", "R3"])
    message, spots = explained(state, s2_c1=None, s2_c2="R2")
    assert message == "s2.c2: a second card where a card lies: one card per position (rule 15)"
    assert spots == {"s2.c2"}


def test_explain_names_a_card_moved_out_of_turn_mm_7() -> None:
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    message, _ = explained(state, s1_c1=None, s1_c2=DOWN)
    assert message == "s1.c2: player_2 moves a card now, not player_1 (rule 15, MM-7)"


def test_explain_names_two_cards_moved_at_once_rule_15() -> None:
    state = arrange("v v v v", ". v . v", removed=["R2", "R3"])
    message, spots = explained(state, s2_c1=DOWN, s2_c2=None, s2_c3=DOWN, s2_c4=None)
    assert message == "s2.c1: one card moves at a time, to an empty position (rule 15)"
    assert spots == {"s2.c1"}


def test_explain_names_a_card_put_down_when_no_move_is_due_rule_15() -> None:
    state = arrange("v . v v", "v v v v", removed=["T3"])
    state.apply(Stay())
    attack(state, 1, 1, "T1", "R1")
    message, _ = explained(state, s1_c2=DOWN, s1_c3=None)
    assert message == "s1.c2: no card may go here now: cards move only before an attack (rule 15)"


def test_explain_names_a_card_turned_up_when_no_reveal_is_due_rule_6() -> None:
    message, spots = explained(started(), s1_c3="T3")
    assert message == "s1.c3: a card turned face up, but no reveal is due (rule 6)"
    assert spots == {"s1.c3"}


def test_explain_names_a_revealed_card_turned_face_down_rule_6() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    message, _ = explained(state, s1_c2=DOWN)
    assert message == "s1.c2: T2 was revealed and stays face up (rule 6)"


def test_explain_names_power_cards_laid_before_the_rounds_are_rolled_rule_7() -> None:
    state = in_rounds()
    message, spots = explained(state, s1_r1=DOWN)
    assert message == "s1.r1: power cards laid before the rounds are rolled (rules 7-8)"
    assert spots == {"s1.r1"}
    message, _ = explained(started(), s2_r1="force")
    assert message == "s2.r1: power cards laid before the rounds are rolled (rules 7-8)"


def test_explain_names_power_cards_past_the_rounds_or_laid_face_up_rule_8() -> None:
    state = in_lay_power()
    message, _ = explained(state, s1_r3=DOWN)
    assert message == "s1.r3: 2 round(s) in this duel: no power card here (rule 8)"
    message, _ = explained(state, s1_r1="force")
    assert message == (
        "s1.r1: power cards are laid face down, then turned up round by round (rules 8-9)"
    )


def test_explain_names_a_power_played_twice_in_a_duel_mm_4() -> None:
    state = in_lay_power()
    play(state, [LayPower(P1, 1), LayPower(P1, 2), LayPower(P2, 1), LayPower(P2, 2)])
    state.apply(RevealPower(P1, 1, "force"))
    message, _ = explained(state, s1_r2="force")
    assert message == "s1.r2: force is already played in this duel: each power once (MM-4)"


def test_explain_names_cards_of_the_wrong_deck_or_none() -> None:
    message, _ = explained(started(), s1_c1="R1")
    assert message == "s1.c1: card R1 is player_2's, not player_1's"
    message, _ = explained(started(), s2_c1="X9")
    assert message == "s2.c1: 'X9' is no card of player_2's deck"
    message, _ = explained(started(), s2_r1="luck")
    assert message == "s2.r1: 'luck' is no power card"


def test_explain_names_a_card_back_after_leaving_the_table_rule_12() -> None:
    state = arrange("v . v v", "v v v v", removed=["T3"])
    message, _ = explained(state, s1_c2="T3")
    assert message == "s1.c2: card T3 has left the table (rule 12)"


def test_explain_guides_the_leaders_defence_rule_5() -> None:
    state = arrange("v v v v", "v R1 v R4")
    attack(state, 2, 2, "T4")
    message, _ = explained(state, s2_c4=None, s2_c2="R4")
    assert message == "s2.c2: only a card next to the attacked Leader may defend it (rule 5, MM-5)"


def test_explain_is_silent_for_steps_taken_ahead_of_the_rules() -> None:
    state = arrange("v v v v", "R1 v v v")
    state.apply(Attack(2, 3))
    sensed = GAME.layout(state) | {"s2.c3": "R3"}  # the target turned up before the attacker
    assert GAME.explain(state, sensed) is None
    state = in_lay_power()
    assert GAME.explain(state, GAME.layout(state) | {"s2.r1": DOWN}) is None  # defender early
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    assert GAME.explain(state, GAME.layout(state) | {"s2.c3": DOWN}) is None  # mid-move
    assert GAME.explain(state, GAME.layout(state)) is None


def test_explain_is_silent_while_a_defending_card_turns_up_and_goes_home_mm_5() -> None:
    state = leader_attacked()
    state.apply(Defend(1))
    assert GAME.explain(state, GAME.layout(state) | {"s2.c2": "R3"}) is None
    play(state, [Reveal(P2, 1, "R3")])
    duel(state, "speed", "invisibility")  # T4 9 against R3 9 + 2: R3 wins
    home = GAME.layout(state) | {"s2.c1": "R3", "s2.c2": "R1"}
    assert GAME.explain(state, home) is None


def test_explain_names_a_power_card_turned_back_down_rule_11() -> None:
    state = in_lay_power()
    play(state, [LayPower(P1, 1), LayPower(P1, 2), LayPower(P2, 1), LayPower(P2, 2)])
    state.apply(RevealPower(P1, 1, "force"))
    message, _ = explained(state, s1_r1=DOWN)
    assert message == "s1.r1: force was turned up and stays face up until the duel ends (rule 11)"


# -- describe, history, clones --------------------------------------------------------------------


def test_describe_shows_the_public_table_and_the_duel() -> None:
    state = started()
    attack(state, 2, 2, "T2", "R2")
    duel(state, "brainwashing invisibility", "invisibility brainwashing")
    facts = GAME.describe(state)
    assert facts["turn"] == 1 and facts["phase"] == "clear"
    assert (facts["attacker"], facts["defender"]) == ("player_1", "player_2")
    assert facts["positions"]["s1.c2"] == {"card": "T2", "lives": 2, "leader": False}
    assert facts["positions"]["s2.c2"] == {"card": "R2", "lives": 1, "leader": False}
    assert facts["positions"]["s1.c1"] == {"card": DOWN, "lives": None, "leader": None}
    assert facts["duel"] == {
        "attacking": "s1.c2",
        "attacked": "s2.c2",
        "defending": None,
        "defence": "declined",
        "rounds": 2,
        "powers": {
            "player_1": ["brainwashing", "invisibility"],
            "player_2": ["invisibility", "brainwashing"],
        },
        "results": ["player_1", "draw"],
        "won": {"player_1": 1, "player_2": 0},
    }
    assert facts["duel_won_by"] == "player_1"  # MM-4: more rounds won
    json.dumps(facts)
    opening = GAME.describe(new_state())
    assert opening["attacker"] is None and opening["duel"] is None


def test_describe_gives_every_public_fact_at_a_known_position_mm_5() -> None:
    """Mid-duel, a face-down Leader defended (MM-5), one round scored: every field, each one
    declared with its meaning."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4"), Defend(3), Reveal(P2, 3, "R4"), Rounds(2)])
    play(state, [LayPower(P1, 1), LayPower(P1, 2), LayPower(P2, 1), LayPower(P2, 2)])
    play(state, [RevealPower(P1, 1, "speed"), RevealPower(P2, 1, "invisibility")])  # 9 v 3 + 2
    facts = GAME.describe(state)
    unknown = {"card": DOWN, "lives": None, "leader": None}
    squad = {"card": DOWN, "lives": None, "leader": False}  # the Leader is known elsewhere
    assert facts == {
        "turn": 1,
        "phase": "reveal_power",
        "to_move": "chance",
        "attacker": "player_1",
        "defender": "player_2",
        "movers": [],
        "start_rolls": [6, 1],
        "positions": {
            "s1.c1": unknown,
            "s1.c2": {"card": "T4", "lives": 2, "leader": False},
            "s1.c3": unknown,
            "s1.c4": unknown,
            "s2.c1": squad,
            "s2.c2": {"card": DOWN, "lives": None, "leader": True},
            "s2.c3": {"card": "R4", "lives": 2, "leader": False},
            "s2.c4": squad,
        },
        "removed": [],
        "passes": 0,
        "duel": {
            "attacking": "s1.c2",
            "attacked": "s2.c2",
            "defending": "s2.c3",
            "defence": "defended",
            "rounds": 2,
            "powers": {"player_1": ["speed", DOWN], "player_2": ["invisibility", DOWN]},
            "results": ["player_1"],
            "won": {"player_1": 1, "player_2": 0},
        },
        "duel_won_by": None,  # a round still to turn up
        "last_duel": None,  # no duel has ended yet
        "result": None,
    }
    json.dumps(facts)
    assert list(facts) == [detail.name for detail in GAME.info.details]
    help_of = {detail.name: detail.help for detail in GAME.info.details}
    # The nested facts are named in their field's meaning.
    for field, nested in (("positions", facts["positions"]["s2.c2"]), ("duel", facts["duel"])):
        assert all(name in help_of[field] for name in nested), (field, sorted(nested))


def test_describe_names_the_movers_the_pending_defence_and_a_draw_mm_5_mm_7_mm_8() -> None:
    state = arrange("v . v v", "v v . v", removed=["T3", "R3"])
    facts = GAME.describe(state)
    assert facts["phase"] == "move" and facts["to_move"] == "player_2"
    assert facts["movers"] == ["player_2", "player_1"]  # the defender first (MM-7)
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4")])
    facts = GAME.describe(state)
    assert facts["phase"] == "defend" and facts["to_move"] == "player_2"
    assert facts["duel"]["defence"] == "pending" and facts["duel"]["rounds"] is None
    assert facts["positions"]["s2.c2"] == {"card": DOWN, "lives": None, "leader": None}
    state = arrange("v . . .", ". . . v", removed=["T2", "T3", "T4", "R2", "R3", "R4"])
    play(state, [Stay(), Stay(), Stay()])
    assert GAME.describe(state)["passes"] == 1
    play(state, [Stay(), Stay(), Stay()])
    facts = GAME.describe(state)
    assert facts["phase"] == "over" and facts["to_move"] is None and facts["passes"] == 2
    assert facts["duel"] is None
    # No returns: a search's figures.
    assert facts["result"] == {"winners": [], "draw": True, "ended": "passes"}
    # Only face-down cards remain, each the only card of its player: the Leaders (MM-1).
    assert facts["positions"]["s1.c1"] == {"card": DOWN, "lives": None, "leader": True}


def random_game(seed: str, hidden: bool = True, stop: int = 100_000) -> MightymaniaState:
    rng = random.Random(seed)
    state = new_state()
    secrets = GAME.deal(state, rng) if hidden else None
    while not state.is_terminal() and len(state.actions()) < stop:
        random_step(state, rng, secrets)
    return state


def test_history_replays_to_the_same_state() -> None:
    for seed in range(5):
        state = random_game(f"replay {seed}")
        history = json.loads(json.dumps(state.history()))
        again = GAME.replay(history, state.options)
        assert isinstance(again, MightymaniaState)
        assert snapshot(again) == snapshot(state)
        assert GAME.result(again) == GAME.result(state)


def test_every_action_type_round_trips_through_json() -> None:
    kinds = {type(a) for seed in range(5) for a in random_game(f"kinds {seed}").actions()}
    assert kinds == set(GAME.action_types)
    for action in random_game("json").actions():
        assert GAME.action_from_json(json.loads(json.dumps(action.to_json()))) == action


def test_a_clone_plays_on_without_touching_the_original() -> None:
    rng = random.Random("clone")
    state = random_game("clone", stop=150)
    before = snapshot(state)
    copy = state.clone()
    while not copy.is_terminal():
        random_step(copy, rng)
    assert snapshot(state) == before


# -- the players' secrets (Hidden) ---------------------------------------------------------------


def test_secrets_are_dealt_to_fit_a_game_under_way() -> None:
    rng = random.Random("deal")
    for stop in (3, 12, 40, 90, 150, 200):
        state = random_game(f"resume {stop}", hidden=False, stop=stop)
        if state.is_terminal():
            continue
        secrets = GAME.deal(state, rng)
        assert hidden_problems(state, secrets) == []
        while not state.is_terminal():
            action = random_step(state, rng, secrets)
            assert hidden_problems(state, secrets) == [], action


def test_secrets_turn_up_the_real_card_and_follow_it_when_it_moves() -> None:
    state = arrange("v . v v", "R2 v . v", removed=["T3", "R3"])
    secrets = GAME.deal(state, random.Random(1))
    card = secrets.down[P2][1]
    assert card in ("R1", "R4")
    state.apply(Move(2, 3))
    secrets.observe(Move(2, 3), state)
    assert secrets.down[P2] == {2: card, 3: secrets.down[P2][3]}
    play(state, [Stay(), Attack(1, 1)])
    assert secrets.outcome(state) == Reveal(P1, 1, secrets.down[P1][0])
    assert secrets.choices(in_attack()) == in_attack().legal_actions()


def test_secrets_give_the_defending_cards_real_face_rule_5() -> None:
    state = leader_attacked()
    secrets = GAME.deal(state, random.Random(2))
    state.apply(Defend(3))
    secrets.observe(Defend(3), state)
    assert secrets.outcome(state) == Reveal(P2, 3, secrets.down[P2][2])


def test_secrets_choose_power_cards_when_laid_and_turn_them_up_mm_4() -> None:
    state = in_lay_power()
    secrets = GAME.deal(state, random.Random(3))
    assert secrets.outcome(state) is None  # laid from the board, one outcome
    for step in (LayPower(P1, 1), LayPower(P1, 2), LayPower(P2, 1), LayPower(P2, 2)):
        state.apply(step)
        secrets.observe(step, state)
    laid = [dict(secrets.laid[p]) for p in (P1, P2)]
    assert all(len(set(powers.values())) == 2 for powers in laid)
    for k in (1, 2):
        for p in (P1, P2):
            shown = secrets.outcome(state)
            assert shown == RevealPower(p, k, laid[p][k - 1])
            state.apply(shown)
            secrets.observe(shown, state)
    assert secrets.outcome(state) is None  # the table is cleared from the board


def test_secrets_ask_nothing_of_dice_rule_2_rule_7() -> None:
    state = _after_lays()
    secrets = GAME.deal(state, random.Random(4))
    assert secrets.outcome(state) is None
    assert secrets.outcome(in_rounds()) is None


def test_secrets_swap_to_fit_a_card_that_turned_up_unforeseen() -> None:
    state = started()
    secrets = GAME.deal(state, random.Random(5))
    state.apply(Attack(1, 1))
    other = next(c for c in ("T1", "T2", "T3", "T4") if c != secrets.down[P1][0])
    state.apply(Reveal(P1, 1, other))
    secrets.observe(Reveal(P1, 1, other), state)
    assert hidden_problems(state, secrets) == []


def test_secrets_deal_the_cards_still_to_lay_at_set_up_rule_1() -> None:
    state = new_state()
    state.apply(Lay(P1, 1))
    secrets = GAME.deal(state, random.Random(6))
    assert isinstance(secrets, MightymaniaHidden)
    assert len(secrets.down[P1]) == 1 and len(secrets.hand[P1]) == 3
    assert hidden_problems(state, secrets) == []


def test_secrets_offer_a_defence_only_when_the_real_leader_is_attacked_mm_5() -> None:
    """MM-5: the public state offers a defence for any attacked face-down card that may be the
    Leader; the player, who knows the card, may defend only the real Leader."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4")])
    seen = set()
    for seed in range(20):
        secrets = GAME.deal(state, random.Random(seed))
        leader = secrets.down[P2][1] == "R1"
        seen.add(leader)
        expected = state.legal_actions() if leader else [NoDefence()]
        assert secrets.choices(state) == expected
    assert seen == {True, False}


def test_secrets_put_the_leader_where_a_defence_from_the_table_shows_it_mm_5() -> None:
    """A person at the table defends a card the dealt secrets held for a Squad card: the
    secrets swap the Leader there, and a fresh deal puts it there too."""
    state = started()
    play(state, [Attack(2, 2), Reveal(P1, 2, "T4")])
    seed = next(n for n in range(20) if GAME.deal(state, random.Random(n)).down[P2][1] != "R1")
    secrets = GAME.deal(state, random.Random(seed))
    state.apply(Defend(1))
    secrets.observe(Defend(1), state)
    assert secrets.down[P2][1] == "R1" and secrets.down[P2][0] != "R1"
    assert hidden_problems(state, secrets) == []
    assert secrets.outcome(state) == Reveal(P2, 1, secrets.down[P2][0])
    for n in range(10):
        assert GAME.deal(state, random.Random(n)).down[P2][1] == "R1"


# -- the table through a session ----------------------------------------------------------------


def start_session(tmp_path: Path, state: MightymaniaState) -> Session:
    journal = Journal(tmp_path)
    journal.start(GAME.name, state.options)
    for action in state.actions():
        journal.append_action(action.to_json())
    return Session(GAME, state, journal, 1.0)


def test_a_session_follows_whole_games_from_the_table_alone(tmp_path: Path) -> None:
    """Every board-read chance node and every move shows on the table as one outcome or action
    only; dice are read; attacks, passes and the choice not to defend come through the control
    interface, since nothing on the table shows them."""
    rng = random.Random("session")
    for game in range(4):
        session = start_session(tmp_path / str(game), new_state())
        secrets = GAME.deal(session.state.clone(), rng)
        now = 0.0
        while not session.state.is_terminal():
            state, now = session.state, now + 1.0
            if state.is_chance_node() and GAME.dice_wanted(state) is not None:
                applied = session.on_dice([rng.randint(1, 6)], now)
            elif state.is_chance_node():
                outcome = secrets.outcome(state) or state.chance_outcomes()[0][0]
                session.on_layout(GAME.layout(state.child(outcome)), now)
                applied = [outcome]
            else:
                action = rng.choice(state.legal_actions())
                after = GAME.layout(state.child(action))
                if after == session.expected:
                    session.act(action.id, now)
                else:
                    session.on_layout(after, now)
                applied = [action]
            assert list(session.state.actions()[len(state.actions()) :]) == applied
            for action in applied:
                secrets.observe(action, session.state)
            assert session.fixes(now + 100.0) == frozenset()


def test_rules_1_2_and_mm_4_each_player_lays_and_rolls_their_own(tmp_path: Path) -> None:
    """Where a chance outcome is read on linked tables (`Game.roller`): each player lays their
    own cards face down (rule 1) and rolls their own start die, player_1's first (rule 2); the
    attacker rolls for the rounds (MM-4). A table playing player_2 alone reads player_2's lays
    and die, and leaves player_1's to player_1's table."""
    state = new_state()
    rollers = []
    for action in [*lays(), *first_rolls(P2)]:
        rollers.append(GAME.roller(state))
        state.apply(action)
    assert rollers == [P1] * 4 + [P2] * 4 + [P1, P2]
    session = start_session(tmp_path, new_state())
    session.elsewhere = frozenset({P1})
    assert session.rolled_elsewhere()
    for action in lays()[:4]:
        session.apply_elsewhere(action, 0.0)
    assert not session.rolled_elsewhere()  # player_2's first card
    state = started(P2)
    attack(state, 1, 1)
    while phase(state) is not Phase.ROUNDS:
        state.apply(
            state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0]
        )
    assert GAME.roller(state) == state.attacker == P2
