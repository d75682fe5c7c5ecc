"""Helpers shared by the Baron Voodoo tests: positions written compactly, and scripts of actions.

Dice are written as a colour letter (Y yellow, T turquoise, R red, P purple, W white), optionally
followed by a face letter: o offering, v victory point, c change face, p protection, s steal,
w switch. A die with no face letter shows the victory point face. A stack is its dice from the
bottom up ("YRs": a yellow die under a red Steal die); a zone is a list of dice ("Yo Tv W").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller.rules.api import Action
from controller.rules.voodoo import (
    CELLS,
    GAME,
    INDEX,
    LETTERS,
    SIZE,
    Board,
    Die,
    Phase,
    SetupFace,
    VoodooState,
    token,
)

Step = Action | Sequence[Action]

FACE_LETTERS = {
    "o": "offering",
    "v": "point",
    "c": "change",
    "p": "protection",
    "s": "steal",
    "w": "switch",
}
DEFAULT_FACE = "point"
_COLOUR_LETTER = {colour: letter for letter, colour in LETTERS.items()}
_FACE_LETTER = {face: letter for letter, face in FACE_LETTERS.items()}


def dice(text: str) -> list[Die]:
    """'YsR Wo' -> [(yellow, steal), (red, point), (white, offering)]; spaces are ignored."""
    found: list[Die] = []
    for char in text.replace(" ", ""):
        if char in LETTERS:
            found.append((LETTERS[char], DEFAULT_FACE))
        elif char in FACE_LETTERS and found:
            found[-1] = (found[-1][0], FACE_LETTERS[char])
        else:
            raise ValueError(f"bad die letter {char!r} in {text!r}")
    return found


def die(text: str) -> str:
    """The action token of one die written compactly: 'Ys' -> 'yellow:steal'."""
    (one,) = dice(text)
    return token(one)


def write(stack: Iterable[Die]) -> str:
    """The compact text of dice, the inverse of `dice` (faces other than the default shown)."""
    return "".join(
        _COLOUR_LETTER[c] + ("" if f == DEFAULT_FACE else _FACE_LETTER[f]) for c, f in stack
    )


def parse_board(board: Mapping[str, str] | str) -> Board:
    """A board from {cell: stack} or from 7 lines of 7 stacks ("." for an empty space)."""
    spaces: Board = [[] for _ in range(SIZE * SIZE)]
    if isinstance(board, str):
        rows = [line.split() for line in board.strip().splitlines() if line.strip()]
        if board.strip() and (len(rows) != SIZE or any(len(row) != SIZE for row in rows)):
            raise ValueError(f"a board is {SIZE} lines of {SIZE} stacks: {board!r}")
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                spaces[r * SIZE + c] = [] if text == "." else dice(text)
    else:
        for cell, text in board.items():
            spaces[INDEX[cell]] = dice(text)
    return spaces


def cells(state: VoodooState) -> dict[str, str]:
    """Every non-empty space, written compactly."""
    return {CELLS[i]: write(stack) for i, stack in enumerate(state.board) if stack}


def new_state(options: Mapping[str, Any] | None = None) -> VoodooState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, VoodooState)
    return state


def play(state: VoodooState, *steps: Step) -> VoodooState:
    """Apply actions, or lists of actions, in order."""
    for step in steps:
        for action in [step] if isinstance(step, Action) else step:
            state.apply(action)
    return state


def rolled(options: Mapping[str, Any] | None = None, face: str = DEFAULT_FACE) -> VoodooState:
    """A game set up by rolling (48 chance events), every die showing `face`."""
    state = new_state(options)
    return play(state, [SetupFace(face)] * (SIZE * SIZE - 1))


def position(
    board: Mapping[str, str] | str = "",
    *,
    players: int = 2,
    teams: bool = False,
    loas: str = "",
    rules: str = "",
    to_move: int = 0,
    offerings: Sequence[int] | None = None,
    reserve: int | None = None,
    zones: Sequence[str] | None = None,
    spirits: Sequence[str] | None = None,
    scores: Sequence[int] | None = None,
    protected: Iterable[int] = (),
    samedi: int | None = None,
    ended_by: int | None = None,
    expect_play: bool = True,
) -> VoodooState:
    """A game after set-up at the start of `to_move`'s turn, built by the engine's own
    `VoodooState.from_position` from the compact arguments (players and sides by number).

    The turn starts through the engine, so its checks run: the mover's own Protection ends, and
    a mover who cannot capture even after a power triggers the end (BV-11). Unless
    `expect_play` is False, the mover must be left to play. The reserve keeps the 20 Offerings
    of BV-7 unless given.
    """
    options = {"players": players, "teams": teams, "loas": loas, "rules": rules}
    description = position_of(
        new_state(options),
        board,
        to_move=to_move,
        offerings=offerings,
        reserve=reserve,
        zones=zones,
        spirits=spirits,
        scores=scores,
        protected=protected,
        samedi=samedi,
        ended_by=ended_by,
    )
    state = VoodooState.from_position(description, options)
    if expect_play:
        assert state.phase is Phase.START, "the mover cannot play in this position"
        assert state.current_player() == to_move
    return state


def position_of(
    seated: VoodooState,
    board: Mapping[str, str] | str = "",
    *,
    to_move: int = 0,
    offerings: Sequence[int] | None = None,
    reserve: int | None = None,
    zones: Sequence[str] | None = None,
    spirits: Sequence[str] | None = None,
    scores: Sequence[int] | None = None,
    protected: Iterable[int] = (),
    samedi: int | None = None,
    ended_by: int | None = None,
) -> dict[str, Any]:
    """The description `VoodooState.from_position` takes, from the compact arguments, for the
    seats of `seated` (any state of the game with the same options)."""
    sides = [seated.side_name(i) for i in range(len(seated.scores))]
    player = seated.player_name
    description: dict[str, Any] = {
        "to_move": player(to_move),
        "columns": {
            CELLS[i]: [token(d) for d in stack]
            for i, stack in enumerate(parse_board(board))
            if stack
        },
        "protection": {player(p): True for p in protected},
        "baron_samedi": None if samedi is None else player(samedi),
    }
    if ended_by is not None:
        description["ended_by"] = player(ended_by)
    if reserve is not None:
        description["reserve"] = reserve
    for key, values in (("offerings", offerings), ("scores", scores)):
        if values is not None:
            description[key] = dict(zip(sides, values, strict=True))
    for key, texts in (("capture_zones", zones), ("spirit_worlds", spirits)):
        if texts is not None:
            description[key] = {
                side: [token(d) for d in dice(text)]
                for side, text in zip(sides, texts, strict=True)
            }
    return description


def ids(state: VoodooState, kind: type[Action] | None = None) -> list[str]:
    """The ids of the legal actions, or of those of one kind."""
    return [a.id for a in state.legal_actions() if kind is None or isinstance(a, kind)]


def phase(state: VoodooState) -> Phase:
    """The phase, read through a call so that type checkers do not narrow it between steps."""
    return state.phase


def legal(state: VoodooState, kind: type[Action]) -> list[Action]:
    return [a for a in state.legal_actions() if isinstance(a, kind)]


def snapshot(state: VoodooState) -> dict[str, Any]:
    """Everything the rules keep, for comparing states."""
    facts = dict(GAME.describe(state))
    facts["board"] = cells(state)
    facts["player"] = state.current_player()
    facts["history"] = state.history()
    facts["legal"] = [a.id for a in state.legal_actions()]
    facts["phase"] = state.phase.value
    facts["samedi"] = state.samedi
    facts["extra"] = (state.extra_bought, state.extra_pending, state.power_used)
    return facts
