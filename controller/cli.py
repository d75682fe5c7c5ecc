"""`smartboard`: the daemon and the commands that talk to it."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2

from controller.config import Config, ConfigError, load_config
from controller.control import ControlError, request
from controller.daemon import Daemon, install_signal_handlers
from controller.journal import Journal, JournalError
from controller.paths import client_socket_path, daemon_socket_path, default_state_dir
from controller.replay import RecordError, lights_view, load_record, steps
from controller.rules import GAMES, get_game
from controller.rules.api import JSON, Game, HistoryError
from controller.session import describe_state
from controller.simulate import simulate
from controller.startup import RunOptions, StartupError, UnavailableError
from controller.terminal import draw
from controller.web_access import parse_listen
from hardware.profile import (
    BoardProfile,
    ProfileError,
    builtin_profile_path,
    load_profile,
    parse_profile,
)
from hardware.toml_files import read_toml
from vision.calibration import (
    Calibration,
    CalibrationError,
    annotate,
    calibrate,
    detect_markers,
    profile_markers,
)
from vision.choices import VIEWS
from vision.dice_reader import DiceReader, draw_dice
from vision.icon_dice import KINDS as ICON_KINDS
from vision.icon_dice import (
    IconModel,
    IconModelError,
    IconReader,
    NoDieError,
    colours_of,
    faces_of,
    label_of,
    learn_and_score,
    model_path,
)
from vision.image_files import Image, read_image, read_images
from vision.marker_sheet import MarkerSheetError, write_marker_sheet

EX_DATAERR = 65  # a journal that does not replay: restarting will not help
EX_CONFIG = 78  # systemd's RestartPreventExitStatus= names it, so a bad config is not retried


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        code: int = args.command(args)
        return code
    except ControlError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smartboard",
        description="The daemon of an instrumented games table, and commands to talk to it.",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    state_help = (
        "directory of the game journal (default: $STATE_DIRECTORY, else ~/.local/state/smartboard)"
    )

    run = sub.add_parser("run", help="run the table: sense, apply the rules, light the LEDs")
    run.add_argument("--config", type=Path, help="TOML config overriding the built-in defaults")
    run.add_argument("--game", choices=sorted(GAMES), help="game to start (default: from config)")
    _add_game_options(run)
    run.add_argument(
        "--sim", action="store_true", help="simulate every backend: mock pins, recorded LEDs"
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
        "--camera-folder",
        type=Path,
        metavar="DIR",
        help="read the rolls (and the board of a game the camera reads) from the photos in DIR "
        "(or a video file), replayed as the camera's frames at camera.replay_fps, even with --sim",
    )
    run.add_argument("--state-dir", type=Path, help=state_help)
    run.add_argument("--seed", type=int, help="seed for the bots and virtual dice")
    run.add_argument(
        "--web",
        type=_listen_address,
        metavar="HOST:PORT",
        help="serve the dashboard there (default: [web] listen of the config; off loopback it "
        "needs a token, printed once at first start)",
    )
    run.add_argument(
        "--show",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the table after each change (default: on a terminal or with --sim)",
    )
    run.set_defaults(command=_run)

    sim = sub.add_parser("simulate", help="play random games through the rules alone")
    sim.add_argument("game", choices=sorted(GAMES))
    _add_game_options(sim)
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.set_defaults(command=_simulate)

    status = sub.add_parser(
        "status",
        help="describe the game, and the running table's camera and dice (no daemon needed)",
    )
    status.add_argument("--state-dir", type=Path, help=state_help)
    status.add_argument("--json", action="store_true")
    status.set_defaults(command=_status)

    actions = sub.add_parser("actions", help="list the legal actions, from the running daemon")
    actions.add_argument("--state-dir", type=Path, help=state_help)
    actions.add_argument("--json", action="store_true")
    actions.set_defaults(command=_actions)

    act = sub.add_parser("act", help="apply a legal action by its id, through the running daemon")
    act.add_argument("id", help="an id from `smartboard actions`, e.g. place_trap:5")
    act.add_argument("--state-dir", type=Path, help=state_help)
    act.set_defaults(command=_act)

    confirm = sub.add_parser(
        "confirm", help="apply the roll the camera read but was unsure of, as it was read"
    )
    confirm.add_argument("--state-dir", type=Path, help=state_help)
    confirm.set_defaults(command=_dice, op="confirm", values=[])

    for name, text in (
        ("roll", "enter a roll the table did not read, or the right one for an unsure reading"),
        ("correct", "replace the last, misread, roll"),
    ):
        dice = sub.add_parser(name, help=text)
        dice.add_argument("values", nargs="+", help="die faces, e.g. 3 4, or voyage")
        dice.add_argument("--state-dir", type=Path, help=state_help)
        dice.set_defaults(command=_dice, op=name)

    new = sub.add_parser("new", help="start a new game once this one is over, through the daemon")
    new.add_argument("--abandon", action="store_true", help="give up the game in progress")
    new.add_argument(
        "--game",
        choices=sorted(GAMES),
        help="play this game next, with its own board profile (default: the same game)",
    )
    _add_game_options(new)
    new.add_argument("--state-dir", type=Path, help=state_help)
    new.set_defaults(command=_new)

    for name, text in (
        ("pause", "pause the game: the table ignores the pieces until it resumes"),
        ("resume", "resume a paused game, reading the table as it now lies"),
    ):
        pause = sub.add_parser(name, help=text)
        pause.add_argument("--state-dir", type=Path, help=state_help)
        pause.set_defaults(command=_pause, op=name)

    replay = sub.add_parser(
        "replay",
        help="show a saved game again, action by action: a dashboard download or a journal",
    )
    replay.add_argument(
        "file", type=Path, help="a game record (.json, from the dashboard) or a journal (.jsonl)"
    )
    replay.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="pause between actions (default 0: the whole game at once)",
    )
    replay.add_argument(
        "--json", action="store_true", help="one JSON line per step: the action and the game after"
    )
    replay.set_defaults(command=_replay)

    dice = sub.add_parser("dice", help="the camera's dice reader, on photos")
    dice_sub = dice.add_subparsers(required=True, metavar="ACTION")
    read = dice_sub.add_parser(
        "read",
        help="read the pip dice (d6) in photos",
        description="Read every d6 in each photo: its value, its box in pixels and a confidence. "
        "Dice below the config's dice.min_confidence would not be applied to a game.",
    )
    read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    read.add_argument(
        "--json",
        action="store_true",
        help='one line per image: {"image": PATH, "dice": [{"value": V, "box": [x, y, w, h], '
        '"confidence": C}]}',
    )
    read.add_argument(
        "--overlay",
        type=Path,
        metavar="DIR",
        help="also write each image into DIR with the boxes and values drawn on it",
    )
    read.add_argument(
        "--view",
        choices=VIEWS,
        help="top: straight down over a tray; oblique: at an angle; auto: a square photo is a "
        "top view (default: the config's dice.view)",
    )
    read.add_argument("--config", type=Path, metavar="FILE", help="TOML config (see `run`)")
    read.add_argument(
        "--kind",
        choices=("d6", *ICON_KINDS),
        default="d6",
        help="the dice to read: d6 (pips, the default) or a kind learned by `dice learn`; "
        'then each die is {"face": F, "colour": C or null, "box": [x, y, w, h], "confidence": C}',
    )
    read.add_argument(
        "--model",
        type=Path,
        metavar="FILE",
        help="the learned model of --kind (default: the one `dice learn` saved in the state "
        "directory)",
    )
    read.add_argument("--state-dir", type=Path, help=state_help)
    read.set_defaults(command=_dice_read)
    learn = dice_sub.add_parser(
        "learn",
        help="learn the user's icon dice or d12 from photos of them",
        description="Learn one kind of dice from photos of one die each, roughly in the middle, "
        "each face shown in 3 photos at least (5-10 is better), on the tray's surface. The face "
        "(and a soul die's colour) comes from the file name: its words, cut at - _ . or spaces, "
        "name it (venom_3.jpg, red-steal-2.png; a d12's face is a number 1-12 with no leading "
        "zero: d12_11_a.jpg). Photos whose names say nothing are asked about when run in a "
        "terminal. Prints the photos per face and the accuracy on each photo learned without "
        "it, and writes the model.",
    )
    learn.add_argument("--kind", required=True, choices=ICON_KINDS)
    learn.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where to write the model (default: icon-model-KIND.npz in the state directory, "
        "where the daemon looks)",
    )
    learn.add_argument("--state-dir", type=Path, help=state_help)
    learn.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    learn.set_defaults(command=_dice_learn)

    cards = sub.add_parser("cards", help="the card games' printable cards, and the card reader")
    cards_sub = cards.add_subparsers(required=True, metavar="ACTION")
    sheet = cards_sub.add_parser(
        "sheet",
        help="write a game's cards on A4 pages with cut marks, a PDF to print double-sided",
        description="Write a game's cards (63 x 88 mm) on A4 pages: faces, each with its id's "
        "ArUco markers, then their backs, all with the one back marker. Print double-sided at "
        "100 % (flip on the long edge) and cut at the marks.",
    )
    sheet.add_argument("--game", required=True, choices=CARD_GAMES)
    sheet.add_argument(
        "--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    sheet.set_defaults(command=_cards_sheet)
    listing = cards_sub.add_parser("list", help="list a game's cards: ids, faces and markers")
    listing.add_argument("--game", required=True, choices=CARD_GAMES)
    listing.add_argument("--json", action="store_true", help="print one JSON list of objects")
    listing.set_defaults(command=_cards_list)
    cards_read = cards_sub.add_parser(
        "read",
        help="read the cards in photos: ids, face up or down, corners",
        description="Find every card in each photo by its ArUco markers: its id (null face "
        "down), its corners in pixels and a confidence. With --calibration, each card is also "
        "placed in the board profile's slot holding its centre.",
    )
    cards_read.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    cards_read.add_argument(
        "--json",
        action="store_true",
        help='one line per image: {"image": PATH, "cards": [{"id": ID, "face": "up"|"down", '
        '"corners": [[x, y], ...], "confidence": C}]}',
    )
    cards_read.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE",
        help="a calibration.json from `smartboard calibrate`: add each card's slot, from the "
        "profile of --game, --profile or the config",
    )
    _add_profile_choice(cards_read)
    cards_read.set_defaults(command=_cards_read)

    bench = sub.add_parser("bench", help="measure parts of the table")
    bench_sub = bench.add_subparsers(required=True, metavar="WHAT")
    link = bench_sub.add_parser(
        "link",
        help="piece events and LED frames through the serial link to the microcontroller, "
        "with faults injected, on a simulated table over a pseudo-terminal",
    )
    link.add_argument("--events", type=int, default=10_000, help="piece events (default 10000)")
    link.add_argument("--seed", type=int, default=1)
    link.add_argument("--json", action="store_true", help="print one JSON object")
    link.set_defaults(command=_bench_link)

    markers = sub.add_parser(
        "markers",
        help="write the ArUco marker sheet of a board profile, a PDF to print at 100 %%",
        description="Write the board profile's ArUco markers at true size on A4 pages (PDF). "
        "Print at 100 % (actual size), check the 100 mm scale bar, cut the markers out and "
        "lay each where its label says, its top edge towards the table's top edge.",
    )
    markers.add_argument(
        "--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    _add_profile_choice(markers)
    markers.set_defaults(command=_markers)

    calibrate = sub.add_parser(
        "calibrate",
        help="find the markers in a camera frame and save the camera's calibration",
        description="Find the board profile's ArUco markers in a frame from the camera over "
        "the table, and save the mapping from its pixels to table millimetres. A marker not "
        "found is named, with where it belongs on the table.",
    )
    calibrate.add_argument(
        "--image",
        type=Path,
        required=True,
        metavar="FRAME",
        help="a frame from the camera (PNG or JPEG) showing every marker",
    )
    _add_profile_choice(calibrate)
    calibrate.add_argument(
        "--out",
        type=Path,
        metavar="FILE.json",
        help="where to save the calibration (default: calibration.json in $STATE_DIRECTORY, "
        "else ~/.local/state/smartboard)",
    )
    calibrate.add_argument(
        "--annotated",
        type=Path,
        metavar="FILE.png",
        help="also write the frame with the markers found and every region drawn on it "
        "(.png or .jpg), even when markers are missing",
    )
    calibrate.set_defaults(command=_calibrate)
    return parser  # fmt: skip


def _add_profile_choice(command: argparse.ArgumentParser) -> None:
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
        help="use this game's built-in board profile (default: the config's game and profile)",
    )
    which.add_argument(
        "--profile", type=Path, metavar="FILE", help="use this board profile (TOML) instead"
    )


def _add_game_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--players", type=int, metavar="N", help="number of players, for games that vary it"
    )
    command.add_argument(
        "--teams", action="store_true", help="play in teams, for games that have them"
    )
    command.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another game option, e.g. deck=64 or hints=true (repeatable; see the README)",
    )


def _game_options(game: Game, args: argparse.Namespace) -> JSON:
    """The game options given on the command line; a ValueError names any the game refuses."""
    options: JSON = {}
    if args.players is not None:
        options["players"] = args.players
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


def _listen_address(text: str) -> str:
    try:
        parse_listen(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _config(path: Path | None) -> Config | None:
    """The config, or None once its error is printed (the command then exits EX_CONFIG)."""
    try:
        return load_config(path)
    except ConfigError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return None


def _run(args: argparse.Namespace) -> int:
    config = _config(args.config)
    if config is None:
        return EX_CONFIG
    if args.sim:
        config = config.simulated()
    if args.camera_folder is not None:
        if not args.camera_folder.exists():
            print(
                f"smartboard: --camera-folder {args.camera_folder}: no such folder or file",
                file=sys.stderr,
            )
            return 2
        config = config.replaying(args.camera_folder)
    if args.pace < 0:
        print("smartboard: --pace must not be negative", file=sys.stderr)
        return 2
    if args.web is not None:
        config = replace(config, web_listen=args.web)
    try:
        game_options = _game_options(get_game(args.game or config.game), args)
    except ValueError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 2
    state_dir = args.state_dir or default_state_dir()
    show = args.show if args.show is not None else (sys.stdout.isatty() or args.sim)
    options = RunOptions(
        state_dir=state_dir,
        socket_path=daemon_socket_path(state_dir),
        game=args.game,
        options=game_options,
        bots=args.bots,
        pace=args.pace,
        until_end=args.until_end,
        new_game=args.new_game,
        seed=args.seed,
        show=sys.stdout if show else None,
        colour=sys.stdout.isatty() and "NO_COLOR" not in os.environ,
    )
    daemon = Daemon(config, options)
    try:
        daemon.open()
    except (ConfigError, ProfileError) as error:
        daemon.close()
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_CONFIG
    except StartupError as error:
        daemon.close()
        print(f"smartboard: {error}", file=sys.stderr)
        if isinstance(error, UnavailableError):
            return EX_CONFIG
        cause = error.__cause__
        return EX_DATAERR if isinstance(cause, JournalError | HistoryError) else 1
    except RuntimeError as error:  # a backend that cannot open here, e.g. NeoPixels off a Pi
        daemon.close()
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_CONFIG
    install_signal_handlers(daemon)
    try:
        code = daemon.run()
        if args.until_end and daemon.session.state.is_terminal():
            result = daemon.game.result(daemon.session.state)
            print(f"result: {json.dumps(result)}")
        return code
    finally:
        daemon.close()


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 0:
        print("smartboard: --games must not be negative", file=sys.stderr)
        return 2
    game = get_game(args.game)
    try:
        options = _game_options(game, args)
    except ValueError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 2
    report = simulate(game, args.games, args.seed, options)
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


def _status(args: argparse.Namespace) -> int:
    summary = _live_status(args.state_dir)
    if summary is None:
        journal = Journal(args.state_dir or default_state_dir())
        if not journal.exists():
            print(f"smartboard: no game journal in {journal.path.parent}", file=sys.stderr)
            return 1
        try:
            record = journal.read()
            game = get_game(record.game)
            state = game.replay(record.history(), record.options)
        except (JournalError, HistoryError, ValueError) as error:
            print(f"smartboard: {error}", file=sys.stderr)
            return EX_DATAERR
        summary = describe_state(game, state)
    if args.json:
        print(json.dumps(summary))
    else:
        result = summary["result"]
        where = (
            "over: " + (", ".join(result["winners"]) or "nobody") + " won"
            if result
            else f"to move: {summary['to_move']}"
        )
        if result and "scores" in result:
            where += " (" + ", ".join(f"{p} {n}" for p, n in result["scores"].items()) + ")"
        print(
            f"{summary['game']}, turn {summary['turn']}, {len(summary['history'])} actions; {where}"
        )
        for key, value in summary["details"].items():
            if key == "turn":
                continue
            name = key.replace("_", " ")
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                # A table, such as Hostile Takeover's buildings: one line for each row.
                print(f"  {name}:")
                for row in value:
                    print(f"    {_row_text(row)}")
            else:
                print(f"  {name}: {_detail_text(value)}")
        for line in _table_lines(summary):
            print(f"  {line}")
    return 0


def _live_status(state_dir: Path | None) -> JSON | None:
    """The running daemon's status, with what its sensors see; None if no daemon answers."""
    try:
        reply = request(client_socket_path(state_dir), {"op": "status"}, timeout=3.0)
    except ControlError:
        return None
    if not reply.pop("ok", False):
        return None
    return reply


def _table_lines(summary: JSON) -> list[str]:
    """What the running table adds: its camera, the dice it sees, and its message."""
    lines = []
    camera = summary.get("camera")
    if camera is not None:
        text = str(camera["state"])
        if "reason" in camera:
            text += f": {camera['reason']}"
        if "retry_in_s" in camera:
            text += f" (attempt {camera['attempt']}, next in {camera['retry_in_s']} s)"
        lines.append(f"camera: {text}")
        seen = ", ".join(f"{d['value']} ({d['confidence']:.2f})" for d in summary["dice_seen"])
        lines.append(f"dice seen: {seen or '-'}")
        unsure = summary.get("dice_unsure")
        if unsure:
            values = ", ".join(map(str, unsure["values"]))
            lines.append(f"unsure roll: {values} (confidence {unsure['confidence']})")
        if summary.get("board_unsure"):
            lines.append(f"board read unsure at: {', '.join(summary['board_unsure'])}")
    for kind, why in summary.get("dice_typed", {}).items():
        lines.append(f"{kind} dice {why}")
    if summary.get("message"):
        lines.append(f"message: {summary['message']}")
    return lines


def _row_text(row: dict[str, object]) -> str:
    """A row of a table of details: its id first, then each field after its name."""
    fields = {k: v for k, v in row.items() if k != "id"}
    text = _detail_text(fields)
    return f"{row['id']}: {text}" if "id" in row else text


def _detail_text(value: object) -> str:
    """One line per detail: a side's dice or score after its name, lists comma-separated."""
    if isinstance(value, dict):
        return "; ".join(f"{k} {_detail_text(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "-"
    return "-" if value is None else str(value)


def _call(args: argparse.Namespace, message: JSON) -> JSON:
    reply = request(client_socket_path(args.state_dir), message)
    if not reply.get("ok"):
        raise ControlError(str(reply.get("error", "refused")))
    return reply


def _actions(args: argparse.Namespace) -> int:
    reply = _call(args, {"op": "actions"})
    if args.json:
        print(json.dumps(reply))
    else:
        print(f"to move: {reply['to_move']}")
        for action in reply["actions"]:
            print(f"  {action['id']}")
    return 0


def _act(args: argparse.Namespace) -> int:
    reply = _call(args, {"op": "act", "id": args.id})
    print("applied " + ", ".join(reply["applied"]))
    return 0


def _readable(
    paths: list[Path], key: str, as_json: bool, failed: list[Path]
) -> Iterator[tuple[Path, Image]]:
    """Each image that can be read, in order; the others are named on stderr (with --json, a
    line `{"image": PATH, KEY: [], "error": WHY}` too) and added to `failed`."""
    for path, image in read_images(paths):
        if isinstance(image, str):
            failed.append(path)
            print(f"smartboard: cannot read {path}: {image}", file=sys.stderr)
            if as_json:
                print(json.dumps({"image": str(path), key: [], "error": image}))
            continue
        yield path, image


def _icon_dice_read(args: argparse.Namespace) -> int:
    if args.overlay is not None:
        print("smartboard: --overlay draws d6 readings only", file=sys.stderr)
        return 2
    path = args.model or model_path(args.state_dir or default_state_dir(), args.kind)
    try:
        reader = IconReader(IconModel.load(path, args.kind))
    except IconModelError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 1
    failed: list[Path] = []
    for image_path, image in _readable(args.images, "dice", args.json, failed):
        dice = reader.read(image)
        if args.json:
            print(json.dumps({"image": str(image_path), "dice": [d.to_json() for d in dice]}))
        else:
            faces = ", ".join(
                f"{' '.join(filter(None, (d.colour, d.face)))} ({d.confidence:.2f})" for d in dice
            )
            print(
                f"{image_path}: {len(dice)} {'die' if len(dice) == 1 else 'dice'}: {faces or '-'}"
            )
    sys.stdout.flush()
    return 1 if failed else 0


def _dice_learn(args: argparse.Namespace) -> int:
    kind = args.kind
    failed: list[Path] = []
    photos = list(_readable(args.photos, "dice", False, failed))
    if failed:
        return 1
    labels = [label_of(path.name, kind) for path, _ in photos]
    colours = colours_of(kind)
    unlabelled = [
        path
        for (path, _), (face, colour) in zip(photos, labels, strict=True)
        if face is None or (colours is not None and colour is None)
    ]
    if unlabelled and not sys.stdin.isatty():
        print(
            f"smartboard: these photos' names give no {kind} face"
            + (" and colour" if colours else "")
            + ": "
            + ", ".join(map(str, unlabelled))
            + f"; name them like {_LABEL_EXAMPLES[kind]}, or run in a terminal to be asked",
            file=sys.stderr,
        )
        return 2
    samples = []
    for (path, image), (face, colour) in zip(photos, labels, strict=True):
        if face is None:
            face = _ask(f"face of {path}", faces_of(kind))
        if colours is not None and colour is None:
            colour = _ask(f"colour of {path}", colours)
        samples.append((image, face, colour))
    try:
        model, score = learn_and_score(kind, samples)
    except NoDieError as error:
        print(f"smartboard: {photos[error.index][0]}: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 1
    out = args.out or model_path(args.state_dir or default_state_dir(), kind)
    try:
        model.save(out)
    except OSError as error:
        print(f"smartboard: cannot write {out}: {error.strerror}", file=sys.stderr)
        return 1
    print(f"learned the {kind} die from {len(samples)} photos:")
    print("  photos per face: " + ", ".join(f"{f} {n}" for f, n in score.faces.items()))
    if score.colours is not None:
        print("  photos per colour: " + ", ".join(f"{c} {n}" for c, n in score.colours.items()))
    accuracy = (
        "  cross-validated accuracy (each photo read by a model learned without it): "
        f"face {score.face_accuracy:.1%}"
    )
    if score.colour_accuracy is not None:
        accuracy += f", colour {score.colour_accuracy:.1%}"
    print(accuracy)
    print(f"model written to {out}")
    return 0


_LABEL_EXAMPLES = {
    "miraculous": "venom_3.jpg or second-chance-1.jpg",
    "soul": "red-steal-2.png",
    "d12": "d12_11_a.jpg",
}


def _ask(question: str, choices: Sequence[str]) -> str:
    """One of `choices`, typed by name or by number at the terminal."""
    listing = "  ".join(f"{i}) {c}" for i, c in enumerate(choices, 1))
    while True:
        answer = input(f"{question}? {listing}\n> ").strip().lower()
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        if answer in choices:
            return answer
        print(f"one of: {', '.join(choices)}")


def _dice_read(args: argparse.Namespace) -> int:
    config = _config(args.config)
    if config is None:
        return EX_CONFIG
    if args.kind != "d6":
        return _icon_dice_read(args)
    reader = DiceReader(args.view or config.dice_view)
    if args.overlay is not None:
        args.overlay.mkdir(parents=True, exist_ok=True)
    failed: list[Path] = []
    for path, image in _readable(args.images, "dice", args.json, failed):
        dice = reader.read(image)
        if args.json:
            print(json.dumps({"image": str(path), "dice": [d.to_json() for d in dice]}))
        else:
            values = ", ".join(f"{d.value} ({d.confidence:.2f})" for d in dice)
            print(f"{path}: {len(dice)} {'die' if len(dice) == 1 else 'dice'}: {values or '-'}")
        if args.overlay is not None:
            drawn = draw_dice(image, dice, config.dice_min_confidence)
            out = args.overlay / path.name
            if out.resolve() == path.resolve():
                print(
                    f"smartboard: --overlay would write over {path}: name another folder",
                    file=sys.stderr,
                )
                return 2
            if not cv2.imwrite(str(out), drawn):
                print(f"smartboard: cannot write {out}", file=sys.stderr)
                failed.append(path)
    sys.stdout.flush()
    return 1 if failed else 0


CARD_GAMES = ("akuma", "mightymania", "potions")


def _cards_sheet(args: argparse.Namespace) -> int:
    from vision.card_sheet import write_card_sheet

    try:
        pages = write_card_sheet(args.game, args.out)
    except OSError as error:
        print(f"smartboard: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return 1
    print(
        f"wrote the {args.game} cards on {pages} pages to {args.out}: print double-sided at "
        "100 % (flip on the long edge), then cut at the marks"
    )
    return 0


def _cards_list(args: argparse.Namespace) -> int:
    from vision.card_deck import deck

    cards = [card.to_json() for card in deck(args.game)]
    if args.json:
        print(json.dumps(cards))
    else:
        for card in cards:
            lines = ", ".join(map(str, card["lines"]))  # type: ignore[call-overload]
            print(f"{card['id']}: {card['title']} ({lines}) markers {card['markers']}")
    return 0


def _cards_read(args: argparse.Namespace) -> int:
    from vision.card_deck import CardDeckError, deck
    from vision.card_reader import CardReader, place_in_slots

    calibration: Calibration | None = None
    regions: dict[str, Any] = {}
    ids = None
    try:
        if args.game is not None:
            ids = {card.id for card in deck(args.game)}
        if args.calibration is not None:
            calibration = Calibration.load(args.calibration)
            regions = dict(_board_profile(args).camera_regions())
    except CardDeckError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 2
    except (ConfigError, ProfileError, CalibrationError) as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_CONFIG
    except OSError as error:
        print(f"smartboard: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    reader = CardReader(ids)
    failed: list[Path] = []
    for path, image in _readable(args.images, "cards", args.json, failed):
        seen = reader.read(image)
        if calibration is not None:
            seen = place_in_slots(seen, calibration, regions)
        if args.json:
            print(json.dumps({"image": str(path), "cards": [c.to_json() for c in seen]}))
        else:
            names = ", ".join(
                f"{c.id or 'back'}{f' in {c.slot}' if c.slot else ''} ({c.confidence:.2f})"
                for c in seen
            )
            print(f"{path}: {len(seen)} card{'' if len(seen) == 1 else 's'}: {names or '-'}")
    sys.stdout.flush()
    return 1 if failed else 0


def _bench_link(args: argparse.Namespace) -> int:
    from hardware.link_bench import run_link_bench  # spawns a process: only for this command

    if args.events < 1:
        print("smartboard: bench link: --events must be at least 1", file=sys.stderr)
        return 2
    result = run_link_bench(args.events, seed=args.seed)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    ok = result["lost"] == 0 and result["duplicated"] == 0 and result["leds_converged"]
    return 0 if ok else 1


def _dice(args: argparse.Namespace) -> int:
    values = [int(v) if v.isdigit() else v for v in args.values]
    reply = _call(args, {"op": args.op, "values": values})
    print("applied " + ", ".join(reply["applied"]))
    return 0


def _new(args: argparse.Namespace) -> int:
    message: JSON = {"op": "new", "abandon": args.abandon, "game": args.game}
    if args.game is not None:
        try:
            message["options"] = _game_options(get_game(args.game), args)
        except ValueError as error:
            print(f"smartboard: {error}", file=sys.stderr)
            return 2
    elif args.players is not None or args.teams or args.option:
        print("smartboard: game options need --game (the same game keeps its own)", file=sys.stderr)
        return 2
    reply = _call(args, message)
    print(f"new {reply['game']} game started")
    return 0


def _pause(args: argparse.Namespace) -> int:
    _call(args, {"op": args.op})
    print("game paused: the table ignores the pieces" if args.op == "pause" else "game resumed")
    return 0


def _replay(args: argparse.Namespace) -> int:
    if args.delay < 0:
        print("smartboard: --delay must not be negative", file=sys.stderr)
        return 2
    config = _config(None)
    if config is None:
        return EX_CONFIG
    try:
        record = load_record(args.file)
    except RecordError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_DATAERR
    game = record.game
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    for number, (action, state) in enumerate(steps(record)):
        if args.json:
            applied = None if action is None else action.to_json()
            print(json.dumps({"step": number, "action": applied, **describe_state(game, state)}))
        else:
            title = "set-up" if action is None else f"{number}. {action}"
            view = lights_view(game, state)
            print(f"{title}\n{draw(game, state, view, config.palette, colour)}\n", flush=True)
        if args.delay and action is not None:
            time.sleep(args.delay)
    result = game.result(state)
    if not args.json:
        print(f"result: {json.dumps(result)}" if result else "the game was not finished")
    return 0


def _board_profile(args: argparse.Namespace) -> BoardProfile:
    """--profile FILE (its own `game` key names the game), --game's built-in, else the config's."""
    if args.profile is not None:
        data = read_toml(args.profile, "board profile", ProfileError)
        try:
            game = get_game(str(data.get("game")))
        except ValueError as error:
            raise ProfileError(f"board profile {args.profile}: {error}") from None
        return parse_profile(data, game.spots(), str(args.profile))
    config = load_config(args.config)
    name = args.game or config.game
    path = config.profile if config.profile and not args.game else builtin_profile_path(name)
    return load_profile(path, get_game(name).spots())


def _markers(args: argparse.Namespace) -> int:
    try:
        profile = _board_profile(args)
        pages = write_marker_sheet(profile, args.out)
    except (ConfigError, ProfileError) as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_CONFIG
    except MarkerSheetError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"smartboard: cannot write {args.out}: {error.strerror}", file=sys.stderr)
        return 1
    print(
        f"wrote {len(profile.markers)} markers on {pages} page{'s' if pages > 1 else ''} to "
        f"{args.out}: print at 100 % and check that the scale bar measures 100 mm"
    )
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    if args.annotated and args.annotated.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        print(f"smartboard: --annotated {args.annotated}: name a .png or .jpg", file=sys.stderr)
        return 2
    try:
        profile = _board_profile(args)
        profile_markers(profile)
    except (ConfigError, ProfileError) as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return EX_CONFIG
    try:
        frame = read_image(args.image)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else error
        print(f"smartboard: cannot read {args.image}: {reason}", file=sys.stderr)
        return 1
    found = detect_markers(frame)
    try:
        calibration: Calibration | None = calibrate(
            found, profile, (frame.shape[1], frame.shape[0])
        )
        failure = ""
    except CalibrationError as error:
        calibration, failure = None, str(error)
    out = args.out or default_state_dir() / "calibration.json"
    try:
        if args.annotated:
            image = annotate(frame, found, profile, calibration)
            args.annotated.write_bytes(cv2.imencode(args.annotated.suffix, image)[1].tobytes())
        if calibration is not None:
            calibration.save(out)
    except OSError as error:
        print(f"smartboard: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    if calibration is None:
        print(f"smartboard: {failure}", file=sys.stderr)
        return 1
    print(
        f"calibrated {profile.name} from markers {', '.join(map(str, calibration.marker_ids))}: "
        f"error {calibration.error_mm:.2f} mm; saved to {out}"
        + (f"; annotated frame in {args.annotated}" if args.annotated else "")
    )
    return 0
