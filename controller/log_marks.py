"""The marks a game's log carries beside its moves: where moves were taken back, and which
dice stand as they fell before a take-back (controller/journal.py keeps them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.rules.api import JSON, Game


@dataclass
class TakeBacks:
    """Where the game's line was taken back, for its log: after its first `at` actions, the
    moves taken back there. Moves taken back again from that point or before it fold into one
    mark, with all of them; a mark past the line's end (a misread roll retracted) goes."""

    line: list[JSON] = field(default_factory=list)
    """The actions in the game's line now."""
    marks: dict[int, list[JSON]] = field(default_factory=dict)
    fallen: set[int] = field(default_factory=set)
    """Where in the line dice stand as they fell before a take-back, not thrown again."""

    def applied(self, actions: Sequence[JSON], retract: int = 0, fallen: int = 0) -> None:
        """`actions` after the last `retract` were retracted; the last `fallen` of them are
        dice given again as they fell."""
        del self.line[len(self.line) - retract :]
        self._cut()
        self.line += actions
        self.fallen.update(range(len(self.line) - fallen, len(self.line)))

    def taken_back(self, count: int) -> None:
        at = len(self.line) - count
        folded = [move for mark, gone in sorted(self.marks.items()) if mark >= at for move in gone]
        self.marks = {mark: gone for mark, gone in self.marks.items() if mark < at}
        self.marks[at] = folded + self.line[at:]  # those taken back before first
        del self.line[at:]
        self._cut()

    def _cut(self) -> None:
        self.marks = {at: gone for at, gone in self.marks.items() if at <= len(self.line)}
        self.fallen = {at for at in self.fallen if at < len(self.line)}

    def to_json(self, game: Game, upto: int | None = None) -> list[JSON]:
        """The marks in line order (those within its first `upto` actions), each with the ids
        of its moves."""
        return [
            {"at": at, "count": len(gone), "moves": [game.action_from_json(a).id for a in gone]}
            for at, gone in sorted(self.marks.items())
            if upto is None or at <= upto
        ]

    def fallen_json(self, upto: int | None = None) -> list[int]:
        """The line's places (of its first `upto`) where dice stand as they fell before."""
        return sorted(at for at in self.fallen if upto is None or at < upto)
