"""Lights: a session's view, coloured by the palette, laid onto LED indices by the profile, and
the table's own state over it (trouble, a pause) within the strip's power.

A role is a palette name, optionally at a fraction of its brightness: "red@0.40" is the palette's
red at 40 %. A spot with no LEDs of its own ("r3c4.map", what the camera sees on cell r3c4) shows
on its square's LEDs ("r3c4"); where two spots share LEDs, the session's prompts win over the
game's lights, the more urgent first, and otherwise the square's own role.
"""

from __future__ import annotations

from collections.abc import Mapping

from controller.config import Config
from controller.session import View
from hardware.leds import RGB, Frame, limit_frame
from hardware.profile import BoardProfile

OFF: RGB = (0, 0, 0)
UNKNOWN: RGB = (255, 255, 255)
# The session's prompts, least urgent first; every other role is a game's light and ranks below.
PROMPTS = (
    "legal",
    "shown_take",
    "shown_from",
    "shown_to",
    "shown_swap",
    "landing",
    "changed",
    "candidate",
    "fix",
)
# While a move is shown (the table's own, a hint, another table's), the game's lights and the
# legal moves stay this bright: the move stands out, and its colours are not confused with
# theirs (Baron Voodoo's dice that can capture are pink, as where the move goes).
SHOWN = ("shown_take", "shown_from", "shown_to", "shown_swap")
BEHIND_SHOWN = 0.25
# Trouble with the table itself flashes every LED for a moment every few seconds: seen from
# across the room, and the game's lights still show in between.
TROUBLE_PERIOD_S = 2.0
TROUBLE_FLASH_S = 0.25
# How bright the lights stay while the game is paused: still readable, plainly not in play.
PAUSED_LEVEL = 0.25


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
    showing = any(role in SHOWN for role in view.roles.values())
    for spot_id, (role, source) in shown_roles(view, profile).items():
        colour = role_colour(role, palette)
        if showing and rank(role) <= rank("legal"):
            colour = dim(colour, BEHIND_SHOWN)
        if source in view.blinking and not blink_on:
            colour = OFF
        for index in profile.spots[spot_id].leds:
            frame[index] = colour
    return tuple(frame)


def table_frame(
    view: View, profile: BoardProfile, config: Config, now: float, trouble: str | None, paused: bool
) -> Frame:
    """The LEDs at `now`: the view blinking at the config's rate; every LED in the colour of the
    table's own `trouble` for a moment every few seconds; dimmed while the game is paused; within
    the strip's brightness cap and power budget."""
    blink_on = int(now * config.blink_hz * 2) % 2 == 0
    frame = render(view, profile, config.palette, blink_on)
    if trouble is not None and now % TROUBLE_PERIOD_S < TROUBLE_FLASH_S:
        frame = (role_colour(trouble, config.palette),) * len(frame)
    if paused:
        frame = tuple(dim(rgb, PAUSED_LEVEL) for rgb in frame)
    return limit_frame(frame, config.brightness_cap, config.power_budget_ma)


def next_flash_edge(now: float) -> float:
    """When the trouble flash next comes on or goes off."""
    phase = now % TROUBLE_PERIOD_S
    edge = TROUBLE_FLASH_S if phase < TROUBLE_FLASH_S else TROUBLE_PERIOD_S
    return now - phase + edge
