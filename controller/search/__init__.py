"""A stand-in for the table's search (issue 24), replaced by the search branch: UCB1 over the
root's decisions with random playouts, chance drawn with its odds. It keeps the contract that
the rest of the table codes against: `Level`, `LEVELS`, `DEFAULT_LEVEL`, `Choice`, `Thought` and
`think`, reproducible with a seed when stopped by its iterations."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.rules.api import Action, Game, GameState, Hidden

PLAYOUT_LIMIT = 20_000
"""Steps a playout may take before it is scored a draw: every game ends long before."""


@dataclass(frozen=True)
class Level:
    name: str
    iterations: int
    seconds: float


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (Level("easy", 100, 1.0), Level("normal", 600, 2.0), Level("strong", 3000, 5.0))
}
DEFAULT_LEVEL = "normal"


@dataclass(frozen=True)
class Choice:
    action: Action
    share: float  # of the root's visits
    value: float  # mean return for the seat, -1..1


@dataclass(frozen=True)
class Thought:
    best: Action
    ranked: tuple[Choice, ...]  # best first
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
    """The decision for the seat to move in `state`; `hidden` serves only for that seat's own
    choices (the cards in its hand)."""
    seat = state.current_player()
    if seat < 0:
        raise ValueError(f"no decision to think about: {state.player_name(seat)} to move")
    actions = hidden.choices(state) if hidden is not None else state.legal_actions()
    if not actions:
        raise ValueError("no legal decision to think about")
    rng = random.Random(seed)
    limit = level.seconds if seconds is None else seconds
    visits = [0] * len(actions)
    totals = [0.0] * len(actions)
    start = time.monotonic()
    done = 0
    while done < level.iterations:
        if done and ((stop is not None and stop()) or time.monotonic() - start >= limit):
            break
        k = _pick(visits, totals, done, rng)
        totals[k] += _playout(state.child(actions[k]), seat, rng)
        visits[k] += 1
        done += 1
        if progress is not None and done % 16 == 0:
            progress(min(1.0, max(done / level.iterations, (time.monotonic() - start) / limit)))
    ranked = sorted(
        (
            Choice(action, visits[k] / done, totals[k] / visits[k] if visits[k] else 0.0)
            for k, action in enumerate(actions)
        ),
        key=lambda choice: (-choice.share, -choice.value),
    )
    return Thought(ranked[0].action, tuple(ranked), done, time.monotonic() - start)


def _pick(visits: list[int], totals: list[float], done: int, rng: random.Random) -> int:
    """UCB1: each decision once, then the best mean plus its doubt."""
    untried = [k for k, n in enumerate(visits) if n == 0]
    if untried:
        return rng.choice(untried)
    scores = [totals[k] / n + math.sqrt(2.0 * math.log(done) / n) for k, n in enumerate(visits)]
    return max(range(len(scores)), key=scores.__getitem__)


def _playout(state: GameState, seat: int, rng: random.Random) -> float:
    """Random decisions and chance with its odds to the end: the seat's return."""
    state = state.clone()
    for _ in range(PLAYOUT_LIMIT):
        if state.is_terminal():
            return state.returns()[seat]
        if state.is_chance_node():
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply(rng.choices(outcomes, weights)[0])
        else:
            state.apply(rng.choice(state.legal_actions()))
    return 0.0
