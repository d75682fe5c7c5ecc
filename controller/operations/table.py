"""Operations of the table and its builder: placing simulated pieces, checking the table, the
light test, the camera's calibration and learning dice."""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from controller.check_lights import WHITE
from controller.check_report import PARTS
from controller.journal import JournalWriteError
from controller.operations.registry import Argument, operation, refused
from controller.refusals import Refused
from controller.rules import icon_dice
from controller.rules.api import (
    CAMERA,
    JSON,
    PRESENT,
    REED,
    UNSENSED,
    Action,
)
from hardware.leds import SimStrip, limit_frame
from hardware.reeds import ReedBank
from vision.board_camera import HIDDEN

if TYPE_CHECKING:
    from controller.daemon import Daemon
    from controller.dice_learning import DiceLearning
    from vision.frame_sources import Image
    from vision.table_camera import TableCamera

log = logging.getLogger(__name__)

Handler = Callable[["Daemon", JSON, float], JSON]

Kind = Literal["text", "flag", "faces", "object", "words"]
"""What an argument holds: a string, true or false, die faces (numbers or names), a JSON object,
a list of strings (comma-separated on the command line)."""


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
    Argument(
        "secret",
        "text",
        "the card a player lays face down, of those they hold (`place --list` gives them as "
        "`secret`), e.g. a Mightymania power card",
    ),
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
        return {"ok": False, "error": _no_spot(daemon, spot)}
    if token is not None and not isinstance(token, str):
        return {"ok": False, "error": f'"token" must be a string, not {token!r}'}
    if lift and token is not None:
        return {"ok": False, "error": f"lift {spot} or lay {token!r} on it, not both"}
    if token == HIDDEN:
        return {"ok": False, "error": f"{HIDDEN!r} is what a camera says of a covered piece"}
    secret = request.get("secret")
    if secret is not None:
        chosen = _choose_secret(daemon, spot, secret, lift)
        if chosen is not None:
            return chosen
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


def _no_spot(daemon: Daemon, spot: object) -> str:
    """A spot the board lacks, with those it may have meant ("z1" is each seat's "s1.z1")."""
    said = f"no spot {spot!r} on the {daemon.game.title} table"
    spots = list(daemon.game.spots())
    if isinstance(spot, str):
        near = [s for s in spots if s.endswith(f".{spot}")] or difflib.get_close_matches(
            spot, spots, n=3
        )
        if near:
            said += f"; did you mean {' or '.join(near[:3])}?"
    return f"{said} (`smartboard place --list` lists them)"


@operation(
    "lay_out",
    "on the simulated table, let its hands lay out what chance brings up to the next decision "
    "of a player, as they would on a real table for the camera to read: the dice of a set-up "
    "rolled onto their spaces (BV-1), the cards laid face down or dealt, the dice rolled; "
    "every decision stays the players'",
    Argument("one", "flag", "lay out the next step only (a card turned, a die), to watch each"),
    changes_game=True,
    refused_paused=True,
    dashboard="post",
)
def _lay_out(daemon: Daemon, request: JSON, now: float) -> JSON:
    offer = daemon.laying_out()
    if offer is None and not daemon.simulated:
        return refused(
            "on a real table the players lay out the pieces, and the camera reads them",
            "lay_out_real",
        )
    if offer is None and daemon.room is not None:
        # Each table of a room lays out for its own seats as they come: not a run of steps
        # that the other tables' players would have to follow on theirs.
        return refused(
            "a table linked in a room lays out nothing for the room: lay each card or piece by "
            "hand on its spot, as the board lights it",
            "lay_out_linked",
        )
    if offer is None:
        return refused(
            "nothing for the table to lay out now: a player decides, or dice are rolled, next",
            "lay_out_nothing",
        )
    if offer == "offered":
        daemon.lay_out(bool(request.get("one")))
    return {"ok": True, "laying_out": True}


def _choose_secret(daemon: Daemon, spot: str, secret: object, lift: bool) -> JSON | None:
    """The card that a person lays face down on `spot`, for the simulated hands to hold there;
    a refusal, or None once chosen."""
    if not isinstance(secret, str) or lift:
        return {"ok": False, "error": f'"secret" names a card laid face down, not {secret!r}'}
    hands = daemon.hands
    if hands is None or spot not in _secrets(daemon, _next_steps(daemon))[0]:
        return {"ok": False, "error": f"no card is laid face down on {spot} by a player now"}
    state = daemon.session.state
    try:
        hands.choose(state, secret)
    except ValueError as error:
        return {"ok": False, "error": str(error)}
    try:
        daemon.journal.append_secret(len(state.actions()), secret)
    except JournalWriteError as error:  # laid all the same: a restart may lay another card
        log.warning("the card laid face down is not kept: %s", error)
    return None


def _secrets(daemon: Daemon, steps: list[Action]) -> tuple[list[str], list[str]]:
    """Where a person's next step (of `steps`, `_next_steps`) lays a card face down from the
    hand the simulated hands hold for them, and the cards they may lay there
    (`SimHands.secret_choices`); nothing for a seat the table plays, whose card is its own."""
    session, hands = daemon.session, daemon.hands
    state = session.state
    if hands is None or not steps or not hands.person_lays(state, session.table_seats):
        return [], []
    cards = hands.secret_choices(state)
    after = session.layout_after(steps[0])
    return [spot for spot, token in after.items() if session.expected.get(spot) != token], cards


def _next_steps(daemon: Daemon) -> list[Action]:
    """What may come next on the board: a legal move the seat can make (from the cards the
    simulated hands hold; for a seat the table plays, the move it shows), or a card or piece
    the board reads as a chance outcome (a deal; the card the simulated deal really turns up)."""
    session, hands = daemon.session, daemon.hands
    state = session.state
    if state.is_chance_node() and daemon.game.dice_wanted(state) is None:
        dealt = None if hands is None else hands.outcome(state)
        return [dealt] if dealt is not None else [o for o, _ in state.chance_outcomes()]
    if state.is_terminal() or state.is_chance_node():
        return []
    if state.current_player() in session.table_seats and not session.released:
        # A seat the table plays: its move once shown, never the cards its hand holds (a tap on
        # its empty slot offered Multipli Potion's whole hidden hand).
        return [] if session.shown is None else [session.shown]
    choices = None if hands is None else hands.choices(state)
    return session.legal_actions() if choices is None else choices


def _spots(daemon: Daemon) -> JSON:
    """Each sensed spot: its sensor, what the table shows there and what the game expects, and
    what the next step of the game may leave there other than those two (None: it empties the
    spot)."""
    session = daemon.session
    steps = _next_steps(daemon)
    afters = [session.layout_after(step) for step in steps]
    secret, cards = _secrets(daemon, steps)
    names = daemon.game.token_names(session.state)
    listed: JSON = {}
    # In the board's order: s1.z2 before s1.z10 (the walk).
    for spot, sensor in sorted(daemon.game.spots().items(), key=lambda item: _natural(item[0])):
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
        if spot in secret:
            listed[spot]["secret"] = cards
            # A squad card's id and its name ("T1": Colossus), which a person chooses by.
            listed[spot]["secret_names"] = {card: names[card] for card in cards if card in names}
    return listed


def _natural(name: str) -> list[str | int]:
    """`name` ordered as a person counts: its numbers as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


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
