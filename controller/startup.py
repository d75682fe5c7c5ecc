"""What the daemon starts from: its run options, the game the journal holds or a new one, and the
game's board profile; and why it cannot start."""

from __future__ import annotations

import itertools
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from controller.config import Config
from controller.journal import (
    EmptyJournalError,
    Journal,
    JournalError,
    JournalWriteError,
    Record,
)
from controller.rules import GAMES, get_game
from controller.rules.api import Game, GameState, HistoryError
from controller.rules.game_type import Option, OptionValue
from controller.seats import Names, check_computer, check_names, per_seat
from hardware.profile import BoardProfile, ProfileError, builtin_profile_path, load_profile
from hardware.toml_files import read_toml_text

log = logging.getLogger(__name__)

ANOTHER = (
    "to play it on, run again without the game's settings (--game, --players, --teams, --option, "
    "--names, --computer, --computer-dice, --hints): it keeps its own; to play another, add "
    "--new-game (this one is kept among the past games)"
)
"""What to do with a journal's game that is not the one asked for: a newcomer's first question
(the walk: a game started from the page, then the first command line run again)."""


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
    page_only: bool = False  # seats in a linked game played from the dashboard, no table
    pace: float = 0.5
    until_end: bool = False
    new_game: bool = False
    seed: int | None = None
    names: tuple[str | None, ...] | None = None  # the players' names for a new game (--names)
    computer: tuple[str, ...] | None = None  # the seats the table plays, SEAT[:LEVEL] (--computer)
    computer_dice: str | None = None  # who rolls their dice: "hand" (default), "virtual"
    hints: bool | None = None  # whether hints are on for a new game (default: on)
    think_s: float | None = None  # the most a computer seat thinks per move (--think-time)
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
                    f"{journal.path} holds a {record.game} game; {ANOTHER}, or use another "
                    "--state-dir"
                )
            changed = {k: v for k, v in options.options.items() if record.options.get(k) != v}
            if changed:
                raise StartupError(
                    f"{journal.path} holds a {record.game} game played with "
                    f"{record.options}, not {changed}; {ANOTHER}"
                )
            game = get_game(record.game).on_board(record.options)
            state = game.replay(record.history(), record.options)
            kept = per_seat(record.names, state.num_players)
            if options.names is not None and _names(options, state) != kept:
                raise StartupError(
                    f"{journal.path} holds a {record.game} game played by {kept}, not "
                    f"{list(options.names)}; {ANOTHER}"
                )
            _check_players(options, record, state, journal.path)
            # A finished game stays on the table, showing its result, until `smartboard new`.
            log.info("resumed %s after %d actions", game.name, len(state.actions()))
            return game, state
        game = get_game(chosen)
        state = game.new_initial_state(options.options)
        hints = options.hints is not False
        seats, dice = _computer(options, state), options.computer_dice or "hand"
        names = _names(options, state)
        journal.start(game.name, state.options, names, seats, hints, dice, deal_seed(options.seed))
        return game.on_board(state.options), state
    except (JournalError, HistoryError, ValueError, OSError, JournalWriteError) as error:
        raise StartupError(f"cannot open the game journal: {error}") from error


def deal_seed(seed: int | None, games: int = 0) -> str:
    """The seed a game's simulated hands are dealt from (controller/hands.py), kept in its
    journal so that a restart deals them again: with `--seed`, from it and the `games` this run
    started before, so that a seeded run deals alike each time; else at random."""
    return secrets.token_hex(8) if seed is None else f"{seed}/{games}"


def _names(options: RunOptions, state: GameState) -> Names:
    """The names given for the seats of `state`'s game: a bad one stops the start-up, and is
    not the journal's fault."""
    try:
        return check_names(
            None if options.names is None else list(options.names), state.num_players
        )
    except ValueError as error:
        raise StartupError(f"--names: {error}") from None


def _computer(options: RunOptions, state: GameState) -> dict[int, str]:
    """The seats --computer gives the table in `state`'s game: a bad one stops the start-up."""
    given = None if options.computer is None else list(options.computer)
    try:
        return check_computer(given, [state.player_name(p) for p in range(state.num_players)])
    except ValueError as error:
        raise StartupError(f"--computer: {error}") from None


def _check_players(options: RunOptions, record: Record, state: GameState, path: Path) -> None:
    """A game resumed keeps the seats the table plays, who throws their dice, and its hints:
    other ones asked for are another game."""
    if options.computer is not None and _computer(options, state) != record.computer:
        played = ", ".join(f"{s + 1}:{level}" for s, level in sorted(record.computer.items()))
        raise StartupError(
            f"{path} holds a {record.game} game whose computer seats are {played or 'none'}, not "
            f"{', '.join(options.computer)}; {ANOTHER}"
        )
    if options.computer_dice is not None and options.computer_dice != record.computer_dice:
        raise StartupError(
            f"{path} holds a {record.game} game whose computer's dice are thrown "
            f"{'by hand' if record.computer_dice == 'hand' else 'by the table'}; {ANOTHER}"
        )
    if options.hints is not None and options.hints != record.hints:
        raise StartupError(
            f"{path} holds a {record.game} game with hints {'on' if record.hints else 'off'}; "
            f"{ANOTHER}"
        )


def board_profile(config: Config, game: Game) -> BoardProfile:
    """The config's board profile, else the built-in one of the game's board."""
    path = config.profile or builtin_profile(game)
    named = game.info.profile_for(game.default_options)
    serial = builtin_profile_path(f"{named}-serial").exists()
    built_in = f'"{named}", or "{named}-serial"' if serial else f'"{named}"'
    other = named_game(path)
    if other is not None and other.name != game.name:
        raise SetupError(
            f"board profile {path} is for {other.info.title}, not {game.info.title}: play "
            f"{other.info.title} (--game {other.name}), or set [table] profile to one for "
            f"{game.info.title} (built in: {built_in})"
        )
    try:
        profile = load_profile(path, game.spots())
    except ProfileError as error:
        # A profile of another board of this game (a size): say so, not which spots it lacks.
        other = next((b for b in boards(game) if b is not game and _fits(path, b)), None)
        if other is None:
            raise
        chosen = " ".join(
            f"--option {option.name}={other.default_options[option.name]}"
            for option in game.info.options
            if option.board
        )
        raise SetupError(
            f"board profile {path} is for {_board(other)}, and this game is {_board(game)}: play "
            f"at {_board(other)} ({chosen}), or set [table] profile to one for {_board(game)} "
            f"(built in: {built_in})"
        ) from error
    if profile.game != game.name:
        raise SetupError(f"board profile {path} is for {profile.game!r}, not {game.name!r}")
    return profile


def named_game(path: Path) -> Game | None:
    """The game a profile file's `game` key names, where it names a known one (reading the
    profile says the rest): a profile of another game is said to be one at once, not as the
    dozens of spots that game lacks."""
    try:
        data, _ = read_toml_text(path, "board profile", ProfileError)
    except ProfileError:
        return None
    named = data.get("game")
    return GAMES[named] if isinstance(named, str) and named in GAMES else None


def builtin_profile(game: Game) -> Path:
    """The built-in profile of `game`'s board (`Game.on_board`); a SetupError for a board that
    has none names those that have one."""
    info = game.info
    path = builtin_profile_path(info.profile_for(game.default_options))
    names = [option.name for option in info.options if option.board]
    if path.exists() or not names:
        return path  # a game kept elsewhere whose file is missing: load_profile says so
    have = [
        " ".join(str(board.default_options[name]) for name in names)
        for board in boards(game)
        if builtin_profile_path(info.profile_for(board.default_options)).exists()
    ]
    asked = " ".join(f"{name} {game.default_options[name]}" for name in names)
    listed = f"{', '.join(have[:-1])} or {have[-1]}" if len(have) > 1 else "".join(have)
    raise SetupError(
        f"{info.title} has no built-in board profile for {asked} (no {path}); "
        + (f"it has one for {' '.join(names)} {listed}" if have else "it has none")
    )


def _fits(path: Path, game: Game) -> bool:
    try:
        load_profile(path, game.spots())
    except ProfileError:
        return False
    return True


def _board(game: Game) -> str:
    """The board options of `game` in words: "size 16"."""
    return ", ".join(
        f"{option.name} {game.default_options[option.name]}"
        for option in game.info.options
        if option.board
    )


def boards(game: Game) -> list[Game]:
    """Every board of `game` (`Game.on_board`), the default one first."""
    board = [option for option in game.info.options if option.board]
    names = [option.name for option in board]
    every = itertools.product(*(_values(option) for option in board))
    return [game.on_board(dict(zip(names, values, strict=True))) for values in every]


def _values(option: Option) -> tuple[OptionValue, ...]:
    """Every value `option` allows, its default first."""
    if option.choices:
        allowed: tuple[OptionValue, ...] = option.choices
    elif isinstance(option.default, bool):
        allowed = (False, True)
    elif option.low is not None and option.high is not None:
        allowed = tuple(range(option.low, option.high + 1))
    else:
        allowed = ()
    return (option.default, *(value for value in allowed if value != option.default))
