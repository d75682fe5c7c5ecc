"""A new game as asked for (`smartboard new`, the page's New game), checked whole before anything
changes: a mistake in it is said before the game in progress is given up for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.journal import COMPUTER_DICE
from controller.rules import get_game
from controller.rules.api import Game, GameState
from controller.seats import Names, check_computer, check_names


@dataclass(frozen=True)
class NewGame:
    """The game on its board, its first state, the names chosen, the seats the table plays
    (seat: level), whether hints are on, and who throws the table's dice."""

    game: Game
    state: GameState
    names: Names
    computer: dict[int, str]
    hints: bool
    computer_dice: str


def plan_new_game(
    playing: Game,
    playing_options: dict[str, Any],
    playing_dice: str,
    name: object = None,
    options: object = None,
    names: object = None,
    computer: object = None,
    hints: object = None,
    computer_dice: object = None,
) -> NewGame:
    """The game `name` (default: the one `playing`, with its options unless others are given),
    played by `names` (controller/seats.py), the table playing the `computer` seats
    (`SEAT[:LEVEL]` words), their dice thrown by "hand" or "virtual" (default: as now), hints
    "on" or "off". A ValueError says what is wrong."""
    if name is not None and not isinstance(name, str):
        raise ValueError(f"the game must be named: {name!r}")
    if options is not None and not isinstance(options, dict):
        raise ValueError(f"the options must be an object: {options!r}")
    rules = playing if name is None else get_game(name)
    if options is None and rules.name == playing.name:
        options = playing_options
    state = rules.new_initial_state(options)
    chosen = check_names(names, state.num_players)
    players = [state.player_name(seat) for seat in range(state.num_players)]
    seats = check_computer(computer, players)
    if hints not in (None, "on", "off"):
        raise ValueError(f'hints are "on" or "off", not {hints!r}')
    if computer_dice not in (None, *COMPUTER_DICE):
        raise ValueError(
            f'the computer\'s dice are thrown by "hand" or "virtual", not {computer_dice!r}'
        )
    dice = playing_dice if computer_dice is None else str(computer_dice)
    return NewGame(rules.on_board(state.options), state, chosen, seats, hints != "off", dice)
