"""Sensor edge to LED frame written, on simulated pins and strip, less the debounce time.

Two figures:
- feedback: a piece put down or lifted where no move fits, so the spot lights as "changed";
- moves: a trap put down after a 10, inferred as the move, journalled with fsync, then lit.

Run: .venv/bin/python benchmarks/latency.py [--edges 10000] [--moves 300]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from controller.config import load_config
from controller.control import request
from controller.daemon import Daemon, RunOptions
from hardware.leds import Frame

DEBOUNCE_S = 0.002


def start_daemon(state_dir: Path) -> tuple[Daemon, threading.Thread, threading.Event]:
    config = replace(load_config(None).simulated(), debounce_s=DEBOUNCE_S)
    daemon = Daemon(config, RunOptions(state_dir=state_dir, socket_path=state_dir / "c.sock"))
    daemon.open()
    written = threading.Event()
    show = daemon.strip.show

    def show_and_signal(frame: Frame) -> None:
        show(frame)
        written.set()

    daemon.strip.show = show_and_signal  # type: ignore[method-assign]
    thread = threading.Thread(target=daemon.run)
    thread.start()
    return daemon, thread, written


def stop(daemon: Daemon, thread: threading.Thread) -> None:
    daemon.stop()
    thread.join()
    daemon.close()


def edge_to_frame(daemon: Daemon, written: threading.Event, spot: str, occupied: bool) -> float:
    written.clear()
    start = time.monotonic()
    daemon.reeds.drive(spot, occupied)
    if not written.wait(timeout=5):
        raise RuntimeError(f"no LED frame after {spot} -> {occupied}")
    frame_time = daemon.strip.frames[-1][0]  # type: ignore[attr-defined]
    return (frame_time - start - DEBOUNCE_S) * 1000


def feedback(edges: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        daemon, thread, written = start_daemon(Path(tmp))
        try:
            return [edge_to_frame(daemon, written, "1.shellter", i % 2 == 0) for i in range(edges)]
        finally:
            stop(daemon, thread)


def moves(count: int) -> list[float]:
    results = []
    for i in range(count):
        with tempfile.TemporaryDirectory() as tmp:
            daemon, thread, written = start_daemon(Path(tmp))
            try:
                request(daemon.options.socket_path, {"op": "roll", "values": [5, 5]})
                time.sleep(0.01)  # let the roll's own frame go out first
                results.append(edge_to_frame(daemon, written, f"{1 + i % 9}.trap", True))
                assert daemon.session.state.actions()[-1].id.startswith("place_trap")
            finally:
                stop(daemon, thread)
    return results


def report(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(
        f"{name}: {len(samples)} edges, median {statistics.median(samples):.2f} ms, "
        f"p99 {p99:.2f} ms, max {samples[-1]:.2f} ms (debounce {DEBOUNCE_S * 1000:.0f} ms excluded)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    report("feedback", feedback(args.edges))
    report("moves", moves(args.moves))


if __name__ == "__main__":
    main()
