"""A one-ply greedy player: the baseline the search is measured against (benchmarks/players.py).

It tries each of its moves, lets chance run to the next decision a few times, and takes the move
whose positions the game's evaluation likes best for it; a game without an evaluation plays each
sample out at random instead. Like the search, it keeps only its own secrets.
"""

from __future__ import annotations

import random

from controller.rules.api import Action, Game, GameState, Hidden
from controller.search.mcts import Worlds, choices, one_ply

SAMPLES = 6
"""Worlds each move is tried in: chance and the others' cards differ from one to the next."""


def greedy_move(
    game: Game, state: GameState, rng: random.Random, hidden: Hidden | None = None
) -> Action:
    seat = state.current_player()
    own = choices(game, state, hidden)
    if len(own) == 1:
        return own[0]
    worlds = Worlds(game, state, seat, hidden)
    best: list[Action] = []
    best_value = -float("inf")
    for action in own:
        value = sum(one_ply(worlds, action, rng) for _ in range(SAMPLES))
        if value > best_value + 1e-9:
            best, best_value = [action], value
        elif value > best_value - 1e-9:
            best.append(action)
    return rng.choice(best)
