"""The serial link end to end: hardware/serial_link.py against the firmware's logic running in its
own process on a simulated matrix, over a pseudo-terminal pair, with faults injected."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from hardware.link_bench import BENCH_CONFIG, run_link_bench
from hardware.link_sim import Faults, SimTable
from hardware.profile import Channel
from hardware.serial_link import LinkError, SerialLink, SerialReedBank, SerialStrip

CONFIG: dict[str, Any] = {**BENCH_CONFIG, "rows": 4, "cols": 4, "led_count": 8}


def wait_for(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[SimTable]:
    sim = SimTable(tmp_path / "ttySmartboard", CONFIG)
    yield sim
    sim.close()


def test_fault_injected_events_none_lost_none_duplicated() -> None:
    result = run_link_bench(events=10_000, seed=7, led_frames=5)
    assert result["events"] == 10_000
    assert result["lost"] == 0
    assert result["duplicated"] == 0
    assert result["leds_converged"] and result["state_matches"]
    assert result["connects"] >= 2  # the unplug and replug happened
    assert result["snapshots"] >= 3  # at start, after the reset, after the replug
    assert result["p99_ms"] is not None


def test_heavy_faults_still_lose_nothing() -> None:
    faults = Faults(corrupt=0.05, drop=0.05, duplicate=0.05, garbage=0.05)
    result = run_link_bench(events=500, seed=11, faults=faults, led_frames=2)
    assert (result["lost"], result["duplicated"]) == (0, 0)
    assert result["leds_converged"] and result["state_matches"]


def test_reed_bank_and_strip_interfaces(table: SimTable) -> None:
    link = SerialLink(str(table.link), 4, 4, 8)
    edges: list[tuple[str, bool, float]] = []
    table.set(1, 2, True)  # a piece already on the table before the host connects
    time.sleep(0.05)
    bank = SerialReedBank(
        {"a": Channel(1, 2), "b": Channel(3, 3)}, link, lambda *e: edges.append(e)
    )
    strip = SerialStrip(link)
    try:
        link.start()
        assert bank.read() == {"a": True, "b": False}
        t = table.set(3, 3, True)
        assert wait_for(lambda: bank.read()["b"])
        spot, occupied, at = edges[-1]
        assert (spot, occupied) == ("b", True) and at >= t
        frame = tuple((i, 2 * i, 3 * i) for i in range(8))
        strip.show(frame)
        assert wait_for(lambda: table.leds() == bytes(v for rgb in frame for v in rgb))
        with pytest.raises(ValueError):
            strip.show(frame[:3])
    finally:
        bank.close()


def test_firmware_shows_host_lost_when_the_host_falls_silent(table: SimTable) -> None:
    link = SerialLink(str(table.link), 4, 4, 8)
    link.start()
    frame = bytes(range(24))
    link.show(frame)
    assert wait_for(lambda: table.leds() == frame)
    link.close()  # silent from now on
    assert wait_for(lambda: table.leds() not in (frame, bytes(24)), 3.0)
    lost = table.leds()
    assert lost[0] == 40 and lost[3:12] == bytes(9)


def test_config_mismatch_is_refused_with_a_clear_message(table: SimTable) -> None:
    link = SerialLink(str(table.link), 12, 12, 144)
    with pytest.raises(LinkError, match=r"4x4 matrix and 8 LEDs.*12x12 and 144"):
        link.start(wait_s=3)
    link.close()


def test_reconnects_with_backoff_after_unplug(table: SimTable) -> None:
    link = SerialLink(str(table.link), 4, 4, 8, backoff=(0.02, 0.2))
    link.start()
    try:
        table.unplug(0.4)
        table.set(0, 0, True)  # moved while unplugged: only the snapshot can tell
        assert wait_for(lambda: link.occupied(0, 0) and link.connects >= 2)
        assert link.snapshots >= 2
    finally:
        link.close()


def test_bench_link_command_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "link", "--events", "300", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["events"], result["lost"], result["duplicated"]) == (300, 0, 0)
    assert {"p50_ms", "p99_ms", "led_frame_ms"} <= set(result)
    assert main(["bench", "link", "--events", "0"]) == 2
    assert "--events must be at least 1" in capsys.readouterr().err
