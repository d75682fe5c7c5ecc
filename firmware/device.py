"""The firmware's logic, between the pins and the wire: pure, for CPython and MicroPython.

`Device` is given the bytes the host sent (`receive`), the matrix as the pins read it (`scan`),
and the time in milliseconds; it returns the bytes to send (`poll`) and calls `show(pixels)` with
the LED frame to light (R, G, B per LED, as bytes). `main.py` wires it to `board.py`; the tests
and the link simulator wire it to a simulated matrix and a pseudo-terminal.
"""

from firmware.eventqueue import EventQueue
from firmware.matrix import Matrix
from firmware.protocol import (
    ACK,
    ACK_GAP,
    EVENT_SIZE,
    EVENTS,
    HELLO,
    INFO,
    LED_ACK,
    LEDS,
    MAX_PAYLOAD,
    PING,
    PONG,
    SNAP_REQ,
    SNAPSHOT,
    VERSION,
    Decoder,
    Encoder,
    config_hash,
    get_u16,
    get_u32,
    pack_bits,
    u16,
    u32,
)

EVENTS_PER_FRAME = (MAX_PAYLOAD - 2) // EVENT_SIZE


def lost_pattern(count, now):
    """The "host lost" pattern: every fourth LED blinks dim red, twice a second."""
    frame = bytearray(3 * count)
    if (now // 250) % 2 == 0:
        for i in range(0, count, 4):
            frame[3 * i] = 40
    return bytes(frame)


class Device:
    def __init__(self, config, boot_id, show, version=VERSION):
        self.rows = config["rows"]
        self.cols = config["cols"]
        self.led_count = config["led_count"]
        self.host_timeout_ms = config.get("host_timeout_ms", 1500)
        self.boot_id = boot_id & 0xFFFF
        self.version = version
        self.hash = config_hash(self.rows, self.cols, self.led_count)
        self.matrix = Matrix(self.rows, self.cols, config.get("debounce_scans", 4))
        self.queue = EventQueue(config.get("queue_capacity", 512), config.get("resend_ms", 20))
        self.encoder = Encoder()
        self.decoder = Decoder()
        self.show = show
        self.out = []
        self.frame = bytes(3 * self.led_count)  # the host's latest LED frame
        self.frame_id = -1
        self.last_host = None  # when the host last sent a good frame
        self.lost = True
        self.lost_phase = -1

    def boot(self, read_row, now):
        """Read the matrix as it is, introduce ourselves and show "host lost" until it speaks."""
        self.matrix.prime(read_row)
        self._send(INFO, self._info())
        self._show_lost(now)

    def _info(self):
        return (
            u16(self.boot_id)
            + u16(self.hash)
            + bytes((self.rows, self.cols))
            + u16(self.led_count)
            + self.version.encode()
        )

    def _send(self, kind, payload=b""):
        self.out.append(self.encoder.frame(kind, payload))

    def _snapshot(self):
        self.queue.clear()
        cells = pack_bits(self.matrix.cells())
        self._send(SNAPSHOT, u16(self.boot_id) + u32(self.queue.next_id) + cells)

    def receive(self, data, now):
        for _seq, kind, payload in self.decoder.feed(data):
            self.last_host = now
            if self.lost:
                self.lost = False
                self.lost_phase = -1
                self.show(self.frame)
            if kind == ACK:
                if len(payload) >= 6 and get_u16(payload, 0) == self.boot_id:
                    self.queue.ack(get_u32(payload, 2))
                    if len(payload) >= 7 and payload[6] & ACK_GAP:
                        self.queue.resend_now()
            elif kind == LEDS:
                if len(payload) == 2 + 3 * self.led_count:
                    frame_id = get_u16(payload, 0)
                    if frame_id != self.frame_id:
                        self.frame_id = frame_id
                        self.frame = payload[2:]
                        self.show(self.frame)
                    self._send(LED_ACK, u16(frame_id))
            elif kind == PING:
                self._send(PONG)
            elif kind == HELLO:
                self._send(INFO, self._info())
            elif kind == SNAP_REQ:
                self._snapshot()

    def scan(self, read_row):
        for row, col, state in self.matrix.scan(read_row):
            self.queue.push(row, col, state)

    def poll(self, now):
        """The bytes to send now, and the "host lost" pattern if the host fell silent."""
        if self.queue.overflowed:
            self._snapshot()
        due = self.queue.due(now)
        for start in range(0, len(due), EVENTS_PER_FRAME):
            payload = bytearray(u16(self.boot_id))
            for event_id, row, col, state, _sent in due[start : start + EVENTS_PER_FRAME]:
                payload.extend(u32(event_id))
                payload.extend(bytes((row, col, state)))
            self._send(EVENTS, bytes(payload))
        if self.last_host is None or now - self.last_host > self.host_timeout_ms:
            self._show_lost(now)
        if not self.out:
            return b""
        data = b"".join(self.out)
        self.out = []
        return data

    def _show_lost(self, now):
        self.lost = True
        phase = (now // 250) % 2
        if phase != self.lost_phase:
            self.lost_phase = phase
            self.show(lost_pattern(self.led_count, now))
