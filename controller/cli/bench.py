"""`smartboard bench`: measure parts of the table."""

from __future__ import annotations

import argparse
import json

from controller.cli.arguments import Commands
from controller.cli.errors import EX_USAGE, CommandError


def add_commands(commands: Commands) -> None:
    bench = commands.add_parser("bench", help="measure parts of the table")
    bench_sub = bench.add_subparsers(required=True, metavar="WHAT")
    link = bench_sub.add_parser(
        "link",
        help="piece events and LED frames through the serial link to the microcontroller, "
        "with faults injected, on a simulated table over a pseudo-terminal",
    )
    link.add_argument("--events", type=int, default=10_000, help="piece events (default 10000)")
    link.add_argument("--seed", type=int, default=1)
    link.add_argument("--json", action="store_true", help="print one JSON object")
    link.set_defaults(command=_bench_link)


def _bench_link(args: argparse.Namespace) -> int:
    from hardware.link_bench import run_link_bench  # spawns a process: only for this command

    if args.events < 1:
        raise CommandError("bench link: --events must be at least 1", EX_USAGE)
    result = run_link_bench(args.events, seed=args.seed)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    ok = result["lost"] == 0 and result["duplicated"] == 0 and result["leds_converged"]
    return 0 if ok else 1
