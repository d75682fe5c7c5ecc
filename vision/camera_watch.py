"""A camera that keeps itself going: frames at a steady rate, failures retried with backoff.

`WatchedCamera` reads a `FrameSource` from its own thread and hands each good frame to a handler
(the daemon puts it on its queue). A camera that fails — it does not open, gives no frame,
raises, or gives a black or blank frame — is closed and opened again after a delay that doubles
up to a ceiling. A frame that cannot be read (`FrameSkipped`) is no failure: it is counted and
skipped, the camera kept open. Nothing of that reaches the caller: it shows in `status`, for
`smartboard status` and the table's lights, and the game simply gets no frames meanwhile.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

import cv2

from vision.frame_sources import CameraError, EndOfFrames, FrameSkipped, FrameSource, Image

log = logging.getLogger(__name__)

State = Literal["starting", "ok", "retrying", "ended"]


@dataclass(frozen=True)
class CameraStatus:
    """`starting` until the first good frame; `ok`; `retrying` after a failure, with its reason,
    how many failures in a row (`attempt`), and when (on the camera's clock) the next attempt
    is; `ended` once a replay that does not loop is over. Whatever the state: the failures since
    the camera was made, and the frames skipped as unreadable (one due for several reads counted
    once), with the last one's reason."""

    state: State
    reason: str = ""
    attempt: int = 0
    retry_at: float | None = None
    failures: int = 0
    skipped: int = 0
    skipped_reason: str = ""

    def to_json(self, now: float) -> dict[str, str | int | float]:
        out: dict[str, str | int | float] = {"state": self.state}
        if self.reason:
            out["reason"] = self.reason
        if self.retry_at is not None:
            out["attempt"] = self.attempt
            out["retry_in_s"] = round(max(0.0, self.retry_at - now), 3)
        if self.failures:
            out["failures"] = self.failures
        if self.skipped:
            out["frames_skipped"] = self.skipped
            out["last_skipped"] = self.skipped_reason
        return out


FrameHandler = Callable[[Image], None]
StatusHandler = Callable[[CameraStatus], None]


def blank_reason(frame: Image, min_mean: float, min_spread: float) -> str | None:
    """Why a frame shows nothing, or None: too dark (a covered or dead sensor), or one flat
    colour in every channel (a stalled pipeline)."""
    means, spreads = cv2.meanStdDev(frame)
    mean, spread = float(means.mean()), float(spreads.max())
    if mean < min_mean:
        return f"black frame (mean {mean:.1f} < {min_mean})"
    if spread < min_spread:
        return f"blank frame (spread {spread:.1f} < {min_spread})"
    return None


class WatchedCamera:
    """Reads `source` about `fps` times a second from its own thread, after `start`.

    Good frames go to `on_frame`; every change of status goes to `on_status`. Both are called
    from the camera's thread. Tests drive `step` themselves, with their own clock.
    """

    def __init__(
        self,
        source: FrameSource,
        on_frame: FrameHandler,
        fps: float,
        retry_s: float = 0.5,
        retry_max_s: float = 30.0,
        on_status: StatusHandler | None = None,
        min_mean: float = 8.0,
        min_spread: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if fps <= 0 or not 0 < retry_s <= retry_max_s:
            raise ValueError(
                f"fps must be > 0 and 0 < retry_s <= retry_max_s: {fps}, {retry_s}, {retry_max_s}"
            )
        self.source = source
        self.on_frame = on_frame
        self.on_status = on_status
        self.period = 1 / fps
        self.retry_s = retry_s
        self.retry_max_s = retry_max_s
        self.min_mean = min_mean
        self.min_spread = min_spread
        self.clock = clock
        self._status = CameraStatus("starting")
        self._lock = threading.Lock()
        self._open = False
        self._slot = float("-inf")  # when the last good frame was due
        self._skipping: str | None = None  # why the frame due is being skipped, if it is
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def status(self) -> CameraStatus:
        with self._lock:
            return self._status

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            delay: float | None = 0.0
            while delay is not None and not self._stop.wait(delay):
                delay = self.step()
        finally:
            self._close_source()

    def step(self) -> float | None:
        """Open, read and hand on one frame, or wait out a retry: the seconds until the next
        step, or None once the source has ended."""
        now = self.clock()
        retry_at = self.status.retry_at
        if retry_at is not None and now < retry_at:
            return retry_at - now
        try:
            if not self._open:
                self.source.open()
                self._open = True
            frame = self.source.read()
        except EndOfFrames as end:
            self._close_source()
            self._set(replace(self.status, state="ended", reason=str(end), retry_at=None))
            log.info("camera: %s", end)
            return None
        except FrameSkipped as skipped:
            return self._skip(now, str(skipped))
        except Exception as error:  # any failure of a camera is retried, never raised
            reason = str(error) if isinstance(error, CameraError) else repr(error)
            return self._fail(reason)
        blank = blank_reason(frame, self.min_mean, self.min_spread)
        if blank is not None:
            return self._fail(blank)
        self._skipping = None
        status = self.status
        if status.state != "ok":
            log.info("camera: ok")
            self._set(replace(status, state="ok", reason="", attempt=0, retry_at=None))
        try:
            self.on_frame(frame)
        except Exception:  # a handler's bug must not stop the camera
            log.exception("camera frame handler")
        return self._next_beat(now)

    def _next_beat(self, now: float) -> float:
        """Keep to the beat; a read more than a period late (a slow handler, a retry) starts
        anew."""
        self._slot = self._slot + self.period if now - self._slot < 2 * self.period else now
        return max(0.0, self._slot + self.period - self.clock())

    def _skip(self, now: float, reason: str) -> float:
        if reason != self._skipping:  # a damaged frame, not another read of the one still due
            self._skipping = reason
            log.warning("camera: %s; skipped", reason)
            status = self.status
            self._set(replace(status, skipped=status.skipped + 1, skipped_reason=reason))
        return self._next_beat(now)

    def _fail(self, reason: str) -> float:
        self._close_source()
        status = self.status
        attempt = status.attempt + 1
        delay = min(self.retry_s * 2.0 ** (attempt - 1), self.retry_max_s)
        retry_at = self.clock() + delay
        self._set(
            replace(
                status,
                state="retrying",
                reason=reason,
                attempt=attempt,
                retry_at=retry_at,
                failures=status.failures + 1,
            )
        )
        log.warning(
            "camera: %s; attempt %d (failures in all: %d), retrying in %.1f s",
            reason,
            attempt,
            status.failures + 1,
            delay,
        )
        return delay

    def _set(self, status: CameraStatus) -> None:
        with self._lock:
            self._status = status
        if self.on_status is not None:
            self.on_status(status)

    def _close_source(self) -> None:
        if self._open:
            self._open = False
            try:
                self.source.close()
            except Exception:  # the camera is being given up on anyway
                log.exception("closing the camera")

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            if self._thread.is_alive():
                log.warning("camera thread still stuck in a read; leaving it")
                return
            self._thread = None
        self._close_source()
