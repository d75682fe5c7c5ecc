"""The simulated table shows a person their own cards (`Hidden.known_to`): a real table's
players hold theirs, but at the simulated one nobody could tell which face-down card was their
Mightymania Leader, or plan a Multipli Potion capture from a hand they never saw (the second
walk). The table's own seats' cards are never shown."""

from __future__ import annotations

import random
from pathlib import Path

from mightymania_play import P1, P2, started
from playwright.sync_api import Page, expect
from web_daemon import dashboard, fetch

from controller.hands import SimHands
from controller.rules import POTIONS
from controller.rules.mightymania import MightymaniaHidden
from controller.rules.potions import PotionsHidden


def test_a_potions_seat_knows_its_hand_and_nothing_else() -> None:
    state = POTIONS.new_initial_state()
    hands = SimHands(POTIONS, state, random.Random(4))
    while state.is_chance_node():  # the deal, as the hands turn it up
        outcome = hands.outcome(state)
        state.apply(outcome if outcome is not None else state.chance_outcomes()[0][0])
    hidden = hands.follow(state)
    assert isinstance(hidden, PotionsHidden)
    shown = hands.known_to(state, [0])
    assert list(shown) == ["player_1"]  # the other seat's hand is not asked for, nor given
    assert shown["player_1"] == [["", card] for card in sorted(hidden.hands[0])]
    assert len(shown["player_1"]) == 4 and not set(hidden.hands[0]) & set(hidden.hands[1])


def test_a_mightymania_seat_knows_where_its_leader_lies() -> None:
    """Rule 1 and MM-1: each squad of four, one the Leader, laid face down where its player
    chose; the player knows each card's place, the other does not."""
    state = started()
    hidden = MightymaniaHidden(state, random.Random(2))
    for seat, row in ((P1, "s1"), (P2, "s2")):
        known = hidden.known_to(seat)
        spots = [spot for spot, _ in known]
        assert spots == [f"{row}.c{i}" for i in range(1, 5)]
        cards = {card for _, card in known}
        assert cards == set(hidden.down[seat].values()) and len(cards) == 4
        assert state.data.leaders[seat] in cards
    assert not {c for _, c in hidden.known_to(P1)} & {c for _, c in hidden.known_to(P2)}


def test_the_page_shows_a_persons_cards_not_the_tables(page: Page, tmp_path: Path) -> None:
    table_seat = ("--computer", "2:easy", "--computer-dice", "virtual")
    with dashboard(tmp_path, "--game", "mightymania", "--seed", "1", *table_seat) as table:
        page.goto(table.page)
        box = page.locator("#secrets")
        expect(box.locator("h2")).to_have_text("Player 1\u2019s cards, unseen by the others")
        expect(box.locator("li")).to_have_count(4)  # the squad, all in hand before the set-up
        expect(box.locator("li .where").first).to_have_text("in hand")
        # Where the squad's cards go is the person's to choose (rule 1): "lay it out for me"
        # is not offered for them, only once the table's squad is next.
        expect(page.locator("#lay-out-box")).to_be_hidden()
        for i in range(1, 5):
            page.locator(f'[data-spot="s1.c{i}"]').click()
            page.locator("#chooser-tokens button[data-secret]").first.click()
            expect(box.locator("li .where").nth(i - 1)).to_have_text(f"position {i}")
        expect(page.locator("#lay-out-box")).to_be_visible()
        secrets = fetch(f"{table.url}api/snapshot", headers=table.key).json()["secrets"]
        assert list(secrets) == ["player_1"]  # the table's seat is never shown
        page.locator("#lang").select_option("fr")
        expect(box.locator("h2")).to_have_text(
            "Les cartes du Joueur 1, que les autres ne voient pas"
        )
