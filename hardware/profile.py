"""Board profiles: TOML data mapping a game's spots onto reed channels, camera regions and LEDs.

Hardware never speaks of games and games never speak of pins; the profile is the bridge
(DESIGN.md §1). A reed channel is written "CHIP:LINE": a line of /dev/gpiochipCHIP, so reeds on
the Pi's header (chip 0) and on I/O expanders exposed by the kernel (e.g. MCP23017) read alike.
A camera region is `[x, y, w, h]` in millimetres on the table, origin at its top-left corner;
calibrating the camera maps table millimetres to pixels. The calibration finds the profile's
ArUco markers, printed and laid around the table: `[[markers]]` entries (`id`, `center_mm =
[x, y]`, `size_mm`), or by default four markers just outside the table's corners, ids 0-3
clockwise from the top-left. `[dice] tray` is the region where dice are thrown.

A large grid's reeds and LEDs hang off a microcontroller instead of the Pi's pins: `[reeds]
backend = "serial"` and a `[link]` table (`port`, `rows`, `cols`); each reed is then "ROW:COL"
of its matrix. A grid of square cells need not list its spots: a `[grid]` table makes them
(hardware/profile_grid.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from hardware.profile_grid import grid_spots, with_grid
from hardware.profile_problems import KeyProblem, Problems, Where
from hardware.profile_problems import ProfileError as ProfileError
from hardware.toml_files import read_toml_text, shown

# Chips and lines are small numbers: a long one is a typo (and int() refuses 4,300 digits).
PROFILE_KEYS: dict[str, tuple[str, ...]] = {
    "table": ("size_mm",),
    "leds": ("count",),
    "reeds": ("backend", "pull_up"),
    "dice": ("tray",),
    "link": ("cols", "port", "rows"),
}
"""The keys of a profile's sections of one table's worth (a config has sections of these names:
its errors point a profile's key there)."""

_CHANNEL = re.compile(r"([0-9]{1,6}):([0-9]{1,6})", re.ASCII)


@dataclass(frozen=True, order=True)
class Channel:
    chip: int
    line: int

    @classmethod
    def parse(cls, text: object, where: str) -> Channel:
        match = _CHANNEL.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ProfileError(
                f"{where}: reed channel must be 'CHIP:LINE', like '0:17', not {shown(text)}"
            )
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.chip}:{self.line}"


class Region(NamedTuple):
    """A rectangle of the table, in millimetres: its corner nearest the origin and its size."""

    x: float
    y: float
    w: float
    h: float


# The ids the markers can take: those of the ArUco dictionary they are printed from
# (vision/calibration.py, DICT_4X4_50).
MARKER_IDS = 50
DEFAULT_MARKER_MM = 40.0
# Between the table's corner and the nearest edges of its default marker: white paper around
# the marker's black border, which the detector needs.
DEFAULT_MARKER_GAP_MM = 10.0


@dataclass(frozen=True)
class Marker:
    """An ArUco marker laid on the table, upright: its top edge faces the table's top edge."""

    id: int
    center_mm: tuple[float, float]
    size_mm: float

    def corners_mm(self) -> tuple[tuple[float, float], ...]:
        """Its corners on the table, clockwise from the top-left: ArUco's order for its corners."""
        x, y = self.center_mm
        half = self.size_mm / 2
        return (
            (x - half, y - half),
            (x + half, y - half),
            (x + half, y + half),
            (x - half, y + half),
        )


def default_markers(table_size: tuple[float, float]) -> tuple[Marker, ...]:
    """Four markers just outside the table's corners, ids 0-3 clockwise from the top-left."""
    width, height = table_size
    out = DEFAULT_MARKER_GAP_MM + DEFAULT_MARKER_MM / 2
    centers = ((-out, -out), (width + out, -out), (width + out, height + out), (-out, height + out))
    return tuple(Marker(i, center, DEFAULT_MARKER_MM) for i, center in enumerate(centers))


# A spot's sensor, as a game's `spots()` names it.
REED = "reed"
CAMERA = "camera"
SENSORS = (REED, CAMERA, "")


@dataclass(frozen=True)
class Spot:
    id: str
    reed: Channel | None
    leds: tuple[int, ...]
    sensor: str = ""
    region: Region | None = None


@dataclass(frozen=True)
class Link:
    """The table's microcontroller on a serial port (hardware/serial_link.py), scanning a
    `rows` x `cols` reed matrix and driving the LEDs: a reed's channel is then "ROW:COL"."""

    port: str
    rows: int
    cols: int


# A Pico's matrix: 16 x 16 at most (firmware/README.md).
MAX_MATRIX = 16
# What a profile may hold, so that none can make the daemon grow: a chain of 4,096 NeoPixels
# takes 123 ms a frame, beyond any table (the largest shipped has 144); 100 m, far beyond any
# table, keeps sums and products of millimetres finite; names are shown in status.
MAX_LEDS = 4096
MAX_MM = 100_000.0
MAX_NAME = 200
MAX_NAMED = 60  # spots named in one message


@dataclass(frozen=True)
class BoardProfile:
    game: str
    name: str
    led_count: int
    pull_up: bool
    spots: Mapping[str, Spot]
    source: str
    table_size_mm: tuple[float, float] | None = None
    # Empty only when the profile gives neither markers nor the table's size: no camera.
    markers: tuple[Marker, ...] = ()
    # Where the dice are thrown, for the camera to read them: `[dice] tray`.
    dice_tray: Region | None = None
    # `[reeds] backend = "serial"`: reeds and LEDs go through a microcontroller, not the Pi's pins.
    link: Link | None = None

    def reed_channels(self) -> dict[str, Channel]:
        return {spot.id: spot.reed for spot in self.spots.values() if spot.reed is not None}

    def camera_regions(self) -> dict[str, Region]:
        """The region of each spot that the camera reads; empty for a board of reeds alone."""
        return {
            spot.id: spot.region
            for spot in self.spots.values()
            if spot.sensor == CAMERA and spot.region is not None
        }


def builtin_profile_path(name: str) -> Path:
    """A built-in profile by its name (hardware/profiles/NAME.toml), or a TOML file's path."""
    if name.endswith(".toml"):
        return Path(name)
    return Path(str(resources.files("hardware") / "profiles" / f"{name}.toml"))


def builtin_profiles() -> list[str]:
    """The names of the built-in profiles."""
    folder = resources.files("hardware") / "profiles"
    return sorted(
        item.name.removesuffix(".toml") for item in folder.iterdir() if item.name.endswith(".toml")
    )


def profile_path(text: str) -> Path:
    """A profile named as a TOML file's path, or as a built-in profile's name ("takeover-16");
    ProfileError for a name that is neither, naming the built-in ones."""
    if "/" in text or text.endswith(".toml"):
        return Path(text)
    if text not in builtin_profiles():
        raise ProfileError(
            f"{text!r} is no TOML file's path (.toml) and no built-in profile: "
            + ", ".join(builtin_profiles())
        )
    return builtin_profile_path(text)


def load_profile(path: Path, game_spots: Mapping[str, str]) -> BoardProfile:
    """Read and validate a profile against the spots its game uses (`Game.spots()`)."""
    data, text = read_toml_text(path, "board profile", ProfileError)
    return parse_profile(data, game_spots, str(path), text)


def parse_profile(
    data: Mapping[str, Any], game_spots: Mapping[str, str], source: str, text: str | None = None
) -> BoardProfile:
    """The profile `data` holds, checked whole: a ProfileError lists every problem found (with
    its line, given the file's `text`), not only the first."""
    problems = Problems(source, text)

    def fail(message: str) -> ProfileError:
        return ProfileError(message)

    def table(name: str) -> Mapping[str, Any]:
        value = data.get(name, {})
        if isinstance(value, Mapping):
            return value
        problems.add(f"[{name}] must be a table, not {shown(value)}", Where(name))
        return {}

    leds, reeds = table("leds"), table("reeds")
    count = leds.get("count")
    if type(count) is not int or not 1 <= count <= MAX_LEDS:
        problems.add(
            f"[leds] count must be a positive integer up to {MAX_LEDS}, not {shown(count)}",
            Where("leds", "count"),
        )
        count = None
    unknown = set(leds) - set(PROFILE_KEYS["leds"])
    if unknown:
        known = ", ".join(PROFILE_KEYS["leds"])
        problems.add(
            f"[leds] has unknown keys {sorted(unknown)}; known: {known}",
            Where("leds", min(unknown)),
        )
    for key in ("game", "name"):
        if not isinstance(data.get(key, ""), str) or len(data.get(key, "")) > MAX_NAME:
            problems.add(f"{key} must be text of at most {MAX_NAME} characters", Where("", key))
    pull_up = reeds.get("pull_up", True)
    if not isinstance(pull_up, bool):
        problems.add(f"[reeds] pull_up must be true or false, not {shown(pull_up)}", Where())
        pull_up = True
    unknown = set(reeds) - set(PROFILE_KEYS["reeds"])
    if unknown:
        known = ", ".join(PROFILE_KEYS["reeds"])
        problems.add(
            f"[reeds] has unknown keys {sorted(unknown)}; known: {known}",
            Where("reeds", min(unknown)),
        )
    link: Link | None = None
    serial = reeds.get("backend", "gpio") == "serial"
    with problems.at(Where("link")):
        link = _link(reeds.get("backend", "gpio"), data.get("link"), fail)
    size_mm = table("table").get("size_mm")
    table_size: tuple[float, float] | None = None
    if size_mm is not None:
        if _numbers(size_mm, 2) and min(size_mm) > 0:
            table_size = (float(size_mm[0]), float(size_mm[1]))
        else:
            problems.add(
                "[table] size_mm must be [width, height], two positive numbers, "
                f"not {shown(size_mm)}",
                Where(),
            )

    spots: dict[str, Spot] = {}
    channel_owner: dict[Channel, str] = {}
    led_owner: dict[int, str] = {}
    listed = data.get("spots", [])
    if not isinstance(listed, list):
        problems.add(
            f"spots must be a list of [[spots]] tables, not {shown(listed)}", Where("", "spots")
        )
        listed = []
    if "grid" in data:
        with problems.at(Where("grid")):
            listed = with_grid(grid_spots(data["grid"], serial, fail), listed)
    for index, item in enumerate(listed):
        if not isinstance(item, Mapping):
            problems.add(
                f"spots[{index}] must be a table, not {shown(item)}", Where("spots", item=index)
            )
            continue
        spot_id = str(item.get("id", ""))
        at: str | int = spot_id if spot_id else index
        where = f"spot {shown(spot_id)}" if spot_id else f"spots[{index}]"
        spot: Spot | None = None
        with problems.at(Where("spots", "id", at)):
            if spot_id in spots:
                raise fail(f"{where} is listed twice")
            spot = _spot(item, spot_id, where, game_spots, data, link, count, table_size, fail)
            spots[spot_id] = spot
        if spot is None:
            continue
        if spot.reed is not None:
            if spot.reed in channel_owner:
                other = channel_owner[spot.reed]
                problems.add(
                    f"reed channel {spot.reed} is used twice: {shown(other)} and {shown(spot_id)}",
                    Where("spots", "reed", spot_id),
                )
            else:
                channel_owner[spot.reed] = spot_id
        for i in spot.leds:
            if i in led_owner:
                problems.add(
                    f"{where}: LED index {i} also lights spot {shown(led_owner[i])}: "
                    "each LED lights one spot",
                    Where("spots", "leds", spot_id),
                )
            else:
                led_owner[i] = spot_id

    missing = sorted(
        set(game_spots) - set(spots) - {s for s in game_spots if _refused(s, problems)}
    )
    if missing:
        # A profile of another board size misses hundreds: the first are enough to see it.
        more = f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
        named = ", ".join(missing[:MAX_NAMED])
        problems.add(
            f"spots missing for game {shown(data.get('game'))}: {named}{more}", Where("", "game")
        )
    dice = table("dice")
    unknown = set(dice) - set(PROFILE_KEYS["dice"])
    if unknown:
        known = ", ".join(PROFILE_KEYS["dice"])
        problems.add(f"[dice] has unknown keys {sorted(unknown)}; known: {known}", Where("dice"))
    tray = None
    if "tray" in dice:
        with problems.at(Where("dice", "tray")):
            tray = _region(dice["tray"], table_size, fail, "[dice] tray")
    markers: tuple[Marker, ...] = ()
    if "markers" in data:
        markers = _markers(data["markers"], table_size, problems)
    elif table_size is not None:
        markers = default_markers(table_size)
    if problems.found:
        raise problems.error()
    assert count is not None
    return BoardProfile(
        game=str(data.get("game", "")),
        name=str(data.get("name", source)),
        led_count=count,
        pull_up=pull_up,
        spots=spots,
        source=source,
        table_size_mm=table_size,
        markers=markers,
        dice_tray=tray,
        link=link,
    )


def _refused(spot_id: str, problems: Problems) -> bool:
    """Whether a spot was listed but refused: it is not missing too."""
    return any(p.where.section == "spots" and p.where.item == spot_id for p in problems.found)


def _spot(
    entry: Mapping[str, Any],
    spot_id: str,
    where: str,
    game_spots: Mapping[str, str],
    data: Mapping[str, Any],
    link: Link | None,
    count: int | None,
    table_size: tuple[float, float] | None,
    fail: Callable[[str], ProfileError],
) -> Spot:
    """One `[[spots]]` entry, checked alone; the first of its problems raised, at its key."""
    if spot_id not in game_spots:
        raise fail(f"unknown spot {shown(spot_id)} for game {shown(data.get('game'))}")
    unknown = set(entry) - {"id", "reed", "leds", "region"}
    if unknown:
        raise KeyProblem(f"{where} has unknown keys {sorted(unknown)}", min(unknown))
    try:
        reed = Channel.parse(entry["reed"], where) if "reed" in entry else None
    except ProfileError as error:
        raise KeyProblem(str(error), "reed") from None
    if (
        reed is not None
        and link is not None
        and not (reed.chip < link.rows and reed.line < link.cols)
    ):
        raise KeyProblem(
            f"{where}: reed {reed} is outside the link's {link.rows} x {link.cols} matrix "
            "(ROW:COL)",
            "reed",
        )
    sensor = game_spots[spot_id]
    if sensor not in SENSORS:
        raise fail(f"{where}: the game names an unknown sensor {sensor!r}; known: {SENSORS}")
    if sensor == REED and reed is None:
        raise fail(f"{where} needs a reed channel: pieces are sensed there")
    if sensor == CAMERA and reed is not None:
        raise KeyProblem(f"{where} is read by the camera: it takes no reed channel", "reed")
    try:
        region = _region(entry["region"], table_size, fail, where) if "region" in entry else None
    except ProfileError as error:
        raise KeyProblem(str(error), "region") from None
    if sensor == CAMERA and region is None:
        raise fail(f"{where} needs a region = [x, y, w, h]: the camera reads it")
    indices = entry.get("leds", [])
    if not isinstance(indices, list) or not all(type(i) is int for i in indices):
        raise KeyProblem(f"{where}: leds must be a list of integers, not {shown(indices)}", "leds")
    for i in indices:
        if count is not None and not 0 <= i < count:
            raise KeyProblem(f"{where}: LED index {i} is out of range 0..{count - 1}", "leds")
    if len(set(indices)) != len(indices):
        raise KeyProblem(f"{where}: leds lists an LED twice: {shown(indices)}", "leds")
    return Spot(spot_id, reed, tuple(indices), sensor, region)


def _link(backend: object, value: object, fail: Callable[[str], ProfileError]) -> Link | None:
    if backend == "gpio":
        if value is not None:
            raise fail('[link] is for [reeds] backend = "serial"')
        return None
    if backend != "serial":
        raise fail(f'[reeds] backend must be "gpio" or "serial", not {shown(backend)}')
    if not isinstance(value, Mapping):
        raise fail('[reeds] backend = "serial" needs a [link] table: port, rows, cols')
    unknown = set(value) - set(PROFILE_KEYS["link"])
    if unknown:
        known = ", ".join(PROFILE_KEYS["link"])
        raise fail(f"[link] has unknown keys {sorted(unknown)}; known: {known}")
    port = value.get("port")
    if not isinstance(port, str) or not port:
        raise fail(f"[link] port must name the serial device, not {shown(port)}")
    size = [value.get("rows"), value.get("cols")]
    if not all(type(n) is int and 1 <= n <= MAX_MATRIX for n in size):
        raise fail(
            f"[link] rows and cols must be whole numbers in 1..{MAX_MATRIX}, not {shown(size)}"
        )
    return Link(port, int(value["rows"]), int(value["cols"]))


def _numbers(value: object, count: int) -> TypeGuard[list[float]]:
    """A list of `count` numbers within MAX_MM of 0 (booleans are not numbers here)."""
    return (
        isinstance(value, list)
        and len(value) == count
        and all(type(v) in (int, float) and -MAX_MM <= v <= MAX_MM for v in value)
    )


def _region(
    value: object,
    table_size: tuple[float, float] | None,
    fail: Callable[[str], ProfileError],
    where: str,
) -> Region:
    if not _numbers(value, 4):
        raise fail(f"{where}: region must be [x, y, w, h], four numbers in mm, not {shown(value)}")
    region = Region(*(float(v) for v in value))
    if region.x < 0 or region.y < 0 or region.w <= 0 or region.h <= 0:
        raise fail(
            f"{where}: region {shown(value)} needs x, y >= 0 and a positive width and height"
        )
    if table_size is not None:
        width, height = table_size
        if region.x + region.w > width or region.y + region.h > height:
            raise fail(
                f"{where}: region {shown(value)} reaches beyond the table, "
                f"[table] size_mm = [{width:g}, {height:g}]"
            )
    return region


def _markers(
    value: object, table_size: tuple[float, float] | None, problems: Problems
) -> tuple[Marker, ...]:
    def fail(message: str) -> ProfileError:
        return ProfileError(message)

    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        problems.add(
            f"markers must be a list of [[markers]] tables, not {shown(value)}", Where("markers")
        )
        return ()
    if len(value) < 3:
        problems.add(
            f"[[markers]] lists {len(value)} markers: give at least 3, around the table, "
            "or leave them out for the four default corner markers",
            Where("markers"),
        )
    markers: dict[int, Marker] = {}
    for index, entry in enumerate(value):
        marker_id = entry.get("id")
        with problems.at(Where("markers", "id", marker_id if type(marker_id) is int else index)):
            marker = _marker(entry, index, table_size, fail)
            if marker.id in markers:
                raise fail(f"marker {marker.id} is listed twice")
            for other in markers.values():
                if _overlap(marker, other):
                    raise fail(f"markers {other.id} and {marker.id} overlap on the table")
            markers[marker.id] = marker
    return tuple(markers.values())


def _marker(
    entry: Mapping[str, Any],
    index: int,
    table_size: tuple[float, float] | None,
    fail: Callable[[str], ProfileError],
) -> Marker:
    marker_id = entry.get("id")
    where = f"marker {marker_id}" if type(marker_id) is int else f"markers[{index}]"
    unknown = set(entry) - {"id", "center_mm", "size_mm"}
    if unknown:
        raise fail(f"{where} has unknown keys {sorted(unknown)}")
    if type(marker_id) is not int or not 0 <= marker_id < MARKER_IDS:
        raise fail(
            f"{where}: id must be a whole number 0..{MARKER_IDS - 1}, not {shown(marker_id)}"
        )
    center = entry.get("center_mm")
    if not _numbers(center, 2):
        raise fail(f"{where}: center_mm must be [x, y], two numbers in mm, not {shown(center)}")
    size = entry.get("size_mm", DEFAULT_MARKER_MM)
    if not _numbers([size], 1) or size <= 0:
        raise fail(f"{where}: size_mm must be a positive number of mm, not {shown(size)}")
    marker = Marker(marker_id, (float(center[0]), float(center[1])), float(size))
    if table_size is not None:
        _check_near_table(marker, table_size, fail)
    return marker


def _check_near_table(
    marker: Marker, table_size: tuple[float, float], fail: Callable[[str], ProfileError]
) -> None:
    """A marker lies around the table, where the camera sees it: within half its size of it."""
    width, height = table_size
    (left, top), _, (right, bottom), _ = marker.corners_mm()
    if left < -width / 2 or top < -height / 2 or right > width * 1.5 or bottom > height * 1.5:
        x, y = marker.center_mm
        raise fail(
            f"marker {marker.id} at [{x:g}, {y:g}] mm is too far off the table "
            f"([table] size_mm = [{width:g}, {height:g}]): markers lie around it, "
            "within half its width and height of its edges"
        )


def _overlap(a: Marker, b: Marker) -> bool:
    reach = (a.size_mm + b.size_mm) / 2
    return (
        abs(a.center_mm[0] - b.center_mm[0]) < reach
        and abs(a.center_mm[1] - b.center_mm[1]) < reach
    )
