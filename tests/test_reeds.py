"""Reed switches (hardware/reeds.py): ReedBank on gpiozero mock pins and the software Debouncer."""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import DigitalInputDevice
from gpiozero.exc import GPIOPinInUse, PinFixedPull

from hardware.profile import Channel
from hardware.reeds import Debouncer, PinFactories, ReedBank, gpio_factories, mock_factories

CHANNELS = {"1.trap": Channel(2, 0), "5.ladybug": Channel(3, 5), "1.akuma": Channel(2, 7)}
DEBOUNCE = 0.030


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


Edge = tuple[str, bool, float]


class Harness:
    """A ReedBank on mock pins, recording the edges it reports."""

    def __init__(self, pull_up: bool = True, channels: dict[str, Channel] | None = None) -> None:
        self.factories = mock_factories()
        self.clock = FakeClock()
        self.edges: list[Edge] = []
        self.channels = dict(CHANNELS if channels is None else channels)
        self.bank = ReedBank(
            self.channels, self.factories, self.on_edge, self.clock, pull_up=pull_up
        )

    def on_edge(self, spot: str, occupied: bool, at: float) -> None:
        self.edges.append((spot, occupied, at))

    def pin(self, spot: str) -> Any:
        channel = self.channels[spot]
        return self.factories(channel.chip).pin(channel.line)


@pytest.fixture
def pulled_up() -> Iterator[Harness]:
    harness = Harness(pull_up=True)
    yield harness
    harness.bank.close()


@pytest.fixture
def pulled_down() -> Iterator[Harness]:
    harness = Harness(pull_up=False)
    yield harness
    harness.bank.close()


# Pin factories.


def test_mock_factories_give_one_factory_per_chip() -> None:
    factories = mock_factories()
    assert factories(2) is factories(2)
    assert factories(2) is not factories(3)
    # Line 5 of chip 2 and line 5 of chip 3 are different pins.
    assert factories(2).pin(5) is not factories(3).pin(5)


# ReedBank.


def test_bank_starts_empty_with_pulled_up_pins(pulled_up: Harness) -> None:
    assert pulled_up.bank.read() == dict.fromkeys(CHANNELS, False)
    assert pulled_up.pin("1.trap").state == 1
    assert pulled_up.pin("1.trap").pull == "up"
    assert pulled_up.edges == []


def test_pulled_up_pin_driven_low_reads_occupied(pulled_up: Harness) -> None:
    pulled_up.pin("5.ladybug").drive_low()
    assert pulled_up.bank.read() == {"1.trap": False, "5.ladybug": True, "1.akuma": False}
    pulled_up.pin("5.ladybug").drive_high()
    assert pulled_up.bank.read() == dict.fromkeys(CHANNELS, False)


def test_pulled_down_pin_driven_high_reads_occupied(pulled_down: Harness) -> None:
    assert pulled_down.pin("1.trap").pull == "down"
    assert pulled_down.bank.read() == dict.fromkeys(CHANNELS, False)
    pulled_down.pin("1.trap").drive_high()
    assert pulled_down.bank.read() == {"1.trap": True, "5.ladybug": False, "1.akuma": False}
    pulled_down.pin("1.trap").drive_low()
    assert pulled_down.bank.read()["1.trap"] is False


def test_channels_on_two_chips_are_independent(pulled_up: Harness) -> None:
    # 1.trap is line 0 of chip 2; line 0 of chip 3 is not a reed at all.
    pulled_up.factories(3).pin(0).drive_low()
    assert pulled_up.bank.read() == dict.fromkeys(CHANNELS, False)
    pulled_up.pin("1.trap").drive_low()
    assert pulled_up.bank.read()["1.trap"] is True
    assert pulled_up.bank.read()["5.ladybug"] is False


def test_on_edge_reports_each_edge_with_the_clock_time(pulled_up: Harness) -> None:
    harness = pulled_up
    harness.clock.now = 10.0
    harness.pin("1.trap").drive_low()
    harness.clock.now = 10.5
    harness.pin("5.ladybug").drive_low()
    harness.clock.now = 11.25
    harness.pin("1.trap").drive_high()
    assert harness.edges == [
        ("1.trap", True, 10.0),
        ("5.ladybug", True, 10.5),
        ("1.trap", False, 11.25),
    ]


def test_driving_a_pin_to_its_current_level_is_no_edge(pulled_up: Harness) -> None:
    pulled_up.pin("1.akuma").drive_high()  # already high: nothing happened
    assert pulled_up.edges == []
    pulled_up.pin("1.akuma").drive_low()
    pulled_up.pin("1.akuma").drive_low()
    assert pulled_up.edges == [("1.akuma", True, 100.0)]


def test_on_edge_with_pull_down(pulled_down: Harness) -> None:
    pulled_down.clock.now = 3.0
    pulled_down.pin("5.ladybug").drive_high()
    pulled_down.clock.now = 4.0
    pulled_down.pin("5.ladybug").drive_low()
    assert pulled_down.edges == [("5.ladybug", True, 3.0), ("5.ladybug", False, 4.0)]


@pytest.mark.parametrize("pull_up", [True, False])
def test_drive_sets_the_pin_against_the_pull(pull_up: bool) -> None:
    harness = Harness(pull_up=pull_up)
    try:
        harness.bank.drive("5.ladybug", True)
        assert harness.pin("5.ladybug").state == (0 if pull_up else 1)
        assert harness.bank.read()["5.ladybug"] is True
        assert harness.edges == [("5.ladybug", True, 100.0)]
        harness.bank.drive("5.ladybug", False)
        assert harness.pin("5.ladybug").state == (1 if pull_up else 0)
        assert harness.bank.read()["5.ladybug"] is False
        assert harness.edges[-1] == ("5.ladybug", False, 100.0)
        assert harness.bank.read()["1.trap"] is False
    finally:
        harness.bank.close()


def test_drive_unknown_spot_raises(pulled_up: Harness) -> None:
    with pytest.raises(KeyError):
        pulled_up.bank.drive("9.akuma", True)


def test_pins_are_reserved_while_the_bank_is_open(pulled_up: Harness) -> None:
    with pytest.raises(GPIOPinInUse):
        DigitalInputDevice(0, pin_factory=pulled_up.factories(2))


def test_close_releases_the_pins(pulled_up: Harness) -> None:
    harness = pulled_up
    harness.bank.close()
    assert harness.bank.read() == {}
    again = ReedBank(CHANNELS, harness.factories, harness.on_edge, harness.clock)
    try:
        harness.pin("1.akuma").drive_low()
        assert again.read()["1.akuma"] is True
        assert harness.edges == [("1.akuma", True, 100.0)]
    finally:
        again.close()
    harness.bank.close()  # closing twice is harmless


def test_closed_bank_reports_no_edges(pulled_up: Harness) -> None:
    pulled_up.bank.close()
    pulled_up.pin("1.trap").drive_low()
    assert pulled_up.edges == []


def test_failed_construction_releases_the_pins_already_claimed() -> None:
    factories = mock_factories()
    # 2:0 is taken by someone else, so the bank fails after claiming 1:4.
    blocker = DigitalInputDevice(0, pin_factory=factories(2))
    channels = {"a": Channel(1, 4), "b": Channel(2, 0)}
    edges: list[tuple[Any, ...]] = []
    with pytest.raises(GPIOPinInUse) as caught:
        ReedBank(channels, factories, lambda *edge: edges.append(edge), FakeClock())
    # The traceback keeps the half-built bank alive: its devices must be closed, not merely
    # left for the garbage collector.
    assert caught.traceback
    factories(1).pin(4).drive_low()
    assert edges == []
    DigitalInputDevice(4, pin_factory=factories(1)).close()
    blocker.close()
    bank = ReedBank(channels, factories, lambda *_: None, FakeClock())
    assert bank.read() == {"a": False, "b": False}
    bank.close()


def test_gpio_factories_leave_the_header_to_gpiozero() -> None:
    assert gpio_factories()(0) is None


def test_gpio_factories_without_lgpio_say_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # lgpio is not installed here; make sure of it even where it is.
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    with pytest.raises(RuntimeError, match=r"/dev/gpiochip2 need lgpio .*python3-lgpio"):
        gpio_factories()(2)


# Debouncer.


def test_negative_debounce_time_raises() -> None:
    with pytest.raises(ValueError, match="must not be negative"):
        Debouncer(-0.001, {})


def test_idle_debouncer_has_no_deadline() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": False})
    assert debouncer.next_deadline() is None
    assert debouncer.poll(1e9) == []
    assert debouncer.stable == {"a": False}
    assert debouncer.occupied() == frozenset()


def test_initial_state_is_stable() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": True, "b": False})
    assert debouncer.occupied() == frozenset({"a"})


def test_clean_edge_settles_exactly_after_the_debounce_time() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": False})
    debouncer.edge("a", True, 5.0)
    deadline = 5.0 + DEBOUNCE
    assert debouncer.next_deadline() == deadline
    assert debouncer.poll(5.0) == []
    assert debouncer.poll(math.nextafter(deadline, 0)) == []  # one ulp early
    assert debouncer.occupied() == frozenset()
    assert debouncer.poll(deadline) == [("a", True, deadline)]
    assert debouncer.occupied() == frozenset({"a"})
    assert debouncer.next_deadline() is None
    assert debouncer.poll(deadline + 1) == []


def test_late_poll_reports_the_settle_time_not_the_poll_time() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": True})
    debouncer.edge("a", False, 2.0)
    assert debouncer.poll(9.0) == [("a", False, 2.0 + DEBOUNCE)]
    assert debouncer.occupied() == frozenset()


def test_zero_debounce_settles_at_the_edge() -> None:
    debouncer = Debouncer(0, {"a": False})
    debouncer.edge("a", True, 1.5)
    assert debouncer.poll(math.nextafter(1.5, 0)) == []
    assert debouncer.poll(1.5) == [("a", True, 1.5)]


def test_bouncing_edge_yields_one_change_after_the_last_edge() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": False})
    times = [1.000, 1.003, 1.006, 1.009, 1.012]
    for value, at in zip([True, False, True, False, True], times, strict=True):
        debouncer.edge("a", value, at)
        assert debouncer.poll(at + 0.002) == []
    deadline = times[-1] + DEBOUNCE
    assert debouncer.next_deadline() == deadline
    # The first edge's deadline has passed, but the spot is still bouncing.
    assert debouncer.poll(times[0] + DEBOUNCE) == []
    assert debouncer.poll(math.nextafter(deadline, 0)) == []
    assert debouncer.poll(deadline) == [("a", True, deadline)]
    assert debouncer.poll(deadline + 1) == []
    assert debouncer.occupied() == frozenset({"a"})


def test_bounce_polled_only_at_the_end_still_yields_one_change() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": True})
    for value, at in [(False, 1.0), (True, 1.004), (False, 1.005), (True, 1.011), (False, 1.02)]:
        debouncer.edge("a", value, at)
    assert debouncer.poll(5.0) == [("a", False, 1.02 + DEBOUNCE)]


def test_glitch_back_to_the_stable_value_is_no_change() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": False})
    debouncer.edge("a", True, 1.0)
    debouncer.edge("a", False, 1.004)
    assert debouncer.next_deadline() == 1.004 + DEBOUNCE
    assert debouncer.poll(1.004 + DEBOUNCE) == []
    assert debouncer.poll(10.0) == []
    assert debouncer.next_deadline() is None
    assert debouncer.stable == {"a": False}
    assert debouncer.occupied() == frozenset()


def test_spots_settle_independently_and_in_order() -> None:
    debouncer = Debouncer(DEBOUNCE, {"zeta": False, "alpha": False, "mid": True})
    debouncer.edge("zeta", True, 1.000)
    debouncer.edge("alpha", True, 1.010)
    debouncer.edge("mid", False, 1.020)
    # alpha bouncing does not delay zeta.
    debouncer.edge("alpha", False, 1.015)
    debouncer.edge("alpha", True, 1.025)
    assert debouncer.next_deadline() == 1.000 + DEBOUNCE
    assert debouncer.poll(1.000 + DEBOUNCE) == [("zeta", True, 1.000 + DEBOUNCE)]
    assert debouncer.next_deadline() == 1.020 + DEBOUNCE
    assert debouncer.poll(1.020 + DEBOUNCE) == [("mid", False, 1.020 + DEBOUNCE)]
    assert debouncer.poll(1.025 + DEBOUNCE) == [("alpha", True, 1.025 + DEBOUNCE)]
    assert debouncer.occupied() == frozenset({"zeta", "alpha"})


def test_one_poll_returns_changes_in_order_of_settling() -> None:
    debouncer = Debouncer(DEBOUNCE, {"a": False, "b": False, "c": False})
    debouncer.edge("c", True, 1.0)
    debouncer.edge("a", True, 1.2)
    debouncer.edge("b", True, 1.1)
    changes = debouncer.poll(2.0)
    assert [spot for spot, _, _ in changes] == ["c", "b", "a"]
    assert [at for _, _, at in changes] == sorted(at for _, _, at in changes)


def test_edge_on_a_spot_not_in_the_initial_state() -> None:
    debouncer = Debouncer(DEBOUNCE, {})
    debouncer.edge("new", True, 1.0)
    assert debouncer.poll(1.0 + DEBOUNCE) == [("new", True, 1.0 + DEBOUNCE)]
    assert debouncer.occupied() == frozenset({"new"})


# ReedBank and Debouncer together, on mock pins and a fake clock.


@pytest.mark.parametrize("pull_up", [True, False])
def test_bouncing_pins_feed_the_debouncer_one_settled_change(pull_up: bool) -> None:
    factories: PinFactories = mock_factories()
    clock = FakeClock(50.0)
    debouncer = Debouncer(DEBOUNCE, dict.fromkeys(CHANNELS, False))
    raw: list[Edge] = []

    def on_edge(spot: str, occupied: bool, at: float) -> None:
        raw.append((spot, occupied, at))
        debouncer.edge(spot, occupied, at)

    bank = ReedBank(CHANNELS, factories, on_edge, clock, pull_up=pull_up)
    try:
        assert debouncer.stable == bank.read()
        pin = factories(3).pin(5)  # 5.ladybug
        close, open_ = (
            (pin.drive_low, pin.drive_high) if pull_up else (pin.drive_high, pin.drive_low)
        )
        for step in [close, open_, close, open_, close, open_, close]:
            step()
            clock.advance(0.002)
            assert debouncer.poll(clock()) == []
        last_edge = raw[-1][2]
        assert len(raw) == 7
        assert [occupied for _, occupied, _ in raw] == [True, False] * 3 + [True]
        assert last_edge == pytest.approx(50.012)
        deadline = last_edge + DEBOUNCE
        assert debouncer.next_deadline() == deadline
        clock.now = math.nextafter(deadline, 0)
        assert debouncer.poll(clock()) == []
        clock.now = deadline
        assert debouncer.poll(clock()) == [("5.ladybug", True, deadline)]
        clock.advance(1.0)
        assert debouncer.poll(clock()) == []
        assert debouncer.occupied() == frozenset({"5.ladybug"})
        assert debouncer.stable == bank.read()
    finally:
        bank.close()


def test_piece_lifted_and_put_back_within_the_window_is_not_reported() -> None:
    factories = mock_factories()
    clock = FakeClock(0.0)
    debouncer = Debouncer(DEBOUNCE, dict.fromkeys(CHANNELS, False))
    bank = ReedBank(CHANNELS, factories, debouncer.edge, clock)
    try:
        bank.drive("1.akuma", True)
        clock.advance(1.0)
        assert debouncer.poll(clock()) == [("1.akuma", True, DEBOUNCE)]
        bank.drive("1.akuma", False)
        clock.advance(0.010)
        bank.drive("1.akuma", True)
        clock.advance(1.0)
        assert debouncer.poll(clock()) == []
        assert debouncer.occupied() == frozenset({"1.akuma"})
    finally:
        bank.close()


# gpiozero's RPi.GPIO factory on fake-rpi's RPi.GPIO stub.

# Modules that must come back as they were: fake_rpi's stand-ins and gpiozero's RPi.GPIO module,
# which binds `GPIO` at import and so must be imported afresh against the fake.
_RPI_MODULES = ("RPi", "RPi.GPIO", "gpiozero.pins.rpigpio")


@pytest.fixture
def fake_rpi_gpio(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """fake_rpi's RPi.GPIO installed in sys.modules; yields the fake GPIO object."""
    saved = {name: sys.modules.get(name) for name in _RPI_MODULES}
    import fake_rpi  # type: ignore[import-untyped]

    fake_rpi.toggle_print(False)
    monkeypatch.setenv("GPIOZERO_PI_REVISION", "a02082")
    sys.modules.pop("gpiozero.pins.rpigpio", None)
    sys.modules["RPi"] = fake_rpi.RPi
    sys.modules["RPi.GPIO"] = fake_rpi.RPi.GPIO
    gpio = fake_rpi.RPi.GPIO
    saved_inputs = list(gpio._inputs)
    try:
        yield gpio
    finally:
        gpio._inputs[:] = saved_inputs
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@pytest.fixture
def rpigpio_factory(fake_rpi_gpio: Any) -> Iterator[Any]:
    from gpiozero.pins.rpigpio import RPiGPIOFactory

    factory = RPiGPIOFactory()
    # gpiozero 2.0.1 reads the Pi's revision from /proc only (GPIOZERO_PI_REVISION is not
    # consulted by the local factories), so give it the revision of a Pi 3B.
    factory._get_revision = lambda: 0xA02082
    yield factory
    factory.close()


def test_fake_rpi_lets_gpiozero_build_its_rpigpio_factory(rpigpio_factory: Any) -> None:
    assert type(rpigpio_factory).__name__ == "RPiGPIOFactory"
    assert rpigpio_factory.board_info.revision == "a02082"


def test_fake_rpi_says_every_pin_is_an_output_so_reed_inputs_fail(
    rpigpio_factory: Any,
) -> None:
    # fake_rpi's gpio_function() always answers OUT, so gpiozero refuses to set the pull of
    # an input. The bank must fail cleanly, releasing the mock pin it had already claimed.
    mock = mock_factories()
    factories = {0: mock(0), 1: rpigpio_factory}
    channels = {"mocked": Channel(0, 4), "header": Channel(1, 17)}
    edges: list[tuple[Any, ...]] = []
    with pytest.raises(PinFixedPull, match="cannot set pull on non-input pin GPIO17") as caught:
        ReedBank(channels, lambda chip: factories[chip], lambda *e: edges.append(e), FakeClock())
    assert caught.traceback  # keeps the half-built bank alive
    mock(0).pin(4).drive_low()
    assert edges == []
    DigitalInputDevice(4, pin_factory=mock(0)).close()  # released


def test_reed_bank_on_rpigpio_pins_with_inputs_reported_as_inputs(
    rpigpio_factory: Any, fake_rpi_gpio: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With gpio_function() patched to tell the truth, the fake is enough for real pins.
    monkeypatch.setattr(fake_rpi_gpio, "gpio_function", lambda channel: fake_rpi_gpio.IN)
    fake_rpi_gpio.set_input(17, 1)
    fake_rpi_gpio.set_input(27, 0)
    edges: list[Edge] = []
    bank = ReedBank(
        {"a": Channel(0, 17), "b": Channel(0, 27)},
        lambda chip: rpigpio_factory,
        lambda *edge: edges.append(edge),
        FakeClock(8.0),
    )
    try:
        assert bank.read() == {"a": False, "b": True}  # pulled up: low is occupied
        fake_rpi_gpio.set_input(17, 0)
        assert bank.read() == {"a": True, "b": True}
        # RPi.GPIO's event thread would call this; fake_rpi drops the callback.
        bank._devices["a"].pin._call_when_changed(17)
        assert edges == [("a", True, 8.0)]
    finally:
        bank.close()
