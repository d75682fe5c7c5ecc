"""Lights: a session's view, coloured by the palette, laid onto LED indices by the profile."""

from __future__ import annotations

from collections.abc import Mapping

from controller.session import View
from hardware.leds import RGB, Frame
from hardware.profile import BoardProfile

OFF: RGB = (0, 0, 0)


def render(view: View, profile: BoardProfile, palette: Mapping[str, RGB], blink_on: bool) -> Frame:
    """One colour per LED. A role missing from the palette shows white, so it is noticed."""
    frame = [OFF] * profile.led_count
    for spot_id, role in view.roles.items():
        spot = profile.spots.get(spot_id)
        if spot is None:
            continue
        colour = palette.get(role, (255, 255, 255))
        if spot_id in view.blinking and not blink_on:
            colour = OFF
        for index in spot.leds:
            frame[index] = colour
    return tuple(frame)
