"""Board profiles: TOML data mapping a game's spots onto reed channels and LED indices.

Hardware never speaks of games and games never speak of pins; the profile is the bridge
(DESIGN.md §1). A reed channel is written "CHIP:LINE": a line of /dev/gpiochipCHIP, so reeds on
the Pi's header (chip 0) and on I/O expanders exposed by the kernel (e.g. MCP23017) read alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from hardware.toml_files import read_toml

_CHANNEL = re.compile(r"([0-9]+):([0-9]+)", re.ASCII)


class ProfileError(ValueError):
    """A board profile that cannot drive the table, with the reason."""


@dataclass(frozen=True, order=True)
class Channel:
    chip: int
    line: int

    @classmethod
    def parse(cls, text: object, where: str) -> Channel:
        match = _CHANNEL.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ProfileError(
                f"{where}: reed channel must be 'CHIP:LINE', like '0:17', not {text!r}"
            )
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.chip}:{self.line}"


@dataclass(frozen=True)
class Spot:
    id: str
    reed: Channel | None
    leds: tuple[int, ...]


@dataclass(frozen=True)
class BoardProfile:
    game: str
    name: str
    led_count: int
    pull_up: bool
    spots: Mapping[str, Spot]
    source: str

    def reed_channels(self) -> dict[str, Channel]:
        return {spot.id: spot.reed for spot in self.spots.values() if spot.reed is not None}


def builtin_profile_path(game: str) -> Path:
    return Path(str(resources.files("hardware") / "profiles" / f"{game}.toml"))


def load_profile(path: Path, game_spots: Mapping[str, bool]) -> BoardProfile:
    """Read and validate a profile against the spots its game uses (`Game.spots()`)."""
    data = read_toml(path, "board profile", ProfileError)
    return parse_profile(data, game_spots, str(path))


def parse_profile(
    data: Mapping[str, Any], game_spots: Mapping[str, bool], source: str
) -> BoardProfile:
    def fail(message: str) -> ProfileError:
        return ProfileError(f"board profile {source}: {message}")

    def table(value: object, name: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise fail(f"{name} must be a table, not {value!r}")
        return value

    leds = table(data.get("leds", {}), "[leds]")
    reeds = table(data.get("reeds", {}), "[reeds]")
    count = leds.get("count")
    if type(count) is not int or count < 1:
        raise fail(f"[leds] count must be a positive integer, not {count!r}")
    pull_up = reeds.get("pull_up", True)
    if not isinstance(pull_up, bool):
        raise fail(f"[reeds] pull_up must be true or false, not {pull_up!r}")

    spots: dict[str, Spot] = {}
    channel_owner: dict[Channel, str] = {}
    for index, item in enumerate(data.get("spots", [])):
        entry = table(item, f"spots[{index}]")
        spot_id = str(entry.get("id", ""))
        where = f"spot {spot_id!r}" if spot_id else f"spots[{index}]"
        if spot_id not in game_spots:
            raise fail(f"unknown spot {spot_id!r} for game {data.get('game')!r}")
        if spot_id in spots:
            raise fail(f"{where} is listed twice")
        unknown = set(entry) - {"id", "reed", "leds"}
        if unknown:
            raise fail(f"{where} has unknown keys {sorted(unknown)}")
        reed = (
            Channel.parse(entry["reed"], f"board profile {source}: {where}")
            if "reed" in entry
            else None
        )
        if reed is not None:
            if reed in channel_owner:
                raise fail(
                    f"reed channel {reed} is used twice: {channel_owner[reed]!r} and {spot_id!r}"
                )
            channel_owner[reed] = spot_id
        if game_spots[spot_id] and reed is None:
            raise fail(f"{where} needs a reed channel: pieces are sensed there")
        indices = entry.get("leds", [])
        if not isinstance(indices, list) or not all(type(i) is int for i in indices):
            raise fail(f"{where}: leds must be a list of integers, not {indices!r}")
        for i in indices:
            if not 0 <= i < count:
                raise fail(f"{where}: LED index {i} is out of range 0..{count - 1}")
        spots[spot_id] = Spot(spot_id, reed, tuple(indices))

    missing = sorted(set(game_spots) - set(spots))
    if missing:
        raise fail(f"spots missing for game {data.get('game')!r}: {', '.join(missing)}")
    return BoardProfile(
        game=str(data.get("game", "")),
        name=str(data.get("name", source)),
        led_count=count,
        pull_up=pull_up,
        spots=spots,
        source=source,
    )
