"""`smartboard`: the daemon and the commands that talk to it.

A module per group of commands, each adding its own to the parser. Only the command that runs
imports what it needs of the daemon and the camera: `smartboard --help`, `status` or `act` do not
load OpenCV.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from controller.cli import bench, calibrate, cards, dice, game, replay, run
from controller.cli.errors import CommandError


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        code: int = args.command(args)
        return code
    except CommandError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return error.status


def _version() -> str:
    """The installed package's version: one number, kept in pyproject.toml alone."""
    try:
        return version("smartboard")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smartboard",
        description="The daemon of an instrumented games table, and commands to talk to it.",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    parser.add_argument("--version", action="version", version=f"smartboard {_version()}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for group in (run, game, replay, dice, cards, bench, calibrate):
        group.add_commands(commands)
    return parser
