"""A roll held unsure (controller/held_roll.py, issue 22): its dice named for `smartboard status`,
settled die by die, applied as confirmed or corrected."""

from __future__ import annotations

import re

import pytest

from controller.cli.game import _SAID
from controller.cli.status import _table_lines
from controller.held_roll import HeldRoll
from controller.refusals import Refused
from vision.dice_settle import RolledDie, SettledRoll

SURE_3 = RolledDie(3, (10, 10, 40, 40), 0.97, ((3, 0.97), (2, 0.02)), sure=True)
UNSURE_5 = RolledDie(5, (80, 10, 40, 40), 0.62, ((5, 0.62), (6, 0.31)), sure=False)
UNSURE_2 = RolledDie(2, (150, 10, 40, 40), 0.7, ((2, 0.7),), sure=False)  # the oblique reader's


def held(*dice: RolledDie) -> HeldRoll:
    values = tuple(die.value for die in dice)
    confidence = min(die.confidence for die in dice)
    return HeldRoll(SettledRoll(values, confidence, False, dice), 1)


def test_status_names_each_unsure_die_its_reading_and_the_runner_up() -> None:
    roll = held(SURE_3, UNSURE_5, UNSURE_2)
    assert roll.sentence() == (
        "dice read 3, 5, 2 but unsure: die 2 (5 at 0.62, else 6 at 0.31); "
        "die 3 (2 at 0.70, no other reading)"
    )
    shown = roll.to_json()
    assert (shown["values"], shown["confidence"], shown["picture"]) == ([3, 5, 2], 0.62, False)
    assert [die["die"] for die in shown["dice"]] == [2, 3]
    assert shown["dice"][0]["readings"] == [
        {"face": 5, "chance": 0.62},
        {"face": 6, "chance": 0.31},
    ]
    # `smartboard status` prints the sentence.
    summary = {"camera": {"state": "ok"}, "dice_seen": [], "dice_unsure": shown}
    assert shown["text"] in _table_lines(summary, lambda seat: seat)
    # A die whose faces name its colour is named by it.
    red = RolledDie("red:steal", (0, 0, 9, 9), 0.5, (("red:steal", 0.5), ("red:move", 0.4)), False)
    assert (
        held(red).sentence()
        == "dice read red:steal but unsure: die 1 red (steal at 0.50, else move at 0.40)"
    )


def test_taps_keeping_every_value_confirm_and_one_changed_corrects() -> None:
    roll = held(SURE_3, UNSURE_5, UNSURE_2)
    assert roll.pick(2, "6") is None  # die 3 is still to settle
    assert roll.to_json()["dice"][0]["picked"] == 6
    assert "tapped 6" in roll.sentence()
    # `smartboard confirm --die 2 --face 6` says which dice are still unsure.
    assert _SAID["confirm"]({"ok": True, "applied": [], "waiting": [3]}) == (
        "die settled; still unsure: die 3"
    )
    assert roll.pick("3", 2) == ((3, 6, 2), "corrected")
    kept = held(SURE_3, UNSURE_5)
    assert kept.pick(2, 5) == ((3, 5), "confirmed")


@pytest.mark.parametrize(
    ("die", "face", "key", "said"),
    [
        (1, 3, "not_unsure", "die 1 is not unsure (read 3 at 0.97): the unsure dice are 2, 3"),
        (2, 4, "not_a_reading", "die 2 reads 5 or 6, not 4"),
        (4, 1, "no_such_die", "no die 4: the roll read has 3 dice"),
        ("two", 1, "no_such_die", "no die 'two'"),
    ],
)
def test_a_tap_that_cannot_be_is_refused_clearly(
    die: object, face: object, key: str, said: str
) -> None:
    roll = held(SURE_3, UNSURE_5, UNSURE_2)
    with pytest.raises(Refused, match=re.escape(said)) as refused:
        roll.pick(die, face)
    assert refused.value.key == key
    assert roll.picks == {}
