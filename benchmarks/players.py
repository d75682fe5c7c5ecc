"""The computer players against the random bot and the one-ply greedy player (issue 24).

Per game, level and opponent, seeded games with the computer in one seat, the seat rotating from
game to game, every other seat the opponent. Prints the computer's wins (and draws), its share of
the games against a fair seat's 1/N, the median and p95 think time per move, and playouts per
second. The computer sees only its own secrets; the opponents play from their real hands. The
computer lays its secret cards (Mightymania's power cards) by the game's judgement, and so does
the greedy player; the random bot lays any.

    python benchmarks/players.py [--json] [--games N] [--game NAME] [--level L]
        [--opponent random|greedy] [--players N] [--seed FIRST] [--baseline]

`--baseline` plays the opponent in every seat instead and prints each seat's wins: what the
rotation averages over (in Akuma the first side wins most games whoever plays it).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from controller.rules import GAMES
from controller.rules.api import Action, Game, GameState, Hidden
from controller.search import LEVELS, Level, level_named, think
from controller.search.greedy import greedy_move
from controller.search.mcts import chance, step

MAX_ACTIONS = 50_000
"""A game still going after this many actions counts as unfinished (none has been)."""

Opponent = Callable[[Game, GameState, random.Random, Hidden | None], Action]


def random_move(game: Game, state: GameState, rng: random.Random, hidden: Hidden | None) -> Action:
    """The simulated table's bot: any decision its hand allows, uniformly."""
    return rng.choice(state.legal_actions() if hidden is None else hidden.choices(state))


OPPONENTS: dict[str, Opponent] = {"random": random_move, "greedy": greedy_move}
JUDGING = {"greedy"}
"""Opponents that lay their secret cards (Mightymania's power cards) by the game's judgement,
as the computer does (`Hidden.decide_for`); the random bot lays any."""


def judging(opponent: str, seats: int, computer: int | None = None) -> frozenset[int]:
    """The seats that lay secret cards by judgement: the computer's, and the opponents' too
    when they judge."""
    everyone = frozenset(range(seats)) if opponent in JUDGING else frozenset()
    return everyone if computer is None else everyone | {computer}


def play(
    game: Game, level: Level, opponent: str, seed: int, seat: int, options: dict[str, Any]
) -> tuple[float, list[float], int, float]:
    """One game: the computer's return, its think times, its playouts and their seconds."""
    rng = random.Random(seed)
    state = game.new_initial_state(options)
    hidden = game.deal(state, rng)
    if hidden is not None:
        hidden.decide_for(judging(opponent, state.num_players, seat))
    their_move = OPPONENTS[opponent]
    times: list[float] = []
    playouts = 0
    searching = 0.0
    for move in range(MAX_ACTIONS):
        if state.is_terminal():
            return state.returns()[seat], times, playouts, searching
        if state.is_chance_node():
            action = chance(state, hidden, rng)
        elif state.current_player() == seat:
            start = time.perf_counter()
            thought = think(game, state, level, seed * 100_003 + move, hidden=hidden)
            action = thought.best
            if thought.iterations:
                times.append(time.perf_counter() - start)
                playouts += thought.iterations
                searching += thought.seconds
        else:
            action = their_move(game, state, rng, hidden)
        step(state, hidden, action)
    return 0.0, times, playouts, searching


def cell(
    game: Game, level: Level, opponent: str, games: int, options: dict[str, Any], first: int = 0
) -> dict[str, Any]:
    seats = game.new_initial_state(options).num_players
    wins = draws = playouts = 0
    by_seat = [0] * seats  # the computer's wins in each seat it took
    seconds = 0.0
    times: list[float] = []
    start = time.perf_counter()
    for g in range(first, first + games):
        result, moves, done, spent = play(game, level, opponent, g, g % seats, options)
        wins += result > 0
        by_seat[g % seats] += result > 0
        draws += result == 0
        times += moves
        playouts += done
        seconds += spent
    times.sort()
    return {
        "game": game.name,
        "players": seats,
        "level": level.name,
        "opponent": opponent,
        "games": games,
        "first_seed": first,
        "wins": wins,
        "draws": draws,
        "win_share": round(wins / games, 3),
        "seat_wins": by_seat,
        "seat_games": [
            sum(g % seats == k for g in range(first, first + games)) for k in range(seats)
        ],
        "fair_share": round(1 / seats, 3),
        "think_median_s": round(statistics.median(times), 3) if times else None,
        "think_p95_s": round(times[int(0.95 * (len(times) - 1))], 3) if times else None,
        "moves": len(times),
        "playouts_per_s": round(playouts / seconds) if seconds else None,
        "wall_s": round(time.perf_counter() - start, 1),
    }


def baseline(
    game: Game, opponent: str, games: int, options: dict[str, Any], first: int = 0
) -> dict[str, Any]:
    """The opponent in every seat: each seat's wins and draws."""
    seats = game.new_initial_state(options).num_players
    move = OPPONENTS[opponent]
    wins = [0] * seats
    draws = 0
    for g in range(first, first + games):
        rng = random.Random(g)
        state = game.new_initial_state(options)
        hidden = game.deal(state, rng)
        if hidden is not None:
            hidden.decide_for(judging(opponent, seats))
        for _ in range(MAX_ACTIONS):
            if state.is_terminal():
                break
            if state.is_chance_node():
                action = chance(state, hidden, rng)
            else:
                action = move(game, state, rng, hidden)
            step(state, hidden, action)
        returns = state.returns() if state.is_terminal() else [0.0] * seats
        for seat, value in enumerate(returns):
            wins[seat] += value > 0
        draws += not any(value > 0 for value in returns)
    return {
        "game": game.name,
        "players": seats,
        "baseline": opponent,
        "games": games,
        "first_seed": first,
        "seat_wins": wins,
        "seat_shares": [round(w / games, 3) for w in wins],
        "draws": draws,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--games", type=int, default=200, help="games per cell (default 200)")
    parser.add_argument("--game", choices=sorted(GAMES), action="append", help="default: all")
    parser.add_argument("--level", choices=list(LEVELS), action="append", help="default: all")
    parser.add_argument("--opponent", choices=list(OPPONENTS), action="append")
    parser.add_argument("--players", type=int, help="seats, for games that take the option")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed (default 0)")
    parser.add_argument(
        "--baseline", action="store_true", help="the opponent in every seat: wins per seat"
    )
    args = parser.parse_args()
    for name in args.game or list(GAMES):
        game = GAMES[name]
        takes = any(option.name == "players" for option in game.info.options)
        options = {"players": args.players} if args.players and takes else {}
        if args.baseline:
            for opponent in args.opponent or list(OPPONENTS):
                row = baseline(game, opponent, args.games, options, args.seed)
                print(json.dumps(row) if args.json else _baseline_line(row), flush=True)
            continue
        for level_name in args.level or list(LEVELS):
            for opponent in args.opponent or list(OPPONENTS):
                level = level_named(level_name)
                row = cell(game, level, opponent, args.games, options, args.seed)
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    print(
                        f"{row['game']:<12} {row['players']}p {row['level']:<7} "
                        f"vs {row['opponent']:<7} {row['wins']:>4}/{row['games']} won "
                        f"({row['win_share']:.0%}, fair {row['fair_share']:.0%}; by seat "
                        f"{'+'.join(map(str, row['seat_wins']))}), "
                        f"{row['draws']} drawn; think median {row['think_median_s']} s, "
                        f"p95 {row['think_p95_s']} s; {row['playouts_per_s']} playouts/s",
                        flush=True,
                    )


def _baseline_line(row: dict[str, Any]) -> str:
    seats = ", ".join(f"seat {k + 1} {share:.0%}" for k, share in enumerate(row["seat_shares"]))
    return (
        f"{row['game']:<12} {row['players']}p {row['baseline']} in every seat, "
        f"{row['games']} games: {seats}; {row['draws']} drawn"
    )


if __name__ == "__main__":
    main()
