"""Operations that play: act, roll, correct, take back, confirm, new game, hints, pause."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from controller.journal import COMPUTER_DICE
from controller.new_game import plan_new_game
from controller.operations.registry import Argument, applied_reply, operation, refused
from controller.refusals import Refused
from controller.report import waiting
from controller.rules import GAMES
from controller.rules.api import (
    JSON,
    IllegalActionError,
)
from controller.rules.words import action_text
from controller.search import DEFAULT_LEVEL, LEVELS
from controller.seats import MAX_NAME
from vision.dice_sources import Face, VirtualDice

if TYPE_CHECKING:
    from controller.daemon import Daemon

Handler = Callable[["Daemon", JSON, float], JSON]

Kind = Literal["text", "flag", "faces", "object", "words"]
"""What an argument holds: a string, true or false, die faces (numbers or names), a JSON object,
a list of strings (comma-separated on the command line)."""


@operation("actions", "list the legal actions, each with its id")
def _actions(daemon: Daemon, request: JSON, now: float) -> JSON:
    state = daemon.session.state
    actions = [{"id": a.id, "action": a.to_json()} for a in state.legal_actions()]
    to_move = None if state.is_terminal() else state.player_name(state.current_player())
    reply: JSON = {"ok": True, "to_move": to_move, "actions": actions, "waiting": waiting(daemon)}
    # The rules allow any card the camera may read; the simulated hands know what is held.
    held = None if daemon.hands is None else daemon.hands.choices(state)
    if held is not None:
        reply["in_hand"] = sorted({a.id for a in held})
    return reply


@operation(
    "act",
    "apply a legal action by its id",
    Argument("id", "text", "an id from `smartboard actions`, e.g. place_trap:5", required=True),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _act(daemon: Daemon, request: JSON, now: float) -> JSON:
    applied = applied_reply([daemon.session.act(str(request.get("id")), now)], daemon.session)
    daemon.hands_follow(reeds=True)
    return applied


FACES_HELP = "die faces, e.g. 3 4, or voyage"


@operation(
    "roll",
    "enter a roll the table did not read, or the right one for an unsure reading",
    # On the simulated table, a roll with no values rolls the dice the game wants.
    Argument("values", "faces", FACES_HELP),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _roll(daemon: Daemon, request: JSON, now: float) -> JSON:
    values = request.get("values")
    source = "typed" if daemon.unsure is None else "corrected"  # typed over an unsure reading
    if values is None and daemon.simulated:
        values, source = _random_roll(daemon), "virtual"
    applied = daemon.session.on_dice(_faces(values), now, source)
    daemon.unsure = None
    return applied_reply(applied, daemon.session)


@operation(
    "correct",
    "replace the last, misread, roll",
    Argument("values", "faces", FACES_HELP, required=True),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _correct(daemon: Daemon, request: JSON, now: float) -> JSON:
    corrected = daemon.session.correct_dice(_faces(request.get("values")), now)
    return applied_reply(corrected, daemon.session)


@operation(
    "undo",
    "take back the last move (against the computer, the last round): the game goes back to "
    "before it, and the lights show where the pieces go back; the dice it was made on stay as "
    "they fell",
    Argument("reroll", "flag", "take back the roll that move was made on too, to roll again"),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _undo(daemon: Daemon, request: JSON, now: float) -> JSON:
    reroll = request.get("reroll")
    if reroll is not None and not isinstance(reroll, bool):
        return {"ok": False, "error": f'"reroll" is true or false, not {reroll!r}'}
    if daemon.room is not None:
        return refused(LINKED_UNDO, "linked_undo")
    session = daemon.session
    planned = session.take_back_plan()
    player = None if planned is None else session.state.player_name(planned.player)
    taken = session.take_back(now, bool(reroll))
    daemon.unsure = None  # a roll held unsure was of the position taken back
    daemon.hands_follow(reeds=True)
    state = session.state
    names = daemon.game.token_names(state)  # a Potions card's monster, as the page names it
    return {
        "ok": True,
        "player": player,
        "taken_back": [a.id for a in taken],
        "said": [action_text(daemon.game, a.id, names=names) for a in taken],
        "to_move": state.player_name(state.current_player()),
        "roll": daemon.game.dice_wanted(state) is not None,
        "restoring": session.restoring,
    }


LINKED_UNDO = (
    "no take-back while the tables are linked: the other tables have this move too, and taking "
    "it back here alone would make the tables disagree; play on, or start a new game on every "
    "table"
)


def _faces(values: object) -> tuple[Face, ...]:
    if not isinstance(values, list) or not values:
        raise ValueError('"values" must be a non-empty list of die faces')
    return VirtualDice.typed(values).values


def _random_roll(daemon: Daemon) -> list[Face]:
    state = daemon.session.state
    wanted = None if state.is_terminal() else daemon.game.dice_wanted(state)
    if wanted is None:
        raise IllegalActionError("no dice are wanted now")
    return list(VirtualDice(daemon.rng).roll(wanted.faces, wanted.count).values)


@operation(
    "confirm",
    "apply the roll the camera read but was unsure of, as it was read; or settle one unsure die "
    "(--die N --face F): once each is settled, the roll is applied",
    Argument("die", "text", "an unsure die, numbered left to right from 1 (`smartboard status`)"),
    Argument("face", "text", "the face that die shows: one of its readings"),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _confirm(daemon: Daemon, request: JSON, now: float) -> JSON:
    unsure = daemon.unsure
    if unsure is None:
        return {"ok": False, "error": "no unsure dice reading to confirm"}
    die, face = request.get("die"), request.get("face")
    settled: tuple[tuple[Face, ...], str] | None = (unsure.values, "confirmed")
    if die is not None or face is not None:
        if die is None or face is None:
            return {"ok": False, "error": "a die is settled with both --die and --face"}
        try:
            settled = unsure.pick(die, face)
        except Refused as error:
            return refused(str(error), error.key, **error.params)
    if settled is None:
        return {"ok": True, "applied": [], "waiting": sorted(unsure.unsure().keys() - unsure.picks)}
    values, source = settled
    applied = daemon.session.on_dice(values, now, source)
    daemon.unsure = None
    return applied_reply(applied, daemon.session)


@operation(
    "new",
    "start a new game once this one is over",
    Argument("abandon", "flag", "give up the game in progress"),
    Argument(
        "game",
        "text",
        "play this game next, with its own board profile (default: the same game)",
        choices=tuple(sorted(GAMES)),
    ),
    Argument("options", "object", "the new game's options (default: the same game's)"),
    Argument(
        "names",
        "words",
        f"the players' names, one a seat in turn order (at most {MAX_NAME} characters; none "
        "or blank: the seat's own name)",
    ),
    Argument(
        "computer",
        "words",
        "the seats the table plays, each SEAT[:LEVEL]: a seat's number from 1 or its name, "
        f"a level among {', '.join(LEVELS)} (default {DEFAULT_LEVEL}); e.g. 2:strong,3",
    ),
    Argument(
        "computer_dice",
        "text",
        "who throws the dice of the seats the table plays: a hand in the tray, or the table "
        "itself (default: as in the last game)",
        choices=COMPUTER_DICE,
    ),
    Argument(
        "hints",
        "text",
        "whether the players may ask for hints (default: on)",
        choices=("on", "off"),
    ),
    changes_game=True,
    dashboard="post",
)
def _new(daemon: Daemon, request: JSON, now: float) -> JSON:
    # Checked first: a mistake in the new game is said before the table asks to give this up.
    plan = plan_new_game(
        daemon.game,
        daemon.session.state.options,
        daemon.journal.computer_dice,
        request.get("game"),
        request.get("options"),
        request.get("names"),
        request.get("computer"),
        request.get("hints"),
        request.get("computer_dice"),
    )
    players, room = plan.state.num_players, daemon.room
    if room is not None and max(room.seats, default=0) >= players:
        seats = ", ".join(str(seat + 1) for seat in sorted(room.seats))
        return {
            "ok": False,
            "error": f"this table plays seat {seats} of the room: a game of {players} players "
            "has no such seat",
        }
    if not daemon.session.state.is_terminal() and not request.get("abandon"):
        # One message for both callers: the CLI's flag, and the page's button (whose own
        # confirmation sends `abandon`, so it sees this only if the game changed meanwhile).
        return {
            "ok": False,
            "error": "a game is in progress; abandon it with `smartboard new --abandon` "
            "(or the page's New game)",
        }
    daemon.new_game(now, plan)
    return {"ok": True, "game": daemon.game.name}


@operation(
    "hint",
    "the best move for the player to move, lit on the board, and the alternatives: the table "
    "thinks at its strongest level for a few seconds (`pending` until then: ask again)",
    Argument("id", "text", "light this one of the moves the hint lists instead of its best"),
    refused_paused=True,
    dashboard="post",
)
def _hint(daemon: Daemon, request: JSON, now: float) -> JSON:
    return daemon.computer.ask_hint(daemon.session, request.get("id"))


@operation(
    "hints",
    "switch hints on or off for the rest of the game (a new game chooses its own)",
    Argument("hints", "text", "on or off", required=True, choices=("on", "off")),
    dashboard="post",
)
def _hints(daemon: Daemon, request: JSON, now: float) -> JSON:
    on = request.get("hints")
    if on not in ("on", "off"):
        return {"ok": False, "error": f'hints are "on" or "off", not {on!r}'}
    daemon.computer.switch_hints(daemon.session, on == "on")
    return {"ok": True, "hints": on == "on"}


@operation(
    "pause", "pause the game: the table ignores the pieces until it resumes", dashboard="post"
)
def _pause(daemon: Daemon, request: JSON, now: float) -> JSON:
    return _pausing(daemon, True, now)


@operation("resume", "resume a paused game, reading the table as it now lies", dashboard="post")
def _resume(daemon: Daemon, request: JSON, now: float) -> JSON:
    return _pausing(daemon, False, now)


def _pausing(daemon: Daemon, pause: bool, now: float) -> JSON:
    if pause == daemon.paused:
        return {"ok": False, "error": "the game is already " + ("paused" if pause else "on")}
    session = daemon.session
    if pause and session.state.is_terminal():
        return {"ok": False, "error": "the game is over: there is nothing to pause"}
    daemon.paused = pause
    if pause:
        session.say("paused: the table ignores the pieces until the game resumes", "paused")
    else:
        session.message = ""
        # What the hands did meanwhile is read now, as if it had just happened.
        session.on_layout(daemon.sensed(), now)
    return {"ok": True, "paused": pause}
