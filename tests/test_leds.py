"""LED output (hardware/leds.py): brightness cap, power budget, SimStrip and NeoPixelStrip."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import time
import types
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from hardware.leds import (
    MA_PER_CHANNEL,
    RGB,
    Frame,
    NeoPixelStrip,
    SimStrip,
    frame_current_ma,
    limit_frame,
)

WHITE: RGB = (255, 255, 255)
BLACK: RGB = (0, 0, 0)


def white(count: int) -> Frame:
    return (WHITE,) * count


# frame_current_ma and limit_frame.


def test_full_white_led_draws_sixty_milliamps() -> None:
    assert MA_PER_CHANNEL == 20.0
    assert frame_current_ma([WHITE]) == pytest.approx(60.0)
    assert frame_current_ma(white(63)) == pytest.approx(63 * 60.0)
    assert frame_current_ma([(255, 0, 0), (0, 255, 0)]) == pytest.approx(40.0)
    assert frame_current_ma([BLACK] * 10) == 0
    assert frame_current_ma([]) == 0


def test_brightness_cap_halves_full_white() -> None:
    result = limit_frame(white(10), 0.5, 0)
    assert result == ((127, 127, 127),) * 10


def test_brightness_cap_scales_each_channel() -> None:
    result = limit_frame([(200, 100, 0), (10, 255, 3)], 0.5, 0)
    assert result == ((100, 50, 0), (5, 127, 1))


def test_full_cap_and_no_budget_leave_the_frame_alone() -> None:
    frame = ((1, 2, 3), WHITE, (0, 128, 255))
    assert limit_frame(frame, 1.0, 0) == frame


def test_zero_cap_blanks() -> None:
    assert limit_frame(white(4), 0.0, 0) == (BLACK,) * 4


def test_result_is_a_tuple_frame_of_ints() -> None:
    result = limit_frame([WHITE], 0.35, 2000)
    assert isinstance(result, tuple)
    assert result == ((89, 89, 89),)
    assert all(type(channel) is int for rgb in result for channel in rgb)


@pytest.mark.parametrize(
    ("count", "cap", "budget"),
    [
        (63, 1.0, 500),
        (63, 0.35, 500),
        (63, 0.35, 1000),
        (1, 1.0, 50),
        (10, 1.0, 100),
        (300, 0.8, 2000),
        (300, 1.0, 60),
    ],
)
def test_over_budget_frame_is_scaled_under_budget(count: int, cap: float, budget: float) -> None:
    frame = white(count)
    assert frame_current_ma(frame) * cap > budget  # the cap alone is not enough
    result = limit_frame(frame, cap, budget)
    assert len(result) == count
    drawn = frame_current_ma(result)
    assert drawn <= budget
    # Scaled down to the budget, not blanked: within one step of 8-bit rounding per LED.
    assert drawn > budget - count * 3 * MA_PER_CHANNEL / 255
    assert len(set(result)) == 1  # every LED dimmed alike


def test_over_budget_keeps_colour_proportions() -> None:
    frame = [(255, 128, 0)] * 63 + [(0, 0, 255)]
    result = limit_frame(frame, 1.0, 500)
    assert frame_current_ma(result) <= 500
    r, g, b = result[0]
    assert b == 0
    assert g == pytest.approx(r * 128 / 255, abs=1)
    assert result[-1][:2] == (0, 0)
    assert result[-1][2] >= r - 1  # the blue LED dimmed by the same factor as the red


def test_mixed_frame_over_budget() -> None:
    frame = [WHITE, BLACK, (255, 0, 0)] * 40
    budget = 700
    assert frame_current_ma(frame) > budget
    assert frame_current_ma(limit_frame(frame, 1.0, budget)) <= budget


def test_under_budget_frame_is_only_capped() -> None:
    frame = white(63)  # 3780 mA at full; 1323 mA at cap 0.35
    result = limit_frame(frame, 0.35, 2000)
    assert result == ((89, 89, 89),) * 63
    assert result == limit_frame(frame, 0.35, 0)


def test_frame_exactly_at_budget_is_not_dimmed() -> None:
    assert limit_frame(white(10), 1.0, 600) == white(10)


def test_zero_budget_means_no_budget() -> None:
    frame = white(300)  # 18 A
    assert limit_frame(frame, 1.0, 0) == frame
    assert limit_frame(frame, 0.5, 0) == ((127, 127, 127),) * 300


def test_empty_frame() -> None:
    assert limit_frame([], 0.5, 100) == ()


# SimStrip.


def test_sim_strip_records_frames_in_order_with_monotonic_times() -> None:
    strip = SimStrip(3)
    frames = [
        ((1, 2, 3), BLACK, WHITE),
        (BLACK, BLACK, BLACK),
        ((9, 9, 9), (8, 8, 8), (7, 7, 7)),
    ]
    before = time.monotonic()
    for frame in frames:
        strip.show(frame)
    after = time.monotonic()
    assert strip.writes == 3
    assert [frame for _, frame in strip.frames] == frames
    stamps = [at for at, _ in strip.frames]
    assert stamps == sorted(stamps)
    assert before <= stamps[0] and stamps[-1] <= after
    assert strip.last == frames[-1]


def test_sim_strip_times_come_from_the_monotonic_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = iter([10.0, 10.25])
    fake_time = types.SimpleNamespace(monotonic=lambda: next(ticks))
    monkeypatch.setattr("hardware.leds.time", fake_time)
    strip = SimStrip(1)
    strip.show((WHITE,))
    strip.show((BLACK,))
    assert list(strip.frames) == [(10.0, (WHITE,)), (10.25, (BLACK,))]


@pytest.mark.parametrize("length", [0, 2, 4])
def test_sim_strip_rejects_a_frame_of_the_wrong_length(length: int) -> None:
    strip = SimStrip(3)
    strip.show(white(3))
    with pytest.raises(ValueError, match=f"frame has {length} LEDs, the strip 3"):
        strip.show(white(length))
    assert strip.writes == 1
    assert len(strip.frames) == 1
    assert strip.last == white(3)


def test_sim_strip_keeps_only_the_latest_frames() -> None:
    strip = SimStrip(1, keep=2)
    assert strip.last is None
    for level in range(5):
        strip.show(((level, level, level),))
    assert strip.writes == 5
    assert [frame for _, frame in strip.frames] == [((3, 3, 3),), ((4, 4, 4),)]
    strip.close()
    assert strip.last == ((4, 4, 4),)


# NeoPixelStrip.


def test_neopixel_strip_without_the_pi_extra() -> None:
    # Neither Blinka's `board` nor `neopixel` is installed here.
    for name in ("board", "neopixel"):
        if name not in sys.modules:
            with pytest.raises(ImportError):
                __import__(name)
    with pytest.raises(RuntimeError, match=r"needs a Raspberry Pi with the 'pi' extra"):
        NeoPixelStrip(63, "D10")


@pytest.mark.parametrize("missing", ["board", "neopixel"])
def test_neopixel_strip_when_a_module_cannot_be_imported(
    monkeypatch: pytest.MonkeyPatch, fake_neopixel: FakeNeoPixelModules, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)
    with pytest.raises(RuntimeError) as caught:
        NeoPixelStrip(63, "D10")
    message = str(caught.value)
    assert "'pi' extra" in message
    assert "pip install 'smartboard[pi]'" in message
    assert missing in message  # the ImportError's text says which module
    assert isinstance(caught.value.__cause__, ImportError)
    assert fake_neopixel.pixels == []


class _Refuse(importlib.abc.MetaPathFinder):
    """Imports `board` the way Blinka does off a Pi: by raising NotImplementedError."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == "board":
            raise NotImplementedError("Board not supported generic_x86_64")
        return None


def test_neopixel_strip_off_a_pi(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "board", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Refuse(), *sys.meta_path])
    with pytest.raises(RuntimeError, match=r"'pi' extra.*Board not supported"):
        NeoPixelStrip(63, "D10")


class FakePixels:
    """Records what NeoPixelStrip does to an adafruit NeoPixel object."""

    def __init__(self, pin: Any, count: int, **kwargs: Any) -> None:
        self.pin = pin
        self.count = count
        self.kwargs = kwargs
        self.buffer: list[RGB] = [BLACK] * count
        self.calls: list[tuple[str, Any]] = []

    def __setitem__(self, index: slice, value: Sequence[RGB]) -> None:
        self.calls.append(("set", (index, tuple(value))))
        self.buffer[index] = list(value)

    def fill(self, colour: RGB) -> None:
        self.calls.append(("fill", colour))
        self.buffer = [colour] * self.count

    def show(self) -> None:
        self.calls.append(("show", tuple(self.buffer)))

    def deinit(self) -> None:
        self.calls.append(("deinit", None))


class FakeNeoPixelModules:
    def __init__(self) -> None:
        self.board = types.ModuleType("board")
        self.d10 = object()
        self.d18 = object()
        self.board.D10 = self.d10  # type: ignore[attr-defined]
        self.board.D18 = self.d18  # type: ignore[attr-defined]
        self.neopixel = types.ModuleType("neopixel")
        self.pixels: list[FakePixels] = []

        def make(pin: Any, count: int, **kwargs: Any) -> FakePixels:
            pixels = FakePixels(pin, count, **kwargs)
            self.pixels.append(pixels)
            return pixels

        self.neopixel.NeoPixel = make  # type: ignore[attr-defined]
        self.neopixel.RGB = "RGB"  # type: ignore[attr-defined]
        self.neopixel.GRB = "GRB"  # type: ignore[attr-defined]


@pytest.fixture
def fake_neopixel(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeNeoPixelModules]:
    fake = FakeNeoPixelModules()
    monkeypatch.setitem(sys.modules, "board", fake.board)
    monkeypatch.setitem(sys.modules, "neopixel", fake.neopixel)
    yield fake


@pytest.mark.parametrize("order", ["GRB", "RGB"])
def test_neopixel_strip_opens_the_pixels(fake_neopixel: FakeNeoPixelModules, order: str) -> None:
    NeoPixelStrip(63, "D10", pixel_order=order)
    (pixels,) = fake_neopixel.pixels
    assert pixels.pin is fake_neopixel.d10
    assert pixels.count == 63
    assert pixels.kwargs == {"brightness": 1.0, "auto_write": False, "pixel_order": order}
    assert pixels.calls == []


def test_neopixel_strip_default_order_is_grb(fake_neopixel: FakeNeoPixelModules) -> None:
    NeoPixelStrip(3, "D18")
    (pixels,) = fake_neopixel.pixels
    assert pixels.pin is fake_neopixel.d18
    assert pixels.kwargs["pixel_order"] == "GRB"


def test_neopixel_strip_shows_whole_frames(fake_neopixel: FakeNeoPixelModules) -> None:
    strip = NeoPixelStrip(3, "D10")
    (pixels,) = fake_neopixel.pixels
    first: Frame = ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    second: Frame = (WHITE, BLACK, (0, 0, 1))
    strip.show(first)
    strip.show(second)
    assert pixels.calls == [
        ("set", (slice(None), first)),
        ("show", first),
        ("set", (slice(None), second)),
        ("show", second),
    ]


def test_neopixel_strip_close_blanks_then_deinits(fake_neopixel: FakeNeoPixelModules) -> None:
    strip = NeoPixelStrip(2, "D10")
    (pixels,) = fake_neopixel.pixels
    strip.show((WHITE, WHITE))
    pixels.calls.clear()
    strip.close()
    assert pixels.calls == [("fill", BLACK), ("show", (BLACK, BLACK)), ("deinit", None)]


@pytest.mark.parametrize("pin", ["D99", "d10", "GPIO10", ""])
def test_neopixel_strip_unknown_pin(fake_neopixel: FakeNeoPixelModules, pin: str) -> None:
    with pytest.raises(RuntimeError) as caught:
        NeoPixelStrip(63, pin)
    message = str(caught.value)
    assert f"no pin {pin!r} on this board" in message
    assert "D10" in message and "D18" in message
    assert fake_neopixel.pixels == []
