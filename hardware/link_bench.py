"""`smartboard bench link`: piece events through the serial link with faults injected.

The firmware's logic runs in its own process on a simulated 16x16 matrix behind a
pseudo-terminal (hardware/link_sim.py); the host side is hardware/serial_link.py. Reeds are
flipped at random, at most `window` waiting for the host at once, and never a cell whose last flip
the host has not reported, so every flip is one change the host must report exactly once. Along
the way: corrupted, dropped and duplicated frames and garbage bytes, a firmware reset and an
unplug and replug. LED frames are sent throughout; at the end the firmware must show the latest.
"""

from __future__ import annotations

import queue
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from hardware.link_sim import Faults, SimTable
from hardware.serial_link import SerialLink

BENCH_CONFIG: dict[str, Any] = {
    "rows": 16,
    "cols": 16,
    "led_count": 256,
    "scan_ms": 2,
    "debounce_scans": 3,
    "resend_ms": 20,
    "host_timeout_ms": 1500,
    "queue_capacity": 512,
}
DEFAULT_FAULTS = Faults(corrupt=0.002, drop=0.002, duplicate=0.002, garbage=0.002)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def frame_round_trips(link: SerialLink, frames: list[bytes], wait_s: float = 2.0) -> list[float]:
    """Each LED frame shown in turn, and the seconds from show() to the firmware's
    acknowledgement: the link's round trip with a frame's bytes on the wire. A frame not
    acknowledged within `wait_s` has no time."""
    times: list[float] = []
    for frame in frames:
        acks = len(link.frame_acks)
        link.show(frame)
        deadline = time.monotonic() + wait_s
        while len(link.frame_acks) == acks and time.monotonic() < deadline:
            time.sleep(0.0005)
        if len(link.frame_acks) > acks:
            times.append(link.frame_acks[-1][1])
    return times


def run_link_bench(
    events: int = 10_000,
    seed: int = 1,
    faults: Faults = DEFAULT_FAULTS,
    window: int = 16,
    reset: bool = True,
    unplug: bool = True,
    led_frames: int = 20,
) -> dict[str, Any]:
    config = dict(BENCH_CONFIG)
    rows, cols, leds = config["rows"], config["cols"], config["led_count"]
    hold_s = (config["debounce_scans"] - 1) * config["scan_ms"] / 1000
    rng = random.Random(seed)
    changes: queue.Queue[tuple[int, int, bool, float, bool]] = queue.Queue()
    with tempfile.TemporaryDirectory(prefix="smartboard-link-") as tmp:
        path = Path(tmp) / "ttySmartboard"
        table = SimTable(path, config, faults, seed)
        link = SerialLink(str(path), rows, cols, leds)
        link.on_change = lambda r, c, value, at: changes.put((r, c, value, at, link.in_snapshot))
        try:
            link.start(wait_s=10)
            return _drive(
                table,
                link,
                changes,
                events,
                rng,
                window,
                reset,
                unplug,
                hold_s,
                led_frames,
                rows,
                cols,
                leds,
            )
        finally:
            link.close()
            table.close()


def _drive(
    table: SimTable,
    link: SerialLink,
    changes: queue.Queue[tuple[int, int, bool, float, bool]],
    events: int,
    rng: random.Random,
    window: int,
    reset: bool,
    unplug: bool,
    hold_s: float,
    led_frames: int,
    rows: int,
    cols: int,
    leds: int,
) -> dict[str, Any]:
    state = [[False] * cols for _ in range(rows)]
    outstanding: dict[tuple[int, int], float] = {}
    latencies: list[float] = []
    issued = delivered = duplicated = recovered = 0
    faults_at = {int(events * 0.3): "reset", int(events * 0.6): "unplug"}
    last_frame = b""
    started = time.monotonic()

    def take(block_s: float) -> None:
        nonlocal delivered, duplicated, recovered
        try:
            item = changes.get(timeout=block_s)
        except queue.Empty:
            return
        while True:
            r, c, value, at, by_snapshot = item
            edge = outstanding.get((r, c))
            if edge is None or value != state[r][c]:
                duplicated += 1
            else:
                del outstanding[(r, c)]
                delivered += 1
                if by_snapshot:
                    recovered += 1
                else:
                    latencies.append(max(0.0, at - edge - hold_s))
            try:
                item = changes.get_nowait()
            except queue.Empty:
                return

    while issued < events:
        fault = faults_at.pop(issued, None)
        if fault == "reset" and reset:
            table.reset()
        elif fault == "unplug" and unplug:
            table.unplug(0.3)
        if issued % 500 == 0:
            last_frame = rng.randbytes(3 * leds)
            link.show(last_frame)
        while len(outstanding) >= window:
            take(0.05)
            if time.monotonic() - started > 60 + events / 100:
                break
        r, c = rng.randrange(rows), rng.randrange(cols)
        if (r, c) in outstanding:
            continue
        state[r][c] = not state[r][c]
        outstanding[(r, c)] = table.toggle(r, c)
        issued += 1
        take(0)
    deadline = time.monotonic() + 10
    while outstanding and time.monotonic() < deadline:
        take(0.05)
    lost = len(outstanding)
    link.show(last_frame := rng.randbytes(3 * leds))
    converged = False
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if table.leds() == last_frame:
            converged = True
            break
        time.sleep(0.02)
    matrix = table.matrix()
    state_matches = all(
        link.occupied(r, c) == bool((matrix[r] >> c) & 1) for r in range(rows) for c in range(cols)
    )
    # The LED frame time, on a clean wire: from show() to the firmware's acknowledgement.
    table.set_faults(Faults())
    frame_times = frame_round_trips(link, [rng.randbytes(3 * leds) for _ in range(led_frames)])
    return {
        "events": issued,
        "lost": lost,
        "duplicated": duplicated,
        "recovered_by_snapshot": recovered,
        "p50_ms": round(statistics.median(latencies) * 1000, 3) if latencies else None,
        "p99_ms": round(_percentile(latencies, 0.99) * 1000, 3) if latencies else None,
        "max_ms": round(max(latencies) * 1000, 3) if latencies else None,
        "led_frame_ms": round(statistics.median(frame_times) * 1000, 3) if frame_times else None,
        "led_frame_max_ms": round(max(frame_times) * 1000, 3) if frame_times else None,
        "leds_converged": converged,
        "state_matches": state_matches,
        "connects": link.connects,
        "snapshots": link.snapshots,
        "seconds": round(time.monotonic() - started, 2),
    }
