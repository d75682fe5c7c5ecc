"""Monte Carlo tree search over the rules engine (UCT, as OpenSpiel's `mcts.py`), and its
information-set form for games with hidden cards (single-observer ISMCTS with determinisation,
Cowling, Powley and Whitehouse 2012).

Chance nodes are the engine's own: an iteration draws each outcome with its odds, or takes the
one its dealt cards decide. Each node keeps the sum of every player's returns, and the player to
move picks the child best for themselves, so three or four seats search as two do.

With hidden cards, every iteration plays in a world of its own: the hidden cards dealt afresh to
fit the public state (`Hidden.redeal`), the searching seat's own secrets kept as they are. A
node's children are those its worlds allowed; UCB counts how often each child was available
rather than how often its parent was visited.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.rules.api import Action, Game, GameState, Hidden

EXPLORATION = 1.0
"""UCB's exploration constant, for returns in -1..1."""

MAX_PLAYOUT = 100_000
"""Actions at most in a playout of a game without an evaluation: a guard, never reached."""

WIDENING = 2.0
"""Progressive widening: a node visited n times has at most WIDENING * sqrt(n + 1) children,
so that a move among hundreds is weighed over several playouts, not one."""

CHECK_EVERY = 8
"""Iterations between looks at the caller's `stop` and reports of `progress`."""


class Node:
    """A node of the search tree: the children tried, each player's summed returns."""

    __slots__ = ("available", "children", "total", "visits")

    def __init__(self, players: int) -> None:
        self.visits = 0
        self.available = 1  # the iterations in which its action could be played (ISMCTS)
        self.total = [0.0] * players
        self.children: dict[Action, Node] = {}


@dataclass(frozen=True)
class Budget:
    """When a search ends: after `iterations`, `seconds` after `start`, or when `stop()` says
    so; and how long its playouts run before an evaluation."""

    iterations: int
    start: float  # on time.perf_counter()'s clock
    seconds: float
    playout: int
    progress: Callable[[float], None] | None = None
    stop: Callable[[], bool] | None = None


class Worlds:
    """The states one iteration may play in: the state itself, with hidden cards dealt to fit
    it when the game has them."""

    def __init__(self, game: Game, state: GameState, seat: int, hidden: Hidden | None) -> None:
        self.game = game
        self.state = state
        self.seat = seat
        self.hidden = hidden
        self.everyone = frozenset(range(state.num_players))

    def sample(self, rng: random.Random) -> tuple[GameState, Hidden | None]:
        world = self.state.clone()
        if self.hidden is not None:
            hidden: Hidden | None = self.hidden.redeal(world, rng, self.seat)
        else:
            # Nothing known of the hidden cards, the seat's own included: deal them all.
            hidden = self.game.deal(world, rng)
        if hidden is not None:
            # Everyone lays their secret cards with judgement: the seat as it will, the
            # others as players who think would.
            hidden.decide_for(self.everyone)
        return world, hidden


def choices(game: Game, state: GameState, hidden: Hidden | None) -> list[Action]:
    """The decisions the player to move can make in this world, one of each kind that the
    rules treat alike."""
    return game.search_actions(state, hidden)


def drawn(game: Game, state: GameState, hidden: Hidden | None, rng: random.Random) -> Action:
    """A playout's random decision among `choices`: drawn by the state itself, which may do so
    without listing them all (`GameState.sample`), where these are all its legal actions: no
    hidden cards, and a game whose search weighs every action (no `search_actions` of its
    own)."""
    if hidden is None and type(game).search_actions is Game.search_actions:
        return state.sample(rng)
    return rng.choice(choices(game, state, hidden))


def step(state: GameState, hidden: Hidden | None, action: Action) -> None:
    state.play(action)
    if hidden is not None:
        hidden.observe(action, state)


def chance(state: GameState, hidden: Hidden | None, rng: random.Random) -> Action:
    """The outcome at a chance node: the one the world's cards decide, or one drawn with its
    odds."""
    outcome = hidden.outcome(state) if hidden is not None else None
    if outcome is not None:
        return outcome
    outcomes = state.chance_outcomes()
    drawn: Action = rng.choices(outcomes, [odds for _, odds in outcomes])[0][0]
    return drawn


def playout(
    game: Game, state: GameState, hidden: Hidden | None, rng: random.Random, depth: int
) -> list[float]:
    """Random play to the end, or for `depth` actions when the game can evaluate a position."""
    for played in range(MAX_PLAYOUT):
        if state.is_terminal():
            break
        if played >= depth:
            guess = game.evaluate(state)
            if guess is not None:
                return guess
            depth = MAX_PLAYOUT  # no guess to be had: play on to the end
        if state.is_chance_node():
            action = chance(state, hidden, rng)
        else:
            action = drawn(game, state, hidden, rng)
        step(state, hidden, action)
    return state.returns()


def one_ply(worlds: Worlds, action: Action, rng: random.Random) -> float:
    """The seat's return after `action` in one world, as the evaluation guesses it once chance
    has run to the next decision; a game without an evaluation plays the world out at random."""
    game = worlds.game
    world, hidden = worlds.sample(rng)
    step(world, hidden, action)
    while world.is_chance_node():
        step(world, hidden, chance(world, hidden, rng))
    if world.is_terminal():
        return world.returns()[worlds.seat]
    guess = game.evaluate(world)
    if guess is None:
        guess = playout(game, world, hidden, rng, MAX_PLAYOUT)
    return guess[worlds.seat]


def search(
    worlds: Worlds, rng: random.Random, budget: Budget, order: list[Action]
) -> tuple[Node, int]:
    """Grow a tree from `worlds.state`, its moves tried in `order` first; the root and the
    iterations run."""
    game, players = worlds.game, worlds.state.num_players
    root = Node(players)
    start, seconds = budget.start, budget.seconds
    iterations = 0
    rank = {action: k for k, action in enumerate(order)}
    while iterations < budget.iterations:
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
        if iterations % CHECK_EVERY == 0:
            if budget.stop is not None and budget.stop():
                break
            if budget.progress is not None:
                budget.progress(max(iterations / budget.iterations, elapsed / seconds))
        world, hidden = worlds.sample(rng)
        path = [root]
        node = root
        expanded = False
        while not expanded and not world.is_terminal():
            if world.is_chance_node():
                action = chance(world, hidden, rng)
            else:
                prior = rank if node is root else None
                action, expanded = _select(game, node, world, hidden, rng, prior)
            child = node.children.get(action)
            if child is None:
                child = node.children[action] = Node(players)
            step(world, hidden, action)
            node = child
            path.append(node)
        returns = playout(game, world, hidden, rng, budget.playout)
        for visited in path:
            visited.visits += 1
            for player, value in enumerate(returns):
                visited.total[player] += value
        iterations += 1
    return root, iterations


def _select(
    game: Game,
    node: Node,
    world: GameState,
    hidden: Hidden | None,
    rng: random.Random,
    prior: dict[Action, int] | None,
) -> tuple[Action, bool]:
    """UCB among the children this world allows; or, while the node's visits allow another
    child (progressive widening), a move not tried yet: the first in `prior`'s order, else one
    at random. True when the tree grows by it and the iteration plays out from there."""
    actions = choices(game, world, hidden)
    player = world.current_player()
    untried = []
    best: Action | None = None
    best_score = -math.inf
    for action in actions:
        child = node.children.get(action)
        if child is None:
            untried.append(action)
            continue
        child.available += 1
        score = child.total[player] / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if score > best_score:
            best, best_score = action, score
    if untried and (best is None or len(node.children) < WIDENING * math.sqrt(node.visits + 1)):
        if prior is None:
            return rng.choice(untried), True
        return min(untried, key=lambda action: prior.get(action, len(prior))), True
    assert best is not None, "a decision node with no action"
    return best, False
