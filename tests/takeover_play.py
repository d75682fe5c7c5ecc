"""Helpers shared by the Hostile Takeover tests: maps drawn as text, positions and set-ups.

A map is drawn as rows of one character per cell, from r0c0 (spaces are ignored, and rows
shorter than the grid are padded with holes):

    .  a hole (no tile)               o  an empty tile cell
    s  a small building               L  a large building cell: each L pairs with the next L to
                                         its right, else with the L below it
    R B G Y  the spawn of red, blue, green or yellow (an empty tile cell), its pawn on it
    r b g y  the pawn of red, blue, green or yellow standing elsewhere (its spawn is then its
             capital letter, or given by `spawns`)

Buildings are numbered in reading order of their first cell, which is the order in which
`set_up` places them; `owners` and `points` name a building by any of its cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.rules.api import Action
from controller.rules.takeover import (
    COLOURS,
    FULL_POINTS,
    GAME,
    LIVES,
    SUPPLY,
    TILES,
    Building,
    Displace,
    Grid,
    Move,
    Phase,
    PlaceLarge,
    PlaceSmall,
    PlaceSpawn,
    PlaceTile,
    Roll,
    TakeoverState,
    map_problems,
)

Step = Action | Sequence[Action]
SIZE = int(GAME.default_options["size"])
LETTERS = "RBGY"  # COLOURS, in seat order
HOLE, EMPTY, SMALL, LARGE = ".", "o", "s", "L"


@dataclass
class Drawing:
    """A map read from text: cell indices on a grid of `size`."""

    size: int
    tiles: set[int] = field(default_factory=set)
    buildings: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    spawns: dict[int, int] = field(default_factory=dict)  # player -> cell
    pawns: dict[int, int] = field(default_factory=dict)  # player -> cell, off the spawn


def parse(board: str, size: int = SIZE) -> Drawing:
    """Read a drawn map (see the module docstring)."""
    rows = [line.replace(" ", "") for line in board.strip().splitlines() if line.strip()]
    if len(rows) > size or any(len(row) > size for row in rows):
        raise ValueError(f"a map wider or taller than the {size}x{size} grid: {board!r}")
    drawing = Drawing(size)
    large: list[int] = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            cell = r * size + c
            if char == HOLE:
                continue
            drawing.tiles.add(cell)
            if char == SMALL:
                drawing.buildings.append(("small", (cell,)))
            elif char == LARGE:
                large.append(cell)
            elif char.upper() in LETTERS:
                player = LETTERS.index(char.upper())
                where = drawing.spawns if char.isupper() else drawing.pawns
                if player in where:
                    raise ValueError(f"two {char!r} in the map")
                where[player] = cell
            elif char != EMPTY:
                raise ValueError(f"bad map character {char!r} in {board!r}")
    paired: set[int] = set()
    for cell in large:
        if cell in paired:
            continue
        right, below = cell + 1, cell + size
        if right % size and right in large and right not in paired:
            other = right
        elif below in large and below not in paired:
            other = below
        else:
            raise ValueError(f"a lone large building cell {Grid(size).names[cell]}")
        paired |= {cell, other}
        drawing.buildings.append(("large", (cell, other)))
    drawing.buildings.sort(key=lambda b: b[1][0])
    return drawing


def drawn(state: TakeoverState, *, spawns: bool = True) -> str:
    """The map as text: the inverse of `parse`, trailing holes left off each row.

    Claimed buildings are drawn like unclaimed ones; a pawn off its spawn is its small letter
    (and hides a spawn under it).
    """
    size = state.grid.size
    chars = [HOLE if c not in state.tiles else EMPTY for c in range(size * size)]
    for b in state.buildings:
        for c in b.cells:
            chars[c] = SMALL if b.size == "small" else LARGE
    if spawns:
        for p, c in enumerate(state.spawns):
            if c is not None:
                chars[c] = LETTERS[p]
        for p, c in enumerate(state.pawns):
            if c is not None and c != state.spawns[p]:
                chars[c] = LETTERS[p].lower()
    rows = ["".join(chars[r * size : (r + 1) * size]).rstrip(HOLE) for r in range(size)]
    while rows and not rows[-1]:
        rows.pop()
    return "\n".join(rows)


def rows(text: str) -> str:
    """A drawn map written in a test, in the form `drawn` gives."""
    return "\n".join(
        line.replace(" ", "").rstrip(HOLE) for line in text.strip().splitlines() if line.strip()
    )


def new_state(players: int = 2, size: int = SIZE) -> TakeoverState:
    state = GAME.new_initial_state({"players": players, "size": size})
    assert isinstance(state, TakeoverState)
    return state


def play(state: TakeoverState, *steps: Step) -> TakeoverState:
    """Apply actions, or lists of actions, in order."""
    for step in steps:
        for action in [step] if isinstance(step, Action) else step:
            state.apply(action)
    return state


def rolls(*values: int) -> list[Roll]:
    return [Roll(v) for v in values]


def cell(state: TakeoverState, name: str) -> int:
    return state.grid.index[name]


def name(state: TakeoverState, index: int | None) -> str | None:
    return None if index is None else state.grid.names[index]


def building(state: TakeoverState, at: str) -> int:
    """The number of the building covering cell `at`."""
    return state.building_at[cell(state, at)]


def position(
    board: str,
    *,
    players: int = 2,
    size: int = SIZE,
    to_move: int = 0,
    first: int = 0,
    phase: Phase = Phase.TURN,
    spawns: Mapping[int, str] | None = None,
    pawns: Mapping[int, str | None] | None = None,
    lives: Sequence[int] | None = None,
    owners: Mapping[str, int] | None = None,
    points: Mapping[str, int] | None = None,
    supply: Mapping[str, int] | None = None,
    turn: int = 1,
    legal_map: bool = True,
) -> TakeoverState:
    """A state with the drawn map, its fields set directly, then checked for consistency.

    In `Phase.TURN` (the default) set-up is over: `to_move` is to play, each player has a spawn
    and, unless out of lives, a pawn; the supply is spent. In `Phase.BUILDINGS` or
    `Phase.SPAWNS`, `to_move` is the placer (spawns already placed carry their pawns); the
    supply defaults to what the drawn buildings leave of HT-2's. A drawn map need not be 20
    tiles: only what a test needs is drawn.
    """
    state = new_state(players, size)
    drawing = parse(board, size)
    names = state.grid.index
    state.tiles = set(drawing.tiles)
    state.tiles_placed = TILES
    for kind, cells in drawing.buildings:
        state.building_at.update(dict.fromkeys(cells, len(state.buildings)))
        state.buildings.append(Building(kind, cells, None, FULL_POINTS[kind]))
    for at, player in (owners or {}).items():
        state.buildings[building(state, at)].owner = player
    for at, value in (points or {}).items():
        state.buildings[building(state, at)].points = value
    placed = {k: sum(1 for kind, _ in drawing.buildings if kind == k) for k in SUPPLY}
    if supply is not None:
        state.supply = dict(supply)
    elif phase is Phase.BUILDINGS:
        state.supply = {k: SUPPLY[k] - placed[k] for k in SUPPLY}
    else:
        state.supply = dict.fromkeys(SUPPLY, 0)
    state.lives = list(lives) if lives is not None else [LIVES] * players
    for p, at in drawing.spawns.items():
        state.spawns[p] = at
    for p, text in (spawns or {}).items():
        state.spawns[p] = names[text]
    if any(p >= players for p in [*drawing.spawns, *drawing.pawns]):
        raise ValueError(f"a spawn or pawn for a player beyond the {players} in {board!r}")
    for p in range(players):
        if phase in (Phase.TURN, Phase.SPAWNS) and state.lives[p] > 0:
            state.pawns[p] = drawing.pawns.get(p, state.spawns[p])
        elif p in drawing.pawns:
            raise ValueError(f"a pawn for {COLOURS[p]}, who has none here")
    for p, where in (pawns or {}).items():
        state.pawns[p] = None if where is None else names[where]
    state.phase = phase
    state.first = first
    state.player = to_move
    state.turn = turn if phase is Phase.TURN else 0
    state.rollers, state.rolls = [], {}
    problems = consistency_problems(state)
    if legal_map and (bad := map_problems(state.tiles, state.buildings, state.grid)):
        problems.append(f"HT-3: an illegal map at {[state.grid.names[c] for c in bad]}")
    assert not problems, problems
    return state


def consistency_problems(state: TakeoverState) -> list[str]:
    """What is wrong with a state whose fields were set by hand (or by the engine)."""
    found: list[str] = []
    grid, names = state.grid, state.grid.names
    if not state.tiles <= set(range(grid.size**2)):
        found.append("a tile cell off the grid")
    covered: dict[int, int] = {}
    for k, b in enumerate(state.buildings):
        if b.size not in FULL_POINTS or len(b.cells) != {"small": 1, "large": 2}[b.size]:
            found.append(f"building {k} has the wrong shape")
        if b.size == "large" and b.cells[1] not in grid.edges[b.cells[0]]:
            found.append(f"HT-2: large building {k} on cells that share no edge")
        if not set(b.cells) <= state.tiles:
            found.append(f"building {k} off the tiles")
        if not 1 <= b.points <= FULL_POINTS.get(b.size, 0):
            found.append(f"building {k} has {b.points} points")
        if b.owner is not None and not 0 <= b.owner < state.players:
            found.append(f"building {k} owned by {b.owner}")
        for c in b.cells:
            if c in covered:
                found.append(f"buildings {covered[c]} and {k} both on {names[c]}")
            covered[c] = k
    if covered != state.building_at:
        found.append("building_at does not match the buildings")
    if min(state.supply.values()) < 0:
        found.append(f"a negative supply {state.supply}")
    empty = state.empty_cells()
    large = {c for b in state.buildings if b.size == "large" for c in b.cells}
    spawned = [c for c in state.spawns if c is not None]
    if len(set(spawned)) != len(spawned):
        found.append("two spawns on one cell")
    for p, c in enumerate(state.spawns):
        if c is None:
            if state.phase not in (Phase.FIRST_ROLL, Phase.TILES, Phase.BUILDINGS, Phase.SPAWNS):
                found.append(f"{COLOURS[p]} has no spawn")
        elif c not in empty:
            found.append(f"HT-4: {COLOURS[p]}'s spawn is not on an empty tile cell")
        elif any(n in large for n in grid.around[c]):
            found.append(f"HT-4: {COLOURS[p]}'s spawn touches a large building")
    standing = [c for c in state.pawns if c is not None]
    if len(set(standing)) != len(standing):
        found.append("two pawns on one cell")
    for p, c in enumerate(state.pawns):
        if not 0 <= state.lives[p] <= LIVES:
            found.append(f"{COLOURS[p]} has {state.lives[p]} lives")
        if c is not None and c not in empty:
            found.append(f"{COLOURS[p]}'s pawn is not on an empty tile cell")
        if state.lives[p] == 0 and c is not None:
            found.append(f"HT-6: {COLOURS[p]} is out but still has a pawn")
        playing = state.phase in (Phase.TURN, Phase.CLAIM_ROLL, Phase.ATTACK_ROLL)
        if playing and state.lives[p] > 0 and c is None:
            found.append(f"{COLOURS[p]} is playing without a pawn")
    if state.phase is Phase.TURN and state.lives[state.player] == 0:
        found.append(f"{COLOURS[state.player]} is out but to move")
    return found


# -- driving the set-up ---------------------------------------------------------------------

# 20 tiles edge to edge in a block of 8 rows and 10 columns, placed in reading order.
BLOCK_TILES = tuple(f"r{r}c{c}" for r in (0, 2, 4, 6) for c in (0, 2, 4, 6, 8))

# The block with 10 small and 5 large buildings, legal at each placement in reading order,
# and four spawns well away from the large buildings.
BLOCK_MAP = """
    o o o o o o o o o s
    o s o L L o o s o G
    o L L o o s o o o o
    s o o o o o s o L o
    o R o o o s o o L o
    o o o L o o o o o o
    o s o L o B o s o o
    s o o o o o Y o L L
"""


def building_actions(board: str, size: int = SIZE) -> list[Action]:
    """The placements of the drawn buildings, in reading order."""
    names = Grid(size).names
    found: list[Action] = []
    for kind, cells in parse(board, size).buildings:
        if kind == "small":
            found.append(PlaceSmall(names[cells[0]]))
        else:
            found.append(PlaceLarge(names[cells[0]], names[cells[1]]))
    return found


def spawn_actions(board: str, first: int, players: int, size: int = SIZE) -> list[Action]:
    """The drawn spawns, placed from the first player clockwise (HT-4)."""
    spawns = parse(board, size).spawns
    names = Grid(size).names
    return [PlaceSpawn(names[spawns[(first + k) % players]]) for k in range(players)]


def first_rolls(first: int, players: int) -> list[Roll]:
    """Rolls, in seat order, that make `first` the first player at once."""
    return [Roll(12 if p == first else 1) for p in range(players)]


def set_up(
    players: int = 2,
    *,
    first: int = 0,
    board: str = BLOCK_MAP,
    tiles: Iterable[str] = BLOCK_TILES,
    size: int = SIZE,
) -> TakeoverState:
    """A game set up through the engine: the first roll, 20 tiles, 15 buildings, the spawns."""
    state = new_state(players, size)
    play(state, first_rolls(first, players))
    play(state, [PlaceTile(c) for c in tiles])
    play(state, building_actions(board, size))
    play(state, spawn_actions(board, first, players, size))
    assert state.phase is Phase.TURN
    assert not consistency_problems(state)
    return state


# -- reading a state ------------------------------------------------------------------------


def ids(state: TakeoverState, kind: type[Action] | None = None) -> list[str]:
    """The ids of the legal actions, or of those of one kind."""
    return [a.id for a in state.legal_actions() if kind is None or isinstance(a, kind)]


def legal(state: TakeoverState, kind: type[Action]) -> list[Action]:
    return [a for a in state.legal_actions() if isinstance(a, kind)]


def cells_of(state: TakeoverState, kind: type[Action]) -> set[str]:
    """The cells named by the legal actions of one kind (Move, PlaceSpawn, PlaceTile...)."""
    found: set[str] = set()
    for action in legal(state, kind):
        assert isinstance(action, Move | PlaceTile | PlaceSmall | PlaceSpawn | Displace)
        found.add(action.cell)
    return found


def phase(state: TakeoverState) -> Phase:
    """The phase, read through a call so that type checkers do not narrow it between steps."""
    return state.phase


def pawn(state: TakeoverState, player: int) -> str | None:
    return name(state, state.pawns[player])


def snapshot(state: TakeoverState) -> dict[str, Any]:
    """Everything the rules keep, for comparing states."""
    facts = dict(GAME.describe(state))
    facts["map"] = drawn(state)
    facts["tiles"] = sorted(state.tiles)
    facts["pawns"] = list(state.pawns)
    facts["spawns"] = list(state.spawns)
    facts["supply"] = dict(state.supply)
    facts["player"] = state.current_player()
    facts["roller"] = state.roller()
    facts["fields"] = (state.first, state.rollers, state.rolls, state.target, state.attack_roll)
    facts["combat"] = (state.combat_after, state.returning, state.winners, state.final_scores)
    facts["history"] = state.history()
    facts["legal"] = [a.id for a in state.legal_actions()]
    return facts


def neighbours(state: TakeoverState, at: str) -> set[str]:
    """The names of the 8 cells around `at` on the grid."""
    return {state.grid.names[n] for n in state.grid.around[cell(state, at)]}
