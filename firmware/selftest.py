"""The firmware's pure logic, checked with plain asserts: runs under MicroPython and CPython.

`make test` runs it under MicroPython 1.27 (WebAssembly, in Node); tests/test_firmware_logic.py
runs it under CPython. Not copied to the Pico.
"""

import sys

from firmware.device import Device
from firmware.eventqueue import EventQueue
from firmware.matrix import Matrix
from firmware.protocol import (
    ACK,
    ACK_GAP,
    EVENTS,
    HELLO,
    INFO,
    LED_ACK,
    LEDS,
    SNAP_REQ,
    SNAPSHOT,
    Decoder,
    Encoder,
    crc16,
    crc16_pure,
    encode,
    get_u16,
    get_u32,
    pack_bits,
    u16,
    u32,
    unpack_bits,
)


def test_crc():
    for crc in (crc16, crc16_pure):  # the same function under MicroPython, not under CPython
        assert crc(b"123456789") == 0x29B1
        assert crc(b"") == 0xFFFF


def test_frame_round_trip():
    data = encode(7, EVENTS, b"\x01\x02\x03")
    assert data[0] == 0xA5
    frames = Decoder().feed(data)
    assert frames == [(7, EVENTS, b"\x01\x02\x03")]


def test_byte_at_a_time():
    enc = Encoder()
    stream = enc.frame(HELLO) + enc.frame(LEDS, bytes(range(200)))
    dec = Decoder()
    got = []
    for i in range(len(stream)):
        got.extend(dec.feed(stream[i : i + 1]))
    assert [f[1] for f in got] == [HELLO, LEDS]
    assert got[1][2] == bytes(range(200))


def test_resync_after_garbage():
    enc = Encoder()
    good = enc.frame(ACK, b"abc")
    spoilt = bytearray(enc.frame(ACK, b"xyz"))
    spoilt[6] ^= 0x10
    stream = b"\xa5\x00\xff\x13garbage\xa5" + bytes(spoilt) + good + enc.frame(PING_KIND)
    dec = Decoder()
    got = dec.feed(stream)
    assert [f[2] for f in got] == [b"abc", b""], got
    assert dec.bad > 0


PING_KIND = 0x05


def test_duplicate_frames_dropped():
    enc = Encoder()
    a = enc.frame(ACK, b"1")
    b = enc.frame(ACK, b"2")
    dec = Decoder()
    got = dec.feed(a + a + b + b)
    assert [f[2] for f in got] == [b"1", b"2"]
    assert dec.duplicates == 2


def test_bits_and_ints():
    cells = [1, 0, 0, 1, 1, 0, 1, 0, 1]
    assert unpack_bits(pack_bits(cells), len(cells)) == cells
    assert get_u16(u16(0xBEEF), 0) == 0xBEEF
    assert get_u32(u32(0xDEADBEEF), 0) == 0xDEADBEEF


def test_debounce():
    m = Matrix(2, 3, 3)
    raw = [0, 0]

    def read(r):
        return raw[r]

    raw[1] = 0b100
    assert m.scan(read) == []
    assert m.scan(read) == []
    assert m.scan(read) == [(1, 2, 1)]
    assert m.scan(read) == []
    # A bounce resets the count.
    raw[1] = 0
    m.scan(read)
    m.scan(read)
    raw[1] = 0b100
    m.scan(read)
    raw[1] = 0
    assert m.scan(read) == []
    assert m.scan(read) == []
    assert m.scan(read) == [(1, 2, 0)]
    assert m.cells() == [0] * 6


def test_sixteen_by_sixteen():
    m = Matrix(16, 16, 1)

    def read(r):
        return 0xFFFF if r == 15 else 0

    changes = m.scan(read)
    assert len(changes) == 16 and changes[0] == (15, 0, 1)
    assert sum(m.cells()) == 16


def test_queue_resends_until_acked():
    q = EventQueue(capacity=4, resend_ms=20)
    q.push(0, 0, 1)
    q.push(0, 1, 1)
    assert [e[0] for e in q.due(0)] == [0, 1]
    assert q.due(5) == []
    assert [e[0] for e in q.due(20)] == [0, 1]
    q.ack(1)
    assert [e[0] for e in q.pending] == [1]
    q.ack(2)
    assert q.pending == []
    for _ in range(5):
        q.push(1, 1, 0)
    assert q.overflowed and len(q.pending) == 1


CONFIG = {"rows": 4, "cols": 4, "led_count": 8, "debounce_scans": 2, "host_timeout_ms": 100}


def _device():
    shown = []
    raw = [0, 0, 0, 0]
    dev = Device(CONFIG, 0x1234, shown.append)
    dev.boot(lambda r: raw[r], 0)
    return dev, raw, shown


def _frames(data):
    return Decoder().feed(data)


def test_device_handshake_and_snapshot():
    dev, raw, shown = _device()
    frames = _frames(dev.poll(0))
    assert frames[0][1] == INFO
    assert get_u16(frames[0][2], 0) == 0x1234
    assert shown[-1][0] == 40  # "host lost" until the host speaks
    raw[2] = 0b0010
    dev.scan(lambda r: raw[r])
    dev.scan(lambda r: raw[r])
    host = Encoder()
    dev.receive(host.frame(SNAP_REQ), 1)
    frames = _frames(dev.poll(1))
    kinds = [f[1] for f in frames]
    assert SNAPSHOT in kinds and EVENTS not in kinds, kinds
    snap = frames[kinds.index(SNAPSHOT)][2]
    assert get_u32(snap, 2) == 1
    assert unpack_bits(snap[6:], 16)[2 * 4 + 1] == 1


def test_device_events_acked():
    dev, raw, _shown = _device()
    dev.poll(0)
    host = Encoder()
    raw[0] = 1
    dev.scan(lambda r: raw[r])
    dev.scan(lambda r: raw[r])
    dec = Decoder()
    frames = dec.feed(dev.poll(10))
    assert frames[0][1] == EVENTS
    payload = frames[0][2]
    assert get_u32(payload, 2) == 0 and payload[6:9] == bytes((0, 0, 1))
    assert dec.feed(dev.poll(15)) == []
    assert dec.feed(dev.poll(31))[0][1] == EVENTS  # resent: no ACK yet
    dev.receive(host.frame(ACK, u16(0x1234) + u32(1)), 32)
    assert dec.feed(dev.poll(60)) == []
    # An ACK for another boot is ignored.
    raw[0] = 0
    dev.scan(lambda r: raw[r])
    dev.scan(lambda r: raw[r])
    dec.feed(dev.poll(61))
    dev.receive(host.frame(ACK, u16(0x9999) + u32(2)), 62)
    assert dec.feed(dev.poll(90))[0][1] == EVENTS


def test_device_resends_at_once_when_the_host_saw_a_gap():
    dev, raw, _shown = _device()
    dev.poll(0)
    host = Encoder()
    raw[0] = 1
    dev.scan(lambda r: raw[r])
    dev.scan(lambda r: raw[r])
    dec = Decoder()
    assert dec.feed(dev.poll(10))[0][1] == EVENTS  # event 0, lost on its way, say
    dev.receive(host.frame(ACK, u16(0x1234) + u32(0)), 11)
    assert dec.feed(dev.poll(12)) == []  # a plain ACK: the resend waits for resend_ms
    dev.receive(host.frame(ACK, u16(0x1234) + u32(0) + bytes((ACK_GAP,))), 13)
    frames = dec.feed(dev.poll(13))
    assert frames[0][1] == EVENTS and get_u32(frames[0][2], 2) == 0, frames


def test_device_leds_and_host_lost():
    dev, _raw, shown = _device()
    host = Encoder()
    frame = bytes(range(24))
    dev.receive(host.frame(LEDS, u16(5) + frame), 10)
    assert shown[-1] == frame
    frames = _frames(dev.poll(10))
    assert [f[1] for f in frames][-1] == LED_ACK
    assert dev.poll(100) == b"" and shown[-1] == frame
    dev.poll(200)  # silent for over host_timeout_ms
    assert shown[-1] != frame and shown[-1][0] == 40
    dev.receive(host.frame(0x05), 300)
    assert shown[-1] == frame  # back, with the host's latest frame


def run():
    tests = [(name, fn) for name, fn in sorted(globals().items()) if name.startswith("test_")]
    failed = 0
    for name, fn in tests:
        try:
            fn()
        except Exception as error:
            failed += 1
            print("FAIL", name, repr(error))
    impl = sys.implementation
    version = ".".join(str(v) for v in impl.version[:3])
    counts = (len(tests) - failed, failed, impl.name, version)
    print("firmware self-test: %d passed, %d failed, under %s %s" % counts)  # noqa: UP031
    return failed


if __name__ == "__main__":
    if run():
        sys.exit(1)
