"""What several commands take: the state directory, the config, the game and its options, the
board profile."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, TypeAlias

from controller.cli.errors import EX_CONFIG, EX_USAGE, CommandError, failing
from controller.config import Config, ConfigError, load_config
from controller.paths import SERVICE_CONFIG, service_config
from controller.rules import GAMES, get_game
from controller.rules.api import JSON, Game
from controller.startup import boards, named_game
from controller.web_access import parse_listen
from hardware.profile import (
    BoardProfile,
    ProfileError,
    builtin_profile_path,
    load_profile,
    parse_profile,
    profile_path,
)
from hardware.toml_files import read_toml_text

# Where each group of commands adds its own (a string: argparse's class is generic to mypy alone).
Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_state_dir(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--state-dir",
        type=Path,
        help="directory of the game journal (default: $STATE_DIRECTORY, else "
        "~/.local/state/smartboard)",
    )


CONFIG_HELP = "TOML config overriding the built-in defaults"
SERVICE_CONFIG_HELP = (
    f"TOML config overriding the built-in defaults (default: the service's, {SERVICE_CONFIG}, "
    "where it is installed, for the table it runs)"
)


def read_config(path: Path | None, service: bool = False) -> Config:
    """The config from `path`; else, for a command about the real table (`service`: `run`,
    `check` and `calibrate` off the simulated table), the service's where it is installed, so
    that they run and test the table the service runs; else the built-in one. A bad one fails
    the command with EX_CONFIG."""
    default = service_config() if path is None and service else None
    try:
        return load_config(path or default)
    except ConfigError as error:
        hint = ""
        if default is not None and not os.access(default, os.R_OK):
            hint = (
                " (the service's config, read by default: join group smartboard to read it, "
                "or give --config FILE)"
            )
        raise CommandError(f"{error}{hint}", EX_CONFIG) from None


def listen_address(text: str) -> str:
    try:
        parse_listen(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_game_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--players", type=int, metavar="N", help="number of players (a game for two takes 2)"
    )
    command.add_argument(
        "--teams", action="store_true", help="play in teams, for games that have them"
    )
    command.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another game option, e.g. deck=64 or colours=green (repeatable; an unknown key "
        "is refused with the game's list of options)",
    )


def game_options(name: str, args: argparse.Namespace) -> JSON:
    """The options of game `name` given on the command line; any the game refuses fails the
    command as a usage error."""
    with failing(EX_USAGE, ValueError):
        game = get_game(name)
        options: JSON = {}
        if args.players is not None and "players" in game.default_options:
            options["players"] = args.players
        elif args.players is not None and args.players != game.info.players[0]:
            # A game for a fixed number of players takes that number, as a person would say it.
            raise ValueError(
                f"{game.title} is for {game.info.players[0]} players, not {args.players}"
            )
        if args.teams:
            options["teams"] = True
        for key in options:
            if key not in game.default_options:
                raise ValueError(f"{game.name} takes no --{key} option")
        for item in args.option:
            key, value = _option(game, item)
            options[key] = value
        game.new_initial_state(options)  # the game's own checks, e.g. how many players
    return options


def _option(game: Game, item: str) -> tuple[str, Any]:
    """KEY=VALUE, typed like the game's default for KEY."""
    key, equals, text = item.partition("=")
    known = ", ".join(sorted(game.default_options))
    if not equals or key not in game.default_options:
        raise ValueError(f"--option {item!r}: {game.name}'s options are {known} (KEY=VALUE)")
    default = game.default_options[key]
    if isinstance(default, bool):
        words = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
        if text.lower() not in words:
            raise ValueError(f"--option {key} takes true or false, not {text!r}")
        return key, words[text.lower()]
    if isinstance(default, int):
        try:
            return key, int(text)
        except ValueError:
            raise ValueError(f"--option {key} takes a whole number, not {text!r}") from None
    return key, text


def _profile_argument(text: str) -> Path:
    try:
        return profile_path(text)
    except ProfileError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_profile_choice(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="TOML config whose game and profile to use (see `run`)",
    )
    which = command.add_mutually_exclusive_group()
    which.add_argument(
        "--game",
        choices=sorted(GAMES),
        help="the game (default: the config's); its board profile is the config's [table] "
        "profile if it sets one, as `run` takes it, else the game's built-in one",
    )
    which.add_argument(
        "--profile",
        type=_profile_argument,
        metavar="FILE",
        help="use this board profile instead: a TOML file, or a built-in profile's name (the "
        "files of hardware/profiles/, without .toml)",
    )


def board_profile(args: argparse.Namespace, config: Config | None = None) -> BoardProfile:
    """--profile FILE (its own `game` key names the game); else the config's profile, as `run`
    takes it (`config`, else --config's or the built-in one), for --game or the config's game;
    else that game's built-in profile."""
    if args.profile is not None:
        data, text = read_toml_text(args.profile, "board profile", ProfileError)
        try:
            game = get_game(str(data.get("game")))
        except ValueError as error:
            raise ProfileError(f"board profile {args.profile}: {error}") from None
        return _on_its_board(game, data, str(args.profile), text)
    loaded = read_config(args.config) if config is None else config
    game = get_game(args.game or loaded.game)
    if not loaded.profile:
        return load_profile(builtin_profile_path(game.info.profile), game.spots())
    # The config's profile, as `run` takes it, --game or not: what is checked is what runs.
    other = named_game(loaded.profile)
    if other is not None and other.name != game.name:
        raise ProfileError(
            f"board profile {loaded.profile} (the config's [table] profile) is for "
            f"{other.info.title}, not {game.info.title}: "
            + (f"give --game {other.name}" if args.game else f'set [table] game = "{other.name}"')
            + f", or --profile {game.info.profile} for {game.info.title}'s built-in one"
        )
    data, text = read_toml_text(loaded.profile, "board profile", ProfileError)
    return _on_its_board(game, data, str(loaded.profile), text)


def _on_its_board(game: Game, data: JSON, source: str, text: str) -> BoardProfile:
    """A profile of one of `game`'s boards (a larger grid, `Game.on_board`): read for the first
    board it fits; if none, the default board's error says why."""
    problems = []
    for board in boards(game):
        try:
            return parse_profile(data, board.spots(), source, text)
        except ProfileError as error:
            problems.append(error)
    raise problems[0]
