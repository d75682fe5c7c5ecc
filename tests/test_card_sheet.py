"""The printable cards (vision/card_deck.py, card_sheet.py) and `smartboard cards sheet|list`."""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.game_vision import all_cards, deck
from controller.rules import GAMES
from controller.rules.mightymania import GAME as MIGHTYMANIA
from controller.rules.mightymania import load_game_data
from controller.rules.potions import GAME as POTIONS
from controller.rules.potions import load_deck as potions_deck
from hardware.profile import builtin_profile_path, load_profile
from vision.calibration import DICTIONARY as TABLE_DICTIONARY
from vision.calibration import detect_markers
from vision.card_deck import (
    BACK_INDEX,
    CardDeckError,
    dictionary,
    marker_ids,
    marker_table,
)
from vision.card_reader import CardReader
from vision.card_sheet import COLUMNS, sheet_layout, sheet_pages
from vision.marker_sheet import sheet_pages as marker_pages

RGB_IMAGE = re.compile(
    rb"/Width (\d+) /Height (\d+) /ColorSpace /DeviceRGB .*?/Length (\d+) >>\nstream\n"
)


def test_every_card_has_its_own_markers_and_all_backs_share_one() -> None:
    cards = all_cards()
    ids = [card.id for card in cards]
    assert len(ids) == len(set(ids)) == 80 + 8 + 5 + 18
    markers = [m for card in cards for m in marker_ids(card.index)]
    assert len(set(markers)) == len(markers)
    assert set(marker_ids(BACK_INDEX)).isdisjoint(markers)
    table = marker_table(cards)
    assert set(table) == {*markers, *marker_ids(BACK_INDEX)}
    assert dictionary(table) == cv2.aruco.DICT_5X5_250
    # Stable: the cards already printed keep their markers, whatever the deck files hold.
    index = {card.id: card.index for card in cards}
    assert marker_ids(index["2x1"]) == (2, 3)
    assert marker_ids(index["9x10"]) == (160, 161)
    assert index["T1"] == 81 and index["akumatized-9"] == 111
    with pytest.raises(CardDeckError, match="voodoo has no cards"):
        deck(GAMES["voodoo"])


def test_the_reader_takes_the_smallest_dictionary_that_holds_the_cards() -> None:
    assert dictionary([0, 1]) == cv2.aruco.DICT_5X5_50
    assert dictionary([99]) == cv2.aruco.DICT_5X5_100
    assert dictionary([999]) == cv2.aruco.DICT_5X5_1000
    with pytest.raises(CardDeckError, match="at most 499 cards"):
        dictionary([1000])
    # Each begins with the smaller ones' markers: a printed card reads the same in all.
    small = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_250).bytesList
    large = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_5X5_1000).bytesList
    assert np.array_equal(small, large[: len(small)])


def test_the_decks_follow_the_rules_data() -> None:
    potions = {card.id: card for card in deck(POTIONS)}
    assert set(potions) == {c.id for c in potions_deck("80", "both")}
    assert {c.id for c in potions_deck("64", "both")} <= set(potions)  # one print, both editions
    assert potions["7x9"].data == {"monster": 63, "potion": 9, "colour": "purple"}
    assert potions["7x9"].title == "monster 63" and "potion 9" in potions["7x9"].lines
    data = load_game_data(str(MIGHTYMANIA.default_options["decks"]), "")
    mighty = {card.id: card for card in deck(MIGHTYMANIA)}
    assert set(data.cards) | set(data.powers) == set(mighty)
    assert mighty["T1"].data["leader"] is True and mighty["T1"].data["lives"] == 3
    assert all(mighty[p].copies == 2 for p in data.powers)  # a set of power cards per player
    # AK-1 / AK-10: a civilian for each square 1-9, red-bordered; its akumatized card black.
    akuma = {card.id: card for card in deck(GAMES["akuma"])}
    assert len(akuma) == 18
    assert akuma["civilian-1"].title == "Luka" and akuma["akumatized-1"].title == "Silencer"
    assert all(akuma[f"civilian-{n}"].colour == (30, 30, 210) for n in range(1, 10))
    assert all(akuma[f"akumatized-{n}"].colour == (0, 0, 0) for n in range(1, 10))


@pytest.mark.parametrize("game", ["potions", "mightymania", "akuma"])
def test_each_page_reads_back_and_backs_lie_behind_their_faces(game: str) -> None:
    cards = deck(GAMES[game])
    layout = sheet_layout(cards)
    copies = sum(card.copies for card in cards)
    assert sum(len(page) for page in layout[0::2]) == copies
    pages = sheet_pages(cards, GAMES[game].title)[:4]
    reader = CardReader(all_cards())
    for page, placed in zip(pages, layout, strict=False):
        assert page.shape == (3507, 2480, 3)
        small = cv2.resize(page, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        seen = reader.read(small)
        truth = sorted((p.card.id if p.card else "", p.x, p.y) for p in placed)
        assert len(seen) == len(placed)
        for card in seen:
            assert card.markers == 2 and card.confidence > 0.95
            corners = np.array(card.corners) / 0.25 * 25.4 / 300  # page mm
            x, y = corners[0]
            match = [t for t in truth if abs(t[1] - x) < 1.5 and abs(t[2] - y) < 1.5]
            assert [t[0] for t in match] == [card.id or ""], (card, truth)
        # No table marker is ever read from a card.
        assert detect_markers(small) == []
    for faces, backs in zip(layout[0::2], layout[1::2], strict=True):
        assert all(b.card is None for b in backs) and all(f.card for f in faces)
        pitch = faces[1].x - faces[0].x if len(faces) > 1 else 63.0
        for face, back in zip(faces, backs, strict=True):
            column = round((face.x - faces[0].x) / pitch)
            assert back.y == face.y and round((back.x - faces[0].x) / pitch) == COLUMNS - 1 - column


def test_no_card_is_read_from_the_table_markers() -> None:
    assert dictionary(marker_table(all_cards())) != TABLE_DICTIONARY
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    reader = CardReader(all_cards())
    for page in marker_pages(profile):
        small = cv2.resize(page, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        assert detect_markers(small) != []
        assert reader.read(small) == []


def read_pdf_pages(path: Path) -> list[np.ndarray]:
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4\n") and data.endswith(b"%%EOF\n")
    pages = []
    for match in RGB_IMAGE.finditer(data):
        width, height, length = map(int, match.groups())
        stream = data[match.end() : match.end() + length]
        pixels = np.frombuffer(zlib.decompress(stream), np.uint8)
        pages.append(pixels.reshape(height, width, 3))
    return pages


def test_cli_cards_sheet_writes_the_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "akuma.pdf"
    assert main(["cards", "sheet", "--game", "akuma", "--out", str(out)]) == 0
    assert "4 pages" in capsys.readouterr().out
    pages = read_pdf_pages(out)
    assert len(pages) == 4
    # The PDF's first page is the first face page, in RGB: red borders stay red.
    expected = cv2.cvtColor(
        sheet_pages(deck(GAMES["akuma"]), "Capture the Akuma")[0], cv2.COLOR_BGR2RGB
    )
    assert np.array_equal(pages[0], expected)
    assert main(["cards", "sheet", "--game", "akuma", "--out", str(tmp_path / "no" / "x.pdf")]) == 1
    assert "cannot write" in capsys.readouterr().err


def test_cli_cards_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cards", "list", "--game", "potions", "--json"]) == 0
    cards = json.loads(capsys.readouterr().out)
    assert len(cards) == 80 and all("id" in card for card in cards)
    assert {"id": "2x1", "monster": 2, "potion": 1}.items() <= cards[0].items()
    assert main(["cards", "list", "--game", "mightymania"]) == 0
    assert "T1: Colossus" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["cards", "list", "--game", "voodoo"])
    assert exit_.value.code == 2
