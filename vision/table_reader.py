"""What lies in each camera spot of the table, read from one frame, as the game's tokens.

The calibration maps the profile's regions (table millimetres) to pixels. Two kinds of spot:

- **card slots**: a card face up is its id ("7x9", "T3", a power), a card face down is "down"
  (every back carries the same markers), an empty slot is left out;
- **dice cells**: the top die of each cell, "colour:face", read with the learned model of that
  kind of dice (a camera sees only the top die of a column);
- **map cells**: the top piece of a printed map kit on each cell (vision/map_reader.py).

Which of the two a game's board holds is the game's to say (`BoardContents`, built from its
declaration by the daemon).

A spot read below the confidence floor is *unsure*: the frame names it, and the camera skips
the frame, as it would a blurred one, so a doubtful reading never reaches the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import ArrayLike

from hardware.profile import Region
from vision.board_camera import Board
from vision.calibration import Calibration
from vision.card_deck import Card
from vision.card_reader import CardReader, SeenCard, place_in_slots
from vision.image_files import Image
from vision.map_kit import Piece

if TYPE_CHECKING:
    from vision.icon_dice import IconDie, IconModel
    from vision.icon_model import DiceKind

DOWN = "down"
"""The token of a card lying face down, in every card game."""
# A card whose two markers name two cards scores 0.3 (vision/card_reader.py): never taken.
CARD_MIN_CONFIDENCE = 0.5


class BoardReaderError(Exception):
    """The board of this game cannot be read from the camera: no reader, or no model."""


class NoModelError(BoardReaderError):
    """No model of this kind of dice has been learned yet."""


@dataclass(frozen=True)
class BoardReading:
    board: Board
    """Spot -> token of what the frame shows there; empty spots left out."""
    unsure: tuple[str, ...] = ()
    """Spots read, but below the confidence floor: their tokens are not in `board`."""
    problems: tuple[str, ...] = ()
    """What made spots unsure, a sentence each naming them: a map whose pieces do not fit."""
    hidden: tuple[str, ...] = ()
    """Unsure spots where a piece lies whose marker there is hidden (a pawn, a hand), so that
    what may lie on it is unseen: a map's pieces, not a problem."""

    @property
    def doubtful(self) -> tuple[str, ...]:
        """The unsure spots but for those merely hidden: what is wrong with the frame."""
        return tuple(spot for spot in self.unsure if spot not in self.hidden)


class BoardReader(Protocol):
    def read(self, image: Image) -> BoardReading: ...


class CellReader(Protocol):
    """Reads the top die of each cell polygon (pixels): `vision.icon_dice.IconReader`."""

    def read_cells(
        self, image: Image, cells: Mapping[str, ArrayLike]
    ) -> Mapping[str, IconDie | None]: ...


@dataclass(frozen=True)
class BoardContents:
    """What lies in a game's camera spots: its deck's cards, the pieces of its map kit, or icon
    dice of one kind."""

    cards: Sequence[Card] = ()
    dice: DiceKind | None = None
    kit: Sequence[Piece] = ()


def polygons(calibration: Calibration, regions: Mapping[str, Region]) -> dict[str, np.ndarray]:
    return {spot: calibration.region_polygon(region) for spot, region in regions.items()}


def check_size(image: Image, calibration: Calibration) -> None:
    """A frame of another size than the calibration's would put every region in the wrong place."""
    height, width = image.shape[:2]
    if (width, height) != calibration.image_size:
        w, h = calibration.image_size
        raise ValueError(
            f"a {width} x {height} frame, but the calibration is for {w} x {h}: "
            "run `smartboard calibrate` again at the camera's size"
        )


class CardSlots:
    """The card slots of a card game: the cards of its deck, each placed in its slot."""

    def __init__(
        self, cards: Sequence[Card], calibration: Calibration, regions: Mapping[str, Region]
    ) -> None:
        self.calibration = calibration
        self.regions = dict(regions)
        self.reader = CardReader(cards)

    def read(self, image: Image) -> BoardReading:
        check_size(image, self.calibration)
        seen = place_in_slots(self.reader.read(image), self.calibration, self.regions)
        shown: dict[str, SeenCard] = {}
        for card in seen:
            if card.slot is None:
                continue
            # Two cards in a slot: the one on top hides the other's markers, so it reads surer.
            other = shown.get(card.slot)
            if other is None or (card.markers, card.confidence) > (other.markers, other.confidence):
                shown[card.slot] = card
        board = {}
        unsure = []
        for slot, card in sorted(shown.items()):
            if card.confidence < CARD_MIN_CONFIDENCE:
                unsure.append(slot)
            else:
                board[slot] = DOWN if card.id is None else card.id
        return BoardReading(board, tuple(unsure))


class DiceCells:
    """Cells holding columns of dice: the top die of each, read by a learned model."""

    def __init__(
        self,
        reader: CellReader,
        calibration: Calibration,
        regions: Mapping[str, Region],
        min_confidence: float,
    ) -> None:
        self.reader = reader
        self.calibration = calibration
        self.cells = polygons(calibration, regions)
        self.min_confidence = min_confidence

    def read(self, image: Image) -> BoardReading:
        check_size(image, self.calibration)
        board = {}
        unsure = []
        for cell, die in sorted(self.reader.read_cells(image, self.cells).items()):
            if die is None:
                continue
            if die.colour is None or die.confidence < self.min_confidence:
                unsure.append(cell)
            else:
                board[cell] = f"{die.colour}:{die.face}"
        return BoardReading(board, tuple(unsure))


def learn_command(kind: str) -> str:
    return f"`smartboard dice learn --kind {kind} PHOTOS...`"


def learned_model(models: Path, dice: DiceKind) -> IconModel:
    """The model of the user's `dice` in the folder `models`, as `dice learn` saved it."""
    from vision.icon_dice import IconModel, IconModelError, model_path

    kind = dice.kind
    path = model_path(models, kind)
    if not path.exists():
        raise NoModelError(
            f"no model of your {kind} dice at {path}: learn it with {learn_command(kind)}"
        )
    try:
        return IconModel.load(path, dice)
    except IconModelError as error:
        raise BoardReaderError(f"{error}; learn it again with {learn_command(kind)}") from error


def board_reader(
    contents: BoardContents,
    calibration: Calibration,
    regions: Mapping[str, Region],
    models: Path,
    min_confidence: float,
) -> BoardReader:
    """The reader of a board's camera spots; `models` is the folder of the learned dice models."""
    if contents.cards:
        return CardSlots(contents.cards, calibration, regions)
    if contents.kit:
        from vision.map_reader import MapCells

        return MapCells(contents.kit, calibration, regions)
    if contents.dice is None:
        raise BoardReaderError("the camera cannot read these pieces yet")
    from vision.icon_dice import IconReader

    model = learned_model(models, contents.dice)
    return DiceCells(IconReader(model), calibration, regions, min_confidence)
