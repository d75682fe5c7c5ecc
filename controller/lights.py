"""Lights: a session's view, coloured by the palette, laid onto LED indices by the profile.

A role is a palette name, optionally at a fraction of its brightness: "red@0.40" is the palette's
red at 40 %. A spot with no LEDs of its own ("r3c4.map", what the camera sees on cell r3c4) shows
on its square's LEDs ("r3c4"); where two spots share LEDs, the session's prompts win over the
game's lights, the more urgent first, and otherwise the square's own role.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.session import View
from hardware.leds import RGB, Frame
from hardware.profile import BoardProfile

OFF: RGB = (0, 0, 0)
UNKNOWN: RGB = (255, 255, 255)
# The session's prompts, least urgent first; every other role is a game's light and ranks below.
PROMPTS = ("legal", "landing", "changed", "candidate", "fix")


def role_colour(role: str, palette: Mapping[str, RGB], default: RGB = UNKNOWN) -> RGB:
    """The colour of a role, "name" or "name@level"; a name missing from the palette shows
    `default` (white, so it is noticed), and a level that is no number in 0..1 full."""
    name, _, level = role.partition("@")
    colour = palette.get(name, default)
    if not level:
        return colour
    try:
        scale = min(max(float(level), 0.0), 1.0)
    except ValueError:
        return colour
    return dim(colour, scale)


def dim(colour: RGB, scale: float) -> RGB:
    r, g, b = colour
    return (round(r * scale), round(g * scale), round(b * scale))


def rank(role: str) -> int:
    """How urgent a role is where spots share LEDs: prompts above a game's lights."""
    return PROMPTS.index(role) + 1 if role in PROMPTS else 0


def shown_roles(view: View, profile: BoardProfile) -> dict[str, tuple[str, str]]:
    """For each spot with LEDs that is lit, its role and the spot that role comes from (itself,
    or a spot without LEDs of its own on that square)."""
    shown: dict[str, tuple[int, int, str, str]] = {}
    for spot_id, role in view.roles.items():
        spot = profile.spots.get(spot_id)
        if spot is None:
            continue
        target, own = spot_id, 1
        if not spot.leds:
            square = spot_id.partition(".")[0]
            if square == spot_id or square not in profile.spots:
                continue
            target, own = square, 0
        candidate = (rank(role), own, role, spot_id)
        if target not in shown or candidate[:2] > shown[target][:2]:
            shown[target] = candidate
    return {target: (role, source) for target, (_, _, role, source) in shown.items()}


def render(view: View, profile: BoardProfile, palette: Mapping[str, RGB], blink_on: bool) -> Frame:
    """One colour per LED."""
    frame = [OFF] * profile.led_count
    for spot_id, (role, source) in shown_roles(view, profile).items():
        colour = role_colour(role, palette)
        if source in view.blinking and not blink_on:
            colour = OFF
        for index in profile.spots[spot_id].leds:
            frame[index] = colour
    return tuple(frame)
