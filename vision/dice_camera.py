"""The camera as the dice source: frames read in the tray and settled into rolls.

Everything runs on the camera's thread, so a slow reader only makes frames come less often;
the daemon gets settled rolls and status changes through the handlers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from vision.camera_watch import CameraStatus, StatusHandler, WatchedCamera
from vision.dice_reader import DiceReader
from vision.dice_settle import DiceSettler, SettledRoll
from vision.die import Die
from vision.frame_sources import FrameSource, Image

log = logging.getLogger(__name__)

RollHandler = Callable[[SettledRoll], None]


class DiceCamera:
    def __init__(
        self,
        source: FrameSource,
        reader: DiceReader,
        settler: DiceSettler,
        on_roll: RollHandler,
        on_status: StatusHandler,
        fps: float,
        retry_s: float,
        retry_max_s: float,
        tray: ArrayLike | None = None,
    ) -> None:
        """`tray`: the tray's polygon in the camera's pixels; None reads the whole frame."""
        self.reader = reader
        self.settler = settler
        self.on_roll = on_roll
        self.tray = tray
        self.camera = WatchedCamera(source, self.frame, fps, retry_s, retry_max_s, on_status)
        self._lock = threading.Lock()
        self._seen: list[Die] = []

    @property
    def status(self) -> CameraStatus:
        return self.camera.status

    @property
    def seen(self) -> list[Die]:
        """The dice of the latest frame, still or not."""
        with self._lock:
            return list(self._seen)

    def frame(self, image: Image) -> None:
        try:
            dice = self.reader.read(np.asarray(image, np.uint8), self.tray)
        except ValueError as error:  # a frame of the wrong shape: skip it, like a blurred one
            log.warning("dice camera: %s", error)
            return
        with self._lock:
            self._seen = dice
        roll = self.settler.feed(dice)
        if roll is not None:
            self.on_roll(roll)

    def start(self) -> None:
        self.camera.start()

    def close(self) -> None:
        self.camera.close()
