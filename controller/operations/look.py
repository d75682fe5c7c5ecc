"""Operations that read: the game and the table now, past games, dice statistics, guides."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from controller.dice_stats import sources, tallies
from controller.operations.registry import Argument, operation
from controller.past_games import past_games, past_position, past_record, record_json
from controller.rules import GAMES, get_game
from controller.rules.api import (
    JSON,
)
from controller.rules.guide import LANGUAGES, guide
from controller.seats import per_seat

if TYPE_CHECKING:
    from controller.daemon import Daemon

Handler = Callable[["Daemon", JSON, float], JSON]

Kind = Literal["text", "flag", "faces", "object", "words"]
"""What an argument holds: a string, true or false, die faces (numbers or names), a JSON object,
a list of strings (comma-separated on the command line)."""


@operation("status", "the game, whose move, history, result, what to fix; the camera and dice")
def _status(daemon: Daemon, request: JSON, now: float) -> JSON:
    return {"ok": True, **daemon.status(now)}


@operation("snapshot", "everything the dashboard shows (controller/snapshot.py)", dashboard="get")
def _snapshot(daemon: Daemon, request: JSON, now: float) -> JSON:
    return {"ok": True, **daemon.snapshot(now)}


@operation("dashboard", "the dashboard's address with its token, for a browser on this machine")
def _dashboard(daemon: Daemon, request: JSON, now: float) -> JSON:
    if daemon.web is None:
        return {"ok": False, "error": "this table serves no dashboard: start it with --web"}
    return {"ok": True, "url": daemon.web.url(with_token=True)}


PAST_ID_HELP = "a past game's id, from `smartboard games`"


@operation(
    "record",
    "the game record: game, options, history, players' names; of a past game with --id",
    Argument("id", "text", PAST_ID_HELP + " (default: the game on the table)"),
    dashboard="get",
)
def _record(daemon: Daemon, request: JSON, now: float) -> JSON:
    if request.get("id") is not None:
        return {
            "ok": True,
            "record": record_json(past_record(daemon.options.state_dir, request["id"])),
        }
    state = daemon.session.state
    history = state.history()
    names = per_seat(daemon.journal.names, state.num_players)
    record = {"game": daemon.game.name, "options": state.options, "history": history}
    return {"ok": True, "record": record | {"names": names}}


@operation(
    "games",
    "the past games kept in the state directory, newest first: date, players, result, moves",
    dashboard="get",
)
def _games(daemon: Daemon, request: JSON, now: float) -> JSON:
    return {"ok": True, "games": past_games(daemon.options.state_dir)}


@operation(
    "dice_stats",
    "are the dice fair? each die's faces over the games played, tested against fair dice, and "
    "how the rolls came (read, confirmed, corrected, typed)",
    dashboard="get",
)
def _dice_stats(daemon: Daemon, request: JSON, now: float) -> JSON:
    state_dir = daemon.options.state_dir
    return {
        "ok": True,
        "tallies": [tally.to_json() for tally in tallies(state_dir)],
        "sources": sources(state_dir),
    }


@operation(
    "replay",
    "a past game's position after some of its moves, as a snapshot the dashboard draws",
    Argument("id", "text", PAST_ID_HELP, required=True),
    Argument("step", "text", "how many of its moves (0: the set-up)", required=True),
    dashboard="get",
)
def _replay(daemon: Daemon, request: JSON, now: float) -> JSON:
    profiles = {daemon.game.name: daemon.profile}
    position = past_position(
        daemon.options.state_dir,
        request.get("id"),
        request.get("step"),
        profiles,
        daemon.config.palette,
    )
    return {"ok": True, **position}


@operation(
    "guide",
    "how to play a game, and what to do in each of its phases",
    Argument("game", "text", "the game (default: the one on the table)", choices=tuple(GAMES)),
    Argument("lang", "text", "the language (default: en)", choices=LANGUAGES),
    dashboard="get",
)
def _guide(daemon: Daemon, request: JSON, now: float) -> JSON:
    game = get_game(str(request.get("game") or daemon.game.name))
    return {"ok": True, **guide(game.info, str(request.get("lang") or "en")).to_json()}
