"""Every board size a game's options allow (issue 21): the game on its board (`Game.on_board`),
a built-in profile per size made from a `[grid]`, for GPIO and for the Pico's serial scan, and
the table that opens on it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, fast_sim_config, options_in, wait_for
from daemon_run import call, serving

from controller import startup
from controller.cli import main
from controller.cli.arguments import board_profile as cli_profile
from controller.config import ConfigError, load_config
from controller.daemon import Daemon
from controller.past_games import past_games, past_position
from controller.rules.api import CAMERA, JSON, REED
from controller.rules.takeover import GAME
from controller.startup import SetupError, builtin_profile
from hardware.link_sim import SimTable
from hardware.profile import (
    BoardProfile,
    Channel,
    ProfileError,
    builtin_profile_path,
    load_profile,
    parse_profile,
)
from hardware.serial_link import SerialReedBank, SerialStrip

SIZES = range(12, 17)
PALETTE = load_config(None).palette
# The Pico's GPIOs a config may use: GP0-GP22 and GP26-GP28 (GP23-GP25 are on-board).
PICO_GPIO = {*range(23), 26, 27, 28}


def builtin(size: int, serial: bool) -> BoardProfile:
    board = GAME.on_board({"size": size})
    name = GAME.info.profile_for(board.default_options) + ("-serial" if serial else "")
    return load_profile(builtin_profile_path(name), board.spots())


def firmware_config(size: int) -> dict[str, Any]:
    name = "config.json" if size == 12 else f"configs/{size}x{size}.json"
    config: dict[str, Any] = json.loads((REPO / "firmware" / name).read_text(encoding="utf-8"))
    return config


# -- the game on its board --------------------------------------------------------------------


def test_a_game_on_its_default_board_is_itself_and_another_board_a_kept_copy() -> None:
    assert GAME.on_board({}) is GAME and GAME.on_board({"size": 12, "players": 3}) is GAME
    big = GAME.on_board({"size": 16, "players": 4})
    assert big is GAME.on_board({"size": 16}) and big.on_board({}) is GAME
    assert big.default_options == {"players": 2, "size": 16}
    rows = big.board_rows()
    assert len(rows) == 16 and all(len(row) == 16 for row in rows) and rows[15][15] == "r15c15"
    assert big.spots()["r15c15"] == REED and big.spots()["r15c15.map"] == CAMERA
    assert len(GAME.spots()) == 288  # the game itself stays on its 12x12 board
    assert big.new_initial_state().options["size"] == 16
    assert GAME.info.profile_for(big.default_options) == "takeover-16"
    assert GAME.info.profile_for(GAME.default_options) == "takeover"
    with pytest.raises(ValueError, match="must be 12 to 16 cells"):
        GAME.on_board({"size": 17})


# -- a profile per size -----------------------------------------------------------------------


@pytest.mark.parametrize("serial", [False, True], ids=["gpio", "serial"])
@pytest.mark.parametrize("size", SIZES)
def test_every_size_has_a_profile_for_gpio_and_for_the_pico(size: int, serial: bool) -> None:
    profile = builtin(size, serial)
    board = GAME.on_board({"size": size})
    assert set(profile.spots) == set(board.spots()) and profile.game == "takeover"
    reeds = list(profile.reed_channels().values())
    assert len(reeds) == size * size == len(set(reeds))
    leds = [i for spot in profile.spots.values() for i in spot.leds]
    assert sorted(leds) == list(range(size * size)) == list(range(profile.led_count))
    assert profile.table_size_mm == (40 + 30 * size,) * 2
    width, height = profile.table_size_mm
    for region in profile.camera_regions().values():
        assert region.x >= 0 and region.x + region.w <= width
        assert region.y >= 0 and region.y + region.h <= height
    # The LEDs run in a serpentine from the top-left; the last cell's reed ends the wiring.
    assert profile.spots[f"r1c{size - 1}"].leds == (size,)
    last = profile.reed_channels()[f"r{size - 1}c{size - 1}"]
    if serial:
        assert profile.link is not None and (profile.link.rows, profile.link.cols) == (size, size)
        assert last == Channel(size - 1, size - 1)
    else:
        assert profile.link is None and reeds[0] == Channel(2, 0)
        assert last == Channel(2 + (size * size - 1) // 16, (size * size - 1) % 16)


@pytest.mark.parametrize("size", SIZES)
def test_each_serial_profile_has_the_firmware_config_to_flash(size: int) -> None:
    """The Pico's config for a size matches its profile (the link refuses a mismatch), and its
    pins fit the Pico: 16 rows through the decoder's four select pins."""
    config, profile = firmware_config(size), builtin(size, serial=True)
    assert (config["rows"], config["cols"], config["led_count"]) == (size, size, size * size)
    assert profile.led_count == config["led_count"]
    rows = config.get("row_pins") or config["row_select_pins"]
    pins = [*rows, *config["col_pins"], config["led_pin"]]
    assert len(pins) == len(set(pins)) and set(pins) <= PICO_GPIO
    assert len(config["col_pins"]) == size
    assert len(rows) == size if "row_pins" in config else (1 << len(rows)) >= size


# -- [grid] -----------------------------------------------------------------------------------


def grid_data(**grid: object) -> dict[str, Any]:
    return {
        "game": "takeover",
        "table": {"size_mm": [400, 400]},
        "leds": {"count": 144},
        "grid": {
            "rows": 12,
            "cols": 12,
            "cell_mm": 30,
            "margin_mm": 20,
            "reeds": "expanders",
            "first_chip": 2,
            "camera": ".map",
        }
        | grid,
    }


def test_spots_listed_after_a_grid_change_the_spots_it_makes() -> None:
    data = grid_data()
    # Two reeds whose wires were crossed: each spot keeps its LED and region.
    data["spots"] = [{"id": "r0c0", "reed": "2:1"}, {"id": "r0c1", "reed": "2:0"}]
    profile = parse_profile(data, GAME.spots(), "crossed.toml")
    assert profile.spots["r0c0"].reed == Channel(2, 1) and profile.spots["r0c0"].leds == (0,)
    assert profile.spots["r0c1"].reed == Channel(2, 0)
    data["spots"] = [{"id": "r0c0", "reed": "2:1"}]
    with pytest.raises(ProfileError, match="reed channel 2:1 is used twice: 'r0c0' and 'r0c1'"):
        parse_profile(data, GAME.spots(), "crossed.toml")


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ({"colums": 12}, "[grid] has unknown keys ['colums']; known: camera, cell_mm, cols"),
        ({"rows": 0}, "[grid] rows must be a whole number in 1..64, not 0"),
        ({"cell_mm": -30}, "[grid] cell_mm must be a positive number of mm, not -30"),
        ({"reeds": "wires"}, '[grid] reeds must be "expanders" or "matrix", not \'wires\''),
        ({"reeds": "matrix"}, '[grid] reeds = "matrix" is for [reeds] backend = "serial"'),
        ({"first_chip": None}, 'reeds = "expanders" needs first_chip'),
        ({"camera": ""}, '[grid] camera must be the suffix of its spots, like ".map"'),
        ({"rows": 11}, "spots missing for game 'takeover': r11c0, r11c0.map"),
        ({"margin_mm": 50}, "spot 'r0c11.map': region [380.0, 50.0, 30.0, 30.0] reaches beyond"),
    ],
)
def test_a_bad_grid_is_named_with_its_file_and_key(grid: dict[str, Any], message: str) -> None:
    data = grid_data(**grid)
    data["grid"] = {k: v for k, v in data["grid"].items() if v is not None}
    with pytest.raises(ProfileError) as caught:
        parse_profile(data, GAME.spots(), "bad.toml")
    assert str(caught.value).startswith("board profile bad.toml: ")
    assert message in str(caught.value)


# -- choosing a profile -----------------------------------------------------------------------


def test_a_size_without_a_profile_is_refused_naming_the_sizes_that_have_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def without_15(name: str) -> Path:
        return tmp_path / "none.toml" if name == "takeover-15" else builtin_profile_path(name)

    monkeypatch.setattr(startup, "builtin_profile_path", without_15)
    assert builtin_profile(GAME.on_board({"size": 16})).name == "takeover-16.toml"
    with pytest.raises(SetupError) as caught:
        builtin_profile(GAME.on_board({"size": 15}))
    assert str(caught.value) == (
        f"Hostile Takeover has no built-in board profile for size 15 (no {tmp_path}/none.toml); "
        "it has one for size 12, 13, 14 or 16"
    )


def test_the_config_takes_a_builtin_profile_by_its_name(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nprofile = "takeover-16-serial"\n', encoding="utf-8")
    assert load_config(config).profile == builtin_profile_path("takeover-16-serial")
    config.write_text('[table]\nprofile = "takeover-17"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no TOML file's path .* akuma, mightymania"):
        load_config(config)


def test_profile_commands_read_a_profile_of_a_larger_board(tmp_path: Path) -> None:
    """`smartboard calibrate --profile FILE` and the like: the profile of a 16x16 table."""
    path = builtin_profile_path("takeover-16")
    args = argparse.Namespace(profile=path, config=None, game=None)
    assert cli_profile(args).name == "Hostile Takeover, 16x16 board"
    config = tmp_path / "table.toml"
    config.write_text('[table]\ngame = "takeover"\nprofile = "takeover-14"\n', encoding="utf-8")
    args = argparse.Namespace(profile=None, config=config, game=None)
    assert cli_profile(args).name == "Hostile Takeover, 14x14 board"


# -- the table --------------------------------------------------------------------------------


class Published:
    """The dashboard's end: the latest snapshot the daemon publishes."""

    def __init__(self) -> None:
        self.latest: JSON = {}

    def publish(self, snapshot: JSON) -> None:
        self.latest = snapshot


@pytest.fixture
def big_table(tmp_path: Path) -> Iterator[tuple[Any, Published]]:
    """`smartboard run --sim --game takeover --option size=16`, as a service runs it."""
    web = Published()
    run = options_in(tmp_path, game="takeover", options={"size": 16})
    with serving(fast_sim_config(), run, web) as daemon:
        yield daemon, web


def test_the_simulated_table_plays_a_16x16_board(big_table: tuple[Any, Published]) -> None:
    daemon, web = big_table
    assert daemon.profile.name == "Hostile Takeover, 16x16 board"
    wait_for(lambda: len(web.latest.get("board_rows", [])) == 16)
    assert web.latest["board_rows"][15][15] == "r15c15" and "r15c15.map" in web.latest["spots"]
    for roll in (12, 1):  # red goes first
        assert call(daemon, op="roll", values=[roll])["ok"]
    assert call(daemon, op="act", id="place_tile:r14c14")["ok"]  # HT-1: any cell, the first
    wait_for(lambda: call(daemon, op="status")["sensed"].get("r15c15.map") == "tile")
    daemon.reeds.drive("r15c15", True)  # a pawn set down on the far corner is felt
    wait_for(lambda: call(daemon, op="status")["sensed"].get("r15c15") == "piece")


def test_a_new_game_of_another_size_reopens_the_table_on_its_profile(
    big_table: tuple[Any, Published], tmp_path: Path
) -> None:
    daemon, web = big_table
    assert call(daemon, op="roll", values=[3])["ok"]
    reply = call(daemon, op="new", options={"size": 13}, abandon=True)
    assert reply["ok"], reply
    assert daemon.profile.name == "Hostile Takeover, 13x13 board"
    wait_for(lambda: len(web.latest.get("board_rows", [])) == 13)
    assert "r12c12" in daemon.reeds.channels and "r13c13" not in daemon.reeds.channels
    # The abandoned 16x16 game replays on its own board, not on the table's.
    (past,) = past_games(tmp_path)
    shown = past_position(tmp_path, past["id"], 1, {"takeover": daemon.profile}, PALETTE)
    assert len(shown["snapshot"]["board_rows"]) == 16
    # A size whose profile cannot be read leaves the game as it was.
    daemon.config = replace(daemon.config, profile=builtin_profile_path("takeover-14"))
    refused = call(daemon, op="new", options={"size": 16}, abandon=True)
    assert not refused["ok"] and refused["error"].endswith(
        "takeover-14.toml is for size 14, and this game is size 16: play at size 14 (--option "
        'size=14), or set [table] profile to one for size 16 (built in: "takeover-16", or '
        '"takeover-16-serial")'
    )
    assert daemon.profile.name == "Hostile Takeover, 13x13 board"


def test_the_16x16_serial_profile_plays_through_the_pico_without_a_camera(
    tmp_path: Path,
) -> None:
    """`smartboard run --game takeover --option size=16 --no-camera` on the Pico's profile (not
    --sim): the profile alone chooses the link, whose 16 x 16 matrix and 256 LEDs the Pico's
    config for that size serves; the map is entered, the reeds are felt."""
    pico = SimTable(tmp_path / "ttyPico", {**firmware_config(16), "debounce_scans": 2})
    text = builtin_profile_path("takeover-16-serial").read_text(encoding="utf-8")
    path = tmp_path / "takeover-16-serial.toml"
    path.write_text(text.replace("/dev/smartboard-pico", str(pico.link)), encoding="utf-8")
    config = replace(load_config(None).without_camera(), profile=path)
    run = options_in(tmp_path, game="takeover", options={"size": 16})
    try:
        with serving(config, run) as daemon:
            assert isinstance(daemon.reeds, SerialReedBank)
            assert isinstance(daemon.strip, SerialStrip)
            assert call(daemon, op="place", spot="r15c15.map", token="tile")["ok"]
            pico.set(15, 15, True)
            wait_for(lambda: {"r15c15", "r15c15.map"} <= set(call(daemon, op="status")["sensed"]))
            # Nothing of this is the game's yet: the pawn and the tile cell blink on the LED of
            # the cell, the last of the 256, through the Pico.
            (led,) = daemon.profile.spots["r15c15"].leds
            assert led == 255 - 15  # the serpentine's last row runs right to left

            def lit() -> bool:
                return pico.leds()[3 * led : 3 * led + 3] != bytes(3)

            wait_for(lit, what="the LED of r15c15")
    finally:
        pico.close()


def test_a_journal_of_another_size_resumes_on_its_board(tmp_path: Path) -> None:
    run = options_in(tmp_path, game="takeover", options={"size": 14})
    with serving(fast_sim_config(), run) as daemon:
        assert call(daemon, op="roll", values=[5])["ok"]
    with serving(fast_sim_config(), options_in(tmp_path)) as daemon:
        assert daemon.profile.name == "Hostile Takeover, 14x14 board"
        assert len(daemon.game.board_rows()) == 14


def test_a_larger_board_is_calibrated_by_its_own_profile(tmp_path: Path) -> None:
    """With no calibration, a 16x16 table starts with its board unread and is told to
    calibrate its own profile, which the commands take by its built-in name."""
    config = replace(fast_sim_config(), camera_backend="camera", camera_source="opencv")
    config = replace(config, camera_device=str(tmp_path / "none"))
    daemon = Daemon(config, options_in(tmp_path, game="takeover", options={"size": 16}))
    daemon.open()
    try:
        said = [alert["text"] for alert in daemon.alerts() if alert["key"] == "board_uncalibrated"]
    finally:
        daemon.close()
    assert len(said) == 1
    assert f"--profile {builtin_profile_path('takeover-16')} --state-dir {tmp_path}`" in said[0]
    out = tmp_path / "markers.pdf"
    assert main(["markers", "--profile", "takeover-16", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
