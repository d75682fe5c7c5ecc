"""The camera over the board: frames of what lies in each camera spot, and when they settle.

A frame maps each camera spot to the token of what the camera sees on top there ("yellow:steal",
colour:face), leaving empty spots out: the same shape as a game's layout. Frames come at the
camera's rate whatever happens on the table; `FrameSettler` turns them into boards that stood
still for a few frames, so dice in the hand or still rolling are never reported.

The camera reader of a real table comes in a later issue; `SimBoardCamera` stands in for it on
the simulated table.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Collection
from typing import Protocol

Board = dict[str, str]
"""Spot -> token of the piece seen on top there; the shape of `controller.rules.api.Layout`."""

HIDDEN = "?hidden"
"""The token of a spot that something stands over (a pawn on a printed piece): what lies under it
is unseen, neither empty nor a piece."""

FrameHandler = Callable[[Board], None]
"""Called with each frame, from the camera's own thread."""


class BoardCamera(Protocol):
    """A source of frames of the camera spots, delivered to a `FrameHandler` once started."""

    def start(self) -> None: ...

    def close(self) -> None: ...


class SimBoardCamera:
    """A simulated camera: it sees the board that the bots `show` it, as a real one might.

    - `noise`: each spot of each frame is misread with this probability: another token seen
      so far, or nothing, or a token on an empty spot.
    - `delay_s`: frames show the board as it was this long ago, like a slow capture pipeline.
    """

    def __init__(
        self,
        spots: Collection[str],
        on_frame: FrameHandler,
        fps: float,
        noise: float = 0.0,
        delay_s: float = 0.0,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if fps <= 0 or not 0 <= noise <= 1 or delay_s < 0:
            raise ValueError(
                f"fps must be > 0, noise in 0..1, delay >= 0: {fps}, {noise}, {delay_s}"
            )
        self.spots = frozenset(spots)
        self.on_frame = on_frame
        self.period = 1 / fps
        self.noise = noise
        self.delay_s = delay_s
        self.clock = clock
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        # The boards shown, oldest first, as (time shown, board); the first one stands forever.
        self._shown: deque[tuple[float, Board]] = deque([(float("-inf"), {})])
        self._tokens: set[str] = set()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def truth(self) -> Board:
        """The board as it now lies on the simulated table."""
        with self._lock:
            return dict(self._shown[-1][1])

    def show(self, board: Board) -> None:
        """Lay the simulated board out so (spots other than the camera's are ignored)."""
        seen = {spot: token for spot, token in board.items() if spot in self.spots}
        with self._lock:
            self._shown.append((self.clock(), seen))
            self._tokens.update(seen.values())

    def frame(self) -> Board:
        """What the camera sees now: the board of `delay_s` ago, with its misreads."""
        now = self.clock()
        with self._lock:
            # Boards older than the one in view can never be seen again.
            while len(self._shown) > 1 and self._shown[1][0] <= now - self.delay_s:
                self._shown.popleft()
            board = dict(self._shown[0][1])
            tokens = sorted(self._tokens)
        if self.noise:
            for spot in sorted(self.spots):
                if self._rng.random() < self.noise:
                    wrong = [t for t in [*tokens, None] if t != board.get(spot)]
                    misread = self._rng.choice(wrong) if wrong else None
                    if misread is None:
                        board.pop(spot, None)
                    else:
                        board[spot] = misread
        return board

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="sim-board-camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            self.on_frame(self.frame())

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


class FrameSettler:
    """Reports a board once `stable_frames` frames in a row have shown it, and not again."""

    def __init__(self, stable_frames: int) -> None:
        if stable_frames < 1:
            raise ValueError(f"stable_frames must be at least 1: {stable_frames}")
        self.stable_frames = stable_frames
        self.settled: Board | None = None
        self._last: Board | None = None
        self._run = 0

    @property
    def changing(self) -> bool:
        """The last frame shows a board other than the settled one."""
        return self._last is not None and self._last != self.settled

    def feed(self, frame: Board) -> Board | None:
        """The newly settled board, or None while frames change or the board is unchanged."""
        if frame == self._last:
            self._run += 1
        else:
            self._last = dict(frame)
            self._run = 1
        if self._run >= self.stable_frames and frame != self.settled:
            self.settled = dict(frame)
            return dict(frame)
        return None
