"""How much a player is shown at once when decisions are taken by pointing (issue 20).

    python benchmarks/pointing.py [--games 3] [--seed 1]

Each game is played at random (its hidden cards dealt as the simulated table deals them, so a
seat is offered what it holds). At every decision, as the page would show it: the most places
lit as destinations of one tapped place, the most decisions left for the chooser after the last
tap, and the most buttons (decisions the board cannot show); then the most decisions the rules
allow at once, which a list would have shown.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.rules import GAMES
from controller.session import differing
from controller.simulate import random_step
from controller.snapshot import board_places, decision_places

STEPS = 3000


def measure(name: str, games: int, seed: int) -> dict[str, int]:
    game = GAMES[name]
    places = board_places(game)
    worst = Counter[str]()
    rng = random.Random(seed)
    for _ in range(games):
        state = game.new_initial_state()
        hidden = game.deal(state, rng)
        for _ in range(STEPS):
            if state.is_terminal():
                break
            if not state.is_chance_node():
                offered = state.legal_actions() if hidden is None else hidden.choices(state)
                before = game.layout(state)
                ends: Counter[tuple[str, str | None]] = Counter()
                targets: defaultdict[str, set[str]] = defaultdict(set)
                buttons = 0
                for action in offered:
                    after = game.layout(state.child(action))
                    changes = differing(after, before)
                    at, to = decision_places(game, state, action, before, after, changes, places)
                    if at is None:
                        buttons += 1
                        continue
                    ends[at, to] += 1
                    if to is not None:
                        targets[at].add(to)
                found = {
                    "destinations": max((len(t) for t in targets.values()), default=0),
                    "chooser": max(ends.values(), default=0),
                    "buttons": buttons,
                    "legal": len(state.legal_actions()),
                }
                for key, value in found.items():
                    worst[key] = max(worst[key], value)
            random_step(state, rng, hidden)
    return dict(worst)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3, help="random games of each (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("game            destinations  chooser  buttons  legal decisions (a list)")
    for name in GAMES:
        w = measure(name, args.games, args.seed)
        print(
            f"{name:<15} {w['destinations']:>12}  {w['chooser']:>7}  {w['buttons']:>7}"
            f"  {w['legal']:>15}"
        )


if __name__ == "__main__":
    main()
