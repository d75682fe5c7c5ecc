"""The printable cards of each card game, and the ArUco markers that tell them apart.

A card is 63 x 88 mm (the slots of the board profiles are 64 x 89 mm). Each face carries two
markers of its card, one in its top-left corner and one turned half round in its bottom-right
corner, so a finger over one end still leaves the card readable; the two have different marker
ids, so a single marker gives the card's orientation as well as its id. Every back carries the
same pair, the back's: the table sees where a card lies face down, not which card it is.

Marker ids are stable, whatever the deck file: a card's *index* (below) gives its top marker
`2 * index` and its bottom marker `2 * index + 1`, in `DICTIONARY`, a 5x5 dictionary that the
table's 4x4 markers (vision/calibration.py, DICT_4X4_50) can never be read as, nor the reverse.

- index 0: the back, shared by every card of every game;
- 1-80: Multipli Potion "TxM" (table T 2-9, multiplier M 1-10), `1 + (T - 2) * 10 + (M - 1)`;
  the 64-card edition is a part of the 80-card pack, with the same ids;
- 81-88: Mightymania's squad cards T1-T4 (Titans) and R1-R4 (Rogues); 89-93 its power cards
  (one set per player; the camera reads the power, the slot tells whose it is);
- 94-102: Capture the Akuma's civilians "civilian-1".."civilian-9", 103-111 their akumatized
  states "akumatized-1".."akumatized-9" (AK-10: red-bordered civilian cards, black-bordered
  akumatized cards; AK-1: one civilian per square 1-9; AK-5: a civilian's akumatized card is
  laid over it).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import cv2

from controller.rules.mightymania import builtin_decks, deck_path, load_cycle, load_deck
from controller.rules.potions import Card as PotionCard
from controller.rules.potions import load_deck as load_potions_deck

DICTIONARY = cv2.aruco.DICT_5X5_250
CARD_MM = (63.0, 88.0)  # width, height: a poker card
MARKER_MM = 20.0
MARKER_INSET_MM = 5.0  # from the card's edges to its markers (white paper around each)
BACK_INDEX = 0
GAMES = ("akuma", "mightymania", "potions")

# The card's two markers, as their corners in card millimetres, in the order ArUco gives
# corners (the marker's own top-left, top-right, bottom-right, bottom-left).
_W, _H, _S, _I = CARD_MM[0], CARD_MM[1], MARKER_MM, MARKER_INSET_MM
MARKER_CORNERS_MM: tuple[tuple[tuple[float, float], ...], tuple[tuple[float, float], ...]] = (
    ((_I, _I), (_I + _S, _I), (_I + _S, _I + _S), (_I, _I + _S)),
    # Turned half round: its own top-left is the card's bottom-right.
    ((_W - _I, _H - _I), (_W - _I - _S, _H - _I),
     (_W - _I - _S, _H - _I - _S), (_W - _I, _H - _I - _S)),
)  # fmt: skip
CARD_CORNERS_MM = ((0.0, 0.0), (_W, 0.0), (_W, _H), (0.0, _H))

# Mightymania's built-in squad cards and power cycle, in a fixed order: their indices.
MIGHTYMANIA_SQUAD = ("T1", "T2", "T3", "T4", "R1", "R2", "R3", "R4")
MIGHTYMANIA_POWERS = ("brainwashing", "thermokinetic", "invisibility", "speed", "force")
AKUMA_SQUARES = tuple(range(1, 10))
# Names are data (AK-10); the rulebook names only Luka, akumatized as Silencer.
AKUMA_NAMES = {1: ("Luka", "Silencer")}
_POTION_ID = re.compile(r"([2-9])x(10|[1-9])")


class CardDeckError(ValueError):
    """A game without cards, or a card with no marker id."""


@dataclass(frozen=True)
class Card:
    """A printable card: `lines` are the face's text, `colour` its border (BGR)."""

    id: str
    game: str
    title: str
    lines: tuple[str, ...]
    colour: tuple[int, int, int]
    copies: int = 1
    data: dict[str, object] = field(default_factory=dict, compare=False)

    @property
    def index(self) -> int:
        return card_index(self.id)

    @property
    def markers(self) -> tuple[int, int]:
        return marker_ids(self.index)

    def to_json(self) -> dict[str, object]:
        top, bottom = self.markers
        return {
            "id": self.id,
            "game": self.game,
            "title": self.title,
            "lines": list(self.lines),
            "copies": self.copies,
            "markers": [top, bottom],
            **self.data,
        }


def marker_ids(index: int) -> tuple[int, int]:
    """The top and bottom marker ids of a card index."""
    return 2 * index, 2 * index + 1


def card_index(card_id: str) -> int:
    """The stable index of a card id (see the module's docstring)."""
    match = _POTION_ID.fullmatch(card_id)
    if match:
        return 1 + (int(match[1]) - 2) * 10 + int(match[2]) - 1
    if card_id in MIGHTYMANIA_SQUAD:
        return 81 + MIGHTYMANIA_SQUAD.index(card_id)
    if card_id in MIGHTYMANIA_POWERS:
        return 89 + MIGHTYMANIA_POWERS.index(card_id)
    for prefix, first in (("civilian-", 94), ("akumatized-", 103)):
        number = card_id.removeprefix(prefix)
        if number != card_id and number.isdigit() and int(number) in AKUMA_SQUARES:
            return first + int(number) - 1
    raise CardDeckError(f"card {card_id!r} has no marker: not a card of the built-in decks")


@functools.cache
def marker_table() -> dict[int, tuple[str | None, int]]:
    """Every card marker id -> (card id, None for the back; 0 top marker, 1 bottom)."""
    table: dict[int, tuple[str | None, int]] = {}
    for card_id in all_card_ids():
        top, bottom = marker_ids(card_index(card_id))
        table[top], table[bottom] = (card_id, 0), (card_id, 1)
    top, bottom = marker_ids(BACK_INDEX)
    table[top], table[bottom] = (None, 0), (None, 1)
    return table


def all_card_ids() -> list[str]:
    return [card.id for game in GAMES for card in deck(game)]


@functools.cache
def deck(game: str) -> tuple[Card, ...]:
    """The cards of a game, as printed: Multipli Potion's full pack (80), Mightymania's built-in
    squad decks and a set of power cards per player, Akuma's civilian and akumatized cards."""
    if game == "potions":
        return tuple(_potion(c.id, c.monster, c.potion, c.colour) for c in _potions())
    if game == "mightymania":
        return _mightymania()
    if game == "akuma":
        return _akuma()
    raise CardDeckError(f"no cards for game {game!r}: choose one of {', '.join(GAMES)}")


def _potions() -> tuple[PotionCard, ...]:
    return tuple(load_potions_deck("80", "both"))


GREEN, PURPLE, GREY = (60, 150, 40), (150, 50, 120), (90, 90, 90)


def _potion(card_id: str, monster: int, potion: int, colour: str) -> Card:
    card_index(card_id)  # every card must have its marker
    return Card(
        card_id,
        "potions",
        f"monster {monster}",
        (f"potion {potion}", f"{colour}: table of {monster // potion}"),
        GREEN if colour == "green" else PURPLE,
        data={"monster": monster, "potion": potion, "colour": colour},
    )


def _mightymania() -> tuple[Card, ...]:
    powers = load_cycle("")
    cards: list[Card] = []
    for name in builtin_decks():
        squad = load_deck(deck_path(name), powers)
        for c in squad.cards:
            card_index(c.id)
            values = tuple(f"{p[:5]} {c.powers[p]}" for p in powers)
            role = "LEADER" if c.leader else "squad"
            cards.append(
                Card(
                    c.id,
                    "mightymania",
                    c.name,
                    (f"{role} - {c.lives} {'life' if c.lives == 1 else 'lives'}", *values),
                    (40, 40, 170) if c.leader else (140, 90, 30),
                    data={
                        "name": c.name,
                        "deck": squad.name,
                        "lives": c.lives,
                        "leader": c.leader,
                        "powers": dict(c.powers),
                    },
                )
            )
    for power in powers:
        card_index(power)
        cards.append(
            Card(
                power,
                "mightymania",
                power,
                ("power card",),
                GREY,
                copies=2,  # one per player
                data={"power": power},
            )
        )
    return tuple(cards)


def _akuma() -> tuple[Card, ...]:
    cards: list[Card] = []
    for square in AKUMA_SQUARES:
        civilian, akumatized = AKUMA_NAMES.get(square, (f"Civilian {square}", f"Akuma {square}"))
        cards.append(
            Card(
                f"civilian-{square}",
                "akuma",
                civilian,
                (f"civilian {square}",),
                (30, 30, 210),  # AK-10: red border
                data={"square": square, "name": civilian, "kind": "civilian"},
            )
        )
        cards.append(
            Card(
                f"akumatized-{square}",
                "akuma",
                akumatized,
                (f"akumatized {square}", f"over {civilian}"),
                (0, 0, 0),  # AK-10: black border
                data={"square": square, "name": akumatized, "kind": "akumatized"},
            )
        )
    return tuple(cards)
