"""The host side of the link to the table's microcontroller, over USB serial (DESIGN.md §5).

`SerialLink` opens the port by a stable path (a udev symlink, see hardware/udev/), checks the
firmware's version and configuration hash, asks for a snapshot, then acknowledges the firmware's
input events in order. After an unplug or a firmware reset it reconnects with backoff and asks for
a snapshot again, so the table's state is re-read, never guessed. `SerialReedBank` and
`SerialStrip` give it the interfaces of `hardware/reeds.py` and `hardware/leds.py`.

The framing is the firmware's own, imported from `firmware.protocol`.
"""

from __future__ import annotations

import contextlib
import logging
import select
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from firmware import protocol
from hardware.leds import RGB, Frame
from hardware.profile import Channel

log = logging.getLogger(__name__)


class LinkError(RuntimeError):
    """The link cannot serve the table: a firmware of another version or configuration."""


ChangeHandler = Callable[[int, int, bool, float], None]
"""Called with (row, col, occupied, monotonic time) for each change, from the link's thread."""


class SerialLink:
    """One microcontroller on a serial port: its cells' states, and the LED frame to show."""

    def __init__(
        self,
        path: str,
        rows: int,
        cols: int,
        led_count: int,
        on_change: ChangeHandler | None = None,
        baudrate: int = 115200,
        clock: Callable[[], float] = time.monotonic,
        backoff: tuple[float, float] = (0.05, 2.0),
        ping_s: float = 0.25,
        silence_s: float = 1.0,
        retry_s: float = 0.1,
        led_retry_s: float = 0.05,
    ) -> None:
        self.path = path
        self.rows, self.cols, self.led_count = rows, cols, led_count
        self.on_change = on_change
        self.baudrate = baudrate
        self.clock = clock
        self.backoff = backoff
        self.ping_s, self.silence_s = ping_s, silence_s
        self.retry_s, self.led_retry_s = retry_s, led_retry_s
        self.hash = protocol.config_hash(rows, cols, led_count)
        self.cells = [False] * (rows * cols)
        self.error: str | None = None
        self.connects = 0
        self.snapshots = 0
        self.recovered = 0  # changes learnt from a snapshot rather than from an event
        self.in_snapshot = False  # True while on_change reports changes a snapshot showed
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._port: Any = None
        # One numbering for the link's life: a reconnect to the same firmware must not repeat the
        # SEQ its decoder saw last, or it would drop that frame as a duplicate.
        self._encoder = protocol.Encoder()
        self._boot: int | None = None
        self._synced = False
        self._next_id = 0
        self._frame = bytes(3 * led_count)
        self._frame_id = 0
        self._frame_sent: float | None = None
        self._frame_acked = True
        self._frame_at = 0.0
        self.frame_acks: list[tuple[int, float]] = []  # (frame id, seconds from show to ack)
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="serial-link", daemon=True)

    # -- public ----------------------------------------------------------------------------

    def start(self, wait_s: float | None = 5.0) -> None:
        """Start the link's thread; wait for the first snapshot if `wait_s` is given."""
        self._thread.start()
        if wait_s is not None and not self._ready.wait(wait_s):
            raise LinkError(
                self.error or f"no answer from the table's microcontroller on {self.path}"
            )
        if self.error:
            raise LinkError(self.error)

    @property
    def synced(self) -> bool:
        return self._synced

    def occupied(self, row: int, col: int) -> bool:
        return self.cells[row * self.cols + col]

    def show(self, pixels: bytes) -> None:
        """Send an LED frame (R, G, B per LED); it is resent until the firmware shows it."""
        if len(pixels) != 3 * self.led_count:
            raise ValueError(f"LED frame has {len(pixels) // 3} LEDs, the table {self.led_count}")
        with self._lock:
            self._frame = bytes(pixels)
            self._frame_id = (self._frame_id + 1) & 0xFFFF
            self._frame_acked = False
            self._frame_at = self.clock()
        self._send_frame()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        self._close_port()

    # -- the link's thread -------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                self._open()
            except (OSError, ValueError) as error:
                log.debug("cannot open %s: %s", self.path, error)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.connects += 1
            try:
                self._serve()
            except (OSError, ValueError) as error:
                log.info("lost the table's microcontroller on %s: %s", self.path, error)
            self._close_port()

    def _open(self) -> None:
        import serial

        try:
            port = serial.Serial(self.path, self.baudrate, timeout=0, write_timeout=1)
        except serial.SerialException as error:
            raise OSError(str(error)) from error
        port.reset_input_buffer()
        self._port = port
        self._decoder = protocol.Decoder()
        self._synced = False
        self._boot = None

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._synced = False
        if port is not None:
            # A port that vanished may fail to close; it is gone either way.
            with contextlib.suppress(Exception):
                port.close()

    def _write(self, kind: int, payload: bytes = b"") -> None:
        port = self._port
        if port is None:
            return
        with self._write_lock:
            data = self._encoder.frame(kind, payload)
            try:
                port.write(data)
            except Exception as error:
                raise OSError(f"write failed: {error}") from error

    def _send_frame(self) -> None:
        if not self._synced:
            return
        with self._lock:
            payload = protocol.u16(self._frame_id) + self._frame
            self._frame_sent = self.clock()
        with contextlib.suppress(OSError):  # the link's thread sees the port fail, reconnects
            self._write(protocol.LEDS, payload)

    def _serve(self) -> None:
        import serial

        port = self._port
        fd = port.fileno()
        now = self.clock()
        heard = now
        asked = now - self.retry_s
        pinged = now
        while not self._stop.is_set():
            now = self.clock()
            if not self._synced and now - asked >= self.retry_s:
                asked = now
                self._write(protocol.HELLO if self._boot is None else protocol.SNAP_REQ)
            if now - heard > self.silence_s:
                heard = now
                self._boot = None  # silent: introduce ourselves again
                self._synced = False
            if now - pinged >= self.ping_s:
                pinged = now
                self._write(protocol.PING)
            if (
                self._synced
                and not self._frame_acked
                and (self._frame_sent is None or now - self._frame_sent >= self.led_retry_s)
            ):
                self._send_frame()
            ready, _, _ = select.select([fd], [], [], 0.01)
            if not ready:
                continue
            try:
                data = port.read(max(1, port.in_waiting))
            except serial.SerialException as error:
                raise OSError(str(error)) from error
            if not data:
                raise OSError("the port was closed")
            at = self.clock()
            for _seq, kind, payload in self._decoder.feed(data):
                heard = at
                self._handle(kind, payload, at)

    def _handle(self, kind: int, payload: bytes, at: float) -> None:
        if kind == protocol.INFO:
            self._on_info(payload)
        elif kind == protocol.SNAPSHOT:
            self._on_snapshot(payload, at)
        elif kind == protocol.EVENTS:
            self._on_events(payload, at)
        elif kind == protocol.LED_ACK:
            frame_id = protocol.get_u16(payload, 0)
            with self._lock:
                if frame_id == self._frame_id and not self._frame_acked:
                    self._frame_acked = True
                    self.frame_acks.append((frame_id, at - self._frame_at))

    def _on_info(self, payload: bytes) -> None:
        boot = protocol.get_u16(payload, 0)
        fw_hash = protocol.get_u16(payload, 2)
        rows, cols = payload[4], payload[5]
        leds = protocol.get_u16(payload, 6)
        version = payload[8:].decode("ascii", "replace")
        if version.split(".")[0] != protocol.VERSION.split(".")[0] or fw_hash != self.hash:
            self.error = (
                f"the microcontroller on {self.path} runs firmware {version} for a {rows}x{cols} "
                f"matrix and {leds} LEDs; this table needs firmware {protocol.VERSION} for "
                f"{self.rows}x{self.cols} and {self.led_count} LEDs: edit firmware/config.json "
                "and copy the firmware again (firmware/README.md)"
            )
            log.error("%s", self.error)
            self._ready.set()
            return
        if boot != self._boot:
            if self._boot is not None:
                log.info("the microcontroller restarted: reading the table again")
            self._boot = boot
            self._synced = False
            self._write(protocol.SNAP_REQ)

    def _on_snapshot(self, payload: bytes, at: float) -> None:
        boot = protocol.get_u16(payload, 0)
        if boot != self._boot or self.error:
            return
        next_id = protocol.get_u32(payload, 2)
        changes = []
        for i, bit in enumerate(protocol.unpack_bits(payload[6:], self.rows * self.cols)):
            value = bool(bit)
            if value != self.cells[i]:
                self.cells[i] = value
                changes.append((i, value))
        self._next_id = next_id
        self._write(protocol.ACK, protocol.u16(boot) + protocol.u32(next_id))
        was_synced = self._synced
        self._synced = True
        self.snapshots += 1
        self.recovered += len(changes)
        self.in_snapshot = True
        try:
            for i, value in changes:
                self._emit(i, value, at)
        finally:
            self.in_snapshot = False
        if not was_synced:
            with self._lock:
                self._frame_acked = False
                self._frame_sent = None
        self._ready.set()

    def _on_events(self, payload: bytes, at: float) -> None:
        boot = protocol.get_u16(payload, 0)
        if boot != self._boot:
            # Events from a firmware we have not been introduced to: it restarted.
            self._boot = None
            self._synced = False
            return
        if not self._synced:
            return
        for start in range(2, len(payload) - protocol.EVENT_SIZE + 1, protocol.EVENT_SIZE):
            event_id = protocol.get_u32(payload, start)
            if event_id != self._next_id:
                continue  # a resend of one we have, or one after a gap: it comes again
            row, col, state = payload[start + 4], payload[start + 5], payload[start + 6]
            self._next_id += 1
            if row >= self.rows or col >= self.cols:
                continue
            i = row * self.cols + col
            if self.cells[i] != bool(state):
                self.cells[i] = bool(state)
                self._emit(i, bool(state), at)
        self._write(protocol.ACK, protocol.u16(boot) + protocol.u32(self._next_id))

    def _emit(self, i: int, value: bool, at: float) -> None:
        if self.on_change is not None:
            self.on_change(i // self.cols, i % self.cols, value, at)


class SerialReedBank:
    """The reeds of a profile read through the link; a spot's "CHIP:LINE" is its "ROW:COL".

    Edges come already debounced by the firmware; `on_edge` gets (spot, occupied, time) as from
    `hardware.reeds.ReedBank`.
    """

    def __init__(
        self,
        channels: Mapping[str, Channel],
        link: SerialLink,
        on_edge: Callable[[str, bool, float], None],
    ) -> None:
        self.channels = dict(channels)
        self.link = link
        self._spots = {(ch.chip, ch.line): spot for spot, ch in self.channels.items()}
        for (row, col), spot in self._spots.items():
            if row >= link.rows or col >= link.cols:
                raise LinkError(f"spot {spot!r} is at {row}:{col}, outside the link's matrix")

        def changed(row: int, col: int, occupied: bool, at: float) -> None:
            spot = self._spots.get((row, col))
            if spot is not None:
                on_edge(spot, occupied, at)

        link.on_change = changed

    def read(self) -> dict[str, bool]:
        return {spot: self.link.occupied(ch.chip, ch.line) for spot, ch in self.channels.items()}

    def close(self) -> None:
        self.link.close()


class SerialStrip:
    """The LED chain of the microcontroller, as a `hardware.leds.LedStrip`."""

    def __init__(self, link: SerialLink) -> None:
        self.link = link
        self.count = link.led_count

    def show(self, frame: Frame | Sequence[RGB]) -> None:
        if len(frame) != self.count:
            raise ValueError(f"frame has {len(frame)} LEDs, the strip {self.count}")
        self.link.show(bytes(v for rgb in frame for v in rgb))

    def close(self) -> None:
        self.link.close()
