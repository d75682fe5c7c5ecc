"""`smartboard run`: the table itself. `smartboard simulate`: random games, by the rules alone."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from controller.broker import BrokerError, parse_link
from controller.cli.arguments import (
    SERVICE_CONFIG_HELP,
    Commands,
    add_game_options,
    add_state_dir,
    game_options,
    listen_address,
    read_config,
)
from controller.cli.errors import (
    EX_CANTCREAT,
    EX_CONFIG,
    EX_DATAERR,
    EX_USAGE,
    CommandError,
    failing,
)
from controller.config import LINK_DICE, Config, ConfigError
from controller.journal import COMPUTER_DICE, JournalError, JournalWriteError, StateDirInUseError
from controller.paths import daemon_socket_path, default_state_dir
from controller.rules import GAMES, get_game
from controller.rules.api import HistoryError
from controller.search import DEFAULT_LEVEL, LEVELS
from controller.seats import check_computer, check_names, split_names
from controller.simulate import simulate
from controller.startup import RunOptions, SetupError, StartupError, UnavailableError
from controller.web_access import UnresolvableError, resolve_listen
from hardware.profile import ProfileError


def add_commands(commands: Commands) -> None:
    run = commands.add_parser("run", help="run the table: sense, apply the rules, light the LEDs")
    run.add_argument("--config", type=Path, metavar="FILE", help=SERVICE_CONFIG_HELP)
    run.add_argument("--game", choices=sorted(GAMES), help="game to start (default: from config)")
    add_game_options(run)
    run.add_argument(
        "--names",
        type=split_names,
        metavar="A,B,...",
        help="the players' names for a new game, one a seat in turn order (blank: the seat's own)",
    )
    run.add_argument(
        "--computer",
        action="append",
        metavar="SEAT[:LEVEL]",
        help="the table plays this seat of a new game (a number from 1, or the seat's name) at "
        f"LEVEL, one of {', '.join(LEVELS)} (default {DEFAULT_LEVEL}); it lights its moves for a "
        "hand to carry out. Repeat it for more seats",
    )
    run.add_argument(
        "--computer-dice",
        choices=COMPUTER_DICE,
        help="who rolls the dice of the seats the table plays in a new game: a hand in the tray "
        "(default), or the table itself; a game resumed keeps its own",
    )
    run.add_argument(
        "--think-time",
        type=float,
        metavar="SECONDS",
        help="the most a seat the table plays thinks about a move (default: its level's)",
    )
    run.add_argument(
        "--hints",
        choices=("on", "off"),
        help="whether the players of a new game may ask for hints (default on)",
    )
    run.add_argument(
        "--sim",
        action="store_true",
        help="simulate every backend: mock pins, recorded LEDs; without --bots, the players "
        "play on the dashboard (--web), tapping the board, and carry out the table's moves there",
    )
    run.add_argument(
        "--bots", action="store_true", help="scripted players play every side (needs --sim)"
    )
    run.add_argument(
        "--pace",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="pause between bot actions (default 0.5)",
    )
    run.add_argument(
        "--until-end", action="store_true", help="exit 0 when the game ends, printing the result"
    )
    run.add_argument(
        "--new-game",
        action="store_true",
        help="start a new game even if the journal holds one (that journal is kept, renamed)",
    )
    run.add_argument(
        "--no-camera",
        action="store_true",
        help="a table with no camera: enter the cards, dice or map it would read on the dashboard "
        "(or with `smartboard place`), and type the rolls in",
    )
    run.add_argument(
        "--camera-folder",
        type=Path,
        metavar="DIR",
        help="read the rolls (and the board of a game the camera reads) from the photos in DIR "
        "(or a video file), replayed as the camera's frames at camera.replay_fps, even with --sim",
    )
    add_state_dir(run)
    run.add_argument("--seed", type=int, help="seed for the bots and virtual dice")
    run.add_argument(
        "--web",
        type=listen_address,
        metavar="HOST:PORT",
        help="serve the dashboard there (default: [web] listen of the config); it needs a "
        "token, printed at first start, and by `smartboard dashboard`",
    )
    run.add_argument(
        "--link",
        metavar="mqtt://[USER:PASS@]HOST[:PORT]/ROOM",
        help="play one game with other tables through this MQTT broker's ROOM (mqtts:// for "
        "TLS): this table senses the --seats it plays and lights the others' moves for a hand "
        "to carry out (default: [link] url of the config)",
    )
    run.add_argument(
        "--seats",
        type=_seat_numbers,
        metavar="1,3",
        help="with --link: the seats this table plays, numbers from 1",
    )
    run.add_argument(
        "--link-secret",
        metavar="SECRET",
        help="with --link: the room's shared secret, that signs every message",
    )
    run.add_argument(
        "--link-dice",
        choices=LINK_DICE,
        help="with --link: where chance is rolled, on the table of the seat that rolls (read "
        "from its dice or cards, as ever) or drawn there in software (seeded by --seed); every "
        "table of the room must give the same (default: [link] dice of the config, table)",
    )
    run.add_argument(
        "--page-only",
        action="store_true",
        help="with --link: take the --seats in the room with no table, from the dashboard "
        "alone (--web): the moves are played and rolls entered on the page, the other tables' "
        "applied at once; the backends are simulated, with nobody's hands on them",
    )
    run.add_argument(
        "--show",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the table after each change (default: on a terminal or with --sim)",
    )
    run.set_defaults(command=_run)

    sim = commands.add_parser("simulate", help="play random games through the rules alone")
    sim.add_argument("game", choices=sorted(GAMES))
    add_game_options(sim)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(command=_simulate)


def _run(args: argparse.Namespace) -> int:
    # The daemon opens the camera through OpenCV: loaded for this command alone.
    from controller.daemon import Daemon, install_signal_handlers

    config = read_config(args.config, service=not (args.sim or args.page_only))
    if args.sim or args.page_only:
        config = config.simulated()
    if args.no_camera:
        if args.camera_folder is not None:
            raise CommandError("--no-camera or --camera-folder, not both", EX_USAGE)
        config = config.without_camera()
    if args.camera_folder is not None:
        if not args.camera_folder.exists():
            raise CommandError(
                f"--camera-folder {args.camera_folder}: no such folder or file", EX_USAGE
            )
        config = config.replaying(args.camera_folder)
    if args.pace < 0:
        raise CommandError("--pace must not be negative", EX_USAGE)
    if args.web is not None:
        config = replace(config, web_listen=args.web)
    config = _linked(config, args)
    if args.page_only:
        _check_page_only(config, args)
    if config.web_listen:
        _check_listen(config.web_listen, "--web" if args.web is not None else config.source)
    options = game_options(args.game or config.game, args)
    if args.think_time is not None and not args.think_time > 0:
        raise CommandError("--think-time must be a positive number of seconds", EX_USAGE)
    if args.names is not None or args.computer is not None:
        # Checked against the game asked for; a game resumed from the journal checks them again.
        state = get_game(args.game or config.game).new_initial_state(options)
        with failing(EX_USAGE, ValueError):
            check_names(args.names, state.num_players)
        players = [state.player_name(seat) for seat in range(state.num_players)]
        try:
            check_computer(args.computer, players)
        except ValueError as error:
            raise CommandError(f"--computer: {error}", EX_USAGE) from None
    state_dir = args.state_dir or default_state_dir()
    show = args.show if args.show is not None else (sys.stdout.isatty() or args.sim)
    run = RunOptions(
        state_dir=state_dir,
        socket_path=daemon_socket_path(state_dir),
        game=args.game,
        options=options,
        bots=args.bots,
        page_only=args.page_only,
        pace=args.pace,
        until_end=args.until_end,
        new_game=args.new_game,
        seed=args.seed,
        names=None if args.names is None else tuple(args.names),
        computer=None if args.computer is None else tuple(args.computer),
        computer_dice=args.computer_dice,
        hints=None if args.hints is None else args.hints == "on",
        think_s=args.think_time,
        show=sys.stdout if show else None,
        colour=sys.stdout.isatty() and "NO_COLOR" not in os.environ,
    )
    daemon = Daemon(config, run)
    try:
        daemon.open()
    # RuntimeError: a backend that cannot open here, e.g. NeoPixels off a Pi.
    except (ConfigError, ProfileError, RuntimeError) as error:
        daemon.close()
        raise CommandError(str(error), _startup_status(error)) from None
    install_signal_handlers(daemon)
    try:
        code = daemon.run()
        if args.until_end and daemon.session.state.is_terminal():
            result = daemon.game.result(daemon.session.state)
            print(f"result: {json.dumps(result)}")
        return code
    finally:
        daemon.close()


def _seat_numbers(text: str) -> tuple[int, ...]:
    """`--seats 1,3`: seat numbers from 1."""
    try:
        seats = tuple(sorted({int(part) for part in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seat numbers from 1, as 1,3: not {text!r}") from None
    if not seats or seats[0] < 1:
        raise argparse.ArgumentTypeError(f"seat numbers from 1, as 1,3: not {text!r}")
    return seats


def _linked(config: Config, args: argparse.Namespace) -> Config:
    """The config with the link the command line gives; a link with no seats or no secret is
    refused before anything starts."""
    if args.link is not None:
        try:
            parse_link(args.link)
        except ValueError as error:
            raise CommandError(f"--link: {error}", EX_USAGE) from None
        config = replace(config, link_url=args.link)
    if args.seats is not None:
        config = replace(config, link_seats=args.seats)
    if args.link_secret is not None:
        config = replace(config, link_secret=args.link_secret)
    if args.link_dice is not None:
        config = replace(config, link_dice=args.link_dice)
    if not config.link_url:
        if args.seats is not None or args.link_secret is not None or args.link_dice is not None:
            raise CommandError("--seats, --link-secret and --link-dice go with --link", EX_USAGE)
        return config
    if not config.link_seats:
        raise CommandError("a linked table needs --seats: the seats it plays, as 1,3", EX_USAGE)
    if not config.link_secret:
        raise CommandError(
            "a linked table needs the room's secret: --link-secret or [link] secret", EX_USAGE
        )
    return config


def _check_page_only(config: Config, args: argparse.Namespace) -> None:
    """A dashboard-only participant takes seats in a linked game, played on its page. Alone, it
    would be the simulated table (--sim) under another name: refused, saying so."""
    if not config.link_url:
        raise CommandError(
            "--page-only takes seats in a game linked with other tables: add --link "
            "mqtt://HOST/ROOM --seats N --link-secret S (to play a game on the page alone, "
            "run the simulated table: --sim --web HOST:PORT)",
            EX_USAGE,
        )
    if args.bots or args.camera_folder is not None or args.no_camera:
        raise CommandError(
            "--page-only has no table: no --bots, --camera-folder or --no-camera", EX_USAGE
        )
    if not config.web_listen:
        raise CommandError(
            "--page-only is played on the dashboard: give --web HOST:PORT (or [web] listen)",
            EX_USAGE,
        )


def _check_listen(listen: str, given_by: str) -> None:
    """A dashboard address whose host does not resolve fails at start-up, as a usage error (from
    --web) or a config error, unless the resolver said to try again later."""
    try:
        resolve_listen(listen)
    except UnresolvableError as error:
        status = (EX_USAGE if given_by == "--web" else EX_CONFIG) if error.lasting else 1
        where = "--web" if given_by == "--web" else f"{given_by}: web.listen"
        raise CommandError(f"{where}: {error}", status) from None


def _startup_status(error: Exception) -> int:
    """A journal that does not replay is EX_DATAERR; what this table or its config cannot do
    (a sensor it cannot read, a backend that cannot open here, a bad calibration) is EX_CONFIG; a
    journal that cannot be written (a full disk) is EX_TEMPFAIL; a state directory that another
    daemon holds is EX_CANTCREAT; else a failure that a restart may mend."""
    if isinstance(error.__cause__, BrokerError):
        return EX_USAGE  # the broker named cannot be reached or refused this table
    if not isinstance(error, StartupError) or isinstance(error, UnavailableError | SetupError):
        return EX_CONFIG
    if isinstance(error.__cause__, StateDirInUseError):
        return EX_CANTCREAT
    if isinstance(error.__cause__, JournalWriteError):
        from controller.daemon import EX_TEMPFAIL  # loaded already, by `_run`

        return EX_TEMPFAIL
    return EX_DATAERR if isinstance(error.__cause__, JournalError | HistoryError) else 1


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 0:
        raise CommandError("--games must not be negative", EX_USAGE)
    options = game_options(args.game, args)
    report = simulate(get_game(args.game), args.games, args.seed, options)
    if args.json:
        print(json.dumps(report))
    else:
        wins = ", ".join(f"{side} {n}" for side, n in report["wins"].items())
        scores = ", ".join(f"{side} {n:.1f}" for side, n in report.get("mean_scores", {}).items())
        print(
            f"{report['finished']}/{report['games']} {args.game} games finished "
            f"({wins}); {report['mean_actions']:.1f} actions a game; "
            + (f"mean scores: {scores}; " if scores else "")
            + f"{report['seconds']} s, {report['games_per_second']} games/s"
        )
    return 0
