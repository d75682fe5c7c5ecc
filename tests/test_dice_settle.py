"""Dice settling (vision/dice_settle.py): a roll once the dice have stopped, reported once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pytest

from vision.dice_settle import DiceSettler, RolledDie, SettledRoll
from vision.dice_sources import DiceReading


@dataclass(frozen=True)
class Die:
    value: int
    box: tuple[int, int, int, int]
    confidence: float = 0.99
    faces: tuple[tuple[int, float], ...] = ()


def die(value: int, x: int, y: int = 100, confidence: float = 0.99) -> Die:
    return Die(value, (x, y, 40, 40), confidence)


THREE = die(3, 100)
FIVE = die(5, 300)
ROLL = [THREE, FIVE]


def settler(stable_frames: int = 3) -> DiceSettler:
    return DiceSettler(stable_frames, min_confidence=0.8, tolerance_px=4)


def feed_all(settle: DiceSettler, frames: Iterable[Sequence[Die]]) -> list[SettledRoll | None]:
    return [settle.feed(frame) for frame in frames]


def reports(settle: DiceSettler, frames: Iterable[Sequence[Die]]) -> list[SettledRoll]:
    return [roll for roll in feed_all(settle, frames) if roll is not None]


def tumbling(count: int, value: int = 2) -> list[list[Die]]:
    """Frames of a die still rolling: it moves further than the tolerance every frame."""
    return [[die(value + i % 2, 500 + 30 * i)] for i in range(count)]


def test_a_roll_is_reported_once_after_the_stable_frames() -> None:
    settle = settler(3)
    assert feed_all(settle, [ROLL] * 6) == [
        None,
        None,
        SettledRoll((3, 5), 0.99, certain=True),
        None,
        None,
        None,
    ]


def test_nothing_is_reported_while_the_dice_move() -> None:
    settle = settler(2)
    assert reports(settle, tumbling(20)) == []
    # A die that keeps its value but slides is still moving.
    sliding = [[die(4, 100 + 5 * i)] for i in range(10)]
    assert reports(settle, sliding) == []
    # A die that stays put but shows a new face every frame is still tumbling.
    turning = [[die(1 + i % 6, 100)] for i in range(10)]
    assert reports(settle, turning) == []


def test_boxes_may_jitter_within_the_tolerance() -> None:
    settle = settler(3)
    jittery = [
        [die(3, 100), die(5, 300)],
        [die(3, 103, 98), die(5, 297)],
        [Die(3, (100, 101, 43, 37), 0.9), die(5, 301)],
    ]
    assert reports(settle, jittery) == [SettledRoll((3, 5), 0.9, certain=True)]


def test_values_are_given_left_to_right() -> None:
    settle = settler(1)
    assert settle.feed([die(6, 400), die(1, 20), die(4, 200, y=10)]) == SettledRoll(
        (1, 4, 6), 0.99, certain=True
    )


def test_the_same_values_in_new_places_are_not_still() -> None:
    settle = settler(3)
    moved = [die(3, 150), die(5, 350)]
    assert feed_all(settle, [ROLL, ROLL, moved, moved]) == [None] * 4
    assert settle.feed(moved) == SettledRoll((3, 5), 0.99, certain=True)


def test_an_empty_tray_is_not_a_roll_but_ends_the_last_one() -> None:
    settle = settler(2)
    assert reports(settle, [[]] * 5) == []
    assert len(reports(settle, [ROLL] * 4)) == 1
    assert reports(settle, [[]] * 3) == []
    # The same dice put back in the same places: a new roll.
    assert reports(settle, [ROLL] * 3) == [SettledRoll((3, 5), 0.99, certain=True)]


def test_a_roll_thrown_again_is_reported_again() -> None:
    settle = settler(3)
    again = [die(3, 220, 60), die(5, 40, 200)]  # the same faces, where they fell this time
    frames = [*tumbling(5), *[ROLL] * 4, *tumbling(4), *[again] * 4]
    assert reports(settle, frames) == [
        SettledRoll((3, 5), 0.99, certain=True),
        SettledRoll((5, 3), 0.99, certain=True),
    ]


def test_a_resting_roll_glimpsed_through_a_hand_is_not_reported_twice() -> None:
    settle = settler(3)
    hand = [die(3, 100)]  # a hand covers the five for a moment
    misread = [die(3, 100), die(6, 300, confidence=0.5)]
    frames = [*[ROLL] * 3, hand, hand, *[ROLL] * 4, misread, *[ROLL] * 4, []]
    assert len(reports(settle, frames)) == 1


def test_taking_the_dice_away_one_by_one_is_not_a_roll() -> None:
    settle = settler(2)
    frames = [*[ROLL] * 2, *[[FIVE]] * 5, *[[]] * 2]
    assert reports(settle, frames) == [SettledRoll((3, 5), 0.99, certain=True)]


def test_a_settled_roll_is_not_changed_by_values_flickering_in_place() -> None:
    settle = settler(2)
    shadowed = [die(3, 100), die(6, 300)]
    assert len(reports(settle, [*[ROLL] * 2, *[shadowed] * 5, *[ROLL] * 3])) == 1


# After the camera lost sight of the tray (a failure, a reconnect; issue 19).

SHIFTED = [die(3, 110, 108), die(5, 310, 108)]  # ROLL, seen by a camera that moved a little


def test_dice_lying_still_after_a_reconnect_are_no_new_roll() -> None:
    settle = settler(2)
    assert len(reports(settle, [ROLL] * 3)) == 1
    settle.lost_sight()
    assert reports(settle, [SHIFTED] * 5) == []
    settle.lost_sight()  # the tray emptied and dice thrown while it was blind: typed in
    assert reports(settle, [[die(6, 200)]] * 5) == []


def test_values_flickering_in_place_after_a_reconnect_are_no_new_roll() -> None:
    settle = settler(2)
    assert len(reports(settle, [ROLL] * 2)) == 1
    settle.lost_sight()
    shadowed = [die(3, 110, 108), die(6, 310, 108)]
    assert reports(settle, [SHIFTED, shadowed, SHIFTED, shadowed, *[SHIFTED] * 3]) == []


def test_an_uncertain_roll_after_a_reconnect_does_not_firm_up_into_a_roll() -> None:
    settle = settler(2)
    unsure = [die(3, 100), die(5, 300, confidence=0.6)]
    assert [r.certain for r in reports(settle, [unsure] * 2)] == [False]
    settle.lost_sight()
    assert reports(settle, [ROLL] * 4) == []


def test_after_a_reconnect_a_change_in_the_tray_makes_the_next_roll_news() -> None:
    settle = settler(2)
    assert len(reports(settle, [ROLL] * 2)) == 1
    settle.lost_sight()
    # Dice moving as the camera comes back: a throw it sees land.
    assert reports(settle, [*tumbling(3), *[SHIFTED] * 3]) == [
        SettledRoll((3, 5), 0.99, certain=True)
    ]
    settle.lost_sight()
    # Lying still, then taken away and thrown again.
    frames = [*[SHIFTED] * 3, [], [], *[[die(2, 50)]] * 2]
    assert reports(settle, frames) == [SettledRoll((2,), 0.99, certain=True)]


def test_an_uncertain_roll_is_shown_then_reported_once_it_firms_up() -> None:
    settle = settler(2)
    unsure = [die(3, 100), die(5, 300, confidence=0.6)]
    sure = [die(3, 101), die(5, 300, confidence=0.85)]
    results = feed_all(settle, [unsure, unsure, unsure, unsure, sure, sure, sure])
    assert results == [
        None,
        SettledRoll((3, 5), 0.6, certain=False),
        None,  # still uncertain: nothing new
        None,
        SettledRoll((3, 5), 0.85, certain=True),  # the same resting dice, now read surely
        None,
        None,
    ]


def test_an_uncertain_misread_firms_up_to_another_value() -> None:
    settle = settler(2)
    unsure = [die(3, 100), die(6, 300, confidence=0.55)]
    sure = [die(3, 100), die(5, 300, confidence=0.95)]
    assert reports(settle, [unsure] * 3 + [sure] * 3) == [
        SettledRoll((3, 6), 0.55, certain=False),
        SettledRoll((3, 5), 0.95, certain=True),
    ]


def test_an_uncertain_roll_with_a_die_taken_away_is_not_firmed_up() -> None:
    settle = settler(2)
    unsure = [die(3, 100), die(5, 300, confidence=0.6)]
    assert reports(settle, [unsure] * 2 + [[THREE]] * 3) == [
        SettledRoll((3, 5), 0.6, certain=False)
    ]


def test_the_confidence_threshold_is_inclusive() -> None:
    settle = DiceSettler(1, min_confidence=0.8, tolerance_px=0)
    assert settle.feed([die(2, 0, confidence=0.8)]) == SettledRoll((2,), 0.8, certain=True)


def test_touching_dice_are_paired_off_as_a_whole() -> None:
    # Each of the two threes lies within the tolerance of the other's last place too; pairing
    # the first die with its nearest box would leave the second without one.
    settle = DiceSettler(2, min_confidence=0.8, tolerance_px=6)
    before = [Die(3, (0, 0, 40, 40), 0.9), Die(3, (10, -3, 40, 40), 0.9)]
    after = [Die(3, (4, 0, 40, 40), 0.9), Die(3, (4, 4, 40, 40), 0.9)]
    assert settle.feed(before) is None
    assert settle.feed(after) == SettledRoll((3, 3), 0.9, certain=True)


def test_the_reading_for_the_session() -> None:
    roll = SettledRoll((3, 5), 0.9, certain=True)
    assert roll.reading == DiceReading((3, 5), 0.9, source="camera")


@pytest.mark.parametrize(
    ("stable_frames", "min_confidence", "tolerance_px", "frames"),
    [(0, 0.8, 4, 1), (3, 1.5, 4, 1), (3, -0.1, 4, 1), (3, 0.8, -1, 1), (3, 0.8, 4, 0)],
)
def test_bad_settings_are_refused(
    stable_frames: int, min_confidence: float, tolerance_px: float, frames: int
) -> None:
    with pytest.raises(ValueError, match="stable_frames"):
        DiceSettler(stable_frames, min_confidence, tolerance_px, frames)


# Several frames read as one (Die.faces): a die unsure in each frame, sure across them.


def seen(value: int, x: int, chances: dict[int, float], y: int = 100) -> Die:
    """A die whose reader gives each face's chance (the rest spread over the other faces)."""
    rest = (1 - sum(chances.values())) / (6 - len(chances))
    faces = tuple((face, chances.get(face, rest)) for face in range(1, 7))
    return Die(value, (x, y, 40, 40), dict(faces)[value], faces)


def unsure_five(x: int, y: int = 100) -> list[Die]:
    """A five read 0.45 to 0.75 sure (a six 0.2), frame after frame, as the camera's noise
    sways the reader."""
    return [seen(5, x, {5: p, 6: 0.2}, y) for p in (0.45, 0.75, 0.5, 0.72, 0.6)]


def test_a_die_unsure_in_each_frame_but_read_alike_over_five_is_sure() -> None:
    settle = DiceSettler(1, min_confidence=0.8, tolerance_px=4, frames=5)
    read = [settle.feed([THREE, five]) for five in unsure_five(300)]
    assert read[0] == SettledRoll((3, 5), 0.45, certain=False)
    firm = [roll for roll in read if roll is not None and roll.certain]
    assert len(firm) == 1 and firm[0].values == (3, 5)
    assert settle.combined[1].confidence >= 0.8
    # Read from each frame alone, it never firms up.
    alone = DiceSettler(1, min_confidence=0.8, tolerance_px=4)
    assert all(not r.certain for r in reports(alone, [[THREE, f] for f in unsure_five(300)]))


def test_a_die_read_two_ways_stays_unsure() -> None:
    settle = DiceSettler(1, min_confidence=0.8, tolerance_px=4, frames=5)
    flicker = [
        seen(5, 300, {5: 0.6, 6: 0.35}) if i % 2 else seen(6, 300, {6: 0.6, 5: 0.35})
        for i in range(10)
    ]
    rolls = reports(settle, [[THREE, die] for die in flicker])
    assert rolls and not any(roll.certain for roll in rolls)
    assert settle.combined[1].confidence < 0.8


def test_a_die_read_just_alike_in_every_frame_stays_unsure() -> None:
    # Frames that do not differ tell no more than one: the die itself is unclear.
    settle = DiceSettler(1, min_confidence=0.8, tolerance_px=4, frames=5)
    same = seen(5, 300, {5: 0.62, 6: 0.3})
    assert [r.certain for r in reports(settle, [[THREE, same]] * 10)] == [False]


def test_a_die_that_moved_is_read_afresh() -> None:
    settle = DiceSettler(1, min_confidence=0.8, tolerance_px=4, frames=5)
    feed_all(settle, [[THREE, five] for five in unsure_five(300)])
    assert settle.combined[1].confidence >= 0.8
    moved = unsure_five(360)
    settle.feed([THREE, moved[0]])
    assert settle.combined[1].confidence == moved[0].confidence  # the moved die starts afresh
    assert settle.combined[0] == THREE  # the still die goes on (it has no faces to combine)


def test_combined_dice_are_still_reported_once_after_the_stable_frames() -> None:
    settle = DiceSettler(3, min_confidence=0.8, tolerance_px=4, frames=5)
    rolls = feed_all(settle, [[THREE, five] for five in [*unsure_five(300), *unsure_five(300)]])
    assert rolls[:2] == [None, None]
    assert [roll for roll in rolls if roll is not None] == [rolls[2]]
    assert rolls[2] is not None and rolls[2].values == (3, 5) and rolls[2].certain


def test_a_roll_keeps_each_die_where_it_lies_and_its_best_two_readings() -> None:
    # What the players are shown of an unsure roll (issue 22): the reader's runner-up where it
    # gives each face's chance, the value alone where it does not.
    settle = DiceSettler(2, min_confidence=0.8, tolerance_px=4)
    five = seen(5, 300, {5: 0.62, 6: 0.31})
    (roll,) = reports(settle, [[five, THREE]] * 2)
    assert (roll.values, roll.certain) == ((3, 5), False)
    assert roll.dice == (
        RolledDie(3, (100, 100, 40, 40), 0.99, ((3, 0.99),), sure=True),
        RolledDie(5, (300, 100, 40, 40), 0.62, ((5, 0.62), (6, 0.31)), sure=False),
    )
