"""`smartboard replay FILE`: a saved game shown again, one action at a time.

A game record is what the dashboard downloads, {"game", "options", "history"}, or a journal
file of the state directory (the current one or a finished game's dated copy).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal import JournalError, read_journal
from controller.rules import get_game
from controller.rules.api import JSON, Action, Game, GameState, HistoryError
from controller.session import View


class RecordError(ValueError):
    """A file that is no game record, or a history that does not replay."""


@dataclass(frozen=True)
class GameRecord:
    game: Game
    options: dict[str, Any]
    history: list[JSON]
    names: list[str | None]  # chosen per seat (controller/seats.py)


def load_record(path: Path) -> GameRecord:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecordError(f"cannot read {path}: {error}") from error
    try:
        data = json.loads(text)
    except ValueError:
        data = None  # a journal: one checksummed record per line
    if data is None or (isinstance(data, dict) and "crc" in data):
        try:
            record, _ = read_journal(path)
            return _record(record.game, record.options, record.history(), record.names, path)
        except JournalError as error:
            raise RecordError(f"{path} is neither a game record nor a journal: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        raise RecordError(f'{path}: a game record is an object with "game", "options", "history"')
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise RecordError(f'{path}: "options" must be an object')
    names = data.get("names", [])
    if not isinstance(names, list) or not all(n is None or isinstance(n, str) for n in names):
        raise RecordError(f'{path}: "names" must be a list of names (or null), one a seat')
    return _record(data.get("game"), options, data["history"], names, path)


def _record(
    name: object, options: Mapping[str, Any], history: list[Any], names: list[Any], path: Path
) -> GameRecord:
    if not isinstance(name, str):
        raise RecordError(f'{path}: "game" must name a game, not {name!r}')
    try:
        game = get_game(name).on_board(options)
        game.replay(history, options)  # every step must still apply
    except (HistoryError, ValueError) as error:
        raise RecordError(f"{path}: {error}") from error
    return GameRecord(game, dict(options), list(history), list(names))


def steps(record: GameRecord) -> Iterator[tuple[Action | None, GameState]]:
    """The state before the first action, then after each action with it."""
    state = record.game.new_initial_state(record.options)
    yield None, state
    for entry in record.history:
        action = record.game.action_from_json(entry)
        state = state.child(action)
        yield action, state


def lights_view(game: Game, state: GameState) -> View:
    """The lights of a position alone, as the table showed them once the pieces were in place."""
    roles = game.lights(state)
    alert = game.alert(state)
    return View(roles, alert.spots if alert is not None else frozenset())
