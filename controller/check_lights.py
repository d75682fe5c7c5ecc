"""`smartboard check`, its lights: each LED lit alone with its spot's name, a colour sweep, a
brightness ramp, and what the strip draws at full white against the power supply.

On a real strip only a person can see the LEDs: the check says what it drove, one line per LED,
for them to follow, and on the guided walk asks them which LEDs were wrong. Where what the LEDs
show can be read back (the simulated strip), each frame is checked: an LED that stays dark, or
lights when it should not, is named.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from controller.check_report import CheckEvent, Listener, PartReport
from hardware.leds import RGB, Frame, LedStrip, frame_current_ma, limit_frame
from hardware.profile import BoardProfile

WHITE = (255, 255, 255)
SWEEP = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "white": WHITE}
LEVELS = (0.25, 0.5, 1.0)  # of the brightness cap


def check_lights(
    strip: LedStrip,
    profile: BoardProfile,
    cap: float,
    budget_ma: float,
    listen: Listener,
    shown: Callable[[], Frame | None] | None = None,
    step_s: float = 0.0,
    ask: Callable[[str], str] | None = None,
) -> PartReport:
    """Drive the strip; `shown` reads back what it shows (None: nobody can but a person),
    `step_s` is how long each step stays lit for a person to see it; `ask` puts a question to
    the person watching a strip that cannot be read back (the guided walk)."""
    part = PartReport("lights")
    count = profile.led_count
    owners = {i: spot.id for spot in profile.spots.values() for i in spot.leds}
    _power(part, count, cap, budget_ma)
    unused = [i for i in range(count) if i not in owners]
    if unused:
        part.warn(
            "unused_leds",
            f"{_indices(unused)} light no spot of the profile: a strip longer than the board, or "
            "spots missing their LEDs ([leds] count, and each spot's leds)",
            leds=tuple(unused),
        )

    def show(frame: Sequence[RGB]) -> Frame:
        limited = limit_frame(frame, cap, budget_ma)
        strip.show(limited)
        if step_s:
            time.sleep(step_s)
        return limited

    dark: list[int] = []
    stray: dict[int, RGB] = {}  # LEDs lit while another was driven alone
    for i in range(count):
        where = owners.get(i, "no spot")
        sent = show([WHITE if j == i else (0, 0, 0) for j in range(count)])
        listen(
            CheckEvent("lights", "led", f"LED {i}: {where}", {"index": i, "spot": owners.get(i)})
        )
        seen = shown() if shown is not None else None
        if seen is None:
            continue
        if not any(seen[i]) and any(sent[i]):
            dark.append(i)
        for j, rgb in enumerate(seen):
            if j != i and any(rgb):
                stray.setdefault(j, rgb)
    part.figures["leds_driven"] = count
    part.figures["read_back"] = shown is not None
    _dark_faults(part, dark, owners, count)
    for j, rgb in sorted(stray.items()):
        part.fault(
            "stuck_led",
            f"LED {j} ({owners.get(j, 'no spot')}) stays lit at {rgb} when other LEDs are driven: "
            "a damaged LED, or one that takes the wrong data; replace it",
            spots=_spots(owners, [j]),
            leds=(j,),
        )
    faulty = set(dark) | set(stray)
    for name, colour in SWEEP.items():
        sent = show([colour] * count)
        listen(CheckEvent("lights", "sweep", f"every LED {name}", {"colour": list(colour)}))
        seen = shown() if shown is not None else None
        if seen is None:
            continue
        wrong = [j for j, rgb in enumerate(seen) if rgb != sent[j] and j not in faulty]
        if wrong:
            faulty.update(wrong)
            part.fault(
                "wrong_colour",
                f"{_indices(wrong)} do not show {name}: a damaged LED, or [leds] pixel_order "
                "wrong for this strip (GRB for most WS2812s)",
                spots=_spots(owners, wrong),
                leds=tuple(wrong),
            )
    steps = []
    for level in LEVELS:
        grey = round(255 * level)
        sent = show([(grey, grey, grey)] * count)
        drawn = round(frame_current_ma(sent))
        asked = round(frame_current_ma(limit_frame([(grey, grey, grey)] * count, cap, 0.0)))
        steps.append({"level": level, "estimated_ma": drawn})
        # Dimmed to the supply, it draws less than the cap alone would (the over_budget warning).
        dimmed = (
            f", dimmed to fit power_budget_ma (about {asked} mA undimmed)" if asked > drawn else ""
        )
        listen(
            CheckEvent(
                "lights",
                "brightness",
                f"white at {level:.0%} of the brightness cap: about {drawn} mA{dimmed}",
                {"level": level, "estimated_ma": drawn},
            )
        )
    part.figures["brightness_steps"] = steps
    show([(0, 0, 0)] * count)
    if shown is None:
        _watched(part, owners, count, ask)
    return part


ASKED = (
    "which LEDs stayed dark, stayed lit, or showed a wrong colour? Their numbers (e.g. 3 17), "
    "or Enter if every one lit as said: "
)


def _watched(
    part: PartReport, owners: dict[int, str], count: int, ask: Callable[[str], str] | None
) -> None:
    """What the person watching a real strip saw: a strip that cannot be read back passes on
    their word alone, so without one it says it was not watched."""
    part.figures["watched"] = ask is not None
    if ask is None:
        part.warn(
            "not_watched",
            "a real strip cannot be read back: watch each LED as the check names it, or run "
            "`smartboard check --walk` in a terminal, which asks you which were wrong",
        )
        return
    question = ASKED
    while True:
        words = ask(question).replace(",", " ").split()
        if all(word.isdecimal() and int(word) < count for word in words):
            break
        question = f"LED numbers from 0 to {count - 1}, or Enter if every one lit: "
    wrong = sorted({int(word) for word in words})
    if wrong:
        part.fault(
            "seen_wrong",
            f"{_indices(wrong)} did not light as the check drove them, seen at the table: a "
            "damaged LED or its solder joints (the data line breaks at the first bad LED, so "
            "every LED after it stays dark), or [leds] pixel_order wrong for this strip",
            spots=_spots(owners, wrong),
            leds=tuple(wrong),
        )


def _power(part: PartReport, count: int, cap: float, budget_ma: float) -> None:
    """The current at full white, and a warning above what the supply gives."""
    full = frame_current_ma([WHITE] * count)
    capped = full * cap
    part.figures.update(
        full_white_ma=round(full),
        capped_white_ma=round(capped),
        brightness_cap=cap,
        power_budget_ma=budget_ma,
    )
    if budget_ma <= 0:
        part.warn(
            "no_budget",
            f"[leds] power_budget_ma is 0, so nothing holds the strip to its supply: at full "
            f"white it would draw about {capped:.0f} mA; set it to what the 5 V supply gives",
        )
    elif capped > budget_ma:
        part.warn(
            "over_budget",
            f"at full white the {count} LEDs draw about {full:.0f} mA ({capped:.0f} mA at the "
            f"brightness cap of {cap:.0%}), more than the {budget_ma:.0f} mA of [leds] "
            "power_budget_ma: bright frames are dimmed to fit. A larger 5 V supply (and a "
            "larger power_budget_ma), or a lower brightness_cap, ends the dimming",
        )


def _dark_faults(part: PartReport, dark: list[int], owners: dict[int, str], count: int) -> None:
    """Dark LEDs: a run to the strip's end is a broken data line, the others bad LEDs."""
    tail = 0
    while tail < len(dark) and dark[len(dark) - 1 - tail] == count - 1 - tail:
        tail += 1
    if tail > 1:
        first = count - tail
        part.fault(
            "strip_break",
            f"LEDs {first} to {count - 1} stay dark: the data line is broken between LED "
            f"{first - 1} and LED {first} (a joint or a cut), or [leds] count is larger than "
            "the strip",
            spots=_spots(owners, dark[-tail:]),
            leds=tuple(dark[-tail:]),
        )
        dark = dark[:-tail]
    for i in dark:
        part.fault(
            "dead_led",
            f"LED {i} ({owners.get(i, 'no spot')}) stays dark when driven: check its solder "
            "joints and its 5 V and ground; a dead LED still passes the data on",
            spots=_spots(owners, [i]),
            leds=(i,),
        )


def _spots(owners: dict[int, str], leds: Sequence[int]) -> tuple[str, ...]:
    return tuple(owners[i] for i in leds if i in owners)


def _indices(leds: Sequence[int]) -> str:
    shown = ", ".join(str(i) for i in leds[:12])
    more = f" and {len(leds) - 12} more" if len(leds) > 12 else ""
    return f"LED {shown}{more}" if len(leds) == 1 else f"LEDs {shown}{more}"
