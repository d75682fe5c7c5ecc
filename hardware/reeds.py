"""Reed switches read through gpiozero, one input per channel, with a software debounce.

gpiozero's own bounce_time is left off: its mock pins do not bounce, so debouncing here is what
the tests can drive, and it behaves the same on every pin factory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from hardware.profile import Channel

EdgeHandler = Callable[[str, bool, float], None]
"""Called with (spot, occupied, monotonic time) on every raw edge, from gpiozero's thread."""


class ReedError(RuntimeError):
    """A reed's input cannot be opened: its channel names no line of its chip."""


class PinFactories(Protocol):
    def __call__(self, chip: int) -> Any: ...


def gpio_factories() -> PinFactories:
    """Real pin factories: gpiozero's default on the header, lgpio on other gpiochips."""
    cache: dict[int, Any] = {0: None}  # None lets gpiozero pick its default on the header

    def factory(chip: int) -> Any:
        if chip not in cache:
            try:
                from gpiozero.pins.lgpio import LGPIOFactory
            except ImportError as error:
                raise RuntimeError(
                    f"reeds on /dev/gpiochip{chip} need lgpio (apt install python3-lgpio)"
                ) from error
            cache[chip] = LGPIOFactory(chip=chip)
        return cache[chip]

    return factory


def mock_factories() -> PinFactories:
    """Simulated pins: one gpiozero MockFactory per chip, driven by tests and bots."""
    from gpiozero.pins.mock import MockFactory

    cache: dict[int, Any] = {}

    def factory(chip: int) -> Any:
        return cache.setdefault(chip, MockFactory())

    return factory


@dataclass(frozen=True)
class WiringFaults:
    """Simulation only: a table built wrong, for `smartboard check` to find. `crossed`: pairs
    of spots whose reed wires were swapped (a piece on one closes the other's reed); `dead_chips`:
    expanders that do not answer (their reeds never close); `chatter`: spots whose reed bounces
    `CHATTER_EDGES` times each time a piece comes or goes."""

    crossed: tuple[tuple[str, str], ...] = ()
    dead_chips: frozenset[int] = frozenset()
    chatter: frozenset[str] = frozenset()


CHATTER_EDGES = 5  # odd: a chattering reed still ends where the piece put it


class ReedBank:
    """One gpiozero DigitalInputDevice per reed channel, reporting spots."""

    def __init__(
        self,
        channels: Mapping[str, Channel],
        factories: PinFactories,
        on_edge: EdgeHandler,
        clock: Callable[[], float],
        pull_up: bool = True,
        faults: WiringFaults = WiringFaults(),
    ) -> None:
        from gpiozero import DigitalInputDevice
        from gpiozero.exc import PinInvalidPin

        self._devices: dict[str, Any] = {}
        self.channels = dict(channels)
        self.pull_up = pull_up
        self.faults = faults
        # Read at each edge, so that `smartboard check` can listen in on a bank already open.
        self.on_edge = on_edge
        try:
            for spot, channel in sorted(self.channels.items(), key=lambda item: item[1]):
                try:
                    device = DigitalInputDevice(
                        channel.line, pull_up=pull_up, pin_factory=factories(channel.chip)
                    )
                except PinInvalidPin as error:  # a line its chip lacks: a typo in the profile
                    raise ReedError(
                        f"the reed of {spot} (channel {channel}) cannot be opened: {error}; "
                        f"check its reed channel in the board profile"
                    ) from error
                device.when_activated = self._edge(spot, True, clock)
                device.when_deactivated = self._edge(spot, False, clock)
                self._devices[spot] = device
        except Exception:
            self.close()
            raise

    def read(self) -> dict[str, bool]:
        return {spot: bool(device.value) for spot, device in self._devices.items()}

    def drive(self, spot: str, occupied: bool) -> None:
        """Simulation only: put a piece on a spot or take it off, by driving its MockPin (the
        pin its wire really reaches, if `faults` crossed it)."""
        faults = self.faults
        for a, b in faults.crossed:
            if spot in (a, b):
                spot = b if spot == a else a
                break
        if self.channels[spot].chip in faults.dead_chips:
            return
        pin = self._devices[spot].pin
        # A reed closes against the pull: a piece pulls a pulled-up line low.
        levels = [occupied == self.pull_up]
        if spot in faults.chatter:
            levels = [levels[0] == (i % 2 == 0) for i in range(CHATTER_EDGES)]
        for low in levels:
            if low:
                pin.drive_low()
            else:
                pin.drive_high()

    def close(self) -> None:
        for device in self._devices.values():
            device.close()
        self._devices.clear()

    def _edge(self, spot: str, occupied: bool, clock: Callable[[], float]) -> Any:
        def handler() -> None:
            self.on_edge(spot, occupied, clock())

        return handler


class Debouncer:
    """A spot's state changes once its raw value has held still for `seconds`."""

    def __init__(self, seconds: float, initial: Mapping[str, bool]) -> None:
        if seconds < 0:
            raise ValueError(f"debounce time must not be negative: {seconds}")
        self.seconds = seconds
        self.stable = dict(initial)
        self._raw = dict(initial)
        self._deadline: dict[str, float] = {}

    def edge(self, spot: str, occupied: bool, at: float) -> None:
        self._raw[spot] = occupied
        self._deadline[spot] = at + self.seconds

    def next_deadline(self) -> float | None:
        return min(self._deadline.values(), default=None)

    def poll(self, now: float) -> list[tuple[str, bool, float]]:
        """Settled changes as (spot, occupied, time it settled), in order of settling."""
        changes = []
        for spot, deadline in sorted(self._deadline.items(), key=lambda item: item[1]):
            if deadline > now:
                continue
            del self._deadline[spot]
            if self._raw[spot] != self.stable.get(spot):
                self.stable[spot] = self._raw[spot]
                changes.append((spot, self._raw[spot], deadline))
        return changes

    def occupied(self) -> frozenset[str]:
        return frozenset(spot for spot, value in self.stable.items() if value)
