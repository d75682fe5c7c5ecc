"""`smartboard check`, its camera: frames received in a few seconds (the frame rate), how bright
they are and the exposure if the camera tells it, the calibration markers found, and whether
the frames are those the calibration was made on (whether the tray and the board's regions lie
in them is the profile part's: controller/profile_lint.py). The picture itself, with all of it
drawn, is the dashboard's (vision/calibration.py `annotate`).

The frames are read on a thread of their own: a camera that gives none is reported after a
time limit, never waited on for ever.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from controller.check_report import CheckEvent, Listener, PartReport
from hardware.profile import BoardProfile
from vision.calibration import Calibration, detect_markers, where_on_table
from vision.frame_sources import CameraError, EndOfFrames, FrameSkipped, FrameSource, Image

# Mean grey levels of a frame too dark or too bright to read dice and markers in.
DARK, BRIGHT = 40, 215


@dataclass
class _Frames:
    """What the reading thread saw; read by the check once the thread is done or given up."""

    count: int = 0
    first_at: float | None = None
    last_at: float | None = None
    latest: Image | None = None
    error: str = ""
    ended: bool = False  # the source gave up before any frame: no use waiting out the time
    exposure_us: float | None = None
    came: threading.Event = field(default_factory=threading.Event)  # a frame, or `ended`
    stop: threading.Event = field(default_factory=threading.Event)


def check_camera(
    open_source: Callable[[], FrameSource],
    profile: BoardProfile,
    calibration: Calibration | None,
    listen: Listener,
    seconds: float = 3.0,
    timeout_s: float = 5.0,
    expected_fps: float | None = None,
) -> PartReport:
    """Read frames for `seconds` after the first, at most `expected_fps` a second (the config's,
    as the table reads them); none within `timeout_s` is a fault."""
    part = PartReport("camera")
    frames = _Frames()
    interval = 0.0 if expected_fps is None else 1 / expected_fps
    thread = threading.Thread(
        target=_read, args=(open_source, frames, seconds, interval), daemon=True
    )
    thread.start()
    frames.came.wait(timeout_s)
    if not frames.count:
        frames.stop.set()  # the thread ends when its source gives up, if ever: not waited on
        part.figures["frames"] = 0
        if frames.ended:
            part.fault("no_frames", f"the camera gives no frames: {frames.error}")
            return part
        why = f": {frames.error}" if frames.error else ""
        part.fault(
            "no_frames",
            f"the camera gave no frame in {timeout_s:g} s{why}. Check its cable and that "
            "[camera] source and device name it (`smartboard check --only camera` again)",
        )
        return part
    thread.join(seconds + timeout_s)
    frames.stop.set()
    span = (frames.last_at or 0.0) - (frames.first_at or 0.0)
    fps = (frames.count - 1) / span if span > 0 else None
    part.figures.update(frames=frames.count, fps=None if fps is None else round(fps, 1))
    part.figures["exposure_us"] = frames.exposure_us
    listen(
        CheckEvent(
            "camera",
            "frames",
            f"{frames.count} frames, {part.figures['fps']} a second",
            {"frames": frames.count, "fps": part.figures["fps"]},
        )
    )
    if expected_fps is not None and fps is not None and fps < expected_fps / 2:
        part.warn(
            "slow_camera",
            f"the camera gives {fps:.1f} frames a second, [camera] fps asks {expected_fps:g}: "
            "dice settle more slowly; a lower resolution, or more light, helps",
        )
    if frames.latest is not None:
        frame_figures(part, frames.latest, profile, calibration)
        figures = part.figures
        markers = ", ".join(map(str, figures["markers_found"])) or "none"
        listen(
            CheckEvent(
                "camera",
                "frame",
                f"{figures['width']}x{figures['height']}, mean level {figures['mean_level']} "
                f"of 255, markers found: {markers}",
                {key: figures[key] for key in ("width", "height", "mean_level", "markers_found")},
            )
        )
    return part


def _read(
    open_source: Callable[[], FrameSource], frames: _Frames, seconds: float, interval: float
) -> None:
    """Frames read as the table reads them, at most one every `interval` (a camera gives the
    next when it has it; a replay at once)."""
    try:
        source = open_source()
        source.open()
    except Exception as error:  # any backend's own error: said, not raised on a thread
        frames.error, frames.ended = str(error), True
        frames.came.set()
        return
    try:
        while not frames.stop.is_set():
            try:
                image = source.read()
            except FrameSkipped:
                continue
            except EndOfFrames as error:
                if not frames.count:
                    frames.error = str(error) or "the photos or video hold no frame"
                    frames.ended = True
                    frames.came.set()
                return
            except CameraError as error:
                frames.error = str(error)
                frames.stop.wait(0.1)
                continue
            now = time.monotonic()
            frames.count += 1
            frames.latest = image
            frames.last_at = now
            if frames.first_at is None:
                frames.first_at = now
                frames.came.set()
                # Known only to the Pi camera, from each frame's metadata.
                frames.exposure_us = getattr(source, "exposure_us", None)
            if now - frames.first_at >= seconds:
                return
            frames.stop.wait(max(0.0, interval - (time.monotonic() - now)))
    finally:
        source.close()


def frame_figures(
    part: PartReport, image: Image, profile: BoardProfile, calibration: Calibration | None
) -> None:
    """A frame's size and brightness, the profile's markers found in it, and whether the
    calibration was made on frames of its size."""
    height, width = image.shape[:2]
    level = float(np.mean(image))
    part.figures.update(width=width, height=height, mean_level=round(level))
    if level < DARK or level > BRIGHT:
        part.warn(
            "exposure",
            f"the frame is {'too dark' if level < DARK else 'too bright'} (mean level "
            f"{level:.0f} of 255): light the table evenly, or set the camera's exposure",
        )
    expected = {m.id: m for m in profile.markers}
    found = {d.id for d in detect_markers(np.asarray(image, np.uint8))}
    part.figures["markers_found"] = sorted(found & set(expected))
    missing = sorted(set(expected) - found)
    part.figures["markers_missing"] = missing
    if missing:
        places = "; ".join(
            f"{i} ({where_on_table(expected[i], profile.table_size_mm)})" for i in missing
        )
        part.fault(
            "markers_missing",
            f"calibration marker(s) not in the frame: {places}. Lay them (`smartboard markers` "
            "prints them), uncovered and evenly lit, where the camera sees them",
        )
    if calibration is None:
        part.warn(
            "not_calibrated",
            "the camera is not calibrated: run `smartboard calibrate` (or calibrate from the "
            "dashboard) before the camera reads the board and the tray",
        )
        return
    if calibration.image_size != (width, height):
        part.fault(
            "calibration_size",
            f"the calibration was made on {calibration.image_size[0]}x{calibration.image_size[1]} "
            f"frames, the camera gives {width}x{height}: calibrate again",
        )
