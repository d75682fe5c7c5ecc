"""The daemon's configuration (controller/config.py): defaults, overrides and ConfigError."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from controller.config import Config, ConfigError, load_config, parse_colour


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "smartboard.toml"
    path.write_text(text, encoding="utf-8")
    return path


def config_error(tmp_path: Path, text: str) -> tuple[Path, str]:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message, message
    return path, message


# Defaults.


def test_defaults() -> None:
    config = load_config(None)
    assert config.source == "built-in defaults"
    assert config.game == "akuma"
    assert config.profile is None
    assert config.reeds_backend == "gpio"
    assert config.debounce_s == pytest.approx(0.030)
    assert config.leds_backend == "neopixel"
    assert config.led_pin == "D10"
    assert config.pixel_order == "GRB"
    assert config.brightness_cap == pytest.approx(0.35)
    assert config.power_budget_ma == 2000
    assert isinstance(config.power_budget_ma, float)
    assert config.settle_s == pytest.approx(1.5)
    assert config.blink_hz == pytest.approx(2.0)
    assert config.camera_backend == "camera"
    assert config.dice_models is None  # the state directory
    assert config.camera_fps == 10
    assert config.stable_frames == 3
    assert config.sim_noise == 0.0
    assert config.sim_delay_s == 0.0


def test_default_palette_is_parsed_to_rgb() -> None:
    palette = load_config(None).palette
    assert palette["ladybug"] == (255, 0, 0)
    assert palette["akumatized"] == (0x80, 0x00, 0xFF)
    assert palette["civilian"] == (0x30, 0x30, 0x30)
    assert palette["winning"] == (0xFF, 0xB0, 0x00)
    assert {"hawkmoth", "ladybug", "trap", "shellter", "akuma", "legal", "fix"} <= set(palette)
    voodoo = {"landing", "capturer", "protected", "power", "last_capture"}
    loas = {"yellow", "turquoise", "red", "purple", "white"}
    assert voodoo | loas <= set(palette)
    for rgb in palette.values():
        assert isinstance(rgb, tuple)
        assert len(rgb) == 3
        assert all(type(c) is int and 0 <= c <= 255 for c in rgb)


# Overrides.


def test_file_overrides_only_its_keys(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        [table]
        profile = "/etc/smartboard/akuma.toml"
        [reeds]
        debounce_ms = 45
        [leds]
        brightness_cap = 0.2
        pixel_order = "RGB"
        power_budget_ma = 3500.5
        [palette]
        ladybug = "#FF1020"
        """,
    )
    config = load_config(path)
    defaults = load_config(None)
    assert config.source == str(path)
    assert config.profile == Path("/etc/smartboard/akuma.toml")
    assert config.debounce_s == pytest.approx(0.045)
    assert config.brightness_cap == pytest.approx(0.2)
    assert config.pixel_order == "RGB"
    assert config.power_budget_ma == pytest.approx(3500.5)
    assert config.palette["ladybug"] == (0xFF, 0x10, 0x20)
    # Everything else is as the defaults have it.
    assert config.game == defaults.game
    assert config.reeds_backend == defaults.reeds_backend
    assert config.led_pin == defaults.led_pin
    assert config.settle_s == defaults.settle_s
    assert config.palette["hawkmoth"] == defaults.palette["hawkmoth"]
    assert set(config.palette) == set(defaults.palette)


def test_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "# nothing\n"))
    defaults = load_config(None)
    assert dataclasses.replace(config, source=defaults.source) == defaults


def test_overrides_do_not_leak_into_later_loads(tmp_path: Path) -> None:
    load_config(write(tmp_path, "[reeds]\ndebounce_ms = 500\n[palette]\nextra = '#010203'\n"))
    defaults = load_config(None)
    assert defaults.debounce_s == pytest.approx(0.030)
    assert "extra" not in defaults.palette


def test_palette_may_gain_new_roles(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[palette]\nportal = "#00a0ff"\n'))
    assert config.palette["portal"] == (0, 0xA0, 0xFF)


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("[reeds]\ndebounce_ms = 0", "debounce_s", 0.0),
        ("[reeds]\ndebounce_ms = 1000", "debounce_s", 1.0),
        ("[reeds]\ndebounce_ms = 12.5", "debounce_s", 0.0125),
        ("[leds]\nbrightness_cap = 0", "brightness_cap", 0.0),
        ("[leds]\nbrightness_cap = 1", "brightness_cap", 1.0),
        ("[leds]\npower_budget_ma = 0", "power_budget_ma", 0.0),
        ("[session]\nblink_hz = 0.1", "blink_hz", 0.1),
        ("[session]\nsettle_s = 60", "settle_s", 60.0),
        ("[camera]\nfps = 1", "camera_fps", 1.0),
        ("[camera]\nfps = 120", "camera_fps", 120.0),
        ("[camera]\nstable_frames = 1", "stable_frames", 1),
        ("[camera]\nstable_frames = 100", "stable_frames", 100),
        ("[camera]\nsim_noise = 0.5", "sim_noise", 0.5),
        ("[camera]\nsim_delay_ms = 250", "sim_delay_s", 0.25),
        ("[camera]\nsim_delay_ms = 10000", "sim_delay_s", 10.0),
    ],
)
def test_range_limits_are_inclusive(tmp_path: Path, text: str, field: str, value: float) -> None:
    config = load_config(write(tmp_path, text))
    assert getattr(config, field) == pytest.approx(value)


def test_backends_and_pin_override(tmp_path: Path) -> None:
    text = '[reeds]\nbackend = "sim"\n[leds]\nbackend = "sim"\npin = "D18"\n'
    config = load_config(write(tmp_path, text))
    assert (config.reeds_backend, config.leds_backend, config.led_pin) == ("sim", "sim", "D18")


# Errors naming the file and the key.


def test_unknown_section(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[lights]\nbrightness_cap = 0.5\n")
    assert "unknown section [lights]" in message
    assert "'leds'" in message  # the known ones are listed


def test_unknown_key(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[reeds]\ndebounce = 30\n")
    assert "unknown key reeds.debounce" in message
    assert "debounce_ms" in message


def test_section_that_is_not_a_table(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, 'reeds = "sim"\n')
    assert "[reeds] must be a table" in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[reeds]\ndebounce_ms = "fast"', "reeds.debounce_ms"),
        ("[reeds]\ndebounce_ms = true", "reeds.debounce_ms"),
        ("[leds]\nbrightness_cap = false", "leds.brightness_cap"),
        ("[leds]\npower_budget_ma = [2000]", "leds.power_budget_ma"),
        ("[session]\nsettle_s = {a = 1}", "session.settle_s"),
        ("[table]\ngame = 5", "table.game"),
        ("[table]\nprofile = false", "table.profile"),
        ("[leds]\npin = 10", "leds.pin"),
        ("[reeds]\nbackend = true", "reeds.backend"),
        ("[camera]\nstable_frames = 3.0", "camera.stable_frames"),
        ("[camera]\nstable_frames = true", "camera.stable_frames"),
        ('[camera]\nfps = "10"', "camera.fps"),
        ("[camera]\nsim_noise = false", "camera.sim_noise"),
        ("[camera]\nbackend = 1", "camera.backend"),
    ],
)
def test_wrong_type(tmp_path: Path, text: str, key: str) -> None:
    _, message = config_error(tmp_path, text)
    assert f"{key} has the wrong type" in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[leds]\nbrightness_cap = 2", "leds.brightness_cap"),
        ("[leds]\nbrightness_cap = -0.1", "leds.brightness_cap"),
        ("[leds]\nbrightness_cap = nan", "leds.brightness_cap"),
        ("[reeds]\ndebounce_ms = -1", "reeds.debounce_ms"),
        ("[reeds]\ndebounce_ms = 1001", "reeds.debounce_ms"),
        ("[leds]\npower_budget_ma = inf", "leds.power_budget_ma"),
        ("[session]\nblink_hz = 0", "session.blink_hz"),
        ("[session]\nsettle_s = 61", "session.settle_s"),
        ("[camera]\nfps = 0", "camera.fps"),
        ("[camera]\nfps = 121", "camera.fps"),
        ("[camera]\nstable_frames = 0", "camera.stable_frames"),
        ("[camera]\nstable_frames = 101", "camera.stable_frames"),
        ("[camera]\nsim_noise = 0.6", "camera.sim_noise"),
        ("[camera]\nsim_noise = -0.1", "camera.sim_noise"),
        ("[camera]\nsim_delay_ms = -1", "camera.sim_delay_ms"),
        ("[camera]\nsim_delay_ms = 10001", "camera.sim_delay_ms"),
    ],
)
def test_out_of_range(tmp_path: Path, text: str, key: str) -> None:
    _, message = config_error(tmp_path, text)
    assert f"{key} must be in " in message


def test_out_of_range_message_gives_the_range_and_value(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[leds]\nbrightness_cap = 2\n")
    assert message.endswith("leds.brightness_cap must be in 0..1, not 2.0")


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ('[reeds]\nbackend = "lgpio"', "reeds.backend", "lgpio"),
        ('[leds]\nbackend = "ws2812"', "leds.backend", "ws2812"),
        ('[leds]\nbackend = "SIM"', "leds.backend", "SIM"),
        ('[leds]\npixel_order = "BGR"', "leds.pixel_order", "BGR"),
        ('[camera]\nbackend = "picamera2"', "camera.backend", "picamera2"),
    ],
)
def test_bad_choice(tmp_path: Path, text: str, key: str, value: str) -> None:
    _, message = config_error(tmp_path, text)
    assert f"{key} must be one of" in message
    assert repr(value) in message


@pytest.mark.parametrize("colour", ["#12345", "#1234567", "123456", "#12345g", "red", "#"])
def test_bad_colour(tmp_path: Path, colour: str) -> None:
    _, message = config_error(tmp_path, f'[palette]\nladybug = "{colour}"\n')
    assert f'palette.ladybug must be a colour like "#ff8000", not {colour!r}' in message


def test_colour_that_is_not_a_string(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[palette]\nnew_role = 0xff0000\n")
    assert "palette.new_role must be a colour" in message


def test_invalid_toml(tmp_path: Path) -> None:
    path, message = config_error(tmp_path, "[reeds\ndebounce_ms = 30\n")
    assert message.startswith(f"config {path} is not valid TOML")


def test_duplicate_key_is_invalid_toml(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[reeds]\ndebounce_ms = 30\ndebounce_ms = 40\n")
    assert "is not valid TOML" in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == f"cannot read config {path}: No such file or directory"


def test_directory_instead_of_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=re.escape(f"cannot read config {tmp_path}")):
        load_config(tmp_path)


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_parse_colour() -> None:
    assert parse_colour("#00Ff80", "here") == (0, 255, 128)
    with pytest.raises(ConfigError, match=r"^there must be a colour"):
        parse_colour("#0", "there")


@pytest.mark.parametrize("pin", ["D99", "GPIO10", "D4"])
def test_a_pin_no_neopixel_strip_can_be_driven_from_is_refused(tmp_path: Path, pin: str) -> None:
    """The builder's walk: pin "D99" passed the config and the simulated check; only the Pi's
    board module would have refused it, at start-up."""
    with pytest.raises(ConfigError, match=r"leds\.pin must be one of D10, D12, D13, D18, D19, D21"):
        load_config(write(tmp_path, f'[leds]\npin = "{pin}"\n'))


# Simulation.


def test_simulated_switches_the_backends_only(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[leds]\nbrightness_cap = 0.5\npin = "D18"\n'))
    assert (config.reeds_backend, config.leds_backend) == ("gpio", "neopixel")
    sim = config.simulated()
    assert isinstance(sim, Config)
    assert (sim.reeds_backend, sim.leds_backend, sim.camera_backend) == ("sim", "sim", "sim")
    assert sim.dice_source == "virtual"  # nobody throws dice under a simulated table's camera
    real = dataclasses.replace(sim, reeds_backend="gpio", leds_backend="neopixel")
    assert dataclasses.replace(real, dice_source="camera", camera_backend="camera") == config
    # Replayed frames are the camera's: read for the dice and the board, even with --sim.
    replayed = sim.replaying(tmp_path)
    assert (replayed.camera_backend, replayed.dice_source) == ("camera", "camera")
    assert (replayed.camera_source, replayed.camera_device) == ("replay", str(tmp_path))
    assert (config.reeds_backend, config.leds_backend) == ("gpio", "neopixel")  # not mutated


def test_config_is_frozen() -> None:
    config = load_config(None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.game = "other"  # type: ignore[misc]


# The real camera and the dice read by it.


def test_camera_source_and_dice_defaults() -> None:
    config = load_config(None)
    assert config.camera_source == "picamera2"
    assert config.camera_device == "0"
    assert (config.camera_width, config.camera_height) == (1280, 720)
    assert config.replay_fps == 2.0
    assert config.replay_loop is False
    assert (config.camera_retry_s, config.camera_retry_max_s) == (0.5, 30.0)
    assert config.dice_stable_frames == 4
    assert config.dice_min_confidence == pytest.approx(0.8)
    assert config.dice_box_tolerance_px == 8.0
    # The simulated board camera is another thing, and --sim leaves the real one alone.
    assert config.simulated().camera_source == "picamera2"
    assert (config.dice_source, config.dice_view) == ("camera", "auto")
    assert config.camera_calibration is None  # calibration.json in the state directory


def test_replaying_reads_the_dice_from_a_folder(tmp_path: Path) -> None:
    config = load_config(None).simulated().replaying(tmp_path)
    assert (config.camera_source, config.camera_device) == ("replay", str(tmp_path))
    assert config.dice_source == "camera"
    assert config.reeds_backend == "sim"  # the rest of the table stays simulated


def test_dice_source_view_and_calibration(tmp_path: Path) -> None:
    text = (
        '[camera]\ncalibration = "/etc/smartboard/cal.json"\n'
        '[dice]\nsource = "virtual"\nview = "top"\n'
    )
    config = load_config(write(tmp_path, text))
    assert config.camera_calibration == Path("/etc/smartboard/cal.json")
    assert (config.dice_source, config.dice_view) == ("virtual", "top")
    for bad in ('[dice]\nsource = "tray"\n', '[dice]\nview = "side"\n'):
        with pytest.raises(ConfigError, match="must be one of"):
            load_config(write(tmp_path, bad))


def test_camera_source_overrides(tmp_path: Path) -> None:
    text = """
        [camera]
        source = "replay"
        device = "/srv/frames/akuma"
        width = 640
        height = 480
        fps = 30
        replay_fps = 7.5
        replay_loop = true
        retry_s = 1
        retry_max_s = 1
        [dice]
        stable_frames = 6
        min_confidence = 0.95
        box_tolerance_px = 3.5
        """
    config = load_config(write(tmp_path, text))
    assert (config.camera_source, config.camera_device) == ("replay", "/srv/frames/akuma")
    assert (config.camera_width, config.camera_height, config.camera_fps) == (640, 480, 30)
    assert (config.replay_fps, config.replay_loop) == (7.5, True)
    assert (config.camera_retry_s, config.camera_retry_max_s) == (1.0, 1.0)
    assert (config.dice_stable_frames, config.dice_min_confidence) == (6, 0.95)
    assert config.dice_box_tolerance_px == 3.5
    assert config.camera_backend == "camera"  # untouched


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("[camera]\nwidth = 16", "camera_width", 16),
        ("[camera]\nheight = 8192", "camera_height", 8192),
        ("[camera]\nreplay_fps = 0.01", "replay_fps", 0.01),
        ("[camera]\nreplay_fps = 120", "replay_fps", 120.0),
        ("[camera]\nretry_s = 0.01", "camera_retry_s", 0.01),
        ("[camera]\nretry_max_s = 3600", "camera_retry_max_s", 3600.0),
        ("[dice]\nstable_frames = 1", "dice_stable_frames", 1),
        ("[dice]\nstable_frames = 100", "dice_stable_frames", 100),
        ("[dice]\nmin_confidence = 0", "dice_min_confidence", 0.0),
        ("[dice]\nmin_confidence = 1", "dice_min_confidence", 1.0),
        ("[dice]\nbox_tolerance_px = 0", "dice_box_tolerance_px", 0.0),
        ("[dice]\nbox_tolerance_px = 1000", "dice_box_tolerance_px", 1000.0),
    ],
)
def test_camera_source_and_dice_limits_are_inclusive(
    tmp_path: Path, text: str, field: str, value: float
) -> None:
    assert getattr(load_config(write(tmp_path, text)), field) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[camera]\nsource = 2", "camera.source"),
        ("[camera]\ndevice = 0", "camera.device"),
        ("[camera]\nwidth = 640.0", "camera.width"),
        ("[camera]\nheight = true", "camera.height"),
        ('[camera]\nreplay_fps = "2"', "camera.replay_fps"),
        ('[camera]\nreplay_loop = "yes"', "camera.replay_loop"),
        ("[camera]\nreplay_loop = 1", "camera.replay_loop"),
        ("[camera]\nretry_s = false", "camera.retry_s"),
        ("[dice]\nstable_frames = 4.0", "dice.stable_frames"),
        ('[dice]\nmin_confidence = "high"', "dice.min_confidence"),
        ("[dice]\nbox_tolerance_px = [8]", "dice.box_tolerance_px"),
    ],
)
def test_camera_source_and_dice_wrong_type(tmp_path: Path, text: str, key: str) -> None:
    _, message = config_error(tmp_path, text)
    assert f"{key} has the wrong type" in message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[camera]\nwidth = 15", "camera.width"),
        ("[camera]\nheight = 8193", "camera.height"),
        ("[camera]\nreplay_fps = 0", "camera.replay_fps"),
        ("[camera]\nretry_s = 0", "camera.retry_s"),
        ("[camera]\nretry_s = 61", "camera.retry_s"),
        ("[camera]\nretry_max_s = 3601", "camera.retry_max_s"),
        ("[dice]\nstable_frames = 0", "dice.stable_frames"),
        ("[dice]\nmin_confidence = 1.1", "dice.min_confidence"),
        ("[dice]\nbox_tolerance_px = -1", "dice.box_tolerance_px"),
    ],
)
def test_camera_source_and_dice_out_of_range(tmp_path: Path, text: str, key: str) -> None:
    _, message = config_error(tmp_path, text)
    assert f"{key} must be in " in message


def test_camera_source_must_be_known(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, '[camera]\nsource = "sim"\n')
    assert "camera.source must be one of picamera2, opencv, replay, not 'sim'" in message


@pytest.mark.parametrize("source", ["opencv", "replay"])
def test_camera_device_is_needed_by_opencv_and_replay(tmp_path: Path, source: str) -> None:
    _, message = config_error(tmp_path, f'[camera]\nsource = "{source}"\ndevice = ""\n')
    assert "camera.device must name what camera.source reads" in message
    # The Pi camera needs none.
    assert load_config(write(tmp_path, '[camera]\ndevice = ""\n')).camera_device == ""


def test_camera_retry_ceiling_below_its_start(tmp_path: Path) -> None:
    _, message = config_error(tmp_path, "[camera]\nretry_s = 5\nretry_max_s = 2\n")
    assert "camera.retry_max_s must be at least camera.retry_s" in message


def test_a_table_without_a_camera_types_its_rolls_in(tmp_path: Path) -> None:
    """`[camera] backend = "dashboard"` is what --no-camera sets: no camera reads the dice
    either, whatever [dice] source says."""
    path = tmp_path / "config.toml"
    path.write_text('[camera]\nbackend = "dashboard"\n[dice]\nsource = "camera"\n', "utf-8")
    config = load_config(path)
    assert (config.camera_backend, config.dice_source) == ("dashboard", "virtual")
    flagged = load_config(None).without_camera()
    assert (flagged.camera_backend, flagged.dice_source) == ("dashboard", "virtual")


def test_commands_about_the_table_read_the_services_config_where_it_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builder's walk: `smartboard check` and `calibrate` tested the built-in Akuma table
    while the service ran the Takeover one its config names. The commands about the real table
    read the service's config by default; the others (a simulated run, a replay) do not."""
    from controller import paths
    from controller.cli import arguments
    from controller.cli.errors import EX_CONFIG, CommandError

    service = tmp_path / "config.toml"
    monkeypatch.setattr(paths, "SERVICE_CONFIG", service)
    assert arguments.read_config(None, service=True).game == "akuma"  # none installed
    service.write_text('[table]\ngame = "takeover"\n', encoding="utf-8")
    assert arguments.read_config(None, service=True).game == "takeover"
    assert arguments.read_config(None).game == "akuma"  # not about the real table
    given = tmp_path / "mine.toml"
    given.write_text('[table]\ngame = "voodoo"\n', encoding="utf-8")
    assert arguments.read_config(given, service=True).game == "voodoo"  # --config wins
    service.write_text("[table\n", encoding="utf-8")
    with pytest.raises(CommandError, match="is not valid TOML") as raised:
        arguments.read_config(None, service=True)
    assert raised.value.status == EX_CONFIG and "join group" not in str(raised.value)
    # One its user may not read: how to be let in (as root, in these tests, every file reads).
    monkeypatch.setattr(arguments.os, "access", lambda path, mode: False)
    with pytest.raises(CommandError, match="join group smartboard to read it, or give --config"):
        arguments.read_config(None, service=True)
