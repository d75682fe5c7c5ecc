"""Where camera frames come from: the Pi camera, an OpenCV capture, or frames replayed from disk.

Every source gives BGR images, OpenCV's order, through the same small `FrameSource` interface.
A source that cannot give a frame now raises `CameraError`; `vision.camera_watch` retries it. A
frame that came but cannot be read (a damaged photo in a replay) raises `FrameSkipped`: the
source goes on with the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import cv2
from cv2.typing import MatLike

from vision.choices import SOURCES
from vision.image_files import read_image

Image = MatLike
"""A BGR image: height, width, 3 channels of uint8."""


class CameraError(RuntimeError):
    """The camera gives no frame now (unplugged, not there, a read error): worth retrying."""


class FrameSkipped(Exception):
    """The frame due now cannot be read (a damaged file): skip it, the source itself is fine."""


class EndOfFrames(Exception):
    """A replay that does not loop has shown its last frame."""


class BackendMissingError(RuntimeError):
    """The chosen camera backend is not installed: retrying will not help."""


class FrameSource(Protocol):
    def open(self) -> None: ...

    def read(self) -> Image:
        """The next frame; `CameraError` if there is none, `FrameSkipped` if the frame due cannot
        be read, `EndOfFrames` once a replay is over."""
        ...

    def close(self) -> None: ...


class Capture(Protocol):
    """The part of `cv2.VideoCapture` that the sources use."""

    def isOpened(self) -> bool: ...

    def set(self, propId: int, value: float) -> bool: ...

    def read(self) -> tuple[bool, Image | None]: ...

    def release(self) -> None: ...


def video_capture(device: int | str) -> Capture:
    return cv2.VideoCapture(device)


def parse_device(device: str) -> int | str:
    """A camera index ("0") or a path or URL."""
    return int(device) if device.isdigit() else device


class OpenCvSource:
    """A camera by index (a USB webcam), a video file or a stream URL, through cv2.VideoCapture."""

    def __init__(
        self,
        device: int | str,
        width: int,
        height: int,
        fps: float,
        capture: Callable[[int | str], Capture] = video_capture,
    ) -> None:
        self.device = device
        self.width = width
        self.height = height
        self.fps = fps
        self._open_capture = capture
        self._capture: Capture | None = None

    def open(self) -> None:
        capture = self._open_capture(self.device)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"cannot open camera {self.device!r}")
        # A file or stream ignores these; a webcam picks its nearest mode.
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        capture.set(cv2.CAP_PROP_FPS, self.fps)
        self._capture = capture

    def read(self) -> Image:
        if self._capture is None:
            raise CameraError(f"camera {self.device!r} is not open")
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise CameraError(f"no frame from camera {self.device!r}")
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class Picamera2Source:
    """The Raspberry Pi camera through picamera2, which exists only on Raspberry Pi OS."""

    def __init__(self, width: int, height: int, fps: float) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as error:
            raise BackendMissingError(
                "camera.source = 'picamera2' needs the picamera2 module of Raspberry Pi OS: "
                "`sudo apt install python3-picamera2`, then make the virtual environment with "
                "--system-site-packages and install smartboard with its `pi` extra "
                f"({error})"
            ) from error
        self._picamera2 = Picamera2
        self.width = width
        self.height = height
        self.fps = fps
        self._camera: Any = None
        self.exposure_us: float | None = None
        """The latest frame's exposure, from its metadata."""

    def open(self) -> None:
        camera = self._picamera2()
        try:
            # RGB888 is laid out B, G, R in memory: OpenCV's order, no conversion needed.
            config = camera.create_video_configuration(
                main={"size": (self.width, self.height), "format": "RGB888"},
                controls={"FrameRate": self.fps},
            )
            camera.configure(config)
            camera.start()
        except BaseException:
            camera.close()
            raise
        self._camera = camera

    def read(self) -> Image:
        if self._camera is None:
            raise CameraError("the Pi camera is not open")
        # A request gives the frame and its metadata together (capture_array would not).
        request = self._camera.capture_request()
        try:
            frame: Image = request.make_array("main")
            self.exposure_us = request.get_metadata().get("ExposureTime")
        finally:
            request.release()
        return frame

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None


class ReplaySource:
    """A folder of images (in name order) or a video file, shown at `fps` frames a second.

    Like a camera, it shows whichever frame is due now: read it faster than `fps` and a frame
    comes again, slower and frames are skipped. At the end it starts over if `loop`, otherwise
    it raises `EndOfFrames`. An image that cannot be read raises `FrameSkipped` while it is due,
    and the replay goes on with the next. Opening it again (after a failure) goes on where it
    was, as a camera that reconnects does: never back to frames already shown.
    """

    def __init__(
        self,
        path: Path,
        fps: float,
        loop: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if fps <= 0:
            raise ValueError(f"replay fps must be > 0: {fps}")
        self.path = path
        self.fps = fps
        self.loop = loop
        self.clock = clock
        self._frames: _FolderFrames | _VideoFrames | None = None
        self._start: float | None = None  # when the first frame was due: set by the first open
        # The frame shown last, by its index: the image, or why it could not be read.
        self._shown: tuple[int, Image | str] | None = None

    def open(self) -> None:
        if self.path.is_dir():
            self._frames = _FolderFrames(self.path)
        elif self.path.is_file():
            self._frames = _VideoFrames(self.path)
        else:
            raise CameraError(f"no folder or video file at {self.path}")
        if self._start is None:
            self._start = self.clock()
        self._shown = None

    def read(self) -> Image:
        if self._frames is None or self._start is None:
            raise CameraError(f"replay of {self.path} is not open")
        index = int((self.clock() - self._start) * self.fps)
        shown = self._shown
        if shown is None or shown[0] != index:
            shown = self._shown = self._due(self._frames, index)
        if isinstance(shown[1], str):
            raise FrameSkipped(shown[1])  # still the damaged image that is due: not read again
        return shown[1]

    def _due(self, frames: _FolderFrames | _VideoFrames, index: int) -> tuple[int, Image | str]:
        """The frame at `index` (past the end, the first again if looping) with its index, or
        why it cannot be read."""
        try:
            frame = frames.at(index)
            if frame is None:
                if not self.loop:
                    raise EndOfFrames(f"replay of {self.path} is over")
                frames.rewind()
                self._start = self.clock()
                index = 0
                frame = frames.at(0)
                if frame is None:
                    raise CameraError(f"no frames in {self.path}")
        except FrameSkipped as skipped:
            return index, str(skipped)
        # The same frame goes out until the next is due: nobody may draw on it.
        frame.flags.writeable = False
        return index, frame

    def close(self) -> None:
        if self._frames is not None:
            self._frames.close()
            self._frames = None
        self._shown = None


class _FolderFrames:
    def __init__(self, folder: Path) -> None:
        # Files OpenCV recognises as images by their content, so labels beside them are skipped.
        self.paths = sorted(p for p in folder.iterdir() if cv2.haveImageReader(str(p)))
        if not self.paths:
            raise CameraError(f"no images in {folder}")

    def at(self, index: int) -> Image | None:
        if index >= len(self.paths):
            return None
        path = self.paths[index]
        try:
            return read_image(path)
        except OSError as error:  # removed or unreadable since the listing
            raise FrameSkipped(f"cannot read image {path}: {error.strerror or error}") from None
        except ValueError as error:  # damaged: its header looks like an image, the rest not
            raise FrameSkipped(f"cannot read image {path}: {error}") from None

    def rewind(self) -> None:
        pass  # any image can be read at any time

    def close(self) -> None:
        pass


class _VideoFrames:
    """A video decoded forward only: frames due in between are grabbed, not decoded."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._capture = cv2.VideoCapture(str(path))
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraError(f"cannot open video {path}")
        self._next = 0

    def at(self, index: int) -> Image | None:
        while self._next < index:
            if not self._capture.grab():
                return None
            self._next += 1
        ok, frame = self._capture.read()
        self._next += 1
        return frame if ok else None

    def rewind(self) -> None:
        self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
        self._next = 0

    def close(self) -> None:
        self._capture.release()


def frame_source(
    source: str,
    device: str,
    width: int,
    height: int,
    fps: float,
    replay_fps: float,
    replay_loop: bool = False,
) -> FrameSource:
    """The source that the `[camera]` config names: `source` is one of `SOURCES`."""
    if source == "picamera2":
        return Picamera2Source(width, height, fps)
    if source == "opencv":
        return OpenCvSource(parse_device(device), width, height, fps)
    if source == "replay":
        return ReplaySource(Path(device), replay_fps, replay_loop)
    raise ValueError(f"camera source must be one of {SOURCES}, not {source!r}")
