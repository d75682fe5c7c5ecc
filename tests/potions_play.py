"""Helpers shared by the Multipli Potion tests: scripted deals and turns, cards found by their
numbers, deck files, snapshots, and the invariants of the public state and of the real hands.

The built-in decks name a card "TxM": table T and multiplier M, so monster T*M and potion M
("7x9": monster 63, potion 9). Seats: 0 player_1 (spots s1.*), 1 player_2 (s2.*).

The state is public (DESIGN.md §3): any card that could be in the mover's hand as far as the
table can tell (`state.may_hold`) may be placed, so a scripted game chooses exactly which cards
reach the play zones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from controller.rules.api import Action, GameState
from controller.rules.potions import (
    GAME,
    HAND,
    WINNING_CAPTURES,
    ZONE_SLOTS,
    Capture,
    Deal,
    EndTurn,
    Phase,
    Place,
    PotionsHidden,
    PotionsState,
)

P1, P2 = 0, 1

DeckCard = tuple[str, int, int, str]  # id, monster, potion, colour


def new_state(options: Mapping[str, Any] | None = None) -> PotionsState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, PotionsState)
    return state


def play(state: GameState, actions: Iterable[Action]) -> None:
    for action in actions:
        state.apply(action)


def set_up(p1: str, p2: str, options: Mapping[str, Any] | None = None) -> PotionsState:
    """A game just set up: `p1` and `p2` face up in slot 1 of each zone, 4 cards in each hand."""
    state = new_state(options)
    play(state, [Deal(P1, p1), Deal(P2, p2)])
    return state


def cards_with(
    state: PotionsState,
    *,
    monster: int | None = None,
    potion: int | None = None,
    among: Iterable[str] | None = None,
) -> list[str]:
    """The ids, sorted, of the cards (of the deck, or `among`) with this monster and potion."""
    return sorted(
        card
        for card in (state.cards if among is None else among)
        if (monster is None or state.cards[card].monster == monster)
        and (potion is None or state.cards[card].potion == potion)
    )


def card_with(
    state: PotionsState,
    *,
    monster: int | None = None,
    potion: int | None = None,
    among: Iterable[str] | None = None,
) -> str:
    """The first card by id with this monster and potion; ValueError if there is none."""
    found = cards_with(state, monster=monster, potion=potion, among=among)
    if not found:
        raise ValueError(f"no card with monster {monster} and potion {potion}")
    return found[0]


def capture_of(monster: str, potion_a: str, potion_b: str) -> Capture:
    """The capture as the engine lists it: the two potion cards in id order."""
    a, b = sorted((potion_a, potion_b))
    return Capture(monster, a, b)


def place(state: PotionsState, card: str, slot: int | None = None) -> Place:
    """Step 1: `card` into `slot`, by default the mover's first empty slot."""
    action = Place(card, slot if slot is not None else state.empty_slots(state.to_move)[0])
    state.apply(action)
    return action


def turn(state: PotionsState, card: str, then: Action | None = None) -> None:
    """A whole turn: place `card`, then `then` (a capture), by default "end my turn"."""
    place(state, card)
    state.apply(then if then is not None else EndTurn())


def quiet_turns(state: PotionsState, cards: Iterable[str]) -> None:
    """Turns that place each card in turn and capture nothing, none being possible."""
    for card in cards:
        place(state, card)
        assert state.captures(state.to_move) == [], f"{card} opens a capture"
        state.apply(EndTurn())


def spot_of(state: PotionsState, card: str) -> str:
    """The spot where `card` lies on the table."""
    spots = [spot for spot, token in GAME.layout(state).items() if token == card]
    assert len(spots) == 1, f"{card} lies at {spots}"
    return spots[0]


def write_deck(path: Path, cards: Iterable[DeckCard]) -> str:
    """A deck file (MP-1), for the `deck` option: its path."""
    entries = [
        f'[[cards]]\nid = "{i}"\nmonster = {m}\npotion = {p}\ncolour = "{c}"\n'
        for i, m, p, c in cards
    ]
    path.write_text('name = "test deck"\n\n' + "\n".join(entries), encoding="utf-8")
    return str(path)


def numbered(
    prefix: str, count: int, monster: int, potion: int, colour: str = "green"
) -> list[DeckCard]:
    """`count` cards alike but for their ids: prefix1, prefix2, ..."""
    return [(f"{prefix}{k}", monster, potion, colour) for k in range(1, count + 1)]


def full_zones(tmp_path: Path, options: dict[str, Any] | None = None) -> PotionsState:
    """Both zones hold 20 cards, every slot the table has, and player_1 is to place: fillers
    c (monster 2, potion 3: 3 x 3 = 9, 3 x 1 = 3, never 2 or 5); player_2's m (monster 21,
    potion 1); player_1 still holds a (monster 5, potion 7), whose 7 x 3 = 21 captures m."""
    cards: list[DeckCard] = [
        *numbered("c", 50, monster=2, potion=3),
        ("a", 5, 7, "green"),
        ("m", 21, 1, "green"),
    ]
    deck = write_deck(tmp_path / "full.toml", cards)
    state = set_up("c1", "m", {"deck": deck, **(options or {})})
    quiet_turns(state, [f"c{k}" for k in range(2, 2 * ZONE_SLOTS)])
    assert [len(state.zone_cards(p)) for p in (P1, P2)] == [ZONE_SLOTS, ZONE_SLOTS]
    return state


def snapshot(state: PotionsState) -> dict[str, Any]:
    """Everything the rules keep, for comparing states."""
    facts = dict(GAME.describe(state))
    facts["layout"] = GAME.layout(state)
    facts["lights"] = GAME.lights(state)
    facts["fields"] = (
        [list(zone) for zone in state.zones],
        [list(t) for t in state.trophies],
        list(state.hands),
        sorted(state.hidden),
        [(sorted(lot.cards), list(lot.held), lot.in_pile) for lot in state.lots()],
        state.pile_unseen,
        list(state.pile_under),
        sorted(state.seen),
        state.phase,
        state.to_move,
        state.rewarded,
        state.ended_by,
    )
    facts["player"] = state.current_player()
    facts["history"] = state.history()
    facts["legal"] = [a.id for a in state.legal_actions()]
    return facts


def consistency_problems(state: PotionsState) -> list[str]:
    """What breaks the invariants of the public state; cheap enough to check every action."""
    problems: list[str] = []
    zoned = [card for p in (P1, P2) for card in state.zone_cards(p)]
    kept = [card for t in state.trophies for card in t]
    spent = [card for pair in state.pile_under for card in pair]
    places = [*zoned, *kept, *spent, *state.hidden]
    if sorted(places) != sorted(state.cards):
        problems.append("a card in no place or in two")
    if len(state.hidden) != state.pile_unseen + sum(state.hands):
        problems.append(
            f"{len(state.hidden)} hidden cards for a pile of {state.pile_unseen} unseen "
            f"and hands {state.hands}"
        )
    if not state.seen.issuperset([*zoned, *kept, *spent]):
        problems.append("a card face up on the table but never seen")
    if state.unseen.cards & state.seen:
        problems.append("a card both face up once and never seen")
    for lot in state.lots():
        if len(lot.cards) != sum(lot.held) + lot.in_pile or min(*lot.held, lot.in_pile) < 0:
            problems.append(f"a lot of {sorted(lot.cards)} held {lot.held}, {lot.in_pile} in pile")
    if any(lot.in_pile for lot in state.reached) and state.unseen.in_pile:
        problems.append("a reached spent pair in the pile under never-seen cards")
    if any(lot.in_pile for lot in state.reached[:-1]):
        problems.append("a spent pair still in the pile under one reached after it")
    if any(not lot.cards for lot in state.reached):
        problems.append("an empty spent pair kept")
    for p in (P1, P2):
        if sum(lot.held[p] for lot in state.lots()) != state.hands[p]:
            problems.append(f"hand {p} of {state.hands[p]} cards, its lots say otherwise")
    if any(
        len(zone) < ZONE_SLOTS or (len(zone) > ZONE_SLOTS and zone[-1] is None)
        for zone in state.zones
    ):
        problems.append("a zone shorter than the table's 20 slots, or ending in an empty slot")
    if any(len(t) > WINNING_CAPTURES for t in state.trophies):
        problems.append(f"more than {WINNING_CAPTURES} trophies: {state.trophies}")
    if state.phase is not Phase.DEAL and state.phase is not Phase.OVER:
        # A hand holds 4, or 5 with the MP-3 reward, before placing; one less after.
        placed = state.phase is not Phase.PLACE
        held = state.hands[state.to_move] + placed
        if held not in (HAND, HAND + 1) or state.hands[1 - state.to_move] not in (HAND, HAND + 1):
            problems.append(f"hands {state.hands} in phase {state.phase}")
    return problems


def hidden_problems(state: PotionsState, hidden: PotionsHidden) -> list[str]:
    """Where the real hands and pile disagree with the table: hands of the counted sizes, the
    hidden cards in the hands or the pile's unseen part, and the spent pairs below them."""
    problems: list[str] = []
    hands = hidden.hands
    if [len(hand) for hand in hands] != state.hands:
        problems.append(
            f"real hands of {[len(h) for h in hands]} cards, the table counts {state.hands}"
        )
    if hands[P1] & hands[P2]:
        problems.append(f"cards in both hands: {sorted(hands[P1] & hands[P2])}")
    pile = list(hidden.pile)
    if len(pile) != state.pile_size:
        problems.append(f"a real pile of {len(pile)} cards, the table counts {state.pile_size}")
    unseen = pile[: state.pile_unseen]
    if hands[P1] | hands[P2] | set(unseen) != state.hidden:
        problems.append("the real hands and unseen pile are not the hidden cards")
    # Each lot's cards where the table counts them: so many in each hand, the rest in the pile.
    top = list(unseen)
    for lot in state.lots():
        for p, hand in enumerate(hands):
            if len(hand & lot.cards) != lot.held[p]:
                problems.append(f"hand {p} holds {sorted(hand & lot.cards)} of {sorted(lot.cards)}")
        if set(top[: lot.in_pile]) != lot.cards - hands[P1] - hands[P2]:
            problems.append(f"the pile's top {top[: lot.in_pile]}, not the rest of {lot.cards}")
        top = top[lot.in_pile :]
    below = pile[state.pile_unseen :]
    pairs = [set(below[k : k + 2]) for k in range(0, len(below), 2)]
    if pairs != [set(pair) for pair in state.pile_under]:
        problems.append(f"the pile ends {below}, the spent pairs are {list(state.pile_under)}")
    return problems


def alert_spots(state: GameState) -> frozenset[str]:
    """The spots that blink for the players' attention (MP-3's forgotten capture)."""
    alert = GAME.alert(state)
    return alert.spots if alert is not None else frozenset()
