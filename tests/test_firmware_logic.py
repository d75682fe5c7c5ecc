"""The firmware's pure logic (firmware/*.py) under CPython; `make test` also runs it under
MicroPython (firmware/selftest.py)."""

from __future__ import annotations

import importlib
import json
import random
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

import firmware
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


class FakePins:
    """The Pico's pins, as a fake `machine` gives them, over a diode matrix of reeds: a column
    reads low when a closed reed joins it to a row driven low, by the row's own pin
    (`row_pins`) or by the decoder (`row_select_pins`)."""

    def __init__(self, config: dict[str, Any], closed: set[tuple[int, int]]) -> None:
        self.config, self.closed = config, closed
        self.levels: dict[int, int] = {}  # the level of each pin driven as an output
        pins = self

        class Pin:
            IN, OUT, PULL_UP = "in", "out", "pull_up"

            def __init__(self, pin: int, mode: str = "", pull: str = "", value: int = 0) -> None:
                self.pin = pin
                self.init(mode, value)

            def init(self, mode: str, value: int = 0) -> None:
                if mode == Pin.OUT:
                    pins.levels[self.pin] = value
                else:
                    pins.levels.pop(self.pin, None)

            def value(self, level: int | None = None) -> int:
                if level is not None:
                    assert self.pin in pins.levels, f"GP{self.pin} is an input"
                    pins.levels[self.pin] = level
                    return level
                column = pins.config["col_pins"].index(self.pin)
                return 0 if any((r, column) in pins.closed for r in pins.low_rows()) else 1

        self.machine = types.SimpleNamespace(Pin=Pin)

    def low_rows(self) -> list[int]:
        select = self.config.get("row_select_pins")
        if select:
            return [sum(self.levels[pin] << bit for bit, pin in enumerate(select))]
        rows = self.config["row_pins"]
        return [r for r, pin in enumerate(rows) if self.levels.get(pin) == 0]


@pytest.mark.parametrize("name", ["config.json", "configs/13x13.json", "configs/16x16.json"])
def test_board_reads_each_row_by_its_pin_or_through_the_row_decoder(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """firmware/board.py on a fake `machine`: 12 rows on a pin each, or 13 to 16 through a
    74HC154 whose four select pins drive one row low at a time."""
    config = json.loads((Path(firmware.__file__).parent / name).read_text(encoding="utf-8"))
    rows, cols = config["rows"], config["cols"]
    rng = random.Random(name)
    closed = {(r, c) for r in range(rows) for c in range(cols) if rng.random() < 0.2}
    pins = FakePins(config, closed | {(rows - 1, cols - 1)})
    monkeypatch.setitem(sys.modules, "machine", pins.machine)
    neopixel = types.SimpleNamespace(NeoPixel=lambda pin, count: [None] * count)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setattr(time, "sleep_us", lambda us: None, raising=False)
    monkeypatch.delitem(sys.modules, "firmware.board", raising=False)
    board = importlib.import_module("firmware.board").Board(config)
    for r in range(rows):
        assert board.read_row(r) == sum(1 << c for c in range(cols) if (r, c) in pins.closed)
    if "row_pins" in config:
        assert pins.levels == {}, "a row pin floats again once read"
        return
    with pytest.raises(ValueError, match="too few row_select_pins for 17 rows"):
        type(board)({**config, "rows": 17})
    with pytest.raises(ValueError, match="row_pins or row_select_pins, not both"):
        type(board)({**config, "row_pins": list(range(rows))})
