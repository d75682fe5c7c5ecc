"""Capture the Akuma's description (`AkumaGame.describe`): the whole public position, read by the
terminal, the dashboard, `smartboard status` and computer players without engine internals.

Positions are reached by playing actions from the start, as in test_akuma_rules.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from akuma_play import HM_NOTHING_TO_DEEVILIZE, LB_IDLE, lb, new_state, play, roll

from controller.rules.akuma import (
    DEFAULT_NAMES,
    GAME,
    HAWK_MOTH,
    LADYBUG,
    SQUARES,
    AkumaGame,
    AkumaState,
    ChooseDice,
    DeEvilize,
    PlaceTrap,
    Power,
    Roll,
    Voyage,
)
from controller.rules.api import CHANCE, TERMINAL

# AK-10: the names the description gives, square by square (only square 1 has rulebook names).
NAMES = {str(sq): {"civilian": f"Civilian {sq}", "akumatized": f"Akuma {sq}"} for sq in SQUARES}
NAMES["1"] = {"civilian": "Luka", "akumatized": "Silencer"}


def facts(state: AkumaState) -> dict[str, Any]:
    """The description without the names, which never change (checked on their own)."""
    described = GAME.describe(state)
    assert described.pop("names") == NAMES
    return described


# Hawk Moth's roll of 2 in turn 5 (AK-5), as `last_event` tells it.
AKUMATIZED_2 = {"event": "akumatized", "square": 2, "piece": None, "side": "hawkmoth", "turn": 5}


def acting(state: AkumaState) -> str | None:
    return GAME.describe(state)["side"]


START = {
    "turn": 1,
    "phase": "choose_dice",
    "side": "hawkmoth",
    "turn_of": "hawkmoth",
    "dice": None,
    "last_roll": None,
    "akumatized": [],
    "traps": [],
    "tiles": [],
    "traps_left": 5,
    "tiles_left": 5,
    "hawkmoth_at": None,
    "ladybug_at": None,
    "last_placement": None,
    "last_event": None,
    "second_chance": None,
    "next_voyage": "move",
    "venom_turn": False,
    "winner": None,
    "winning_line": [],
}


def test_describe_at_the_start() -> None:
    """Set-up: nine civilians, markers and pieces beside the board, the full box (AK-8), Hawk
    Moth first (AK-2)."""
    assert facts(new_state()) == START


def test_describe_every_field_is_declared_with_its_meaning() -> None:
    """Each field of the description is declared, in order, with what it means."""
    declared = [detail.name for detail in AkumaGame.info.details]
    assert declared == list(GAME.describe(new_state()))
    assert all(detail.help for detail in AkumaGame.info.details)


def test_describe_is_plain_json() -> None:
    """The description travels as JSON (control socket, page): it survives a round trip."""
    state = play(new_state(), roll(1), roll(10), PlaceTrap(1), roll(2), lb(5, "voyage"))
    described = GAME.describe(state)
    assert json.loads(json.dumps(described)) == described


def test_describe_a_busy_board_and_a_trap_in_ladybugs_turn() -> None:
    """AK-4, AK-7, AK-8: pieces, what is left in the box, what 2nd Chance would take away; then
    Ladybug's 10 lets Hawk Moth place a trap, which becomes the latest placement."""
    state = play(
        new_state(),
        roll(1),  # turn 1: Hawk Moth akumatizes 1
        lb(6, "shellter"),  # turn 2: a tile on 6
        roll(10),  # turn 3: Hawk Moth's 10 ...
        PlaceTrap(5),  # ... a trap on 5
        LB_IDLE,  # turn 4: Ladybug on 9, nothing happens
        roll(2),  # turn 5: Hawk Moth akumatizes 2
    )
    assert facts(state) == START | {
        "turn": 6,
        "side": "ladybug",
        "turn_of": "ladybug",
        "last_roll": 2,
        "akumatized": [1, 2],
        "traps": [5],
        "tiles": [6],
        "traps_left": 4,
        "tiles_left": 4,
        "hawkmoth_at": 2,
        "ladybug_at": 9,
        "last_placement": {"piece": "akuma", "square": 2},
        "last_event": AKUMATIZED_2,
        "second_chance": {"piece": "akuma", "square": 2, "spot": "2.akuma"},
    }
    play(state, roll(10))  # Ladybug's 10: Hawk Moth acts in Ladybug's turn
    assert facts(state) == START | {
        "turn": 6,
        "phase": "place_trap",
        "side": "hawkmoth",
        "turn_of": "ladybug",
        "dice": 2,
        "last_roll": 10,
        "akumatized": [1, 2],
        "traps": [5],
        "tiles": [6],
        "traps_left": 4,
        "tiles_left": 4,
        "hawkmoth_at": 2,
        "ladybug_at": 9,
        "last_placement": {"piece": "akuma", "square": 2},
        # Said at once, or the news kept the akuma of 2 while a trap was to come (the walk).
        "last_event": {
            "event": "trap_to_lay",
            "square": None,
            "piece": None,
            "side": "ladybug",
            "turn": 6,
        },
        "second_chance": {"piece": "akuma", "square": 2, "spot": "2.akuma"},
    }
    play(state, PlaceTrap(2))  # the trap on the akuma of 2 is now the latest placement
    described = facts(state)
    assert described["traps"] == [2, 5]
    assert described["traps_left"] == 3
    assert described["last_placement"] == {"piece": "trap", "square": 2}
    assert described["last_event"] == {
        "event": "trap_laid",
        "square": 2,
        "piece": None,
        "side": "hawkmoth",
        "turn": 6,
    }  # laid by Hawk Moth in Ladybug's turn (AK-4)
    assert described["second_chance"] == {"piece": "trap", "square": 2, "spot": "2.trap"}
    assert (described["side"], described["turn_of"], described["dice"]) == (
        "hawkmoth",
        "hawkmoth",
        None,
    )


@pytest.mark.parametrize("total", [10, 12])
def test_ak4_side_is_hawk_moth_while_it_traps_after_ladybugs_roll(total: int) -> None:
    """AK-4: Hawk Moth places the trap of a 10 or 12 that Ladybug rolled. While it does, the
    description's acting side and `current_player()` both say Hawk Moth; the turn stays
    Ladybug's."""
    state = play(new_state(), roll(1), roll(total))
    assert state.current_player() == HAWK_MOTH
    assert acting(state) == "hawkmoth"
    assert GAME.describe(state)["turn_of"] == "ladybug"
    play(state, PlaceTrap(4))
    assert state.current_player() == HAWK_MOTH  # Hawk Moth's own turn follows
    assert GAME.describe(state)["turn_of"] == "hawkmoth"


def test_ak4_side_is_ladybug_while_it_chooses_after_hawk_moths_11() -> None:
    """AK-4: Ladybug picks the akuma to de-evilize after an 11, even one Hawk Moth rolled. In
    Hawk Moth's turn the acting side is then Ladybug, in agreement with `current_player()`."""
    state = play(new_state(), roll(1), LB_IDLE, roll(11))
    assert state.current_player() == LADYBUG
    assert acting(state) == "ladybug"
    assert GAME.describe(state)["turn_of"] == "hawkmoth"


def test_side_at_chance_nodes_is_the_side_rolling_and_none_at_the_end() -> None:
    """AK-3 / AK-6: at a chance node the side is the one whose dice are rolled; AK-9: nobody
    acts once the game is over."""
    state = play(new_state(), ChooseDice(2))
    assert state.current_player() == CHANCE
    assert acting(state) == "hawkmoth"
    play(state, Roll(5), ChooseDice(1))
    assert acting(state) == "ladybug"
    play(state, Roll(5))  # Ladybug's marker on 5: the Miraculous die is Ladybug's
    assert state.current_player() == CHANCE
    assert acting(state) == "ladybug"
    play(state, Power("deevilize"))  # the only akuma goes: Ladybug wins (AK-9)
    assert state.current_player() == TERMINAL
    described = facts(state)
    assert (described["side"], described["turn_of"], described["phase"]) == (None, None, "over")
    assert (described["winner"], described["winning_line"]) == ("ladybug", [])


def test_describe_a_hawk_moth_win() -> None:
    """AK-9: three akumatized civilians in a line; the winner and the line are described."""
    state = play(new_state(), roll(3), LB_IDLE, roll(5), LB_IDLE, roll(7))
    described = facts(state)
    assert described["winner"] == "hawkmoth"
    assert described["winning_line"] == [3, 5, 7]
    assert described["side"] is None


def test_ak7_next_voyage_moves_then_rerolls_then_moves_in_a_new_turn() -> None:
    """AK-7 Voyage: the first Voyage of a turn moves the marker, a further one in the same turn
    only means rolling again. The description says which a Voyage rolled next would do."""
    state = play(new_state(), roll(1), roll(5))
    assert GAME.describe(state)["next_voyage"] == "move"
    play(state, Power("voyage"))  # Ladybug chooses the square: the next Voyage re-rolls
    assert GAME.describe(state)["phase"] == "voyage"
    assert GAME.describe(state)["next_voyage"] == "reroll"
    play(state, Voyage(2), Power("voyage"))
    assert GAME.describe(state)["next_voyage"] == "reroll"
    assert acting(state) == "ladybug"
    play(state, Power("shellter"))  # the turn ends
    described = GAME.describe(state)
    assert (described["next_voyage"], described["tiles"], described["side"]) == (
        "move",
        [2],
        "hawkmoth",
    )
    play(state, roll(4), lb(6, "voyage"))  # a new turn's first Voyage moves the marker
    assert state.legal_actions() == [Voyage(sq) for sq in SQUARES if sq != 6]


def test_ak7_venom_turn_is_described_for_the_turn_hawk_moth_loses() -> None:
    """AK-7 Venom costs Hawk Moth its next turn: during the Ladybug turn played in its place,
    `venom_turn` is true; it is false again once Hawk Moth plays."""
    state = play(new_state(), roll(1), lb(5, "venom"))
    described = GAME.describe(state)
    assert (described["side"], described["venom_turn"]) == ("ladybug", True)
    play(state, roll(10))  # a 10 in that turn: Hawk Moth places a trap, still Venom's turn
    assert (acting(state), GAME.describe(state)["venom_turn"]) == ("hawkmoth", True)
    play(state, PlaceTrap(9))
    described = GAME.describe(state)
    assert (described["side"], described["venom_turn"]) == ("hawkmoth", False)


def test_ak7_second_chance_field_follows_the_trapped_latest_akuma() -> None:
    """AK-7 2nd Chance: nothing to undo while the latest akuma is trapped (the field is None,
    the latest placement still known); once Cataclysm destroys the trap, it names the akuma."""
    state = play(new_state(), roll(1), roll(10), PlaceTrap(3), roll(3))
    described = GAME.describe(state)
    assert described["last_placement"] == {"piece": "akuma", "square": 3}
    assert described["second_chance"] is None
    play(state, lb(9, "second_chance"), roll(1))  # nothing happens, nor does the roll of 1
    assert GAME.describe(state)["last_placement"] == {"piece": "akuma", "square": 3}
    play(state, lb(3, "cataclysm"))
    assert GAME.describe(state)["second_chance"] == {
        "piece": "akuma",
        "square": 3,
        "spot": "3.akuma",
    }
    play(state, roll(1), lb(9, "second_chance"))
    described = GAME.describe(state)
    assert described["akumatized"] == [1]
    assert described["last_placement"] == {"piece": "akuma", "square": 3}  # gone from the board
    assert described["second_chance"] is None  # AK-7: no older piece is offered


def test_ak7_second_chance_field_is_none_once_the_latest_piece_is_gone() -> None:
    """AK-7 2nd Chance only acts on a latest placement still on the board: once an 11 has
    removed the latest akuma, nothing is offered, not even the older akuma."""
    state = play(new_state(), roll(1), LB_IDLE, roll(2))
    assert GAME.describe(state)["second_chance"] == {
        "piece": "akuma",
        "square": 2,
        "spot": "2.akuma",
    }
    play(state, ChooseDice(2), Roll(11), DeEvilize(2))  # Ladybug's 11
    assert GAME.describe(state)["second_chance"] is None


def test_ak8_supply_left_follows_the_options() -> None:
    """AK-8 **Configurable**: what is left in the box counts from the options."""
    state = play(new_state({"traps": 2, "tiles": 1}), roll(10), PlaceTrap(4), lb(5, "shellter"))
    described = GAME.describe(state)
    assert (described["traps_left"], described["tiles_left"]) == (1, 0)


def test_ak10_names_are_the_rulebooks_and_match_the_printed_cards() -> None:
    """AK-10: names come from data (DEFAULT_NAMES, with the rulebook's Luka / Silencer): the
    description names each square's civilian and akumatized state as the printed cards do."""
    assert DEFAULT_NAMES[1] == ("Luka", "Silencer")
    described = GAME.describe(new_state())["names"]
    assert described == NAMES
    cards = GAME.info.deck.cards() if GAME.info.deck else ()
    printed = {(card.data["square"], card.data["kind"]): card.title for card in cards}
    for sq in SQUARES:
        assert printed[(sq, "civilian")] == described[str(sq)]["civilian"]
        assert printed[(sq, "akumatized")] == described[str(sq)]["akumatized"]


def event(state: AkumaState) -> tuple[str, int | None, str | None, str]:
    told = GAME.describe(state)["last_event"]
    return told["event"], told["square"], told["piece"], told["side"]


def test_what_each_roll_and_power_came_to_is_told_ak_4_to_ak_7() -> None:
    """The page says what a roll did, where the board alone would not: a tile that took the
    blow, a power that did nothing."""
    state = play(new_state(), roll(1))
    assert event(state) == ("akumatized", 1, None, "hawkmoth")  # AK-5
    play(state, lb(1, "shellter"))
    assert event(state) == ("shellter_on_akuma", 1, None, "ladybug")  # AK-7: not on an akuma
    play(state, roll(1))
    assert event(state) == ("already_akuma", 1, None, "hawkmoth")  # AK-5
    play(state, lb(4, "shellter"))
    assert event(state) == ("tile_laid", 4, None, "ladybug")
    play(state, roll(4))
    assert event(state) == ("tile_took_it", 4, None, "hawkmoth")  # AK-5: removed, no akuma
    play(state, lb(4, "cataclysm"))
    assert event(state) == ("cataclysm_no_trap", 4, None, "ladybug")
    play(state, roll(10), PlaceTrap(1))
    assert event(state) == ("trap_laid", 1, None, "hawkmoth")  # AK-4
    play(state, lb(1, "deevilize"))
    assert event(state) == ("deevilize_trapped", 1, None, "ladybug")  # AK-7: trapped akuma
    play(state, roll(5))
    play(state, lb(3, "deevilize"))
    assert event(state) == ("deevilize_no_akuma", 3, None, "ladybug")
    play(state, roll(6))
    play(state, lb(2, "second_chance"))
    assert event(state) == ("undone", 6, "akuma", "ladybug")  # AK-7: the latest placement only
    play(state, roll(7))
    play(state, lb(1, "cataclysm"))
    assert event(state) == ("trap_destroyed", 1, None, "ladybug")
    play(state, roll(8))
    play(state, lb(9, "venom"))
    assert event(state) == ("venom", None, None, "ladybug")  # AK-7: Hawk Moth skips a turn
    play(state, roll(11))  # Ladybug again: its 11 frees the akuma it chooses (AK-4)
    play(state, DeEvilize(1))
    assert event(state) == ("freed", 1, None, "ladybug")


def test_a_second_chance_with_nothing_to_undo_and_an_eleven_with_nothing_to_free() -> None:
    """AK-7: 2nd Chance looks no further back; AK-4: an 11 with no akuma to free does nothing."""
    state = play(new_state(), HM_NOTHING_TO_DEEVILIZE)
    assert event(state) == ("no_akuma_to_free", None, None, "hawkmoth")
    play(state, lb(2, "second_chance"))
    assert event(state) == ("nothing_to_undo", None, None, "ladybug")
