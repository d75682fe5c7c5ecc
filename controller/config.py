"""The daemon's configuration: built-in defaults overridden by a TOML file, checked up front."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from controller.broker import parse_link
from controller.rules import GAMES, palette_roles
from controller.web_access import check_token, parse_listen
from hardware.leds import RGB
from hardware.profile import PROFILE_KEYS, ProfileError, profile_path
from hardware.toml_files import read_toml, shown
from vision.choices import SOURCES, VIEWS

LINK_DICE = ("table", "software")
"""Where a linked game's chance is rolled: on the table of the seat that rolls, read from its
dice or board, or drawn in software there (controller/room.py)."""


class ConfigError(ValueError):
    """A config that cannot run the table, with the file and key at fault."""


@dataclass(frozen=True)
class Config:
    game: str
    profile: Path | None
    reeds_backend: str
    debounce_s: float
    leds_backend: str
    led_pin: str
    pixel_order: str
    brightness_cap: float
    power_budget_ma: float
    settle_s: float
    blink_hz: float
    camera_backend: str
    camera_fps: float
    stable_frames: int
    sim_noise: float
    sim_delay_s: float
    camera_source: str
    camera_device: str
    camera_width: int
    camera_height: int
    replay_fps: float
    replay_loop: bool
    camera_retry_s: float
    camera_retry_max_s: float
    camera_calibration: Path | None
    dice_source: str
    dice_view: str
    dice_stable_frames: int
    dice_min_confidence: float
    dice_box_tolerance_px: float
    dice_combine_frames: int
    dice_models: Path | None
    web_listen: str
    web_token: str
    web_max_connections: int
    palette: dict[str, RGB]
    source: str
    link_url: str = ""
    link_seats: tuple[int, ...] = ()
    link_secret: str = ""
    link_tls_ca: Path | None = None
    link_home_assistant: bool = False
    link_dice: str = "table"  # where chance is rolled: "table" (dice, cards) or "software"

    def calibration_path(self, state_dir: Path) -> Path:
        """Where the camera's calibration is kept: the file `[camera] calibration` names, else
        calibration.json in the state directory (`run` reads it there, `calibrate` saves it)."""
        return self.camera_calibration or state_dir / "calibration.json"

    def simulated(self) -> Config:
        return replace(
            self,
            reeds_backend="sim",
            leds_backend="sim",
            camera_backend="sim",
            dice_source="virtual",
        )

    def without_camera(self) -> Config:
        """No camera over the board: what it would read is entered on the dashboard, and the
        rolls are typed in (as `[camera] backend = "dashboard"` has it)."""
        return replace(self, camera_backend="dashboard", dice_source="virtual")

    def replaying(self, folder: Path) -> Config:
        """Dice and board read from a folder of frames (or a video) instead of the camera."""
        return replace(
            self,
            camera_backend="camera",
            camera_source="replay",
            camera_device=str(folder),
            dice_source="camera",
        )


def _defaults() -> dict[str, Any]:
    text = (resources.files("controller") / "default_config.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    games = {name: role.colour for name, role in palette_roles().items()}
    data["palette"] = games | data["palette"]
    return data


def load_config(path: Path | None) -> Config:
    data = _defaults()
    source = "built-in defaults"
    if path is not None:
        source = str(path)
        _merge(data, read_toml(path, "config", ConfigError), source)
    return _build(data, source)


# What a config may hold beyond the built-in keys: palette roles (the games' and the table's own
# are some 40, with names of at most 12 letters), so that no config can make the daemon grow.
MAX_PALETTE = 256
NEOPIXEL_PINS = ("D10", "D12", "D13", "D18", "D19", "D21")
"""The Pi's pins a NeoPixel strip can be driven from (rpi_ws281x): SPI on D10, PWM on D12, D13,
D18 and D19, PCM on D21. Another is refused here, not on the Pi at start-up."""

MAX_ROLE_NAME = 32
# The longest text of a key: a path or a camera's URL (PATH_MAX); the others are shorter.
MAX_PATH = 4096


def _in_the_profile(section: str, key: str) -> str:
    """Where a board profile's key was put in the config: the file it goes in."""
    if key not in PROFILE_KEYS.get(section, ()):
        return ""
    return (
        f". [{section}] {key} is a board profile's key: put it in your profile file, and name "
        "that file in the config's [table] profile"
    )


def _merge(base: dict[str, Any], overrides: dict[str, Any], source: str) -> None:
    for section, values in overrides.items():
        if section not in base:
            raise ConfigError(
                f"{source}: unknown section [{_name(section)}]; known: {sorted(base)}"
            )
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        for key, value in values.items():
            # Palette roles may be added by later games; other keys are fixed.
            if key not in base[section] and section != "palette":
                known = ", ".join(sorted(base[section]))
                raise ConfigError(
                    f"{source}: unknown key {section}.{_name(key)}; known: {known}"
                    + _in_the_profile(section, key)
                )
            base[section][key] = value
    palette = base["palette"]
    if len(palette) > MAX_PALETTE:
        raise ConfigError(f"{source}: [palette] has {len(palette)} roles; at most {MAX_PALETTE}")
    for role in palette:
        if len(role) > MAX_ROLE_NAME or not role.isprintable():
            raise ConfigError(
                f"{source}: palette role {_name(role)} must be a name of at most "
                f"{MAX_ROLE_NAME} printable characters"
            )


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _name(key: str) -> str:
    """A key as a message names it: bare if it can be, else quoted and cut short."""
    return key if _BARE_KEY.fullmatch(key) else shown(key)


def _build(data: dict[str, Any], source: str) -> Config:
    def get(section: str, key: str, kind: type | tuple[type, ...]) -> Any:
        value = data[section][key]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise ConfigError(f"{source}: {section}.{key} has the wrong type: {shown(value)}")
        return value

    def text(section: str, key: str, longest: int = 64) -> str:
        value = str(get(section, key, str))
        if len(value) > longest or not value.isprintable():
            raise ConfigError(
                f"{source}: {section}.{key} must be at most {longest} printable characters, "
                f"not {shown(value)}"
            )
        return value

    def choice(section: str, key: str, options: tuple[str, ...]) -> str:
        value = get(section, key, str)
        if value not in options:
            raise ConfigError(
                f"{source}: {section}.{key} must be one of {', '.join(options)}, not {shown(value)}"
                + (
                    ". A Pico's serial link is the board profile's: its [reeds] backend = "
                    '"serial" (the built-in profiles whose names end in "-serial")'
                    if (section, key, value) == ("reeds", "backend", "serial")
                    else ""
                )
            )
        return str(value)

    def number(section: str, key: str, low: float, high: float, unit: str = "") -> float:
        # Compared before float(): an integer of 400 digits does not fit in a float.
        value = get(section, key, (int, float))
        if not low <= value <= high:
            shown_value = _number(value, as_float=True)
            raise ConfigError(
                f"{source}: {section}.{key} must be in {low}..{high}"
                f"{f' {unit}' if unit else ''}, not {shown_value}"
            )
        return float(value)

    def integer(section: str, key: str, low: int, high: int, unit: str) -> int:
        value = int(get(section, key, int))
        if not low <= value <= high:
            raise ConfigError(
                f"{source}: {section}.{key} must be in {low}..{high} {unit}, not {_number(value)}"
            )
        return value

    profile = text("table", "profile", MAX_PATH)
    if profile:
        try:
            profile = str(profile_path(profile))
        except ProfileError as error:
            raise ConfigError(f"{source}: table.profile: {error}") from None
    camera_backend = choice("camera", "backend", ("camera", "dashboard", "sim"))
    dice_source = choice("dice", "source", ("camera", "virtual"))
    camera_source = choice("camera", "source", SOURCES)
    camera_device = text("camera", "device", MAX_PATH)
    if camera_source != "picamera2" and not camera_device:
        raise ConfigError(f"{source}: camera.device must name what camera.source reads")
    retry_s = number("camera", "retry_s", 0.01, 60, "s")
    retry_max_s = number("camera", "retry_max_s", 0.01, 3600, "s")
    if retry_max_s < retry_s:
        raise ConfigError(
            f"{source}: camera.retry_max_s must be at least camera.retry_s: {retry_max_s}"
        )
    calibration = text("camera", "calibration", MAX_PATH)
    models = text("dice", "models", MAX_PATH)
    # HOST:PORT, a host name being at most 253 characters.
    web_listen = text("web", "listen", 300)
    web_token = text("web", "token", 256)
    try:
        if web_listen:
            parse_listen(web_listen)
        if web_token:
            check_token(web_token)
    except ValueError as error:
        raise ConfigError(f"{source}: [web] {error}") from None
    link_url = text("link", "url", 1000)
    if link_url:
        try:
            parse_link(link_url)
        except ValueError as error:
            raise ConfigError(f"{source}: link.url: {error}") from None
    seats = get("link", "seats", list)
    if not all(type(seat) is int and 1 <= seat <= 16 for seat in seats) or len(seats) > 16:
        raise ConfigError(f"{source}: link.seats must be seat numbers from 1, not {shown(seats)}")
    if link_url and not seats:
        raise ConfigError(f"{source}: link.seats must name the seats this table plays")
    tls_ca = text("link", "tls_ca", MAX_PATH)
    return Config(
        game=choice("table", "game", tuple(sorted(GAMES))),
        profile=Path(profile) if profile else None,
        reeds_backend=choice("reeds", "backend", ("gpio", "sim")),
        debounce_s=number("reeds", "debounce_ms", 0, 1000, "ms") / 1000,
        leds_backend=choice("leds", "backend", ("neopixel", "sim")),
        led_pin=choice("leds", "pin", NEOPIXEL_PINS),
        pixel_order=choice("leds", "pixel_order", ("RGB", "GRB")),
        brightness_cap=number("leds", "brightness_cap", 0, 1),
        power_budget_ma=number("leds", "power_budget_ma", 0, 1_000_000, "mA"),
        settle_s=number("session", "settle_s", 0, 60, "s"),
        blink_hz=number("session", "blink_hz", 0.1, 20, "Hz"),
        camera_backend=camera_backend,
        camera_fps=number("camera", "fps", 1, 120, "frames a second"),
        stable_frames=integer("camera", "stable_frames", 1, 100, "frames"),
        sim_noise=number("camera", "sim_noise", 0, 0.5),
        sim_delay_s=number("camera", "sim_delay_ms", 0, 10_000, "ms") / 1000,
        camera_source=camera_source,
        camera_device=camera_device,
        camera_width=integer("camera", "width", 16, 8192, "px"),
        camera_height=integer("camera", "height", 16, 8192, "px"),
        replay_fps=number("camera", "replay_fps", 0.01, 120, "frames a second"),
        replay_loop=get("camera", "replay_loop", bool),
        camera_retry_s=retry_s,
        camera_retry_max_s=retry_max_s,
        camera_calibration=Path(calibration) if calibration else None,
        # No camera reads no dice either: they are typed in.
        dice_source="virtual" if camera_backend == "dashboard" else dice_source,
        dice_view=choice("dice", "view", VIEWS),
        dice_stable_frames=integer("dice", "stable_frames", 1, 100, "frames"),
        dice_min_confidence=number("dice", "min_confidence", 0, 1),
        dice_box_tolerance_px=number("dice", "box_tolerance_px", 0, 1000, "px"),
        dice_combine_frames=integer("dice", "combine_frames", 1, 100, "frames"),
        dice_models=Path(models) if models else None,
        web_listen=web_listen,
        web_token=web_token,
        # Below systemd's default 1,024 files, with room for the table's own.
        web_max_connections=integer("web", "max_connections", 8, 512, "connections"),
        palette={role: parse_colour(value, f"{source}: palette.{_name(role)}")
                 for role, value in data["palette"].items()},
        source=source,
        link_url=link_url,
        link_seats=tuple(sorted(set(seats))),
        link_secret=text("link", "secret", 256),
        link_tls_ca=Path(tls_ca) if tls_ca else None,
        link_home_assistant=get("link", "home_assistant", bool),
        link_dice=choice("link", "dice", LINK_DICE),
    )  # fmt: skip


def _number(value: float, as_float: bool = False) -> str:
    """A number as a message shows it; an integer too long for a float, by its digits."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of {len(str(abs(value)))} digits"
    return str(float(value)) if as_float else str(value)


_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def parse_colour(value: object, where: str) -> RGB:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ConfigError(f'{where} must be a colour like "#ff8000", not {shown(value)}')
    return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))
