"""`smartboard check`, its reeds: which are closed now, how often each bounced, and the guided
walk: a piece put on every spot in turn, to find reeds that never close (alone, or a whole
expander or scan row), reeds that close for another spot (crossed wires, the likely swap
named), and reeds that chatter.

On the simulated table simulated hands put the pieces; on a real one a person does, told each
spot in turn, with a time limit per spot and a way to skip it. "any" order instead records
every reed as it closes, until each one has, for a person walking the board their own way.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Literal, Protocol

from controller.check_report import CheckEvent, Listener, PartReport
from hardware.profile import BoardProfile, Channel
from hardware.reeds import EdgeHandler

Hands = Callable[[str, bool], None]
"""Simulated hands: put a piece on a spot (True) or lift it (False)."""

Order = Literal["turn", "any"]
POLL_S = 0.005
# Edges beyond the two of a clean placing and lifting, over the walk, from which a reed chatters.
CHATTER = 4


class CheckedReeds(Protocol):
    """What the check needs of a bank of reeds (hardware/reeds.py, hardware/serial_link.py)."""

    channels: dict[str, Channel]
    on_edge: EdgeHandler

    def read(self) -> dict[str, bool]: ...


@dataclass(frozen=True)
class Walk:
    """How to walk the board: in turn or in any order, `spot_timeout_s` for each spot (the
    whole walk, in any order), `settle_s` after a reed closes for others to follow;
    `skip()` true moves on to the next spot (a person pressed Enter)."""

    order: Order = "turn"
    spot_timeout_s: float = 30.0
    settle_s: float = 0.0
    skip: Callable[[], bool] = lambda: False


def check_reeds(
    reeds: CheckedReeds,
    profile: BoardProfile,
    listen: Listener,
    walk: Walk | None,
    hands: Hands | None = None,
) -> PartReport:
    """The live map, and with `walk` the guided walk, by `hands` if given."""
    part = PartReport("reeds")
    edges: Counter[str] = Counter()
    lock = threading.Lock()
    original = reeds.on_edge

    def tee(spot: str, occupied: bool, at: float) -> None:
        with lock:
            edges[spot] += 1
        listen(
            CheckEvent(
                "reeds",
                "edge",
                f"{spot} {'closed' if occupied else 'opened'}",
                {"spot": spot, "closed": occupied},
            )
        )
        original(spot, occupied, at)

    reeds.on_edge = tee
    try:
        closed = _closed(reeds)
        part.figures["reeds"] = len(reeds.channels)
        part.figures["closed_at_start"] = sorted(closed)
        listen(
            CheckEvent(
                "reeds",
                "map",
                f"closed now: {_names(closed) or 'none'}",
                {"closed": sorted(closed)},
            )
        )
        if walk is None:
            return part
        if walk.order == "any":
            _any_order(part, reeds, listen, walk, hands)
        else:
            _walk(part, reeds, profile, listen, walk, hands, edges, lock)
    finally:
        reeds.on_edge = original
    return part


def _closed(reeds: CheckedReeds) -> set[str]:
    return {spot for spot, value in reeds.read().items() if value}


def _any_closed(reeds: CheckedReeds, ignored: frozenset[str]) -> bool:
    return bool(_closed(reeds) - ignored)


def _none_closed(reeds: CheckedReeds, ignored: frozenset[str]) -> bool:
    return not _closed(reeds) - ignored


Waited = Literal["done", "timeout", "skipped"]


def _wait(until: Callable[[], bool], seconds: float, skip: Callable[[], bool]) -> Waited:
    """Whether `until()` came true within `seconds` (looked at once at least), or the time ran
    out, or the person skipped."""
    deadline = time.monotonic() + seconds
    while True:
        if until():
            return "done"
        if skip():
            return "skipped"
        if time.monotonic() >= deadline:
            return "timeout"
        time.sleep(POLL_S)


def _walk(
    part: PartReport,
    reeds: CheckedReeds,
    profile: BoardProfile,
    listen: Listener,
    walk: Walk,
    hands: Hands | None,
    edges: Counter[str],
    lock: threading.Lock,
) -> None:
    channels = reeds.channels
    lifted = _closed(reeds)
    if lifted and hands is not None:
        for spot in lifted:
            hands(spot, False)
    elif lifted:
        listen(
            CheckEvent(
                "reeds", "clear", f"take the pieces off {_names(lifted)}", {"spots": sorted(lifted)}
            )
        )
        _wait(lambda: not _closed(reeds), walk.spot_timeout_s, walk.skip)
    stuck = _closed(reeds)
    closed_for: dict[str, set[str]] = {}
    skipped: list[str] = []
    bounces: Counter[str] = Counter()
    order = [spot for spot in profile.spots if spot in channels and spot not in stuck]
    for number, spot in enumerate(order, start=1):
        listen(
            CheckEvent(
                "reeds",
                "place",
                f"put a piece on {spot} ({number} of {len(order)})",
                {"spot": spot, "number": number, "of": len(order)},
            )
        )
        with lock:
            before = Counter(edges)
        if hands is not None:
            hands(spot, True)
        ignored = frozenset(stuck)
        waited = _wait(partial(_any_closed, reeds, ignored), walk.spot_timeout_s, walk.skip)
        if waited == "done" and walk.settle_s:
            time.sleep(walk.settle_s)
        elif waited == "skipped":
            skipped.append(spot)
        closed_for[spot] = _closed(reeds) - stuck
        if hands is not None:
            hands(spot, False)
        elif closed_for[spot]:
            listen(CheckEvent("reeds", "lift", f"lift the piece off {spot}", {"spot": spot}))
        if _wait(partial(_none_closed, reeds, ignored), walk.spot_timeout_s, walk.skip) != "done":
            stuck |= _closed(reeds)
        with lock:
            during = edges - before
        for reed in closed_for[spot]:
            bounces[reed] += max(0, during[reed] - 2)
    if hands is not None:
        for spot in lifted:
            hands(spot, True)
    for spot in sorted(stuck):
        part.fault(
            "stuck_closed",
            f"the reed of {spot} (channel {channels[spot]}) stays closed with no piece on it: a "
            "reed stuck shut, a magnet left under the board, or a short to ground on its wire",
            spots=(spot,),
            channels=(str(channels[spot]),),
        )
    part.figures["walked"] = len(order)
    part.figures["skipped"] = skipped
    part.figures["bounce_counts"] = {spot: n for spot, n in sorted(bounces.items()) if n}
    _findings(part, profile, channels, closed_for, skipped, walk.spot_timeout_s)
    for spot, n in sorted(bounces.items()):
        about = {"spots": (spot,), "channels": (str(channels[spot]),)}
        reed = f"the reed of {spot} (channel {channels[spot]})"
        if n >= CHATTER:
            part.fault(
                "chatter",
                f"{reed} chatters: {n} edges more than a piece placed and lifted makes. A loose "
                "wire or joint, or a reed at the edge of the magnet's reach: the debounce hides "
                "some of it, not all",
                **about,
            )
        elif n:
            part.warn("bounce", f"{reed} bounced {n} time(s): the debounce covers it", **about)


def _findings(
    part: PartReport,
    profile: BoardProfile,
    channels: dict[str, Channel],
    closed_for: dict[str, set[str]],
    skipped: list[str],
    timeout_s: float,
) -> None:
    """What the walk shows: swaps, reeds closed for another spot, and reeds that never
    closed, grouped by the expander or scan row they hang off when all of it is silent."""
    named: set[str] = set()
    for spot, closed in closed_for.items():
        others = sorted(closed - {spot})
        if not others or spot in named:
            continue
        if spot in closed:
            part.fault(
                "also_closes",
                f"a piece on {spot} also closes the reed of {_names(others)}: reeds too close "
                "together, or a short between their wires",
                spots=(spot, *others),
                channels=tuple(str(channels[s]) for s in (spot, *others)),
            )
            continue
        other = others[0]
        if len(others) == 1 and closed_for.get(other) == {spot}:
            named |= {spot, other}
            a, b = str(channels[spot]), str(channels[other])
            part.fault(
                "crossed",
                f"{spot} and {other} look swapped: a piece on {spot} closes the reed of {other} "
                f"(channel {b}) and a piece on {other} the reed of {spot} (channel {a}). Swap "
                f'their two wires, or their channels in the profile: [[spots]] id = "{spot}" '
                f'reed = "{b}", and id = "{other}" reed = "{a}"',
                spots=(spot, other),
                channels=(a, b),
            )
        else:
            part.fault(
                "closes_other",
                f"a piece on {spot} closes the reed of {_names(others)} instead of its own "
                f"(channel {channels[spot]}): its wire is on {_channels(channels, others)}",
                spots=(spot, *others),
                channels=tuple(str(channels[s]) for s in (spot, *others)),
            )
    closed_somewhere = set().union(*closed_for.values()) if closed_for else set()
    never = [
        s
        for s, closed in closed_for.items()
        if not closed and s not in skipped and s not in closed_somewhere
    ]
    advice = (
        "Check the row's wire from the decoder and its diodes, and the firmware's config "
        "(firmware/README.md)"
        if profile.link is not None
        else "Check its power, its I2C address and dtoverlay line, and that `gpiodetect` "
        "lists it with this number"
    )
    for group, members in _groups(profile, channels, never):
        never = [s for s in never if s not in members]
        part.fault(
            "dead_group",
            f"{group} does not answer: none of its {len(members)} reeds closed "
            f"({_names(members)}). {advice}",
            spots=tuple(members),
            channels=tuple(str(channels[s]) for s in members),
        )
    for spot in never:
        part.fault(
            "never_closed",
            f"the reed of {spot} (channel {channels[spot]}) never closed within {timeout_s:g} s "
            "of a piece put there: check the reed, its wire and joints, and that the piece's "
            "magnet passes over it",
            spots=(spot,),
            channels=(str(channels[spot]),),
        )


def _groups(
    profile: BoardProfile, channels: dict[str, Channel], never: list[str]
) -> Iterable[tuple[str, list[str]]]:
    """The expanders (gpiochips), or the scan rows of a Pico's matrix, none of whose reeds
    closed, with their spots; two reeds at least."""
    by: dict[int, list[str]] = {}
    for spot, channel in channels.items():
        by.setdefault(channel.chip, []).append(spot)
    silent = set(never)
    for chip, members in sorted(by.items()):
        if len(members) > 1 and silent.issuperset(members):
            if profile.link is not None:
                yield f"scan row {chip} of the Pico's matrix", members
            else:
                yield f"the expander at /dev/gpiochip{chip}", members


def _any_order(
    part: PartReport, reeds: CheckedReeds, listen: Listener, walk: Walk, hands: Hands | None
) -> None:
    """Every reed as it closes, until each one has or the time is up; the simulated `hands`
    put a piece on each spot and lift it, from the last spot to the first."""
    channels = reeds.channels
    seen: set[str] = set()
    listen(
        CheckEvent(
            "reeds", "any", "put a piece on every spot, in any order", {"spots": sorted(channels)}
        )
    )

    def more() -> bool:
        new = _closed(reeds) - seen
        for spot in sorted(new):
            listen(CheckEvent("reeds", "seen", f"{spot} closed", {"spot": spot}))
        seen.update(new)
        return seen >= set(channels)

    def closed(spot: str) -> bool:
        more()
        return spot in seen

    if hands is None:
        _wait(more, walk.spot_timeout_s, walk.skip)
    else:
        for spot in sorted(channels, reverse=True):
            hands(spot, True)
            waited = _wait(partial(closed, spot), walk.spot_timeout_s, walk.skip)
            hands(spot, False)
            if waited == "skipped":
                break
    never = sorted(set(channels) - seen)
    part.figures["seen"] = len(seen)
    for spot in never:
        part.fault(
            "never_closed",
            f"the reed of {spot} (channel {channels[spot]}) never closed during the walk",
            spots=(spot,),
            channels=(str(channels[spot]),),
        )


def _names(spots: Iterable[str]) -> str:
    """Spots named in the order given (a set's sorted)."""
    listed = sorted(spots) if isinstance(spots, set | frozenset) else list(spots)
    more = f" and {len(listed) - 12} more" if len(listed) > 12 else ""
    return ", ".join(listed[:12]) + more


def _channels(channels: dict[str, Channel], spots: Iterable[str]) -> str:
    return ", ".join(f"channel {channels[s]}" for s in spots)
