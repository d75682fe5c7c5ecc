"""The printed map kit and the camera's reading of a map built from it (issue 21), on rendered
frames (tests/map_photos.py): the sheet prints every piece at the table's pitch, maps read as
the rules' layout, pawns and hands are tolerated, and a map that does not fit is named, never
guessed."""

from __future__ import annotations

import functools
import random
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest
from map_photos import (
    GAME,
    KIT,
    Laid,
    drawing,
    frame,
    paste,
    random_layout,
    shoot,
    write_frames,
)
from table_frames import calibrated

from controller.cli import main
from controller.game_vision import map_kit
from controller.rules import GAMES
from controller.rules.api import Layout
from hardware.profile import BoardProfile, builtin_profile_path, load_profile
from vision.calibration import Calibration, marker_dictionary
from vision.card_deck import DICTIONARIES
from vision.image_files import read_image
from vision.map_kit import dictionary
from vision.map_reader import MapCells
from vision.map_sheet import sheet_layout, sheet_pages, write_map_sheet
from vision.marker_sheet import DPI
from vision.table_reader import BoardContents, BoardReading, board_reader

PIECES = map_kit(GAMES["takeover"])
PITCH = 30.0


@functools.cache
def profile() -> BoardProfile:
    return load_profile(builtin_profile_path("takeover"), GAME.spots())


def reader(calibration: Calibration) -> MapCells:
    return MapCells(PIECES, calibration, profile().camera_regions())


def lay(token: str, col: int, row: int, turns: int = 0, dx: float = 0.0) -> Laid:
    return Laid(KIT[token], (col, row), turns, (dx, 0.0, 0.0))


def spot(col: int, row: int) -> str:
    return f"r{row}c{col}.map"


def test_the_sheet_prints_every_piece_and_its_markers_at_the_tables_pitch(tmp_path: Path) -> None:
    placed = [item.piece.token for page in sheet_layout(PIECES, PITCH) for item in page]
    assert Counter(placed) == {piece.token: piece.copies for piece in PIECES}
    pages = sheet_pages(PIECES, PITCH, "Hostile Takeover")
    detector = cv2.aruco.ArucoDetector(dictionary(), cv2.aruco.DetectorParameters())
    half = 0.5  # the pages read at 150 dpi
    found: Counter[int] = Counter()
    centres: dict[int, list[np.ndarray]] = {}
    for page in pages:
        small = cv2.resize(page, None, fx=half, fy=half, interpolation=cv2.INTER_AREA)
        corners, ids, _ = detector.detectMarkers(small)
        for quad, marker in zip(corners, ids.ravel(), strict=True):
            found[int(marker)] += 1
            if page is pages[0]:
                centres.setdefault(int(marker), []).append(quad.reshape(4, 2).mean(axis=0))
    expected = Counter(
        {
            piece.marker(col, row): piece.copies
            for piece in PIECES
            for row in range(piece.cells[1])
            for col in range(piece.cells[0])
        }
    )
    assert found == expected
    # A tile's two top cells: their markers one pitch apart on paper.
    tile = KIT["tile"]
    pitch_px = PITCH / 25.4 * DPI * half
    for left in centres[tile.marker(0, 0)]:
        nearest = min(np.linalg.norm(right - left) for right in centres[tile.marker(1, 0)])
        assert nearest == pytest.approx(pitch_px, abs=1.0)
    assert write_map_sheet(PIECES, PITCH, "Hostile Takeover", tmp_path / "kit.pdf") == len(pages)
    assert (tmp_path / "kit.pdf").read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize(("seed", "hand"), [(11, False), (12, True)])
def test_rendered_maps_from_the_rules_read_as_their_layout(seed: int, hand: bool) -> None:
    rng = random.Random(seed)
    layout = random_layout(rng)
    shot = frame(profile(), layout, rng, hand=hand)
    reading = reader(shot.calibration).read(shot.image)
    truth = {s: token for s, token in layout.items() if s.endswith(".map")}
    assert reading.problems == ()
    for cell, token in truth.items():
        if cell in shot.covered:
            assert reading.board.get(cell, token) == token
        else:
            assert reading.board.get(cell) == token, cell
    assert reading.board.keys() <= truth.keys()
    assert set(reading.hidden) <= shot.covered


def read_drawn(pieces: list[Laid], seed: int = 3, **kwargs: object) -> BoardReading:
    image, _ = drawing(profile(), pieces, **kwargs)  # type: ignore[arg-type]
    photo, calibration = shoot(profile(), image, random.Random(seed), hard=False)
    return reader(calibration).read(photo)


def test_a_pawn_hides_its_cell_and_a_hand_on_half_a_large_building_does_not() -> None:
    pieces = [
        lay("tile", 2, 2),
        lay("tile", 5, 2, turns=1),  # its printed top-left at the top-right
        lay("large:red", 2, 2),
        lay("spawn:blue", 4, 3, turns=2),
    ]
    reading = read_drawn(pieces, pawns=["r3c5", "r3c4"], blots=[spot(3, 2)])
    assert reading.board == {
        spot(2, 2): "large:red",
        spot(3, 2): "large:red",  # its marker under the fingertip, read from its other cell
        spot(2, 3): "tile",
        spot(3, 3): "tile",
        spot(4, 2): "tile",
        spot(5, 2): "tile",
    }
    # Under the pawns: a tile, or a spawn on it? Hidden, for the daemon that knows its pawns.
    assert reading.hidden == (spot(4, 3), spot(5, 3))
    assert reading.unsure == reading.hidden
    assert reading.problems == ()


@pytest.mark.parametrize(
    ("pieces", "cells", "problem"),
    [
        # A tile lying across another, one cell along.
        ([lay("tile", 2, 2), lay("tile", 3, 2)], [(2, 2), (3, 2), (4, 2), (3, 3)], "overlap"),
        (
            [lay("tile", 2, 2), lay("spawn:red", 2, 2), lay("spawn:red", 3, 3, turns=1)],
            [(2, 2), (3, 3)],
            "2 spawn:red seen, the kit has 1",
        ),
        ([lay("tile", 2, 2), lay("small:blue", 2, 2, dx=15.0)], [(2, 2), (3, 2)], "between cells"),
        ([lay("tile", 11, 5)], [(11, 5), (11, 6)], "reaches off the board"),
    ],
)
def test_a_map_that_does_not_fit_is_named_and_never_read(
    pieces: list[Laid], cells: list[tuple[int, int]], problem: str
) -> None:
    reading = read_drawn(pieces)
    assert any(problem in sentence for sentence in reading.problems), reading.problems
    for col, row in cells:
        assert spot(col, row) not in reading.board
        assert spot(col, row) in reading.unsure
        assert any(spot(col, row) in sentence for sentence in reading.problems)


def test_calibration_and_card_markers_and_the_supply_beside_the_board_are_not_pieces() -> None:
    image, _ = drawing(profile(), [lay("tile", 2, 2), lay("spawn:red", -2, 5)])
    centre = (35 + 6 * PITCH, 35 + 6 * PITCH)  # the cell r6c6
    paste(image, marker_dictionary(), 7, centre, 20, 2)
    card = cv2.aruco.getPredefinedDictionary(DICTIONARIES[-1][1])
    for k, marker in enumerate((0, 5, 19, 22)):
        at = (35 + (7 + k) * PITCH, 35 + 6 * PITCH)
        paste(image, card, marker, at, 20, 2)
    photo, calibration = shoot(profile(), image, random.Random(4), hard=False)
    reading = reader(calibration).read(photo)
    assert reading.board == dict.fromkeys((spot(2, 2), spot(3, 2), spot(2, 3), spot(3, 3)), "tile")
    assert (reading.unsure, reading.problems) == ((), ())


def test_frames_written_for_a_replay_read_back_with_their_calibration(tmp_path: Path) -> None:
    maps: list[Layout] = [
        {spot(2, 2): "tile", spot(3, 2): "tile", spot(2, 3): "tile", spot(3, 3): "tile"},
    ]
    maps.append(maps[0] | {spot(3, 3): "small:none", spot(2, 3): "spawn:green", "r2c3": "piece"})
    calibration = write_frames(tmp_path / "frames", profile(), maps, seed=2)
    files = sorted((tmp_path / "frames").iterdir())
    assert [f.name for f in files] == ["00000.jpg", "00001.jpg"]
    first = read_image(files[0])
    # The markers around the table calibrate the camera as the written calibration says.
    found = calibrated(first, profile())
    middle = [(200.0, 200.0)]
    assert np.abs(found.to_pixels(middle) - calibration.to_pixels(middle)).max() < 1.5
    readings = [reader(calibration).read(read_image(f)) for f in files]
    assert readings[0].board == maps[0]
    # The pawn on r2c3 hides its cell; the rest reads as laid.
    assert readings[1].board == {
        k: v for k, v in maps[1].items() if k.endswith(".map") and k != spot(3, 2)
    }
    assert readings[1].hidden == (spot(3, 2),)


def test_a_frame_of_another_size_is_refused_and_board_reader_reads_kits() -> None:
    image, _ = drawing(profile(), [])
    _, calibration = shoot(profile(), image, random.Random(1), hard=False)
    cells = board_reader(
        BoardContents(kit=PIECES), calibration, profile().camera_regions(), Path("-"), 0.8
    )
    assert isinstance(cells, MapCells)
    with pytest.raises(ValueError, match="calibration is for 1600 x 1200"):
        cells.read(np.zeros((480, 640, 3), np.uint8))


def test_cli_kit_writes_the_pdf_at_the_profiles_cell_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "kit.pdf"
    assert main(["kit", "--game", "takeover", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "99 pieces, 30 mm cells) on 5 pages" in said and "100 %" in said
    assert out.read_bytes().startswith(b"%PDF-1.4")
    # A game with no map kit, and a profile whose cells are not one square size, are refused.
    assert main(["kit", "--game", "akuma", "--out", str(tmp_path / "a.pdf")]) == 1
    assert "akuma has no map kit: the games with one are takeover" in capsys.readouterr().err
    text = builtin_profile_path("takeover").read_text(encoding="utf-8")
    odd = tmp_path / "odd.toml"
    odd.write_text(
        text + '\n[[spots]]\nid = "r0c0.map"\nregion = [20, 20, 30, 28]\n', encoding="utf-8"
    )
    assert main(["kit", "--profile", str(odd), "--out", str(tmp_path / "b.pdf")]) == 78
    assert "one square cell size, and its camera cells are 30 x 28 mm, 30 x 30 mm" in (
        capsys.readouterr().err
    )
    big = tmp_path / "big.toml"
    bigger = text.replace("cell_mm = 30", "cell_mm = 100").replace("[400, 400]", "[1240, 1240]")
    big.write_text(bigger, encoding="utf-8")
    assert main(["kit", "--profile", str(big), "--out", str(tmp_path / "c.pdf")]) == 78
    assert "a piece of 2 x 2 cells of 100 mm is larger than an A4 page" in capsys.readouterr().err
    assert not any((tmp_path / name).exists() for name in ("a.pdf", "b.pdf", "c.pdf"))
