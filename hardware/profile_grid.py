"""A profile's `[grid]`: the spots of a grid of square cells, from one description.

A grid of `rows` x `cols` cells of `cell_mm`, inside a margin of `margin_mm` from the table's
top-left corner, gives each cell a spot "rRcC" (row R from the top, column C from the left)
with a reed and one LED; with `camera = SUFFIX`, also a spot "rRcC" + SUFFIX that the camera
reads over the whole cell, lit through the cell's LED. Its reeds are wired one of two ways:

- `reeds = "expanders"`: I/O expanders of 16 lines each (MCP23017), cell n (= cols * R + C, in
  reading order) on line n % 16 of /dev/gpiochip `first_chip` + n // 16;
- `reeds = "matrix"`: the serial link's diode matrix, cell rRcC on "R:C".

The LEDs are one strip laid in a serpentine from the top-left: the first row left to right,
the next right to left, and so on. `[[spots]]` entries listed beside the grid change the spots
it makes (the keys they give replace the grid's: a crossed wire mended in one entry) or add
others.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hardware.toml_files import shown

KEYS = ("camera", "cell_mm", "cols", "first_chip", "margin_mm", "reeds", "rows")
WIRINGS = ("expanders", "matrix")
EXPANDER_LINES = 16
# Sides and chip numbers are small; a big one is a typo, and would make a huge profile.
MAX_SIDE = 64
MAX_CHIP = 999
MAX_MM = 100_000.0  # as hardware/profile.py


def grid_spots(
    value: object, serial: bool, fail: Callable[[str], ValueError]
) -> list[dict[str, Any]]:
    """The `[[spots]]` entries that a `[grid]` table stands for, to be checked as listed ones.
    `serial`: the reeds are on the link's matrix (`[reeds] backend = "serial"`)."""
    if not isinstance(value, Mapping):
        raise fail(f"[grid] must be a table, not {shown(value)}")
    unknown = set(value) - set(KEYS)
    if unknown:
        raise fail(f"[grid] has unknown keys {sorted(unknown)}; known: {', '.join(KEYS)}")

    def side(key: str) -> int:
        number = value.get(key)
        if type(number) is not int or not 1 <= number <= MAX_SIDE:
            raise fail(f"[grid] {key} must be a whole number in 1..{MAX_SIDE}, not {shown(number)}")
        return number

    def length(key: str, default: float | None = None, zero: bool = False) -> float:
        number = value.get(key, default)
        fits = type(number) in (int, float) and 0 <= number <= MAX_MM and (zero or number > 0)
        if not fits:
            what = "a number of mm, 0 or more" if zero else "a positive number of mm"
            raise fail(f"[grid] {key} must be {what}, not {shown(number)}")
        return float(number)

    rows, cols = side("rows"), side("cols")
    cell = length("cell_mm")
    margin = length("margin_mm", 0.0, zero=True)
    reed = _wiring(value, serial, cols, fail)
    suffix = value.get("camera")
    if suffix is not None and (not isinstance(suffix, str) or not suffix):
        raise fail(
            f'[grid] camera must be the suffix of its spots, like ".map", not {shown(suffix)}'
        )
    spots: list[dict[str, Any]] = []
    for r in range(rows):
        for c in range(cols):
            led = r * cols + (c if r % 2 == 0 else cols - 1 - c)
            name = f"r{r}c{c}"
            spots.append({"id": name, "reed": reed(r, c), "leds": [led]})
            if suffix is not None:
                corner = [margin + cell * c, margin + cell * r]
                spots.append({"id": name + suffix, "region": [*corner, cell, cell]})
    return spots


def _wiring(
    value: Mapping[str, Any], serial: bool, cols: int, fail: Callable[[str], ValueError]
) -> Callable[[int, int], str]:
    """Each cell's reed channel, from its row and column."""
    wiring = value.get("reeds")
    if wiring not in WIRINGS:
        raise fail(f'[grid] reeds must be "expanders" or "matrix", not {shown(wiring)}')
    if (wiring == "matrix") != serial:
        backend = "serial" if wiring == "matrix" else "gpio"
        raise fail(f'[grid] reeds = "{wiring}" is for [reeds] backend = "{backend}"')
    if wiring == "matrix":
        if "first_chip" in value:
            raise fail('[grid] first_chip is for reeds = "expanders"')
        return lambda r, c: f"{r}:{c}"
    first = value.get("first_chip")
    if type(first) is not int or not 0 <= first <= MAX_CHIP:
        raise fail(
            '[grid] reeds = "expanders" needs first_chip, the gpiochip of the first expander '
            f"(0..{MAX_CHIP}), not {shown(first)}"
        )

    def channel(r: int, c: int) -> str:
        chip, line = divmod(r * cols + c, EXPANDER_LINES)
        return f"{first + chip}:{line}"

    return channel


def with_grid(generated: list[dict[str, Any]], listed: list[Any]) -> list[Any]:
    """The grid's spots, each changed by the listed entry of its id, then the other entries."""
    by_id = {spot["id"]: spot for spot in generated}
    merged: set[str] = set()
    extra: list[Any] = []
    for entry in listed:
        spot_id = entry.get("id") if isinstance(entry, Mapping) else None
        if isinstance(spot_id, str) and spot_id in by_id and spot_id not in merged:
            by_id[spot_id] = {**by_id[spot_id], **entry}
            merged.add(spot_id)
        else:
            extra.append(entry)  # a spot of its own, or listed twice: checked as listed
    return [*by_id.values(), *extra]
