"""The host side of the link to the table's microcontroller, over USB serial (DESIGN.md §5).

`SerialLink` opens the port by a stable path (a udev symlink, see hardware/udev/), checks the
firmware's version and configuration hash, asks for a snapshot, then acknowledges the firmware's
input events in order. After an unplug or a firmware reset it reconnects with backoff and asks for
a snapshot again, so the table's state is re-read, never guessed. A frame whose CRC holds but
whose content does not fit its type is counted and skipped; any other error in the link's thread
restarts the link (reopen, resynchronise), so sensing never stops silently. `state()` tells how
the link fares. `SerialReedBank` and `SerialStrip` give it the interfaces of `hardware/reeds.py`
and `hardware/leds.py`.

The framing is the firmware's own, imported from `firmware.protocol`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from firmware import protocol
from hardware.leds import RGB, Frame
from hardware.link_state import LinkState
from hardware.profile import Channel

log = logging.getLogger(__name__)


class LinkError(RuntimeError):
    """The link cannot serve the table: a firmware of another version or configuration."""


def silent_link_hint(path: str) -> str:
    """What to look at when the microcontroller on `path` does not answer."""
    return (
        f"check the USB cable, that the port exists (`ls -l {path}`, hardware/udev/), and that "
        "the firmware runs (firmware/README.md)"
    )


class MalformedFrame(ValueError):
    """A frame whose CRC holds but whose content does not fit its type."""


KIND_NAMES = {
    protocol.INFO: "INFO",
    protocol.EVENTS: "EVENTS",
    protocol.SNAPSHOT: "SNAPSHOT",
    protocol.LED_ACK: "LED_ACK",
    protocol.PONG: "PONG",
}
"""The frames the firmware sends; any other type arriving at the host is malformed."""


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
        self.resyncs = 0
        self.malformed = 0
        self.firmware: str | None = None  # the version the firmware gave, once introduced
        self.frames = 0  # well-formed frames received
        self.led_resends = 0  # LED frames sent again, unacknowledged in time
        self.recoveries = 0
        self.last_error: str | None = None
        self._crc_errors_before = 0  # those of the decoders of earlier connections
        self._heard_at: float | None = None  # the last well-formed frame
        self._unsynced_since: float | None = clock()
        self._recovered_at: float | None = None
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
        self._decoder = protocol.Decoder()
        self._thread = self._reader()

    # -- public ----------------------------------------------------------------------------

    def start(self, wait_s: float | None = 5.0) -> None:
        """Start the link's thread; wait for the first snapshot if `wait_s` is given."""
        if not os.path.exists(self.path):  # said at once, not after `wait_s` of silence
            raise LinkError(f"there is no {self.path}: {silent_link_hint(self.path)}")
        self._thread.start()
        if wait_s is not None and not self._ready.wait(wait_s):
            raise LinkError(
                self.error or f"no answer on {self.path}: {silent_link_hint(self.path)}"
            )
        if self.error:
            raise LinkError(self.error)

    @property
    def synced(self) -> bool:
        return self._synced

    def state(self) -> LinkState:
        """How the link fares, as plain values. Safe from any thread."""
        now = self.clock()
        heard, unsynced, recovered = self._heard_at, self._unsynced_since, self._recovered_at
        return LinkState(
            port=self.path,
            connected=self._port is not None,
            synced=self._synced,
            unsynced_s=None if self._synced or unsynced is None else now - unsynced,
            last_frame_age_s=None if heard is None else now - heard,
            resyncs=self.resyncs,
            crc_errors=self._crc_errors_before + self._decoder.crc_errors,
            malformed=self.malformed,
            recoveries=self.recoveries,
            since_recovery_s=None if recovered is None else now - recovered,
            last_error=self.error or self.last_error,
        )

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
        thread = self._thread
        if thread.ident is None:  # never started: a port that is not there
            return
        thread.join(2)
        if self._thread is not thread:  # restarted as it was stopping
            self._thread.join(2)
        self._close_port()

    # -- the link's thread -------------------------------------------------------------------

    def _reader(self) -> threading.Thread:
        return threading.Thread(target=self._guarded_run, name="serial-link", daemon=True)

    def _guarded_run(self) -> None:
        try:
            self._run()
        except BaseException as error:  # SystemExit from a callback, say: it ends a thread
            if self._stop.is_set():
                return
            self._recover(error)
            self._stop.wait(self.backoff[0])
            self._thread = self._reader()  # a thread of its own, since this one ends
            self._thread.start()

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                opened = self._connect()
            except Exception as error:  # a bug or a frame nobody foresaw: sensing goes on
                self._recover(error)
                opened = False
            finally:
                self._close_port()
            if opened:
                delay = self.backoff[0]
            else:
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])

    def _connect(self) -> bool:
        """Open the port and serve it until it fails; False if it cannot be opened."""
        try:
            self._open()
        except (OSError, ValueError) as error:
            self.last_error = f"cannot open it: {error}"
            log.debug("cannot open %s: %s", self.path, error)
            return False
        self.connects += 1
        try:
            self._serve()
        except (OSError, ValueError) as error:
            self.last_error = f"lost it: {error}"
            log.warning("lost the table's microcontroller on %s: %s", self.path, error)
        return True

    def _recover(self, error: BaseException) -> None:
        """An error the link did not foresee: counted and kept; the link starts afresh."""
        self.recoveries += 1
        self._recovered_at = self.clock()
        self.last_error = f"its reader failed ({type(error).__name__}: {error}) and was restarted"
        log.error("the link to %s failed; restarting it", self.path, exc_info=error)

    def _lose_sync(self) -> None:
        if self._synced:
            self.resyncs += 1
            self._unsynced_since = self.clock()
        self._synced = False

    def _open(self) -> None:
        import serial

        try:
            port = serial.Serial(self.path, self.baudrate, timeout=0, write_timeout=1)
        except serial.SerialException as error:
            raise OSError(str(error)) from error
        port.reset_input_buffer()
        self._port = port
        self._crc_errors_before += self._decoder.crc_errors
        self._decoder = protocol.Decoder()
        self._lose_sync()
        self._boot = None

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._lose_sync()
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
                if self._synced:
                    self.last_error = f"no frame for {self.silence_s:g} s"
                self._lose_sync()
            if now - pinged >= self.ping_s:
                pinged = now
                self._write(protocol.PING)
            if (
                self._synced
                and not self._frame_acked
                and (self._frame_sent is None or now - self._frame_sent >= self.led_retry_s)
            ):
                if self._frame_sent is not None:
                    self.led_resends += 1
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
            if self._receive(data, at):
                heard = at

    def _receive(self, data: bytes, at: float) -> bool:
        """Bytes from the port: each frame handled, a malformed one counted and skipped. True if
        a well-formed frame came."""
        heard = False
        for _seq, kind, payload in self._decoder.feed(data):
            try:
                self._handle(kind, payload, at)
            except MalformedFrame as error:
                self._count_malformed(str(error))
                continue
            heard = True
            self.frames += 1
            self._heard_at = at
        return heard

    def _count_malformed(self, why: str) -> None:
        self.malformed += 1
        self.last_error = f"a malformed frame was skipped: {why}"
        if self.malformed & (self.malformed - 1) == 0:  # the 1st, 2nd, 4th...: a flood is rare
            log.warning("%s: %s (%d so far)", self.path, self.last_error, self.malformed)

    def _handle(self, kind: int, payload: bytes, at: float) -> None:
        """One frame that passed its CRC; MalformedFrame if it does not fit its type."""
        name = KIND_NAMES.get(kind)
        if name is None:
            raise MalformedFrame(f"type 0x{kind:02x}, which the firmware does not send")
        sizes = {
            protocol.INFO: len(payload) >= 8,
            protocol.SNAPSHOT: len(payload) == 6 + (self.rows * self.cols + 7) // 8,
            protocol.EVENTS: len(payload) >= 2 and (len(payload) - 2) % protocol.EVENT_SIZE == 0,
            protocol.LED_ACK: len(payload) == 2,
            protocol.PONG: not payload,
        }
        if not sizes[kind]:
            raise MalformedFrame(f"{name} with a payload of {len(payload)} bytes")
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
                "(or take the one of your grid's size from firmware/configs/) and copy the "
                "firmware again (firmware/README.md)"
            )
            log.error("%s", self.error)
            self._ready.set()
            return
        self.error = None  # the firmware was copied again while plugged in
        self.firmware = version
        if boot != self._boot:
            if self._boot is not None:
                log.info("the microcontroller restarted: reading the table again")
            self._boot = boot
            self._lose_sync()
            self._write(protocol.SNAP_REQ)

    def _on_snapshot(self, payload: bytes, at: float) -> None:
        boot = protocol.get_u16(payload, 0)
        if boot != self._boot or self.error:
            return
        next_id = protocol.get_u32(payload, 2)
        changes = []
        for i, bit in enumerate(protocol.unpack_bits(payload[6:], self.rows * self.cols)):
            if bool(bit) != self.cells[i]:
                changes.append((i, bool(bit)))
        self._next_id = next_id
        self._write(protocol.ACK, protocol.u16(boot) + protocol.u32(next_id))
        was_synced = self._synced
        self._synced = True
        self._unsynced_since = None
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
            self._lose_sync()
            return
        if not self._synced:
            return
        gap = False
        for start in range(2, len(payload), protocol.EVENT_SIZE):
            event_id = protocol.get_u32(payload, start)
            if event_id != self._next_id:
                # A resend of one we have, or one after a lost frame: it comes again, and at
                # once for a gap, as the ACK below asks.
                gap = gap or event_id > self._next_id
                continue
            row, col, state = payload[start + 4], payload[start + 5], payload[start + 6]
            self._next_id += 1
            if row >= self.rows or col >= self.cols:
                # Acknowledged all the same: refused, it would be resent for ever.
                self._count_malformed(f"an event at {row}:{col}, outside the matrix")
                continue
            i = row * self.cols + col
            if self.cells[i] != bool(state):
                self._emit(i, bool(state), at)
        flags = bytes((protocol.ACK_GAP,)) if gap else b""
        self._write(protocol.ACK, protocol.u16(boot) + protocol.u32(self._next_id) + flags)

    def _emit(self, i: int, value: bool, at: float) -> None:
        """Report a change, then keep it: one whose report failed differs from the next
        snapshot, which reports it again."""
        if self.on_change is not None:
            self.on_change(i // self.cols, i % self.cols, value, at)
        self.cells[i] = value


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
        self.on_edge = on_edge  # read at each change, as ReedBank's
        self._spots = {(ch.chip, ch.line): spot for spot, ch in self.channels.items()}
        for (row, col), spot in self._spots.items():
            if row >= link.rows or col >= link.cols:
                raise LinkError(f"spot {spot!r} is at {row}:{col}, outside the link's matrix")

        def changed(row: int, col: int, occupied: bool, at: float) -> None:
            spot = self._spots.get((row, col))
            if spot is not None:
                self.on_edge(spot, occupied, at)

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
