"""Hostile Takeover (`hostile-takeover.txt`, clarifications HT-1 to HT-6).

The map is a square grid of cells, indexed r * size + c and named "r{r}c{c}". Set-up is a chain
of decisions: the roll for the first player, 20 tiles placed clockwise (HT-1), 15 unclaimed
buildings placed counter-clockwise from the last tile placer (HT-2, HT-3), then a spawn for each
player (HT-4). Play is one action per turn (HT-5) until one player is left (HT-6).

`TakeoverGame.describe` gives the whole public state; `check_map` is HT-3 on a map given as
plain cell names. A large building is listed once, top or left cell first, and taken either way.
"""

from __future__ import annotations

import enum
import functools
import random
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    PRESENT,
    REED,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    IllegalActionError,
    Layout,
    Problem,
    construct,
    leads,
)
from controller.rules.game_type import (
    KIT,
    Detail,
    GameType,
    IconDice,
    Look,
    Looks,
    MapPiece,
    Option,
    Role,
)

COLOURS = ("red", "blue", "green", "yellow")
TILES = 20  # HT-1
TILE = 2
# On smaller grids, tiles placed as HT-1 allows can leave no room for all 20 (seen on 10x10 in
# most random set-ups, on 11x11 in about 1 in 70); on 12x12, never in thousands of them.
MIN_SIZE = 12
DEFAULT_SIZE = 12  # the table's grid
SUPPLY = {"small": 10, "large": 5}  # HT-2: unclaimed buildings placed at set-up
FULL_POINTS = {"small": 10, "large": 25}  # HT-2
SCORE = {"small": 1, "large": 3}  # HT-6
LAST_PLAYER_BONUS = 5  # HT-6
LIVES = 3  # HT-6
D12 = tuple(range(1, 13))
NEIGHBOURS_8 = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
EDGES_4 = ((-1, 0), (1, 0), (0, -1), (0, 1))
# In a 4x4 box (`Grid.box`, bit 4 * row + column) whose cell 1, 1 is a building's first cell:
# the cells around a small one, a large one to the right, and a large one below.
SMALL_NEAR = 0x757
RIGHT_NEAR = 0xF9F
DOWN_NEAR = 0x7557
PAIR = 1024  # a pair of cells a, b as one int: a * PAIR + b
SAMPLE_TRIES = 64  # building placements drawn at random before listing them (`sample`)


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll(Action):
    """Chance: the d12 of the player rolling now (first player, a claim, or a combat)."""

    value: int


@dataclass(frozen=True)
class PlaceTile(Action):
    """HT-1: a 2x2 tile whose top-left cell is `cell`."""

    cell: str


@dataclass(frozen=True)
class PlaceSmall(Action):
    """HT-2: an unclaimed small building on one cell."""

    cell: str


@dataclass(frozen=True)
class PlaceLarge(Action):
    """HT-2: an unclaimed large building on two cells sharing an edge.

    The same building either way round: the legal actions name it one way, `second` right of
    or below `first`, and the state takes the other way too, turning it round (`canonical`).
    """

    first: str
    second: str


@dataclass(frozen=True)
class PlaceSpawn(Action):
    """HT-4: the player's spawn, with their pawn on it."""

    cell: str


@dataclass(frozen=True)
class Move(Action):
    """HT-5: the pawn moves to a neighbouring cell, or around one of the player's buildings."""

    cell: str


@dataclass(frozen=True)
class Claim(Action):
    """HT-5: attempt to claim a touching building (numbered in placement order)."""

    building: int


@dataclass(frozen=True)
class Attack(Action):
    """HT-5: declare combat on a touching pawn."""

    target: str


@dataclass(frozen=True)
class Displace(Action):
    """HT-5: a pawn standing on a loser's spawn steps to a free neighbouring cell."""

    cell: str


@dataclass(frozen=True)
class Pass(Action):
    """Only when a pawn can neither move, claim nor fight: the turn goes on."""


class Phase(enum.Enum):
    FIRST_ROLL = "first_roll"
    TILES = "tiles"
    BUILDINGS = "buildings"
    SPAWNS = "spawns"
    TURN = "turn"
    CLAIM_ROLL = "claim_roll"
    ATTACK_ROLL = "attack_roll"
    DEFEND_ROLL = "defend_roll"
    DISPLACE = "displace"
    OVER = "over"


# The phases of a roll, in which no player decides; in the others but the end, the state's
# player does. A tuple: a phase is found in it by identity, without hashing the enum.
ROLLS = (Phase.FIRST_ROLL, Phase.CLAIM_ROLL, Phase.ATTACK_ROLL, Phase.DEFEND_ROLL)
# Each d12 outcome, made once: offered at every roll, and checked when one is played.
ROLL_OUTCOMES = tuple((Roll(v), 1 / 12) for v in D12)
ROLL_ACTIONS = tuple(roll for roll, _ in ROLL_OUTCOMES)
ATTACKS = tuple(Attack(colour) for colour in COLOURS)
PASS = Pass()


@functools.cache
def claim_of(building: int) -> Claim:
    """The claim of a building, made once: offered on most turns."""
    return Claim(building)


@dataclass
class Building:
    size: str
    cells: tuple[int, ...]
    owner: int | None = None
    points: int = 0


# -- the map (HT-1, HT-3) -----------------------------------------------------------------------


class Grid:
    """Cell arithmetic on a size x size grid.

    A set of cells can also be a bitmask: cell r, c is bit (r + 1) * stride + c + 1, with
    stride = size + 2, so that a mask has an empty border all round and a shift by one row or
    one column never wraps into another row. Flooding such masks is far quicker than a search.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.names = tuple(f"r{i // size}c{i % size}" for i in range(size * size))
        self.index = {name: i for i, name in enumerate(self.names)}
        self.around = tuple(self._step(i, NEIGHBOURS_8) for i in range(size * size))
        self.edges = tuple(self._step(i, EDGES_4) for i in range(size * size))
        self.stride = size + 2
        self.bits = tuple(
            1 << ((i // size + 1) * self.stride + i % size + 1) for i in range(size * size)
        )
        self.around_bits = tuple(self.mask(cells) for cells in self.around)
        self.around_set = tuple(frozenset(cells) for cells in self.around)
        self.row_col = tuple(divmod(i, size) for i in range(size * size))
        self._one_group: dict[int, bool] = {}  # 4x4 boxes (`box`): one group?
        # A building's right or lower partner for each cell (HT-2): each pair listed once.
        self.partners = tuple(
            tuple(j for j in (i + 1, i + size) if j in self.edges[i]) for i in range(size * size)
        )
        # Each tile's cells, as a mask, and the mask of the cells sharing an edge with them
        # (HT-1): checked for every corner at each of the 20 tile placements.
        self.tiles_at = tuple(self._tile_cells(i) for i in range(size * size))
        self.tile_bits = tuple(self.mask(cells or ()) for cells in self.tiles_at)
        self.tile_edge_bits = tuple(
            self.mask(n for c in cells or () for n in self.edges[c]) for cells in self.tiles_at
        )
        # Each action naming a cell, made once: listing them is most of what random play and
        # search do, and building placements are the slowest decision of set-up.
        self.tile_places = tuple(PlaceTile(name) for name in self.names)
        self.small_places = tuple(PlaceSmall(name) for name in self.names)
        self.spawn_places = tuple(PlaceSpawn(name) for name in self.names)
        self.moves = tuple(Move(name) for name in self.names)
        self.displaces = tuple(Displace(name) for name in self.names)
        self.large_places = {
            (i, j): PlaceLarge(self.names[i], self.names[j])
            for i in range(size * size)
            for j in (i + 1, i + size)
            if j in self.edges[i]
        }

    def mask(self, cells: Iterable[int]) -> int:
        bits = self.bits
        mask = 0
        for cell in cells:
            mask |= bits[cell]
        return mask

    def flood(self, seed: int, mask: int, until: int = 0) -> int:
        """The bits of `mask` 8-connected to those of `seed`, itself within `mask`; the flood
        stops early, with part of the region, once it holds all of `until` (if given)."""
        stride = self.stride
        region = seed
        while True:
            wide = region | region << 1 | region >> 1
            grown = (wide | wide << stride | wide >> stride) & mask
            if grown == region or (until and grown & until == until):
                return grown
            region = grown

    def connected(self, cells: set[int]) -> bool:
        """One 8-connected region (or none)."""
        mask = self.mask(cells)
        return not mask or self.flood(mask & -mask, mask) == mask

    def box(self, rows: Sequence[int], cell: int) -> int:
        """The 4x4 box of cells whose top-left is one row and one column before `cell`, as 16
        bits (bit 4 * row + column), from the cells of each row given as bits (`row_bits`).

        Small ints: compiled, their operations are native, where a mask of the map's 196 bits
        allocates at each one."""
        r, col = self.row_col[cell]
        return (
            (rows[r] >> col & 15)
            | (rows[r + 1] >> col & 15) << 4
            | (rows[r + 2] >> col & 15) << 8
            | (rows[r + 3] >> col & 15) << 12
        )

    def row_bits(self, cells: Iterable[int]) -> list[int]:
        """Each row's cells as bits, column c at bit c + 1, after a row of none and with two
        more at the end: the layout `box` reads."""
        rows = [0] * (self.size + 3)
        for cell in cells:
            r, col = self.row_col[cell]
            rows[r + 1] |= 2 << col
        return rows

    def one_group(self, box: int) -> bool:
        """Whether a 4x4 box (`box`) is one 8-connected group by itself (or empty). Such boxes
        are the empty cells around a building: remembered for each."""
        known = self._one_group.get(box)
        if known is None:
            cells = {(b >> 2, b & 3) for b in range(16) if box >> b & 1}
            todo = [min(cells)] if cells else []
            seen = set(todo)
            while todo:
                r, c = todo.pop()
                near = {(r + dr, c + dc) for dr, dc in NEIGHBOURS_8} & cells
                todo += near - seen
                seen |= near
            known = self._one_group[box] = seen == cells
        return known

    def _step(self, i: int, deltas: Iterable[tuple[int, int]]) -> tuple[int, ...]:
        r, c = divmod(i, self.size)
        return tuple(
            (r + dr) * self.size + c + dc
            for dr, dc in deltas
            if 0 <= r + dr < self.size and 0 <= c + dc < self.size
        )

    def tile_cells(self, corner: int) -> tuple[int, ...] | None:
        """The cells of a tile with this top-left corner, None if it would leave the grid."""
        return self.tiles_at[corner]

    def _tile_cells(self, corner: int) -> tuple[int, ...] | None:
        r, c = divmod(corner, self.size)
        if r + TILE > self.size or c + TILE > self.size:
            return None
        return tuple((r + dr) * self.size + c + dc for dr in range(TILE) for dc in range(TILE))


@functools.cache
def grid_of(size: int) -> Grid:
    """The grid of a size, shared by every state (it never changes but for its memo)."""
    return Grid(size)


def components(cells: set[int], grid: Grid) -> list[list[int]]:
    """8-connected components, each sorted, in order of their first cell."""
    seen: set[int] = set()
    found = []
    for start in sorted(cells):
        if start in seen:
            continue
        seen.add(start)
        part, queue = [start], deque([start])
        while queue:
            for n in grid.around[queue.popleft()]:
                if n in cells and n not in seen:
                    seen.add(n)
                    part.append(n)
                    queue.append(n)
        found.append(sorted(part))
    return found


def map_problems(tiles: set[int], buildings: Iterable[Building], grid: Grid) -> list[int]:
    """HT-3: the first offending cells of a map, [] if it is legal.

    Either the empty tile cells outside the first 8-connected region, or the cells of the
    first building that touches no empty tile cell.
    """
    built = [b for b in buildings]
    covered = {cell for b in built for cell in b.cells}
    empty = tiles - covered
    parts = components(empty, grid)
    if len(parts) > 1:
        return sorted(cell for part in parts[1:] for cell in part)
    for building in built:
        if not any(n in empty for cell in building.cells for n in grid.around[cell]):
            return sorted(building.cells)
    return []


class MapError(ValueError):
    """A map description that is no map: see `check_map`."""


def check_map(
    tile_cells: Iterable[str], buildings: Iterable[Sequence[str]], size: int = DEFAULT_SIZE
) -> list[str]:
    """HT-3 on a map given as plain values: the names of its first offending cells, [] if legal.

    `tile_cells` names every cell that a tile covers ("r0c0", ...); `buildings` gives each
    building as the names of its cells: one for a small building, two sharing an edge for a
    large one (HT-2). The offending cells are those `map_problems` finds: the empty tile cells
    cut off from the first 8-connected region, or else the cells of the first building that
    touches no empty tile cell. A description that is no map on a `size` x `size` grid raises
    MapError: a name off the grid, a building of another shape or off the tiles, or two
    buildings on one cell.

    >>> check_map(["r0c0", "r0c1", "r1c0", "r1c1"], [["r0c0"], ["r1c0", "r1c1"]])
    []
    >>> check_map(["r0c0", "r0c1", "r1c0", "r1c1"], [["r0c0", "r0c1"], ["r1c0", "r1c1"]])
    ['r0c0', 'r0c1']
    """
    if not MIN_SIZE <= size <= 16:
        raise MapError(f"a map is {MIN_SIZE} to 16 cells a side, not {size}")
    grid = grid_of(size)

    def cell(name: object) -> int:
        if not isinstance(name, str) or name not in grid.index:
            raise MapError(
                f"{name!r} is no cell of the {size}x{size} grid (r0c0 to {grid.names[-1]})"
            )
        return grid.index[name]

    tiles = {cell(name) for name in tile_cells}
    placed: list[Building] = []
    covered: dict[int, int] = {}
    for k, names in enumerate(buildings):
        if isinstance(names, str):
            raise MapError(f"building {k}: a list of cell names, not {names!r}")
        cells = tuple(sorted(cell(name) for name in names))
        if len(cells) == 1:
            size_name = "small"
        elif len(cells) == 2 and cells[1] in grid.edges[cells[0]]:
            size_name = "large"
        else:
            raise MapError(
                f"building {k} on {list(names)}: a building is 1 cell, or 2 sharing an edge (HT-2)"
            )
        off = [grid.names[c] for c in cells if c not in tiles]
        if off:
            raise MapError(f"building {k} is off the tiles at {', '.join(off)} (HT-2)")
        for c in cells:
            if c in covered:
                raise MapError(f"buildings {covered[c]} and {k} both cover {grid.names[c]}")
            covered[c] = k
        placed.append(Building(size_name, cells))
    return [grid.names[c] for c in map_problems(tiles, placed, grid)]


def _stays_connected(empty: set[int], removed: Sequence[int], grid: Grid) -> bool:
    """Whether `empty` less `removed` is still one 8-connected region (it is one now).

    When the empty cells around the removed ones form one group within their surrounding box,
    nothing is split; only other cases need a search of the whole map.
    """
    left = empty - set(removed)
    around = {n for cell in removed for n in grid.around[cell] if n in left}
    if len(components(around, grid)) <= 1:
        return True
    return grid.connected(left)


# -- the state --------------------------------------------------------------------------------


class _MapView:
    """What pawns look up on a map (HT-5): for each cell, the empty tile cells around it (and
    the moves to them) and the buildings it touches (by number, in order); for each building,
    the empty tile cells around it. Made for a map of given tiles and buildings, which it keeps
    to be checked."""

    def __init__(self, state: TakeoverState) -> None:
        self.tiles, self.building_at = state.tiles, state.building_at
        self.sizes = (len(state.tiles), len(state.building_at), len(state.buildings))
        around, at = state.grid.around, state.building_at
        empty = state.empty_cells()
        self.empty_around = tuple(tuple(n for n in near if n in empty) for near in around)
        moves = state.grid.moves
        self.moves_around: tuple[tuple[Action, ...], ...] = tuple(
            tuple(moves[n] for n in cells) for cells in self.empty_around
        )
        self.touching = tuple(tuple(sorted({at[n] for n in near if n in at})) for near in around)
        self.ring = tuple(
            tuple(sorted({n for c in b.cells for n in around[c] if n in empty}))
            for b in state.buildings
        )
        self.ring_set = tuple(frozenset(cells) for cells in self.ring)

    def fits(self, state: TakeoverState) -> bool:
        tiles, at, buildings = self.sizes
        return (
            self.tiles is state.tiles
            and self.building_at is state.building_at
            and tiles == len(state.tiles)
            and at == len(state.building_at)
            and buildings == len(state.buildings)
        )


class _CutMemory:
    """What a building listing knows of placements whose empty neighbours are apart (HT-3),
    from the listing before on a map with as many empty cells or more, and what it finds.

    A placement that cut the empty cells still does unless an empty cell around it has `gone`.
    One that did not was found with the empty cells that joined its neighbours: while all of
    them are still empty and hold its neighbours, these still meet."""

    def __init__(
        self,
        cuts: frozenset[int],
        gone: int,
        joined: dict[int, int],
        found_cuts: set[int],
        found_joined: dict[int, int],
    ) -> None:
        self.cuts, self.gone, self.joined = cuts, gone, joined
        self.found_cuts, self.found_joined = found_cuts, found_joined


class TakeoverState(GameState):
    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.grid = grid_of(int(options["size"]))
        n = int(options["players"])
        self.players = n
        # The map, its buildings and the supply are replaced when they change, never changed in
        # place, so that clones share them; so is a Building once placed.
        self.tiles: set[int] = set()
        self.tiles_placed = 0
        self.tile_corners: list[int] = []  # HT-1: each tile's top-left cell, in placing order
        self.buildings: list[Building] = []
        self.building_at: dict[int, int] = {}  # cell -> index in self.buildings
        self.supply = dict(SUPPLY)
        self._view: _MapView | None = None  # the finished map as pawns see it (`_map_view`)
        # The empty cells at the last building listing, the placements that cut them, and for
        # those that did not though their neighbours were apart, the cells that joined these.
        self._cuts: tuple[int, frozenset[int], dict[int, int]] = (0, frozenset(), {})
        self.spawns: list[int | None] = [None] * n
        self.pawns: list[int | None] = [None] * n
        self.lives = [LIVES] * n
        self.phase = Phase.FIRST_ROLL
        self.rollers: list[int] = list(range(n))
        self.rolls: dict[int, int] = {}  # the round of rolls for the first player under way
        self.roll_rounds: list[dict[int, int]] = []  # the rounds done: ties roll again
        self.first = 0
        self.player = 0
        self.turn = 0
        self.target: int | None = None  # the defender, or the building being claimed
        self.attack_roll = 0
        self.combat_after: int | None = None  # the attacker, once a displaced pawn has moved
        self.returning: int | None = None  # the loser waiting for its spawn to clear
        self.last_combat: tuple[int, int, int, int] | None = None  # attacker, defender, rolls
        self.last_claim: tuple[int, int, int, bool] | None = None  # claimer, building, roll, won
        self.winners: list[int] = []
        self.final_scores: list[int] = []

    def clone(self) -> Self:
        # Shared with the copy: the map, the supply and each Building, all replaced when they
        # change; and the lists that are only ever replaced (rollers, winners, final_scores).
        other = self._copy()
        other.roll_rounds = list(self.roll_rounds)  # a round done is never changed
        other.buildings = list(self.buildings)
        other.spawns = list(self.spawns)
        other.pawns = list(self.pawns)
        other.lives = list(self.lives)
        other.rolls = dict(self.rolls)
        return other

    @property
    def num_players(self) -> int:
        return self.players

    def player_name(self, player: int) -> str:
        if 0 <= player < self.players:
            return COLOURS[player]
        return super().player_name(player)

    # -- facts --------------------------------------------------------------------------

    def empty_cells(self) -> set[int]:
        """Tile cells with no building: where pawns may stand (HT-1, HT-5)."""
        return self.tiles - self.building_at.keys()

    def alive(self) -> list[int]:
        return [p for p in range(self.players) if self.lives[p] > 0]

    def touching_buildings(self, player: int) -> list[int]:
        pawn = self.pawns[player]
        if pawn is None:
            return []
        return list(self._map_view().touching[pawn])

    def move_targets(self, player: int) -> list[int]:
        pawn = self.pawns[player]
        if pawn is None:
            return []
        # Free: an empty tile cell with no pawn; around the pawn or one of its own buildings.
        view, pawns, buildings = self._map_view(), self.pawns, self.buildings
        targets = {n for n in view.empty_around[pawn] if n not in pawns}
        for k in view.touching[pawn]:
            if buildings[k].owner == player:  # HT-5: around one's own building
                targets.update(n for n in view.ring[k] if n not in pawns)
        return sorted(targets)

    def _map_view(self) -> _MapView:
        """The map as pawns see it, made once for a state and its clones: the map no longer
        changes once play starts. Made again if the map is not the one it was made for."""
        view = self._view
        if view is None or not view.fits(self):
            view = self._view = _MapView(self)
        return view

    def score(self, player: int) -> int:
        return sum(SCORE[b.size] for b in self.buildings if b.owner == player)

    # -- the API ------------------------------------------------------------------------

    def current_player(self) -> int:
        phase = self.phase
        if phase in ROLLS:
            return CHANCE
        return TERMINAL if phase is Phase.OVER else self.player

    # As the API's, without working out the player: asked before every action.
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    def is_chance_node(self) -> bool:
        return self.phase in ROLLS

    def roller(self) -> int | None:
        """Whose d12 the chance node at hand is."""
        match self.phase:
            case Phase.FIRST_ROLL:
                return self.rollers[len(self.rolls)]
            case Phase.CLAIM_ROLL | Phase.ATTACK_ROLL:
                return self.player
            case Phase.DEFEND_ROLL:
                return self.target
            case _:
                return None

    def legal_actions(self) -> list[Action]:
        grid = self.grid
        match self.phase:
            case Phase.TURN:
                return self._turn_actions()
            case Phase.TILES:
                return [grid.tile_places[c] for c in self._tile_corners()]
            case Phase.BUILDINGS:
                return self._building_places()
            case Phase.SPAWNS:
                return [grid.spawn_places[c] for c in self._spawn_cells()]
            case Phase.DISPLACE:
                return [grid.displaces[c] for c in self._displace_cells()]
            case _:
                return []

    def apply(self, action: Action) -> None:
        """As for any game, but a large building named from its second cell is turned round
        first, so that the history holds the form the legal actions list (HT-2)."""
        super().apply(self.canonical(action))

    def canonical(self, action: Action) -> Action:
        """The form of `action` that the legal actions list: a large building named by its top
        or left cell first (HT-2: it covers the same two cells either way); else the action."""
        if isinstance(action, PlaceLarge):
            first, second = action.first, action.second
            if isinstance(first, str) and isinstance(second, str):
                index = self.grid.index
                if index.get(first, -1) > index.get(second, -1) >= 0:
                    return PlaceLarge(second, first)
        return action

    def is_legal(self, action: Action) -> bool:
        """A move is checked against the moves alone: turns are many, so this is worth it."""
        index = self.grid.index
        match self.phase, action:
            case Phase.TURN, Move(cell):
                return index.get(cell, -1) in self.move_targets(self.player)
            case Phase.TILES, PlaceTile(cell):
                return cell in index and self._tile_fits(index[cell], self.grid.mask(self.tiles))
            case Phase.BUILDINGS, PlaceSmall(cell):
                return cell in index and self._building_fits(
                    "small", (index[cell],), self.empty_cells()
                )
            case Phase.BUILDINGS, PlaceLarge():
                # Either way round (HT-2). An unknown cell name is refused like any illegal
                # action, never a KeyError.
                canonical = self.canonical(action)
                assert isinstance(canonical, PlaceLarge)
                first, second = canonical.first, canonical.second
                partner = index.get(second, -1)
                if first not in index or partner not in self.grid.partners[index[first]]:
                    return False
                cells = (index[first], index[second])
                return self._building_fits("large", cells, self.empty_cells())
            case _, Roll():
                return self.roller() is not None and action in ROLL_ACTIONS
        return super().is_legal(action)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        # At a roll, `roller` is someone.
        return list(ROLL_OUTCOMES) if self.phase in ROLLS else []

    def returns(self) -> list[float]:
        if self.phase is not Phase.OVER:
            return [0.0] * self.players
        return [1.0 if p in self.winners else -1.0 for p in range(self.players)]

    # -- listing ------------------------------------------------------------------------

    def _turn_actions(self) -> list[Action]:
        """HT-5: the moves (`move_targets`), the claims of touching buildings not one's own, the
        attacks on touching pawns (`_touching_pawns`), or else a pass; written out as one, since
        it is most of what a game lists."""
        p = self.player
        pawns = self.pawns
        pawn = pawns[p]
        if pawn is None:
            return [PASS]
        view = self._map_view()
        ring = self.grid.around_set[pawn]
        attacks: list[Action] = [
            ATTACKS[q] for q, cell in enumerate(pawns) if cell in ring and q != p
        ]
        claims: list[Action] = []
        own: list[int] = []
        buildings = self.buildings
        for k in view.touching[pawn]:
            if buildings[k].owner != p:
                claims.append(claim_of(k))
            else:
                own.append(k)
        # Free: an empty tile cell with no pawn; around the pawn, where only the pawns attacked
        # may stand, and around one's own buildings (HT-5). `around` lists cells in order.
        moves = self.grid.moves
        actions: list[Action]
        if own:
            free = set(view.empty_around[pawn])
            for k in own:
                free |= view.ring_set[k]
            free.difference_update(pawns)
            actions = [moves[c] for c in sorted(free)]
        elif attacks:
            taken = set(pawns)
            actions = [moves[c] for c in view.empty_around[pawn] if c not in taken]
        else:
            actions = list(view.moves_around[pawn])
        if claims:
            actions += claims
        if attacks:
            actions += attacks
        return actions or [PASS]

    def _tile_corners(self) -> list[int]:
        # _tile_fits at every corner, written out.
        tiles = self.grid.mask(self.tiles)
        tile_bits, edge_bits = self.grid.tile_bits, self.grid.tile_edge_bits
        if not tiles:
            return [corner for corner, cells in enumerate(tile_bits) if cells]
        return [
            corner
            for corner, cells in enumerate(tile_bits)
            if cells and not cells & tiles and edge_bits[corner] & tiles
        ]

    def _tile_fits(self, corner: int, tiles: int) -> bool:
        """Whether a tile fits at `corner`, given the mask of the cells tiles cover."""
        cells = self.grid.tile_bits[corner]
        if not cells or cells & tiles:
            return False  # off the grid, or on a tile
        # HT-1: after the first, a tile shares a cell edge with one already placed.
        return not tiles or bool(self.grid.tile_edge_bits[corner] & tiles)

    def sample(self, rng: random.Random) -> Action:
        """As any game, but a building placement is drawn among every cell and pair of cells
        of the empty ones, again until one fits (`_building_fits`): as likely as any other that
        fits, for a few checks instead of the listing (the slowest of the game). After
        `SAMPLE_TRIES` misses, from the listing."""
        if self.phase is not Phase.BUILDINGS:
            return rng.choice(self.legal_actions())
        empty = self.empty_cells()
        ordered = sorted(empty)
        small = ordered if self.supply["small"] else []
        large = (
            [(c, o) for c in ordered for o in self.grid.partners[c] if o in empty]
            if self.supply["large"]
            else []
        )
        if small or large:
            for _ in range(SAMPLE_TRIES):
                k = rng.randrange(len(small) + len(large))
                if k < len(small):
                    if self._building_fits("small", (small[k],), empty):
                        return self.grid.small_places[small[k]]
                else:
                    c, o = large[k - len(small)]
                    if self._building_fits("large", (c, o), empty):
                        return self.grid.large_places[c, o]
        return rng.choice(self.legal_actions())

    def _building_places(self) -> list[Action]:
        """Every small, then every large building that fits (HT-2, HT-3), as `_building_fits`
        would find them one by one, but worked out once for the map: the listing is the slowest
        decision of the game. What is near a placement is read from 4x4 boxes (`Grid.box`);
        only a placement whose empty neighbours are apart floods the map's bitmasks."""
        empty = self.empty_cells()
        grid = self.grid
        empty_mask = grid.mask(empty)
        if empty_mask and grid.flood(empty_mask & -empty_mask, empty_mask) != empty_mask:
            return self._building_places_one_by_one(empty)  # only on a map set up by hand
        bits, around, around_cells = grid.bits, grid.around_bits, grid.around
        # HT-3: a building with one or two empty cells around it must keep one of them.
        lone: set[int] = set()  # cells that are the only empty one around some building
        pairs: set[int] = set()  # two cells (a * PAIR + b, a < b), the only ones around one
        for building in self.buildings:
            touching = sorted({n for c in building.cells for n in around_cells[c] if n in empty})
            if len(touching) == 1:
                lone.add(touching[0])
            elif len(touching) == 2:
                pairs.add(touching[0] * PAIR + touching[1])

        # Placements found to cut the empty cells at an earlier listing, on a map with more
        # empty cells: they still cut, unless an empty cell around them has gone since.
        before, cuts, joined = self._cuts
        gone = before ^ empty_mask if empty_mask & before == empty_mask else -1
        found_cuts: set[int] = set()
        found_joined: dict[int, int] = {}

        memory = _CutMemory(cuts, gone, joined, found_cuts, found_joined)
        # Methods called on `grid` and `self` rather than bound to names: compiled, such calls
        # are native.
        rows = grid.row_bits(empty)
        ordered = sorted(empty)
        found: list[Action] = []
        # HT-3: the new building touches an empty cell, and the empty cells are still one
        # region: nothing is cut when those around it are one group by themselves.
        if self.supply["small"]:
            small = grid.small_places
            for c in ordered:
                if c in lone:
                    continue  # HT-3: a building next to it would touch no empty cell
                ring = grid.box(rows, c) & SMALL_NEAR
                if ring and (
                    grid.one_group(ring) or not self._splits(bits[c], around[c], empty_mask, memory)
                ):
                    found.append(small[c])
        if self.supply["large"]:
            large, partners = grid.large_places, grid.partners
            for c in ordered:
                if c in lone:
                    continue
                around_c = grid.box(rows, c)
                for other in partners[c]:
                    if other not in empty or other in lone or c * PAIR + other in pairs:
                        continue
                    ring = around_c & (RIGHT_NEAR if other == c + 1 else DOWN_NEAR)
                    if ring and (
                        grid.one_group(ring)
                        or not self._splits(
                            bits[c] | bits[other], around[c] | around[other], empty_mask, memory
                        )
                    ):
                        found.append(large[c, other])
        self._cuts = (empty_mask, frozenset(found_cuts), found_joined)
        return found

    def _splits(self, removed: int, near: int, empty: int, memory: _CutMemory) -> bool:
        """Whether the empty cells (`empty`, a mask) less `removed` fall apart: whether those
        around it (`near`) still meet across the map. What an earlier listing found is used
        where it still holds (`_CutMemory`), and what this one finds is kept for the next."""
        left = empty ^ removed
        if removed in memory.cuts and not near & memory.gone:
            memory.found_cuts.add(removed)
            return True
        ring = near & left
        region = memory.joined.get(removed)
        if region is None or region & empty != region or region & ring != ring:
            region = self.grid.flood(ring & -ring, left, ring)
            if region & ring != ring:
                memory.found_cuts.add(removed)
                return True
        memory.found_joined[removed] = region
        return False

    def _building_places_one_by_one(self, empty: set[int]) -> list[Action]:
        """The same listing with each placement checked by itself (`_building_fits`): for a
        map whose empty cells are apart already, and for the tests and the benchmark."""
        names = self.grid.names
        found: list[Action] = []
        for c in sorted(empty):
            if self._building_fits("small", (c,), empty):
                found.append(PlaceSmall(names[c]))
        for c in sorted(empty):
            for other in self.grid.partners[c]:
                if self._building_fits("large", (c, other), empty):
                    found.append(PlaceLarge(names[c], names[other]))
        return found

    def _building_fits(self, size: str, cells: tuple[int, ...], empty: set[int]) -> bool:
        """HT-2 supply, on empty tile cells, and HT-3 still holding: checked at each placement."""
        if not self.supply[size] or not all(c in empty for c in cells):
            return False
        left = empty - set(cells)
        around = self.grid.around
        if not any(n in left for c in cells for n in around[c]):
            return False
        at = self.building_at
        neighbours = {at[n] for c in cells for n in around[c] if n in at}
        for k in neighbours:
            if not any(n in left for c in self.buildings[k].cells for n in around[c]):
                return False
        return _stays_connected(empty, cells, self.grid)

    def _spawn_cells(self) -> list[int]:
        around = self.grid.around
        # HT-4: not next to a large building.
        near_large = {
            n for b in self.buildings if b.size == "large" for c in b.cells for n in around[c]
        }
        taken = {s for s in self.spawns if s is not None}
        return [c for c in sorted(self.empty_cells() - taken) if c not in near_large]

    def _touching_pawns(self, player: int) -> list[int]:
        pawn = self.pawns[player]
        if pawn is None:
            return []
        near = self.grid.around_set[pawn]
        return [q for q, at in enumerate(self.pawns) if q != player and at in near]

    def _displace_cells(self) -> list[int]:
        pawn = self.pawns[self.player]
        assert pawn is not None
        free = self.empty_cells() - {p for p in self.pawns if p is not None}
        near = [n for n in self.grid.around[pawn] if n in free]
        # With no free neighbour (the rules are silent), any free cell of the map will do.
        return sorted(near) if near else sorted(free)

    # -- playing ------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        PLAYERS[type(action)](self, action)

    def _play_roll(self, action: Roll) -> None:
        self._roll(action.value)

    def _play_tile(self, action: PlaceTile) -> None:
        corner = self.grid.index[action.cell]
        cells = self.grid.tile_cells(corner)
        assert cells is not None
        self.tiles = self.tiles.union(cells)
        self.tile_corners = [*self.tile_corners, corner]
        self.tiles_placed += 1
        if self.tiles_placed == TILES:
            # HT-1 / rulebook: the last tile placer places the first building.
            self.phase = Phase.BUILDINGS
        else:
            self.player = (self.player + 1) % self.players

    def _play_small(self, action: PlaceSmall) -> None:
        self._place_building("small", (self.grid.index[action.cell],))

    def _play_large(self, action: PlaceLarge) -> None:
        index = self.grid.index
        self._place_building("large", tuple(sorted((index[action.first], index[action.second]))))

    def _play_spawn(self, action: PlaceSpawn) -> None:
        self.spawns[self.player] = self.pawns[self.player] = self.grid.index[action.cell]
        if all(s is not None for s in self.spawns):
            self.phase = Phase.TURN
            self.player = self.first
            self.turn = 1
        else:
            self.player = (self.player + 1) % self.players

    def _play_move(self, action: Move) -> None:
        self.pawns[self.player] = self.grid.index[action.cell]
        self._next_turn()

    def _play_claim(self, action: Claim) -> None:
        self.target = action.building
        self.phase = Phase.CLAIM_ROLL

    def _play_attack(self, action: Attack) -> None:
        self.target = COLOURS.index(action.target)
        self.phase = Phase.ATTACK_ROLL

    def _play_displace(self, action: Displace) -> None:
        self.pawns[self.player] = self.grid.index[action.cell]
        assert self.combat_after is not None
        self.player, self.combat_after = self.combat_after, None
        self._end_combat()

    def _play_pass(self, action: Pass) -> None:
        self._next_turn()

    def _roll(self, value: int) -> None:
        match self.phase:
            case Phase.FIRST_ROLL:
                self.rolls[self.rollers[len(self.rolls)]] = value
                if len(self.rolls) == len(self.rollers):
                    best = max(self.rolls.values())
                    tied = [p for p in self.rollers if self.rolls[p] == best]
                    self.roll_rounds.append(self.rolls)  # kept: the description shows them
                    self.rolls = {}
                    if len(tied) == 1:
                        self.first = self.player = tied[0]
                        self.phase = Phase.TILES
                    else:
                        self.rollers = tied  # the tied players roll again
            case Phase.CLAIM_ROLL:
                assert self.target is not None
                old = self.buildings[self.target]
                # HT-5: damage stays on the building. A new Building: clones share the old one.
                building = Building(old.size, old.cells, old.owner, old.points - value)
                claimed = building.points <= 0
                if claimed:
                    building.owner = self.player
                    building.points = FULL_POINTS[building.size]
                self.buildings[self.target] = building
                self.last_claim = (self.player, self.target, value, claimed)
                self.target = None
                self._next_turn()
            case Phase.ATTACK_ROLL:
                self.attack_roll = value
                self.phase = Phase.DEFEND_ROLL
            case Phase.DEFEND_ROLL:
                self._combat(self.attack_roll, value)

    def _place_building(self, size: str, cells: tuple[int, ...]) -> None:
        self.building_at = self.building_at | dict.fromkeys(cells, len(self.buildings))
        self.buildings.append(Building(size, cells, None, FULL_POINTS[size]))
        self.supply = self.supply | {size: self.supply[size] - 1}
        if not any(self.supply.values()):
            self.phase = Phase.SPAWNS
            self.player = self.first  # HT-4: from the first player again
        else:
            self.player = (self.player - 1) % self.players  # counter-clockwise

    def _combat(self, attack: int, defend: int) -> None:
        attacker, defender = self.player, self.target
        assert defender is not None
        self.last_combat = (attacker, defender, attack, defend)
        self.target = None
        self.phase = Phase.TURN
        outcome = _combat_outcome(attack, defend)
        if outcome == "tie":
            self._next_turn()  # HT-5: a tie changes nothing
            return
        won = outcome == "attacker_won"
        loser = defender if won else attacker
        defender_cell = self.pawns[defender]
        self.lives[loser] -= 1
        self.pawns[loser] = None
        if won:
            self.pawns[attacker] = defender_cell  # HT-5: the attacker takes the cell
        if self.lives[loser] == 0:
            self._end_combat()  # HT-6: out, the pawn leaves the map
            return
        spawn = self.spawns[loser]
        standing = [q for q, at in enumerate(self.pawns) if at == spawn]
        if standing:
            # HT-5: the pawn on the loser's spawn steps aside, where its owner chooses.
            self.combat_after = attacker
            self.player = standing[0]
            self.phase = Phase.DISPLACE
            self.returning = loser
            return
        self.pawns[loser] = spawn
        self._end_combat()

    def _end_combat(self) -> None:
        if self.returning is not None:
            self.pawns[self.returning] = self.spawns[self.returning]
            self.returning = None
        self.phase = Phase.TURN
        if len(self.alive()) == 1:
            self._finish()
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.phase = Phase.TURN
        for step in range(1, self.players + 1):
            candidate = (self.player + step) % self.players
            if self.lives[candidate] > 0:
                self.player = candidate
                break
        self.turn += 1

    def _finish(self) -> None:
        """HT-6: buildings score, the last player left gets +5, the highest score wins."""
        (last,) = self.alive()
        self.final_scores = [self.score(p) for p in range(self.players)]
        self.final_scores[last] += LAST_PLAYER_BONUS
        best = max(self.final_scores)
        self.winners = [p for p, s in enumerate(self.final_scores) if s == best]
        self.phase = Phase.OVER


# How each kind of action is played: one look-up rather than a match through every kind.
PLAYERS: dict[type[Action], Callable[[TakeoverState, Any], None]] = {
    Roll: TakeoverState._play_roll,
    PlaceTile: TakeoverState._play_tile,
    PlaceSmall: TakeoverState._play_small,
    PlaceLarge: TakeoverState._play_large,
    PlaceSpawn: TakeoverState._play_spawn,
    Move: TakeoverState._play_move,
    Claim: TakeoverState._play_claim,
    Attack: TakeoverState._play_attack,
    Displace: TakeoverState._play_displace,
    Pass: TakeoverState._play_pass,
}


# -- the game ---------------------------------------------------------------------------------


# How the page draws the map (issue 20): the tiles' ground, buildings in their owner's colour or
# unclaimed (a large one across its two cells, HT-2), spawns, and each pawn in its player's colour.
LOOKS = Looks(
    tokens=(
        Look("tile", "tile", colour="ground"),
        Look("small:none", "building", colour="none", glyph="\u2302"),
        Look("large:none", "building", colour="none", glyph="\u2302", span=2),
        # The owner's initial as well as the colour, for colour-blind eyes.
        Look(r"small:((\w)\w*)", "building", colour="{1}", glyph="\u2302", label="{2}"),
        Look(r"large:((\w)\w*)", "building", colour="{1}", glyph="\u2302", label="{2}", span=2),
        Look(r"spawn:((\w)\w*)", "spawn", colour="{1}", glyph="\u2691", label="{2}"),
        Look(PRESENT, "piece", glyph="\u265f"),
    ),
    seats=COLOURS,
    colours={"ground": "#6b7d4a", "none": "#e0e0e0"},
    owners="pawns",
    numbers="building_at",
    worn="building_worn",
    from_one=("id", "building"),  # a building's number, as the board and the words count
)


# The printed map kit (issue 21): the game's supplies, each piece a token on every cell it covers,
# as `TakeoverGame.layout` gives them. Tiles lie on the board, buildings and spawns on the tiles.
# Printed colours are for the players; the camera tells pieces apart by their markers alone.
PRINTED = {"red": "#d7263d", "blue": "#2456c8", "green": "#2e9a3e", "yellow": "#f2c200"}
KIT_PIECES = (
    MapPiece("tile", (TILE, TILE), LOOKS.colours["ground"], copies=TILES),
    MapPiece(
        "small:none", colour=LOOKS.colours["none"], copies=SUPPLY["small"], layer=1,
        title="building",
    ),
    MapPiece(
        "large:none", (2, 1), LOOKS.colours["none"], copies=SUPPLY["large"], layer=1,
        title="large building",
    ),
    *(
        MapPiece(
            f"{size}:{c}", cells, PRINTED[c], c[0].upper(), SUPPLY[size], layer=1,
            title=f"{c} {'large building' if size == 'large' else 'building'}",
        )
        for c in COLOURS
        for size, cells in (("small", (1, 1)), ("large", (2, 1)))
    ),
    *(
        MapPiece(f"spawn:{c}", colour=PRINTED[c], label=c[0].upper(), layer=1, title=f"{c} spawn")
        for c in COLOURS
    ),
)  # fmt: skip


def _combat_outcome(attack: int, defence: int) -> str:
    """HT-5: the higher roll wins the combat; a tie changes nothing."""
    return "tie" if attack == defence else "attacker_won" if attack > defence else "defender_won"


class TakeoverGame(Game):
    info = GameType(
        name="takeover",
        title="Hostile Takeover",
        title_fr="Hostile Takeover",
        player_names=COLOURS,
        options=(
            Option("players", 2, "number of players", low=2, high=len(COLOURS)),
            # The table's grid is 12x12 by default; another size is another board, with its
            # own profile (takeover-16.toml).
            Option(
                "size",
                DEFAULT_SIZE,
                "cells along a side of the map",
                low=MIN_SIZE,
                high=16,
                unit=" cells",
                board=True,
            ),
        ),
        profile="takeover",
        guide="takeover",
        palette=(
            # The players' colours for their buildings, spawns and pawns, and unclaimed
            # buildings in white; "blue@0.40" is blue at 40 % brightness (a building's points
            # left). The pawns the player to move may fight, and a spawn whose player is out.
            Role("red", "#ff0010"),
            Role("blue", "#0000ff"),
            Role("green", "#00b000"),
            Role("yellow", "#ffd000"),
            Role("white", "#c0c0c0"),
            Role("attacker", "#ff8000"),
            Role("target", "#ff00ff", "x"),
            Role("out", "#401010", "-"),
        ),
        dice_kinds=("d12",),
        icon_dice=(IconDice("d12", tuple(str(n) for n in range(1, 13))),),
        # Every public fact of the state, in JSON: the tracking sheet, the map and set-up. Players
        # go by colour, cells by name ("r0c0"), buildings by number in placing order.
        words=Path(__file__).with_name("takeover.words.toml"),
        looks=LOOKS,
        board=KIT,
        kit=KIT_PIECES,
        details=(
            Detail(
                "turn",
                "turns played so far in play (1 for the first), 0 during set-up.",
            ),
            Detail(
                "phase",
                '"first_roll", "tiles", "buildings", "spawns", "turn", "claim_roll", '
                '"attack_roll", "defend_roll", "displace" or "over".',
            ),
            Detail(
                "to_move",
                "the player to decide, or None at a roll or the end.",
            ),
            Detail(
                "rolling",
                "whose d12 the roll at hand is, or None.",
            ),
            Detail(
                "first_player",
                "the player who rolled highest and so starts, None before.",
            ),
            Detail(
                "first_rolls",
                "each round of rolls for the first player, {player: roll}; a tie rolls again,"
                " and the round under way, if any, is last.",
            ),
            Detail(
                "map_size",
                "cells along a side of the grid.",
            ),
            Detail(
                "tiles",
                "the top-left cell of each 2x2 tile, in placing order (HT-1).",
                inner=True,
            ),
            Detail(
                "tiles_placed",
                "how many tiles are down, of 20 (HT-1).",
            ),
            Detail(
                "buildings_to_place",
                'the unclaimed buildings still to place, {"small", "large"} (HT-2).',
            ),
            Detail(
                "spawns",
                "each player's spawn cell, None before it is placed (HT-4).",
                inner=True,
            ),
            Detail(
                "lives",
                "each player's lives left (HT-6).",
            ),
            Detail(
                "pawns",
                "each player's pawn cell, None before its spawn or once out (HT-4, HT-6).",
                inner=True,
            ),
            Detail(
                "scores",
                "buildings' points; at the end, with the last player's bonus (HT-6).",
            ),
            Detail(
                "buildings",
                "each one's id, size, cells, owner (None unclaimed) and points left (HT-5).",
            ),
            Detail(
                "building_at",
                "each cell a building covers, with that building's id: the number its claims "
                "name it by (HT-5), shown on the board.",
            ),
            Detail(
                "building_worn",
                "each cell of a building that claims have worn down, with its points left and "
                "those it started with (HT-2, HT-5), shown on the board.",
                inner=True,
            ),
            Detail(
                "claim",
                'the claim being rolled, {"player", "building"}, else None (HT-5).',
            ),
            Detail(
                "fight",
                'the combat being rolled, {"attacker", "defender", "attack_roll"} (the last '
                "None until rolled), else None (HT-5).",
            ),
            Detail(
                "returning",
                "the loser whose pawn waits for its spawn to be cleared, else None (HT-5).",
            ),
            Detail(
                "last_combat",
                'the latest combat, {"attacker", "defender", "rolls", "outcome"} (outcome: '
                '"attacker_won", "defender_won" or "tie"), or None (HT-5).',
            ),
            Detail(
                "last_claim",
                'the latest claim roll, {"player", "building", "roll", "claimed", "outcome"} '
                '(claimed: the building became the player\'s; outcome: "claimed" or '
                '"damaged"), or None (HT-5).',
            ),
        ),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (
        Roll,
        PlaceTile,
        PlaceSmall,
        PlaceLarge,
        PlaceSpawn,
        Move,
        Claim,
        Attack,
        Displace,
        Pass,
    )

    def _new_state(self, options: Mapping[str, Any]) -> TakeoverState:
        return construct(TakeoverState, options)

    def _grid(self) -> Grid:
        return grid_of(int(self.default_options["size"]))

    def layout(self, state: GameState) -> Layout:
        """Reeds feel the pawns; the camera sees tiles, buildings and spawns."""
        s = TakeoverState.of(state)
        names = s.grid.names
        seen: Layout = {names[c]: PRESENT for c in s.pawns if c is not None}
        seen |= {f"{names[c]}.map": "tile" for c in s.tiles}
        for b in s.buildings:
            owner = "none" if b.owner is None else COLOURS[b.owner]
            seen |= {f"{names[c]}.map": f"{b.size}:{owner}" for c in b.cells}
        for p, c in enumerate(s.spawns):
            if c is not None:
                seen[f"{names[c]}.map"] = f"spawn:{COLOURS[p]}"
        return seen

    def lights(self, state: GameState) -> dict[str, str]:
        """Buildings in their owner's colour (white unclaimed), as bright as their points left;
        spawns dim in their owner's colour ("out" once the owner is out); the pawn to move in its
        colour, and the pawns it may fight, or is fighting, as "target". The session adds the
        cells the pawn may move to ("legal") and the cells to put right."""
        s = TakeoverState.of(state)
        names = s.grid.names
        roles: dict[str, str] = {}
        for p, c in enumerate(s.spawns):
            if c is not None:
                roles[names[c]] = "out" if s.lives[p] == 0 else f"{COLOURS[p]}@0.25"
        for b in s.buildings:
            colour = "white" if b.owner is None else COLOURS[b.owner]
            level = max(b.points, 1) / FULL_POINTS[b.size]
            roles.update((names[c], f"{colour}@{level:.2f}") for c in b.cells)
        if s.phase in (Phase.TURN, Phase.DISPLACE):
            mover = s.pawns[s.player]
            if mover is not None:
                roles[names[mover]] = COLOURS[s.player]
        if s.phase is Phase.TURN:
            for q in s._touching_pawns(s.player):
                pawn = s.pawns[q]
                assert pawn is not None
                roles[names[pawn]] = "target"
        if s.phase in (Phase.ATTACK_ROLL, Phase.DEFEND_ROLL) and s.target is not None:
            for fighter in (s.player, s.target):
                pawn = s.pawns[fighter]
                if pawn is not None:
                    roles[names[pawn]] = "target"
        return roles

    def board_rows(self) -> list[list[str]]:
        grid = self._grid()
        return [list(grid.names[r * grid.size : (r + 1) * grid.size]) for r in range(grid.size)]

    def spots(self) -> dict[str, str]:
        grid = self._grid()
        return dict.fromkeys(grid.names, REED) | {f"{n}.map": CAMERA for n in grid.names}

    def roller(self, state: GameState) -> int | None:
        """Each player throws their own d12 (HT-5): in turn for the first player, to claim, to
        attack, and the defender to defend. Named here: the turns around a roll do not tell it
        (after a claim the next player decides), so a table playing a seat would roll another's
        dice and leave its own to a hand."""
        return TakeoverState.of(state).roller()

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        if TakeoverState.of(state).roller() is None:
            return None
        return DiceRequest("d12", 1, D12)

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        """A d12 at a chance node is its roll. Thrown on a turn whose pawn can claim or fight
        only one thing, it is that claim or attack and its first roll; with more, the player
        names theirs first (`smartboard act claim:3`)."""
        s = TakeoverState.of(state)
        roller = s.roller()
        choice: list[Action] = []
        if roller is None and s.phase is Phase.TURN:
            rolled_for: list[Action] = [
                a for a in s.legal_actions() if isinstance(a, Claim | Attack)
            ]
            if len(rolled_for) != 1:
                named = ", ".join(a.id for a in rolled_for)
                raise IllegalActionError(
                    f"{COLOURS[s.player]} can claim or fight {len(rolled_for)} things; name one "
                    f"before rolling ({named})"
                    if rolled_for
                    else f"{COLOURS[s.player]}'s pawn touches nothing to claim or fight"
                )
            roller, choice = s.player, rolled_for
        if roller is None:
            raise IllegalActionError("no d12 roll is expected now")
        if len(reading) != 1 or type(reading[0]) is not int or reading[0] not in D12:
            raise IllegalActionError(
                f"{COLOURS[roller].capitalize()}'s d12 is wanted: one face, 1 to 12, "
                f"not {list(reading)}"
            )
        return [*choice, Roll(int(reading[0]))]

    def explain(self, state: GameState, sensed: Layout) -> Problem | None:
        """The map that the camera sees, if it breaks HT-1, HT-3 or HT-4: its first offending
        cells named and lit. None when the map is as expected or legal (a pawn misplaced)."""
        s = TakeoverState.of(state)
        grid = s.grid
        seen = {k[: -len(MAP)]: v for k, v in sensed.items() if k.endswith(MAP)}
        expected = {k[: -len(MAP)]: v for k, v in self.layout(s).items() if k.endswith(MAP)}
        if seen == expected:
            return None
        tiles, buildings, spawns = _sensed_map(s, seen)
        # HT-2, HT-4: buildings and spawns lie on tiles already placed, never on the bare board.
        laid_on = {c for b in buildings for c in b.cells} | set(spawns)
        if laid_on - s.tiles:
            return _problem(
                "a building or spawn off the tiles (HT-2, HT-4)",
                "off_tiles",
                laid_on - s.tiles,
                grid,
            )
        partial = _not_whole_tiles(tiles - s.tiles, grid)
        if partial:
            # HT-1: tiles are 2x2; cells entered one by one make no tile until the fourth is in.
            return _problem("cells of no whole 2x2 tile (HT-1)", "tile_partial", partial, grid)
        if s.tiles and tiles - s.tiles:
            # HT-1: a new tile shares a cell edge with one already placed.
            new = tiles - s.tiles
            if not any(n in s.tiles for c in new for n in grid.edges[c]):
                return _problem(
                    "tile shares no edge with the map (HT-1)", "tile_no_edge", new, grid
                )
        bad = map_problems(tiles, buildings, grid)
        if bad:
            built = {c for b in buildings for c in b.cells}
            if set(bad) <= built:
                return _problem(
                    "building touches no empty tile cell (HT-3)", "building_no_empty", bad, grid
                )
            # The cells cut off: all but the largest part of the map, wherever it lies.
            built_on = tiles - built
            parts = sorted(components(built_on, grid), key=len, reverse=True)
            cut = [c for part in parts[1:] for c in part] or bad
            return _problem("empty cells cut off from the map (HT-3)", "cells_cut_off", cut, grid)
        large = {c for b in buildings if b.size == "large" for c in b.cells}
        for cell in spawns:
            near = [n for n in grid.around[cell] if n in large]
            if near and cell not in s.spawns:
                return _problem(
                    "spawn next to a large building (HT-4)", "spawn_near_large", [cell, *near], grid
                )
        return None

    def pointing(self, state: GameState, action: Action) -> tuple[str, str | None] | None:
        """HT-5: a claim points from the pawn to the building it touches, an attack from the
        pawn to the pawn it fights, as a move points from the pawn to its cell. Neither moves a
        piece, and buildings bear no number on the board: the building is where it is tapped.
        A large building is pointed at on its first cell next to the pawn."""
        s = TakeoverState.of(state)
        pawn = s.pawns[s.player]
        if pawn is None or s.phase is not Phase.TURN:
            return None
        names = s.grid.names
        if isinstance(action, Claim):
            near = s.grid.around_set[pawn]
            cells = s.buildings[action.building].cells
            return names[pawn], names[next((c for c in cells if c in near), cells[0])]
        if isinstance(action, Attack):
            defender = s.pawns[COLOURS.index(action.target)]
            if defender is not None:
                return names[pawn], names[defender]
        return None

    def hidden(self, sensed: Layout) -> frozenset[str]:
        """A pawn stands on its spawn or on a tile cell (HT-4, HT-5), over the markers there."""
        index = self._grid().index
        return frozenset(f"{s}{MAP}" for s, t in sensed.items() if t == PRESENT and s in index)

    def describe(self, state: GameState) -> JSON:
        """The public facts of the position: the fields of `info.details`, in that order."""
        s = TakeoverState.of(state)
        names = s.grid.names
        roller = s.roller()
        player = s.current_player()
        target = s.target  # the defender in a fight, the building in a claim
        fight: JSON | None = None
        claim: JSON | None = None
        if target is not None and s.phase in (Phase.ATTACK_ROLL, Phase.DEFEND_ROLL):
            fight = {
                "attacker": COLOURS[s.player],
                "defender": COLOURS[target],
                "attack_roll": s.attack_roll if s.phase is Phase.DEFEND_ROLL else None,
            }
        if target is not None and s.phase is Phase.CLAIM_ROLL:
            claim = {"player": COLOURS[s.player], "building": target}
        rounds = [*s.roll_rounds, s.rolls] if s.rolls else s.roll_rounds
        return {
            "turn": s.turn,
            "phase": s.phase.value,
            "to_move": COLOURS[player] if player >= 0 else None,
            "rolling": None if roller is None else COLOURS[roller],
            "first_player": None if s.phase is Phase.FIRST_ROLL else COLOURS[s.first],
            "first_rolls": [{COLOURS[p]: v for p, v in r.items()} for r in rounds],
            "map_size": s.grid.size,
            "tiles": [names[c] for c in s.tile_corners],
            "tiles_placed": s.tiles_placed,
            "buildings_to_place": dict(s.supply),
            "spawns": {COLOURS[p]: None if c is None else names[c] for p, c in enumerate(s.spawns)},
            "lives": {COLOURS[p]: s.lives[p] for p in range(s.players)},
            "pawns": {COLOURS[p]: None if c is None else names[c] for p, c in enumerate(s.pawns)},
            "scores": {
                COLOURS[p]: s.final_scores[p] if s.final_scores else s.score(p)
                for p in range(s.players)
            },
            "buildings": [
                {
                    "id": k,
                    "size": b.size,
                    "cells": [names[c] for c in b.cells],
                    "owner": None if b.owner is None else COLOURS[b.owner],
                    "points": b.points,
                }
                for k, b in enumerate(s.buildings)
            ],
            "building_at": {names[c]: k for k, b in enumerate(s.buildings) for c in b.cells},
            "building_worn": {
                names[c]: [b.points, FULL_POINTS[b.size]]
                for b in s.buildings
                if b.points < FULL_POINTS[b.size]
                for c in b.cells
            },
            "claim": claim,
            "fight": fight,
            "returning": None if s.returning is None else COLOURS[s.returning],
            "last_combat": None
            if s.last_combat is None
            else {
                "attacker": COLOURS[s.last_combat[0]],
                "defender": COLOURS[s.last_combat[1]],
                "rolls": list(s.last_combat[2:]),
                "outcome": _combat_outcome(s.last_combat[2], s.last_combat[3]),
            },
            "last_claim": None
            if s.last_claim is None
            else dict(
                zip(
                    ("player", "building", "roll", "claimed", "outcome"),
                    (
                        COLOURS[s.last_claim[0]],
                        *s.last_claim[1:],
                        "claimed" if s.last_claim[3] else "damaged",
                    ),
                    strict=True,
                )
            ),
        }

    def result(self, state: GameState) -> JSON | None:
        summary = super().result(state)
        s = TakeoverState.of(state)
        if summary is not None:
            summary["scores"] = {COLOURS[p]: n for p, n in enumerate(s.final_scores)}
            summary["last_remaining"] = COLOURS[s.alive()[0]]
        return summary

    def evaluate(self, state: GameState) -> list[float]:
        """For a search: each player's buildings (HT-6) and lives, a life worth a small
        building's point and a share of the last player's bonus."""
        s = TakeoverState.of(state)
        return leads([s.score(p) + 2.0 * s.lives[p] for p in range(s.players)], 6.0)

    def playout_horizon(self) -> int:
        """A game of 300-400 moves a seat, a claim taking several rolls (HT-5): the evaluation
        after 8 random moves judges as well as after 40, in half the time. Against two greedy
        players (30 games, seeds 1000-1029, benchmarks/players.py) the normal level won 15
        judging after 8 and 14 after 40, thinking a median 0.2-0.3 s a move against 0.4-0.7 s."""
        return 8


MAP = ".map"  # the camera spot of a cell: what lies on it under the pawns


def _sensed_map(
    s: TakeoverState, seen: Mapping[str, str]
) -> tuple[set[int], list[Building], list[int]]:
    """Tiles, buildings and spawns from the camera's tokens. A large building's two cells are
    those of a building already placed, or else paired with the next large cell right or below."""
    index = s.grid.index
    tiles: set[int] = set()
    sizes: dict[int, str] = {}
    spawns = []
    for name, token in seen.items():
        if name not in index:
            continue
        cell = index[name]
        tiles.add(cell)
        kind = token.partition(":")[0]
        if kind in FULL_POINTS:
            sizes[cell] = kind
        elif kind == "spawn":
            spawns.append(cell)
    buildings = []
    for b in s.buildings:
        if all(sizes.get(c) == b.size for c in b.cells):
            buildings.append(Building(b.size, b.cells))
            for c in b.cells:
                del sizes[c]
    for cell in sorted(sizes):
        size = sizes.pop(cell, None)
        if size is None:
            continue
        cells = [cell]
        if size == "large":
            partner = next((o for o in s.grid.partners[cell] if sizes.get(o) == "large"), None)
            if partner is not None:
                del sizes[partner]
                cells.append(partner)
        buildings.append(Building(size, tuple(cells)))
    return tiles, buildings, sorted(spawns)


def _not_whole_tiles(cells: set[int], grid: Grid) -> set[int]:
    """The cells of `cells` left over once whole 2x2 blocks are taken from it, top-left first."""
    left = set(cells)
    for corner in sorted(cells):
        block = grid.tile_cells(corner)
        if corner in left and block is not None and left >= set(block):
            left -= set(block)
    return left


def _problem(what: str, key: str, cells: Iterable[int], grid: Grid, shown: int = 8) -> Problem:
    names = [grid.names[c] for c in sorted(set(cells))]
    listed = ", ".join(names[:shown]) + (
        f" and {len(names) - shown} more" if len(names) > shown else ""
    )
    return Problem(f"illegal map: {what}: {listed}", frozenset(names), key, {"cells": listed})


GAME = TakeoverGame()
TakeoverState.game = GAME
