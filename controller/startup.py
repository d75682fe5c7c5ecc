"""What the daemon starts from: its run options, the game the journal holds or a new one, and the
game's board profile; and why it cannot start."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from controller.config import Config
from controller.journal import EmptyJournalError, Journal, JournalError, JournalWriteError
from controller.rules import get_game
from controller.rules.api import Game, GameState, HistoryError
from controller.seats import Names, check_names, per_seat
from hardware.profile import BoardProfile, builtin_profile_path, load_profile

log = logging.getLogger(__name__)


class StartupError(RuntimeError):
    """The daemon cannot start: bad profile, unreadable journal, missing hardware."""


class UnavailableError(StartupError):
    """The game needs a sensor that this table cannot read yet: restarting will not help."""


class SetupError(StartupError):
    """A file the table is set up from (its board profile, the camera's calibration) does not
    fit or cannot be read: restarting will not help, mending the file will."""


@dataclass(frozen=True)
class RunOptions:
    state_dir: Path
    socket_path: Path
    game: str | None = None
    options: dict[str, Any] = field(default_factory=dict)  # game options for a new game
    bots: bool = False
    pace: float = 0.5
    until_end: bool = False
    new_game: bool = False
    seed: int | None = None
    names: tuple[str | None, ...] | None = None  # the players' names for a new game (--names)
    show: TextIO | None = None
    colour: bool = False


def resume(journal: Journal, options: RunOptions, config: Config) -> tuple[Game, GameState]:
    """The game the journal holds, unless a new one is asked for; else a new game, of
    --game or the config's, journalled."""
    chosen = options.game or config.game
    try:
        record = None
        if journal.exists() and not options.new_game:
            try:
                record = journal.recover()
            except EmptyJournalError as error:
                # A power cut right after the journal was created: no game was played yet.
                log.warning("%s: starting a new game", error)
        if record is not None:
            if options.game and record.game != options.game:
                raise StartupError(
                    f"{journal.path} holds a {record.game} game; finish it, or use "
                    "another --state-dir for a new game"
                )
            changed = {k: v for k, v in options.options.items() if record.options.get(k) != v}
            if changed:
                raise StartupError(
                    f"{journal.path} holds a {record.game} game played with "
                    f"{record.options}, not {changed}; finish it, or start a new game"
                )
            game = get_game(record.game)
            state = game.replay(record.history(), record.options)
            kept = per_seat(record.names, state.num_players)
            if options.names is not None and _names(options, state) != kept:
                raise StartupError(
                    f"{journal.path} holds a {record.game} game played by {kept}, not "
                    f"{list(options.names)}; finish it, or start a new game"
                )
            # A finished game stays on the table, showing its result, until `smartboard new`.
            log.info("resumed %s after %d actions", game.name, len(state.actions()))
            return game, state
        game = get_game(chosen)
        state = game.new_initial_state(options.options)
        journal.start(game.name, state.options, _names(options, state))
        return game, state
    except (JournalError, HistoryError, ValueError, OSError, JournalWriteError) as error:
        raise StartupError(f"cannot open the game journal: {error}") from error


def _names(options: RunOptions, state: GameState) -> Names:
    """The names given for the seats of `state`'s game: a bad one stops the start-up, and is
    not the journal's fault."""
    try:
        return check_names(
            None if options.names is None else list(options.names), state.num_players
        )
    except ValueError as error:
        raise StartupError(f"--names: {error}") from None


def board_profile(config: Config, game: Game) -> BoardProfile:
    """The config's board profile, else the game's built-in one."""
    path = config.profile or builtin_profile_path(game.info.profile)
    profile = load_profile(path, game.spots())
    if profile.game != game.name:
        raise SetupError(f"board profile {path} is for {profile.game!r}, not {game.name!r}")
    return profile
