"""The firmware's pure logic (firmware/*.py) under CPython; `make test` also runs it under
MicroPython (firmware/selftest.py)."""

from __future__ import annotations

import random

import pytest

from firmware import device, protocol, selftest
from firmware.matrix import Matrix

SELFTESTS = sorted(name for name in vars(selftest) if name.startswith("test_"))


@pytest.mark.parametrize("name", SELFTESTS)
def test_selftest(name: str) -> None:
    getattr(selftest, name)()


def test_selftest_reports_its_interpreter(capsys: pytest.CaptureFixture[str]) -> None:
    assert selftest.run() == 0
    assert "under cpython" in capsys.readouterr().out


def test_host_crc_is_the_firmware_crc() -> None:
    # The host computes it with binascii.crc_hqx; MicroPython, which has none, with the table.
    assert protocol.crc16 is not protocol.crc16_pure
    rng = random.Random(3)
    for _ in range(200):
        data = rng.randbytes(rng.randrange(0, 300))
        crc = rng.choice((0xFFFF, rng.randrange(1 << 16)))
        assert protocol.crc16(data, crc) == protocol.crc16_pure(data, crc)
        assert protocol.crc16(memoryview(data)) == protocol.crc16_pure(data)


def test_decoder_survives_random_noise() -> None:
    rng = random.Random(5)
    enc = protocol.Encoder()
    sent, stream = [], bytearray()
    for i in range(300):
        payload = i.to_bytes(2, "big") + rng.randbytes(rng.randrange(20))
        frame = bytearray(enc.frame(protocol.EVENTS, payload))
        if rng.random() < 0.1:
            frame[rng.randrange(len(frame))] ^= 0xFF  # corrupted: must be skipped
        else:
            sent.append(payload)
        if rng.random() < 0.1:
            stream.extend(rng.randbytes(rng.randrange(1, 10)))  # garbage between frames
        stream.extend(frame)
    dec = protocol.Decoder()
    got: list[bytes] = []
    at = 0
    while at < len(stream):
        n = rng.randrange(1, 64)
        got.extend(p for _s, _k, p in dec.feed(bytes(stream[at : at + n])))
        at += n
    # A corrupted frame may swallow at most the one behind it, never invent one.
    assert set(got) <= set(sent)
    assert len(got) >= len(sent) * 0.9


def test_matrix_rejects_oversize() -> None:
    with pytest.raises(ValueError):
        Matrix(17, 4, 3)
    with pytest.raises(ValueError):
        Matrix(4, 4, 0)


def test_matrix_random_bounces_settle_to_raw() -> None:
    rng = random.Random(9)
    m = Matrix(16, 16, 4)
    raw = [0] * 16
    state = [0] * 16
    for _ in range(500):
        if rng.random() < 0.3:
            raw[rng.randrange(16)] ^= 1 << rng.randrange(16)
        for r, c, v in m.scan(lambda r: raw[r]):
            assert (state[r] >> c) & 1 != v  # every change is a real change
            state[r] ^= 1 << c
    for _ in range(4):
        for r, c, _v in m.scan(lambda r: raw[r]):
            state[r] ^= 1 << c
    assert state == raw == m.stable


def test_device_overflow_sends_a_snapshot() -> None:
    config = {"rows": 2, "cols": 2, "led_count": 1, "debounce_scans": 1, "queue_capacity": 2}
    raw = [0, 0]
    dev = device.Device(config, 1, lambda frame: None)
    dev.boot(lambda r: raw[r], 0)
    dev.poll(0)
    for i in range(4):
        raw[i // 2] ^= 1 << (i % 2)
        dev.scan(lambda r: raw[r])
    frames = protocol.Decoder().feed(dev.poll(1))
    kinds = [k for _s, k, _p in frames]
    assert kinds[0] == protocol.SNAPSHOT
    snap = frames[0][2]
    assert protocol.get_u32(snap, 2) == 4
