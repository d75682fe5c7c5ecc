"""Random playouts through the rules alone, for `smartboard simulate` and the tests."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from controller.rules.api import JSON, Action, Game, GameState, Hidden


def random_step(state: GameState, rng: random.Random, hidden: Hidden | None = None) -> Action:
    """Play one uniformly random decision, or a chance outcome drawn with its odds.

    A decision is drawn by the state (`GameState.sample`: as likely as any other, without
    listing them all where that is slow). With the players' hidden cards, decisions come from
    what they really hold, and outcomes that the cards decide are the real ones. An action the
    state drew is played without being checked again; one from the hidden cards is checked.
    """
    if state.is_chance_node():
        action = hidden.outcome(state) if hidden is not None else None
        if action is None:
            outcomes, weights = zip(*state.chance_outcomes(), strict=True)
            action = rng.choices(outcomes, weights)[0]
            state.play(action)
        else:
            state.apply(action)
    elif hidden is None:
        action = state.sample(rng)
        state.play(action)
    else:
        action = rng.choice(hidden.choices(state))
        state.apply(action)
    if hidden is not None:
        hidden.observe(action, state)
    return action


def play_random_game(
    game: Game,
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    max_actions: int = 100_000,
    check: Callable[[GameState], None] | None = None,
) -> GameState:
    state = game.new_initial_state(options)
    hidden = game.deal(state, rng)
    for _ in range(max_actions):
        if state.is_terminal():
            break
        random_step(state, rng, hidden)
        if check is not None:
            check(state)
    return state


def simulate(game: Game, games: int, seed: int, options: Mapping[str, Any] | None = None) -> JSON:
    """Play random games; wins per player, and mean scores when the game keeps a score."""
    rng = random.Random(seed)
    first = game.new_initial_state(options)  # refuses bad options before any game is played
    wins = {first.player_name(p): 0 for p in range(first.num_players)}
    score_totals: dict[str, float] = {}
    score_counts: dict[str, int] = {}
    finished = draws = 0
    actions = 0
    start = time.perf_counter()
    for _ in range(games):
        state = play_random_game(game, rng, options)
        actions += len(state.actions())
        if state.is_terminal():
            finished += 1
            draws += not any(value > 0 for value in state.returns())
            for player, value in enumerate(state.returns()):
                if value > 0:
                    name = state.player_name(player)
                    wins[name] = wins.get(name, 0) + 1
            result = game.result(state) or {}
            for name, score in result.get("scores", {}).items():
                score_totals[name] = score_totals.get(name, 0.0) + score
                score_counts[name] = score_counts.get(name, 0) + 1
    seconds = time.perf_counter() - start
    report: JSON = {
        "game": game.name,
        "games": games,
        "finished": finished,
        "wins": wins,
        "draws": draws,
        "mean_actions": actions / games if games else 0.0,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 1) if seconds else None,
    }
    if score_counts:
        report["mean_scores"] = {n: score_totals[n] / score_counts[n] for n in score_counts}
    return report
