"""The camera as the table's builder sees it on the dashboard (issue 23): its picture, and the
calibration taken from it.

The picture is the camera's latest frame (on the simulated table, a frame of the simulated
table, vision/sim_frames.py) with the markers found, the profile's regions and tray through the
calibration, what the board reader saw on them and the dice of the tray drawn on it. A
calibration is taken from one frame as `smartboard calibrate` takes it from a photo (the same
`detect_markers` and `calibrate`), shown, then saved where the daemon reads it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from controller.backends import TableBackends, jpeg
from controller.refusals import Refused
from controller.rules.api import JSON
from hardware.profile import ProfileError
from vision.calibration import (
    Calibration,
    CalibrationError,
    Points,
    annotate,
    calibrate,
    detect_markers,
    profile_markers,
)
from vision.dice_reader import draw_dice
from vision.image_files import Image
from vision.sim_frames import SimFrames


class CameraDesk:
    """The picture and the calibration of the table's camera, for the game on the table."""

    def __init__(
        self,
        parts: TableBackends,
        simulated: bool,
        seed: int | None,
        board: Callable[[], Mapping[str, str]],
    ) -> None:
        """`simulated`: the pieces lie on the simulated table, whose frames are drawn when no
        camera gives any; `board`: what lies on the simulated camera's spots."""
        self.parts = parts
        self.profile = parts.profile
        self._simulated = simulated
        self._seed = seed
        self._board = board
        self._lock = threading.Lock()
        self._sim: SimFrames | None = None
        self._saved: tuple[float, Calibration | None, str] | None = None
        self.taken: Calibration | None = None

    # -- frames ---------------------------------------------------------------------------

    @property
    def sim(self) -> SimFrames | None:
        """The simulated table's camera: on the simulated table with no camera over it (made at
        the first frame asked for)."""
        if not self._simulated or self.parts.camera is not None:
            return None
        if self.profile.table_size_mm is None:
            return None  # a board of reeds alone: nothing to draw the table from
        with self._lock:
            if self._sim is None:
                config = self.parts.config
                size = (config.camera_width, config.camera_height)
                self._sim = SimFrames(self.profile, size, self._seed)
            return self._sim

    def source(self) -> str | None:
        """Where frames come from: "camera", "sim", or None (no camera for this game)."""
        return "camera" if self.parts.camera is not None else "sim" if self.sim else None

    def frame(self) -> Image | None:
        """What the camera sees now; None before its first frame, or with no camera."""
        camera, sim = self.parts.camera, self.sim
        if camera is not None:
            latest = camera.latest
            return None if latest is None else latest[0]
        if sim is None:
            return None
        sim.show_board(self._board())
        return sim.frame()

    def tray_frame(self) -> tuple[Image, Points | None] | None:
        """The latest frame and the dice tray in it (None: the whole frame)."""
        frame = self.frame()
        if frame is None:
            return None
        calibration, tray = self.calibration(), self.profile.dice_tray
        polygon = None if calibration is None or tray is None else calibration.region_polygon(tray)
        return frame, polygon

    # -- calibration ----------------------------------------------------------------------

    def saved(self) -> tuple[Calibration | None, str]:
        """The calibration saved for this profile, read again when its file changes; else None
        and why ("" when none was ever saved)."""
        path = self.parts.calibration_path()
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            return None, ""
        with self._lock:
            if self._saved is None or self._saved[0] != stamp:
                try:
                    calibration: Calibration | None = Calibration.load(path)
                    why = ""
                    if calibration is not None and calibration.profile != self.profile.name:
                        why = f"{path} is for {calibration.profile!r}, not {self.profile.name!r}"
                        calibration = None
                except CalibrationError as error:
                    calibration, why = None, str(error)
                self._saved = (stamp, calibration, why)
            return self._saved[1], self._saved[2]

    def calibration(self) -> Calibration | None:
        """The calibration the camera's readers use, else the one saved for this profile."""
        return self.parts.calibration or self.saved()[0]

    def take(self) -> Calibration:
        """A calibration from the camera's frame now, kept until saved or taken again."""
        try:
            markers = profile_markers(self.profile)
        except ProfileError as error:
            raise Refused(str(error), "no_markers", profile=self.profile.name) from None
        frame = self.frame()
        if frame is None:
            raise Refused(
                f"no camera picture on this table for {self.profile.name}: nothing to calibrate "
                "from",
                "no_camera",
            )
        found = detect_markers(frame)
        seen = {d.id for d in found}
        try:
            taken = calibrate(found, self.profile, (frame.shape[1], frame.shape[0]))
        except CalibrationError as error:
            missing = [m.id for m in markers if m.id not in seen]
            if missing:
                raise Refused(
                    str(error),
                    "markers_missing",
                    missing=", ".join(map(str, missing)),
                    found=", ".join(map(str, sorted(seen))) or "-",
                ) from None
            raise Refused(str(error), "calibration_failed", reason=str(error)) from None
        self.taken = taken
        return taken

    def save(self) -> Path:
        """Save the calibration taken, where the daemon reads it."""
        taken = self.taken
        if taken is None:
            raise Refused("no calibration taken: take one first", "calibration_none")
        path = self.parts.calibration_path()
        try:
            taken.save(path)
        except OSError as error:
            raise Refused(
                f"cannot write {path}: {error.strerror}", "calibration_write", path=str(path)
            ) from None
        self.taken = None
        return path

    # -- what the page shows --------------------------------------------------------------

    def picture(self) -> bytes | None:
        """The latest frame as a JPEG, with the markers found, the profile's regions and what
        was read in them, and the dice; None before any frame. Safe from any thread."""
        camera = self.parts.camera
        latest = None if camera is None else camera.latest
        if camera is not None and latest is not None:
            image, dice = latest
            seen = None if camera.board is None else camera.board.seen
        else:
            frame = self.frame()
            if frame is None:
                return None
            image, dice, seen = frame, [], dict(self._board())
        calibration = self.calibration()
        drawn = annotate(image, detect_markers(image), self.profile, calibration, seen)
        drawn = draw_dice(drawn, dice, self.parts.config.dice_min_confidence)
        return jpeg(drawn)

    def to_json(self) -> JSON:
        """The camera's source, rate and exposure, the markers wanted, and the calibrations saved
        and taken."""
        camera = self.parts.camera
        saved, problem = self.saved()
        return {
            "source": self.source(),
            "fps": None if camera is None else camera.fps,
            "exposure_us": None if camera is None else camera.exposure_us,
            "markers": [m.id for m in self.profile.markers],
            "tray": self.profile.dice_tray is not None,
            "calibration": None if saved is None else _described(saved),
            "calibration_path": str(self.parts.calibration_path()),
            "calibration_problem": problem or None,
            "taken": None if self.taken is None else _described(self.taken),
        }


def _described(calibration: Calibration) -> JSON:
    return {
        "profile": calibration.profile,
        "error_mm": round(calibration.error_mm, 3),
        "markers": list(calibration.marker_ids),
        "image_size": list(calibration.image_size),
    }
