"""Multipli Potion, rule by rule.

Each test cites its source: a clarification (MP-1 .. MP-4 in CLARIFICATIONS.md), a step of the
French rulebook (multipli-potion.fr.txt, "Étape 1..3"), or one of its frequent questions (FAQ).
Positions are reached through the engine (see `potions_play`): the set-up `Deal`s choose the
face-up cards, and since the table cannot tell a hand from the pile, any hidden card may be
placed, so each scripted turn chooses exactly which card reaches the zone.

Built-in card ids are "TxM": monster T*M, potion M ("7x9": monster 63, potion 9).
Seats: 0 player_1 (spots s1.*), 1 player_2 (s2.*).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from potions_play import (
    P1,
    P2,
    DeckCard,
    alert_spots,
    capture_of,
    card_with,
    cards_with,
    consistency_problems,
    full_zones,
    hidden_problems,
    new_state,
    numbered,
    place,
    play,
    quiet_turns,
    set_up,
    snapshot,
    spot_of,
    turn,
    write_deck,
)

from controller.rules.api import CAMERA, CHANCE, TERMINAL, Action, IllegalActionError, Problem
from controller.rules.potions import (
    GAME,
    HAND,
    TROPHY_SLOTS,
    WINNING_CAPTURES,
    ZONE_SLOTS,
    Capture,
    Deal,
    EndTurn,
    Phase,
    Place,
    PotionsHidden,
    PotionsState,
    load_deck,
    trophy_spot,
    zone_spot,
)
from controller.simulate import random_step

# --- Helpers -------------------------------------------------------------------------------------


def assert_refused(state: PotionsState, action: Action) -> None:
    """The action raises IllegalActionError and leaves the state exactly as it was."""
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert snapshot(state) == before


def places(state: PotionsState) -> list[Place]:
    legal = state.legal_actions()
    assert all(isinstance(a, Place) for a in legal)
    return [a for a in legal if isinstance(a, Place)]


def worked_example(options: dict[str, Any] | None = None) -> PotionsState:
    """The rulebook's example at the start of player_1's turn: player_2 shows a monster 63 (7x9),
    player_1 has a potion 9 (3x9) in the zone and will place a potion 7 (5x7)."""
    return set_up("3x9", "7x9", options)


def two_solutions(options: dict[str, Any] | None = None) -> PotionsState:
    """player_1 has just placed 2x4 (potion 4) beside 2x3 (potion 3) and 2x1 (potion 1);
    player_2 shows two monsters 12, 2x6 and 3x4: 3 x 4 captures either."""
    state = set_up("2x3", "2x6", options)
    quiet_turns(state, ["2x1", "3x4"])  # 3 x 1 = 3; player_2's 6 x 4 = 24, not 6 or 2
    place(state, "2x4")
    return state


TWO_SOLUTIONS = [capture_of("2x6", "2x3", "2x4"), capture_of("3x4", "2x3", "2x4")]


def duel_deck(tmp_path: Path) -> str:
    """A 14-card deck for whole scripted games (MP-1: any deck file):
    y (potion 3) x z (potion 2) = 6 captures x (monster 6); u (potion 5) x v (potion 1) = 5
    captures a filler; fillers f1..f9 (monster 5, potion 1) never capture each other."""
    cards: list[DeckCard] = [
        ("y", 5, 3, "green"),
        ("x", 6, 2, "green"),
        ("z", 5, 2, "green"),
        ("u", 7, 5, "green"),
        ("v", 7, 1, "green"),
        *numbered("f", 9, monster=5, potion=1),
    ]
    return write_deck(tmp_path / "duel.toml", cards)


def pile_facts(state: PotionsState) -> tuple[int, int, list[tuple[str, str]]]:
    return state.pile_size, state.pile_unseen, list(state.pile_under)


def assert_consistent(state: PotionsState) -> None:
    problems = consistency_problems(state)
    assert not problems, problems


# --- MP-1 The deck -------------------------------------------------------------------------------


def test_mp1_the_default_deck_has_monster_t_times_m_and_potion_m_for_each_table() -> None:
    """MP-1: for each table t (green 2-5, purple 6-9) and multiplier m in 1-10, one card with
    monster t x m and potion m: 80 cards."""
    state = new_state()
    assert state.options["deck"] == "80"
    expected = {
        (f"{t}x{m}", t * m, m, "green" if t <= 5 else "purple")
        for t in range(2, 10)
        for m in range(1, 11)
    }
    found = {(c.id, c.monster, c.potion, c.colour) for c in state.cards.values()}
    assert found == expected
    assert len(state.cards) == 80
    assert state.hidden == set(state.cards)  # shuffled face down: no card is placed yet


@pytest.mark.parametrize(
    ("colours", "count", "tables"),
    [("green", 40, range(2, 6)), ("purple", 40, range(6, 10)), ("both", 80, range(2, 10))],
)
def test_mp1_colours_choose_the_tables_2_to_5_6_to_9_or_all(
    colours: str, count: int, tables: range
) -> None:
    """Rulebook "La mise en place": green monsters for tables 2-5 (40 cards), purple for 6-9
    (40 cards), the whole pack for 2-9 (80 cards)."""
    state = new_state({"colours": colours})
    assert len(state.cards) == count
    assert {int(card.split("x")[0]) for card in state.cards} == set(tables)
    kept = {"green", "purple"} if colours == "both" else {colours}
    assert {c.colour for c in state.cards.values()} == kept
    assert state.hidden == set(state.cards)


def test_mp1_the_64_card_edition_is_another_deck_file() -> None:
    """MP-1 "any edition, such as the 64-card one, is another file": tables 2-9, m 2-9."""
    state = new_state({"deck": "64"})
    expected = {(f"{t}x{m}", t * m, m) for t in range(2, 10) for m in range(2, 10)}
    assert {(c.id, c.monster, c.potion) for c in state.cards.values()} == expected
    assert len(state.cards) == 64
    assert len(new_state({"deck": "64", "colours": "purple"}).cards) == 32


def test_mp1_a_deck_file_given_by_its_path_is_played(tmp_path: Path) -> None:
    """MP-1 "The deck is a data file ... Configurable": a deck path as the `deck` option."""
    cards: list[DeckCard] = [
        *numbered("g", 12, monster=12, potion=3),
        *numbered("p", 6, monster=42, potion=7, colour="purple"),
    ]
    deck = write_deck(tmp_path / "mine.toml", cards)
    state = new_state({"deck": deck})
    assert sorted(state.cards) == sorted(c[0] for c in cards)
    assert state.cards["p3"].monster == 42
    assert state.cards["p3"].potion == 7
    assert state.cards["p3"].colour == "purple"
    play(state, [Deal(P1, "g1"), Deal(P2, "p1")])
    assert state.pile_size == 18 - 10
    assert {c for c in load_deck(deck, "green")} == {state.cards[f"g{k}"] for k in range(1, 13)}
    with pytest.raises(ValueError, match="has 6 cards; a game needs 11"):
        new_state({"deck": deck, "colours": "purple"})


GOOD = '[[cards]]\nid = "a"\nmonster = 6\npotion = 2\ncolour = "green"\n'
MANY = "".join(GOOD.replace('"a"', f'"a{k}"') for k in range(11))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (MANY + GOOD.replace("potion = 2\n", ""), r"card 12: missing potion"),
        (
            MANY + GOOD.replace("monster = 6\n", "").replace('colour = "green"\n', ""),
            r"card 12: missing colour, monster",
        ),
        (MANY + GOOD.replace('"a"', '"a3"'), r"card ids used twice: a3"),
        (MANY + GOOD.replace('"green"', '"red"'), r"colour must be green or purple, not 'red'"),
        (MANY + GOOD.replace("monster = 6", "monster = 0"), r"monster must be a positive whole"),
        (MANY + GOOD.replace("potion = 2", 'potion = "2"'), r"potion must be a positive whole"),
        (MANY + GOOD.replace('"a"', '"a:b"'), r"id must be a short name without ':'"),
        (MANY + "[[cards]]\nid = \n", r"is not valid TOML"),
        (
            "".join(GOOD.replace('"a"', f'"a{k}"') for k in range(10)),
            r"has 10 cards; a game needs 11",
        ),
        ("", r"has 0 cards; a game needs 11"),
    ],
)
def test_mp1_a_deck_file_that_cannot_be_played_is_refused_with_its_reason(
    tmp_path: Path, text: str, message: str
) -> None:
    """MP-1: a deck is a data file, so its mistakes are named (2 face up + 8 in hand + a pile)."""
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as raised:
        new_state({"deck": str(path)})
    assert str(path) in str(raised.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deck": "79"}, r"no deck '79': neither a built-in edition \(80, 64\) nor a file"),
        ({"deck": "/nowhere/deck.toml"}, r"no deck '/nowhere/deck.toml'"),
        ({"colours": "red"}, r"option 'colours' must be 'green', 'purple' or 'both', not 'red'"),
        ({"colours": "Green"}, r"option 'colours' must be 'green', 'purple' or 'both'"),
    ],
)
def test_mp1_an_unknown_deck_or_colours_option_is_refused(
    options: dict[str, Any], message: str
) -> None:
    """MP-1: the deck and its colours are options; a wrong one says what is allowed."""
    with pytest.raises(ValueError, match=message):
        new_state(options)


# --- Set-up --------------------------------------------------------------------------------------


def test_setup_one_card_face_up_for_each_player_every_card_equally_likely() -> None:
    """Rulebook "Mélangez les cartes ... et posez 1 carte (face visible) devant chaque joueur":
    two chance nodes, player_1's card first, each hidden card as likely."""
    state = new_state()
    assert state.current_player() == CHANCE
    assert state.legal_actions() == []
    odds = state.chance_outcomes()
    assert [a for a, _ in odds] == [Deal(P1, c) for c in sorted(state.cards)]
    assert all(p == pytest.approx(1 / 80) for _, p in odds)
    assert_refused(state, Deal(P2, "7x9"))  # player_1's card comes first
    play(state, [Deal(P1, "7x9")])
    assert state.current_player() == CHANCE
    odds = state.chance_outcomes()
    assert [a for a, _ in odds] == [Deal(P2, c) for c in sorted(state.cards) if c != "7x9"]
    assert sum(p for _, p in odds) == pytest.approx(1)
    assert all(p == pytest.approx(1 / 79) for _, p in odds)
    assert_refused(state, Deal(P2, "7x9"))  # already face up
    play(state, [Deal(P2, "2x5")])
    assert state.chance_outcomes() == []
    assert GAME.layout(state) == {"s1.z1": "7x9", "s2.z1": "2x5"}


@pytest.mark.parametrize(
    ("options", "pile"),
    [({}, 70), ({"colours": "green"}, 30), ({"colours": "purple"}, 30), ({"deck": "64"}, 54)],
)
def test_setup_four_cards_in_each_hand_and_the_rest_is_the_pile(
    options: dict[str, Any], pile: int
) -> None:
    """Rulebook "Distribuez ensuite 4 cartes (face cachée) aux 2 joueurs ... Les cartes
    restantes forment une pioche": the pile holds N - 10."""
    state = new_state(options)
    first, second = sorted(state.cards)[:2]
    play(state, [Deal(P1, first), Deal(P2, second)])
    assert state.hands == [HAND, HAND] == [4, 4]
    assert state.pile_size == state.pile_unseen == pile == len(state.cards) - 10
    assert list(state.pile_under) == []
    assert state.hidden == set(state.cards) - {first, second}
    assert state.phase is Phase.PLACE
    assert state.trophies == [[], []]
    assert_consistent(state)


@pytest.mark.parametrize("youngest", [P1, P2])
def test_setup_the_youngest_starts(youngest: int) -> None:
    """Rulebook "Le plus jeune commence": the `youngest` option names them; turns alternate."""
    state = set_up("2x1", "2x2", {"youngest": youngest})
    assert state.current_player() == youngest
    quiet_turns(state, ["9x10"])
    assert state.current_player() == 1 - youngest
    quiet_turns(state, ["8x10"])
    assert state.current_player() == youngest
    assert spot_of(state, "9x10") == zone_spot(youngest, 2)
    assert spot_of(state, "8x10") == zone_spot(1 - youngest, 2)


@pytest.mark.parametrize(
    ("youngest", "message"),
    [
        (2, "option 'youngest' must be 0 or 1"),
        (-1, "option 'youngest' must be 0 or 1"),
        (True, "option 'youngest' for potions must be int"),
        ("0", "option 'youngest' for potions must be int"),
    ],
)
def test_setup_a_bad_youngest_is_refused(youngest: object, message: str) -> None:
    """Rulebook "Le plus jeune commence": one of the two players."""
    with pytest.raises(ValueError, match=message):
        new_state({"youngest": youngest})


# --- Étape 1: place a card -----------------------------------------------------------------------


def test_step1_a_turn_starts_with_placing_a_card_and_nothing_else() -> None:
    """Étape 1 "Il choisit une des cartes de sa main pour la poser devant lui": any hidden card
    (the table cannot tell a hand from the pile) into any empty slot of one's own zone."""
    state = worked_example()
    legal = places(state)
    assert {a.card for a in legal} == state.hidden
    assert len(state.hidden) == 78
    assert {a.slot for a in legal} == set(range(2, ZONE_SLOTS + 1))
    assert len(legal) == 78 * 19
    assert_refused(state, EndTurn())
    assert_refused(state, capture_of("7x9", "3x9", "5x7"))


def test_step1_placing_puts_the_card_face_up_in_the_players_own_zone() -> None:
    """Étape 1 "pour la poser devant lui (à côté de celle déjà posée lors de la mise en place)"."""
    state = worked_example()
    pile = state.pile_size
    state.apply(Place("5x7", 7))  # any empty slot: the zone is two rows of 10
    assert GAME.layout(state) == {"s1.z1": "3x9", "s1.z7": "5x7", "s2.z1": "7x9"}
    assert state.zone_cards(P1) == ["3x9", "5x7"]
    assert "5x7" not in state.hidden
    assert state.hands == [3, 4]
    assert state.pile_size == pile
    assert state.phase is Phase.CAPTURE
    assert state.current_player() == P1
    assert_consistent(state)


@pytest.mark.parametrize(
    "action",
    [
        Place("3x9", 2),  # face up already, in player_1's zone
        Place("7x9", 2),  # face up already, in player_2's zone
        Place("5x7", 1),  # the slot holds 3x9
        Place("5x7", 0),
        Place("5x7", ZONE_SLOTS + 1),
        Place("1x1", 2),  # no such card
        Place("5x7", True),  # a bool is not a slot number
        Deal(P1, "5x7"),  # the set-up is over
    ],
    ids=str,
)
def test_step1_a_card_not_in_hand_or_no_empty_slot_is_refused(action: Action) -> None:
    """Étape 1 "une des cartes de sa main" into the player's zone, beside the cards there."""
    assert_refused(worked_example(), action)


def test_step1_only_one_card_is_placed_a_turn() -> None:
    """Étape 1 "une des cartes": one card, then step 2."""
    state = worked_example()
    place(state, "2x1")
    assert_refused(state, Place("5x7", 3))
    assert not any(isinstance(a, Place) for a in state.legal_actions())


# --- Étape 2: capture, MP-2 ----------------------------------------------------------------------


def test_mp2_two_potions_of_ones_own_zone_whose_product_is_an_opponents_monster() -> None:
    """MP-2, Étape 2 "il doit multiplier 2 de ses potions (présentes dans sa propre zone de
    pose) pour atteindre le bon résultat": 9 x 7 = 63."""
    state = worked_example()
    assert state.captures(P1) == []  # one potion alone is no product
    place(state, "5x7")
    assert state.captures(P1) == [capture_of("7x9", "3x9", "5x7")]
    assert state.legal_actions() == [capture_of("7x9", "3x9", "5x7"), EndTurn()]


def test_mp2_a_wrong_product_is_refused() -> None:
    """MP-2 "whose product equals the monster": 9 x 6 = 54 is not 63."""
    state = set_up("2x9", "7x9")
    place(state, "3x6")
    assert state.captures(P1) == []
    assert_refused(state, capture_of("7x9", "2x9", "3x6"))
    assert state.legal_actions() == [EndTurn()]


def test_mp2_never_with_the_potions_of_the_opponents_zone() -> None:
    """MP-2 "two different cards in the capturing player's play zone": player_2's potion 7
    (on their 9x7, monster 63) does not count for player_1's 9."""
    state = set_up("3x9", "9x7")
    place(state, "2x1")  # products: 9 x 1 = 9 only
    assert state.captures(P1) == []
    assert_refused(state, capture_of("9x7", "3x9", "9x7"))
    state.apply(EndTurn())
    assert state.phase is Phase.PLACE  # passed: nothing was forgotten
    assert state.current_player() == P2


def test_mp2_the_two_potions_are_two_different_cards() -> None:
    """MP-2 "two different cards": one potion 8 does not square itself to 64; two do."""
    state = set_up("2x8", "8x8")
    place(state, "2x1")
    assert state.captures(P1) == []
    assert_refused(state, capture_of("8x8", "2x8", "2x8"))
    state = set_up("2x8", "8x8")
    place(state, "3x8")
    assert state.captures(P1) == [capture_of("8x8", "2x8", "3x8")]


def test_mp2_each_pair_of_potions_is_a_separate_capture() -> None:
    """MP-2 "two different cards ... whose product equals the monster": 3 x 4 and 2 x 6 both
    make 12, so player_2's monster 12 (4x3) has two captures; the choice is the player's."""
    state = set_up("2x2", "9x10")  # potion 2; monster 90
    # player_1's potions 2, 3 then 4 (products 6, 8, 12); player_2's 10, 1 and 3 (products
    # 10, 30, 3) never reach player_1's monsters 4, 6, 8.
    quiet_turns(state, ["2x3", "9x1", "2x4", "4x3"])  # 4x3: player_2's monster 12
    place(state, "9x6")  # potion 6: 2 x 6 = 12 as well
    assert state.captures(P1) == [
        capture_of("4x3", "2x2", "9x6"),
        capture_of("4x3", "2x3", "2x4"),
    ]
    state.apply(capture_of("4x3", "2x2", "9x6"))
    assert state.zone_cards(P1) == ["2x3", "2x4"]  # the other pair stays in the zone


def test_step2_a_capture_keeps_the_monster_as_a_trophy_and_spends_both_potions() -> None:
    """Étape 2 "Le joueur récupère la carte capturée ... comme un trophée ... Les 2 cartes dont
    les potions ont été utilisées ... sont mises sous la pioche"."""
    state = worked_example()
    place(state, "5x7")
    pile = state.pile_size
    state.apply(capture_of("7x9", "3x9", "5x7"))
    assert state.trophies == [["7x9"], []]
    assert list(state.pile_under) == [("3x9", "5x7")]
    assert GAME.layout(state) == {trophy_spot(P1, 1): "7x9"} == {"s1.t1": "7x9"}
    assert GAME.lights(state) == {"s1.t1": "trophy"}
    # Under the pile (+2), then player_1 draws back to 4 (-1).
    assert state.pile_size == pile + 2 - 1
    assert state.hands == [4, 4]
    assert {"3x9", "5x7"}.isdisjoint(state.hidden)
    assert_consistent(state)


def test_step2_the_capture_passes_the_turn() -> None:
    """FAQ "Peut-on capturer plusieurs monstres pendant son tour ? NON": after the capture,
    step 3 draws and the opponent plays."""
    state = worked_example()
    turn(state, "5x7", capture_of("7x9", "3x9", "5x7"))
    assert state.current_player() == P2
    assert state.phase is Phase.PLACE


# --- Étape 3: draw back to 4 ---------------------------------------------------------------------


def test_step3_end_turn_draws_one_card_back_to_four_and_passes() -> None:
    """Étape 3 "Le joueur annonce la fin de son tour et pioche une carte pour avoir de nouveau
    4 cartes en main. C'est au tour du joueur suivant"."""
    state = worked_example()
    hidden = len(state.hidden)
    place(state, "2x1")
    assert (state.hands, state.pile_size) == ([3, 4], 70)
    state.apply(EndTurn())
    assert (state.hands, state.pile_size, state.pile_unseen) == ([4, 4], 69, 69)
    assert len(state.hidden) == hidden - 1  # only the placed card: the drawn one is unseen
    assert state.current_player() == P2
    assert state.phase is Phase.PLACE
    quiet_turns(state, ["2x2", "2x3", "2x4"])
    assert (state.hands, state.pile_size) == ([4, 4], 66)
    assert state.current_player() == P1


# --- The rulebook's worked example ---------------------------------------------------------------


def test_rulebook_example_9_times_7_captures_63_and_leaves_both_zones_empty() -> None:
    """Rulebook examples: "le joueur 2 a un monstre de valeur 63 ... le joueur 1 a une potion 9
    ... Il a une carte avec une potion 7 dans la main et il la pose" and then "Les 2 cartes avec
    les potions 7 et 9 vont alors sous la pioche et la carte avec le monstre 63 est gardée par le
    joueur 1 ... il n'y a plus de cartes dans les zones de pose des joueurs"."""
    state = worked_example()
    assert cards_with(state, monster=63) == ["7x9", "9x7"]
    assert card_with(state, monster=63, among=state.zone_cards(P2)) == "7x9"
    assert card_with(state, potion=9, among=state.zone_cards(P1)) == "3x9"
    assert state.cards["5x7"].potion == 7
    place(state, "5x7")
    assert state.captures(P1) == [capture_of("7x9", "3x9", "5x7")]
    state.apply(capture_of("7x9", "3x9", "5x7"))
    assert state.zone_cards(P1) == state.zone_cards(P2) == []
    assert list(state.pile_under) == [("3x9", "5x7")]
    assert state.trophies[P1] == ["7x9"]
    assert GAME.layout(state) == {"s1.t1": "7x9"}
    # FAQ 1: the game goes on with both zones empty.
    assert state.current_player() == P2
    assert {a.slot for a in places(state)} == set(range(1, ZONE_SLOTS + 1))
    assert_consistent(state)


# --- Les questions fréquentes --------------------------------------------------------------------


def test_faq_play_goes_on_when_no_card_lies_in_front_of_the_players() -> None:
    """FAQ "Peut-on continuer à jouer quand il n'y a pas de cartes déposées devant les joueurs ?
    OUI, les joueurs continuent de déposer alternativement des cartes"."""
    state = worked_example()
    turn(state, "5x7", capture_of("7x9", "3x9", "5x7"))
    assert GAME.layout(state) == {"s1.t1": "7x9"}
    assert state.current_player() == P2
    assert {a.slot for a in places(state)} == set(range(1, ZONE_SLOTS + 1))
    quiet_turns(state, ["2x3"])  # player_2, alone in the zones: nothing to capture
    assert GAME.layout(state) == {"s1.t1": "7x9", "s2.z1": "2x3"}
    # player_1's 4 x 2 = 8 and player_2's 3 x 2 = 6 miss the monsters 6, 6 and 8, 4.
    quiet_turns(state, ["2x4", "3x2", "2x2"])
    assert state.current_player() == P2
    assert state.phase is Phase.PLACE
    assert GAME.layout(state) == {
        "s1.t1": "7x9",
        "s1.z1": "2x4",
        "s1.z2": "2x2",
        "s2.z1": "2x3",
        "s2.z2": "3x2",
    }


def test_faq_a_card_is_placed_even_when_none_can_capture() -> None:
    """FAQ "Aucune de mes cartes ne me permet de capturer un monstre. Est-ce que je pose quand
    même une carte ? OUI, obligatoirement": no end of turn before placing."""
    state = set_up("2x1", "9x10")  # potion 1 against monster 90: nothing in reach
    assert_refused(state, EndTurn())
    assert state.legal_actions() == places(state) != []
    place(state, "2x2")
    assert state.captures(P1) == []
    assert state.legal_actions() == [EndTurn()]


def test_faq_a_card_is_placed_even_when_a_capture_is_already_possible() -> None:
    """FAQ "Je peux attraper un monstre avec les cartes que j'ai déjà déposées. Dois-je quand
    même poser une carte de ma main ? OUI, pendant son tour le joueur doit déposer
    obligatoirement une carte"."""
    state = set_up("3x9", "2x1")
    quiet_turns(state, ["5x7", "7x9"])  # then player_2 shows the 63 that 9 x 7 makes
    assert state.current_player() == P1
    assert state.captures(P1) == [capture_of("7x9", "3x9", "5x7")]
    assert_refused(state, capture_of("7x9", "3x9", "5x7"))
    places(state)  # only placing is legal
    place(state, "2x2")
    state.apply(capture_of("7x9", "3x9", "5x7"))
    assert state.trophies[P1] == ["7x9"]


def test_faq_no_limit_to_the_cards_in_front_of_a_player(tmp_path: Path) -> None:
    """FAQ (how many cards may lie in front of a player): there is no cap. With every table
    slot of both zones taken, play goes on; the next card lies beside the zone, in slot 21,
    22, ..., and only the empty pile ends the game (MP-4)."""
    deck = write_deck(tmp_path / "calm.toml", numbered("c", 60, monster=2, potion=3))
    state = set_up("c1", "c2", {"deck": deck})  # 3 x 3 = 9: never a monster 2
    for count in range(2, ZONE_SLOTS + 1):
        quiet_turns(state, sorted(state.hidden)[:2])
        assert len(state.zone_cards(P1)) == len(state.zone_cards(P2)) == count
    assert not state.is_terminal()
    assert state.ended_by == ""
    assert state.current_player() == P1 and state.phase is Phase.PLACE
    # Every table slot is taken: the one place left is the first slot beside the zone.
    assert state.empty_slots(P1) == [ZONE_SLOTS + 1]
    assert {a.slot for a in places(state)} == {ZONE_SLOTS + 1}
    layout = GAME.layout(state)
    place(state, "c50")
    assert state.zone_cards(P1)[-1] == "c50" and len(state.zone_cards(P1)) == ZONE_SLOTS + 1
    assert GAME.layout(state) == layout  # the camera has no slot there: nothing it sees moved
    state.apply(EndTurn())
    while not state.is_terminal():
        quiet_turns(state, sorted(state.hidden)[:1])
    assert state.ended_by == "pile"  # MP-4: the pile, never the zone, ends it
    # 50 cards to draw: 19 turns each fill the table's slots, then 12 more go beside the zones.
    assert len(state.zone_cards(P1)) == 27 and len(state.zone_cards(P2)) == 26
    assert [slot for slot, _ in state.zone_slots(P1)] == list(range(1, 28))
    assert GAME.result(state) == {
        "winners": [],
        "returns": [0.0, 0.0],
        "scores": {"player_1": 0, "player_2": 0},
        "ended_by": "pile",
    }


def test_faq_a_card_beside_a_full_zone_counts_for_captures(tmp_path: Path) -> None:
    """FAQ (no cap on a zone) with MP-2: a card laid beside the zone is in the zone; its potion
    captures. The table's lights and layout cover only its slots; the alert asks for the card
    beside the zone to be named, since the camera cannot see it."""
    state = full_zones(tmp_path, {"hints": True})
    alert = GAME.alert(state)
    assert alert == Problem(
        "player_1's zone has no free slot on the table: lay the card beside it and name it "
        "(place:CARD:21)"
    )
    place(state, "a")
    assert spot_of(state, "m") == "s2.z1"
    assert GAME.alert(state) is None
    captures = state.captures(P1)
    assert len(captures) == ZONE_SLOTS  # a's 7 with each c's 3
    assert all(c.monster == "m" and "a" in (c.potion_a, c.potion_b) for c in captures)
    # Lit: m and every c of player_1's slots; a lies beside the zone, with no light.
    assert set(GAME.lights(state)) == {"s2.z1", *(zone_spot(P1, k) for k in range(1, 21))}
    state.apply(capture_of("m", "a", "c2"))
    assert GAME.layout(state)["s1.t1"] == "m"
    assert "s1.z2" not in GAME.layout(state)  # c2, spent
    assert state.empty_slots(P2) == [1]  # m's slot is free again: back on the table
    quiet_turns(state, ["c41"])
    assert state.empty_slots(P1) == [2]  # c2's slot, before any beside the zone
    assert GAME.alert(state) is None
    assert_consistent(state)


def test_explain_a_card_beside_the_zone_put_in_a_slot(tmp_path: Path) -> None:
    """FAQ (no cap on a zone): a card laid beside a full zone stays there; seen in a slot, it
    is named."""
    state = full_zones(tmp_path)
    quiet_turns(state, ["c41", "c42"])  # each in slot 21, beside each zone
    place(state, "a")  # player_1's slot 22
    assert [slot for slot, _ in state.zone_slots(P1)][-2:] == [21, 22]
    state.apply(capture_of("m", "a", "c2"))  # frees c2's slot s1.z2
    assert [slot for slot, _ in state.zone_slots(P1)][-1] == 21  # c41 stays beside
    quiet_turns(state, ["c43"])
    problem = GAME.explain(state, {**GAME.layout(state), "s1.z2": "c41"})
    assert problem == Problem(
        "card c41 lies beside player_1's zone (slot 21), not in s1.z2", frozenset({"s1.z2"})
    )
    assert GAME.describe(state)["zones"]["player_1"]["21"] == "c41"


def test_faq_only_two_potions_are_multiplied_never_three() -> None:
    """FAQ "Est-ce qu'on peut multiplier plus de 2 potions entre elles ? NON, seulement 2":
    2 x 3 x 4 = 24 does not capture a monster 24; the pairs make 6, 8 and 12."""
    state = set_up("2x2", "3x8")  # player_2's monster 24
    quiet_turns(state, ["2x3", "9x10"])  # player_2's 8 x 10 = 80: no monster of player_1's
    place(state, "2x4")
    assert [state.cards[c].potion for c in state.zone_cards(P1)] == [2, 3, 4]
    assert state.captures(P1) == []
    assert state.legal_actions() == [EndTurn()]
    for pair in (("2x2", "2x3"), ("2x2", "2x4"), ("2x3", "2x4")):
        assert_refused(state, capture_of("3x8", *pair))
    state.apply(EndTurn())
    assert state.phase is Phase.PLACE  # not a forgotten capture
    assert state.current_player() == P2


@pytest.mark.parametrize("chosen", TWO_SOLUTIONS, ids=str)
def test_faq_one_monster_a_turn_of_the_players_choice(chosen: Capture) -> None:
    """FAQ "Peut-on capturer plusieurs monstres pendant son tour ? NON, si un joueur peut
    attraper différents monstres, il choisit la solution qu'il préfère et il ne capture qu'une
    seule carte"."""
    state = two_solutions()
    assert state.legal_actions() == [*TWO_SOLUTIONS, EndTurn()]
    state.apply(chosen)
    (other,) = [c for c in TWO_SOLUTIONS if c != chosen]
    assert state.trophies == [[chosen.monster], []]
    assert state.zone_cards(P2) == [other.monster]
    assert state.zone_cards(P1) == ["2x1"]
    assert state.current_player() == P2
    assert_refused(state, other)


def test_faq_potions_in_the_hand_never_capture() -> None:
    """FAQ "Peut-on utiliser des potions de sa main pour attraper un monstre ? NON. Seules les
    cartes posées devant soi": player_1 holds the 7 that would make 63 but places another."""
    state = worked_example()
    place(state, "2x1")
    assert "5x7" in state.hidden  # perhaps in player_1's hand
    assert state.captures(P1) == []
    assert_refused(state, capture_of("7x9", "3x9", "5x7"))
    state.apply(EndTurn())
    assert state.phase is Phase.PLACE
    assert state.current_player() == P2


def test_faq_forgotten_capture_the_player_captures_and_the_opponent_takes_the_top_card() -> None:
    """FAQ "J'ai oublié de capturer un monstre ... Le joueur réalise alors la capture de son
    choix. En récompense, l'adversaire récupère la première carte du dessus de la pioche (cela
    ne compte pas comme un tour de jeu)"; MP-3."""
    state = worked_example()
    place(state, "5x7")
    hidden = GAME.deal(state, random.Random(7))
    top = hidden.pile[0]
    for action in (EndTurn(), capture_of("7x9", "3x9", "5x7")):
        state.apply(action)
        hidden.observe(action, state)
    assert top in hidden.hands[P2]
    assert state.hands == [4, 5]
    assert state.trophies[P1] == ["7x9"]
    assert state.current_player() == P2  # the reward is not a turn: player_2 plays next
    assert not hidden_problems(state, hidden)


# --- MP-3 Forgotten capture ----------------------------------------------------------------------


def test_mp3_ending_the_turn_with_a_capture_possible_is_flagged() -> None:
    """MP-3 "When a player ends a turn while a capture was possible, the board flags it": the
    monster and both potions of every solution blink."""
    state = two_solutions()
    pile = pile_facts(state)
    state.apply(EndTurn())
    assert state.phase is Phase.FORGOTTEN
    assert state.current_player() == P1
    flagged = {"s1.z1", "s1.z3", "s2.z1", "s2.z2"}  # 2x3 and 2x4; 2x6 and 3x4
    assert {spot_of(state, c) for c in ("2x3", "2x4", "2x6", "3x4")} == flagged
    assert alert_spots(state) == frozenset(flagged)
    assert GAME.lights(state) == dict.fromkeys(flagged, "forgotten")
    assert GAME.describe(state)["forgotten"] == [c.id for c in TWO_SOLUTIONS]
    assert pile_facts(state) == pile  # nothing drawn yet
    assert state.hands == [3, 4]


def test_mp3_after_the_flag_only_the_captures_are_legal() -> None:
    """MP-3 1. "The player must then make one capture of their choice"."""
    state = two_solutions()
    state.apply(EndTurn())
    assert state.legal_actions() == TWO_SOLUTIONS
    assert_refused(state, EndTurn())
    assert_refused(state, Place("9x10", 4))


@pytest.mark.parametrize("chosen", TWO_SOLUTIONS, ids=str)
def test_mp3_the_opponent_takes_the_top_card_then_draws_only_back_to_four(
    chosen: Capture,
) -> None:
    """MP-3 2. "The opponent takes the top card of the draw pile into their hand." 3. "The
    opponent's next draw fills their hand only back up to 4 cards"."""
    state = two_solutions()
    pile = state.pile_size
    state.apply(EndTurn())
    state.apply(chosen)
    assert state.trophies[P1] == [chosen.monster]
    assert state.hands == [4, 5]  # player_1 back to 4; player_2 rewarded with a fifth
    assert state.pile_size == pile + 2 - 2  # the spent pair under, two cards drawn
    assert state.rewarded == P2
    assert state.current_player() == P2
    assert not alert_spots(state)
    assert "forgotten" not in GAME.lights(state).values()
    assert_consistent(state)
    place(state, "9x10")  # player_2: 6 or 4 x 10 against monster 2: nothing
    assert state.hands == [4, 4]
    pile = state.pile_size
    state.apply(EndTurn())
    assert state.hands == [4, 4]
    assert state.pile_size == pile  # no draw: the hand holds 4 already
    assert state.rewarded is None
    quiet_turns(state, ["8x10", "7x10"])  # after that, one card a turn as usual
    assert state.pile_size == pile - 2


def test_mp3_ending_the_turn_with_no_capture_possible_just_passes() -> None:
    """MP-3 applies only "while a capture was possible"; otherwise Étape 3 as usual."""
    state = worked_example()
    place(state, "2x1")
    pile = state.pile_size
    state.apply(EndTurn())
    assert state.phase is Phase.PLACE
    assert state.current_player() == P2
    assert state.hands == [4, 4]
    assert state.pile_size == pile - 1
    assert state.rewarded is None
    assert not alert_spots(state)


def test_mp3_a_fifth_capture_made_when_flagged_ends_the_game_without_a_reward(
    tmp_path: Path,
) -> None:
    """MP-4 "A player who reaches 5 captures wins" comes first: the game is over, nobody draws."""
    state = five_captures(tmp_path, last_forgotten=True)
    assert state.is_terminal()
    assert state.ended_by == "captures"
    assert state.hands[P2] == 4
    assert state.rewarded is None


# --- MP-4 The end --------------------------------------------------------------------------------


def five_captures(tmp_path: Path, *, last_forgotten: bool = False) -> PotionsState:
    """player_1 captures on every other turn of theirs: a (monster 6, potion 2) and b (monster
    5, potion 3) cards, 3 x 2 = 6; player_2 places only a cards, whose 2 x 2 = 4 never
    captures. Returns the state after the fifth capture."""
    deck = write_deck(
        tmp_path / "ab.toml",
        [*numbered("a", 30, monster=6, potion=2), *numbered("b", 30, monster=5, potion=3)],
    )
    state = set_up("b1", "a1", {"deck": deck})
    a_cards = iter(f"a{k}" for k in range(2, 31))
    b_cards = iter(f"b{k}" for k in range(2, 31))
    for count in range(1, WINNING_CAPTURES + 1):
        place(state, next(a_cards))
        first = state.captures(P1)[0]
        if count == WINNING_CAPTURES:
            pile, hands = state.pile_size, list(state.hands)
            if last_forgotten:
                state.apply(EndTurn())
                assert state.phase is Phase.FORGOTTEN
            state.apply(first)
            assert state.pile_size == pile + 2  # no draw after the win: the pair is under
            assert state.hands == hands
            return state
        state.apply(first)
        assert len(state.trophies[P1]) == count
        assert not state.is_terminal()
        quiet_turns(state, [next(a_cards), next(b_cards), next(a_cards)])  # P2, P1, P2
    raise AssertionError("unreachable")


def test_mp4_five_captures_win_at_once(tmp_path: Path) -> None:
    """MP-4 "A player who reaches 5 captures wins"; rulebook "Si l'un des joueurs parvient à
    capturer 5 monstres de l'adversaire, il est déclaré vainqueur"."""
    state = five_captures(tmp_path)
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert len(state.trophies[P1]) == WINNING_CAPTURES == TROPHY_SLOTS
    assert state.returns() == [1.0, -1.0]
    trophies = {spot: c for spot, c in GAME.layout(state).items() if ".t" in spot}
    assert trophies == {trophy_spot(P1, k): c for k, c in enumerate(state.trophies[P1], 1)}
    assert GAME.result(state) == {
        "winners": ["player_1"],
        "returns": [1.0, -1.0],
        "scores": {"player_1": 5, "player_2": 0},
        "ended_by": "captures",
    }
    assert_refused(state, EndTurn())


def test_mp4_four_captures_do_not_end_the_game(tmp_path: Path) -> None:
    """MP-4: 5 captures, not fewer."""
    state = five_captures(tmp_path)
    replay = new_state(state.options)
    history = list(state.actions())
    play(replay, history[:-1])  # just before the fifth capture
    assert len(replay.trophies[P1]) == 4
    assert not replay.is_terminal()
    assert replay.returns() == [0.0, 0.0]
    assert GAME.result(replay) is None


def test_mp4_an_empty_pile_ends_the_game_and_more_captures_wins(tmp_path: Path) -> None:
    """MP-4 "If a player cannot draw because the pile is empty, the game ends: more captures
    wins"; rulebook "S'il n'y a plus de cartes dans la pioche, celui qui a capturé le plus de
    monstres remporte la partie"."""
    state = set_up("y", "x", {"deck": duel_deck(tmp_path)})
    turn(state, "z", capture_of("x", "y", "z"))  # 3 x 2 = 6
    assert state.pile_size == 5
    quiet_turns(state, ["f1", "f2", "f3", "f4", "f5"])
    assert state.pile_size == 0
    assert not state.is_terminal()  # the pile is empty, but no one needed to draw yet
    assert state.current_player() == P1
    place(state, "f6")
    state.apply(EndTurn())
    assert state.is_terminal()
    assert state.hands == [3, 4]
    assert state.returns() == [1.0, -1.0]
    assert GAME.result(state) == {
        "winners": ["player_1"],
        "returns": [1.0, -1.0],
        "scores": {"player_1": 1, "player_2": 0},
        "ended_by": "pile",
    }


def test_mp4_an_empty_pile_with_equal_captures_is_a_draw(tmp_path: Path) -> None:
    """MP-4 "equal captures draw": one capture each, then the pile runs out."""
    state = set_up("y", "x", {"deck": duel_deck(tmp_path)})
    turn(state, "z", capture_of("x", "y", "z"))  # player_1: 3 x 2 = 6
    quiet_turns(state, ["u", "f1"])
    turn(state, "v", capture_of("f1", "u", "v"))  # player_2: 5 x 1 = 5
    assert state.trophies == [["x"], ["f1"]]
    quiet_turns(state, ["f2", "f3", "f4", "f5"])
    assert state.pile_size == 0
    place(state, "f6")
    state.apply(EndTurn())
    assert state.is_terminal()
    assert state.returns() == [0.0, 0.0]
    assert GAME.result(state) == {
        "winners": [],
        "returns": [0.0, 0.0],
        "scores": {"player_1": 1, "player_2": 1},
        "ended_by": "pile",
    }


# --- The pile and its spent pairs ----------------------------------------------------------------


def test_pile_spent_pairs_are_drawn_once_the_unseen_cards_are_used_up(tmp_path: Path) -> None:
    """Étape 2 puts the two used potions beneath the pile: the pair is drawn after the
    cards above it, by whoever draws then; which of the two was drawn the table cannot tell."""
    state = set_up("y", "x", {"deck": duel_deck(tmp_path)})
    assert pile_facts(state) == (4, 4, [])
    turn(state, "z", capture_of("x", "y", "z"))
    assert pile_facts(state) == (5, 3, [("y", "z")])
    quiet_turns(state, ["f1", "f2", "f3"])
    assert pile_facts(state) == (2, 0, [("y", "z")])
    assert {"y", "z"}.isdisjoint(state.hidden)
    assert_refused(state, Place("y", 2))  # under the pile: not in a hand
    place(state, "f4")
    state.apply(EndTurn())  # player_1 draws the first card of the pair
    assert pile_facts(state) == (1, 1, [])
    assert {"y", "z"} <= state.hidden
    assert len(state.hidden) == state.pile_unseen + sum(state.hands) == 9
    assert {"y", "z"} <= state.may_hold(P1)
    assert_consistent(state)


def spent_deck(tmp_path: Path) -> str:
    """y (potion 3) x z (potion 2) = 6 captures x (monster 6); u (potion 5) x v (potion 1) = 5
    captures a filler f (monster 5, potion 1); fillers never capture: their products are 1."""
    cards: list[DeckCard] = [
        ("y", 5, 3, "green"),
        ("x", 6, 2, "green"),
        ("z", 5, 2, "green"),
        ("u", 7, 5, "green"),
        ("v", 7, 1, "green"),
        *numbered("f", 12, monster=5, potion=1),
    ]
    return write_deck(tmp_path / "spent.toml", cards)


def spent_position(tmp_path: Path) -> PotionsState:
    """`spent_deck` played on until player_2 has drawn the first card of the spent pair (y, z),
    whose other card tops the pile, above the spent pair (u, v); player_1 to place."""
    state = set_up("y", "x", {"deck": spent_deck(tmp_path)})
    turn(state, "z", capture_of("x", "y", "z"))  # player_1: 3 x 2 = 6
    quiet_turns(state, ["u", "f1"])
    turn(state, "v", capture_of("f1", "u", "v"))  # player_2: 5 x 1 = 5
    quiet_turns(state, ["f2", "f3", "f4", "f5"])
    return state


def test_step2_a_spent_potion_reaches_only_the_hand_that_draws_it(tmp_path: Path) -> None:
    """Étape 2 puts a capture's two used potions beneath the pile. So a spent card can come
    back to a hand only once every card above it has been drawn, and only to the hand that drew
    it: until then no player may place it, and afterwards only that player."""
    state = set_up("y", "x", {"deck": spent_deck(tmp_path)})
    turn(state, "z", capture_of("x", "y", "z"))  # player_1: 3 x 2 = 6; (y, z) under the pile
    quiet_turns(state, ["u"])  # player_2's potion 5
    quiet_turns(state, ["f1"])  # player_1's monster 5
    turn(state, "v", capture_of("f1", "u", "v"))  # player_2: 5 x 1 = 5; (u, v) under (y, z)
    assert pile_facts(state) == (7, 3, [("y", "z"), ("u", "v")])
    quiet_turns(state, ["f2", "f3", "f4"])  # player_1 draws the last unseen card, ...
    assert pile_facts(state) == (4, 0, [("y", "z"), ("u", "v")])
    quiet_turns(state, ["f5"])  # ... then player_2 draws the first of (y, z)
    assert pile_facts(state) == (3, 1, [("u", "v")])
    # player_1's turn: y and z lie in player_2's hand or on top of the pile, not in player_1's.
    assert state.current_player() == P1
    assert {"y", "z"}.isdisjoint(state.may_hold(P1))
    assert {"y", "z"} <= state.may_hold(P2)
    for card in ("y", "z", "u", "v"):
        assert_refused(state, Place(card, 5))
        assert not any(a.card == card for a in places(state))
    quiet_turns(state, ["f6"])  # player_1 draws the second of (y, z)
    assert pile_facts(state) == (2, 0, [("u", "v")])
    # Each hand holds one of the two, either one: both may place either.
    assert {"y", "z"} <= state.may_hold(P1) & state.may_hold(P2)
    quiet_turns(state, ["y"])  # player_2 had y, so player_1 holds z; player_2 draws u or v
    assert pile_facts(state) == (1, 1, [])
    assert "z" in state.may_hold(P1) and "z" not in state.may_hold(P2)
    assert {"u", "v"} <= state.may_hold(P2) and {"u", "v"}.isdisjoint(state.may_hold(P1))
    for card in ("u", "v"):
        assert_refused(state, Place(card, 5))  # player_2's, or still on top of the pile
    quiet_turns(state, ["z"])  # player_1 draws the second of (u, v)
    assert pile_facts(state) == (0, 0, [])
    assert {"u", "v"} <= state.may_hold(P1) & state.may_hold(P2)
    place(state, "u")  # player_2 had u, so player_1 holds v
    assert "v" in state.may_hold(P1) and "v" not in state.may_hold(P2)
    assert_consistent(state)


def test_explain_a_spent_card_put_down_by_a_player_who_did_not_draw_it(tmp_path: Path) -> None:
    """Étape 2 (used potions beneath the pile): player_2 drew one of the spent pair (y, z);
    the other is on top of the pile. player_1 laying either is named."""
    state = spent_position(tmp_path)
    problem = GAME.explain(state, {**GAME.layout(state), "s1.z3": "y"})
    assert problem == Problem(
        "card y cannot be in player_1's hand: it lies in the pile or in player_2's hand",
        frozenset({"s1.z3"}),
    )
    assert GAME.explain(state, {**GAME.layout(state), "s1.z3": "f7"}) is None  # a legal place


def test_hidden_dealt_at_a_drawn_spent_pair_gives_it_only_to_the_hand_that_drew_it(
    tmp_path: Path,
) -> None:
    """Étape 2: player_2 drew one of the spent pair (y, z) and the other tops the pile; real
    hands dealt to fit the table follow that, whichever of the two it is."""
    state = spent_position(tmp_path)
    drawn = set()
    for seed in range(12):
        hidden = GAME.deal(state, random.Random(seed))
        assert not hidden_problems(state, hidden)
        assert {"y", "z"}.isdisjoint(hidden.hands[P1])
        (held,) = {"y", "z"} & hidden.hands[P2]
        assert hidden.pile[0] == ({"y", "z"} - {held}).pop()
        assert list(hidden.pile)[1:] in (["u", "v"], ["v", "u"])
        drawn.add(held)
        assert {a.card for a in hidden.choices(state) if isinstance(a, Place)} <= state.may_hold(P1)
    assert drawn == {"y", "z"}


# --- Hints ---------------------------------------------------------------------------------------


def test_hints_are_off_by_default() -> None:
    """The `hints` option (off by default): the table does not show the open captures."""
    state = worked_example()
    assert state.options["hints"] is False
    place(state, "5x7")
    assert state.captures(P1) != []
    assert GAME.lights(state) == {}
    assert "hint" not in GAME.lights(two_solutions()).values()


def test_hints_on_light_the_open_captures_during_the_capture_step() -> None:
    """The `hints` option: during step 2 the monster and potions of each capture are lit."""
    state = two_solutions({"hints": True})
    assert GAME.lights(state) == dict.fromkeys({"s1.z1", "s1.z3", "s2.z1", "s2.z2"}, "hint")
    assert alert_spots(state) == frozenset()  # a hint does not blink
    state.apply(TWO_SOLUTIONS[0])
    assert GAME.lights(state) == {"s1.t1": "trophy"}
    state = set_up("3x9", "2x1", {"hints": True})
    quiet_turns(state, ["5x7", "7x9"])
    assert GAME.lights(state) == {}  # step 1 comes first, even with a capture open (FAQ 3)
    place(state, "2x2")
    assert GAME.lights(state) == dict.fromkeys({"s1.z1", "s1.z2", "s2.z2"}, "hint")


# --- The table: layout, spots, explanations ------------------------------------------------------


def test_table_board_rows_and_spots_are_zones_and_trophy_areas_seen_by_the_camera() -> None:
    """Rulebook set-up drawing: each player's play zone; trophies kept "à côté de lui"."""
    rows = GAME.board_rows()
    half = ZONE_SLOTS // 2
    assert [len(row) for row in rows] == [TROPHY_SLOTS, half, half, half, half, TROPHY_SLOTS]
    assert rows[0] == [f"s2.t{k}" for k in range(1, 6)]
    assert rows[1] == [f"s2.z{k}" for k in range(11, 21)]
    assert rows[2] == [f"s2.z{k}" for k in range(1, 11)]
    assert rows[3] == [f"s1.z{k}" for k in range(1, 11)]
    assert rows[4] == [f"s1.z{k}" for k in range(11, 21)]
    assert rows[5] == [f"s1.t{k}" for k in range(1, 6)]
    spots = GAME.spots()
    assert spots == {spot: CAMERA for row in rows for spot in row}
    assert len(spots) == 2 * (ZONE_SLOTS + TROPHY_SLOTS)
    assert GAME.dice_wanted(worked_example()) is None
    with pytest.raises(IllegalActionError):
        GAME.dice_actions(worked_example(), [3])


def test_table_layout_shows_the_zones_and_the_trophies() -> None:
    """Layout: each face-up card at its slot; each trophy in the capturer's trophy area."""
    assert GAME.layout(new_state()) == {}
    state = worked_example()
    state.apply(Place("5x7", 20))
    assert GAME.layout(state) == {"s1.z1": "3x9", "s1.z20": "5x7", "s2.z1": "7x9"}
    state.apply(capture_of("7x9", "3x9", "5x7"))
    assert GAME.layout(state) == {"s1.t1": "7x9"}
    assert all(spot in GAME.spots() for spot in GAME.layout(state))


def sensed_without(state: PotionsState, *cards: str, **added: str) -> dict[str, str]:
    """The layout with `cards` lifted off and `added` ({"s1_z2": card}) put down."""
    sensed = {spot: c for spot, c in GAME.layout(state).items() if c not in cards}
    sensed.update({spot.replace("_", "."): c for spot, c in added.items()})
    return sensed


def test_explain_a_wrong_product_names_the_multiplication() -> None:
    """MP-2: player_1 lifts 9 and 6 against the 63: "9 x 6 = 54, not 63"."""
    state = set_up("2x9", "7x9")
    place(state, "3x6")
    sensed = sensed_without(state, "2x9", "3x6", "7x9", s1_t1="7x9")
    assert GAME.explain(state, sensed) == Problem(
        "9 x 6 = 54, not 63: put the cards back (MP-2)",
        frozenset({"s1.z1", "s1.z2", "s2.z1"}),
    )


def test_explain_a_right_capture_or_an_unchanged_table_is_no_problem() -> None:
    """MP-2: 9 x 7 = 63 is a capture, whatever the order the cards are lifted."""
    state = worked_example()
    place(state, "5x7")
    assert GAME.explain(state, GAME.layout(state)) is None
    assert GAME.explain(state, sensed_without(state, "3x9", "5x7", "7x9", s1_t1="7x9")) is None
    assert GAME.explain(state, sensed_without(state, "3x9", "5x7", "7x9")) is None


def test_explain_three_potions_are_never_multiplied() -> None:
    """FAQ "seulement 2 potions": lifting three potions of one's zone is named."""
    state = set_up("2x2", "3x8")
    quiet_turns(state, ["2x3", "9x10"])
    place(state, "2x4")
    problem = GAME.explain(state, sensed_without(state, "2x2", "2x3", "2x4", "3x8"))
    assert problem == Problem(
        "exactly two potions make a capture, never more (MP-2)",
        frozenset({"s1.z1", "s1.z2", "s1.z3", "s2.z1"}),
    )


def test_explain_two_monsters_are_never_captured_in_one_turn() -> None:
    """FAQ "il ne capture qu'une seule carte"."""
    state = two_solutions()
    problem = GAME.explain(state, sensed_without(state, "2x3", "2x4", "2x6", "3x4"))
    assert problem == Problem(
        "one monster at most is captured a turn (FAQ)",
        frozenset({"s1.z1", "s1.z3", "s2.z1", "s2.z2"}),
    )


def test_explain_only_the_player_to_move_puts_a_card_down() -> None:
    """Rulebook "Les joueurs jouent chacun leur tour": a card put down by player_2 during
    player_1's turn."""
    state = worked_example()
    problem = GAME.explain(state, sensed_without(state, s2_z2="5x7"))
    assert problem == Problem(
        "it is player_1's turn: cards go down only in player_1's own zone and trophies",
        frozenset({"s2.z2"}),
    )


def test_explain_a_spent_card_put_back_down() -> None:
    """Rulebook "mises sous la pioche": the spent potions are under the pile, not in a zone."""
    state = worked_example()
    place(state, "5x7")
    state.apply(capture_of("7x9", "3x9", "5x7"))
    assert state.to_move == P2
    problem = GAME.explain(state, {**GAME.layout(state), "s2.z1": "5x7"})
    assert problem == Problem(
        "card 5x7 was spent: it lies under the draw pile, not in s2.z1", frozenset({"s2.z1"})
    )


def test_explain_a_card_is_placed_before_any_is_taken_away() -> None:
    """Étape 1 comes before Étape 2: taking cards off the table first is named."""
    state = worked_example()
    problem = GAME.explain(state, sensed_without(state, "3x9", "7x9"))
    assert problem == Problem(
        "player_1 places a card first (step 1): put back what was taken",
        frozenset({"s1.z1", "s2.z1"}),
    )
    assert GAME.explain(state, sensed_without(state, s1_z5="5x7")) is None  # a legal place


def test_explain_a_card_that_is_not_in_the_deck() -> None:
    """MP-1: only the cards of the chosen deck are in play; the green deck has no table 7."""
    state = worked_example()
    problem = GAME.explain(state, sensed_without(state, s1_z2="1x1"))
    assert problem == Problem(
        "s1.z2 shows '1x1', which is not a card of this deck", frozenset({"s1.z2"})
    )
    green = set_up("2x1", "3x1", {"colours": "green"})
    problem = GAME.explain(green, sensed_without(green, s1_z2="7x9"))
    assert problem == Problem(
        "s1.z2 shows '7x9', which is not a card of this deck", frozenset({"s1.z2"})
    )


def test_explain_a_card_shown_in_two_places() -> None:
    """Every card is one card: seen where it lies and elsewhere too, the new place is wrong."""
    state = worked_example()
    problem = GAME.explain(state, sensed_without(state, s1_z2="7x9"))
    assert problem == Problem("card 7x9 cannot lie in s1.z2: it is in s2.z1", frozenset({"s1.z2"}))


def test_explain_says_nothing_once_the_game_is_over(tmp_path: Path) -> None:
    """MP-4: after the fifth capture the cards may be gathered up freely."""
    state = five_captures(tmp_path)
    assert GAME.explain(state, {"s1.z1": "nothing"}) is None


# --- The API: refusals, history, clones, description ---------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        EndTurn(),
        Place("2x1", 2),  # a second card
        capture_of("7x9", "3x9", "2x1"),  # 9 x 1 = 9
        capture_of("3x9", "7x9", "2x1"),  # the own card as a monster
        Deal(P2, "2x2"),
    ],
    ids=str,
)
def test_api_an_illegal_action_raises_and_changes_nothing(action: Action) -> None:
    """API: IllegalActionError, and the state exactly as before."""
    state = worked_example()
    place(state, "2x1")
    state.apply(EndTurn())
    place(state, "2x2")  # player_2's turn now
    state.apply(EndTurn())
    place(state, "5x7")
    # player_1 can capture 63 with 9 x 7; none of the actions above is that capture.
    assert state.captures(P1) == [capture_of("7x9", "3x9", "5x7")]
    if action == EndTurn():
        state.apply(EndTurn())  # flagged (MP-3): a second "end my turn" is refused
    assert_refused(state, action)


def scripted_game() -> PotionsState:
    """A short game: the worked example, quiet turns, then player_2 forgets that 3 x 4 captures
    player_1's monster 12 (4x3), and player_1 takes the reward."""
    state = worked_example()
    turn(state, "5x7", capture_of("7x9", "3x9", "5x7"))
    quiet_turns(state, ["2x3", "2x1", "3x4", "4x3"])
    place(state, "9x10")  # player_2 must place first (FAQ 3)
    state.apply(EndTurn())
    assert state.phase is Phase.FORGOTTEN
    assert state.legal_actions() == [capture_of("4x3", "2x3", "3x4")]
    state.apply(capture_of("4x3", "2x3", "3x4"))
    return state


def test_api_history_replays_to_an_equal_state() -> None:
    """API: the history of actions is the save format; `GAME.replay` rebuilds the state."""
    state = scripted_game()
    saved = json.loads(json.dumps(state.history()))
    again = GAME.replay(saved, state.options)
    assert isinstance(again, PotionsState)
    assert snapshot(again) == snapshot(state)
    assert again.hands == [5, 4]  # player_1 rewarded for player_2's forgotten capture
    assert again.trophies == [["7x9"], ["4x3"]]
    assert again.rewarded == P1


def test_api_clone_is_independent() -> None:
    """API: a clone and its original never share what changes."""
    state = worked_example()
    place(state, "5x7")
    before = snapshot(state)
    other = state.clone()
    other.apply(capture_of("7x9", "3x9", "5x7"))
    quiet_turns(other, ["2x1"])
    assert snapshot(state) == before
    state.apply(EndTurn())  # the original flags its forgotten capture; the clone went on
    assert other.phase is Phase.PLACE
    assert other.trophies == [["7x9"], []]
    assert state.trophies == [[], []]
    child = state.child(capture_of("7x9", "3x9", "5x7"))
    assert state.phase is Phase.FORGOTTEN
    assert child.hands == [4, 5]


def test_api_describe_gives_every_public_fact_at_a_known_position(tmp_path: Path) -> None:
    """Status displays and computer players get every public fact and no hidden one: whose turn
    and what is left of it, the counts of the hands and the pile, the spent pairs (Étape 2: beneath
    the pile) and who may hold those already drawn, the zones, the trophies and scores."""
    state = spent_position(tmp_path)
    assert GAME.describe(state) == {
        "turn": 18,
        "phase": "place",
        "to_move": "player_1",
        "may": ["place"],
        "hands": {"player_1": 4, "player_2": 4},
        "rewarded": None,
        "pile": 3,
        "pile_unseen": 1,
        "spent_under_pile": [["u", "v"]],
        "spent_drawn": [
            {"cards": ["y", "z"], "hands": {"player_1": 0, "player_2": 1}, "pile": 1},
        ],
        "zones": {"player_1": {"1": "f2", "2": "f4"}, "player_2": {"1": "f3", "2": "f5"}},
        "table_slots": ZONE_SLOTS,
        "trophies": {"player_1": ["x"], "player_2": ["f1"]},
        "scores": {"player_1": 1, "player_2": 1},
        "captures_to_win": WINNING_CAPTURES,
        "seen": 10,
        "deck": 17,
        "forgotten": None,
        "captures": None,
        "ended_by": None,
    }


def describe_keys() -> set[str]:
    """The fields that the game declares for its description (`GameType.details`)."""
    return {detail.name for detail in GAME.info.details}


def test_api_describe_says_what_the_player_to_move_may_still_do(tmp_path: Path) -> None:
    """Each step of the turn (Étapes 1-3, MP-3) as `may`; the fields that apply to one phase are
    null in the others; every field is declared (`GameType.details`)."""
    keys: set[str] = set()

    def described(state: PotionsState) -> dict[str, Any]:
        details = GAME.describe(state)
        keys.update(details)
        return details

    fresh = new_state()
    assert described(fresh)["phase"] == "deal"
    assert described(fresh)["to_move"] is None and described(fresh)["may"] == []
    state = two_solutions({"hints": True})
    details = described(state)
    assert (details["phase"], details["may"]) == ("capture", ["capture", "end_turn"])
    assert details["captures"] == [c.id for c in TWO_SOLUTIONS]  # the hints option shows them
    assert described(two_solutions())["captures"] is None  # without hints, the table keeps quiet
    state.apply(EndTurn())  # MP-3: flagged
    details = described(state)
    assert (details["phase"], details["may"]) == ("forgotten", ["capture"])
    assert details["forgotten"] == [c.id for c in TWO_SOLUTIONS] and details["captures"] is None
    state.apply(TWO_SOLUTIONS[0])
    details = described(state)
    assert details["rewarded"] == "player_2" and details["to_move"] == "player_2"
    assert details["hands"] == {"player_1": 4, "player_2": 5}
    assert details["forgotten"] is None
    place(state, "9x10")
    assert described(state)["may"] == ["end_turn"]  # the hints say no capture is open
    quiet = two_solutions()
    for action in (EndTurn(), TWO_SOLUTIONS[0]):
        quiet.apply(action)
    place(quiet, "9x10")
    assert described(quiet)["may"] == ["capture", "end_turn"]  # without: the player's to find
    over = five_captures(tmp_path)
    details = described(over)
    assert (details["phase"], details["to_move"], details["may"]) == ("over", None, [])
    assert details["ended_by"] == "captures" and details["scores"]["player_1"] == 5
    assert keys == describe_keys()


# --- PotionsHidden: the real hands for bots ------------------------------------------------------


def dealt(seed: int, options: dict[str, Any] | None = None) -> tuple[PotionsState, PotionsHidden]:
    """A game set up from real cards: the Hidden turns up the face-up cards and deals."""
    rng = random.Random(seed)
    state = new_state(options)
    hidden = GAME.deal(state, rng)
    while state.is_chance_node():
        random_step(state, rng, hidden)
    return state, hidden


def test_hidden_outcome_at_set_up_is_the_real_top_card_then_the_real_deal() -> None:
    """Set-up "Mélangez ... posez 1 carte ... Distribuez ensuite 4 cartes": the shuffled pile
    decides the face-up cards, then the hands."""
    state = new_state()
    hidden = GAME.deal(state, random.Random(3))
    order = list(hidden.pile)
    assert sorted(order) == sorted(state.cards)
    for player in (P1, P2):
        outcome = hidden.outcome(state)
        assert outcome == Deal(player, order[player])
        state.apply(outcome)
        hidden.observe(outcome, state)
    assert hidden.hands[P1] | hidden.hands[P2] == set(order[2:10])
    assert list(hidden.pile) == order[10:]
    assert hidden.outcome(state) is None  # no chance after the set-up
    assert not hidden_problems(state, hidden)


def test_hidden_hands_match_the_counts_and_choices_place_only_real_cards() -> None:
    """The table sees counts; the bot plays from its real hand (Étape 1 "une des cartes de sa
    main")."""
    state, hidden = dealt(11)
    assert [len(h) for h in hidden.hands] == state.hands == [4, 4]
    choices = hidden.choices(state)
    assert {a.card for a in choices if isinstance(a, Place)} == hidden.hands[state.to_move]
    assert {a.slot for a in choices if isinstance(a, Place)} == set(state.empty_slots(P1))
    assert len(choices) == 4 * 19
    assert all(state.is_legal(a) for a in choices)
    action = choices[0]
    state.apply(action)
    hidden.observe(action, state)
    assert hidden.choices(state) == state.legal_actions()  # step 2 is public


def random_deck(tmp_path: Path) -> str:
    """24 cards of small numbers: captures are common and the pile runs out, so spent pairs
    are drawn again (the built-in decks mostly end by five captures first)."""
    monsters = [2, 3, 5, 7, 6, 8, 11, 12, 13, 9, 4, 16]
    cards = [(f"k{n}", monsters[n % 12], 1 + n % 4, "green") for n in range(24)]
    return write_deck(tmp_path / "small.toml", cards)


def test_hidden_the_real_cards_fit_the_table_through_random_games(tmp_path: Path) -> None:
    """After every random step the real hands and the real pile hold exactly the hidden cards
    and the spent pairs, in the pile's order; every move of a bot is legal."""
    small = random_deck(tmp_path)
    pairs_drawn = rewards = 0
    endings: set[str] = set()
    for seed in range(60):
        options = (
            {"deck": small} if seed % 2 else {"colours": ("green", "purple", "both")[seed % 3]}
        )
        state, hidden = dealt(seed, options)
        rng = random.Random(1000 + seed)
        while not state.is_terminal():
            under = len(state.pile_under)
            action = random_step(state, rng, hidden)
            pairs_drawn += len(state.pile_under) < under
            rewards += state.rewarded is not None and isinstance(action, Capture)
            spent = {card for pair in state.pile_under for card in pair}
            assert hidden.hands[P1] | hidden.hands[P2] | set(hidden.pile) == state.hidden | spent
            assert not hidden_problems(state, hidden), (seed, action)
            assert not consistency_problems(state), (seed, action)
        endings.add(state.ended_by)
    assert pairs_drawn > 0 and rewards > 0  # the random games did reach both cases
    assert endings == {"captures", "pile"}


def test_hidden_dealt_from_a_game_under_way_fits_it(tmp_path: Path) -> None:
    """`GAME.deal` of a mid-game state (bots joining, simulations from the table): hands of the
    counted sizes, the pile's unseen part, then the spent pairs."""
    state, hidden = dealt(5, {"deck": random_deck(tmp_path)})
    rng = random.Random(5)
    while not state.pile_under or state.pile_unseen > 2:
        assert not state.is_terminal()
        random_step(state, rng, hidden)
    fresh = GAME.deal(state, random.Random(99))
    assert not hidden_problems(state, fresh)
    while not state.is_terminal():
        random_step(state, rng, fresh)
        assert not hidden_problems(state, fresh)
