"""Hostile Takeover on a real table (issue 21): its reeds and LEDs on the Pico, its map entered on
the dashboard when no camera looks at it, and pawns that hide the map under them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import wait_for
from daemon_run import call, serving

from controller.config import Config, load_config
from controller.daemon import Daemon, RunOptions
from controller.rules import GAMES
from controller.rules.api import PRESENT
from hardware.link_bench import BENCH_CONFIG
from hardware.link_sim import SimTable
from hardware.profile import builtin_profile_path
from vision.table_reader import BoardReading

GAME = GAMES["takeover"]
SIZE = 12


@pytest.fixture
def pico(tmp_path: Path) -> Iterator[SimTable]:
    leds = SIZE * SIZE
    sim = SimTable(
        tmp_path / "ttyPico", {**BENCH_CONFIG, "rows": SIZE, "cols": SIZE, "led_count": leds}
    )
    yield sim
    sim.close()


def no_camera_table(folder: Path, pico: SimTable) -> tuple[Config, RunOptions]:
    """The built-in serial profile on the simulated Pico, and no camera (--no-camera)."""
    text = builtin_profile_path("takeover-serial").read_text(encoding="utf-8")
    assert 'port = "/dev/smartboard-pico"' in text
    profile = folder / "takeover-serial.toml"
    profile.write_text(text.replace("/dev/smartboard-pico", str(pico.link)), encoding="utf-8")
    config = replace(load_config(None).without_camera(), profile=profile, settle_s=0.2)
    run = RunOptions(state_dir=folder, socket_path=folder / "control.sock", game="takeover")
    return config, run


def test_without_a_camera_the_map_is_entered_on_the_dashboard(
    tmp_path: Path, pico: SimTable
) -> None:
    """HT-1: a tile entered cell by cell on the dashboard is the tile placed; a decision taken
    by name appears on the entered map; the reeds stay the hands' to set."""
    config, run = no_camera_table(tmp_path, pico)
    with serving(config, run) as daemon:
        assert daemon.placeable == {"camera"}
        assert call(daemon, op="roll", values=[9])["ok"]  # red rolls for the first player
        assert call(daemon, op="roll", values=[4])["ok"]  # blue: red starts
        for cell in ("r4c4", "r4c5", "r5c4", "r5c5"):
            assert call(daemon, op="place", spot=f"{cell}.map", token="tile")["ok"]
        wait_for(lambda: call(daemon, op="status")["details"]["tiles_placed"] == 1)
        assert call(daemon, op="status")["details"]["tiles"] == ["r4c4"]
        # A reed is felt, never entered: the pawn is the player's hand's to put down.
        refused = call(daemon, op="place", spot="r0c0", token=PRESENT)
        assert (refused["ok"], refused["key"]) == (False, "real_table")
        # Blue's tile taken by name lies on the entered map at once, as a hand would lay it;
        # the first cell of another tile, entered meanwhile, stays where it was entered.
        assert call(daemon, op="place", spot="r8c4.map", token="tile")["ok"]
        assert call(daemon, op="act", id="place_tile:r4c6")["ok"]
        entered = daemon.sim_camera.truth if daemon.sim_camera is not None else {}
        assert {cell: entered.get(f"{cell}.map") for cell in ("r4c6", "r5c7", "r8c4")} == {
            "r4c6": "tile",
            "r5c7": "tile",
            "r8c4": "tile",
        }


def test_a_map_the_camera_cannot_read_is_lit_and_said_and_changes_nothing(
    tmp_path: Path, pico: SimTable
) -> None:
    """A frame the reader finds impossible (a tile across another) is skipped: its cells blink to
    be put right, the alert names them and why, and the game is as it was."""
    config, run = no_camera_table(tmp_path, pico)
    daemon = Daemon(config, run)
    daemon.open()
    try:
        before = daemon.session.state.actions()
        cells = ("r3c4.map", "r3c5.map")
        reading = BoardReading({}, cells, ("two tiles overlap at r3c4, r3c5",))
        daemon._handle(("unsure", reading))
        view = daemon.view(0.0)
        assert {cell: view.roles[cell] for cell in cells} == dict.fromkeys(cells, "fix")
        assert set(cells) <= view.blinking
        (alert,) = [a for a in daemon.alerts() if a["key"] == "board_unsure"]
        assert alert["text"] == (
            "the camera cannot read the board at r3c4.map, r3c5.map: "
            "two tiles overlap at r3c4, r3c5"
        )
        assert daemon.session.state.actions() == before
        daemon._handle(("frame", {}))  # a frame read surely: the alert goes
        assert [a for a in daemon.alerts() if a["key"] == "board_unsure"] == []
    finally:
        daemon.close()
