"""The daemon on a table whose reeds and LEDs hang off a microcontroller: the profile alone
chooses the serial link, and the game is read and lit through it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import wait_for
from daemon_run import call, serving

from controller.cli import main
from controller.config import Config, load_config
from controller.daemon import Daemon, RunOptions
from controller.rules.api import JSON
from controller.startup import StartupError
from hardware.link_bench import BENCH_CONFIG
from hardware.link_sim import SimTable
from hardware.profile import builtin_profile_path
from hardware.serial_link import SerialReedBank, SerialStrip
from vision.calibration import Calibration

ROWS = COLS = 8  # Akuma's 45 reeds on an 8 x 8 matrix
LEDS = 63
Cell = tuple[int, int]


def serial_profile(folder: Path, port: Path) -> tuple[Path, dict[str, tuple[int, int]]]:
    """Akuma's built-in profile with its reeds on the link's matrix, in the order listed."""
    text = builtin_profile_path("akuma").read_text(encoding="utf-8")
    cells: dict[str, tuple[int, int]] = {}
    lines = []
    spot = ""
    for line in text.splitlines():
        if line.startswith("id = "):
            spot = line.split('"')[1]
        if line.startswith("reed = "):
            index = len(cells)
            cells[spot] = (index // COLS, index % COLS)
            line = f'reed = "{index // COLS}:{index % COLS}"'
        lines.append(line)
    text = "\n".join(lines).replace(
        "[reeds]\npull_up = true",
        f'[reeds]\npull_up = true\nbackend = "serial"\n\n[link]\nport = "{port}"\n'
        f"rows = {ROWS}\ncols = {COLS}",
    )
    assert 'backend = "serial"' in text
    path = folder / "akuma-serial.toml"
    path.write_text(text + "\n", encoding="utf-8")
    return path, cells


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[SimTable]:
    sim = SimTable(
        tmp_path / "ttyPico", {**BENCH_CONFIG, "rows": ROWS, "cols": COLS, "led_count": LEDS}
    )
    yield sim
    sim.close()


def serial_table(folder: Path, pico: SimTable) -> tuple[Config, RunOptions, dict[str, Cell]]:
    """Real backends (not --sim): the profile's link serves both the reeds and the LEDs. The
    camera over the cards is unplugged: it is retried while the reeds play on."""
    profile, cells = serial_profile(folder, pico.link)
    camera = {"camera_source": "opencv", "camera_device": str(folder / "unplugged")}
    config = replace(load_config(None), profile=profile, dice_source="virtual", **camera)
    half = ((0.5, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 1.0))
    name = "Capture the Akuma, 3x3 board"
    Calibration(name, (1280, 960), half, (0, 1, 2, 3), 0.3).save(folder / "calibration.json")
    run = RunOptions(state_dir=folder, socket_path=folder / "control.sock", game="akuma")
    return config, run, cells


def test_a_serial_profile_plays_through_the_microcontroller(tmp_path: Path, pico: SimTable) -> None:
    config, run, cells = serial_table(tmp_path, pico)
    with serving(config, run) as daemon:
        assert isinstance(daemon.reeds, SerialReedBank)
        assert isinstance(daemon.strip, SerialStrip)
        assert daemon.debouncer.seconds == 0  # the firmware debounced already
        assert call(daemon, op="roll", values=[3])["ok"]  # Hawk Moth rolls square 3
        row, col = cells["3.hawkmoth"]
        pico.set(row, col, True)
        wait_for(lambda: "3.hawkmoth" in call(daemon, op="status")["sensed"])

        # The table's LEDs converge to the daemon's latest frame.
        def shown() -> bool:
            last = daemon._last_frame
            return last is not None and pico.leds() == bytes(v for rgb in last for v in rgb)

        wait_for(shown)


class Published:
    """The dashboard's end: the snapshots the daemon publishes."""

    def __init__(self) -> None:
        self.latest: JSON = {}

    def publish(self, snapshot: JSON) -> None:
        self.latest = snapshot


def test_an_unplugged_microcontroller_shows_in_status_and_on_the_dashboard(
    tmp_path: Path, pico: SimTable, capsys: pytest.CaptureFixture[str]
) -> None:
    config, run, _cells = serial_table(tmp_path, pico)
    web = Published()
    with serving(config, run, web) as daemon:
        link = call(daemon, op="status")["link"]
        assert (link["port"], link["connected"], link["synced"]) == (str(pico.link), True, True)
        assert {"resyncs", "crc_errors", "malformed", "recoveries", "last_frame_age_s"} <= set(link)
        pico.unplug(60)
        alert = f"the reed controller (Pico) is not answering on {pico.link}: "

        def alerted() -> bool:
            shown = web.latest.get("alerts", [])
            return any(a["text"].startswith(alert) and a["key"] == "link_silent" for a in shown)

        wait_for(alerted, what="the dashboard's alert")
        assert web.latest["link"]["connected"] is False
        status = call(daemon, op="status")
        assert not status["link"]["synced"] and status["link"]["resyncs"] >= 1
        assert any(a.startswith(alert) for a in status["alerts"])
        capsys.readouterr()
        assert main(["status", "--state-dir", str(tmp_path)]) == 0
        shown = capsys.readouterr().out
        assert f"link on {pico.link}: down;" in shown and f"alert: {alert}" in shown


def test_no_microcontroller_on_the_port_is_a_clear_start_up_error(tmp_path: Path) -> None:
    profile, _ = serial_profile(tmp_path, tmp_path / "ttyNone")
    config = replace(load_config(None), profile=profile, dice_source="virtual")
    run = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", game="akuma")
    daemon = Daemon(config, run)
    with pytest.raises(StartupError, match=r"the table's microcontroller: there is no .*ls -l"):
        daemon.open()
    daemon.close()


def test_a_check_with_no_microcontroller_fails_its_reeds_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: the reeds of a Pico table with no Pico passed their check, read
    through the link that had just failed for the lights."""
    profile, _ = serial_profile(tmp_path, tmp_path / "ttyNone")
    args = ["--profile", str(profile), "--only", "lights,reeds,link", "--json"]
    assert main(["check", *args, "--state-dir", str(tmp_path)]) == 1
    parts = json.loads(capsys.readouterr().out)["parts"]
    assert [parts[name]["status"] for name in ("lights", "reeds", "link")] == ["failed"] * 3
    (said,) = parts["link"]["faults"]
    assert f"there is no {tmp_path / 'ttyNone'}" in said["text"]
