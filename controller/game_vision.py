"""What the camera's readers and the printable sheets need of a game, from its declaration.

Vision knows no game: the daemon and the CLI hand it plain values made here, the game's cards
with the marker indices the registry allocated, and what its board's camera spots hold.
"""

from __future__ import annotations

import functools

import cv2

from controller.rules import GAMES, card_blocks, card_games, get_game
from controller.rules.api import Game
from controller.rules.game_type import CARDS, KIT, CardDeck
from vision.card_deck import Card, CardDeckError
from vision.card_sheet import card_image
from vision.map_kit import KitError, Piece, number_markers
from vision.table_reader import BoardContents


def deck(game: Game) -> tuple[Card, ...]:
    """The printable cards of `game`, each with its marker index; CardDeckError if none."""
    if game.info.deck is None:
        raise CardDeckError(
            f"{game.name} has no cards: the card games are {', '.join(card_games())}"
        )
    return _deck(game.name, game.info.deck, card_blocks()[game.name])


@functools.cache
def _deck(name: str, printed: CardDeck, first: int) -> tuple[Card, ...]:
    cards = printed.cards()
    places = [card.index for card in cards]
    if len(set(places)) != len(places) or not all(0 <= i < printed.size for i in places):
        raise CardDeckError(
            f"the cards of {name} must each have their own place 0-{printed.size - 1} in the "
            f"deck's block, not {sorted(places)}"
        )
    return tuple(
        Card(
            card.id,
            name,
            card.title,
            card.lines,
            _bgr(card.border),
            first + card.index,
            card.copies,
            card.headline,
            dict(card.data),
        )
        for card in cards
    )


def all_cards() -> tuple[Card, ...]:
    """The cards of every game, for a reader that must tell any card from another."""
    return tuple(card for name in card_games() for card in deck(get_game(name)))


CARD_DPI = 90
"""The page's card pictures: 223 x 312 px, sharp on a phone's screen at the size it shows them."""


@functools.lru_cache(maxsize=512)
def card_png(game: str, card: str | None) -> bytes | None:
    """A card side as printed, as a PNG: `card` of `game`'s deck, None for the back (every card
    game's); None if the game prints no such card. Made once a process (some 10 ms each)."""
    if card is None:
        face = None
    else:
        if game not in card_games():
            return None
        face = next((c for c in deck(GAMES[game]) if c.id == card), None)
        if face is None:
            return None
    ok, png = cv2.imencode(".png", card_image(face, CARD_DPI))
    return png.tobytes() if ok else None


def board_contents(game: Game) -> BoardContents | None:
    """What the camera reads in `game`'s camera spots, or None if it cannot read them yet."""
    board = game.info.board
    if not board:
        return None
    if board == CARDS:
        return BoardContents(cards=deck(game))
    if board == KIT:
        return BoardContents(kit=map_kit(game))
    (dice,) = (d for d in game.info.icon_dice if d.kind == board)
    return BoardContents(dice=dice)


def map_kit(game: Game) -> tuple[Piece, ...]:
    """The printed pieces of `game`'s map, each with its first marker id; KitError if none."""
    if not game.info.kit:
        kits = ", ".join(name for name, g in GAMES.items() if g.info.kit)
        raise KitError(f"{game.name} has no map kit: the games with one are {kits}")
    return _kit(game.name)


@functools.cache
def _kit(name: str) -> tuple[Piece, ...]:
    pieces = []
    first = 0
    for piece in GAMES[name].info.kit:
        pieces.append(
            Piece(
                piece.token,
                piece.cells,
                _bgr(piece.colour),
                piece.label,
                piece.copies,
                piece.layer,
                first,
                piece.title,
            )
        )
        first += piece.cells[0] * piece.cells[1]
    number_markers(pieces)  # KitError if the kit outgrows its dictionary
    return tuple(pieces)


def _bgr(colour: str) -> tuple[int, int, int]:
    """The hex colour "#rrggbb" as OpenCV's (blue, green, red)."""
    return int(colour[5:7], 16), int(colour[3:5], 16), int(colour[1:3], 16)
