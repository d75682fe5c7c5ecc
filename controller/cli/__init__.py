"""`smartboard`: the daemon and the commands that talk to it.

A module per group of commands, each adding its own to the parser. Only the command that runs
imports what it needs of the daemon and the camera: `smartboard --help`, `status` or `act` do not
load OpenCV.
"""

from __future__ import annotations

import argparse
import difflib
import logging
import os
import re
import select
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import NoReturn

from controller.cli import (
    bench,
    calibrate,
    cards,
    check,
    dice,
    game,
    how_to_play,
    kit,
    replay,
    run,
    status,
)
from controller.cli.errors import EX_SIGPIPE, CommandError


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, args.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        code: int = args.command(args)
        # Flushed here: a reader gone by the interpreter's last flush would mean a traceback.
        sys.stdout.flush()
        return code
    except CommandError as error:
        print(f"smartboard: {error}", file=sys.stderr)
        return error.status
    except BrokenPipeError:
        if not _reader_gone():
            raise
        # `smartboard actions | head -1`: quiet, as a command killed by SIGPIPE. What is left
        # in the buffer goes to /dev/null, so the last flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EX_SIGPIPE


def _reader_gone() -> bool:
    """Whether stdout is a pipe that its reader has closed (not, say, a socket to the daemon)."""
    try:
        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
    except (OSError, ValueError):  # stdout replaced, or closed
        return False
    return any(events & select.POLLERR for _, events in poll.poll(0))


def _version() -> str:
    """The installed package's version: one number, kept in pyproject.toml alone."""
    try:
        return version("smartboard")
    except PackageNotFoundError:
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse's parser, which also says the choice meant by a typo ("stauts": status)."""

    def error(self, message: str) -> NoReturn:
        # Python 3.11 quotes the choices ('run', 'status'); later ones may not (run, status).
        typo = re.search(r"invalid choice: '?([^' ]*)'? \(choose from (.*)\)$", message)
        if typo is not None:
            choices = [choice.strip("'") for choice in typo[2].split(", ")]
            near = difflib.get_close_matches(typo[1], choices, n=3)
            if near:
                message += f"; did you mean {' or '.join(near)}?"
        super().error(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="smartboard",
        description="The daemon of an instrumented games table, and commands to talk to it.",
    )
    parser.add_argument(
        "--log-level", default="warning", choices=["debug", "info", "warning", "error"]
    )
    parser.add_argument("--version", action="version", version=f"smartboard {_version()}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for group in (
        run,
        status,
        game,
        how_to_play,
        replay,
        dice,
        cards,
        kit,
        bench,
        calibrate,
        check,
    ):
        group.add_commands(commands)
    return parser
