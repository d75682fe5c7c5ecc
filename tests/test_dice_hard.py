"""The dice that are hard to read (issue 22): dark faces, glare, tilted dice, touching dice.

`vision/training/hard_cases.py` tells the four cases from a labelled photo; tests/data/dice/hard
holds seven real tray photos full of them (114 dice). On those the reader must never apply a
wrong value (the confidence gate holds every doubtful die), must find every die, and must read
most of each case without asking. The training augmentations that make the cases
(vision/training/dataset.py) are checked to do what they say.
"""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.config import load_config
from vision.dice_reader import DiceReader
from vision.dice_tray import CROP_SIZE
from vision.die import Die
from vision.training.dataset import Sample, darkened, glared, load_folder, tilted
from vision.training.hard_cases import MODES, ModeFigures, die_modes, figures, matched

HARD = Path(__file__).parent / "data" / "dice" / "hard"
# The share of each case's dice read sure and right, a few points under what the shipped reader
# reads (docs/figures.md): a floor against a reader that asks about more of them.
FLOORS = {"dark": 0.70, "glare": 0.85, "tilted": 0.85, "touching": 0.85, "easy": 0.85}


@pytest.fixture(scope="module")
def hard() -> dict[str, ModeFigures]:
    samples, _ = load_folder(HARD, "top", 0.0)
    reader = DiceReader("top", threads=1)
    gate = load_config(None).dice_min_confidence
    return figures(samples, lambda sample: reader.read(sample.image), gate)


def test_the_hard_set_holds_every_hard_case(hard: dict[str, ModeFigures]) -> None:
    assert all(hard[mode].dice >= 8 for mode in MODES), {m: hard[m].dice for m in MODES}
    assert hard["all"].dice == 114


def test_no_hard_die_is_applied_wrong_or_missed(hard: dict[str, ModeFigures]) -> None:
    assert hard["all"].sure_wrong == 0
    assert hard["all"].missed == 0


@pytest.mark.parametrize("mode", sorted(FLOORS))
def test_most_hard_dice_are_read_without_asking(hard: dict[str, ModeFigures], mode: str) -> None:
    tally = hard[mode]
    assert tally.sure_right / tally.dice >= FLOORS[mode], tally


def _tray(boxes: list[tuple[float, float, float, float]], face: int, pips: int) -> Sample:
    """A light tray with a square die (face grey `face`, pips grey `pips`) in each box."""
    image = np.full((200, 400, 3), 200, np.uint8)
    for cx, cy, w, h in boxes:
        x0, y0 = round(cx - w / 2), round(cy - h / 2)
        cv2.rectangle(image, (x0, y0), (round(x0 + w), round(y0 + h)), (face,) * 3, -1)
        cv2.circle(image, (round(cx), round(cy)), 3, (pips,) * 3, -1)
    rows = [(1, *box) for box in boxes]
    return Sample("tray", image, np.array(rows, np.float32), "top")


def test_the_cases_are_told_from_the_photo() -> None:
    apart = [(50.0, 50.0, 40.0, 40.0), (200.0, 50.0, 40.0, 40.0), (320.0, 120.0, 40.0, 40.0)]
    assert die_modes(_tray(apart, 230, 20)) == [frozenset()] * 3
    assert die_modes(_tray(apart, 40, 70)) == [frozenset({"dark"})] * 3
    touching = [(50.0, 50.0, 40.0, 40.0), (89.0, 50.0, 40.0, 40.0), (300.0, 100.0, 40.0, 40.0)]
    assert [sorted(m) for m in die_modes(_tray(touching, 230, 20))] == [["touching"]] * 2 + [[]]
    leaning = [*apart, (120.0, 150.0, 52.0, 52.0)]
    assert die_modes(_tray(leaning, 230, 20))[-1] == {"tilted"}
    glare = _tray(apart, 120, 20)
    cv2.circle(glare.image, (55, 45), 3, (255, 255, 255), -1)
    assert "glare" in die_modes(glare)[0] and die_modes(glare)[1] == frozenset()


def test_the_training_cases_change_a_crop_as_they_say() -> None:
    rng = random.Random(1)
    crop = np.full((CROP_SIZE, CROP_SIZE, 3), 60, np.uint8)
    cv2.rectangle(crop, (8, 8), (40, 40), (220, 220, 220), -1)  # a white die on a dark tray
    dark = darkened(crop, rng)
    assert dark.mean() < 0.65 * crop.mean() and np.ptp(dark) < 0.75 * np.ptp(crop)
    shone = glared(crop, rng)
    assert (shone >= crop).all() and shone.max() > 240 and (shone > crop).mean() < 0.3
    leaning = tilted(crop, rng)
    assert (leaning > 150).sum() < 0.95 * (crop > 150).sum()  # the face foreshortened
    assert leaning.shape == crop.shape and leaning.dtype == np.uint8


def _sure_and_wrong(sample: Sample, dice: list[Die], gate: float) -> list[Die]:
    """The dice read at or above the gate that no labelled die there shows: a wrong value, or
    no die at all."""
    found = matched(sample, dice)
    right = [
        die
        for die, row in zip(found, sample.boxes.tolist(), strict=True)
        if die is not None and die.value == round(row[0])
    ]
    return [die for die in dice if die.confidence >= gate and all(die is not r for r in right)]


def test_a_hand_over_the_tray_hides_dice_and_adds_none() -> None:
    samples, _ = load_folder(HARD, "top", 0.0)
    sample = max(samples, key=lambda s: len(s.boxes))
    hand = sample.image.copy()
    cv2.ellipse(hand, (330, 330), (190, 120), 30, 0, 360, (120, 160, 215), -1)  # skin, BGR
    cv2.ellipse(hand, (470, 250), (60, 25), 10, 0, 360, (110, 150, 205), -1)  # a finger
    covered = Sample(sample.name, hand, sample.boxes, sample.kind)
    dice = DiceReader("top", threads=1).read(hand)
    gate = load_config(None).dice_min_confidence
    assert _sure_and_wrong(covered, dice, gate) == []
    assert 0 < len(dice) < len(sample.boxes)  # those in sight are read, those under it are not


def test_a_die_half_out_of_the_tray_is_left_out_or_unsure() -> None:
    samples, _ = load_folder(HARD, "top", 0.0)
    reader = DiceReader("top", threads=1)
    gate = load_config(None).dice_min_confidence
    for sample in samples:
        for _, cx, cy, _, _ in sample.boxes.tolist()[::4]:
            # The tray's edge through the middle of this die: its left half out of the tray.
            region = [(cx, 0.0), (640.0, 0.0), (640.0, 640.0), (cx, 640.0)]
            dice = reader.read(sample.image, region)
            assert _sure_and_wrong(sample, dice, gate) == [], (sample.name, cx, cy)
