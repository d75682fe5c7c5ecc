"""The control operations, each declared once: its name, arguments, help and who may call it.

The control socket (`controller/control.py`), the command line (`controller/cli/`) and the
dashboard (`controller/web.py`) all read this registry, as Klipper's `register_command` serves
every front end. A request is one JSON object, `{"op": NAME, ARGUMENT: VALUE, ...}`; its reply one
JSON object with "ok", and "error" saying why when it is refused. The handlers run on the
daemon's loop, which alone touches the session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from controller.check_lights import WHITE
from controller.check_report import PARTS
from controller.dice_stats import sources, tallies
from controller.journal import JournalWriteError
from controller.past_games import past_games, past_position, past_record, record_json
from controller.refusals import Refused
from controller.requests import ANSWER_WITHIN_S
from controller.rules import GAMES, get_game, icon_dice
from controller.rules.api import (
    CAMERA,
    JSON,
    PRESENT,
    REED,
    UNSENSED,
    Action,
    IllegalActionError,
)
from controller.rules.guide import LANGUAGES, guide
from controller.rules.words import action_text
from controller.search import DEFAULT_LEVEL, LEVELS
from controller.seats import MAX_NAME, per_seat
from controller.startup import StartupError
from hardware.leds import SimStrip, limit_frame
from hardware.reeds import ReedBank
from vision.board_camera import HIDDEN
from vision.dice_sources import Face, VirtualDice

if TYPE_CHECKING:
    from controller.daemon import Daemon
    from controller.dice_learning import DiceLearning
    from vision.frame_sources import Image
    from vision.table_camera import TableCamera

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


def _applied(actions: list[Action]) -> JSON:
    return {"ok": True, "applied": [a.id for a in actions]}


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


@operation("actions", "list the legal actions, each with its id")
def _actions(daemon: Daemon, request: JSON, now: float) -> JSON:
    state = daemon.session.state
    actions = [{"id": a.id, "action": a.to_json()} for a in state.legal_actions()]
    to_move = None if state.is_terminal() else state.player_name(state.current_player())
    return {"ok": True, "to_move": to_move, "actions": actions}


@operation(
    "act",
    "apply a legal action by its id",
    Argument("id", "text", "an id from `smartboard actions`, e.g. place_trap:5", required=True),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _act(daemon: Daemon, request: JSON, now: float) -> JSON:
    applied = _applied([daemon.session.act(str(request.get("id")), now)])
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
    return _applied(applied)


@operation(
    "correct",
    "replace the last, misread, roll",
    Argument("values", "faces", FACES_HELP, required=True),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _correct(daemon: Daemon, request: JSON, now: float) -> JSON:
    return _applied(daemon.session.correct_dice(_faces(request.get("values")), now))


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
    return {
        "ok": True,
        "player": player,
        "taken_back": [a.id for a in taken],
        "said": [action_text(daemon.game, a.id) for a in taken],
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
    return _applied(applied)


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
        "hints",
        "text",
        "whether the players may ask for hints (default: on)",
        choices=("on", "off"),
    ),
    changes_game=True,
    dashboard="post",
)
def _new(daemon: Daemon, request: JSON, now: float) -> JSON:
    if not daemon.session.state.is_terminal() and not request.get("abandon"):
        # One message for both callers: the CLI's flag, and the page's button (whose own
        # confirmation sends `abandon`, so it sees this only if the game changed meanwhile).
        return {
            "ok": False,
            "error": "a game is in progress; abandon it with `smartboard new --abandon` "
            "(or the page's New game)",
        }
    daemon.new_game(
        now,
        request.get("game"),
        request.get("options"),
        request.get("names"),
        request.get("computer"),
        request.get("hints"),
    )
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


@operation(
    "place",
    "lay a piece or card on a spot of the simulated table, or lift it; on a table without a "
    "camera, enter what the camera would read",
    Argument("spot", "text", "the spot, e.g. 5.trap (`smartboard place --list` names them)"),
    Argument(
        "token",
        "text",
        f"what to lay: {PRESENT!r} on a reed spot; on a camera spot what the camera would read "
        "there, a card, a die (default: the next it may show)",
    ),
    Argument("lift", "flag", "empty the spot"),
    Argument("list", "flag", "list the spots instead: what each shows and may hold next"),
    refused_paused=True,
    dashboard="post",
    placing=True,
)
def _place(daemon: Daemon, request: JSON, now: float) -> JSON:
    """A reed spot's piece is laid or lifted: as told, else the other of what it is (a click).
    A camera spot takes "token", else the next of what the game would see there
    (`_next_token`)."""
    if request.get("list"):
        return {"ok": True, "spots": _spots(daemon)}
    spot, token, lift = request.get("spot"), request.get("token"), bool(request.get("lift"))
    if not isinstance(spot, str) or spot not in daemon.game.spots():
        return {"ok": False, "error": f"no spot {spot!r} on the {daemon.game.name} table"}
    if token is not None and not isinstance(token, str):
        return {"ok": False, "error": f'"token" must be a string, not {token!r}'}
    if lift and token is not None:
        return {"ok": False, "error": f"lift {spot} or lay {token!r} on it, not both"}
    if token == HIDDEN:
        return {"ok": False, "error": f"{HIDDEN!r} is what a camera says of a covered piece"}
    reeds = daemon.reeds
    if daemon.game.spots()[spot] in {REED, CAMERA} - daemon.placeable:
        return refused("on a real table the pieces are placed by hand", "real_table")
    if isinstance(reeds, ReedBank) and spot in reeds.channels:
        if token not in (None, PRESENT):
            return {"ok": False, "error": f"a reed feels a {PRESENT}, never which: not {token!r}"}
        occupied = not lift and (token == PRESENT or not reeds.read()[spot])
        reeds.drive(spot, occupied)
        return {"ok": True, "spot": spot, "occupied": occupied}
    camera = daemon.sim_camera
    if camera is None or spot not in camera.spots:
        return {"ok": False, "error": f"spot {spot!r} senses nothing: the table cannot see it"}
    board = camera.truth
    laid = (
        None if lift else token if token is not None else _next_token(daemon, spot, board.get(spot))
    )
    if laid is None:
        board.pop(spot, None)
    else:
        board[spot] = laid
    camera.show(board)
    return {"ok": True, "spot": spot, "token": laid}


def _next_steps(daemon: Daemon) -> list[Action]:
    """What may come next on the board: a legal move the seat can make (from the cards the
    simulated hands hold), or a card or piece the board reads as a chance outcome (a deal; the
    card the simulated deal really turns up)."""
    session, hands = daemon.session, daemon.hands
    state = session.state
    if state.is_chance_node() and daemon.game.dice_wanted(state) is None:
        dealt = None if hands is None else hands.outcome(state)
        return [dealt] if dealt is not None else [o for o, _ in state.chance_outcomes()]
    if state.is_terminal() or state.is_chance_node():
        return []
    choices = None if hands is None else hands.choices(state)
    return session.legal_actions() if choices is None else choices


def _spots(daemon: Daemon) -> JSON:
    """Each sensed spot: its sensor, what the table shows there and what the game expects, and
    what the next step of the game may leave there other than those two (None: it empties the
    spot)."""
    session = daemon.session
    afters = [session.layout_after(step) for step in _next_steps(daemon)]
    listed: JSON = {}
    for spot, sensor in sorted(daemon.game.spots().items()):
        if sensor == UNSENSED:
            continue
        expected, shows = session.expected.get(spot), session.sensed.get(spot)
        following = {after.get(spot) for after in afters} - {expected, shows}
        listed[spot] = {
            "sensor": sensor,
            "shows": shows,
            "expected": expected,
            "next": sorted(following, key=lambda token: (token is not None, token or "")),
        }
    return listed


def _next_token(daemon: Daemon, spot: str, shown: str | None) -> str | None:
    """What a click lays on a camera spot: what the game expects there if it shows something
    else; else what the next step would leave there (an Akuma card turned, say); else nothing."""
    session = daemon.session
    expected = session.expected.get(spot)
    if shown != expected:
        return expected
    for step in _next_steps(daemon):
        after = session.layout_after(step).get(spot)
        if after != shown:
            return after
    return None


@operation(
    "check",
    "test the table while its game is paused or over: each LED, the reeds (walked by simulated "
    "hands on the simulated table), the Pico's link, the camera's latest frame; the report is "
    "also kept in the state directory (check-report.json)",
    Argument("only", "words", f"the parts to run (default: all): {', '.join(PARTS)}"),
    dashboard="post",
)
def _check(daemon: Daemon, request: JSON, now: float) -> JSON:
    if not daemon.paused and not daemon.session.state.is_terminal():
        return refused(
            "the table test runs while the game is paused or over: pause it first",
            "check_playing",
        )
    # The check drives the camera's frames through OpenCV: loaded when a check is asked for.
    from controller.check_table import CheckOptions, Table, run_check

    only = request.get("only") or list(PARTS)
    if not isinstance(only, list) or not set(only) <= set(PARTS):
        return {"ok": False, "error": f'"only" must list parts among {", ".join(PARTS)}'}
    parts, strip, reeds = daemon.backends, daemon.strip, daemon.reeds
    hands = reeds.drive if daemon.simulated and isinstance(reeds, ReedBank) else None
    camera = daemon.table_camera
    table = Table(
        daemon.profile,
        daemon.config,
        daemon.simulated,
        strip=strip,
        reeds=reeds,
        link=parts.serial_link,
        hands=hands,
        shown=(lambda: strip.last) if isinstance(strip, SimStrip) else None,
        camera_frame=None if camera is None else lambda: _latest_image(camera),
        calibration=parts.calibration,
    )
    try:
        report = run_check(table, CheckOptions(parts=tuple(only)))
    finally:
        daemon.redraw()
    path = report.write(daemon.options.state_dir)
    return {"ok": True, "report": report.to_json(), "report_file": str(path)}


def _latest_image(camera: TableCamera) -> Image | None:
    latest = camera.latest
    return None if latest is None else latest[0]


@operation(
    "light_test",
    "light one spot's LEDs, or one LED, white and the others dark, while the game is paused or "
    "over (the table test); with neither, the game's own lights again",
    Argument("spot", "text", "a spot of the board profile, e.g. r3c5"),
    Argument("led", "text", "an LED's index on the strip, from 0"),
    dashboard="post",
    builder=True,
)
def _light_test(daemon: Daemon, request: JSON, now: float) -> JSON:
    profile = daemon.profile
    count = profile.led_count
    spot, led = request.get("spot"), request.get("led")
    if spot is None and led is None:
        daemon.lit = None
        return {"ok": True, "leds": [], "spots": [], "count": count}
    if spot is not None:
        found = profile.spots.get(str(spot))
        if found is None:
            return {"ok": False, "error": f"no spot {spot!r} in board profile {profile.name}"}
        leds = list(found.leds)
    elif isinstance(led, int | str) and not isinstance(led, bool) and str(led).isdigit():
        leds = [int(led)]
    else:
        leds = [-1]
    if not all(0 <= i < count for i in leds):
        return {"ok": False, "error": f"no LED {led!r}: the strip has LEDs 0 to {count - 1}"}
    on = set(leds)
    frame = [WHITE if i in on else (0, 0, 0) for i in range(count)]
    config = daemon.config
    daemon.lit = limit_frame(frame, config.brightness_cap, config.power_budget_ma)
    owners = sorted(s.id for s in profile.spots.values() if on & set(s.leds))
    return {"ok": True, "leds": leds, "spots": owners, "count": count}


# -- the builder's tools: the camera's picture, calibration, dice learned (issue 23) ------


@operation(
    "camera_state",
    "the camera as the builder sees it: where its frames come from, their rate and exposure, "
    "the markers wanted, the calibration saved and the one taken, the dice being learned",
    dashboard="get",
)
def _camera_state(daemon: Daemon, request: JSON, now: float) -> JSON:
    learning = daemon.learning
    return {
        "ok": True,
        **daemon.desk.to_json(),
        "learnable": sorted(icon_dice()),
        "learning": None if learning is None else learning.to_json(),
    }


@operation(
    "calibrate_take",
    "find the markers in the camera's frame now and calibrate from them, as `smartboard "
    "calibrate` does from a photo: the error in mm, to be saved with calibrate_save",
    dashboard="post",
    builder=True,
)
def _calibrate_take(daemon: Daemon, request: JSON, now: float) -> JSON:
    taken = daemon.desk.take()
    return {"ok": True, "error_mm": round(taken.error_mm, 3), "markers": list(taken.marker_ids)}


@operation(
    "calibrate_save",
    "save the calibration taken last where the table reads it; the camera reads through it",
    dashboard="post",
    builder=True,
)
def _calibrate_save(daemon: Daemon, request: JSON, now: float) -> JSON:
    path = daemon.desk.save()
    daemon.reopen_camera(now)
    return {"ok": True, "path": str(path)}


@operation(
    "learn_dice",
    "learn icon dice from the camera, each face in turn laid in the tray (learn_take)",
    Argument("kind", "text", "the kind of dice", required=True, choices=tuple(sorted(icon_dice()))),
    dashboard="post",
    builder=True,
)
def _learn_dice(daemon: Daemon, request: JSON, now: float) -> JSON:
    dice = icon_dice().get(str(request.get("kind")))
    if dice is None:
        return {
            "ok": False,
            "error": f"no icon dice {request.get('kind')!r}: {sorted(icon_dice())}",
        }
    desk = daemon.desk
    if desk.source() is None:
        raise Refused("no camera picture on this table: nothing to learn from", "no_camera")
    if desk.profile.dice_tray is None:
        raise Refused(
            f"board profile {desk.profile.name} has no dice tray: learn from photos with "
            "`smartboard dice learn`",
            "no_tray",
        )
    if desk.calibration() is None:
        raise Refused(
            "calibrate the camera first: the dice are looked for in the tray", "uncalibrated"
        )
    if daemon.learning is not None:
        daemon.learning.cancel()
    # Here, not at the top: learning needs OpenCV, which the command line does not load.
    from controller.dice_learning import DiceLearning

    sim = desk.sim
    daemon.learning = DiceLearning(dice, desk.tray_frame, None if sim is None else sim.show_dice)
    return {"ok": True, "learning": daemon.learning.to_json()}


def _learning(daemon: Daemon) -> DiceLearning:
    if daemon.learning is None or daemon.learning.state == "cancelled":
        raise Refused("no dice are being learned: start with learn_dice", "learning_none")
    return daemon.learning


@operation(
    "learn_take",
    "take the frames of the face asked for next, or of FACE again",
    Argument("face", "text", "a face to take again (default: the next without its frames)"),
    dashboard="post",
    builder=True,
)
def _learn_take(daemon: Daemon, request: JSON, now: float) -> JSON:
    face = request.get("face")
    step = _learning(daemon).take(None if face is None else str(face))
    return {"ok": True, "step": step}


@operation("learn_cancel", "stop learning dice; nothing is saved", dashboard="post")
def _learn_cancel(daemon: Daemon, request: JSON, now: float) -> JSON:
    _learning(daemon).cancel()
    return {"ok": True}


@operation(
    "learn_save",
    "save the dice model learned where `smartboard dice learn` saves it; the camera reads with it",
    dashboard="post",
    builder=True,
)
def _learn_save(daemon: Daemon, request: JSON, now: float) -> JSON:
    learning = _learning(daemon)
    folder = daemon.config.dice_models or daemon.options.state_dir
    path = learning.save(folder)
    daemon.reopen_camera(now)
    return {"ok": True, "path": str(path)}


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
