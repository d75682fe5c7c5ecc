"""LED output: NeoPixels on a Pi, or a simulated strip that records its frames.

Both backends get frames already limited by `limit_frame`, so the power budget holds alike in
simulation and on the table.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

RGB = tuple[int, int, int]
Frame = tuple[RGB, ...]
# A WS2812 draws about 20 mA per colour channel at full duty (60 mA at full white).
MA_PER_CHANNEL = 20.0


class LedStrip(Protocol):
    def show(self, frame: Frame) -> None: ...

    def close(self) -> None: ...


def limit_frame(frame: Sequence[RGB], brightness_cap: float, budget_ma: float) -> Frame:
    """Scale a frame by the brightness cap, then further if it would draw more than the budget."""
    scale = brightness_cap
    drawn = frame_current_ma(frame) * scale
    if drawn > budget_ma > 0:
        scale *= budget_ma / drawn
    return tuple((int(r * scale), int(g * scale), int(b * scale)) for r, g, b in frame)


def frame_current_ma(frame: Sequence[RGB]) -> float:
    return sum(sum(rgb) for rgb in frame) / 255 * MA_PER_CHANNEL


class SimStrip:
    """Records each frame written, with its monotonic time, for tests and benchmarks. `stuck`
    (simulation of a faulty strip, for `smartboard check`): LEDs that show their colour there
    whatever the frame says; (0, 0, 0) is a dead LED."""

    def __init__(
        self, count: int, keep: int = 1000, stuck: Mapping[int, RGB] | None = None
    ) -> None:
        self.count = count
        self.frames: deque[tuple[float, Frame]] = deque(maxlen=keep)
        self.writes = 0
        self.stuck = dict(stuck or {})

    def show(self, frame: Frame) -> None:
        if len(frame) != self.count:
            raise ValueError(f"frame has {len(frame)} LEDs, the strip {self.count}")
        if self.stuck:
            frame = tuple(self.stuck.get(i, rgb) for i, rgb in enumerate(frame))
        self.frames.append((time.monotonic(), frame))
        self.writes += 1

    @property
    def last(self) -> Frame | None:
        return self.frames[-1][1] if self.frames else None

    def close(self) -> None:
        pass


class NeoPixelStrip:
    """WS2812 LEDs through adafruit-circuitpython-neopixel (Blinka); only importable on a Pi."""

    def __init__(self, count: int, pin: str, pixel_order: str = "GRB") -> None:
        try:
            import board
            import neopixel
        except (ImportError, NotImplementedError, RuntimeError) as error:
            raise RuntimeError(
                "the neopixel LED backend needs a Raspberry Pi with the 'pi' extra installed "
                f"(pip install 'smartboard[pi]'): {error}"
            ) from error
        if not hasattr(board, pin):
            raise RuntimeError(f"no pin {pin!r} on this board; SPI mode uses D10, PWM mode D18")
        self._pixels: Any = neopixel.NeoPixel(
            getattr(board, pin),
            count,
            brightness=1.0,  # the cap is applied by limit_frame, the same in simulation
            auto_write=False,
            pixel_order=getattr(neopixel, pixel_order),
        )

    def show(self, frame: Frame) -> None:
        self._pixels[:] = frame
        self._pixels.show()

    def close(self) -> None:
        self._pixels.fill((0, 0, 0))
        self._pixels.show()
        self._pixels.deinit()
