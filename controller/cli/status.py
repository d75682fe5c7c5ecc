"""`smartboard status`: the game in the page's words, and what the running table adds (its
camera, dice, link and room); from the journal alone when no daemon answers."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from controller.cli.arguments import Commands, add_state_dir
from controller.cli.errors import EX_DATAERR, CommandError, failing
from controller.control import ControlError, request
from controller.journal import EmptyJournalError, Journal, JournalError
from controller.paths import client_socket_path, default_state_dir
from controller.rules import get_game
from controller.rules.api import JSON, Game, HistoryError
from controller.rules.words import action_text, detail_name, detail_text
from controller.seats import seat_caller
from controller.session import describe_state


def add_commands(commands: Commands) -> None:
    status = commands.add_parser(
        "status",
        help="describe the game, and the running table's camera and dice (no daemon needed)",
    )
    add_state_dir(status)
    status.add_argument("--json", action="store_true")
    status.set_defaults(command=_status)


def _status(args: argparse.Namespace) -> int:
    summary = _live_status(args.state_dir)
    if summary is not None:
        game = get_game(summary["game"])
    else:
        journal = Journal(args.state_dir or default_state_dir())
        if not journal.exists():
            raise CommandError(f"no game journal in {journal.path.parent}")
        with failing(EX_DATAERR, JournalError, HistoryError, ValueError):
            try:
                record = journal.read()
            except EmptyJournalError as error:
                raise CommandError(f"no game recorded yet: {error}") from None
            game = get_game(record.game).on_board(record.options)
            state = game.replay(record.history(), record.options)
        summary = describe_state(game, state) | {
            "taken_back": record.take_backs().to_json(game),
            "token_names": game.token_names(state),
        }
        # The daemon keeps damaged records aside when it starts; until then, they are there.
        summary["alerts"] = [record.damage.sentence()] if record.damage is not None else []
    if args.json:
        print(json.dumps(summary))
    else:
        result = summary["result"]
        called = called_in(args.state_dir)
        where = (
            "over: " + (", ".join(map(called, result["winners"])) or "nobody") + " won"
            if result
            else "waiting for the dice or cards"
            if summary["to_move"] == "chance"
            else f"to move: {called(summary['to_move'])}"
        )
        if result and "scores" in result:
            scores = result["scores"].items()
            where += " (" + ", ".join(f"{called(p)} {n}" for p, n in scores) + ")"
        print(f"{game.title}, turn {summary['turn']}, {len(summary['history'])} actions; {where}")
        # In words, as the page lists them; not the rules' bookkeeping (inner details).
        inner = {detail.name for detail in game.info.details if detail.inner}
        names = summary.get("token_names", {})
        seats = {seat: called(seat) for seat in game.player_names}
        for key, value in summary["details"].items():
            if key == "turn" or key in inner:
                continue
            name = detail_name(game, key, seats)
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                # A table, such as Hostile Takeover's buildings: one line for each row.
                print(f"  {name}:")
                for row in value:
                    print(f"    {_row_text(game, row, names, seats)}")
            else:
                print(f"  {name}: {detail_text(game, key, value, names, seats)}")
        for mark in summary.get("taken_back", []):
            print(f"  {_taken_back_text(game, mark, names)}")
        for line in _table_lines(summary, called):
            print(f"  {line}")
    return 0


def _taken_back_text(game: Game, mark: JSON, names: dict[str, str]) -> str:
    """Where moves were taken back and which, as the page's log marks it."""
    count, at = mark["count"], mark["at"]
    moves = "1 move" if count == 1 else f"{count} moves"
    where = f"after move {at}" if at else "from the start"
    said = "; ".join(action_text(game, move, names=names) for move in mark["moves"])
    return f"\u21b6 {moves} taken back {where}: {said}"


def called_in(state_dir: Path | None) -> Callable[[str], str]:
    """A seat of the game journalled by the name its players know it by (`seat_caller`); any
    word as it is when no journal can be read."""
    try:
        record = Journal(state_dir or default_state_dir()).read()
        return seat_caller(get_game(record.game), record.names)
    except (JournalError, ValueError):
        return lambda seat: seat


def _live_status(state_dir: Path | None) -> JSON | None:
    """The running daemon's status, with what its sensors see; None if no daemon answers."""
    try:
        reply = request(client_socket_path(state_dir), {"op": "status"}, timeout=3.0, attempts=1)
    except ControlError:
        return None
    if not reply.pop("ok", False):
        return None
    return reply


def _table_lines(summary: JSON, called: Callable[[str], str]) -> list[str]:
    """What the running table adds: its camera, the dice it sees, and its message."""
    lines = []
    camera = summary.get("camera")
    if camera is not None:
        text = str(camera["state"])
        if "reason" in camera:
            text += f": {camera['reason']}"
        if "retry_in_s" in camera:
            text += f" (attempt {camera['attempt']}, next in {camera['retry_in_s']} s)"
        if "failures" in camera:
            text += f"; failures in all: {camera['failures']}"
        if "frames_skipped" in camera:
            text += f"; frames skipped: {camera['frames_skipped']} (last: {camera['last_skipped']})"
        lines.append(f"camera: {text}")
        seen = ", ".join(f"{d['value']} ({d['confidence']:.2f})" for d in summary["dice_seen"])
        lines.append(f"dice seen: {seen or '-'}")
        unsure = summary.get("dice_unsure")
        if unsure:
            # Which dice, read how, and what else they may show (controller/held_roll.py).
            lines.append(unsure["text"])
        if summary.get("board_unsure"):
            lines.append(f"board read unsure at: {', '.join(summary['board_unsure'])}")
    for kind, why in summary.get("dice_typed", {}).items():
        lines.append(f"{kind} dice {why}")
    link = summary.get("link")
    if link is not None:
        lines.append(_link_text(link))
    room = summary.get("room")
    if room is not None:
        lines.append(_room_text(room))
    seats = summary.get("computer")
    if seats:
        played = ", ".join(f"{called(p)} ({v})" for p, v in seats.items())
        lines.append(f"the table plays: {played}")
    thinking = summary.get("thinking")
    if thinking:
        player = called(thinking["player"])
        whose = f"a hint for {player}" if thinking["hint"] else player
        lines.append(f"thinking: {whose} ({thinking['level']}), {thinking['fraction']:.0%}")
    if summary.get("message"):
        lines.append(f"message: {summary['message']}")
    secrets = summary.get("secrets") or {}
    if secrets:
        # The simulated table's hands, which a person at a terminal has no other way to see.
        game, names = get_game(summary["game"]), summary.get("token_names", {})
        for seat, cards in secrets.items():
            held = [
                f"{detail_text(game, '', token, names)} ({spot or 'in hand'})"
                for spot, token in cards
            ]
            if held:
                lines.append(f"cards of {called(seat)}: {', '.join(held)}")
    if summary.get("waiting"):
        lines.append(f"waiting for: {summary['waiting']}")
    for spot in summary.get("fix", []):
        # What a terminal could not see (the walk): only the table's own console said it.
        shows, wants = summary["sensed"].get(spot), summary["expected"].get(spot)
        lines.append(f"put right: {spot} shows {shows or 'nothing'}, expects {wants or 'nothing'}")
    lines.extend(f"alert: {alert}" for alert in summary.get("alerts", []))
    return lines


def _room_text(room: JSON) -> str:
    """The linked tables' room (controller/room.py): its state, the seats here and elsewhere,
    and what came and went."""
    seats = ", ".join(map(str, room["seats"]))
    elsewhere = ", ".join(map(str, room["elsewhere"])) or "none"
    return (
        f"room {room['room']} on {room['broker']}: {room['state'].replace('_', ' ')}; "
        f"seats here {seats}, at other tables {elsewhere}; {room['length']} actions, "
        f"{room['published']} sent, {room['received']} received, {room['duplicates']} "
        f"duplicates dropped, {room['refused']} messages refused"
    )


def _link_text(link: JSON) -> str:
    """The reed controller's link: its state, its counters, and its latest trouble."""
    state = "synced" if link["synced"] else "connected, not synced" if link["connected"] else "down"
    text = (
        f"link on {link['port']}: {state}; {link['resyncs']} resyncs, {link['crc_errors']} CRC "
        f"errors, {link['malformed']} malformed frames, {link['recoveries']} restarts"
    )
    if link["last_frame_age_s"] is not None:
        text += f"; last frame {link['last_frame_age_s']} s ago"
    if link["last_error"]:
        text += f"; last trouble: {link['last_error']}"
    return text


def _row_text(
    game: Game, row: dict[str, object], names: dict[str, str], seats: dict[str, str]
) -> str:
    """A row of a table of details: its id first, then each field after its name."""
    fields = {k: v for k, v in row.items() if k != "id"}
    text = detail_text(game, "", fields, names, seats) or "-"
    return f"{detail_text(game, 'id', row['id'], names)}: {text}" if "id" in row else text
