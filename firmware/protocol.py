"""Framing of the host <-> microcontroller link (DESIGN.md §5), for CPython and MicroPython.

A frame on the wire:

    SYNC (0xA5) | LEN (2 bytes, big-endian) | SEQ (1) | TYPE (1) | PAYLOAD (LEN bytes) | CRC (2)

The CRC is CRC-16/CCITT-FALSE over LEN, SEQ, TYPE and PAYLOAD. SEQ counts the frames a side sends,
modulo 256: a receiver drops a frame that repeats the previous one's SEQ (a duplicated frame) and
counts the gaps. After garbage, a bad length, an unknown TYPE or a bad CRC the decoder drops one
byte and looks for the next SYNC, so it resynchronises on its own.

The one framing of both ends: the firmware runs it and the host (hardware/serial_link.py) imports
it. So it stays plain code for MicroPython: annotations, which MicroPython parses and drops, type
it for the host's mypy, but nothing typing-only runs (no typing import, no type aliases, no
dataclasses); bytes and bytearray only.
"""

VERSION = "1.0.0"  # the firmware's; the host refuses another major version
SYNC = 0xA5
HEADER = 5  # SYNC, LEN (2), SEQ, TYPE
OVERHEAD = HEADER + 2
MAX_PAYLOAD = 1024

# Host to firmware.
HELLO = 0x01  # ask for INFO
ACK = 0x02  # boot (u16), next event id expected (u32): every event before it is received;
# then, optionally, flags (1 byte): ACK_GAP asks for the unacknowledged events again now
SNAP_REQ = 0x03  # ask for a SNAPSHOT
LEDS = 0x04  # frame id (u16), then R, G, B for each LED
PING = 0x05  # keep-alive; the firmware answers PONG
# Firmware to host.
INFO = 0x81  # boot (u16), config hash (u16), rows, cols, LED count (u16), version (ASCII)
EVENTS = 0x82  # boot (u16), then per event: id (u32), row, col, state (1 = occupied)
SNAPSHOT = 0x83  # boot (u16), next event id (u32), one bit per cell, row-major
LED_ACK = 0x84  # frame id (u16) shown
PONG = 0x85

EVENT_SIZE = 7
# The host saw an event after the one it expects: a frame was lost, so waiting for `resend_ms`
# would only hold up every event behind it.
ACK_GAP = 0x01
KINDS = (HELLO, ACK, SNAP_REQ, LEDS, PING, INFO, EVENTS, SNAPSHOT, LED_ACK, PONG)


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_TABLE = _table()


def crc16_pure(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): crc16(b"123456789") == 0x29B1."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ byte) & 0xFF]
    return crc


try:
    from binascii import crc_hqx
except ImportError:  # MicroPython's binascii has no crc_hqx
    crc16 = crc16_pure
else:

    def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
        """The same CRC in C: crc_hqx is CRC-16/CCITT, and 0xFFFF makes it the -FALSE variant."""
        return crc_hqx(data, crc)


def config_hash(rows: int, cols: int, leds: int) -> int:
    """What both ends check on connect: the matrix size and the LED count."""
    return crc16(("rows=%d;cols=%d;leds=%d" % (rows, cols, leds)).encode())  # noqa: UP031


def u16(value: int) -> bytes:
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def u32(value: int) -> bytes:
    return bytes(((value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF))


def get_u16(data: bytes | bytearray, at: int) -> int:
    return (data[at] << 8) | data[at + 1]


def get_u32(data: bytes | bytearray, at: int) -> int:
    return (data[at] << 24) | (data[at + 1] << 16) | (data[at + 2] << 8) | data[at + 3]


def encode(seq: int, kind: int, payload: bytes = b"") -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise ValueError("payload of %d bytes is over %d" % (len(payload), MAX_PAYLOAD))  # noqa: UP031
    body = bytearray(4 + len(payload))
    body[0] = len(payload) >> 8
    body[1] = len(payload) & 0xFF
    body[2] = seq & 0xFF
    body[3] = kind
    body[4:] = payload
    crc = crc16(body)
    return bytes((SYNC,)) + bytes(body) + u16(crc)


class Encoder:
    """Numbers the frames one side sends."""

    def __init__(self) -> None:
        self.seq = 0

    def frame(self, kind: int, payload: bytes = b"") -> bytes:
        data = encode(self.seq, kind, payload)
        self.seq = (self.seq + 1) & 0xFF
        return data


class Decoder:
    """Bytes in, (seq, kind, payload) frames out; resynchronises after garbage."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.last_seq = -1
        self.bad = 0  # bytes skipped while looking for a frame
        self.crc_errors = 0  # frames dropped by their CRC
        self.duplicates = 0
        self.gaps = 0  # frames missing, as the sequence numbers show

    def feed(self, data: bytes) -> list[tuple[int, int, bytes]]:
        self.buffer.extend(data)
        frames = []
        buf = self.buffer
        while True:
            start = buf.find(bytes((SYNC,)))
            if start < 0:
                self.bad += len(buf)
                buf = bytearray()
                break
            if start:
                self.bad += start
                buf = buf[start:]
            if len(buf) < HEADER:
                break
            length = (buf[1] << 8) | buf[2]
            if length > MAX_PAYLOAD or buf[4] not in KINDS:
                # A false SYNC: waiting for its "length" would hold up the frames behind it.
                self.bad += 1
                buf = buf[1:]
                continue
            end = HEADER + length + 2
            if len(buf) < end:
                break
            if crc16(memoryview(buf)[1 : end - 2]) != get_u16(buf, end - 2):
                self.bad += 1
                self.crc_errors += 1
                buf = buf[1:]
                continue
            seq = buf[3]
            kind = buf[4]
            payload = bytes(buf[HEADER : end - 2])
            buf = buf[end:]
            if seq == self.last_seq:
                self.duplicates += 1
                continue
            if self.last_seq >= 0 and seq != (self.last_seq + 1) & 0xFF:
                self.gaps += (seq - self.last_seq - 1) & 0xFF
            self.last_seq = seq
            frames.append((seq, kind, payload))
        self.buffer = buf
        return frames


def pack_bits(cells: list[int]) -> bytes:
    """A list of 0/1, row-major, as bytes: cell i is bit (7 - i % 8) of byte i // 8."""
    out = bytearray((len(cells) + 7) // 8)
    for i in range(len(cells)):
        if cells[i]:
            out[i >> 3] |= 0x80 >> (i & 7)
    return bytes(out)


def unpack_bits(data: bytes, count: int) -> list[int]:
    return [1 if data[i >> 3] & (0x80 >> (i & 7)) else 0 for i in range(count)]
