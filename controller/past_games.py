"""Games people keep: the journals of earlier games in the state directory, listed, downloaded
and shown again position by position on the page.

A game's journal is kept beside the current one under a dated name (`journal.KEPT`) when the next
game starts, finished or not. Such a file is named by its id, and only a file of the listing can
be opened: an id is never a path. A file that does not read back is listed as unreadable, never
a reason for the listing to fail.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.journal import KEPT, Journal, JournalError, Record, read_journal
from controller.replay import lights_view
from controller.rules import get_game
from controller.rules.api import JSON, Game, GameState, HistoryError
from controller.seats import per_seat
from controller.session import Session
from controller.snapshot import table_snapshot
from controller.startup import builtin_profile
from controller.terminal import role_marks
from hardware.leds import RGB
from hardware.profile import BoardProfile, load_profile

log = logging.getLogger(__name__)

ABANDONED = "abandoned"
"""The result of a game kept before it was over: a new game was started over it."""


def _kept(state_dir: Path) -> dict[str, Path]:
    """The kept journals of `state_dir`, by id (the file's name)."""
    return {path.name: path for path in state_dir.glob(KEPT.format("*")) if path.is_file()}


def _stamp(path: Path) -> tuple[int, int]:
    """What tells one version of a file from another: a file kept never changes, but is it
    still the one that was read?"""
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def past_games(state_dir: Path) -> list[JSON]:
    """Each kept game, newest first: id, start time, game, seats and their chosen names,
    result and number of moves; or, for a file that does not read back, why."""
    games = []
    for game_id, path in _kept(state_dir).items():
        try:
            games.append(_summary(path, _stamp(path)))
        except OSError as error:  # removed meanwhile, or unreadable
            games.append({"id": game_id, "started": None, "unreadable": str(error)})
    return sorted(games, key=lambda g: (g["started"] or 0.0, g["id"]), reverse=True)


@functools.lru_cache(maxsize=256)
def _summary(path: Path, stamp: tuple[int, int]) -> JSON:
    """One line of the listing; a game kept never changes, so each is replayed once."""
    try:
        record = read_journal(path)[0]
        game = get_game(record.game).on_board(record.options)
        state = game.replay(record.history(), record.options)
    except (JournalError, HistoryError, ValueError) as error:
        log.warning("past game %s: %s", path, error)
        # Said by its name alone: the page need not show where the table keeps its files.
        why = str(error).replace(str(path), path.name)
        return {"id": path.name, "started": stamp[0] / 1e9, "unreadable": why}
    seats = state.num_players
    return {
        "id": path.name,
        "started": record.started if record.started is not None else stamp[0] / 1e9,
        "game": game.name,
        "title": game.title,
        "players": [state.player_name(p) for p in range(seats)],
        "names": per_seat(record.names, seats),
        "result": game.result(state) or ABANDONED,
        "moves": len(state.history()),
        "note": None if record.damage is None else record.damage.sentence(),
    }


def _past(state_dir: Path, game_id: object) -> tuple[Path, tuple[int, int]]:
    """The file of a kept game and its version, by its id from the listing (a ValueError if
    none: an id is a name of the listing, never a path)."""
    if not isinstance(game_id, str):
        raise ValueError(f'"id" must name a past game, not {game_id!r}')
    path = _kept(state_dir).get(game_id)
    if path is None:
        raise ValueError(f"no past game {game_id[:80]!r} here: `smartboard games` lists them")
    try:
        return path, _stamp(path)
    except OSError as error:
        raise ValueError(f"past game {game_id} cannot be read: {error.strerror}") from None


def past_record(state_dir: Path, game_id: object) -> Record:
    """The journal of a kept game, by its id from the listing (a ValueError if none)."""
    try:
        return _read(*_past(state_dir, game_id))
    except (OSError, JournalError) as error:
        raise ValueError(f"past game {game_id} does not read back: {error}") from None


@functools.lru_cache(maxsize=8)
def _read(path: Path, stamp: tuple[int, int]) -> Record:
    """A kept journal, read once while a player steps through it."""
    return read_journal(path)[0]


def record_json(record: Record) -> JSON:
    """The game record that `smartboard replay FILE` reads, with the players' names (a
    ValueError for a game this table does not know)."""
    try:
        history = record.history()
        seats = get_game(record.game).new_initial_state(record.options).num_players
    except (JournalError, ValueError) as error:
        raise ValueError(f"{record.game} game: {error}") from None
    names = per_seat(record.names, seats)
    return {"game": record.game, "options": record.options, "history": history, "names": names}


CHECKPOINT = 32
"""A replayed game keeps its position every so many moves: a step back, or the slider dragged
across a long game, replays a few moves, not the whole game."""


class _Replay:
    """A kept game's positions, each rebuilt from the nearest one kept before it."""

    def __init__(self, record: Record) -> None:
        self.game = get_game(record.game).on_board(record.options)
        self.history = record.history()
        self._kept: dict[int, GameState] = {0: self.game.new_initial_state(record.options)}

    def state(self, step: int) -> GameState:
        start = max(kept for kept in self._kept if kept <= step)
        state = self._kept[start].clone()
        for done in range(start, step):
            try:
                state.apply(self.game.action_from_json(self.history[done]))
            except (HistoryError, ValueError) as error:  # IllegalActionError is a ValueError
                raise ValueError(f"move {done + 1} does not replay: {error}") from None
            if (done + 1) % CHECKPOINT == 0:
                self._kept[done + 1] = state.clone()
        return state


@functools.lru_cache(maxsize=4)
def _replay(path: Path, stamp: tuple[int, int]) -> _Replay:
    return _Replay(_read(path, stamp))


@functools.cache
def _builtin_profile(game: Game) -> BoardProfile:
    """The board profile of a game on another board than the table's: its built-in one."""
    return load_profile(builtin_profile(game), game.spots())


def past_position(
    state_dir: Path,
    game_id: object,
    step: object,
    profiles: Mapping[str, BoardProfile],
    palette: Mapping[str, RGB],
) -> JSON:
    """A kept game after its first `step` moves, as a snapshot the page draws: the lights its
    rules give that position, the pieces where they belong, and nothing to decide."""
    record = past_record(state_dir, game_id)
    try:
        replay = _replay(*_past(state_dir, game_id))
        number = _step(step, len(replay.history))
        state = replay.state(number)
    except (JournalError, ValueError) as error:
        raise ValueError(f"past game {game_id}: {error}") from None
    game, history = replay.game, replay.history
    profile = profiles.get(game.name)
    if profile is None or set(profile.spots) != set(game.spots()):
        profile = _builtin_profile(game)
    # A session of its own, never opened: nothing is sensed but the position, nothing written.
    session = Session(game, state, Journal(state_dir), settle_s=0.0)
    view = lights_view(game, state)
    snapshot = table_snapshot(game, session, view, profile, palette, decisions=False)
    action = None if number == 0 else game.action_from_json(history[number - 1]).id
    return {
        "id": game_id,
        "step": number,
        "steps": len(history),
        "action": action,
        "snapshot": snapshot | _still(record, game, state),
    }


def _step(given: object, steps: int) -> int:
    """A step from 0 (the set-up) to `steps` (the last move): a number, or its digits."""
    step = int(given) if isinstance(given, str) and given.isdigit() else given
    if type(step) is not int or not 0 <= step <= steps:
        raise ValueError(f"step must be a whole number from 0 to {steps}, not {given!r}")
    return step


def _still(record: Record, game: Game, state: GameState) -> dict[str, Any]:
    """What a live table adds to its snapshot, for a position that is only looked at."""
    marks = record.take_backs()
    return {
        "message": "",
        "version": 0,
        "paused": False,
        "sim": False,  # nothing on it to click
        "placeable": [],
        "correctable": False,
        "trouble": None,
        "alerts": [],
        "marks": role_marks(),
        "link": None,
        "camera": None,
        "dice_seen": [],
        "dice_unsure": None,
        "names": per_seat(record.names, state.num_players),
        "taken_back": marks.to_json(game, upto=len(state.actions())),
        "log_fallen": marks.fallen_json(upto=len(state.actions())),
    }
