"""A tiny camera game for the tests: stacks of dice on three cells, like Baron Voodoo's board.

Set-up is chance read from the board: a die is put on cell a, then b, then c, each red:1 or
blue:2 at even odds (no dice stand for it). Then the two players take turns moving the top die
of one stack onto another, `moves` times in all; whoever moves last wins. With `twins`, every
set-up outcome has a twin that lays out the same board, so the board cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    IllegalActionError,
    Layout,
)
from controller.rules.game_type import GameType, Option

CELLS = ("a", "b", "c")
TOKENS = ("red:1", "blue:2")


@dataclass(frozen=True)
class Put(Action):
    cell: str
    token: str
    twin: int


@dataclass(frozen=True)
class Move(Action):
    src: str
    dst: str


class StackState(GameState):
    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.stacks: dict[str, list[str]] = {cell: [] for cell in CELLS}
        self.put = 0  # dice put on the board at set-up
        self.moves = 0

    @property
    def num_players(self) -> int:
        return 2

    def player_name(self, player: int) -> str:
        # Named from the options, as Baron Voodoo names its seated Loas.
        if player >= 0:
            return f"p{player}-of-{self.options['moves']}"
        return super().player_name(player)

    def _setting_up(self) -> str | None:
        return CELLS[self.put] if self.put < len(CELLS) else None

    def current_player(self) -> int:
        if self._setting_up() is not None:
            return CHANCE
        if self.moves >= self.options["moves"]:
            return TERMINAL
        return self.moves % 2

    def legal_actions(self) -> list[Action]:
        if self.current_player() < 0:
            return []
        return [Move(src, dst) for src in CELLS for dst in CELLS if src != dst and self.stacks[src]]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        cell = self._setting_up()
        if cell is None:
            return []
        twins = (0, 1) if self.options["twins"] else (0,)
        odds = 1 / (len(TOKENS) * len(twins))
        return [(Put(cell, token, twin), odds) for token in TOKENS for twin in twins]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        last = (self.moves - 1) % 2
        return [1.0 if p == last else -1.0 for p in range(2)]

    def _apply(self, action: Action) -> None:
        match action:
            case Put(cell, token, _):
                self.stacks[cell].append(token)
                self.put += 1
            case Move(src, dst):
                self.stacks[dst].append(self.stacks[src].pop())
                self.moves += 1


class StackGame(Game):
    info = GameType(
        name="stacks",
        title="Stacks",
        title_fr="Piles",
        player_names=("first", "second"),
        options=(Option("moves", 2, "moves in all"), Option("twins", False, "twin set-ups")),
        profile="",
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (Put, Move)

    def _new_state(self, options: Mapping[str, Any]) -> StackState:
        return StackState(options)

    def layout(self, state: GameState) -> Layout:
        return {cell: stack[-1] for cell, stack in _stacks(state).items() if stack}

    def lifted(self, state: GameState) -> Layout:
        return {cell: stack[-2] for cell, stack in _stacks(state).items() if len(stack) > 1}

    def lights(self, state: GameState) -> dict[str, str]:
        return {}

    def board_rows(self) -> list[list[str]]:
        return [list(CELLS)]

    def spots(self) -> dict[str, str]:
        return dict.fromkeys(CELLS, CAMERA)

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        raise IllegalActionError("no dice in this game")

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        return None

    def result(self, state: GameState) -> JSON | None:
        summary = super().result(state)
        if summary is not None:
            stacks = _stacks(state)
            summary["scores"] = {state.player_name(0): len(stacks["a"]), state.player_name(1): 0}
        return summary


def _stacks(state: GameState) -> dict[str, list[str]]:
    assert isinstance(state, StackState)
    return state.stacks


GAME = StackGame()
StackState.game = GAME

PROFILE = """
game = "stacks"
name = "three cells under the camera"

[table]
size_mm = [150, 50]

[leds]
count = 3

[[spots]]
id = "a"
leds = [0]
region = [0, 0, 50, 50]

[[spots]]
id = "b"
leds = [1]
region = [50, 0, 50, 50]

[[spots]]
id = "c"
leds = [2]
region = [100, 0, 50, 50]
"""
