"""The best any player can do against the random bot: an upper bound, by exhaustive search
(issue 24).

Issue 24 asks the strong level to win 95 % of two-player games against the random bot. In a game
decided mostly by the dice no player can, and this says by how much. From the game's start it
searches every line of play for `--depth` actions: the seat picks its best action, the random
bot each of its legal actions with equal odds (as `benchmarks/players.py`'s random bot does),
chance each outcome with its odds. A line still going at the horizon counts as won, so the
figure is the seat's win chance under perfect play if every game left undecided then were won:
no player, searching or not, wins more often against the random bot. A deeper horizon gives a
lower, tighter bound.

    python benchmarks/ceiling.py [--game NAME] [--seat N] [--depth D ...] [--json]

The search is exact: states met again by another line are looked up by all their fields. Games
whose players hold hidden cards are refused: the random bot's choices there depend on a deal.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from controller.rules import GAMES
from controller.rules.api import GameState


class Ceiling:
    """The seat's best win chance against the random bot over a horizon of actions."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.known: dict[tuple[str, int], float] = {}
        self.visited = 0

    def value(self, state: GameState, depth: int) -> float:
        self.visited += 1
        if state.is_terminal():
            return 1.0 if state.returns()[self.seat] > 0 else 0.0
        if depth == 0:
            return 1.0  # undecided at the horizon: counted as won, so the figure bounds
        key = (_fields(state), depth)
        found = self.known.get(key)
        if found is not None:
            return found
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            won = sum(odds * self.value(state.child(a), depth - 1) for a, odds in outcomes)
        else:
            values = [self.value(state.child(a), depth - 1) for a in state.legal_actions()]
            ours = state.current_player() == self.seat
            won = max(values) if ours else sum(values) / len(values)
        self.known[key] = won
        return won


def _fields(state: GameState) -> str:
    """Everything the state holds but its history: two lines that meet are one state."""
    fields = state._fields()
    return repr(sorted((k, repr(v)) for k, v in fields.items() if k not in {"_history", "options"}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="akuma", help="a two-player game (default: akuma)")
    parser.add_argument("--seat", type=int, nargs="*", help="seats from 0 (default: each)")
    parser.add_argument(
        "--depth", type=int, nargs="+", default=[6, 8, 10], help="horizons in actions"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)
    if args.game not in GAMES:
        parser.error(f"unknown game {args.game!r}; known games: {', '.join(sorted(GAMES))}")
    game = GAMES[args.game]
    start = game.new_initial_state()
    if start.num_players != 2:
        parser.error(f"{args.game} has {start.num_players} players: the bound is for two")
    if game.deal(game.new_initial_state(), random.Random(0)) is not None:
        parser.error(f"{args.game} deals hidden cards: the random bot's choices depend on them")
    seats = args.seat if args.seat else list(range(start.num_players))
    if any(not 0 <= seat < start.num_players for seat in seats):
        parser.error(f"--seat: seats are 0 to {start.num_players - 1}")
    if any(depth < 1 for depth in args.depth):
        parser.error("--depth: horizons are 1 action or more")
    for seat in seats:
        for depth in sorted(args.depth):
            ceiling = Ceiling(seat)
            began = time.perf_counter()
            bound = ceiling.value(start.clone(), depth)
            row = {
                "game": args.game,
                "seat": start.player_name(seat),
                "depth": depth,
                "win_at_most": round(bound, 4),
                "states": len(ceiling.known),
                "seconds": round(time.perf_counter() - began, 1),
            }
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(
                    f"{row['game']} {row['seat']}: wins at most {bound:.1%} against the random "
                    f"bot (horizon {depth} actions, {row['states']:,} states, "
                    f"{row['seconds']} s)",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
