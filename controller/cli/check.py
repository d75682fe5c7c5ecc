"""`smartboard check`: test the table after building it, part by part, or lint a board profile."""

from __future__ import annotations

import argparse
import json
import select
import sys
from pathlib import Path

from controller.check_report import (
    PARTS,
    CheckEvent,
    CheckReport,
    Listener,
    report_lines,
    table_named,
)
from controller.cli.arguments import (
    Commands,
    add_profile_choice,
    add_state_dir,
    board_profile,
    read_config,
)
from controller.cli.errors import EX_TEMPFAIL, EX_USAGE, CommandError
from controller.paths import client_socket_path, default_state_dir

PARTS_HELP = "profile, lights, reeds, link, camera"

DESCRIPTION = """\
Test the table, part by part, for the game's board profile and the backends of the config (or
the simulated table with --sim), and write what failed to check-report.json in the state
directory:

  profile  every problem of the board profile, with its file, key and line; the camera
           regions that the calibrated camera cannot see
  lights   each LED lit alone, with its spot's name; every LED red, green, blue and white;
           white at three brightnesses; the current at full white against the power supply.
           A real strip cannot be read back: watch it, and with --walk say which LEDs were wrong
  reeds    the reeds closed now; with --walk (always on the simulated table) a piece put on
           each spot in turn, naming reeds that never close, crossed wires (the likely swap),
           expanders or scan rows that do not answer, and reeds that chatter
  link     the Pico: its firmware, frames, CRC errors, resends and an LED frame's round trip
  camera   frames in a few seconds, their brightness, the calibration markers found

It exits 0 when every part it ran passed (warnings pass), 1 when any failed.
"""

EPILOG = """\
examples:
  smartboard check --sim --game takeover --json
  smartboard check --sim --game takeover --fault crossed:r3c5,r3c6 --fault dead-expander:4
  smartboard check --walk                  after wiring: lights, then put a piece on each spot
  smartboard check --profile mine.toml --only profile
  smartboard check --daemon                through the running table, its game paused
"""


def add_commands(commands: Commands) -> None:
    check = commands.add_parser(
        "check",
        help="test the table: each LED, each reed, the Pico's link, the camera; lint a profile",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_profile_choice(check)
    check.add_argument(
        "--sim", action="store_true", help="test the simulated table (simulated hands walk it)"
    )
    check.add_argument(
        "--only",
        type=_parts,
        metavar="PARTS",
        help=f"the parts to run, comma-separated: {PARTS_HELP}",
    )
    check.add_argument("--json", action="store_true", help="print the report as one JSON object")
    check.add_argument(
        "--walk",
        action="store_true",
        help="the guided walk on a real table: say which LEDs lit wrong, then put a piece on "
        "each spot in turn (Enter skips one)",
    )
    check.add_argument(
        "--order",
        choices=("turn", "any"),
        default="turn",
        help="walk the spots in turn (default), or in any order, each reed named as it closes",
    )
    check.add_argument(
        "--timeout",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="how long to wait for a piece on each spot (the whole walk, in any order); default 30",
    )
    check.add_argument(
        "--step",
        type=_seconds,
        metavar="SECONDS",
        help="how long each LED stays lit (default 0.3 on a real strip, 0 simulated)",
    )
    check.add_argument(
        "--camera-seconds",
        type=_seconds,
        default=3.0,
        metavar="SECONDS",
        help="how long to count the camera's frames (default 3)",
    )
    check.add_argument(
        "--camera-timeout",
        type=_seconds,
        default=5.0,
        metavar="SECONDS",
        help="a camera with no frame by then is reported (default 5)",
    )
    check.add_argument(
        "--camera-folder",
        type=Path,
        metavar="DIR",
        help="check the photos in DIR (or a video file) as the camera's frames",
    )
    check.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="SPEC",
        help="with --sim, a wiring fault to find (repeatable): crossed:SPOT,SPOT, "
        "dead-expander:CHIP, dead-row:ROW, chatter:SPOT, stuck-led:INDEX[=#RRGGBB]",
    )
    check.add_argument(
        "--daemon",
        action="store_true",
        help="ask the running table to test itself (its game paused or over): the `check` op",
    )
    add_state_dir(check)
    check.set_defaults(command=_check)


def _parts(text: str) -> tuple[str, ...]:
    parts = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [part for part in parts if part not in PARTS]
    if unknown or not parts:
        raise argparse.ArgumentTypeError(f"parts are {PARTS_HELP}, not {text!r}")
    return parts


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"a number of seconds in 0..3600, not {text!r}")
    return value


def _check(args: argparse.Namespace) -> int:
    # The table's parts and OpenCV: loaded for this command alone.
    from controller.check_table import CheckOptions, SimFaults, open_table, run_check
    from controller.profile_lint import refused_profile
    from controller.rules import get_game
    from hardware.profile import ProfileError

    state_dir = args.state_dir or default_state_dir()
    parts = args.only or PARTS
    if args.daemon:
        return _through_daemon(args, state_dir, parts)
    if args.fault and not args.sim:
        raise CommandError("--fault is injected in the simulated table: add --sim", EX_USAGE)
    config = read_config(args.config, service=not args.sim)
    try:
        profile = board_profile(args, config)
    except ProfileError as error:
        source = str(args.profile or config.profile or "")
        report = CheckReport("", source, "", args.sim, [refused_profile(error, source)])
        return _said(report, state_dir, args.json)
    if args.sim:
        config = config.simulated()
    if args.camera_folder is not None:
        config = config.replaying(args.camera_folder)
    faults = SimFaults()
    try:
        for spec in args.fault:
            faults = faults.add(spec)
        faults.check(profile)
    except ValueError as error:
        raise CommandError(str(error), EX_USAGE) from None
    if not args.sim:
        _not_held(state_dir)
    options = CheckOptions(
        parts=parts,
        walk=args.walk,
        order=args.order,
        spot_timeout_s=args.timeout,
        skip=_enter_pressed if args.walk and sys.stdin.isatty() else lambda: False,
        # Asked on the terminal alone: with --json the prompt would go into the report.
        ask=_ask if sys.stdin.isatty() and sys.stdout.isatty() and not args.json else None,
        step_s=args.step if args.step is not None else 0.0 if args.sim else 0.3,
        camera_s=args.camera_seconds,
        camera_timeout_s=args.camera_timeout,
    )
    listen: Listener = (lambda event: None) if args.json else _printer(args.sim)
    if not args.json:  # which table, before the many lines of its parts
        named = table_named(args.sim, profile.name, profile.game, profile.source)
        print(f"checking {named}", flush=True)
    with open_table(config, get_game(profile.game), profile, state_dir, args.sim, faults) as table:
        report = run_check(table, options, listen)
    return _said(report, state_dir, args.json)


def _said(report: CheckReport, state_dir: Path, as_json: bool) -> int:
    path = report.write(state_dir)
    return _print(report.to_json(), str(path), as_json)


def _print(report: dict[str, object], path: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({**report, "report_file": path}, indent=2))
    else:
        print("\n".join(report_lines(report)))
        print(f"report: {path}")
    return 0 if report["passed"] else 1


def _printer(simulated: bool) -> Listener:
    """Each step as a line; each reed's edges too on a real table, where a person walks it."""

    def listen(event: CheckEvent) -> None:
        if event.step == "edge" and simulated:
            return
        print(f"{event.part}: {event.text}", flush=True)

    return listen


def _ask(question: str) -> str:
    """The answer of the person walking the table."""
    try:
        return input(f"lights: {question}")
    except EOFError:
        raise CommandError("the walk was given up: no answer about the LEDs") from None


def _enter_pressed() -> bool:
    """Whether the person walking the table pressed Enter: skip this spot."""
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    if ready:
        sys.stdin.readline()
        return True
    return False


def _not_held(state_dir: Path) -> None:
    """The running table holds the pins, the strip and the Pico: it is asked instead."""
    from controller.control import ControlError, request

    try:
        request(client_socket_path(state_dir), {"op": "status"}, timeout=3.0, attempts=1)
    except ControlError:
        return
    raise CommandError(
        "the table is running and holds its hardware: pause its game (`smartboard pause`) and "
        "run `smartboard check --daemon`, or stop it first",
        EX_USAGE,
    )


# What the running table decides for itself: its board, its backends, its camera.
_OWN_TO_THE_DAEMON = {
    "fault": "--fault",
    "game": "--game",
    "profile": "--profile",
    "config": "--config",
    "camera_folder": "--camera-folder",
    "sim": "--sim",
    "walk": "--walk",
}


def _through_daemon(args: argparse.Namespace, state_dir: Path, parts: tuple[str, ...]) -> int:
    from controller.control import ControlError, request

    given = [flag for name, flag in _OWN_TO_THE_DAEMON.items() if getattr(args, name)]
    if given:
        raise CommandError(
            f"--daemon checks the running table on its own board and parts: leave out "
            f"{', '.join(given)} (or stop the table and check without --daemon)",
            EX_USAGE,
        )

    try:
        reply = request(client_socket_path(state_dir), {"op": "check", "only": list(parts)})
    except ControlError as error:
        raise CommandError(str(error), EX_TEMPFAIL if error.unknown else 1) from None
    if not reply.get("ok"):
        raise CommandError(str(reply.get("error", "refused")))
    return _print(reply["report"], reply["report_file"], args.json)
