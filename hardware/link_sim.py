"""The firmware's logic on a simulated matrix, in a process of its own, behind a pseudo-terminal.

`SimTable.start()` spawns the process. It runs firmware/device.py as the Pico would, scanning a
simulated reed matrix every `scan_ms`, and talks over a pseudo-terminal (`os.openpty`) whose
slave is reachable at a stable symlink, as udev gives a real Pico. Through a control pipe the
parent toggles reeds, resets the firmware, unplugs and replugs the port, has the firmware send a
frame of its choosing, and reads what the LEDs show. Faults are injected on the wire, both ways:
corrupted bytes, dropped and duplicated frames.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import select
import time
import tty
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from firmware.device import Device
from firmware.protocol import OVERHEAD, get_u16


@dataclass(frozen=True)
class Faults:
    corrupt: float = 0.0  # chance that a frame (or a chunk the host wrote) has a byte flipped
    drop: float = 0.0  # chance that a frame (or a chunk the host wrote) is lost
    duplicate: float = 0.0  # chance that a frame is sent twice
    garbage: float = 0.0  # chance that random bytes come before a frame
    # A table built wrong, for `smartboard check` to find: scan rows that never read a closed
    # reed (a broken row wire), and pairs of cells (row, col) whose reed wires were swapped.
    dead_rows: tuple[int, ...] = ()
    crossed: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()


class _Wire:
    """The simulated USB cable, with its faults."""

    def __init__(self, faults: Faults, rng: random.Random) -> None:
        self.faults = faults
        self.rng = rng

    def outgoing(self, data: bytes) -> bytes:
        """Firmware to host: split into frames, then spoil some."""
        f, rng = self.faults, self.rng
        if not (f.corrupt or f.drop or f.duplicate or f.garbage):
            return data
        out = bytearray()
        for frame in _frames(data):
            if rng.random() < f.garbage:
                out.extend(rng.randbytes(rng.randint(1, 8)))
            if rng.random() < f.drop:
                continue
            spoilt = bytearray(frame)
            if rng.random() < f.corrupt:
                spoilt[rng.randrange(len(spoilt))] ^= 1 << rng.randrange(8)
            out.extend(spoilt)
            if rng.random() < f.duplicate:
                out.extend(frame)
        return bytes(out)

    def incoming(self, data: bytes) -> bytes:
        f, rng = self.faults, self.rng
        if rng.random() < f.drop:
            return b""
        if rng.random() < f.corrupt:
            spoilt = bytearray(data)
            spoilt[rng.randrange(len(spoilt))] ^= 1 << rng.randrange(8)
            return bytes(spoilt)
        return data


def _frames(data: bytes) -> list[bytes]:
    """Firmware output is whole frames, back to back."""
    frames, at = [], 0
    while at < len(data):
        end = at + OVERHEAD + get_u16(data, at + 1)
        frames.append(data[at:end])
        at = end
    return frames


class _Port:
    """One plug-in of the simulated Pico: a pseudo-terminal pair and its stable symlink."""

    def __init__(self, link: Path) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        tmp = link.with_name(link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(os.ttyname(self.slave))
        tmp.replace(link)
        self.link = link

    def unplug(self) -> None:
        self.link.unlink(missing_ok=True)
        os.close(self.master)
        os.close(self.slave)


def _serve(conn: Connection, link: str, config: dict[str, Any], faults: Faults, seed: int) -> None:
    rng = random.Random(seed)
    wire = _Wire(faults, rng)
    rows, _cols = config["rows"], config["cols"]
    matrix = [0] * rows  # the reeds as they are, closed or not: pieces survive a reset
    shown: list[bytes] = [b""]

    def read_row(r: int) -> int:
        faults = wire.faults
        if r in faults.dead_rows:
            return 0
        row = matrix[r]
        for (r1, c1), (r2, c2) in faults.crossed:
            # Each of the pair reads the other's reed.
            for (mine_r, mine_c), (other_r, other_c) in (
                ((r1, c1), (r2, c2)),
                ((r2, c2), (r1, c1)),
            ):
                if mine_r == r:
                    bit = (matrix[other_r] >> other_c) & 1
                    row = (row & ~(1 << mine_c)) | (bit << mine_c)
        return row

    def show(frame: bytes) -> None:
        shown[0] = bytes(frame)

    start = time.monotonic()

    def now_ms() -> int:
        return int((time.monotonic() - start) * 1000)

    def boot() -> Any:
        device = Device(config, rng.randrange(1 << 16), show)
        device.boot(read_row, now_ms())
        return device

    device = boot()
    port: _Port | None = _Port(Path(link))
    replug_at = 0.0
    scan_s = config.get("scan_ms", 2) / 1000
    next_scan = time.monotonic()
    conn.send("ready")
    while True:
        now = time.monotonic()
        if port is None and now >= replug_at:
            port = _Port(Path(link))
            device = boot()  # a replugged Pico is powered up again
        if now >= next_scan:
            next_scan += scan_s
            if next_scan < now:
                next_scan = now + scan_s
            device.scan(read_row)
        data = device.poll(now_ms())
        if data and port is not None:
            try:
                os.write(port.master, wire.outgoing(data))
            except BlockingIOError:
                pass  # the host is not reading: a full buffer loses bytes, as USB would stall
            except OSError:
                pass
        waits: list[Any] = [conn]
        if port is not None:
            waits.append(port.master)
        timeout = max(0.0, min(next_scan - time.monotonic(), 0.002))
        ready, _, _ = select.select(waits, [], [], timeout)
        if port is not None and port.master in ready:
            try:
                chunk = os.read(port.master, 4096)
            except OSError:
                chunk = b""
            if chunk:
                chunk = wire.incoming(chunk)
                if chunk:
                    device.receive(chunk, now_ms())
        if conn in ready:
            command = conn.recv()
            op = command[0]
            if op == "toggle":
                _, row, col = command
                matrix[row] ^= 1 << col
                conn.send(time.monotonic())
            elif op == "set":
                _, row, col, value = command
                if value:
                    matrix[row] |= 1 << col
                else:
                    matrix[row] &= ~(1 << col)
                conn.send(time.monotonic())
            elif op == "reset":
                device = boot()
                conn.send("reset")
            elif op == "unplug":
                if port is not None:
                    port.unplug()
                    port = None
                replug_at = time.monotonic() + command[1]
                conn.send("unplugged")
            elif op == "leds":
                conn.send(shown[0])
            elif op == "matrix":
                conn.send(list(matrix))
            elif op == "send":
                _, kind, payload = command
                device.out.append(device.encoder.frame(kind, payload))  # numbered as its own
                conn.send("sent")
            elif op == "faults":
                wire.faults = command[1]
                conn.send("faults")
            elif op == "stop":
                if port is not None:
                    port.unplug()
                conn.send("stopped")
                return


class SimTable:
    """The parent's handle on the simulated microcontroller."""

    def __init__(
        self,
        link: Path,
        config: dict[str, Any],
        faults: Faults = Faults(),
        seed: int = 0,
    ) -> None:
        self.link = link
        self.config = config
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(
            target=_serve, args=(child, str(link), config, faults, seed), daemon=True
        )
        self._process.start()
        if not self._conn.poll(20):
            self._process.kill()
            raise RuntimeError("the simulated microcontroller did not start")
        self._conn.recv()

    def _call(self, *command: Any) -> Any:
        self._conn.send(command)
        return self._conn.recv()

    def toggle(self, row: int, col: int) -> float:
        """Flip a reed; returns the monotonic time of the edge."""
        return float(self._call("toggle", row, col))

    def set(self, row: int, col: int, value: bool) -> float:
        return float(self._call("set", row, col, value))

    def reset(self) -> None:
        self._call("reset")

    def unplug(self, for_s: float) -> None:
        self._call("unplug", for_s)

    def leds(self) -> bytes:
        return bytes(self._call("leds"))

    def matrix(self) -> list[int]:
        return list(self._call("matrix"))

    def send(self, kind: int, payload: bytes) -> None:
        """Have the firmware send a frame of any type and payload, with a good CRC."""
        self._call("send", kind, payload)

    def set_faults(self, faults: Faults) -> None:
        self._call("faults", faults)

    def close(self) -> None:
        if self._process.is_alive():
            with contextlib.suppress(OSError, EOFError):
                self._call("stop")
            self._process.join(2)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
