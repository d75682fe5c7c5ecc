"""The one camera over the table: each frame read for the dice in the tray and for the board.

A Pi has one camera, so one `WatchedCamera` thread feeds every reader. Everything runs on that
thread, so a slow reader only makes frames come less often; the daemon gets settled rolls, boards
and status changes through the handlers.

- **The tray** is read with the reader of the kind of die the game wants now (`want`): the d6
  reader, or a learned icon-dice model (the Miraculous die, the d12). Dice at rest are settled
  into rolls (`DiceSettler`), their faces given as the game names them. When the camera fails,
  the settler is told it lost sight of the tray: the dice lying there once it sees again (after
  a reconnect) are not a new roll.
- **The board** is read by a `BoardReader` (vision/table_reader.py) into a frame of tokens for
  the daemon's `FrameSettler`; a frame with an unsure spot is skipped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

import numpy as np
from numpy.typing import ArrayLike

from vision.board_camera import HIDDEN, Board, FrameHandler
from vision.camera_watch import CameraStatus, StatusHandler, WatchedCamera
from vision.dice_settle import DiceSettler, SeenDie, SettledRoll
from vision.dice_sources import Face
from vision.die import Die
from vision.frame_sources import FrameSource
from vision.frame_sources import Image as Frame
from vision.image_files import Image
from vision.table_reader import BoardReader, BoardReading

if TYPE_CHECKING:
    from vision.icon_dice import IconReader

log = logging.getLogger(__name__)

RollHandler = Callable[[SettledRoll], None]
FPS_FRAMES = 20
"""The frame rate is measured over this many frames."""


class TrayReader(Protocol):
    """Reads one kind of die in a picture, or in a polygon of it (`DiceReader`, `IconTray`)."""

    def read(self, image: Image, region: ArrayLike | None = None) -> Sequence[SeenDie]: ...


class IconTray:
    """A learned icon-dice reader in the tray: each die's value is its face's label."""

    def __init__(self, reader: IconReader) -> None:
        self.reader = reader

    def read(self, image: Image, region: ArrayLike | None = None) -> list[Die]:
        return [Die(d.face, d.box, d.confidence) for d in self.reader.read(image, region)]


class TrayDice:
    """The dice thrown in the tray, read with the reader of the kind the game wants."""

    def __init__(
        self,
        readers: Mapping[str, TrayReader],
        settler: Callable[[], DiceSettler],
        on_roll: RollHandler,
        tray: ArrayLike | None = None,
    ) -> None:
        """`readers`: kind -> reader, the first read until the game wants another; `settler`
        makes the settler of each kind, the first time it is read; `tray`: its polygon in
        pixels, None for the whole frame."""
        if not readers:
            raise ValueError("a tray needs a reader for at least one kind of die")
        self.readers = dict(readers)
        self.make_settler = settler
        self.on_roll = on_roll
        self.tray = tray
        self._lock = threading.Lock()
        self._kind: str | None = next(iter(self.readers))
        self._faces: dict[str, Face] | None = None
        self._settlers: dict[str, DiceSettler] = {}
        self._seen: list[Die] = []

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.readers)

    @property
    def seen(self) -> list[Die]:
        """The dice of the latest frame, still or not."""
        with self._lock:
            return list(self._seen)

    def want(self, kind: str | None, faces: Sequence[Face] = ()) -> None:
        """The game now wants dice of `kind` with these faces; None: no dice in particular (a
        throw may still tell a choice, AK-3), so the first kind, its faces as read.

        A kind without a reader is typed in: the tray is not read meanwhile. Each kind has its
        own settler, so dice left lying are read as a kind wanted for the first time, but a
        kind wanted again does not read the roll it reported before (dice left lying while the
        game wanted another kind) a second time.
        """
        chosen = next(iter(self.readers)) if kind is None else kind
        with self._lock:
            self._kind = chosen if chosen in self.readers else None
            self._faces = None if kind is None else {str(face): face for face in faces}

    def lost_sight(self) -> None:
        """The camera failed: what it sees lying in the tray when it is back is no new roll."""
        with self._lock:
            settlers = list(self._settlers.values())
            self._seen = []
        for settler in settlers:
            settler.lost_sight()

    def frame(self, image: Image) -> None:
        with self._lock:
            kind, faces = self._kind, self._faces
            if kind is None:
                self._seen = []
                return
            settler = self._settlers.get(kind)
            if settler is None:
                settler = self._settlers[kind] = self.make_settler()
        try:
            found = self.readers[kind].read(image, self.tray)
        except ValueError as error:  # a frame of the wrong shape: skip it, like a blurred one
            log.warning("dice camera: %s", error)
            return
        dice = []
        for die in found:
            # A face the game does not name (another kind's die read by mistake) is no die of it.
            value = die.value if faces is None else faces.get(str(die.value))
            if value is not None:
                x, y, w, h = (int(v) for v in die.box)
                dice.append(Die(value, (x, y, w, h), die.confidence, _named(die.faces, faces)))
        with self._lock:
            self._seen = dice
        roll = settler.feed(dice)
        if roll is not None:
            # An uncertain roll keeps its frame, for the players to see what the reader saw.
            self.on_roll(roll if roll.certain else replace(roll, frame=image))


def _named(
    faces: Sequence[tuple[Face, float]], names: Mapping[str, Face] | None
) -> tuple[tuple[Face, float], ...]:
    """A die's faces as the game names them, those it does not name left out."""
    if names is None:
        return tuple(faces)
    return tuple((names[str(face)], p) for face, p in faces if str(face) in names)


class BoardFrames:
    """The board read from each frame and handed on, unless a spot reads unsure: then
    `on_unsure` hears of it, once until the reading changes. Spots unsure only because something
    stands over a piece there (`BoardReading.hidden`) are handed on as `HIDDEN`: whoever knows
    what stands there (a pawn on a reed) says what lies under it."""

    def __init__(
        self,
        reader: BoardReader,
        on_frame: FrameHandler,
        on_unsure: Callable[[BoardReading], None] | None = None,
    ) -> None:
        self.reader = reader
        self.on_frame = on_frame
        self.on_unsure = on_unsure
        self._lock = threading.Lock()
        self._seen: BoardReading | None = None
        self._problem = ""

    @property
    def unsure(self) -> tuple[str, ...]:
        """The spots read unsure in the latest frame, but for those merely hidden."""
        with self._lock:
            return () if self._seen is None else self._seen.doubtful

    @property
    def seen(self) -> Board:
        """The board as the latest frame shows it, sure or not, unsure spots marked "?"."""
        with self._lock:
            reading = self._seen
        if reading is None:
            return {}
        return {**reading.board, **dict.fromkeys(reading.unsure, "?")}

    def frame(self, image: Image) -> None:
        try:
            reading = self.reader.read(image)
        except ValueError as error:  # say so once, not at every frame
            if str(error) != self._problem:
                log.warning("board camera: %s", error)
                self._problem = str(error)
            return
        self._problem = ""
        with self._lock:
            before, self._seen = self._seen, reading
        if set(reading.unsure) <= set(reading.hidden):
            self.on_frame(reading.board | dict.fromkeys(reading.hidden, HIDDEN))
        elif self.on_unsure is not None and reading != before:
            self.on_unsure(reading)


class TableCamera:
    """One camera feeding the tray's dice, the board, or both."""

    def __init__(
        self,
        source: FrameSource,
        on_status: StatusHandler,
        fps: float,
        retry_s: float,
        retry_max_s: float,
        dice: TrayDice | None = None,
        board: BoardFrames | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.dice = dice
        self.board = board
        self.on_status = on_status
        self.camera = WatchedCamera(
            source, self.frame, fps, retry_s, retry_max_s, self._status, clock=clock
        )
        self.source = source
        self._lock = threading.Lock()
        self._latest: tuple[Image, list[Die]] | None = None
        self._times: deque[float] = deque(maxlen=FPS_FRAMES)
        self._clock = clock

    @property
    def status(self) -> CameraStatus:
        return self.camera.status

    @property
    def fps(self) -> float | None:
        """Frames a second lately, None before two frames or after two seconds with none."""
        with self._lock:
            times = list(self._times)
        if len(times) < 2 or self._clock() - times[-1] > 2.0:
            return None
        return round((len(times) - 1) / max(times[-1] - times[0], 1e-6), 1)

    @property
    def exposure_us(self) -> float | None:
        """The latest frame's exposure in microseconds, if its source tells."""
        exposure = getattr(self.source, "exposure_us", None)
        return None if exposure is None else float(exposure)

    @property
    def dice_kinds(self) -> tuple[str, ...]:
        """The kinds of dice whose rolls it reads in the tray."""
        return () if self.dice is None else self.dice.kinds

    @property
    def seen(self) -> list[Die]:
        """The dice in the tray in the latest frame, still or not."""
        return [] if self.dice is None else self.dice.seen

    @property
    def latest(self) -> tuple[Image, list[Die]] | None:
        """The latest frame read and its dice, None before the first."""
        with self._lock:
            return self._latest

    def _status(self, status: CameraStatus) -> None:
        if status.state == "retrying" and self.dice is not None:
            self.dice.lost_sight()
        self.on_status(status)

    def frame(self, image: Frame) -> None:
        frame: Image = np.asarray(image, np.uint8)
        if self.dice is not None:
            self.dice.frame(frame)
        if self.board is not None:
            self.board.frame(frame)
        with self._lock:
            self._latest = (frame, self.seen)
            self._times.append(self._clock())

    def start(self) -> None:
        self.camera.start()

    def close(self) -> None:
        self.camera.close()
