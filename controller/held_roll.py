"""A roll the camera read but was unsure of, held until the players settle it (issue 22).

The players confirm it as read, type the right roll over it, or settle it die by die: each
unsure die tapped to one of its readings (`pick`). Once every unsure die is tapped, the roll is
applied: `confirmed` if each kept the value read, `corrected` if any was changed
(`ROLL_SOURCES`). The dice are numbered left to right from 1, as `smartboard status`, the page
and the picture of the roll (`vision.dice_reader.roll_picture`) name them.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.refusals import Refused
from controller.rules.api import JSON
from vision.dice_settle import RolledDie, SettledRoll
from vision.dice_sources import Face


class HeldRoll:
    def __init__(self, roll: SettledRoll, number: int) -> None:
        """`number`: which roll held since the daemon started, for the page to ask its picture
        by (`/api/unsure.jpg?roll=N`)."""
        self.roll = roll
        self.number = number
        self.picks: dict[int, Face] = {}  # die number -> the face tapped
        self._picture: bytes | None = None

    @property
    def values(self) -> tuple[Face, ...]:
        return self.roll.values

    @property
    def confidence(self) -> float:
        return self.roll.confidence

    def unsure(self) -> dict[int, RolledDie]:
        """The unsure dice by number, left to right."""
        return {n: die for n, die in enumerate(self.roll.dice, 1) if not die.sure}

    def pick(self, die: object, face: object) -> tuple[tuple[Face, ...], str] | None:
        """Die number `die` tapped as showing `face` (one of its readings). Once every unsure
        die is tapped: the roll to apply and how it came (this last tap kept only if the caller
        applies it); before that, None. Raises `Refused` for a die that is not unsure or a
        face that is not among its readings."""
        number = _number(die)
        dice = self.roll.dice
        unsure = self.unsure()
        if number is None or not 1 <= number <= len(dice):
            raise Refused(
                f"no die {die!r}: the roll read has {len(dice)} dice, numbered 1 to {len(dice)} "
                "left to right",
                "no_such_die",
                die=str(die),
                count=len(dice),
            )
        if number not in unsure:
            read = dice[number - 1]
            which = ", ".join(map(str, unsure))
            raise Refused(
                f"die {number} is not unsure (read {read.value} at {read.confidence:.2f}): "
                f"the unsure dice are {which}",
                "not_unsure",
                die=number,
                value=read.value,
                unsure=which,
            )
        faces = {str(f): f for f, _ in unsure[number].readings}
        if str(face) not in faces:
            offered = " or ".join(faces)
            raise Refused(
                f"die {number} reads {offered}, not {face}: for another face, type the whole roll "
                "with `smartboard roll`",
                "not_a_reading",
                die=number,
                faces=" / ".join(faces),
                face=str(face),
            )
        picks = self.picks | {number: faces[str(face)]}
        if picks.keys() < unsure.keys():
            self.picks = picks
            return None
        values = tuple(picks.get(n, die.value) for n, die in enumerate(dice, 1))
        return values, "confirmed" if values == self.values else "corrected"

    def picture(self, draw: Callable[[SettledRoll], bytes | None]) -> bytes | None:
        """The picture of the roll, `draw`n once."""
        if self._picture is None:
            self._picture = draw(self.roll)
        return self._picture

    def to_json(self) -> JSON:
        """`values` and `confidence` as read; `roll`, its number; `picture`, whether its frame
        was kept; `dice`, each unsure die: its number, colour (when the value names one, as in
        "red:steal"), value, confidence, box in the frame, readings and the face tapped if any;
        `text`, all that in a sentence."""
        dice = [
            {
                "die": n,
                "colour": _colour(die.value),
                "value": die.value,
                "confidence": round(die.confidence, 3),
                "box": list(die.box),
                "readings": [{"face": f, "chance": round(p, 3)} for f, p in die.readings],
                "picked": self.picks.get(n),
            }
            for n, die in self.unsure().items()
        ]
        return {
            "values": list(self.values),
            "confidence": round(self.confidence, 3),
            "roll": self.number,
            "picture": self.roll.frame is not None,
            "dice": dice,
            "text": self.sentence(),
        }

    def sentence(self) -> str:
        """E.g. "dice read 3, 5, 2 but unsure: die 2 (5 at 0.62, else 6 at 0.31)"."""
        read = ", ".join(map(str, self.values))
        named = "; ".join(self._die_text(n, die) for n, die in self.unsure().items())
        return f"dice read {read} but unsure: {named}" if named else f"dice read {read} but unsure"

    def _die_text(self, number: int, die: RolledDie) -> str:
        colour = _colour(die.value)
        said = [f"{_face(f)} at {p:.2f}" for f, p in die.readings]
        text = ", else ".join(said) if len(said) > 1 else f"{said[0]}, no other reading"
        if number in self.picks:
            text += f"; tapped {_face(self.picks[number])}"
        return f"die {number}{f' {colour}' if colour else ''} ({text})"


def _number(die: object) -> int | None:
    if isinstance(die, bool):
        return None
    if isinstance(die, int):
        return die
    return int(die) if isinstance(die, str) and die.strip().isdigit() else None


def _colour(value: Face) -> str | None:
    """The die's colour, where its faces name it ("red:steal")."""
    colour, _, _ = str(value).rpartition(":")
    return colour or None


def _face(value: Face) -> str:
    """A face without the die's colour, which the sentence says once."""
    return str(value).rpartition(":")[2]
