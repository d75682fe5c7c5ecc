"""`smartboard replay`: a saved game shown again, position by position, with its lights."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from controller.cli.arguments import Commands, read_config
from controller.cli.errors import EX_DATAERR, EX_USAGE, CommandError, failing
from controller.replay import RecordError, lights_view, load_record, steps
from controller.rules.words import action_text
from controller.seats import seat_caller
from controller.session import describe_state
from controller.terminal import draw


def add_commands(commands: Commands) -> None:
    replay = commands.add_parser(
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


def _replay(args: argparse.Namespace) -> int:
    if args.delay < 0:
        raise CommandError("--delay must not be negative", EX_USAGE)
    config = read_config(None)
    with failing(EX_DATAERR, RecordError):
        record = load_record(args.file)
    game = record.game
    called = seat_caller(game, record.names)
    colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    before = None  # the position an action is taken in, which names its cards
    for number, (action, state) in enumerate(steps(record)):
        if args.json:
            applied = None if action is None else action.to_json()
            print(json.dumps({"step": number, "action": applied, **describe_state(game, state)}))
        else:
            title = "set-up"
            if action is not None and before is not None:
                said = action_text(game, action.id, names=game.token_names(before))
                title = f"{number}. {said} ({action.id})"
            view = lights_view(game, state)
            board = draw(game, state, view, config.palette, colour, called=called)
            print(f"{title}\n{board}\n", flush=True)
        before = state
        if args.delay and action is not None:
            time.sleep(args.delay)
    result = game.result(state)
    if not args.json:
        print(f"result: {json.dumps(result)}" if result else "the game was not finished")
    return 0
