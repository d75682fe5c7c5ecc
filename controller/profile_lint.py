"""`smartboard check --profile FILE`: every problem of a board profile, each with its file, key
and line; and, once the camera is calibrated, the camera regions that fall outside its frame.

Reading the profile finds the rest (hardware/profile.py): reed channels used twice, LED indices
out of range or repeated, spots of the game with no sensor or missing, regions off the table.
"""

from __future__ import annotations

from pathlib import Path

from controller.check_report import PartReport
from hardware.profile import BoardProfile, ProfileError
from hardware.profile_problems import Where, find_line
from vision.calibration import Calibration


def refused_profile(error: ProfileError, source: str) -> PartReport:
    """The profile part of a profile that cannot be read: one fault per problem."""
    part = PartReport("profile")
    problems = error.problems
    if not problems:  # unreadable, or not TOML at all: one sentence says it
        part.fault("unreadable", str(error), file=source)
    for problem in problems:
        at = f"{source}, line {problem.line}" if problem.line else source
        part.fault(
            "profile",
            f"{at} ({problem.where}): {problem.message}",
            file=source,
            key=str(problem.where),
            line=problem.line,
        )
    part.figures["problems"] = len(part.faults)
    return part


def lint_profile(profile: BoardProfile, calibration: Calibration | None) -> PartReport:
    """The profile part of a profile read: its figures, and the regions that the calibrated
    camera cannot see."""
    part = PartReport("profile")
    part.figures.update(
        name=profile.name,
        spots=len(profile.spots),
        reeds=len(profile.reed_channels()),
        leds=profile.led_count,
        camera_regions=len(profile.camera_regions()),
        link=None if profile.link is None else profile.link.port,
    )
    if calibration is None or calibration.profile != profile.name:
        return part
    try:
        text = Path(profile.source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    width, height = calibration.image_size
    regions = [(Where("spots", "region", spot), spot, region)
               for spot, region in profile.camera_regions().items()]  # fmt: skip
    if profile.dice_tray is not None:
        regions.append((Where("dice", "tray"), "", profile.dice_tray))
    for where, spot, region in regions:
        polygon = calibration.region_polygon(region)
        xs, ys = polygon[:, 0], polygon[:, 1]
        if xs.min() >= 0 and ys.min() >= 0 and xs.max() <= width and ys.max() <= height:
            continue
        line = find_line(text, where) if text else None
        at = f"{profile.source}, line {line}" if line else profile.source
        part.fault(
            "region_off_camera",
            f"{at} ({where}): region {list(region)} mm lies partly outside the calibrated "
            f"camera's {width}x{height} frame: move the camera to see the whole table and "
            "calibrate again, or mend the region",
            spots=(spot,) if spot else (),
            file=profile.source,
            key=str(where),
            line=line,
        )
    return part
