"""The commands that talk to the running daemon, each one of its control operations: their help
and arguments come from the registry (controller/operations/). `status` reads the journal when
no daemon answers."""

from __future__ import annotations

import argparse
import json
import shutil
import time
import webbrowser
from collections.abc import Callable

from controller.cli.arguments import Commands, add_game_options, add_state_dir, game_options
from controller.cli.errors import EX_TEMPFAIL, EX_USAGE, CommandError
from controller.cli.status import called_in
from controller.control import ControlError, request
from controller.operations import OPERATIONS, Argument
from controller.paths import client_socket_path
from controller.rules import get_game
from controller.rules.api import JSON, Game
from controller.rules.words import word_text
from controller.seats import split_names


def _applied(reply: JSON) -> str:
    # A reply repeated from before a restart names the actions by their ids alone.
    ids = ", ".join(reply["applied"])
    return f"applied: {reply['said']} ({ids})" if reply.get("said") else f"applied: {ids}"


def _confirmed(reply: JSON) -> str:
    """A roll applied, or a die settled while others wait (`confirm --die`)."""
    waiting = reply.get("waiting")
    if waiting:
        return f"die settled; still unsure: {', '.join(f'die {n}' for n in waiting)}"
    return _applied(reply)


# The commands that send their op as it is, and what each says of the daemon's reply.
_SAID: dict[str, Callable[[JSON], str]] = {
    "act": _applied,
    "roll": _applied,
    "correct": _applied,
    "confirm": _confirmed,
    "pause": lambda reply: "game paused: the table ignores the pieces",
    "resume": lambda reply: "game resumed",
    "hints": lambda reply: f"hints are now {'on' if reply['hints'] else 'off'} for this game",
    "lay_out": lambda reply: (
        "the simulated table lays out what chance brings, up to the next decision"
    ),
}


def add_commands(commands: Commands) -> None:
    actions = _op_command(commands, "actions", _actions)
    actions.add_argument("--json", action="store_true")
    actions.add_argument("--all", action="store_true", help="every id, one a line")
    for name in _SAID:
        _op_command(commands, name, _said, name.replace("_", "-"))
    dashboard = _op_command(commands, "dashboard", _dashboard)
    dashboard.add_argument("--open", action="store_true", help="open it in this machine's browser")
    add_game_options(_op_command(commands, "new", _new))
    games = _op_command(commands, "games", _games)
    games.add_argument("--json", action="store_true")
    _op_command(commands, "record", _record)
    undo = _op_command(commands, "undo", _undo)
    undo.description = "Take back the last move: " + OPERATIONS["undo"].help.partition(": ")[2]
    undo.epilog = (
        "A move taken back is a player's decision with what followed it (the dice rolled "
        "after it, a card it turned up); against the computer, its replies go too. The dice "
        "the move was made on stay as they fell: --reroll takes them back as well, and the "
        "table waits for a new roll. Then the table blinks where the pieces go back. Run it "
        "again to take back more; the page's Take back button does the same."
    )
    hint = _op_command(commands, "hint", _hint)
    hint.add_argument("--json", action="store_true")
    _add_place_commands(commands)


def _op_command(
    commands: Commands,
    name: str,
    run: Callable[[argparse.Namespace], int],
    command_name: str | None = None,
) -> argparse.ArgumentParser:
    """The command of control op `name` (`command_name`, else `name`), with its help and
    arguments."""
    op = OPERATIONS[name]
    command = commands.add_parser(command_name or name, help=op.help)
    for argument in op.arguments:
        _add_argument(command, argument)
    add_state_dir(command)
    command.set_defaults(command=run, op=name)
    return command


def _add_place_commands(commands: Commands) -> None:
    """`place SPOT [TOKEN] [--secret CARD]`, `place --list` and `remove SPOT`: each the control
    op `place`."""
    op = OPERATIONS["place"]
    said = {argument.name: argument.help for argument in op.arguments}
    place = commands.add_parser(
        "place",
        help=op.help,
        epilog="`smartboard place --list` prints each spot the table senses, what lies there, "
        "what the game expects there and the tokens that its next move (or the next card or "
        "die it deals) may leave there; `smartboard status` describes the game.",
    )
    place.add_argument("spot", nargs="?", help=said["spot"])
    place.add_argument("token", nargs="?", help=said["token"])
    place.add_argument("--secret", metavar="CARD", help=said["secret"])
    place.add_argument("--list", action="store_true", help=said["list"])
    remove = commands.add_parser(
        "remove", help="lift the piece or card off a spot of the simulated table"
    )
    remove.add_argument("spot", help=said["spot"])
    for command in (place, remove):
        add_state_dir(command)
    place.set_defaults(command=_place, op=op.name, lift=False)
    remove.set_defaults(command=_place, op=op.name, lift=True, token=None, list=False, secret=None)


def _add_argument(command: argparse.ArgumentParser, argument: Argument) -> None:
    """A flag is an option; die faces are words; text is a word if required, else an option; an
    object (a game's options) is for the command to build (see `new`)."""
    choices = argument.choices or None
    flag = f"--{argument.name.replace('_', '-')}"  # "computer_dice": --computer-dice
    if argument.kind == "flag":
        command.add_argument(flag, dest=argument.name, action="store_true", help=argument.help)
    elif argument.kind == "faces":
        command.add_argument(argument.name, nargs="+", type=_face, help=argument.help)
    elif argument.kind == "text" and argument.required:
        command.add_argument(argument.name, choices=choices, help=argument.help)
    elif argument.kind == "text":
        command.add_argument(flag, dest=argument.name, choices=choices, help=argument.help)
    elif argument.kind == "words":
        command.add_argument(flag, dest=argument.name, type=split_names, help=argument.help)


def _face(word: str) -> int | str:
    """A die's face: a number, or the name of an icon (voyage)."""
    return int(word) if word.isdigit() else word


def _message(args: argparse.Namespace) -> JSON:
    """The control request of the command's op, with the arguments given."""
    arguments = OPERATIONS[args.op].arguments
    return {"op": args.op} | {
        a.name: getattr(args, a.name) for a in arguments if a.kind != "object"
    }


def _call(args: argparse.Namespace, message: JSON) -> JSON:
    """The running daemon's reply to `message`; the command fails if no daemon answers or the
    daemon refuses."""
    try:
        reply = request(client_socket_path(args.state_dir), message)
    except ControlError as error:
        raise CommandError(str(error), EX_TEMPFAIL if error.unknown else 1) from None
    if not reply.get("ok"):
        raise CommandError(str(reply.get("error", "refused")))
    return reply


def _said(args: argparse.Namespace) -> int:
    print(_SAID[args.op](_call(args, _message(args))))
    return 0


def _new(args: argparse.Namespace) -> int:
    message = _message(args)
    if args.game is not None:
        message["options"] = game_options(args.game, args)
    elif args.players is not None or args.teams or args.option:
        raise CommandError("game options need --game (the same game keeps its own)", EX_USAGE)
    print(f"new {_call(args, message)['game']} game started")
    return 0


HINT_WAIT_S = 30.0
"""How long `smartboard hint` waits for the table to think, at most."""
HINT_POLL_S = 0.2


def _hint(args: argparse.Namespace) -> int:
    """The hint, asked again while the table thinks; the best move first, then the others
    with the chance of winning after each."""
    deadline = time.monotonic() + HINT_WAIT_S
    reply = _call(args, _message(args))
    while reply.get("pending"):
        if time.monotonic() > deadline:
            raise CommandError("the table is still thinking: ask again in a moment")
        time.sleep(HINT_POLL_S)
        reply = _call(args, _message(args))
    lay = reply.get("lay")
    if lay is not None:  # a card to lay face down: the cards, best first
        if args.json:
            print(json.dumps(lay))
            return 0
        first, *others = lay["cards"]
        player = called_in(args.state_dir)(lay["player"])
        where = ""
        if lay.get("spot"):
            where = f" on {lay['spot']} (`smartboard place {lay['spot']} --secret {first}`)"
        then = f"; then, best first: {', '.join(others)}" if others else ""
        print(f"hint for {player}: lay {first} face down{where}{then}")
        return 0
    hint = reply["hint"]
    if args.json:
        print(json.dumps(hint))
        return 0
    best = hint["choices"][0]
    print(f"hint for {called_in(args.state_dir)(hint['player'])}: {best['words']} ({best['id']})")
    # Each move's chance of winning after it, as the page gives it ("?": too few playouts).
    print(
        f"the moves weighed, with the chance of winning after each ({hint['iterations']} playouts):"
    )
    for choice in hint["choices"]:
        lit = "*" if choice["id"] == hint.get("lit") else " "
        chance = "    ?" if choice["chance"] is None else f"{choice['chance']:>3} %"
        print(f" {lit}{chance}  {choice['words']} ({choice['id']})")
    return 0


def _record(args: argparse.Namespace) -> int:
    """The record as `smartboard replay FILE` reads it: `smartboard record > game.json`."""
    print(json.dumps(_call(args, _message(args))["record"], indent=1))
    return 0


def _undo(args: argparse.Namespace) -> int:
    reply = _call(args, _message(args))
    # A reply repeated from before a restart names the actions by their ids alone.
    first, *after = reply.get("said") or reply["taken_back"]
    player, called = reply.get("player"), called_in(args.state_dir)
    if not player:
        print(f"took back: {'; '.join([first, *after])}")
    elif after:
        # The steps after a player's move are not theirs: the table's replies, a roll (the page
        # says the same).
        steps = "the step" if len(after) == 1 else f"the {len(after)} steps"
        said = f"{first}, and {steps} after it: {'; '.join(after)}"
        print(f"took back {called(player)}'s move: {said}")
    else:
        print(f"took back {called(player)}'s move: {first}")
    if reply.get("roll"):
        print("the dice are to be rolled again")
    elif reply.get("to_move"):
        print(f"to move: {called(reply['to_move'])}")
    if reply.get("restoring"):
        print("put the pieces back where the table blinks")
    return 0


def _games(args: argparse.Namespace) -> int:
    games: list[JSON] = _call(args, _message(args))["games"]
    if args.json:
        print(json.dumps(games))
        return 0
    if not games:
        print("no past games yet: a game is kept here once the next one starts")
        return 0
    rows = [("id", "started", "game", "players", "result", "moves")]
    rows += [_game_row(game) for game in games]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    return 0


def _game_row(game: JSON) -> tuple[str, str, str, str, str, str]:
    """A past game as a line of `smartboard games`: the players by their chosen names."""
    started = (
        "-"
        if game["started"] is None
        else time.strftime("%Y-%m-%d %H:%M", time.localtime(game["started"]))
    )
    if "unreadable" in game:
        return game["id"], started, "?", "-", f"unreadable: {game['unreadable']}", "-"
    try:
        rules: Game | None = get_game(game["game"])
    except ValueError:  # a game this version no longer has: its seats by their ids
        rules = None
    called = {
        seat: name or (word_text(rules, seat) if rules is not None else seat)
        for seat, name in zip(game["players"], game["names"], strict=True)
    }
    result = game["result"]
    if isinstance(result, str):
        outcome = result
    elif result["winners"]:
        outcome = "won by " + ", ".join(called.get(w, w) for w in result["winners"])
    else:
        outcome = "nobody won"
    if game["note"]:
        outcome += f" ({game['note']})"
    players = ", ".join(called.values())
    return game["id"], started, game["title"], players, outcome, str(game["moves"])


def _dashboard(args: argparse.Namespace) -> int:
    url = str(_call(args, _message(args))["url"])
    print(url)
    if args.open and not webbrowser.open(url):
        raise CommandError("no browser to open here: open the address above by hand")
    return 0


def _place(args: argparse.Namespace) -> int:
    if args.list == (args.spot is not None):
        raise CommandError("give a spot, or --list to see them", EX_USAGE)
    reply = _call(args, _message(args))
    if args.list:
        spots: dict[str, JSON] = reply["spots"]
        # Most spots of a board are empty and stay so this move: one line for all of them.
        idle = [s for s, seen in spots.items() if not (seen["shows"] or seen["expected"])]
        idle = [s for s in idle if not spots[s]["next"]]
        for spot, seen in spots.items():
            if spot not in idle:
                print(_spot_line(spot, seen))
        if idle:
            print(f"empty, and the next move lays nothing there: {' '.join(idle)}")
    elif "occupied" in reply:
        print(f"{reply['spot']}: {'piece laid' if reply['occupied'] else 'lifted'}")
    else:
        print(f"{reply['spot']}: {reply['token'] or 'emptied'}")
    return 0


def _spot_line(spot: str, seen: JSON) -> str:
    """A spot of `place --list`: what it shows, expects and may hold next ("-" for nothing)."""
    shown = seen["shows"] or "-"
    text = f"{spot} ({seen['sensor']}): shows {shown}"
    if seen["expected"] != seen["shows"]:
        text += f", expected {seen['expected'] or '-'}"
    if seen["next"]:
        text += "; next: " + " ".join(token or "-" for token in seen["next"])
    if seen.get("secret"):
        named = seen.get("secret_names", {})
        cards = ", ".join(f"{card} {named[card]}" for card in seen["secret"] if card in named)
        text += " (face down: your choice, --secret " + "|".join(seen["secret"])
        text += f": {cards})" if cards else ")"
    return text


def _actions(args: argparse.Namespace) -> int:
    reply = _call(args, _message(args))
    if args.json:
        print(json.dumps(reply))
        return 0
    to_move = reply["to_move"]
    if to_move == "chance":
        print("waiting for the dice or cards")
    else:
        print(f"to move: {called_in(args.state_dir)(to_move) if to_move else '-'}")
    if reply.get("waiting"):
        print(f"waiting for: {reply['waiting']}")
    ids = [str(action["id"]) for action in reply["actions"]]
    width = shutil.get_terminal_size().columns
    held = set(reply.get("in_hand") or ids)
    shown = [action_id for action_id in ids if action_id in held]
    if len(shown) < len(ids) and not args.all:
        # The simulated hands hold the cards: what the player can do with them, not every
        # card the rules would accept from the camera.
        print("  with the cards the simulated table's hands hold:")
        for kind, values in _kinds(shown, by_card=True).items():
            print(_cut(f"    {kind}:" if values else f"    {kind}", values, width))
        print(f"  and {len(ids) - len(shown)} more the rules allow with other cards: --all")
        return 0
    if args.all:
        for action_id in ids:
            print(f"  {action_id}")
        return 0
    for kind, values in _kinds(ids).items():
        print(_cut(f"  {kind}:" if values else f"  {kind}", values, width))
    return 0


def _kinds(ids: list[str], by_card: bool = False) -> dict[str, list[str]]:
    """The ids grouped by kind, the part before the first ":" (`by_card`: before the last, so
    a card's places are on its own line), in the order they come."""
    kinds: dict[str, list[str]] = {}
    for action_id in ids:
        kind, colon, rest = action_id.rpartition(":") if by_card else action_id.partition(":")
        if not colon:  # an id of one word ("end_turn"): rpartition leaves it in `rest`
            kind = action_id
        kinds.setdefault(kind, [])
        if colon:
            kinds[kind].append(rest)
    return kinds


def _cut(head: str, words: list[str], width: int) -> str:
    """`head` then `words`, as many as fit in `width` columns with a note of the others (at
    least one word is shown)."""
    line = head
    for shown, word in enumerate(words):
        rest = len(words) - shown - 1
        note = f" … and {rest} more: --all" if rest else ""
        if shown and len(line) + 1 + len(word) + len(note) > width:
            return f"{line} … and {len(words) - shown} more: --all"
        line += f" {word}"
    return line
