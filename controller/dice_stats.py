"""Are the dice fair? Every roll of real dice the journals hold, counted face by face.

Each roll is journalled with its kind of dice, its faces and how it came (controller/session.py
`ROLL_SOURCES`). Rolls of real dice (read by the camera, confirmed, corrected or typed in) are
counted per game, kind of dice and die (a die told apart by its colour, "red:steal"); those the
software rolled are not dice anyone can trust or doubt. A misread roll later corrected counts as
corrected. Each tally gets Pearson's chi-square test against fair dice and a verdict in plain
words, which warns only when the evidence is strong and there are enough rolls to say so.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from controller.journal import JOURNAL, KEPT, JournalError, read_journal
from controller.rules import icon_dice
from controller.rules.api import JSON

REAL = ("read", "confirmed", "corrected", "typed")
"""The sources of rolls thrown by hand, whose fairness is in question."""
PER_FACE = 5
"""Chi-square needs about this many rolls expected on every face before it can be trusted."""
STRONG = 0.01
"""A p-value below this is strong evidence of bias: the verdict warns."""
D6 = tuple(str(n) for n in range(1, 7))


@dataclass(frozen=True)
class Tally:
    """The faces one die (or one kind of dice) showed in one game's rolls."""

    game: str
    kind: str
    die: str | None
    """The die's colour when the dice of the kind are told apart by colour, else None."""
    faces: tuple[str, ...]
    counts: tuple[int, ...]

    @property
    def rolls(self) -> int:
        return sum(self.counts)

    def chi_square(self) -> tuple[float, float] | None:
        """Pearson's statistic against fair dice and its p-value; None with no rolls."""
        n, k = self.rolls, len(self.faces)
        if n == 0 or k < 2:
            return None
        expected = n / k
        statistic = sum((count - expected) ** 2 / expected for count in self.counts)
        return statistic, chi_square_sf(statistic, k - 1)

    def verdict(self) -> JSON:
        """The plain-words verdict: `text`, a `key` and its `params` for the page, and `warn`."""
        n, k = self.rolls, len(self.faces)
        who = f"the {self.die} {self.kind}" if self.die else f"the {self.kind}"
        test = self.chi_square()
        if test is None or n < PER_FACE * k:
            rolls = "1 roll" if n == 1 else f"{n} rolls"
            text = f"{who}: {rolls}, too few to tell (at least {PER_FACE * k} needed)"
            return _said(text, "too_few", False, who=who, rolls=n, needed=PER_FACE * k)
        _, p = test
        if p >= STRONG:
            chance = f"p = {p:.2f}"
            text = f"{who}: no sign of bias after {n} rolls ({chance})"
            return _said(text, "fair", False, who=who, rolls=n, chance=chance)
        # The face furthest from its share, in standard deviations of a fair die's count.
        expected = n / k
        spread = math.sqrt(expected * (1 - 1 / k))
        face, count = max(
            zip(self.faces, self.counts, strict=True), key=lambda fc: abs(fc[1] - expected)
        )
        often = "often" if count > expected else "rarely"
        chance = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
        text = (
            f"{who} shows {face} too {often}: {chance} over {n} rolls ({count} times, a fair "
            f"die {expected:.0f} \u00b1 {spread:.0f})"
        )
        params = {"who": who, "face": face, "chance": chance, "rolls": n, "count": count}
        return _said(text, f"biased_{often}", True, **params)

    def to_json(self) -> JSON:
        test = self.chi_square()
        return {
            "game": self.game,
            "kind": self.kind,
            "die": self.die,
            "faces": dict(zip(self.faces, self.counts, strict=True)),
            "rolls": self.rolls,
            "chi_square": None if test is None else round(test[0], 3),
            "p": None if test is None else round(test[1], 4),
            "verdict": self.verdict(),
        }


def _said(text: str, key: str, warn: bool, **params: object) -> JSON:
    return {"text": text, "key": key, "params": params, "warn": warn}


def tallies(state_dir: Path) -> list[Tally]:
    """Every die's faces in the journals of `state_dir` (the game on the table and those kept)."""
    seen: dict[tuple[str, str, str | None], Counter[str]] = {}
    for game, roll in _rolls(state_dir):
        kind, values = roll.get("kind"), roll.get("values")
        if not isinstance(kind, str) or not isinstance(values, list):
            continue
        for value in values:
            colour, _, face = str(value).rpartition(":")
            seen.setdefault((game, kind, colour or None), Counter())[face] += 1
    out = []
    for (game, kind, die), counter in sorted(seen.items(), key=lambda item: str(item[0])):
        faces = _faces(kind) or tuple(sorted(counter))
        faces += tuple(sorted(set(counter) - set(faces)))  # a face the game never declared
        out.append(Tally(game, kind, die, faces, tuple(counter[face] for face in faces)))
    return out


def sources(state_dir: Path) -> dict[str, int]:
    """How many rolls came each way (read, confirmed, corrected, typed, virtual)."""
    counted = Counter(str(roll.get("source")) for _, roll in _rolls(state_dir, real=False))
    return dict(sorted(counted.items()))


def _rolls(state_dir: Path, real: bool = True) -> Iterator[tuple[str, JSON]]:
    """The rolls in each journal (of real dice only, if `real`), a corrected roll in place of
    the one it mends."""
    for path in [*sorted(state_dir.glob(KEPT.format("*"))), state_dir / JOURNAL]:
        try:
            stat = path.stat()
        except OSError:
            continue
        game, rolls = _journal_rolls(path, stat.st_mtime_ns, stat.st_size)
        yield from ((game, roll) for roll in rolls if not real or roll.get("source") in REAL)


@functools.lru_cache(maxsize=256)
def _journal_rolls(path: Path, mtime_ns: int, size: int) -> tuple[str, tuple[JSON, ...]]:
    """A journal's game and rolls, read once for each state of the file: the page asks after
    every move, and a kept game's journal never changes."""
    try:
        record, _ = read_journal(path)
    except JournalError:
        return "", ()  # a journal that does not read back has no rolls to tell
    rolls: list[JSON] = []
    for entry in record.entries:
        if "retract" in entry and rolls:
            rolls.pop()  # a misread roll being corrected: its record follows
        roll = entry.get("dice")
        if isinstance(roll, dict):
            rolls.append(roll)
    return record.game, tuple(rolls)


def _faces(kind: str) -> tuple[str, ...]:
    """The faces of a kind of dice, as the games declare them."""
    if kind == "d6":
        return D6
    dice = icon_dice().get(kind)
    return () if dice is None else tuple(dice.faces)


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with `df` degrees of freedom: the regularized upper
    incomplete gamma Q(df/2, statistic/2), by its series or continued fraction (Numerical
    Recipes, 6.2), to about 1e-12."""
    a, x = df / 2, statistic / 2
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:  # the series for P, then Q = 1 - P
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300  # Lentz's continued fraction for Q
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)
