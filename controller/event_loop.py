"""The daemon's events: what the other threads put on its queue, and the loop's waiting for them.

gpiozero callbacks, camera frames, the control socket, the dashboard and the bots run on threads
of their own and only put events here: the daemon's loop alone touches the session. It sleeps
until the next event or deadline (a debounce, the settle time, a blink, a watchdog ping).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from typing import Any

from controller.notify import notify, watchdog_interval
from controller.requests import Reply
from controller.rules.api import JSON
from vision.board_camera import Board
from vision.camera_watch import CameraStatus
from vision.dice_settle import SettledRoll
from vision.dice_sources import DiceReading
from vision.table_reader import BoardReading

Event = tuple[Any, ...]
"""The kind of event first ("edge", "frame", "unsure", "camera", "roll", "dice", "thought",
"room", "control", "stop"), then what it carries."""


class Events:
    """The daemon's queue: filled from any thread, emptied by the loop alone."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Event] = queue.Queue()

    # -- any thread -----------------------------------------------------------------------

    def on_edge(self, spot: str, occupied: bool, at: float) -> None:
        self._queue.put(("edge", spot, occupied, at))

    def on_frame(self, board: Board) -> None:
        self._queue.put(("frame", board))

    def on_unsure(self, reading: BoardReading) -> None:
        """A frame of the board with spots the camera could not read surely (skipped)."""
        self._queue.put(("unsure", reading))

    def on_camera(self, status: CameraStatus) -> None:
        self._queue.put(("camera", status))

    def on_roll(self, roll: SettledRoll) -> None:
        """A roll the camera read in the tray, sure or not."""
        self._queue.put(("roll", roll))

    def on_dice(self, reading: DiceReading) -> None:
        """A roll of the bots' virtual dice."""
        self._queue.put(("dice", reading))

    def on_thought(self, number: int, result: JSON | None, error: str | None) -> None:
        """The thinking worker's answer to job `number` (controller/thinker.py)."""
        self._queue.put(("thought", number, result, error))

    def on_room(self, *what: object) -> None:
        """What the broker's thread received for linked tables (controller/room.py)."""
        self._queue.put(("room", *what))

    def submit_control(self, request: JSON, reply: Reply) -> None:
        """A control request, from the socket or the dashboard: its answer is put on `reply`.
        Stamped with when it came, so that the loop can refuse what waited too long."""
        self._queue.put(("control", request, reply, time.monotonic()))

    def stop(self) -> None:
        self._queue.put(("stop",))

    # -- the loop -------------------------------------------------------------------------

    def pending(self, *kinds: str) -> bool:
        """Whether events of these kinds wait on the queue."""
        with self._queue.mutex:
            return any(event[0] in kinds for event in self._queue.queue)

    def discard(self) -> None:
        """Forget what came before, such as the edges of pins just set up; not what the broker
        sent, which the table would not be sent again."""
        kept = []
        while not self._queue.empty():
            event = self._queue.get_nowait()
            if event[0] == "room":
                kept.append(event)
        for event in kept:
            self._queue.put(event)

    def take(self, timeout: float) -> Iterator[Event]:
        """The first event to come within `timeout` seconds, if any, then each one queued by the
        time the one before has been handled."""
        try:
            event = self._queue.get(timeout=timeout)
        except queue.Empty:
            return
        while True:
            yield event
            try:
                event = self._queue.get_nowait()
            except queue.Empty:
                return


class Watchdog:
    """systemd's watchdog, pinged by the loop at half its timeout, if the service asks for one."""

    def __init__(self, now: float) -> None:
        self.interval = watchdog_interval()
        self.next_ping = now

    def ping(self, now: float) -> float | None:
        """Ping when due; when the next ping is due, None with no watchdog."""
        if self.interval is None:
            return None
        if now >= self.next_ping:
            notify("WATCHDOG=1")
            self.next_ping = now + self.interval
        return self.next_ping
