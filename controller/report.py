"""What the daemon says of the table: `status` for the command line, the alerts a player must
know even when the game is fine, and the snapshot the dashboard (and a room's spectators) read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.api import JSON
from controller.seats import dice_owner, per_seat
from controller.session import View, describe_state
from controller.snapshot import table_snapshot
from controller.terminal import role_marks

if TYPE_CHECKING:
    from controller.daemon import Daemon


def status(daemon: Daemon, now: float) -> JSON:
    """`smartboard status`: the game, the sensors against what the game expects, the table's
    players, its link and room, the camera and its alerts."""
    session = daemon.session
    out: JSON = {
        **describe_state(daemon.game, session.state),
        "sensed": dict(sorted(session.sensed.items())),
        "expected": dict(sorted(session.expected.items())),
        "fix": sorted(session.fixes(now)),
        "candidates": [a.id for a in session.candidates()],
        "message": session.message,
        "paused": daemon.paused,
        "computer": {session.state.player_name(s): v for s, v in daemon.computer.seats.items()},
        "thinking": daemon.computer.thinking(session, daemon.thinker),
        "hint": daemon.computer.hint_json(session),
        "taken_back": daemon.journal.take_backs.to_json(daemon.game),
        "waiting": waiting(daemon),
        "secrets": secrets(daemon),
        # What tokens coded by id are called (a squad card "T1" is "Colossus").
        "token_names": daemon.game.token_names(session.state),
    }
    link = daemon.backends.link_state()
    out["link"] = None if link is None else link.to_json()
    out["room"] = None if daemon.room is None else daemon.room.to_json(session.rolled_elsewhere())
    said = [alert["text"] for alert in alerts(daemon)]
    return out | daemon.backends.camera_status(now, daemon.unsure) | {"alerts": said}


def secrets(daemon: Daemon) -> JSON:
    """The simulated table's hands, for the people at it, who have no real cards to look at:
    each seat the table does not play, its cards and where each lies (None: in the hand)."""
    state = daemon.session.state
    people = [seat for seat in range(state.num_players) if seat not in daemon.session.table_seats]
    return {} if daemon.hands is None else daemon.hands.known_to(state, people)


def waiting(daemon: Daemon) -> str | None:
    """What the table waits for when no player is asked to decide (the walk: "to move: chance"
    was all a terminal said): the dice wanted, whose and how to enter them, or what to lay."""
    game, session = daemon.game, daemon.session
    state = session.state
    if state.is_terminal() or not state.is_chance_node():
        return None
    if session.rolled_elsewhere():
        return "a roll made at another table of the room: it comes over the link"
    if session.chance_drawn:
        return "chance, drawn in software by the room's tables (--link-dice software)"
    wanted = game.dice_wanted(state)
    laid = "; the simulated table's hands lay it with `smartboard lay-out`" if daemon.hands else ""
    if wanted is None:
        return (
            "the cards or pieces chance brings, laid where the table lights them "
            f"(`smartboard place --list` shows each spot and what it expects){laid}"
        )
    owner = dice_owner(game, state)
    whose = "" if owner is None else f" for {session.called(state.player_name(owner))}"
    if all(isinstance(face, int) for face in wanted.faces):
        faces = f"{min(wanted.faces)}-{max(wanted.faces)}"
    else:
        faces = ", ".join(map(str, wanted.faces))
    dice = "one die" if wanted.count == 1 else f"{wanted.count} dice"
    example = " ".join(str(face) for face in wanted.faces[: min(wanted.count, 2)])
    return (
        f"a roll{whose}: {dice} ({wanted.kind}, faces {faces}), thrown in the tray for the "
        f"camera, or entered with `smartboard roll {example}`"
    )


def alerts(daemon: Daemon) -> list[JSON]:
    """The table's own trouble, for `status` and atop the dashboard: what a player must know
    even when the game itself is fine. Each in a sentence (`text`), and as a `key` and its
    `params` for the page to say in the player's language."""
    alerts: list[JSON] = []

    def alert(text: str, key: str, **params: object) -> None:
        alerts.append({"text": text, "key": key, "params": params})

    camera = daemon.table_camera
    status = None if camera is None else camera.status
    if status is not None and status.state == "retrying":
        alert(
            f"the camera is not answering: {status.reason} "
            f"(attempt {status.attempt}; failures in all: {status.failures})",
            "camera",
            reason=status.reason,
            attempt=status.attempt,
            failures=status.failures,
        )
    uncalibrated = daemon.backends.uncalibrated
    if uncalibrated is not None:
        alert(uncalibrated, "board_uncalibrated")
    link = daemon.backends.link_state()
    said = None if link is None else link.trouble_said()
    if said is not None:
        alert(said[0], said[1], **said[2])
    over = daemon.session.state.is_terminal()
    room = None if daemon.room is None else daemon.room.trouble(daemon.game.name, over)
    if room is not None:
        alert(room[0], room[1], **room[2])
    unsure = daemon.board_unsure
    if unsure is not None:
        spots = ", ".join(unsure.doubtful)
        why = "; ".join(unsure.problems) or "pieces half seen or out of place"
        alert(
            f"the camera cannot read the board at {spots}: {why}",
            "board_unsure",
            spots=spots,
            why=why,
        )
    if daemon.journal_fault is not None:
        alert(daemon.journal_fault, "journal", reason=daemon.journal_fault)
    damage = daemon.journal.damage
    if damage is not None:
        where = str(damage.kept) if damage.kept is not None else damage.reason
        alert(damage.sentence(), "journal_damage", records=damage.records, where=where)
    return alerts


def snapshot(daemon: Daemon, now: float, view: View) -> JSON:
    """What the dashboard shows: the game, the table's lights (`view`) and sensors, the camera."""
    choices = daemon.computer.choices(daemon.session)
    if choices is None and daemon.hands is not None:
        choices = daemon.hands.choices(daemon.session.state)
    out = table_snapshot(
        daemon.game, daemon.session, view, daemon.profile, daemon.config.palette, choices
    )
    out["paused"] = daemon.paused
    out["sim"] = daemon.simulated
    out["placeable"] = sorted(daemon.placeable)
    out["lay_out"] = daemon.laying_out()  # the page's "lay it out for me" (`lay_out`)
    if out["lay_out"] is not None:
        laid, left = daemon.laying_steps()
        out["lay_out_steps"] = {"laid": laid, "left": left}
    # The reeds closed now, paused or not (the session reads none while paused): the table
    # test's live map.
    out["reeds_closed"] = sorted(daemon.debouncer.occupied())
    out["trouble"] = daemon.trouble()
    # Pieces on their way to the session (edges, debouncing, the camera settling): what the
    # page shows of the sensors may still change on its own.
    out["settling"] = daemon.table_busy()
    out["alerts"] = alerts(daemon)
    out["marks"] = role_marks()
    out["names"] = per_seat(daemon.journal.names, daemon.session.state.num_players)
    out["started"] = daemon.journal.started
    out |= daemon.computer.to_json(daemon.session, daemon.thinker)
    out["secrets"] = secrets(daemon)  # the page shows the seat to move's when several have
    link = daemon.backends.link_state()
    # Whole seconds: the dashboard is sent a snapshot whenever one changes.
    out["link"] = None if link is None else link.to_json(digits=0)
    rolled_elsewhere = daemon.session.rolled_elsewhere()
    out["room"] = None if daemon.room is None else daemon.room.to_json(rolled_elsewhere)
    return (
        out
        | {"camera": None, "dice_seen": [], "dice_unsure": None}
        | daemon.backends.camera_status(now, daemon.unsure)
    )
