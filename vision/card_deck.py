"""The printable cards of each card game, and the ArUco markers that tell them apart.

A card is 63 x 88 mm (the slots of the board profiles are 64 x 89 mm). Each face carries two
markers of its card, one in its top-left corner and one turned half round in its bottom-right
corner, so a finger over one end still leaves the card readable; the two have different marker
ids, so a single marker gives the card's orientation as well as its id. Every back carries the
same pair, the back's: the table sees where a card lies face down, not which card it is.

Marker ids are stable: a card's *index*, which the registry of games allocates by deck
(controller/rules/__init__.py), gives its top marker `2 * index` and its bottom marker
`2 * index + 1`. Index 0 is the back, shared by every card of every game. The markers are 5x5
ArUco markers, which the table's 4x4 markers (vision/calibration.py, DICT_4X4_50) can never be
read as, nor the reverse. OpenCV's 5x5 dictionaries of 50, 100, 250 and 1000 markers begin with
the same markers, so the reader takes the smallest that holds every card's markers: the fewer
codes it knows, the fewer wrong ids it can read, and printed cards stay valid as decks are added.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2

# 5x5 dictionaries by size; each begins with the markers of the smaller ones.
DICTIONARIES = (
    (50, cv2.aruco.DICT_5X5_50),
    (100, cv2.aruco.DICT_5X5_100),
    (250, cv2.aruco.DICT_5X5_250),
    (1000, cv2.aruco.DICT_5X5_1000),
)
CARD_MM = (63.0, 88.0)  # width, height: a poker card
MARKER_MM = 20.0
MARKER_INSET_MM = 5.0  # from the card's edges to its markers (white paper around each)
BACK_INDEX = 0

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


class CardDeckError(ValueError):
    """Cards whose markers cannot be told apart: two on one index, or more than fit."""


@dataclass(frozen=True)
class Card:
    """A printable card: `lines` are the face's text (the first printed large if `headline`),
    `colour` its border (BGR), `index` the number its markers carry."""

    id: str
    game: str
    title: str
    lines: tuple[str, ...]
    colour: tuple[int, int, int]
    index: int
    copies: int = 1
    headline: bool = False
    data: dict[str, object] = field(default_factory=dict, compare=False)

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


def marker_table(cards: Iterable[Card]) -> dict[int, tuple[str | None, int]]:
    """Every marker id of `cards` and of the back -> (card id, None for the back; 0 the top
    marker, 1 the bottom)."""
    table: dict[int, tuple[str | None, int]] = {}
    top, bottom = marker_ids(BACK_INDEX)
    table[top], table[bottom] = (None, 0), (None, 1)
    for card in cards:
        top, bottom = marker_ids(card.index)
        if top in table and table[top][0] != card.id:
            owner = table[top][0] or "the back"
            raise CardDeckError(f"cards {card.id!r} and {owner!r} both have index {card.index}")
        table[top], table[bottom] = (card.id, 0), (card.id, 1)
    return table


def dictionary(markers: Iterable[int]) -> int:
    """The smallest 5x5 dictionary holding every marker id of `markers` (see the docstring)."""
    highest = max(markers, default=0)
    for size, name in DICTIONARIES:
        if highest < size:
            return name
    largest = DICTIONARIES[-1][0]
    raise CardDeckError(
        f"the cards need marker {highest}, and the largest 5x5 dictionary has {largest} "
        f"markers: at most {largest // 2 - 1} cards"
    )
