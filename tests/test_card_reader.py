"""The card reader (vision/card_reader.py) on simulated photos of printed sheets, and
`smartboard cards read`: rotation, perspective, blur, noise, uneven light, shadows, fingers."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest
from card_photos import Photo, Score, photograph

from controller.cli import main
from controller.game_vision import all_cards, deck
from controller.rules import GAMES
from controller.rules.potions import GAME as POTIONS
from hardware.profile import builtin_profile_path, load_profile
from vision.calibration import Calibration
from vision.card_deck import CARD_MM, MARKER_CORNERS_MM
from vision.card_reader import CardReader, SeenCard, place_in_slots, read_cards
from vision.card_sheet import Placed, card_image, sheet_layout, sheet_pages


@functools.cache
def pages(game: str) -> tuple[list[np.ndarray], list[list[Placed]]]:
    cards = deck(GAMES[game])
    return sheet_pages(cards, GAMES[game].title), sheet_layout(cards)


def photo_of(game: str, page: int, seed: int, **kwargs: object) -> Photo:
    images, layout = pages(game)
    return photograph(images[page], layout[page], random.Random(seed), **kwargs)  # type: ignore[arg-type]


def diagonal(corners: np.ndarray) -> float:
    return float(np.linalg.norm(corners[0] - corners[2]))


@pytest.mark.parametrize("game", ["potions", "mightymania", "akuma"])
def test_simulated_photos_read_every_card_with_no_wrong_id(game: str) -> None:
    reader = CardReader(all_cards())
    score = Score()
    count = len(pages(game)[0])
    for seed in range(8):
        photo = photo_of(game, seed % count, seed)
        seen = reader.read(photo.image)
        score.add(photo, seen)
        for truth in photo.cards:
            [card] = [c for c in seen if c.id == truth.id and
                      np.linalg.norm(np.array(c.centre) - truth.corners.mean(axis=0))
                      < 0.2 * diagonal(truth.corners)]  # fmt: skip
            # Corners in order from the card's printed top-left, whatever the rotation.
            error = np.linalg.norm(np.array(card.corners) - truth.corners, axis=1).max()
            limit = 0.03 if card.markers == 2 else 0.12  # one marker: extrapolated
            assert error < limit * diagonal(truth.corners), (seed, card, truth)
            assert card.face == ("down" if truth.id is None else "up")
            assert 0 < card.confidence <= 1
    assert score.wrong == 0
    assert score.read == score.cards


def test_a_finger_over_one_marker_leaves_the_card_read_less_surely() -> None:
    photo = photo_of("potions", 0, 3, fingers=0, hard=False)
    clean = {c.id: c for c in read_cards(photo.image, all_cards())}
    assert all(c.markers == 2 for c in clean.values())
    image = photo.image.copy()
    truth = photo.cards[4]
    # A finger over the top marker: a skin-coloured blob from outside the card.
    h = cv2.getPerspectiveTransform(
        np.array([(0, 0), (CARD_MM[0], 0), CARD_MM, (0, CARD_MM[1])], np.float32),
        truth.corners.astype(np.float32),
    )
    top = cv2.perspectiveTransform(np.array([[np.mean(MARKER_CORNERS_MM[0], axis=0)]]), h)[0, 0]
    cv2.ellipse(image, (int(top[0]), int(top[1])), (22, 90), 30, 0, 360, (120, 150, 200), -1)
    seen = {c.id: c for c in read_cards(image, all_cards())}
    card = seen[truth.id]
    assert card.markers == 1 and card.confidence < clean[truth.id].confidence
    # Both markers covered: the card is not read, never read as another.
    bottom = cv2.perspectiveTransform(np.array([[np.mean(MARKER_CORNERS_MM[1], axis=0)]]), h)
    x, y = bottom[0, 0]
    cv2.ellipse(image, (int(x), int(y)), (22, 90), 30, 0, 360, (120, 150, 200), -1)
    seen_now = read_cards(image, all_cards())
    assert truth.id not in {c.id for c in seen_now}
    assert {c.id for c in seen_now} == set(clean) - {truth.id}


def test_a_reader_limited_to_a_deck_ignores_other_cards() -> None:
    photo = photo_of("akuma", 0, 5, hard=False)
    assert read_cards(photo.image, deck(GAMES["potions"])) == [
        c for c in read_cards(photo.image, all_cards()) if c.id is None
    ]


def table_image() -> tuple[np.ndarray, list[tuple[str | None, str]]]:
    """The potions table at 2 px/mm: cards laid in some slots, face up and face down."""
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    regions = profile.camera_regions()
    image = np.full((1220, 1440, 3), (70, 90, 60), np.uint8)
    laid: list[tuple[str | None, str]] = [
        ("7x9", "s1.z1"), (None, "s1.z2"), ("2x1", "s2.z14"), ("9x10", "s1.t3"), (None, "s2.t1"),
    ]  # fmt: skip
    cards = {c.id: c for c in deck(GAMES["potions"])}
    for card_id, slot in laid:
        side = card_image(None if card_id is None else cards[card_id], dpi=round(2 * 25.4))
        r = regions[slot]
        x, y = round(2 * (r.x + 0.5)), round(2 * (r.y + 0.5))
        image[y : y + side.shape[0], x : x + side.shape[1]] = side
    return image, laid


def test_cards_are_placed_in_their_slots_with_a_calibration() -> None:
    image, laid = table_image()
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    calibration = Calibration(
        "potions", (1440, 1220), ((0.5, 0, 0), (0, 0.5, 0), (0, 0, 1)), (0, 1, 2, 3), 0.1
    )
    seen = place_in_slots(read_cards(image, all_cards()), calibration, profile.camera_regions())
    assert sorted((c.slot, c.id) for c in seen) == sorted((s, i) for i, s in laid)  # type: ignore[misc]
    assert all(isinstance(c, SeenCard) and c.markers == 2 for c in seen)


def test_cli_reads_a_photographed_potions_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The done-when: a page of `cards sheet --game potions`, warped and blurred like a
    # photo, read back by `smartboard cards read --json` with correct ids.
    photos = []
    for n, page in enumerate((0, 4)):  # face pages (backs are odd)
        photo = photo_of("potions", page, 40 + n)
        path = tmp_path / f"photo{n}.jpg"
        cv2.imwrite(str(path), photo.image)
        photos.append((path, photo))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a picture")
    paths = [str(p) for p, _ in photos]
    assert main(["cards", "read", "--json", *paths, str(broken)]) == 1
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 3
    for line, (path, photo) in zip(lines, photos, strict=False):
        assert line["image"] == str(path)
        assert sorted(c["id"] for c in line["cards"]) == sorted(t.id for t in photo.cards)  # type: ignore[type-var]
        for card in line["cards"]:
            assert card["face"] == "up" and len(card["corners"]) == 4 and card["confidence"] > 0.5
    assert lines[2] == {"image": str(broken), "cards": [], "error": lines[2]["error"]}
    assert f"cannot read {broken}" in err
    assert main(["cards", "read", paths[0]]) == 0
    assert "9 cards: " in capsys.readouterr().out


def test_cli_places_cards_in_slots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image, laid = table_image()
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), image)
    calibration = tmp_path / "calibration.json"
    Calibration(
        "potions", (1440, 1220), ((0.5, 0, 0), (0, 0.5, 0), (0, 0, 1)), (0, 1, 2, 3), 0.1
    ).save(calibration)
    args = ["cards", "read", "--json", "--calibration", str(calibration), "--game", "potions"]
    assert main([*args, str(path)]) == 0
    [line] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert sorted((c["slot"], c["id"] or "") for c in line["cards"]) == sorted(
        (s, i or "") for i, s in laid
    )
    assert main([*args[:-2], "--game", "voodoo", str(path)]) == 2
    assert "voodoo has no cards" in capsys.readouterr().err
    assert main([*args[:4], str(tmp_path / "none.json"), "--game", "potions", str(path)]) == 78
    assert "cannot read calibration" in capsys.readouterr().err
