"""The serial link never dies silently: a frame whose CRC holds but whose content does not fit
is counted and skipped, an error in the link's thread restarts the link, and the link's health
is there to read. The frame handling is fuzzed without a port; the restarts run against the
firmware's logic in its own process (hardware/link_sim.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_for
from hypothesis import given
from hypothesis import strategies as st

from firmware import protocol
from hardware.link_bench import BENCH_CONFIG
from hardware.link_sim import SimTable
from hardware.link_state import LinkState
from hardware.serial_link import SerialLink

ROWS, COLS, LEDS = 4, 4, 8
BOOT = 0x1234
CONFIG: dict[str, Any] = {**BENCH_CONFIG, "rows": ROWS, "cols": COLS, "led_count": LEDS}
CELL_BYTES = (ROWS * COLS + 7) // 8


class Wire:
    """The firmware's end of the wire, in the test: frames to feed the link, and what the link
    wrote back."""

    def __init__(self) -> None:
        self.encoder = protocol.Encoder()
        self.written = bytearray()

    def write(self, data: bytes) -> int:
        self.written.extend(data)
        return len(data)

    def frame(self, kind: int, payload: bytes = b"") -> bytes:
        return self.encoder.frame(kind, payload)

    def sent_by_host(self) -> list[tuple[int, bytes]]:
        frames = protocol.Decoder().feed(bytes(self.written))
        self.written.clear()
        return [(kind, payload) for _seq, kind, payload in frames]


def info(boot: int = BOOT) -> bytes:
    return (
        protocol.u16(boot)
        + protocol.u16(protocol.config_hash(ROWS, COLS, LEDS))
        + bytes((ROWS, COLS))
        + protocol.u16(LEDS)
        + protocol.VERSION.encode()
    )


def snapshot(cells: list[int], next_id: int, boot: int = BOOT) -> bytes:
    return protocol.u16(boot) + protocol.u32(next_id) + protocol.pack_bits(cells)


def events(*items: tuple[int, int, int, int], boot: int = BOOT) -> bytes:
    """EVENTS for (id, row, col, state) each."""
    out = protocol.u16(boot)
    for event_id, row, col, state in items:
        out += protocol.u32(event_id) + bytes((row, col, state))
    return out


class Linked:
    """A link with no thread and no port: bytes go straight to its frame handling."""

    def __init__(self) -> None:
        self.now = 100.0
        self.changes: list[tuple[int, int, bool]] = []
        self.link = SerialLink(
            "/dev/ttyTest",
            ROWS,
            COLS,
            LEDS,
            on_change=lambda r, c, v, _at: self.changes.append((r, c, v)),
            clock=lambda: self.now,
        )
        self.wire = Wire()
        self.link._port = self.wire  # what the link writes lands on the test's wire

    def feed(self, data: bytes) -> bool:
        return self.link._receive(data, self.now)

    def sync(self, cells: list[int] | None = None, next_id: int = 100) -> None:
        self.feed(self.wire.frame(protocol.INFO, info()))
        self.feed(self.wire.frame(protocol.SNAPSHOT, snapshot(cells or [0] * 16, next_id)))
        assert self.link.synced


MALFORMED = {
    "an INFO of 3 bytes": (protocol.INFO, b"\x12\x34\x00"),
    "a SNAPSHOT without its cell bits": (protocol.SNAPSHOT, protocol.u16(BOOT) + bytes(4)),
    "a SNAPSHOT with cell bits to spare": (protocol.SNAPSHOT, snapshot([0] * 16, 100) + b"\0"),
    "EVENTS with half an event": (protocol.EVENTS, events((100, 1, 1, 1))[:-3]),
    "EVENTS of one byte": (protocol.EVENTS, b"\x12"),
    "an empty LED_ACK": (protocol.LED_ACK, b""),
    "a PONG with a payload": (protocol.PONG, b"\x01"),
    "a type only the host sends": (protocol.HELLO, b""),
    "an event outside the matrix": (protocol.EVENTS, events((100, 9, 0, 1))),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_frame_with_a_good_crc_is_counted_and_skipped(name: str) -> None:
    kind, payload = MALFORMED[name]
    t = Linked()
    t.sync()
    t.feed(t.wire.frame(kind, payload))
    state = t.link.state()
    assert (state.malformed, state.synced) == (1, True)
    assert state.last_error is not None and "malformed" in state.last_error
    assert t.changes == []
    next_id = 101 if name == "an event outside the matrix" else 100  # acknowledged, not lost
    t.feed(t.wire.frame(protocol.EVENTS, events((next_id, 2, 3, 1))))
    assert t.changes == [(2, 3, True)] and t.link.occupied(2, 3)


def test_the_link_state_counts_crc_errors_and_tells_the_age_of_the_last_frame() -> None:
    t = Linked()
    assert t.link.state().unsynced_s == 0 and t.link.state().last_frame_age_s is None
    t.now += 2
    assert t.link.state().trouble() == (
        "the reed controller (Pico) is not answering on /dev/ttyTest: no answer for 2 s"
    )
    t.sync()
    spoilt = bytearray(t.wire.frame(protocol.PONG))
    spoilt[-1] ^= 1
    t.feed(bytes(spoilt))
    t.now += 0.5
    state = t.link.state()
    assert (state.synced, state.unsynced_s, state.crc_errors) == (True, None, 1)
    assert state.last_frame_age_s == 0.5 and state.trouble() is None
    assert state.to_json(digits=0)["last_frame_age_s"] == 0


def test_a_gap_in_the_events_asks_for_them_again_at_once() -> None:
    t = Linked()
    t.sync(next_id=100)
    t.wire.sent_by_host()
    t.feed(t.wire.frame(protocol.EVENTS, events((101, 0, 1, 1))))  # 100 was lost
    assert t.wire.sent_by_host()[-1] == (
        protocol.ACK,
        protocol.u16(BOOT) + protocol.u32(100) + bytes((protocol.ACK_GAP,)),
    )
    t.feed(t.wire.frame(protocol.EVENTS, events((100, 0, 0, 1), (101, 0, 1, 1))))
    assert t.wire.sent_by_host()[-1] == (protocol.ACK, protocol.u16(BOOT) + protocol.u32(102))
    assert t.changes == [(0, 0, True), (0, 1, True)]


def test_a_firmware_copied_again_while_plugged_in_is_taken_up() -> None:
    t = Linked()
    wrong = info()[:2] + protocol.u16(0) + info()[4:]
    t.feed(t.wire.frame(protocol.INFO, wrong))
    assert t.link.error is not None and "copy the firmware again" in t.link.error
    t.sync()
    assert t.link.error is None


def understands_good_frames_after(t: Linked) -> None:
    """Whatever came before, the firmware's next INFO, SNAPSHOT and EVENTS are understood."""
    flush = bytes(protocol.MAX_PAYLOAD + protocol.OVERHEAD)  # completes any frame begun
    t.feed(flush)
    t.feed(t.wire.frame(protocol.PONG))  # may repeat the SEQ of a frame before: dropped then
    cells = [0] * 16
    cells[5] = 1
    t.feed(t.wire.frame(protocol.INFO, info()))
    t.feed(t.wire.frame(protocol.SNAPSHOT, snapshot(cells, 7_000)))
    t.feed(t.wire.frame(protocol.EVENTS, events((7_000, 1, 2, 1))))
    assert t.link.synced and t.link.error is None
    cells[6] = 1
    assert t.link.cells == [bool(c) for c in cells]


@given(st.lists(st.binary(max_size=200), max_size=8))
def test_arbitrary_bytes_never_raise_and_good_frames_follow(chunks: list[bytes]) -> None:
    t = Linked()
    t.sync()
    for chunk in chunks:
        t.feed(chunk)
    understands_good_frames_after(t)


FRAME_TYPES = st.sampled_from(protocol.KINDS) | st.integers(0, 255)
PAYLOADS = st.binary(max_size=64) | st.binary(max_size=64).map(lambda b: protocol.u16(BOOT) + b)


@given(st.lists(st.tuples(FRAME_TYPES, PAYLOADS), min_size=1, max_size=6))
def test_any_payload_with_a_good_crc_is_handled_or_counted(frames: list[tuple[int, bytes]]) -> None:
    t = Linked()
    t.sync()
    for kind, payload in frames:
        before = t.link.malformed
        t.now += 1
        heard = t.feed(t.wire.frame(kind, payload))
        if kind in protocol.KINDS:  # else the decoder takes it for noise
            assert heard or t.link.malformed > before
    understands_good_frames_after(t)


def test_link_state_trouble_says_what_a_player_must_know() -> None:
    fine = LinkState(
        port="/dev/ttyACM0",
        connected=True,
        synced=True,
        unsynced_s=None,
        last_frame_age_s=0.1,
        resyncs=0,
        crc_errors=0,
        malformed=0,
        recoveries=0,
        since_recovery_s=None,
        last_error=None,
    )
    assert fine.trouble() is None
    unplugged = LinkState(
        **{
            **vars(fine),
            "connected": False,
            "synced": False,
            "unsynced_s": 3.0,
            "last_error": "cannot open it: [Errno 2] No such file or directory",
        }
    )
    assert unplugged.trouble() == (
        "the reed controller (Pico) is not answering on /dev/ttyACM0: "
        "cannot open it: [Errno 2] No such file or directory"
    )
    blink = LinkState(**{**vars(fine), "synced": False, "unsynced_s": 0.2})
    assert blink.trouble() is None  # a resync within the grace worries nobody
    restarted = LinkState(
        **{**vars(fine), "recoveries": 1, "since_recovery_s": 5.0, "last_error": "boom"}
    )
    assert restarted.trouble() is not None and "restarted after an error" in restarted.trouble()


# -- the link's thread, against the firmware's logic in its own process ------------------------


@pytest.fixture
def table(tmp_path: Path) -> Iterator[SimTable]:
    sim = SimTable(tmp_path / "ttySmartboard", CONFIG)
    yield sim
    sim.close()


@pytest.fixture
def link(table: SimTable) -> Iterator[SerialLink]:
    link = SerialLink(str(table.link), ROWS, COLS, LEDS, backoff=(0.02, 0.2))
    yield link
    link.close()


def test_malformed_frames_from_the_firmware_do_not_stop_sensing(
    table: SimTable, link: SerialLink
) -> None:
    link.start()
    table.send(protocol.INFO, b"\x12\x34\x00")  # the issue's: a good CRC, 3 payload bytes
    table.send(protocol.SNAPSHOT, bytes(6))  # and a SNAPSHOT without cell bits
    wait_for(lambda: link.malformed == 2, what="both frames counted")
    table.set(1, 1, True)
    wait_for(lambda: link.occupied(1, 1), what="the link still sensing")
    assert link.recoveries == 0 and link.synced


@pytest.mark.parametrize("failure", [RuntimeError("a bug"), SystemExit(3)])
def test_an_error_in_the_links_thread_restarts_the_link(
    table: SimTable, link: SerialLink, failure: BaseException
) -> None:
    seen: list[tuple[int, int, bool]] = []
    failures = [failure]

    def on_change(row: int, col: int, occupied: bool, _at: float) -> None:
        if failures:
            raise failures.pop()
        seen.append((row, col, occupied))

    link.on_change = on_change
    link.start()
    table.set(0, 2, True)  # its report fails, and the thread with it
    wait_for(lambda: link.recoveries == 1, what="the link restarted")
    state = link.state()
    assert state.last_error is not None and type(failure).__name__ in state.last_error
    wait_for(lambda: (0, 2, True) in seen, what="the failed change reported after the restart")
    table.set(3, 1, True)
    wait_for(lambda: (3, 1, True) in seen, what="the link sensing again")
    assert link.synced and link.state().trouble() is not None  # shown for a while
