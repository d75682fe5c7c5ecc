"""Reading the table's camera spots from a frame (vision/table_reader.py): printed cards in the
slots of Multipli Potion and Mightymania seen through a camera's homography, located with the
calibration markers; Baron Voodoo's cells through the icon-dice reader."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np
import pytest
from numpy.typing import ArrayLike
from table_frames import calibrated, photograph, table_drawing

from controller.game_vision import board_contents, deck
from controller.rules import GAMES
from controller.rules.mightymania import GAME as MIGHTYMANIA
from controller.rules.potions import GAME as POTIONS
from controller.rules.voodoo import GAME as VOODOO
from hardware.profile import BoardProfile, builtin_profile_path, load_profile
from vision.calibration import Calibration
from vision.card_reader import place_in_slots
from vision.icon_dice import IconDie
from vision.table_reader import (
    DOWN,
    BoardContents,
    BoardReaderError,
    CardSlots,
    DiceCells,
    NoModelError,
    board_reader,
)


@functools.cache
def profile(game: str) -> BoardProfile:
    rules = {"potions": POTIONS, "mightymania": MIGHTYMANIA, "voodoo": VOODOO}[game]
    return load_profile(builtin_profile_path(game), rules.spots())


def expected(cards: Mapping[str, str | None]) -> dict[str, str]:
    return {slot: DOWN if card is None else card for slot, card in cards.items()}


POTIONS_CARDS = {"s1.z1": "7x9", "s2.z1": None, "s1.z12": "5x5", "s2.z14": "9x10", "s1.t3": "2x1"}
MIGHTYMANIA_CARDS = {"s1.c1": None, "s1.c2": "T1", "s2.c3": "R2", "s1.r2": "speed", "s2.r5": None}


@pytest.mark.parametrize(
    ("game", "cards", "seed"),
    [("potions", POTIONS_CARDS, 1), ("mightymania", MIGHTYMANIA_CARDS, 2)],
)
def test_cards_in_slots_read_as_the_games_tokens(
    game: str, cards: dict[str, str | None], seed: int
) -> None:
    frame = photograph(table_drawing(profile(game), cards), seed=seed)
    calibration = calibrated(frame, profile(game))
    contents = board_contents(GAMES[game])
    assert contents is not None
    reader = board_reader(contents, calibration, profile(game).camera_regions(), Path("-"), 0.8)
    reading = reader.read(frame)
    # Face up: the card's id (a power card's id is its power); face down: "down"; empty: absent.
    assert reading.board == expected(cards)
    assert reading.unsure == ()


def test_of_two_cards_in_a_slot_the_one_on_top_is_read() -> None:
    game = "mightymania"
    drawing = table_drawing(profile(game), {"s1.c2": "T1"})
    # T2 laid over T1, 30 mm lower: T1's bottom marker is hidden, its top one still shows.
    on_top = table_drawing(profile(game), {"s1.c2": "T2"})
    region = profile(game).camera_regions()["s1.c2"]
    shift = round(30 * 3.0)
    top, left = round((region.y + 70) * 3.0), round((region.x + 70) * 3.0)
    card = on_top[top : top + round(89 * 3.0), left : left + round(64 * 3.0)]
    drawing[top + shift : top + shift + card.shape[0], left : left + card.shape[1]] = card
    frame = photograph(drawing, seed=3)
    reader = CardSlots(
        deck(GAMES[game]), calibrated(frame, profile(game)), profile(game).camera_regions()
    )
    both = place_in_slots(reader.reader.read(frame), reader.calibration, reader.regions)
    assert sorted((c.id, c.slot, c.markers) for c in both) == [
        ("T1", "s1.c2", 1),
        ("T2", "s1.c2", 2),
    ]
    assert reader.read(frame).board == {"s1.c2": "T2"}


def test_a_card_whose_markers_disagree_is_unsure_not_read() -> None:
    game = "potions"
    drawing = table_drawing(profile(game), {"s1.z3": "4x6"})
    other = table_drawing(profile(game), {"s1.z3": "8x3"})
    region = profile(game).camera_regions()["s1.z3"]
    # The card's bottom half from another card: its two markers name two cards.
    middle = round((region.y + 70 + 45) * 3.0)
    left, right = round((region.x + 70) * 3.0), round((region.x + region.w + 70) * 3.0)
    drawing[middle : middle + 200, left:right] = other[middle : middle + 200, left:right]
    frame = photograph(drawing, seed=4)
    reader = CardSlots(
        deck(GAMES[game]), calibrated(frame, profile(game)), profile(game).camera_regions()
    )
    reading = reader.read(frame)
    assert reading.board == {}
    assert reading.unsure == ("s1.z3",)


def test_a_frame_of_another_size_than_the_calibration_is_refused_clearly() -> None:
    frame = photograph(table_drawing(profile("potions"), {}), seed=5)
    calibration = calibrated(frame, profile("potions"))
    reader = CardSlots(deck(POTIONS), calibration, profile("potions").camera_regions())
    small = cv2.resize(frame, (640, 480))
    with pytest.raises(ValueError, match="a 640 x 480 frame, but the calibration is for 1280 x"):
        reader.read(small)


class ScriptedCells:
    """Reads what it is told, and keeps the cells it was asked about."""

    def __init__(self, dice: dict[str, IconDie | None]) -> None:
        self.dice = dice
        self.cells: dict[str, np.ndarray] = {}

    def read_cells(
        self, image: np.ndarray, cells: Mapping[str, ArrayLike]
    ) -> dict[str, IconDie | None]:
        self.cells = {name: np.asarray(polygon) for name, polygon in cells.items()}
        return {name: self.dice.get(name) for name in cells}


def test_voodoo_cells_read_the_top_dice_as_colour_and_face() -> None:
    # A camera 2 pixels to the millimetre, the table's corner 20 pixels in from the frame's.
    calibration = Calibration(
        "voodoo", (820, 820), ((0.5, 0, -10), (0, 0.5, -10), (0, 0, 1)), (0, 1, 2, 3), 0.1
    )
    box = (0, 0, 30, 30)
    reader = ScriptedCells(
        {
            "r0c0": IconDie("steal", "red", box, 0.97),
            "r3c3": IconDie("point", "white", box, 0.9),
            "r6c6": IconDie("switch", "purple", box, 0.4),  # below the floor: unsure
        }
    )
    cells = DiceCells(reader, calibration, profile("voodoo").camera_regions(), 0.8)
    reading = cells.read(np.zeros((820, 820, 3), np.uint8))
    assert reading.board == {"r0c0": "red:steal", "r3c3": "white:point"}  # BV-4: the top die
    assert reading.unsure == ("r6c6",)
    assert len(reader.cells) == 49
    # r3c3 is the middle cell: [175, 175, 50, 50] mm on the table, so pixels 370..470.
    assert reader.cells["r3c3"].min(axis=0) == pytest.approx([370, 370])
    assert reader.cells["r3c3"].max(axis=0) == pytest.approx([470, 470])


def test_a_board_the_camera_cannot_read_is_named(tmp_path: Path) -> None:
    calibration = Calibration("x", (10, 10), ((1, 0, 0), (0, 1, 0), (0, 0, 1)), (0, 1, 2, 3), 0.1)
    read = {name for name, game in GAMES.items() if board_contents(game) is not None}
    assert read == set(GAMES)  # every game's board: cards, dice or a map kit
    with pytest.raises(BoardReaderError, match="cannot read these pieces yet"):
        board_reader(BoardContents(), calibration, {}, tmp_path, 0.8)
    soul = board_contents(GAMES["voodoo"])
    assert soul is not None and soul.dice is not None and soul.dice.kind == "soul"
    with pytest.raises(NoModelError, match="smartboard dice learn --kind soul"):
        board_reader(soul, calibration, {}, tmp_path, 0.8)
    (tmp_path / "icon-model-soul.npz").write_bytes(b"not a model")
    with pytest.raises(BoardReaderError, match="learn it again") as caught:
        board_reader(soul, calibration, {}, tmp_path, 0.8)
    assert not isinstance(caught.value, NoModelError)
