"""The table as a player: a search over the rules engine at three strengths (issue 24).

`think` runs Monte Carlo tree search (mcts.py) from a decision node for the player to move and
returns its move with the alternatives it weighed. In a game with hidden cards it searches
worlds dealt to fit the public state, keeping only the deciding seat's own secrets from what the
table knows (`hidden`): it never reads another seat's. A level caps the playouts and the think
time; with the same seed, a search that ends on its playout cap, not on the clock, gives the same
move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.rules.api import Action, Game, GameState, Hidden
from controller.search.mcts import Budget, Worlds, choices, one_ply, search


@dataclass(frozen=True)
class Level:
    """A strength: playouts at most, think time at most (seconds), and the actions a playout
    runs before the game's evaluation, where it has one, ends it; and whether the root's moves
    are weighed one ply ahead first."""

    name: str
    iterations: int
    seconds: float
    playout: int = 40
    prior: bool = True


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("easy", iterations=60, seconds=0.5, playout=20, prior=False),
        # The clock is normal's usual cap here: 1.8 s keeps its median under issue 24's 2 s.
        Level("normal", iterations=1500, seconds=1.8),
        Level("strong", iterations=8000, seconds=4.5),
    )
}
DEFAULT_LEVEL = "normal"


def level_named(name: str) -> Level:
    """The level called `name`; a ValueError names the known ones."""
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown level {name!r}; known levels: {', '.join(LEVELS)}") from None


@dataclass(frozen=True)
class Choice:
    """One move weighed: its share of the root's playouts, and its mean return for the seat
    (-1..1)."""

    action: Action
    share: float
    value: float


@dataclass(frozen=True)
class Thought:
    """What a search found: the move to play, every move weighed (best first), and its cost."""

    best: Action
    ranked: tuple[Choice, ...]
    iterations: int
    seconds: float


def think(
    game: Game,
    state: GameState,
    level: Level,
    seed: int,
    *,
    hidden: Hidden | None = None,
    seconds: float | None = None,
    progress: Callable[[float], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Thought:
    """The move of the player to move in `state`, a decision node.

    `hidden`: the hidden cards as the table keeps them in step; only the deciding seat's own
    secrets are used. None: nothing is known, every hidden card is dealt afresh each playout.
    `seconds` replaces the level's think time; `progress(fraction)` hears how much of the budget
    is spent; `stop()` returning True ends the search with the best move so far.
    """
    seat = state.current_player()
    if seat < 0:
        raise ValueError(f"no move to think of: {state.player_name(seat)} is to move")
    rng = random.Random(seed)
    own = choices(game, state, hidden)
    if len(own) == 1:
        return Thought(own[0], (Choice(own[0], 1.0, 0.0),), 0, 0.0)
    start = time.perf_counter()
    limit = level.seconds if seconds is None else seconds
    horizon = game.playout_horizon()
    depth = level.playout if horizon is None else min(level.playout, horizon)
    budget = Budget(level.iterations, start, limit, depth, progress, stop)
    worlds = Worlds(game, state, seat, hidden)
    # The moves in the order one look ahead likes them, which widening admits them in: with
    # hundreds of moves, the likely ones are weighed first. A quarter of the time at most goes
    # to it; the moves left unweighed come after.
    guesses: dict[Action, float] = {}
    for action in own if level.prior else ():
        if time.perf_counter() - start > limit / 4:
            break
        guesses[action] = one_ply(worlds, action, rng)
    order = rng.sample(own, len(own))  # moves the guesses tie on, in no fixed order
    order.sort(key=lambda action: -guesses.get(action, -2.0))
    root, iterations = search(worlds, rng, budget, order)
    spent = time.perf_counter() - start
    visited = max(1, sum(child.visits for child in root.children.values()))
    ranked = sorted(
        (
            Choice(action, child.visits / visited, child.total[seat] / child.visits)
            for action, child in root.children.items()
        ),
        key=lambda choice: (-choice.share, -choice.value),
    )
    if not ranked:  # stopped before a single playout: any legal move will do
        ranked = [Choice(action, 0.0, 0.0) for action in own]
    return Thought(ranked[0].action, tuple(ranked), iterations, spent)
