"""Issue 19, point 5: the serial link never dies silently.

The real host link (hardware/serial_link.py) against the firmware's logic in its own process
behind a pseudo-terminal (hardware/link_sim.py). The firmware is made to send malformed frames
with a good CRC, of several kinds; then the link's thread fails twice in the middle of reporting
a change (an exception, then a SystemExit, which ends a thread). Figures: how many malformed
frames were counted, how many restarts, whether every change was still reported (the two whose
report failed too) and whether a reed moved after all that is still sensed.

Run: .venv/bin/python benchmarks/fault_serial.py
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from firmware import protocol
from hardware.link_bench import BENCH_CONFIG
from hardware.link_sim import SimTable
from hardware.serial_link import SerialLink

ROWS, COLS, LEDS = 4, 4, 8
ROUNDS = 5
MALFORMED = [
    (protocol.INFO, b"\x12\x34\x00"),  # the issue's: 3 payload bytes
    (protocol.SNAPSHOT, protocol.u16(0) + protocol.u32(0)),  # no cell bits
    (protocol.EVENTS, protocol.u16(0) + bytes(3)),  # half an event
    (protocol.EVENTS, b"\x00"),  # not even a boot id
    (protocol.LED_ACK, b""),
    (protocol.PONG, b"\x01\x02"),
    (protocol.HELLO, b""),  # a type only the host sends
    (protocol.LEDS, bytes(5)),
]


def _until(check: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def measure() -> dict[str, object]:
    config: dict[str, Any] = {**BENCH_CONFIG, "rows": ROWS, "cols": COLS, "led_count": LEDS}
    seen: list[tuple[int, int, bool]] = []
    failures: list[BaseException] = []

    def on_change(row: int, col: int, occupied: bool, _at: float) -> None:
        if failures:
            raise failures.pop(0)
        seen.append((row, col, occupied))

    with tempfile.TemporaryDirectory(prefix="smartboard-fault-serial-") as tmp:
        table = SimTable(Path(tmp) / "ttyPico", config)
        link = SerialLink(str(table.link), ROWS, COLS, LEDS, on_change, backoff=(0.02, 0.2))
        try:
            link.start()
            frames = [frame for _ in range(ROUNDS) for frame in MALFORMED]
            for kind, payload in frames:
                table.send(kind, payload)
            _until(lambda: link.malformed >= len(frames))
            counted = link.malformed
            # The link's thread fails while reporting a change: a bug, then a killed thread.
            for restarts, (cell, failure) in enumerate(
                (((0, 1), RuntimeError("injected")), ((2, 3), SystemExit(1))), start=1
            ):
                failures.append(failure)
                table.set(*cell, True)
                _until(partial(lambda n: link.recoveries >= n, restarts))
            recovered = _until(lambda: link.synced and {(0, 1, True), (2, 3, True)} <= set(seen))
            table.set(3, 0, True)
            sensing = _until(lambda: (3, 0, True) in seen)
            return {
                "serial_malformed_frames": len(frames),
                "serial_malformed_counted": counted,
                "serial_link_recoveries": link.recoveries,
                "serial_recovered_all": recovered and link.recoveries == 2,
                "serial_still_sensing": sensing,
            }
        finally:
            link.close()
            table.close()


if __name__ == "__main__":
    print(json.dumps(measure()))
