"""Dice Race: a sixth game, small, declared only here and registered by the tests that use it.

It proves that a game is one rules module plus one board profile (`dice_race.toml` beside it):
nothing elsewhere names it. Two pawns, red and blue, start on square 1 of a track of eight. On
their turn a player rolls one d6 (the game's one chance node), then moves their pawn that many
squares, or a single square if they prefer; no pawn goes past the goal. The first pawn on the
goal wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from controller.rules.api import (
    CHANCE,
    JSON,
    PRESENT,
    REED,
    TERMINAL,
    UNSENSED,
    Action,
    DiceRequest,
    Game,
    GameState,
    IllegalActionError,
    Layout,
)
from controller.rules.game_type import GameType, Option, Role

SQUARES = 8
PLAYERS = ("red", "blue")
D6 = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Roll(Action):
    """The chance outcome: the die's face."""

    value: int


@dataclass(frozen=True)
class Advance(Action):
    """Move the pawn of the player to move `steps` squares on."""

    steps: int


class RaceState(GameState):
    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.goal: int = options["goal"]
        self.square = [1, 1]
        self.to_move = 0
        self.rolled: int | None = None

    @property
    def num_players(self) -> int:
        return len(PLAYERS)

    def winner(self) -> int | None:
        return next((p for p, square in enumerate(self.square) if square == self.goal), None)

    def current_player(self) -> int:
        if self.winner() is not None:
            return TERMINAL
        return CHANCE if self.rolled is None else self.to_move

    def legal_actions(self) -> list[Action]:
        if self.rolled is None or self.winner() is not None:
            return []
        room = self.goal - self.square[self.to_move]
        return [Advance(s) for s in sorted({min(1, room), min(self.rolled, room)}) if s > 0]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.current_player() != CHANCE:
            return []
        return [(Roll(face), 1 / len(D6)) for face in D6]

    def returns(self) -> list[float]:
        winner = self.winner()
        if winner is None:
            return [0.0, 0.0]
        return [1.0 if p == winner else -1.0 for p in range(len(PLAYERS))]

    def _apply(self, action: Action) -> None:
        if isinstance(action, Roll):
            self.rolled = action.value
            return
        assert isinstance(action, Advance)
        self.square[self.to_move] += action.steps
        self.rolled = None
        self.to_move = 1 - self.to_move


class DiceRaceGame(Game):
    info = GameType(
        name="dice_race",
        title="Dice Race",
        title_fr="Course de dés",
        player_names=PLAYERS,
        options=(Option("goal", SQUARES, "the square to reach first", low=2, high=SQUARES),),
        profile=str(Path(__file__).with_name("dice_race.toml")),
        palette=(
            Role("red", "#ff0010"),
            Role("blue", "#0000ff"),
            Role("goal", "#40ff40", "="),
        ),
        dice_kinds=("d6",),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (Roll, Advance)

    def _new_state(self, options: Mapping[str, Any]) -> RaceState:
        return RaceState(options)

    def layout(self, state: GameState) -> Layout:
        s = RaceState.of(state)
        return {f"{square}.{PLAYERS[p]}": PRESENT for p, square in enumerate(s.square)}

    def lights(self, state: GameState) -> dict[str, str]:
        s = RaceState.of(state)
        roles = {str(s.goal): "goal"}
        for p, square in enumerate(s.square):
            roles[f"{square}.{PLAYERS[p]}"] = PLAYERS[p]
        for action in s.legal_actions():
            assert isinstance(action, Advance)
            roles[f"{s.square[s.to_move] + action.steps}.{PLAYERS[s.to_move]}"] = "legal"
        return roles

    def board_rows(self) -> list[list[str]]:
        return [[str(square) for square in range(1, SQUARES + 1)]]

    def spots(self) -> dict[str, str]:
        out = {str(square): UNSENSED for square in range(1, SQUARES + 1)}
        for square in range(1, SQUARES + 1):
            for player in PLAYERS:
                out[f"{square}.{player}"] = REED
        return out

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        return DiceRequest("d6", 1, D6) if state.is_chance_node() else None

    def roller(self, state: GameState) -> int | None:
        """Each player rolls for their own advance."""
        assert isinstance(state, RaceState)
        return state.to_move if state.is_chance_node() else None

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        if not state.is_chance_node():
            raise IllegalActionError("no dice are wanted now")
        if len(reading) != 1 or reading[0] not in D6:
            raise IllegalActionError(f"one d6 is rolled, not {list(reading)}")
        return [Roll(int(reading[0]))]

    def describe(self, state: GameState) -> JSON:
        s = RaceState.of(state)
        squares = {PLAYERS[p]: square for p, square in enumerate(s.square)}
        return {"turn": len(s.actions()) // 2 + 1, "squares": squares, "rolled": s.rolled}


GAME = DiceRaceGame()
RaceState.game = GAME
