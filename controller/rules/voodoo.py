"""Baron Voodoo (`baron-voodoo.txt`, clarifications BV-1 to BV-12).

The board is 49 columns of dice, indexed r * 7 + c and named "r{r}c{c}" (BV-1). A die is a
(colour, face) pair, written "colour:face" in actions and layouts. A turn (BV-7) runs through
phases: an optional power or the capture (START), the capture after a power (CAPTURE), the
optional steps 1-5 and the end power (STEPS), and Gran Bwa's die-by-die moves (GRAN_BWA). A power
at the start must leave a capture (BV-5, BV-11): where none is open, the start is described as
"unlock", a power that opens one being the only move.

A "side" owns Offerings, a capture zone, a spirit world and a score: each player, or each team in
team mode (BV-12).

`VoodooGame.describe` gives the whole public state; `VoodooState.from_position` builds a state at
the start of a turn from a description in the same terms (a puzzle, a photo, a test).
"""

from __future__ import annotations

import enum
import functools
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Self

from controller.rules.api import (
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    IllegalActionError,
    Layout,
    construct,
    leads,
    read_toml,
)
from controller.rules.game_type import Detail, GameType, IconDice, Look, Looks, Option, Role

SIZE = 7
CENTRE = 3 * SIZE + 3
CELLS = tuple(f"r{i // SIZE}c{i % SIZE}" for i in range(SIZE * SIZE))
INDEX = {name: i for i, name in enumerate(CELLS)}
MAX_STACK = 3  # BV-4
REDRAWS = 20  # powers drawn at a turn's start before the legal ones are listed (`sample`)
FACES = ("offering", "point", "change", "protection", "steal", "switch")  # BV-2
COLOURS = ("yellow", "turquoise", "red", "purple", "white")
WHITE = "white"
DIE_NUMBER = {die: i for i, die in enumerate(itertools.product(COLOURS, FACES))}
# BV-3: each Loa and its colour, in the seating order used when no "loas" option is given.
LOAS = (
    ("mamy_wata", "yellow"),
    ("gran_bwa", "turquoise"),
    ("papa_legba", "red"),
    ("erzulie_freda", "purple"),
)
LOA_COLOUR = dict(LOAS)
LETTERS = {"Y": "yellow", "T": "turquoise", "R": "red", "P": "purple", "W": "white"}
START_OFFERINGS = 3
RESERVE_TOTAL = 20  # BV-7: Offerings are finite
EXTRA_TURN_COST = 2
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))

Die = tuple[str, str]


def token(die: Die) -> str:
    return f"{die[0]}:{die[1]}"


def parse_die(text: str) -> Die:
    colour, _, face = text.partition(":")
    return colour, face


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupFace(Action):
    """Chance, set-up by rolling: the face of the die put on the next empty space (BV-1)."""

    face: str


@dataclass(frozen=True)
class PoolFace(Action):
    """Chance, set-up by placing: the face rolled for the next die of the pool."""

    face: str


@dataclass(frozen=True)
class Place(Action):
    """Set-up by placing: the player to move puts a rolled die on an empty space of its colour."""

    cell: str
    die: str


@dataclass(frozen=True)
class Jump(Action):
    """BV-5: a die of the player's colour jumps from `frm` to `to`, capturing the die between."""

    frm: str
    to: str


@dataclass(frozen=True)
class MamyWata(Action):
    """BV-6: every stack of a line slides toward one end ("n", "s", "w" or "e")."""

    line: str
    toward: str


@dataclass(frozen=True)
class GranBwa(Action):
    """BV-6: the top die of column `frm` moves onto column `to`; repeated until one is left."""

    frm: str
    to: str


@dataclass(frozen=True)
class PapaLegba(Action):
    """BV-6: an accessible die moves to an empty space in the same row or column."""

    frm: str
    to: str


@dataclass(frozen=True)
class ErzulieFreda(Action):
    """BV-6: two single dice swap places."""

    first: str
    second: str


@dataclass(frozen=True)
class TakeOffering(Action):
    """Step 1: an Offering from the reserve, for capturing a die of one's own colour."""


@dataclass(frozen=True)
class ChangeFace(Action):
    """Step 2: pay 1 Offering to turn the captured die to another face."""

    face: str


@dataclass(frozen=True)
class EffectOffering(Action):
    """Step 3, Offering face: take 1 Offering from the reserve."""


@dataclass(frozen=True)
class EffectPoint(Action):
    """Step 3, Victory point face: +1 point."""


@dataclass(frozen=True)
class EffectChange(Action):
    """Step 3, Change face (BV-8): any die of one's capture zone to any face."""

    die: str
    face: str


@dataclass(frozen=True)
class EffectProtection(Action):
    """Step 3, Protection face (BV-8): active until the start of the player's next turn."""


@dataclass(frozen=True)
class Steal(Action):
    """Step 3, Steal face (BV-8): a die of an unprotected opponent's spirit world."""

    side: int
    die: str


@dataclass(frozen=True)
class Switch(Action):
    """Step 3, Switch face (BV-8): one die of one capture zone for one of another."""

    side_a: int
    die_a: str
    side_b: int
    die_b: str


@dataclass(frozen=True)
class ExtraTurn(Action):
    """Step 4: pay 2 Offerings for a full extra turn, once per turn."""


@dataclass(frozen=True)
class PlaceCombo(Action):
    """Step 5 (BV-9): a combo moves from the capture zone to the spirit world and scores."""

    dice: str


@dataclass(frozen=True)
class EndTurn(Action):
    """End the turn without a power at the end."""


POWER_ACTIONS: dict[type[Action], str] = {
    MamyWata: "mamy_wata",
    GranBwa: "gran_bwa",
    PapaLegba: "papa_legba",
    ErzulieFreda: "erzulie_freda",
}


# The steps of a turn after the capture, in listing order, without and with the end power.
STEP_KINDS: tuple[type[Action], ...] = (
    TakeOffering,
    ChangeFace,
    EffectOffering,
    EffectPoint,
    EffectChange,
    EffectProtection,
    Steal,
    Switch,
    ExtraTurn,
    PlaceCombo,
    EndTurn,
)
STEP_KINDS_AND_POWERS = (*STEP_KINDS[:-1], *POWER_ACTIONS, EndTurn)

# Actions made once, since they are listed after every step.
SETUP_OUTCOMES = tuple((SetupFace(face), 1 / 6) for face in FACES)
POOL_OUTCOMES = tuple((PoolFace(face), 1 / 6) for face in FACES)
TAKE_OFFERING = TakeOffering()
EFFECT_OFFERING = EffectOffering()
EFFECT_POINT = EffectPoint()
EFFECT_PROTECTION = EffectProtection()
EXTRA_TURN = ExtraTurn()
END_TURN = EndTurn()
CHANGE_FACES = {face: tuple(ChangeFace(f) for f in FACES if f != face) for face in FACES}
EFFECT_CHANGES = {
    (colour, face): tuple(EffectChange(f"{colour}:{face}", f) for f in FACES if f != face)
    for colour in COLOURS
    for face in FACES
}
NONE_SHIELDED: frozenset[str] = frozenset()


@functools.cache
def _place_action(cell: int, die: Die) -> Action:
    return Place(CELLS[cell], token(die))


@functools.cache
def _steal_action(side: int, die: Die) -> Action:
    return Steal(side, token(die))


@functools.cache
def _switch_action(side_a: int, die_a: Die, side_b: int, die_b: Die) -> Action:
    return Switch(side_a, token(die_a), side_b, token(die_b))


class Phase(enum.Enum):
    SETUP_ROLL = "setup_roll"
    SETUP_POOL = "setup_pool"
    SETUP_PLACE = "setup_place"
    START = "start"
    CAPTURE = "capture"
    STEPS = "steps"
    GRAN_BWA = "gran_bwa"
    OVER = "over"


UNLOCK = "unlock"
"""The "phase" described at a turn's start with no capture open: a power must open one."""
DESCRIBED_PHASES = (*(phase.value for phase in Phase), UNLOCK)
"""Every "phase" that `describe` gives."""


# -- rule data --------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleData:
    colours: tuple[str | None, ...]  # per space; None for the black centre
    points: Mapping[int, int]
    targets: Mapping[str, int]


class RuleDataError(ValueError):
    """A Baron Voodoo rules file that cannot be played."""


@functools.cache
def builtin_rules_path() -> Path:
    # Asked for every new game: finding a package resource costs as much as a random game's turn.
    return Path(str(resources.files("controller.rules") / "voodoo.toml"))


_RULES_CACHE: dict[str, RuleData] = {}


def load_rules(path: str) -> RuleData:
    """Read and check a rules file (BV-1, BV-9, BV-11); "" is the built-in one."""
    chosen = path or str(builtin_rules_path())
    if chosen not in _RULES_CACHE:
        _RULES_CACHE[chosen] = _parse_rules(read_toml(Path(chosen), "rules", RuleDataError), chosen)
    return _RULES_CACHE[chosen]


def _parse_rules(data: Mapping[str, Any], source: str) -> RuleData:
    def fail(message: str) -> RuleDataError:
        return RuleDataError(f"Baron Voodoo rules {source}: {message}")

    rows = data.get("board")
    if not isinstance(rows, list) or len(rows) != SIZE:
        raise fail(f"board must be a list of {SIZE} rows")
    colours: list[str | None] = []
    for r, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != SIZE:
            raise fail(f"board row {r} must be {SIZE} letters, not {row!r}")
        for c, letter in enumerate(row):
            if (r * SIZE + c == CENTRE) != (letter == "."):
                raise fail(f"board row {r} column {c}: only the centre is black ('.'): {letter!r}")
            if letter != "." and letter not in LETTERS:
                raise fail(f"board row {r} column {c}: unknown colour {letter!r}; use YTRPW")
            colours.append(LETTERS.get(letter))
    points_data = data.get("points")
    if not isinstance(points_data, Mapping):
        raise fail("[points] must be a table of combo size = points")
    points: dict[int, int] = {}
    for size, value in points_data.items():
        if not str(size).isdigit() or type(value) is not int or value < 0:
            raise fail(f"[points] {size} = {value!r}: sizes and points are whole numbers")
        points[int(size)] = value
    if not points or sorted(points) != list(range(3, 3 + len(points))):  # BV-9: 3 dice at least
        raise fail(f"[points] must give sizes 3, 4, ... with no gap, not {sorted(points)}")
    target_data = data.get("target")
    wanted = {"2", "3", "4", "teams"}
    if not isinstance(target_data, Mapping) or set(target_data) != wanted:
        raise fail(f"[target] must give {sorted(wanted)}")
    targets = {}
    for key, value in target_data.items():
        if type(value) is not int or value < 1:
            raise fail(f"[target] {key} must be a positive whole number, not {value!r}")
        targets[key] = value
    return RuleData(tuple(colours), points, targets)


# -- pure board rules -------------------------------------------------------------------------

Board = list[list[Die]]


def _neighbours() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each space: (jumped space, landing space) pairs that stay on the board."""
    table = []
    for i in range(SIZE * SIZE):
        r, c = divmod(i, SIZE)
        pairs = []
        for dr, dc in DIRECTIONS:
            r2, c2 = r + 2 * dr, c + 2 * dc
            if 0 <= r2 < SIZE and 0 <= c2 < SIZE:
                pairs.append(((r + dr) * SIZE + c + dc, r2 * SIZE + c2))
        table.append(tuple(pairs))
    return tuple(table)


JUMPS = _neighbours()
# For each space, the jumps (BV-5) over it, as (die's space, landing), and onto it, as (die's
# space, space jumped over): where a capture that a power opens may be, around what it changed.
OVER_JUMPS = tuple(
    tuple((i, to) for i in range(SIZE * SIZE) for over, to in JUMPS[i] if over == x)
    for x in range(SIZE * SIZE)
)
LAND_JUMPS = tuple(
    tuple((i, over) for i in range(SIZE * SIZE) for over, to in JUMPS[i] if to == x)
    for x in range(SIZE * SIZE)
)


def captures_around(
    board: Board, spaces: Sequence[int], colour: str, shielded: frozenset[str]
) -> bool:
    """Whether `board` has a capture (BV-5) of a die of `colour` whose die, die jumped over or
    landing is on one of `spaces`: those a power changed, around which any capture it opened
    must be."""
    for x in spaces:
        stack = board[x]
        if stack and stack[-1][0] == colour:
            for over, to in JUMPS[x]:
                jumped = board[over]
                if jumped and jumped[-1][0] not in shielded and len(board[to]) < MAX_STACK:
                    return True
        if stack and stack[-1][0] not in shielded:
            for i, to in OVER_JUMPS[x]:
                mover = board[i]
                if mover and mover[-1][0] == colour and len(board[to]) < MAX_STACK:
                    return True
        if len(stack) < MAX_STACK:
            for i, over in LAND_JUMPS[x]:
                mover, jumped = board[i], board[over]
                if mover and mover[-1][0] == colour and jumped and jumped[-1][0] not in shielded:
                    return True
    return False


def _same_line(i: int) -> tuple[int, ...]:
    """The other spaces of a space's row and column, in order: where Papa Legba may move it."""
    r, c = divmod(i, SIZE)
    return tuple(
        sorted(({r * SIZE + k for k in range(SIZE)} | {k * SIZE + c for k in range(SIZE)}) - {i})
    )


SAME_LINE = tuple(_same_line(i) for i in range(SIZE * SIZE))


def captures(board: Board, colour: str, shielded: frozenset[str]) -> Iterator[tuple[int, int]]:
    """BV-5: (from, to) of every capture by an accessible die of `colour`."""
    for i, stack in enumerate(board):
        if not stack or stack[-1][0] != colour:
            continue
        for over, to in JUMPS[i]:
            jumped = board[over]
            if jumped and jumped[-1][0] not in shielded and len(board[to]) < MAX_STACK:
                yield i, to


@functools.cache
def line_cells(line: str, toward: str) -> tuple[int, ...]:
    """The spaces of a line, listed from the end that stacks slide toward."""
    n = int(line[1:])
    cells = (
        tuple(n * SIZE + k for k in range(SIZE))
        if line[0] == "r"
        else tuple(k * SIZE + n for k in range(SIZE))
    )
    return cells[::-1] if toward in ("e", "s") else cells


def slide(board: Board, line: str, toward: str) -> bool:
    """BV-6 Mamy Wata: close every gap toward one end, stacks keeping their order."""
    cells = line_cells(line, toward)
    stacks = [board[i] for i in cells if board[i]]
    packed = stacks + [[] for _ in range(len(cells) - len(stacks))]
    if all(board[i] is s for i, s in zip(cells, packed, strict=True)):
        return False
    for i, stack in zip(cells, packed, strict=True):
        board[i] = stack
    return True


def _move_top(board: Board, frm: int, to: int) -> None:
    """The top die of space `frm` onto space `to`. A space's stack is replaced, never changed
    in place, so that a state's clones can share them."""
    stack = board[frm]
    board[to] = [*board[to], stack[-1]]
    board[frm] = stack[:-1]


def bwa_targets(board: Board, frm: int) -> list[int]:
    # BV-6 Gran Bwa: onto another column of 1 or 2 dice, never an empty space.
    return [i for i, s in enumerate(board) if i != frm and 1 <= len(s) < MAX_STACK]


def bwa_sources(board: Board) -> list[int]:
    """Columns of 2 or 3 whose upper dice all find room elsewhere, so the power can finish."""
    room = sum(MAX_STACK - len(s) for s in board if 1 <= len(s) < MAX_STACK)
    sources = []
    for i, stack in enumerate(board):
        if len(stack) >= 2:
            own = MAX_STACK - len(stack) if len(stack) < MAX_STACK else 0
            if room - own >= len(stack) - 1:
                sources.append(i)
    return sources


def legba_targets(board: Board, frm: int) -> list[int]:
    return [i for i in SAME_LINE[frm] if not board[i]]


# The actions between two spaces, made once: the start of a turn lists up to a thousand of them
# (BV-5, BV-6), and a random game's only work is listing them. Each row is indexed by the
# second space; Jump rows hold (jumped space, landing space, action) for each direction.
JUMP_TABLE = tuple(
    tuple((over, to, Jump(CELLS[i], CELLS[to])) for over, to in JUMPS[i])
    for i in range(SIZE * SIZE)
)
BWA_TABLE = tuple(
    tuple(GranBwa(CELLS[a], CELLS[b]) for b in range(SIZE * SIZE)) for a in range(SIZE * SIZE)
)
LEGBA_TABLE = tuple(
    {b: PapaLegba(CELLS[a], CELLS[b]) for b in SAME_LINE[a]} for a in range(SIZE * SIZE)
)
LEGBA_ROWS = tuple((a, LEGBA_TABLE[a], SAME_LINE[a]) for a in range(SIZE * SIZE))
ERZULIE_TABLE = tuple(
    {b: ErzulieFreda(CELLS[a], CELLS[b]) for b in range(a + 1, SIZE * SIZE)}
    for a in range(SIZE * SIZE)
)

# Mamy Wata by lines: each line's spaces (a slice of the board's occupancy), and its slides
# toward the line's first space and toward its last.
# Each line as the start, stop and step of a slice of the board (written out where it is
# sliced: mypyc, which compiles the rules, cannot index bytes with a slice object).
MAMY_LINES = tuple(
    (n * SIZE, (n + 1) * SIZE, 1, MamyWata(f"r{n}", "w"), MamyWata(f"r{n}", "e"))
    for n in range(SIZE)
) + tuple(
    (n, SIZE * SIZE, SIZE, MamyWata(f"c{n}", "n"), MamyWata(f"c{n}", "s")) for n in range(SIZE)
)


def _gap(occupied: Sequence[int]) -> bool:
    """Whether an empty space lies just before a stack, listed from the end slid toward."""
    return any(not a and b for a, b in itertools.pairwise(occupied))


# For each occupancy of a line (one byte a space, 1 for a stack): whether a slide toward its
# first space moves something, and whether one toward its last does.
MAMY_MOVES = {
    bytes(line): (_gap(line), _gap(line[::-1])) for line in itertools.product((0, 1), repeat=SIZE)
}


# -- combos -----------------------------------------------------------------------------------


def combo_kind(dice: Sequence[Die]) -> str | None:
    """BV-9: "face" (same face, colours all different) or "colour" (same colour, faces all
    different), with white standing in for any colour; None if the dice are no combo."""
    if len(dice) < 3:
        return None
    faces = [f for _, f in dice]
    coloured = [c for c, _ in dice if c != WHITE]
    if len(set(faces)) == 1 and len(set(coloured)) == len(coloured) and len(dice) <= len(COLOURS):
        return "face"
    if len(set(faces)) == len(faces) and len(set(coloured)) <= 1:
        return "colour"
    return None


def combos(zone: Sequence[Die], max_size: int) -> list[tuple[Die, ...]]:
    """Every distinct combo that the dice of a capture zone can form, as sorted tuples."""
    return list(_combos(tuple(sorted(zone)), max_size))


# For each colour, each face's dice that a colour combo of it may hold (BV-9).
STAND_INS = {
    colour: tuple(tuple(dict.fromkeys(((colour, face), (WHITE, face)))) for face in FACES)
    for colour in COLOURS
}


@functools.lru_cache(maxsize=4096)
def _combos(zone: tuple[Die, ...], max_size: int) -> tuple[tuple[Die, ...], ...]:
    # Listed on every step of every turn, for zones that rarely change: worth caching. Every
    # group made here is a combo by construction (as `combo_kind` says), so none is checked.
    if len(zone) < 3:
        return ()
    present = set(zone)
    colours_of: dict[str, set[str]] = {face: set() for face in FACES}  # non-white, by face
    faces_of: dict[str, set[str]] = {colour: set() for colour in COLOURS}
    for c, f in present:
        faces_of[c].add(f)
        if c != WHITE:
            colours_of[f].add(c)
    found: set[tuple[Die, ...]] = set()
    for face in FACES:
        # Same face: different colours, and any whites of that face, 5 dice at most.
        whites = zone.count((WHITE, face)) if face in faces_of[WHITE] else 0
        if len(colours_of[face]) + whites < 3:
            continue
        colours = sorted(colours_of[face])
        for k in range(min(whites, max_size) + 1):
            top = min(len(colours), max_size - k, len(COLOURS) - k)
            for size in range(max(3 - k, 0), top + 1):
                for chosen in itertools.combinations(colours, size):
                    found.add(tuple(sorted([(c, face) for c in chosen] + [(WHITE, face)] * k)))
    for colour in COLOURS:
        if len(faces_of[colour] | faces_of[WHITE]) < 3:
            continue
        # One die for each of 3 faces or more, of the colour or white: the dice of each face
        # that the zone holds, and then the faces picked, a few at a time.
        options = ([d for d in dice if d in present] for dice in STAND_INS[colour])
        held = [dice for dice in options if dice]
        for size in range(3, min(len(held), max_size) + 1):
            for faces in itertools.combinations(held, size):
                found.update(tuple(sorted(picked)) for picked in itertools.product(*faces))
    return tuple(sorted(found))


def combo_text(dice: Sequence[Die]) -> str:
    return "+".join(token(d) for d in sorted(dice))


@functools.lru_cache(maxsize=4096)
def _combo_actions(zone: tuple[Die, ...], max_size: int) -> tuple[Action, ...]:
    """Step 5's actions for a sorted capture zone (BV-9), made once for each zone."""
    return tuple(PlaceCombo(combo_text(g)) for g in _combos(zone, max_size))


# -- the state --------------------------------------------------------------------------------


class VoodooState(GameState):
    def __init__(self, options: Mapping[str, Any], rules: RuleData, loas: tuple[str, ...]) -> None:
        super().__init__(options)
        self.rules = rules
        self.loas = loas
        self.teams = bool(options["teams"])
        n = len(loas)
        # BV-12: teams are seats 0-1 and 2-3, and turns alternate between them.
        self.order = (0, 2, 1, 3) if self.teams else tuple(range(n))
        sides = 2 if self.teams else n
        # Each space's stack, bottom first. A stack is replaced, never changed in place: a
        # clone shares them (`_move_top`).
        self.board: Board = [[] for _ in range(SIZE * SIZE)]
        self.zones: list[list[Die]] = [[] for _ in range(sides)]
        self.spirits: list[list[Die]] = [[] for _ in range(sides)]
        self.scores = [0] * sides
        self.offerings = [START_OFFERINGS] * sides
        self.reserve = RESERVE_TOTAL - START_OFFERINGS * sides
        self.protected = [False] * n
        self.samedi: int | None = None  # BV-10: the player holding the token
        self.pool: list[Die] = []
        self.setup_cell = 0
        self.phase = Phase.SETUP_ROLL if options["setup"] == "roll" else Phase.SETUP_POOL
        self.seat = 0  # position in self.order
        self.player = self.order[0]
        self.turn = 0
        self.round = 1
        self.power_used = False
        self.extra_bought = False  # step 4 was taken this turn (BV-7: once per turn)
        self.extra_pending = False  # the turn ends into the same player's extra turn
        self.extra_turn = False  # this turn is an extra one, bought on the turn before
        self.step = 0
        self.captured: Die | None = None
        self.last_capture: tuple[int, int, int] | None = None  # from, jumped, to
        self.bwa_from: int | None = None
        self.bwa_at_start = False
        self.ending = False
        self.ender: int | None = None
        self.end_reason = ""  # BV-11: "target" reached, or "no_capture" for the ender
        self.end_bonus: list[int] | None = None
        self.winner: int | None = None  # a side
        self._setup_colours = Counter(c for c in rules.colours if c is not None)
        self._max_combo = max(rules.points)
        # The captures open now (`_capture_actions`), until the next action or turn.
        self._captures: list[Action] | None = None

    def clone(self) -> Self:
        # The session lays out the board after each of up to a thousand actions: a deep copy
        # of the rule data each time would dominate. Only these fields are mutated in place.
        other = self._copy()
        other.board = list(self.board)  # its stacks are replaced, never changed
        other.zones = [list(z) for z in self.zones]
        other.spirits = [list(z) for z in self.spirits]
        other.scores = list(self.scores)
        other.offerings = list(self.offerings)
        other.protected = list(self.protected)
        other.pool = list(self.pool)
        return other

    # -- a position from its description -------------------------------------------------

    @classmethod
    def from_position(
        cls, position: Mapping[str, Any], options: Mapping[str, Any] | None = None
    ) -> VoodooState:
        """A game after set-up, at the start of a turn, from a description of its position.

        For a puzzle, a game resumed from a photo of the table, or a test. `options` are the
        game's (players, teams, loas, rules). `position` uses the names and shapes of
        `describe`, every key optional:

        - to_move: the player whose turn starts (default: the first in turn order);
        - columns: {space: [dice, bottom first]} (default: an empty board);
        - scores, offerings, capture_zones, spirit_worlds: {side: value} (default: 0, 3 each,
          empty, empty); a side left out takes the default;
        - reserve: the Offerings in the reserve (default: what the sides leave of the 20);
        - protection: {player: bool}; baron_samedi: a player or None;
        - ended_by: the player who triggered the end, if it is triggered (BV-11);
        - round, turn: the counters (default 1).

        The turn then starts through the rules: the mover's own Protection ends (BV-8), and a
        mover with no capture even after a power triggers the end (BV-11). A description that
        no game could reach raises PositionError naming what is wrong: an unknown key, space,
        player, side, colour or face, a column of more than 3 (BV-4), more dice of a colour
        than the set has (BV-1, BV-2), Offerings beyond the 20 (BV-7), a score at the target
        with no end triggered (BV-11), a holder of Baron Samedi when another player has
        strictly more white dice, or any holder in team mode (BV-10, BV-12).

        The state's history starts here: it replays from this position, not from a new game.

        >>> state = VoodooState.from_position(
        ...     {"to_move": "gran_bwa", "columns": {"r0c0": ["turquoise:steal"],
        ...      "r0c1": ["red:point"]}, "offerings": {"mamy_wata": 1}},
        ... )
        >>> [a.id for a in state.legal_actions() if isinstance(a, Jump)]
        ['jump:r0c0:r0c2']
        """
        return _Position(cls.of(cls.game.new_initial_state(options)), position).state

    # -- who is who ---------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return len(self.loas)

    def player_name(self, player: int) -> str:
        if 0 <= player < len(self.loas):
            return self.loas[player]
        return super().player_name(player)

    def side_of(self, player: int) -> int:
        return player // 2 if self.teams else player

    def side_name(self, side: int) -> str:
        if self.teams:
            return "+".join(self.loas[2 * side : 2 * side + 2])
        return self.loas[side]

    def colour_of(self, player: int) -> str:
        return LOA_COLOUR[self.loas[player]]

    def side_protected(self, side: int) -> bool:
        # BV-12: a teammate's Protection also guards the shared spirit world.
        return any(self.protected[p] for p in range(self.num_players) if self.side_of(p) == side)

    def shielded(self) -> frozenset[str]:
        """BV-5: the colours whose top dice cannot be captured now."""
        return frozenset(self.colour_of(p) for p, on in enumerate(self.protected) if on)

    def target(self) -> int:
        key = "teams" if self.teams else str(self.num_players)
        return self.rules.targets[key]

    def end_power_available(self) -> bool:
        """BV-7: the power at the end of the turn, open only if none was used at the start.
        True from the start of a turn until a power is used; False outside play."""
        playing = self.phase in (Phase.START, Phase.CAPTURE, Phase.STEPS)
        return playing and not self.power_used

    # -- the API ------------------------------------------------------------------------

    def current_player(self) -> int:
        phase = self.phase
        if phase is Phase.OVER:
            return TERMINAL
        if phase is Phase.SETUP_ROLL or phase is Phase.SETUP_POOL:
            return CHANCE
        return self.player

    # As the API's, without working out the player: asked before every action.
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def is_chance_node(self) -> bool:
        phase = self.phase
        return phase is Phase.SETUP_ROLL or phase is Phase.SETUP_POOL

    def legal_actions(self) -> list[Action]:
        phase = self.phase
        if phase is Phase.START:
            return self._capture_actions() + self._leaving_capture(self._powers())
        if phase is Phase.CAPTURE:
            return self._jumps()
        if phase is Phase.STEPS:
            return self._steps()
        if phase is Phase.GRAN_BWA:
            return self._leaving_capture(self._gran_bwa())
        if phase is Phase.SETUP_PLACE:
            return self._places()
        return []

    def _kinds(self) -> tuple[type[Action], ...]:
        match self.phase:
            case Phase.SETUP_PLACE:
                return (Place,)
            case Phase.START:
                return (Jump, *POWER_ACTIONS)
            case Phase.CAPTURE:
                return (Jump,)
            case Phase.GRAN_BWA:
                return (GranBwa,)
            case Phase.STEPS:
                return STEP_KINDS if self.power_used else STEP_KINDS_AND_POWERS
            case _:
                return ()

    def is_legal(self, action: Action) -> bool:
        """Only the actions of the same kind are listed: the full list can run to a thousand. A
        capture or a power between two spaces is not even listed, but checked by itself."""
        if self.is_chance_node():
            return super().is_legal(action)
        kind = type(action)
        if kind not in self._kinds():
            return False
        match action:
            case Jump(a, b) | GranBwa(a, b) | PapaLegba(a, b) | ErzulieFreda(a, b):
                if not (isinstance(a, str) and isinstance(b, str)):
                    return False
                frm, to = INDEX.get(a), INDEX.get(b)
                listed = frm is not None and to is not None and self._allows(kind, frm, to)
            case _:
                listed = action in LISTERS[kind](self)
        return listed and (kind is Jump or bool(self._leaving_capture([action])))

    def _allows(self, kind: type[Action], frm: int, to: int) -> bool:
        """Whether the action of `kind` from `frm` to `to` is among those its lister gives."""
        board = self.board
        if kind is Jump:
            return (frm, to) in set(captures(board, self.colour_of(self.player), self.shielded()))
        if kind is GranBwa and self.phase is Phase.GRAN_BWA:
            return frm == self.bwa_from and to in bwa_targets(board, frm)
        if not self._can_pay(POWER_ACTIONS[kind]):
            return False
        if kind is GranBwa:
            return frm in bwa_sources(board) and to in bwa_targets(board, frm)
        if kind is PapaLegba:
            return bool(board[frm]) and to in legba_targets(board, frm)
        # Erzulie Freda: two single dice, not alike, named in board order.
        return frm < to and len(board[frm]) == len(board[to]) == 1 and board[frm][0] != board[to][0]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase is Phase.SETUP_ROLL:
            return list(SETUP_OUTCOMES)
        if self.phase is Phase.SETUP_POOL:
            return list(POOL_OUTCOMES)
        return []

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0] * self.num_players
        return [1.0 if self.side_of(p) == self.winner else -1.0 for p in range(self.num_players)]

    # -- listing --------------------------------------------------------------------------

    def _places(self) -> list[Action]:
        dice = sorted(set(self.pool))
        empty = [i for i, s in enumerate(self.board) if not s and i != CENTRE]
        colours = self.rules.colours
        return [_place_action(i, d) for d in dice for i in empty if colours[i] == d[0]]

    def _jumps(self) -> list[Action]:
        return list(self._capture_actions())

    def _capture_actions(self) -> list[Action]:
        """captures(), as actions, worked out once between two actions: asked when a turn
        starts and after a power at the start (BV-11), then listed. Not to be changed."""
        found = self._captures
        if found is None:
            colour = LOA_COLOUR[self.loas[self.player]]
            shielded = self.shielded() if True in self.protected else NONE_SHIELDED
            board = self.board
            found = self._captures = [
                action
                for i, stack in enumerate(board)
                if stack and stack[-1][0] == colour
                for over, to, action in JUMP_TABLE[i]
                if board[over] and board[over][-1][0] not in shielded and len(board[to]) < MAX_STACK
            ]
        return found

    def _must_capture(self) -> bool:
        """BV-5 with BV-11: a power used at the start of the turn (Gran Bwa's to its last move)
        must leave the player a capture. The capture is the turn's compulsory action, and the
        game ends only for a player who can make none whatever power they use (asked as the
        turn starts): a power that leaves none is not theirs to choose (the walk: the
        computer, ahead on points, ended the game by one)."""
        return self.phase is Phase.START or (self.phase is Phase.GRAN_BWA and self.bwa_at_start)

    def _capture_cells(self) -> list[tuple[int, int, int]]:
        """Each capture's three spaces: the die's, the one jumped over, the landing."""
        found = captures(self.board, self.colour_of(self.player), self.shielded())
        return [(frm, (frm + to) // 2, to) for frm, to in found]

    def _leaving_capture(
        self, powers: list[Action], cells: list[tuple[int, int, int]] | None = None
    ) -> list[Action]:
        """`powers`, less those that would leave no capture where one must follow
        (`_must_capture`); `cells`: the captures now (`_capture_cells`), if known."""
        if not self._must_capture():
            return powers
        caps = self._capture_cells() if cells is None else cells
        colour, shielded = self.colour_of(self.player), self.shielded()
        return [p for p in powers if self._keeps_a_capture(p, caps, colour, shielded)]

    def _keeps_a_capture(
        self,
        power: Action,
        caps: list[tuple[int, int, int]],
        colour: str,
        shielded: frozenset[str],
    ) -> bool:
        """Whether after `power` a capture is open: one of `caps`, those open now, that it
        leaves as it is, or one it opens around the spaces it changes. Gran Bwa's first move
        from a column of 3 counts with the move of the next die, wherever it may go."""
        board = self.board
        if isinstance(power, MamyWata):
            line = line_cells(power.line, power.toward)
            if any(f not in line and o not in line and t not in line for f, o, t in caps):
                return True
            after = list(board)
            slide(after, power.line, power.toward)
            return captures_around(after, line, colour, shielded)
        if isinstance(power, ErzulieFreda):
            first, second = INDEX[power.first], INDEX[power.second]
            moving = False
        else:
            assert isinstance(power, GranBwa | PapaLegba)
            first, second = INDEX[power.frm], INDEX[power.to]
            moving = True
        # Gran Bwa moves on from a column it leaves at 2: the next die goes elsewhere too.
        goes_on = isinstance(power, GranBwa) and len(board[first]) > 2
        if not goes_on:
            # A capture whose die and die jumped over the power leaves alone is still open,
            # unless a die moved onto its landing fills it.
            for f, o, t in caps:
                if (
                    f != first
                    and f != second
                    and o != first
                    and o != second
                    and (t != second or not moving or len(board[t]) < MAX_STACK - 1)
                ):
                    return True
        after = list(board)
        if moving:
            _move_top(after, first, second)
        else:
            after[first], after[second] = board[second], board[first]
        if not goes_on:
            return captures_around(after, (first, second), colour, shielded)
        return any(
            self._bwa_then(after, first, second, then, caps, colour, shielded)
            for then in bwa_targets(after, first)
        )

    @staticmethod
    def _bwa_then(
        board: Board,
        frm: int,
        to: int,
        then: int,
        caps: list[tuple[int, int, int]],
        colour: str,
        shielded: frozenset[str],
    ) -> bool:
        """`_keeps_a_capture` for Gran Bwa's first move, from `frm` to `to` (`board` after it),
        and the next die's, onto `then`."""
        after = list(board)
        _move_top(after, frm, then)
        changed = (frm, to, then)
        for f, o, t in caps:
            if f not in changed and o not in changed and t not in changed:
                return True
        return captures_around(after, changed, colour, shielded)

    def _can_pay(self, loa: str) -> bool:
        # BV-7: one's own Loa is free, another costs 1 Offering; Baron Samedi makes all free.
        return (
            loa == self.loas[self.player]
            or self.samedi == self.player
            or (self.offerings[self.side_of(self.player)] >= 1)
        )

    def _powers(self) -> list[Action]:
        """The four Loas' powers, in BV-3 order, those the player can pay for."""
        return self._mamy_wata() + self._gran_bwa() + self._papa_legba() + self._erzulie_freda()

    def _mamy_wata(self) -> list[Action]:
        if not self._can_pay("mamy_wata"):
            return []
        # Something moves only if an empty space lies before a stack.
        occupied = bytes(map(bool, self.board))
        found: list[Action] = []
        for start, stop, step, toward_first, toward_last in MAMY_LINES:
            first, last = MAMY_MOVES[occupied[start:stop:step]]
            if first:
                found.append(toward_first)
            if last:
                found.append(toward_last)
        return found

    def _gran_bwa(self) -> list[Action]:
        board = self.board
        if self.phase is Phase.GRAN_BWA:
            assert self.bwa_from is not None
            row = BWA_TABLE[self.bwa_from]
            return [row[t] for t in bwa_targets(board, self.bwa_from)]
        if not self._can_pay("gran_bwa"):
            return []
        # bwa_sources and bwa_targets for each source (the same columns, less the source).
        heights = list(map(len, board))
        room = [i for i, h in enumerate(heights) if 1 <= h < MAX_STACK]
        space = sum(MAX_STACK - heights[i] for i in room)
        found: list[Action] = []
        for frm, h in enumerate(heights):
            if h >= 2 and space - (MAX_STACK - h) >= h - 1:
                row = BWA_TABLE[frm]
                found += [row[t] for t in room if t != frm]
        return found

    def _papa_legba(self) -> list[Action]:
        if not self._can_pay("papa_legba"):
            return []
        occupied = bytes(map(bool, self.board))
        return [
            row[to]
            for frm, row, line in LEGBA_ROWS
            if occupied[frm]
            for to in line
            if not occupied[to]
        ]

    def _erzulie_freda(self) -> list[Action]:
        singles = self._singles()
        # Two dice alike would swap to the same board: nothing to do or to see.
        return [
            ERZULIE_TABLE[a][b]
            for k, (a, da) in enumerate(singles)
            for b, db in singles[k + 1 :]
            if db != da
        ]

    def _singles(self) -> list[tuple[int, int]]:
        """The spaces of one die, and that die as a number, where Erzulie Freda can be paid
        for (BV-7); else none. Numbers, since they are compared for every pair: compiled, ints
        are native where tuples are not."""
        if not self._can_pay("erzulie_freda"):
            return []
        return [(i, DIE_NUMBER[s[0]]) for i, s in enumerate(self.board) if len(s) == 1]

    def _swap_count(self, singles: list[tuple[int, int]]) -> int:
        """How many swaps `_erzulie_freda` lists: pairs of single dice, less those alike."""
        alike = [0] * len(DIE_NUMBER)
        for _, die in singles:
            alike[die] += 1
        n = len(singles)
        return n * (n - 1) // 2 - sum(c * (c - 1) // 2 for c in alike)

    def _swap(self, singles: list[tuple[int, int]], k: int) -> Action:
        """The `k`-th swap that `_erzulie_freda` lists, without listing those before it."""
        after = [0] * len(DIE_NUMBER)  # each die's singles after the one at hand
        for _, die in singles:
            after[die] += 1
        for index, (a, da) in enumerate(singles):
            after[da] -= 1
            pairs = len(singles) - index - 1 - after[da]
            if k >= pairs:
                k -= pairs
                continue
            for b, db in singles[index + 1 :]:
                if db != da:
                    if k == 0:
                        return ERZULIE_TABLE[a][b]
                    k -= 1
        raise IndexError("no such swap")

    def sample(self, rng: random.Random) -> Action:
        """As any game, a legal action drawn evenly; but at a turn's start and between its
        steps, Erzulie Freda's swaps (the most of a listing, often hundreds) are counted, and
        only the one drawn is made. Between the steps, the action `rng.choice` would draw from
        `legal_actions`. At the start, a power drawn that would leave no capture
        (`_must_capture`) is drawn again: whichever is drawn, each legal one as often."""
        phase = self.phase
        if phase is Phase.START:
            listed = self._capture_actions() + self._mamy_wata() + self._gran_bwa()
            listed += self._papa_legba()
            singles = self._singles()
            swaps = self._swap_count(singles)
            cells: list[tuple[int, int, int]] | None = None
            for _ in range(REDRAWS):
                k = rng.randrange(len(listed) + swaps)
                action = listed[k] if k < len(listed) else self._swap(singles, k - len(listed))
                if isinstance(action, Jump):
                    return action
                cells = self._capture_cells() if cells is None else cells
                if self._leaving_capture([action], cells):
                    return action
            return rng.choice(self.legal_actions())  # few of them leave a capture
        if phase is Phase.STEPS and not self.power_used:
            listed = self._steps_before_powers() + self._mamy_wata() + self._gran_bwa()
            listed += self._papa_legba()
            singles = self._singles()
            swaps = self._swap_count(singles)
            k = rng.randrange(len(listed) + swaps + 1)
            if k < len(listed):
                return listed[k]
            return self._swap(singles, k - len(listed)) if k < len(listed) + swaps else END_TURN
        return rng.choice(self.legal_actions())

    def _side(self) -> int:
        return self.side_of(self.player)

    def _steps(self) -> list[Action]:
        """Steps 1 to 5, then the end power if none was used at the start, then the end (BV-7)."""
        found = self._steps_before_powers()
        if not self.power_used:
            found += self._powers()
        found.append(END_TURN)
        return found

    def _steps_before_powers(self) -> list[Action]:
        """Steps 1 to 5 (BV-7): the listers of STEP_KINDS, written out, since they are asked
        after every step."""
        captured = self.captured
        assert captured is not None
        step = self.step
        side = self.side_of(self.player)
        offerings = self.offerings[side]
        found: list[Action] = []
        if step < 1 and self.reserve > 0 and captured[0] == LOA_COLOUR[self.loas[self.player]]:
            found.append(TAKE_OFFERING)
        if step < 2 and offerings >= 1:
            found += CHANGE_FACES[captured[1]]
        if step < 3:
            face = captured[1]
            if face == "offering":
                if self.reserve > 0:
                    found.append(EFFECT_OFFERING)
            elif face == "point":
                found.append(EFFECT_POINT)
            elif face == "change":
                found += self._effect_change()
            elif face == "protection":
                found.append(EFFECT_PROTECTION)
            elif face == "steal":
                found += self._steal()
            elif face == "switch":
                found += self._switch()
        if step < 4 and not self.extra_bought and offerings >= EXTRA_TURN_COST:
            found.append(EXTRA_TURN)
        found += self._place_combo()
        return found

    def _take_offering(self) -> list[Action]:
        assert self.captured is not None
        own = self.captured[0] == self.colour_of(self.player)
        return [TAKE_OFFERING] if self.step < 1 and own and self.reserve > 0 else []

    def _change_face(self) -> list[Action]:
        assert self.captured is not None
        if self.step >= 2 or self.offerings[self._side()] < 1:
            return []
        return list(CHANGE_FACES[self.captured[1]])

    def _effect(self, face: str) -> bool:
        assert self.captured is not None
        return self.step < 3 and self.captured[1] == face

    def _effect_offering(self) -> list[Action]:
        return [EFFECT_OFFERING] if self._effect("offering") and self.reserve > 0 else []

    def _effect_point(self) -> list[Action]:
        return [EFFECT_POINT] if self._effect("point") else []

    def _effect_change(self) -> list[Action]:
        if not self._effect("change"):
            return []
        found: list[Action] = []
        for die in sorted(set(self.zones[self._side()])):
            found += EFFECT_CHANGES[die]
        return found

    def _effect_protection(self) -> list[Action]:
        return [EFFECT_PROTECTION] if self._effect("protection") else []

    def _steal(self) -> list[Action]:
        if not self._effect("steal"):
            return []
        own = self._side()
        return [
            _steal_action(side, d)
            for side, spirit in enumerate(self.spirits)
            if side != own and not self.side_protected(side)
            for d in sorted(set(spirit))
        ]

    def _switch(self) -> list[Action]:
        if not self._effect("switch"):
            return []
        own = self._side()
        # Protection keeps an opponent's captured dice from being taken (rulebook, Protection).
        open_sides = [s for s in range(len(self.zones)) if s == own or not self.side_protected(s)]
        found: list[Action] = []
        for a, b in itertools.combinations(open_sides, 2):
            dice_b = sorted(set(self.zones[b]))
            for da in sorted(set(self.zones[a])):
                found += [_switch_action(a, da, b, db) for db in dice_b if da != db]
        return found

    def _extra_turn(self) -> list[Action]:
        affordable = self.offerings[self._side()] >= EXTRA_TURN_COST
        return [EXTRA_TURN] if self.step < 4 and not self.extra_bought and affordable else []

    def _place_combo(self) -> list[Action]:
        return list(_combo_actions(tuple(sorted(self.zones[self._side()])), self._max_combo))

    # -- playing ------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        self._captures = None
        PLAYERS[type(action)](self, action)

    def _play_setup_face(self, action: SetupFace) -> None:
        self._setup_roll(action.face)

    def _play_pool_face(self, action: PoolFace) -> None:
        self._setup_pool(action.face)

    def _play_place(self, action: Place) -> None:
        self._setup_place(INDEX[action.cell], parse_die(action.die))

    def _play_jump(self, action: Jump) -> None:
        self._jump(INDEX[action.frm], INDEX[action.to])

    def _play_take_offering(self, action: TakeOffering) -> None:
        self._gain_offering()
        self.step = 1

    def _play_change_face(self, action: ChangeFace) -> None:
        self._pay(1)
        self._retag(self._side(), self._captured(), action.face)
        self.step = 2

    def _play_effect_offering(self, action: EffectOffering) -> None:
        self._gain_offering()
        self.step = 3

    def _play_effect_point(self, action: EffectPoint) -> None:
        self._score(1)
        self.step = 3

    def _play_effect_change(self, action: EffectChange) -> None:
        self._retag(self._side(), parse_die(action.die), action.face)
        self.step = 3

    def _play_effect_protection(self, action: EffectProtection) -> None:
        self.protected[self.player] = True
        self.step = 3

    def _play_steal(self, action: Steal) -> None:
        self.spirits[action.side].remove(parse_die(action.die))
        self.zones[self._side()].append(parse_die(action.die))
        self._update_samedi()
        self.step = 3

    def _play_switch(self, action: Switch) -> None:
        a, b = parse_die(action.die_a), parse_die(action.die_b)
        self.zones[action.side_a].remove(a)
        self.zones[action.side_b].remove(b)
        self.zones[action.side_a].append(b)
        self.zones[action.side_b].append(a)
        self.step = 3

    def _play_extra_turn(self, action: ExtraTurn) -> None:
        self._pay(EXTRA_TURN_COST)
        self.extra_bought = self.extra_pending = True
        self.step = 4

    def _play_place_combo(self, action: PlaceCombo) -> None:
        group = [parse_die(t) for t in action.dice.split("+")]
        for one in group:
            self.zones[self._side()].remove(one)
        self.spirits[self._side()].extend(group)
        self._update_samedi()
        self._score(self.rules.points[len(group)])
        self.step = 5

    def _play_end_turn(self, action: EndTurn) -> None:
        self._end_turn()

    # -- set-up -------------------------------------------------------------------------

    def _setup_roll(self, face: str) -> None:
        cell = self.setup_cell
        colour = self.rules.colours[cell]
        assert colour is not None
        self.board[cell] = [*self.board[cell], (colour, face)]
        self._advance_setup_cell()
        if self.setup_cell >= SIZE * SIZE:
            self._begin_play()

    def _advance_setup_cell(self) -> None:
        self.setup_cell += 1
        if self.setup_cell == CENTRE:
            self.setup_cell += 1

    def pool_colour(self) -> str:
        """The colour of the next die to roll for set-up by placing: colours in BV-2 order."""
        rolled = Counter(c for c, _ in self.pool)
        for colour in COLOURS:
            if rolled[colour] < self._setup_colours[colour]:
                return colour
        raise AssertionError("every die is rolled")

    def _setup_pool(self, face: str) -> None:
        self.pool.append((self.pool_colour(), face))
        if len(self.pool) == sum(self._setup_colours.values()):
            self.phase = Phase.SETUP_PLACE
            self.seat = 0
            self.player = self.order[0]

    def _setup_place(self, cell: int, die: Die) -> None:
        self.board[cell] = [*self.board[cell], die]
        self.pool.remove(die)
        if not self.pool:
            self._begin_play()
            return
        # The rulebook's advanced set-up: each player places a die, one after another.
        self.seat = (self.seat + 1) % len(self.order)
        self.player = self.order[self.seat]

    def _begin_play(self) -> None:
        self.seat = 0
        self.player = self.order[0]  # the oldest player starts
        self._begin_turn()

    # -- turns --------------------------------------------------------------------------

    def _begin_turn(self, extra: bool = False) -> None:
        """Start the turn of self.player, skipping players who cannot capture (BV-11);
        `extra`: the turn is the extra one that the player bought (BV-7)."""
        while True:
            self._captures = None
            self.turn += 1
            self.extra_turn, extra = extra, False
            self.protected[self.player] = False  # BV-8: until the start of the next turn
            self.power_used = self.extra_bought = self.extra_pending = False
            self.step = 0
            self.captured = None
            self.bwa_from = None
            self.phase = Phase.START
            if self.can_play():
                return
            self._trigger_end("no_capture")
            if not self._next_seat():
                return

    def can_play(self) -> bool:
        """BV-11: a capture is possible now, or after some power the player could use or pay."""
        if self._capture_actions():
            return True
        colour = self.colour_of(self.player)
        shielded = self.shielded()
        return any(self._keeps_a_capture(a, [], colour, shielded) for a in self._powers())

    def _trigger_end(self, reason: str) -> None:
        if not self.ending:
            self.ending = True
            self.ender = self.player
            self.end_reason = reason

    def _next_seat(self) -> bool:
        """Pass the turn on; False once the round that saw the end trigger is over."""
        self.seat = (self.seat + 1) % len(self.order)
        if self.seat == 0:
            self.round += 1
            if self.ending:  # BV-11: every player has had the same number of turns
                self._finish()
                return False
        self.player = self.order[self.seat]
        return True

    def _end_turn(self) -> None:
        if self.extra_pending:
            self._begin_turn(extra=True)  # BV-7: the extra turn is a full turn
        elif self._next_seat():
            self._begin_turn()

    # -- capture, powers and effects --------------------------------------------------------

    def _jump(self, frm: int, to: int) -> None:
        over = (frm + to) // 2
        board = self.board
        taken = board[over][-1]
        board[over] = board[over][:-1]
        _move_top(board, frm, to)
        self.zones[self._side()].append(taken)
        self.captured = taken
        self.last_capture = (frm, over, to)
        self.phase = Phase.STEPS

    def _power(self, action: Action) -> None:
        loa = POWER_ACTIONS[type(action)]
        if self.phase is not Phase.GRAN_BWA:
            if loa != self.loas[self.player] and self.samedi != self.player:
                self._pay(1)
            self.bwa_at_start = self.phase is Phase.START
            self.power_used = True
        self._move(self.board, action)
        if isinstance(action, GranBwa) and len(self.board[INDEX[action.frm]]) >= 2:
            self.phase = Phase.GRAN_BWA
            self.bwa_from = INDEX[action.frm]
            return
        self.bwa_from = None
        if self.phase is Phase.START or (self.phase is Phase.GRAN_BWA and self.bwa_at_start):
            self.phase = Phase.CAPTURE  # a capture is left (`_must_capture`)
        else:
            self._end_turn()

    @staticmethod
    def _move(board: Board, action: Action) -> None:
        match action:
            case MamyWata(line, toward):
                slide(board, line, toward)
            case GranBwa(frm, to) | PapaLegba(frm, to):
                _move_top(board, INDEX[frm], INDEX[to])
            case ErzulieFreda(first, second):
                a, b = INDEX[first], INDEX[second]
                board[a], board[b] = board[b], board[a]

    def _captured(self) -> Die:
        assert self.captured is not None
        return self.captured

    def _retag(self, side: int, die: Die, face: str) -> None:
        zone = self.zones[side]
        zone.remove(die)
        zone.append((die[0], face))
        if self.captured == die:
            self.captured = (die[0], face)

    def _pay(self, amount: int) -> None:
        self.offerings[self._side()] -= amount
        self.reserve += amount

    def _gain_offering(self) -> None:
        self.offerings[self._side()] += 1
        self.reserve -= 1

    def _score(self, points: int) -> None:
        self.scores[self._side()] += points
        if self.scores[self._side()] >= self.target():
            self._trigger_end("target")  # BV-11: the turn and then the round are finished

    def _update_samedi(self) -> None:
        """BV-10: strictly the most white dice in a spirit world takes the token."""
        if self.teams:
            return  # BV-12: no Baron Samedi in team mode
        whites = [sum(1 for c, _ in s if c == WHITE) for s in self.spirits]
        best = max(whites)
        if best > 0 and whites.count(best) == 1:
            self.samedi = whites.index(best)

    # -- the end ------------------------------------------------------------------------

    def _finish(self) -> None:
        """BV-11: capture zones to spirit worlds (one combo scores), majorities, the winner."""
        max_size = max(self.rules.points)
        bonus = [0] * len(self.scores)
        for side, zone in enumerate(self.zones):
            found = combos(zone, max_size)
            if found:
                bonus[side] += max(self.rules.points[len(g)] for g in found)
            self.spirits[side].extend(zone)
            zone.clear()
        majority_colours = [LOA_COLOUR[loa] for loa, _ in LOAS]
        if self.teams:
            majority_colours.append(WHITE)  # BV-11: white counts only in team mode
        for colour in majority_colours:
            counts = [sum(1 for c, _ in s if c == colour) for s in self.spirits]
            best = max(counts)
            if best == 0:
                continue
            leaders = [side for side, n in enumerate(counts) if n == best]
            for side in leaders:
                bonus[side] += 3 if len(leaders) == 1 else 1
        for side, points in enumerate(bonus):
            self.scores[side] += points
        self.end_bonus = bonus
        self.winner = self._tie_break()
        self.phase = Phase.OVER

    def _tie_break(self) -> int:
        # BV-11: the ender, or else the nearest after them in turn order.
        best = max(self.scores)
        assert self.ender is not None
        start = self.order.index(self.ender)
        for k in range(len(self.order)):
            side = self.side_of(self.order[(start + k) % len(self.order)])
            if self.scores[side] == best:
                return side
        raise AssertionError("no side has the best score")


# How each kind of decision is listed, in the order `_kinds` gives (`is_legal` lists one kind).
LISTERS: dict[type[Action], Callable[[VoodooState], list[Action]]] = {
    Place: VoodooState._places,
    Jump: VoodooState._jumps,
    MamyWata: VoodooState._mamy_wata,
    GranBwa: VoodooState._gran_bwa,
    PapaLegba: VoodooState._papa_legba,
    ErzulieFreda: VoodooState._erzulie_freda,
    TakeOffering: VoodooState._take_offering,
    ChangeFace: VoodooState._change_face,
    EffectOffering: VoodooState._effect_offering,
    EffectPoint: VoodooState._effect_point,
    EffectChange: VoodooState._effect_change,
    EffectProtection: VoodooState._effect_protection,
    Steal: VoodooState._steal,
    Switch: VoodooState._switch,
    ExtraTurn: VoodooState._extra_turn,
    PlaceCombo: VoodooState._place_combo,
    EndTurn: lambda state: [END_TURN],
}

# How each kind of action is played: one look-up rather than a match through every kind.
PLAYERS: dict[type[Action], Callable[[VoodooState, Any], None]] = {
    SetupFace: VoodooState._play_setup_face,
    PoolFace: VoodooState._play_pool_face,
    Place: VoodooState._play_place,
    Jump: VoodooState._play_jump,
    MamyWata: VoodooState._power,
    GranBwa: VoodooState._power,
    PapaLegba: VoodooState._power,
    ErzulieFreda: VoodooState._power,
    TakeOffering: VoodooState._play_take_offering,
    ChangeFace: VoodooState._play_change_face,
    EffectOffering: VoodooState._play_effect_offering,
    EffectPoint: VoodooState._play_effect_point,
    EffectChange: VoodooState._play_effect_change,
    EffectProtection: VoodooState._play_effect_protection,
    Steal: VoodooState._play_steal,
    Switch: VoodooState._play_switch,
    ExtraTurn: VoodooState._play_extra_turn,
    PlaceCombo: VoodooState._play_place_combo,
    EndTurn: VoodooState._play_end_turn,
}


class PositionError(ValueError):
    """A position description that no Baron Voodoo game can be in."""


POSITION_KEYS = (
    "to_move",
    "columns",
    "scores",
    "offerings",
    "reserve",
    "capture_zones",
    "spirit_worlds",
    "protection",
    "baron_samedi",
    "ended_by",
    "round",
    "turn",
)


class _Position:
    """Builds `VoodooState.from_position`'s state: checks each part, then starts the turn."""

    def __init__(self, state: VoodooState, position: Mapping[str, Any]) -> None:
        self.state = s = state
        if not isinstance(position, Mapping):
            raise PositionError(f"a position is a mapping of {', '.join(POSITION_KEYS)}")
        unknown = sorted(set(position) - set(POSITION_KEYS))
        if unknown:
            raise PositionError(f"unknown position keys {unknown}; known: {list(POSITION_KEYS)}")
        self.position = position
        self.sides = [s.side_name(i) for i in range(len(s.scores))]
        self.players = list(s.loas)
        s.board = [[] for _ in range(SIZE * SIZE)]
        for cell, stack in self._mapping("columns", CELLS).items():
            if not isinstance(stack, list | tuple):
                raise PositionError(f"columns: {cell} must be a list of dice, bottom first")
            if len(stack) > MAX_STACK:
                raise PositionError(f"columns: {cell} holds {len(stack)} dice; at most 3 (BV-4)")
            s.board[INDEX[cell]] = [self._die(f"columns: {cell}", d) for d in stack]
        s.scores = self._per_side("scores", 0)
        s.offerings = self._per_side("offerings", START_OFFERINGS)
        zones = self._mapping("capture_zones", self.sides)
        spirits = self._mapping("spirit_worlds", self.sides)
        s.zones = [self._dice(f"capture_zones: {n}", zones.get(n, [])) for n in self.sides]
        s.spirits = [self._dice(f"spirit_worlds: {n}", spirits.get(n, [])) for n in self.sides]
        held = sum(s.offerings)
        s.reserve = self._count("reserve", max(RESERVE_TOTAL - held, 0))
        if s.reserve + held > RESERVE_TOTAL:
            raise PositionError(
                f"{held} Offerings held and {s.reserve} in the reserve: there are "
                f"{RESERVE_TOTAL} in all (BV-7)"
            )
        self._check_dice()
        protection = self._mapping("protection", self.players)
        for name, on in protection.items():
            if type(on) is not bool:
                raise PositionError(f"protection: {name} must be true or false, not {on!r}")
            s.protected[self.players.index(name)] = on
        s.samedi = self._player("baron_samedi", None)
        self._check_samedi()
        ender = self._player("ended_by", None)
        s.ending, s.ender = ender is not None, ender
        reached = [n for n, score in zip(self.sides, s.scores, strict=True) if score >= s.target()]
        if ender is not None:
            s.end_reason = "target" if reached else "no_capture"
        if reached and ender is None:
            raise PositionError(
                f"{', '.join(reached)} reached the target of {s.target()}, which triggers the "
                "end: say who triggered it in 'ended_by' (BV-11)"
            )
        mover = self._player("to_move", s.order[0])
        assert mover is not None
        s.round = self._count("round", 1, least=1)
        s.turn = self._count("turn", 1, least=1) - 1  # the turn starting counts itself
        s.pool = []
        s.setup_cell = SIZE * SIZE
        s.seat = s.order.index(mover)
        s.player = mover
        s._begin_turn()

    def _mapping(self, key: str, names: Sequence[str]) -> Mapping[str, Any]:
        value = self.position.get(key, {})
        if not isinstance(value, Mapping):
            raise PositionError(f"{key} must be a mapping, not {value!r}")
        unknown = [name for name in value if name not in names]
        if unknown:
            known = names if len(names) < 10 else [names[0], "...", names[-1]]
            raise PositionError(f"{key}: unknown {unknown}; known: {', '.join(known)}")
        return value

    def _per_side(self, key: str, default: int) -> list[int]:
        given = self._mapping(key, self.sides)
        values = [given.get(name, default) for name in self.sides]
        for name, value in zip(self.sides, values, strict=True):
            if type(value) is not int or value < 0:
                raise PositionError(f"{key}: {name} must be a whole number >= 0, not {value!r}")
        return values

    def _count(self, key: str, default: int, least: int = 0) -> int:
        value = self.position.get(key, default)
        if type(value) is not int or value < least:
            raise PositionError(f"{key} must be a whole number >= {least}, not {value!r}")
        return value

    def _player(self, key: str, default: int | None) -> int | None:
        name = self.position.get(key)
        if name is None:
            return default
        if name not in self.players:
            raise PositionError(f"{key}: {name!r} is not a seated Loa ({', '.join(self.players)})")
        return self.players.index(name)

    def _die(self, where: str, text: object) -> Die:
        colour, face = parse_die(str(text))
        if not isinstance(text, str) or colour not in COLOURS or face not in FACES:
            raise PositionError(
                f"{where}: {text!r} is no die; a die is colour:face with a colour of "
                f"{', '.join(COLOURS)} and a face of {', '.join(FACES)} (BV-2)"
            )
        return colour, face

    def _dice(self, where: str, dice: object) -> list[Die]:
        if not isinstance(dice, list | tuple):
            raise PositionError(f"{where} must be a list of dice, not {dice!r}")
        return [self._die(where, d) for d in dice]

    def _check_dice(self) -> None:
        """BV-1, BV-2: the set has one die for each coloured space of the board."""
        s = self.state
        have = Counter(c for stack in s.board for c, _ in stack)
        have += Counter(c for zone in [*s.zones, *s.spirits] for c, _ in zone)
        for colour in COLOURS:
            if have[colour] > s._setup_colours[colour]:
                raise PositionError(
                    f"{have[colour]} {colour} dice in the position; the set has "
                    f"{s._setup_colours[colour]} (BV-1, BV-2)"
                )

    def _check_samedi(self) -> None:
        s = self.state
        if s.samedi is None:
            return
        if s.teams:
            raise PositionError("baron_samedi: there is no Baron Samedi in team mode (BV-12)")
        whites = [sum(1 for c, _ in spirit if c == WHITE) for spirit in s.spirits]
        best = max(whites)
        if best > whites[s.samedi]:
            leader = whites.index(best)
            raise PositionError(
                f"baron_samedi: {self.players[s.samedi]} has {whites[s.samedi]} white dice in "
                f"their spirit world and {self.players[leader]} {best}: the token passes to "
                "strictly the most (BV-10)"
            )


# -- the game ---------------------------------------------------------------------------------


def _seated_loas(options: Mapping[str, Any]) -> tuple[str, ...]:
    teams = options["teams"]
    players = 4 if teams else options["players"]
    if teams and options["players"] not in (2, 4):
        raise ValueError(f"team mode is for 4 players, not {options['players']} (BV-3)")
    chosen = [name.strip() for name in str(options["loas"]).split(",") if name.strip()]
    if not chosen:
        return tuple(loa for loa, _ in LOAS[:players])
    by_colour = {colour: loa for loa, colour in LOAS}
    loas = tuple(by_colour.get(name, name) for name in chosen)
    known = [loa for loa, _ in LOAS]
    unknown = [name for name in loas if name not in known]
    if unknown or len(set(loas)) != len(loas) or len(loas) != players:
        raise ValueError(
            f"option 'loas' must name {players} different Loas (or colours) in seat order, "
            f"from {', '.join(known)}; not {options['loas']!r}"
        )
    return loas


# How the page draws the game (issue 20): each column's top die in its colour, showing its face
# (BV-2), with the column's height (BV-4); each Loa in its colour (BV-3).
LOOKS = Looks(
    tokens=(Look(r"(\w+):(\w+)", "die", colour="{1}", face="{2}"),),
    seats=tuple(colour for _, colour in LOAS),
    faces={
        "offering": "\u26b1",
        "point": "\u2605",
        "change": "\u21bb",
        "protection": "\u2602",
        "steal": "\u2702",
        "switch": "\u21c4",
    },
    stacks="columns",
    ground="board_colours",
)


class VoodooGame(Game):
    info = GameType(
        name="voodoo",
        title="Baron Voodoo",
        title_fr="Baron Vaudou",
        player_names=tuple(loa for loa, _ in LOAS),
        options=(
            Option("players", 2, "number of players", low=2, high=4, rule="BV-3"),
            Option("teams", False, "two teams of two (BV-3)", shown_with=("players", 4)),
            Option(
                "setup",
                "roll",
                "roll: the dice are rolled onto their spaces; place: laid in turn",
                choices=("roll", "place"),
            ),
            Option(
                "loas",
                "",
                'seat order, e.g. "red,yellow"; empty: the first Loas of BV-3',
                advanced=True,
            ),
            Option(
                "rules",
                "",
                "a rules file (board, points, targets); empty: the built-in one",
                advanced=True,
            ),
        ),
        profile="voodoo",
        guide="voodoo",
        palette=(
            Role("capturer", "#ff00c0"),
            Role("protected", "#4080ff"),
            Role("power", "#ffffff"),
            Role("last_capture", "#ff4000"),
            Role("target", "#ff00ff", "x"),
            # The Loas' colours: the dice's.
            Role("yellow", "#ffd000"),
            Role("turquoise", "#00d0c0"),
            Role("red", "#ff0010"),
            Role("purple", "#9000ff"),
            Role("white", "#c0c0c0"),
        ),
        dice_kinds=("soul",),
        icon_dice=(IconDice("soul", FACES, COLOURS),),  # BV-1, BV-2
        # BV-4: the camera sees the top die of each cell's column.
        board="soul",
        # Every public fact of the state, in JSON; players and sides go by name. A side is a
        # player, or a team "loa+loa" in team mode (BV-12). Dice are "colour:face".
        words=Path(__file__).with_name("voodoo.words.toml"),
        looks=LOOKS,
        details=(
            Detail(
                "turn",
                "turns begun so far, extra turns included (1 for the first turn).",
            ),
            Detail(
                "round",
                "the round under way: every player has one turn a round (BV-11).",
            ),
            Detail(
                "phase",
                '"setup_roll", "setup_pool", "setup_place", "start", "unlock", "capture", '
                '"steps", "gran_bwa" or "over" (the module docstring says what each is; '
                '"unlock" is a turn\'s start with no capture open, which a power must open, '
                "BV-5, BV-11).",
            ),
            Detail(
                "step",
                "the last optional step 1-5 taken this turn, 0 for none (BV-7).",
                inner=True,
            ),
            Detail(
                "to_move",
                "the player to decide, or None at a chance node or the end.",
            ),
            Detail(
                "turn_order",
                "the players in turn order (teams alternate in team mode, BV-12).",
            ),
            Detail(
                "target",
                "the score that triggers the end (BV-11).",
            ),
            Detail(
                "ending",
                "the end is triggered and the round is being finished (BV-11).",
            ),
            Detail(
                "ended_by",
                "the player who triggered the end, or None (BV-11; they win a tie).",
            ),
            Detail(
                "scores",
                "each side's points.",
            ),
            Detail(
                "offerings",
                "each side's Offerings.",
            ),
            Detail(
                "reserve",
                "Offerings left in the reserve (BV-7: 20 in all).",
            ),
            Detail(
                "capture_zones",
                "each side's captured dice, sorted.",
            ),
            Detail(
                "spirit_worlds",
                "each side's dice in its spirit world, sorted.",
            ),
            Detail(
                "protection",
                "for each player, whether their Protection is active (BV-8).",
            ),
            Detail(
                "baron_samedi",
                "the player holding the token, or None (BV-10).",
            ),
            Detail(
                "captured",
                "the die captured this turn (as its face now shows), or None.",
            ),
            Detail(
                "last_capture",
                'the spaces of the latest capture, {"from", "over", "to"}, or None.',
            ),
            Detail(
                "power_used",
                "a Loa power was used this turn (BV-7).",
                inner=True,
            ),
            Detail(
                "end_power_available",
                "the end-of-turn power is still open to the mover, since no power was used at"
                " the start (BV-7); whether they can pay for it is another matter.",
                inner=True,
            ),
            Detail(
                "gran_bwa_from",
                "the column that Gran Bwa is emptying die by die, or None (BV-6).",
                inner=True,
            ),
            Detail(
                "extra_turn_bought",
                "step 4 was taken this turn, so the same player plays next (BV-7).",
                inner=True,
            ),
            Detail(
                "extra_turn",
                "this turn is the extra one bought on the turn before.",
            ),
            Detail(
                "columns",
                "each non-empty space's dice, bottom first; the last is the top die (BV-4).",
            ),
            Detail(
                "board_colours",
                'each space\'s colour from the rules, "black" at the centre (BV-1).',
            ),
            Detail(
                "setup_space",
                "in set-up by rolling, the space the next die goes to, else None.",
                inner=True,
            ),
            Detail(
                "pool",
                "in set-up by placing, the rolled dice still to place, sorted.",
            ),
        ),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (
        SetupFace,
        PoolFace,
        Place,
        Jump,
        *POWER_ACTIONS,
        *STEP_KINDS,
    )
    turn_enders: ClassVar[tuple[type[Action], ...]] = (EndTurn,)

    def _new_state(self, options: Mapping[str, Any]) -> VoodooState:
        rules = load_rules(str(options["rules"]))
        return construct(VoodooState, options, rules, _seated_loas(options))

    def layout(self, state: GameState) -> Layout:
        """What the camera sees: each space's top die (BV-4)."""
        board = VoodooState.of(state).board
        return {CELLS[i]: token(s[-1]) for i, s in enumerate(board) if s}

    def lifted(self, state: GameState) -> Layout:
        board = VoodooState.of(state).board
        return {CELLS[i]: token(s[-2]) for i, s in enumerate(board) if len(s) >= 2}

    def lights(self, state: GameState) -> dict[str, str]:
        s = VoodooState.of(state)
        roles: dict[str, str] = {}
        if s.phase is Phase.OVER:
            seated = {s.colour_of(p) for p in range(s.num_players)}
            for i, stack in enumerate(s.board):
                if stack and stack[-1][0] in seated:
                    roles[CELLS[i]] = stack[-1][0]
            return roles
        if s.last_capture is not None:
            roles[CELLS[s.last_capture[1]]] = "last_capture"
        shielded = s.shielded()
        for i, stack in enumerate(s.board):
            if stack and stack[-1][0] in shielded:
                roles[CELLS[i]] = "protected"
        if s.phase in (Phase.START, Phase.CAPTURE):
            found = list(captures(s.board, s.colour_of(s.player), shielded))
            roles.update((CELLS[to], "landing") for _, to in found)
            # A die that can capture shows so even where another die could land on it.
            roles.update((CELLS[frm], "capturer") for frm, _ in found)
        if s.phase is Phase.GRAN_BWA and s.bwa_from is not None:
            roles[CELLS[s.bwa_from]] = "power"
            # Only where the next die may go: at the turn's start, where a capture is left.
            for move in s._leaving_capture(s._gran_bwa()):
                assert isinstance(move, GranBwa)
                roles[move.to] = "power"
        return roles

    def board_rows(self) -> list[list[str]]:
        return [list(CELLS[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]

    def spots(self) -> dict[str, str]:
        return dict.fromkeys(CELLS, "camera")

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        s = VoodooState.of(state)
        if s.phase is Phase.SETUP_POOL:
            remaining = sum(s._setup_colours.values()) - len(s.pool)
            return DiceRequest("soul", remaining, FACES)
        return None

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        wanted = self.dice_wanted(state)
        if wanted is None:
            raise IllegalActionError("no dice roll is expected now: dice are read on the board")
        bad = [v for v in reading if v not in FACES]
        if bad or not 1 <= len(reading) <= wanted.count:
            raise IllegalActionError(
                f"1 to {wanted.count} soul dice faces ({', '.join(FACES)}) are wanted, "
                f"not {list(reading)}"
            )
        return [PoolFace(str(v)) for v in reading]

    def describe(self, state: GameState) -> JSON:
        """The public facts of the position: the fields of `info.details`, in that order."""
        s = VoodooState.of(state)
        sides = range(len(s.scores))
        player = s.current_player()
        last = s.last_capture
        return {
            "turn": s.turn,
            "round": s.round,
            "phase": UNLOCK
            if s.phase is Phase.START and not s._capture_actions()
            else s.phase.value,
            "step": s.step,
            "to_move": s.player_name(player) if player >= 0 else None,
            "turn_order": [s.player_name(p) for p in s.order],
            "target": s.target(),
            "ending": s.ending,
            "ended_by": None if s.ender is None else s.player_name(s.ender),
            "scores": {s.side_name(i): s.scores[i] for i in sides},
            "offerings": {s.side_name(i): s.offerings[i] for i in sides},
            "reserve": s.reserve,
            "capture_zones": {s.side_name(i): sorted(map(token, s.zones[i])) for i in sides},
            "spirit_worlds": {s.side_name(i): sorted(map(token, s.spirits[i])) for i in sides},
            "protection": {s.player_name(p): s.protected[p] for p in range(s.num_players)},
            "baron_samedi": None if s.samedi is None else s.player_name(s.samedi),
            "captured": None if s.captured is None else token(s.captured),
            "last_capture": None
            if last is None
            else {"from": CELLS[last[0]], "over": CELLS[last[1]], "to": CELLS[last[2]]},
            "power_used": s.power_used,
            "end_power_available": s.end_power_available(),
            "gran_bwa_from": None if s.bwa_from is None else CELLS[s.bwa_from],
            "extra_turn_bought": s.extra_bought,
            "extra_turn": s.extra_turn,
            "columns": {
                CELLS[i]: [token(d) for d in stack] for i, stack in enumerate(s.board) if stack
            },
            "board_colours": {
                CELLS[i]: colour or "black" for i, colour in enumerate(s.rules.colours)
            },
            "setup_space": CELLS[s.setup_cell] if s.phase is Phase.SETUP_ROLL else None,
            "pool": sorted(map(token, s.pool)),
        }

    def pointing(self, state: GameState, action: Action) -> tuple[str, str | None] | None:
        # The die that moves, not one alike beneath it or jumped over (BV-5, BV-6).
        if isinstance(action, Jump | GranBwa | PapaLegba):
            return action.frm, action.to
        if isinstance(action, ErzulieFreda):
            return action.first, action.second
        return None

    def result(self, state: GameState) -> JSON | None:
        summary = super().result(state)
        s = VoodooState.of(state)
        if summary is not None:
            summary["scores"] = {s.side_name(i): n for i, n in enumerate(s.scores)}
            summary["end_bonus"] = {s.side_name(i): n for i, n in enumerate(s.end_bonus or [])}
            summary["ended_by"] = None if s.ender is None else s.player_name(s.ender)
            summary["ended"] = s.end_reason  # BV-11: why, said with the result
        return summary

    def evaluate(self, state: GameState) -> list[float]:
        """For a search: each side's score, and half a point a die for its capture zone, which
        scores at the end (BV-11); a lead of 6 is a good one."""
        s = VoodooState.of(state)
        sides = [score + len(zone) / 2 for score, zone in zip(s.scores, s.zones, strict=True)]
        by_side = leads(sides, 6.0)
        return [by_side[s.side_of(p)] for p in range(s.num_players)]


GAME = VoodooGame()
VoodooState.game = GAME
