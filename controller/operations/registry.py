"""The control operations, each declared once: its name, arguments, help and who may call it.

The control socket (`controller/control.py`), the command line (`controller/cli/`) and the
dashboard (`controller/web.py`) all read this registry, as Klipper's `register_command` serves
every front end. A request is one JSON object, `{"op": NAME, ARGUMENT: VALUE, ...}`; its reply one
JSON object with "ok", and "error" saying why when it is refused. The handlers run on the
daemon's loop, which alone touches the session; they are declared in the modules beside this
one, by what they are for (`look`, `play`, `table`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from controller.journal import JournalWriteError
from controller.refusals import Refused
from controller.requests import ANSWER_WITHIN_S
from controller.rules.api import (
    JSON,
    Action,
    IllegalActionError,
)
from controller.startup import StartupError

if TYPE_CHECKING:
    from controller.daemon import Daemon
    from controller.session import Session

Handler = Callable[["Daemon", JSON, float], JSON]

Kind = Literal["text", "flag", "faces", "object", "words"]
"""What an argument holds: a string, true or false, die faces (numbers or names), a JSON object,
a list of strings (comma-separated on the command line)."""


@dataclass(frozen=True)
class Argument:
    name: str
    kind: Kind
    help: str
    required: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Operation:
    name: str
    help: str
    handler: Handler
    arguments: tuple[Argument, ...]
    changes_game: bool
    """After it, the simulated table's hands lay out what the game now expects."""
    refused_paused: bool
    """Refused while the game is paused: on the simulated table a click is a move too."""
    dashboard: Literal["get", "post"] | None
    """How the dashboard may ask for it: GET reads, POST changes; None, it may not."""
    placing: bool
    """It lays pieces: only where a click may (`Daemon.placeable`); elsewhere hands do it."""
    builder: bool = False
    """A tool of the table's builder (calibration, dice learning): it takes the camera and the
    builder's hands, so it is refused while a game is in progress, unless paused."""

    @property
    def changes(self) -> bool:
        """It may change the table (what the page must POST): applied at most once by its id."""
        return self.dashboard == "post"


OPERATIONS: dict[str, Operation] = {}


def operation(
    name: str,
    help: str,
    *arguments: Argument,
    changes_game: bool = False,
    refused_paused: bool = False,
    dashboard: Literal["get", "post"] | None = None,
    placing: bool = False,
    builder: bool = False,
) -> Callable[[Handler], Handler]:
    """Declare the operation that the decorated function handles."""

    def register(handler: Handler) -> Handler:
        if name in OPERATIONS:
            raise ValueError(f"control op {name!r} is declared twice")
        OPERATIONS[name] = Operation(
            name,
            help,
            handler,
            arguments,
            changes_game,
            refused_paused,
            dashboard,
            placing,
            builder,
        )
        return handler

    return register


def applied_reply(actions: list[Action], session: Session) -> JSON:
    """The actions applied, by their ids and in words (`said`, for the command line)."""
    ids = [a.id for a in actions]
    return {"ok": True, "applied": ids, "said": session.words(ids)}


def dashboard_ops(method: Literal["get", "post"]) -> tuple[str, ...]:
    """The ops the dashboard may ask for with `method`."""
    return tuple(name for name, op in OPERATIONS.items() if op.dashboard == method)


def answer(daemon: Daemon, request: JSON, now: float, waited: float = 0.0) -> JSON:
    """A control request, answered by its operation on the daemon's loop; a changing one at most
    once by its id, and not at all once its server may have given up on it."""
    name = request.get("op")
    op = OPERATIONS.get(name) if isinstance(name, str) else None
    if op is None:
        return {"ok": False, "error": f"unknown op {name!r}; known: {', '.join(OPERATIONS)}"}
    request_id = request.get("request_id") if op.changes else None
    earlier = daemon.answered.get(request_id)
    if earlier is not None:
        return earlier | {"repeated": True}
    # The refusals below are not kept by the request's id: sent again, it is a new chance.
    if daemon.journal_fault is not None and (op.changes_game or op.refused_paused):
        return refused(daemon.journal_fault, "journal", reason=daemon.journal_fault)
    if op.changes and waited > ANSWER_WITHIN_S:
        seconds = round(waited)
        return refused(f"not applied: the table was busy for {seconds} s", "busy", seconds=seconds)
    before = _progress(daemon)
    daemon.journal.request = request_id if isinstance(request_id, str) else None
    try:
        reply = _run(op, daemon, request, now)
    except JournalWriteError as error:
        daemon.journal_failed(error, now)
        if _progress(daemon) == before:
            fault = daemon.journal_fault
            return refused(f"{fault}: not applied", "journal", reason=fault)
        # A move sensed after the one asked for could not be recorded: the request itself was
        # applied, and a retry must not apply it again.
        reply = {"ok": False, "error": f"{daemon.journal_fault}: applied in part; check status"}
    finally:
        daemon.journal.request = None
    daemon.answered.keep(request_id, reply)
    return reply


def refused(error: str, key: str, **params: object) -> JSON:
    """A refusal a player may meet on the page: `error` in English for the CLI and the logs,
    `key` and `params` for the page to say it in the player's language (strings.js)."""
    return {"ok": False, "error": error, "key": key, "params": params}


def _progress(daemon: Daemon) -> tuple[object, ...]:
    """What a changing request changes: the game, its moves, whether it is paused."""
    return daemon.game.name, len(daemon.session.state.actions()), daemon.paused


def _run(op: Operation, daemon: Daemon, request: JSON, now: float) -> JSON:
    if daemon.paused and op.refused_paused:
        return refused("the game is paused: resume it first", "paused")
    if op.placing and not daemon.placeable:
        return refused("on a real table the pieces are placed by hand", "real_table")
    if op.builder and not daemon.paused and not daemon.session.state.is_terminal():
        return refused("a game is in progress: pause it first", "playing")
    for argument in op.arguments:
        if argument.required and request.get(argument.name) is None:
            return {"ok": False, "error": f'{op.name} needs "{argument.name}": {argument.help}'}
    try:
        reply = op.handler(daemon, request, now)
    except IllegalActionError as error:
        return refused(str(error), "illegal")
    except Refused as error:  # a ValueError with words for the page: before the plain ones
        return refused(str(error), error.key, **error.params)
    except (ValueError, StartupError) as error:
        return {"ok": False, "error": str(error)}
    if reply["ok"] and op.changes_game:
        daemon.hands_follow()
    return reply
