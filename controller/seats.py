"""The names players choose for their seats: kept with the game in its journal, shown on the page
instead of the seat's own name (hawkmoth, player_1) when there is one; and the seats the table
plays itself (controller/computer.py), named the same ways; and whose roll a chance node is."""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence

from controller.rules.api import Game, GameState
from controller.rules.words import word_text
from controller.search import DEFAULT_LEVEL, LEVELS

MAX_NAME = 24
"""Characters in a name at most: it has to fit a phone's header beside the turn."""

Names = list[str | None]
"""A chosen name per seat, in seat order; None where the seat keeps its own name."""


def check_names(given: object, seats: int) -> Names:
    """The names of `seats` seats from what a player typed: each trimmed, a blank one (or one
    missing at the end) the seat's default; a ValueError says what is wrong."""
    if given is None:
        return [None] * seats
    if not isinstance(given, list):
        raise ValueError(f'"names" must be a list of names, one a seat, not {given!r}')
    if len(given) > seats:
        raise ValueError(f"{len(given)} names for a game of {seats} seats")
    names: Names = []
    for seat, name in enumerate(given, start=1):
        if name is not None and not isinstance(name, str):
            raise ValueError(f"seat {seat}'s name must be text, not {name!r}")
        text = (name or "").strip()
        if len(text) > MAX_NAME:
            raise ValueError(f"seat {seat}'s name is {len(text)} characters; at most {MAX_NAME}")
        # Control characters (a newline, an escape) would break a line of the log or a terminal.
        if any(unicodedata.category(char).startswith("C") for char in text):
            raise ValueError(f"seat {seat}'s name {text!r} holds a control character")
        if text and text.casefold() in (n.casefold() for n in names if n is not None):
            raise ValueError(f"two seats are named {text!r}: tell the players apart")
        names.append(text or None)
    return names + [None] * (seats - len(names))


def per_seat(names: Sequence[str | None], seats: int) -> Names:
    """`names` as one entry per seat: a journal written before names were kept has none."""
    return [names[seat] if seat < len(names) else None for seat in range(seats)]


def seat_caller(game: Game, names: Sequence[str | None]) -> Callable[[str], str]:
    """A seat as players read it, for a message in English: the name chosen for it ("Ana"),
    else the game's own ("mamy_wata" is Mamy Wata); any other word (chance) made readable."""
    chosen = {seat: name for seat, name in zip(game.player_names, names, strict=False) if name}
    return lambda seat: chosen.get(seat) or word_text(game, seat)


def split_names(text: str) -> Names:
    """`--names "Ana,Bob"`: the names a command line gives, comma-separated, blank for none
    (`"Ana,,"` names the first seat alone, whatever the number of seats)."""
    names: Names = [name.strip() or None for name in text.split(",")]
    while names and names[-1] is None:
        names.pop()
    return names


def check_computer(given: object, players: Sequence[str]) -> dict[int, str]:
    """The seats the table plays, from `SEAT[:LEVEL]` words (`--computer 2:strong`): SEAT a seat's
    number from 1 or its name as the game names its players, LEVEL one of the search's levels
    (default: its default). Seat index -> level; a ValueError says what is wrong."""
    if given is None:
        return {}
    if not isinstance(given, list) or not all(isinstance(word, str) for word in given):
        raise ValueError(
            f'the computer seats are a list of SEAT[:LEVEL], e.g. ["2:strong"], not {given!r}'
        )
    seats: dict[int, str] = {}
    for word in given:
        seat_text, colon, level_text = (part.strip() for part in word.strip().partition(":"))
        if not seat_text:
            where = " before the colon" if colon else ""
            raise ValueError(f"computer seat {word!r}: a seat is missing{where}, as in 2:strong")
        seat = _seat(seat_text, players)
        if colon and not level_text:
            # "2:" is not "2": a level forgotten after the colon is not taken for the default.
            raise ValueError(
                f"computer seat {word!r}: a level is missing after the colon; the levels are "
                f"{', '.join(LEVELS)} (leave out ':LEVEL' for {DEFAULT_LEVEL})"
            )
        level = level_text or DEFAULT_LEVEL
        if level not in LEVELS:
            raise ValueError(
                f"computer seat {word!r}: no level {level!r}; the levels are {', '.join(LEVELS)}"
            )
        if seat in seats:
            raise ValueError(f"seat {seat + 1} ({players[seat]}) is given twice as a computer")
        seats[seat] = level
    return seats


def _seat(text: str, players: Sequence[str]) -> int:
    listed = ", ".join(f"{n} {name}" for n, name in enumerate(players, start=1))
    if text.isdigit():
        if 1 <= int(text) <= len(players):
            return int(text) - 1
        raise ValueError(f"no seat {text}: this game has seats 1 to {len(players)} ({listed})")
    for index, name in enumerate(players):
        if name.casefold() == text.casefold():
            return index
    raise ValueError(f"no seat named {text!r} in this game; its seats: {listed}")


def dice_owner(game: Game, state: GameState) -> int | None:
    """Whose dice a chance node's roll is: the seat the rules name (`Game.roller`), else the
    one the turns around it tell (`roller`)."""
    seat = game.roller(state)
    return roller(state) if seat is None else seat


def roller(state: GameState, limit: int = 100) -> int | None:
    """Whose roll a chance node is: the seat that decides next after most of its outcomes (the
    first `VOTES`), whatever the dice show: a roll that leaves its roller no move passes the
    turn."""
    votes: Counter[int] = Counter()
    for outcome, _ in state.chance_outcomes()[:VOTES] if state.is_chance_node() else []:
        seat = _decider(state.child(outcome), limit)
        if seat is not None:
            votes[seat] += 1
    if not votes:
        return _decider(state, limit)
    return votes.most_common(1)[0][0]


def _decider(state: GameState, limit: int) -> int | None:
    """The seat that decides next, the first outcome taken at each chance node on the way."""
    for _ in range(limit):
        if not state.is_chance_node():
            break
        state = state.child(state.chance_outcomes()[0][0])
    player = state.current_player()
    return player if player >= 0 else None


VOTES = 16
"""The outcomes of a roll that `roller` looks at: dice have few, a deck many alike."""
