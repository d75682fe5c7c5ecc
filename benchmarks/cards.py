"""The card games' rules engines: listing legal actions, and random games per second.

For Multipli Potion and Mightymania:
- listing: `legal_actions()` at every decision of random games played from real hidden hands
  (median and p99 over all of them), and on the busiest one found: for Multipli Potion, a
  placement with the most hidden cards and empty slots;
- playouts: random games per second through `smartboard simulate`, for each deck option.

Run: .venv/bin/python benchmarks/cards.py [--search 200] [--repeat 2000] [--games 1000]
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from timing import figures, timed

from controller.rules.api import Game, GameState
from controller.rules.mightymania import GAME as MIGHTYMANIA
from controller.rules.potions import GAME as POTIONS
from controller.simulate import random_step, simulate

OPTIONS: dict[str, list[dict[str, Any]]] = {
    "potions": [{}, {"colours": "green"}, {"colours": "purple"}, {"deck": "64"}],
    "mightymania": [{}],
}


def decisions(game: Game, games: int, seed: int) -> list[GameState]:
    """Every decision node of `games` random games, played from real hands."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        state = game.new_initial_state()
        hidden = game.deal(state, rng)
        while not state.is_terminal():
            if not state.is_chance_node():
                found.append(state.clone())
            random_step(state, rng, hidden)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search", type=int, default=200, help="games searched for positions")
    parser.add_argument("--repeat", type=int, default=2000, help="timed listings")
    parser.add_argument("--games", type=int, default=1000, help="random games per option set")
    args = parser.parse_args()

    for game in (POTIONS, MIGHTYMANIA):
        states = decisions(game, args.search, seed=1)
        sample = random.Random(2).choices(states, k=args.repeat)
        times = sorted(t for s in sample for t in timed(s.legal_actions, 1))
        print(
            f"{game.name} listing: {len(states)} decisions of {args.search} random games, "
            f"{len(sample)} listings: {figures(times, 4)} (target: median <= 0.5 ms)"
        )
        busiest = max(states, key=lambda s: len(s.legal_actions()))
        times = timed(busiest.legal_actions, args.repeat)
        print(
            f"{game.name} listing: busiest decision has {len(busiest.legal_actions())} legal "
            f"actions; {args.repeat} listings: {figures(times, 4)}"
        )
        for options in OPTIONS[game.name]:
            report = simulate(game, args.games, seed=5, options=options)
            print(
                f"{game.name} playouts {options or 'default'}: "
                f"{report['finished']}/{report['games']} finished, {report['draws']} draws, "
                f"{report['games_per_second']} games/s, {report['mean_actions']:.1f} actions/game"
            )


if __name__ == "__main__":
    main()
