"""Camera sources (vision/frame_sources.py) and the watched camera (vision/camera_watch.py)."""

from __future__ import annotations

import sys
import tempfile
import threading
import types
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import pytest
from dice_photos import photos
from hypothesis import given
from hypothesis import strategies as st

from vision.camera_watch import CameraStatus, WatchedCamera, blank_reason
from vision.frame_sources import (
    BackendMissingError,
    CameraError,
    EndOfFrames,
    FrameSkipped,
    Image,
    OpenCvSource,
    Picamera2Source,
    ReplaySource,
    frame_source,
    parse_device,
)

HEIGHT, WIDTH = 48, 64


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def picture(level: int, seed: int = 0) -> Image:
    """A textured frame around `level`, told apart from others by its mean."""
    rng = np.random.default_rng(seed)
    noise = rng.integers(-12, 13, (HEIGHT, WIDTH, 3))
    return np.clip(level + noise, 0, 255).astype(np.uint8)


def level(frame: Image) -> int:
    """The picture level a frame shows, to the nearest 10 (MJPG is lossy)."""
    return round(float(np.mean(frame)) / 10) * 10


# Replay of a folder of images.


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    # Name order, not writing order; a label file beside the images is skipped.
    for name, value in [("frame-2.png", 120), ("frame-0.png", 40), ("frame-1.png", 80)]:
        assert cv2.imwrite(str(tmp_path / name), picture(value))
    (tmp_path / "labels.json").write_text("{}", encoding="utf-8")
    return tmp_path


def test_folder_replays_its_images_in_name_order_at_its_rate(folder: Path) -> None:
    clock = Clock()
    replay = ReplaySource(folder, fps=2, clock=clock)
    replay.open()
    shown = []
    for t in (0.0, 0.49, 0.5, 0.99, 1.0):
        clock.now = 100.0 + t
        shown.append(level(replay.read()))
    assert shown == [40, 40, 80, 80, 120]
    assert np.array_equal(replay.read(), picture(120))  # PNG is exact
    clock.now += 0.5
    with pytest.raises(EndOfFrames, match="over"):
        replay.read()
    replay.close()


def test_replay_skips_frames_read_too_slowly_and_frames_are_read_only(folder: Path) -> None:
    clock = Clock()
    replay = ReplaySource(folder, fps=2, clock=clock)
    replay.open()
    clock.now += 1.2
    frame = replay.read()
    assert level(frame) == 120
    assert not frame.flags.writeable  # handed out again until the next is due


def test_looping_replay_starts_over(folder: Path) -> None:
    clock = Clock()
    replay = ReplaySource(folder, fps=2, loop=True, clock=clock)
    replay.open()
    shown = []
    for _ in range(8):
        shown.append(level(replay.read()))
        clock.now += 0.5
    assert shown == [40, 80, 120, 40, 80, 120, 40, 80]


def test_reopening_a_replay_goes_on_where_it_was(folder: Path) -> None:
    # As a camera that reconnects: never back to frames already shown (issue 19).
    clock = Clock()
    replay = ReplaySource(folder, fps=2, clock=clock)
    replay.open()
    clock.now += 0.6
    assert level(replay.read()) == 80
    replay.close()
    clock.now += 0.5  # closed while the next frame was due: missed, as by a live camera
    replay.open()
    assert level(replay.read()) == 120


def test_replay_of_nothing_is_a_camera_error(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no folder or video file at"):
        ReplaySource(tmp_path / "absent", fps=1).open()
    (tmp_path / "notes.txt").write_text("no images here", encoding="utf-8")
    with pytest.raises(CameraError, match="no images in"):
        ReplaySource(tmp_path, fps=1).open()
    with pytest.raises(ValueError, match="fps"):
        ReplaySource(tmp_path, fps=0)


JPEG_START = b"\xff\xd8\xff\xe0"
"""What OpenCV looks for to list a file as a JPEG image."""

DICE_PHOTO = photos("nell")[0]


def test_an_unreadable_image_is_skipped_and_the_replay_goes_on(folder: Path) -> None:
    (folder / "frame-1.png").unlink()
    (folder / "frame-1.jpg").write_bytes(JPEG_START + b"garbage")
    assert cv2.imwrite(str(folder / "frame-3.png"), picture(160))
    clock = Clock()
    replay = ReplaySource(folder, fps=2, clock=clock)
    replay.open()
    (folder / "frame-3.png").unlink()  # listed, then gone before its turn
    shown: list[int | str] = []
    for _ in range(4):
        try:
            shown.append(level(replay.read()))
        except FrameSkipped as skipped:
            shown.append(str(skipped))
        clock.now += 0.5
    assert shown == [
        40,
        f"cannot read image {folder / 'frame-1.jpg'}: not an image that OpenCV reads "
        "(PNG, JPEG ...)",
        120,
        f"cannot read image {folder / 'frame-3.png'}: No such file or directory",
    ]
    with pytest.raises(EndOfFrames):
        replay.read()


# Replay of a video file.


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (WIDTH, HEIGHT))
    assert writer.isOpened()
    for i in range(5):
        writer.write(picture(40 + 30 * i, seed=i))
    writer.release()
    return path


def test_video_replays_at_the_chosen_rate_skipping_frames_not_yet_read(video: Path) -> None:
    clock = Clock()
    replay = ReplaySource(video, fps=4, clock=clock)
    replay.open()
    assert replay.read().shape == (HEIGHT, WIDTH, 3)
    shown = [level(replay.read())]
    for t in (0.25, 0.75, 0.875, 1.0):
        clock.now = 100.0 + t
        shown.append(level(replay.read()))
    assert shown == [40, 70, 130, 130, 160]
    clock.now = 101.25
    with pytest.raises(EndOfFrames):
        replay.read()
    replay.close()


def test_looping_video_rewinds(video: Path) -> None:
    clock = Clock()
    replay = ReplaySource(video, fps=4, loop=True, clock=clock)
    replay.open()
    shown = []
    for _ in range(7):
        shown.append(level(replay.read()))
        clock.now += 0.25
    assert shown == [40, 70, 100, 130, 160, 40, 70]


# OpenCV capture.


class FakeDevice:
    """A camera on a cable: `plugged` decides whether it opens; each read takes the next of
    `script`: a frame, None (no frame) or an exception; an empty script gives fresh frames."""

    def __init__(self, *script: Image | BaseException | None) -> None:
        self.plugged = True
        self.script = list(script)
        self.opened = 0
        self.released = 0
        self.settings: dict[int, float] = {}

    def __call__(self, device: int | str) -> FakeDevice.Capture:
        self.device = device
        return FakeDevice.Capture(self)

    class Capture:
        def __init__(self, device: FakeDevice) -> None:
            self.device = device
            self.open = device.plugged
            device.opened += self.open

        def isOpened(self) -> bool:
            return self.open

        def set(self, propId: int, value: float) -> bool:
            self.device.settings[propId] = value
            return True

        def read(self) -> tuple[bool, Image | None]:
            if not self.device.plugged:
                return False, None
            step = self.device.script.pop(0) if self.device.script else picture(100)
            if isinstance(step, BaseException):
                raise step
            return step is not None, step

        def release(self) -> None:
            self.device.released += 1


def test_parse_device() -> None:
    assert parse_device("0") == 0
    assert parse_device("12") == 12
    assert parse_device("/dev/video2") == "/dev/video2"
    assert parse_device("rtsp://table.local/cam") == "rtsp://table.local/cam"


def test_opencv_source_asks_for_the_resolution_and_frame_rate() -> None:
    device = FakeDevice()
    source = OpenCvSource(0, 1280, 720, 30, capture=device)
    source.open()
    assert device.device == 0
    assert device.settings == {
        cv2.CAP_PROP_FRAME_WIDTH: 1280,
        cv2.CAP_PROP_FRAME_HEIGHT: 720,
        cv2.CAP_PROP_FPS: 30,
    }
    assert source.read().shape == (HEIGHT, WIDTH, 3)
    source.close()
    source.close()  # closing twice is harmless
    assert device.released == 1


def test_opencv_source_errors_name_the_device() -> None:
    device = FakeDevice(None, OSError("I/O error"))
    device.plugged = False
    source = OpenCvSource("/dev/video4", 640, 480, 10, capture=device)
    with pytest.raises(CameraError, match="cannot open camera '/dev/video4'"):
        source.open()
    assert device.released == 1  # a capture that did not open is let go
    device.plugged = True
    source.open()
    with pytest.raises(CameraError, match="no frame from camera '/dev/video4'"):
        source.read()
    with pytest.raises(OSError, match="I/O error"):
        source.read()


def test_opencv_source_reads_a_video_file(video: Path) -> None:
    source = OpenCvSource(str(video), WIDTH, HEIGHT, 10)
    source.open()
    assert [level(source.read()) for _ in range(3)] == [40, 70, 100]
    source.close()


# Picamera2.


class FakeRequest:
    """A frame with its metadata, held until released."""

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        self.calls = calls

    def make_array(self, name: str) -> Image:
        self.calls.append(("make_array", name))
        return picture(90)

    def get_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 8000, "AnalogueGain": 1.5}

    def release(self) -> None:
        self.calls.append(("release", None))


class FakePicamera2:
    made: ClassVar[list[FakePicamera2]] = []
    fail_configure: ClassVar[bool] = False

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        FakePicamera2.made.append(self)

    def create_video_configuration(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(("create_video_configuration", kwargs))
        return {"config": kwargs}

    def configure(self, config: Any) -> None:
        if FakePicamera2.fail_configure:
            raise RuntimeError("Camera in Running state")
        self.calls.append(("configure", config))

    def start(self) -> None:
        self.calls.append(("start", None))

    def capture_request(self) -> FakeRequest:
        self.calls.append(("capture_request", None))
        return FakeRequest(self.calls)

    def close(self) -> None:
        self.calls.append(("close", None))


@pytest.fixture
def picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "made", [])
    return FakePicamera2


def test_picamera2_is_configured_for_bgr_frames_at_the_size_and_rate(
    picamera2: type[FakePicamera2],
) -> None:
    source = Picamera2Source(1280, 720, 30)
    assert picamera2.made == []  # the camera is only taken when opened
    source.open()
    frame = source.read()
    source.close()
    (camera,) = picamera2.made
    main = {"size": (1280, 720), "format": "RGB888"}
    settings = {"main": main, "controls": {"FrameRate": 30}}
    assert camera.calls == [
        ("create_video_configuration", settings),
        ("configure", {"config": settings}),
        ("start", None),
        ("capture_request", None),
        ("make_array", "main"),
        ("release", None),
        ("close", None),
    ]
    assert frame.shape == (HEIGHT, WIDTH, 3)
    assert source.exposure_us == 8000  # the frame's own, for the dashboard's camera view


def test_picamera2_that_fails_to_start_is_closed(
    picamera2: type[FakePicamera2], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakePicamera2, "fail_configure", True)
    with pytest.raises(RuntimeError, match="Running"):
        Picamera2Source(640, 480, 10).open()
    assert picamera2.made[0].calls[-1] == ("close", None)


def test_missing_picamera2_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(BackendMissingError) as caught:
        frame_source("picamera2", "0", 1280, 720, 30, 2)
    message = str(caught.value)
    assert "python3-picamera2" in message
    assert "`pi` extra" in message
    assert "--system-site-packages" in message
    # The other backends do not need it.
    assert isinstance(frame_source("opencv", "0", 1280, 720, 30, 2), OpenCvSource)


def test_frame_source_from_the_config_values(
    picamera2: type[FakePicamera2], tmp_path: Path
) -> None:
    assert isinstance(frame_source("picamera2", "", 640, 480, 10, 2), Picamera2Source)
    webcam = frame_source("opencv", "1", 640, 480, 10, 2)
    assert isinstance(webcam, OpenCvSource)
    assert (webcam.device, webcam.width, webcam.height, webcam.fps) == (1, 640, 480, 10)
    replay = frame_source("replay", str(tmp_path), 640, 480, 10, 5, replay_loop=True)
    assert isinstance(replay, ReplaySource)
    assert (replay.path, replay.fps, replay.loop) == (tmp_path, 5, True)
    with pytest.raises(ValueError, match="'sim'"):
        frame_source("sim", "", 640, 480, 10, 2)


# The watched camera, stepped by hand on a fake clock.


class Watched:
    def __init__(self, device: FakeDevice, fps: float = 10, **options: Any) -> None:
        self.clock = Clock()
        self.frames: list[Image] = []
        self.statuses: list[CameraStatus] = []
        self.source = OpenCvSource(0, WIDTH, HEIGHT, fps, capture=device)
        self.camera = WatchedCamera(
            self.source,
            self.frames.append,
            fps,
            on_status=self.statuses.append,
            clock=self.clock,
            **options,
        )

    def step(self) -> float | None:
        return self.camera.step()

    def wait(self, delay: float | None) -> None:
        assert delay is not None
        self.clock.now += delay


def test_frames_are_handed_on_at_the_configured_rate() -> None:
    watched = Watched(FakeDevice(), fps=10)
    assert watched.camera.status == CameraStatus("starting")
    assert watched.step() == pytest.approx(0.1)
    assert watched.camera.status == CameraStatus("ok")
    watched.clock.now += 0.13  # this read came late: the next is still due on time
    assert watched.step() == pytest.approx(0.07)
    watched.clock.now += 0.5  # far behind: no burst of catching up
    assert watched.step() == pytest.approx(0.1)
    assert len(watched.frames) == 3
    assert watched.statuses == [CameraStatus("ok")]  # changes only


def test_a_camera_that_does_not_open_is_retried_with_doubling_backoff() -> None:
    device = FakeDevice()
    device.plugged = False
    watched = Watched(device, retry_s=0.5, retry_max_s=3)
    delays = []
    for _ in range(6):
        delay = watched.step()
        delays.append(delay)
        watched.wait(delay)
    assert delays == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    status = watched.camera.status
    assert (status.state, status.attempt) == ("retrying", 6)
    assert status.reason == "cannot open camera 0"
    assert status.retry_at == pytest.approx(watched.clock.now)  # waited for, just now
    assert watched.frames == []


def test_a_retry_waits_for_its_time() -> None:
    device = FakeDevice()
    device.plugged = False
    watched = Watched(device, retry_s=1)
    watched.step()
    watched.clock.now += 0.4
    assert watched.step() == pytest.approx(0.6)
    assert device.opened == 0
    assert watched.camera.status.attempt == 1


def test_unplugged_mid_stream_then_recovers() -> None:
    device = FakeDevice()
    watched = Watched(device, retry_s=0.25)
    watched.wait(watched.step())
    device.plugged = False
    watched.wait(watched.step())  # read fails
    assert device.released == 1
    watched.wait(watched.step())  # open fails
    device.plugged = True
    watched.step()
    assert [(s.state, s.reason, s.attempt) for s in watched.statuses] == [
        ("ok", "", 0),
        ("retrying", "no frame from camera 0", 1),
        ("retrying", "cannot open camera 0", 2),
        ("ok", "", 0),
    ]
    assert len(watched.frames) == 2
    # After recovering, the backoff starts again from retry_s.
    device.plugged = False
    assert watched.step() == pytest.approx(0.25)


def test_read_errors_never_reach_the_caller() -> None:
    device = FakeDevice(OSError("VIDIOC_DQBUF: No such device"), KeyboardInterrupt())
    watched = Watched(device)
    watched.wait(watched.step())
    status = watched.camera.status
    assert status.state == "retrying"
    assert status.reason == "OSError('VIDIOC_DQBUF: No such device')"
    with pytest.raises(KeyboardInterrupt):  # not a camera failure: Ctrl-C still stops it
        watched.step()


def test_black_and_blank_frames_are_failures_and_never_handed_on() -> None:
    black = np.zeros((HEIGHT, WIDTH, 3), np.uint8) + 3
    grey = np.full((HEIGHT, WIDTH, 3), 128, np.uint8)
    device = FakeDevice(black, grey, picture(100))
    watched = Watched(device, retry_s=0.1)
    watched.wait(watched.step())
    assert watched.camera.status.reason.startswith("black frame (mean 3.0")
    watched.wait(watched.step())
    assert watched.camera.status.reason.startswith("blank frame (spread 0.0")
    assert watched.camera.status.attempt == 2
    assert device.opened == 2  # each failure closes the camera, each retry opens it again
    watched.step()
    assert watched.camera.status == CameraStatus("ok", failures=2)
    assert len(watched.frames) == 1


def test_blank_reason_thresholds() -> None:
    assert blank_reason(picture(100), 8, 2) is None
    assert blank_reason(picture(5), 8, 2) == "black frame (mean 6.1 < 8)"
    # A dark frame with something in it passes when the thresholds allow it.
    assert blank_reason(picture(5), 4, 2) is None
    # One flat colour is blank whatever its colour.
    red = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    red[..., 2] = 255
    assert blank_reason(red, 8, 2) == "blank frame (spread 0.0 < 2)"


def test_a_failing_frame_handler_does_not_stop_the_camera() -> None:
    calls = []

    def handler(frame: Image) -> None:
        calls.append(frame)
        raise RuntimeError("bug")

    camera = WatchedCamera(OpenCvSource(0, 1, 1, 10, capture=FakeDevice()), handler, 10)
    assert camera.step() is not None
    assert camera.step() is not None
    assert len(calls) == 2
    assert camera.status.state == "ok"
    camera.close()


def test_a_replay_that_ends_ends_the_camera(folder: Path) -> None:
    clock = Clock()
    frames: list[int] = []
    replay = ReplaySource(folder, fps=2, clock=clock)
    camera = WatchedCamera(replay, lambda f: frames.append(level(f)), fps=4, clock=clock)
    while (delay := camera.step()) is not None:
        clock.now += delay
    assert frames == [40, 40, 80, 80, 120, 120]
    assert camera.status == CameraStatus("ended", f"replay of {folder} is over")
    assert replay._frames is None  # closed


def test_status_counts_failures_in_a_row_and_in_all() -> None:
    # A camera failing now and then: `attempt` counts the failures since its last good frame,
    # `failures` every one, never stuck at 1 (issue 19).
    device = FakeDevice(picture(100), None, picture(100), None, None, picture(100))
    watched = Watched(device, retry_s=0.1)
    for _ in range(6):
        watched.wait(watched.step())
    assert [(s.state, s.attempt, s.failures) for s in watched.statuses] == [
        ("ok", 0, 0),
        ("retrying", 1, 1),
        ("ok", 0, 1),
        ("retrying", 1, 2),
        ("retrying", 2, 3),
        ("ok", 0, 3),
    ]
    assert watched.camera.status.to_json(watched.clock.now) == {"state": "ok", "failures": 3}


def test_a_damaged_photo_is_skipped_never_a_reason_to_replay_from_the_start(
    folder: Path,
) -> None:
    (folder / "frame-1.png").unlink()
    (folder / "frame-1.jpg").write_bytes(JPEG_START + bytes(range(256)) * 4)
    clock = Clock()
    frames: list[int] = []
    statuses: list[CameraStatus] = []
    replay = ReplaySource(folder, fps=2, clock=clock)
    camera = WatchedCamera(
        replay, lambda f: frames.append(level(f)), fps=4, on_status=statuses.append, clock=clock
    )
    for _ in range(50):  # a replay that started over at each failure would never end
        delay = camera.step()
        if delay is None:
            break
        clock.now += delay
    assert frames == [40, 40, 120, 120]  # each photo in its turn, none of them twice over
    assert all(status.state != "retrying" for status in statuses)
    status = camera.status
    assert (status.state, status.failures, status.skipped) == ("ended", 0, 1)  # read twice
    assert status.to_json(clock.now)["last_skipped"] == (
        f"cannot read image {folder / 'frame-1.jpg'}: not an image that OpenCV reads "
        "(PNG, JPEG ...)"
    )


@given(
    content=st.one_of(
        st.binary(max_size=2048),
        st.binary(max_size=2048).map(lambda data: JPEG_START + data),
        st.integers(0, 4000).map(lambda size: DICE_PHOTO.read_bytes()[:size]),
    )
)
def test_any_bytes_as_a_photo_are_a_frame_or_skipped_never_a_traceback(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        assert cv2.imwrite(str(folder / "a.png"), picture(100))
        (folder / "b.jpg").write_bytes(content)
        clock = Clock()
        frames: list[Image] = []
        replay = ReplaySource(folder, fps=1, clock=clock)
        # Whatever the bytes decode to is shown, even a flat picture: this is about reading.
        camera = WatchedCamera(replay, frames.append, 1, min_mean=0, min_spread=0, clock=clock)
        for _ in range(10):  # a replay that started over at each failure would never end
            delay = camera.step()
            if delay is None:
                break
            clock.now += delay
        status = camera.status
        assert (status.state, status.failures) == ("ended", 0)
        # The good frame, then the bytes: not listed as an image, an image, or skipped.
        assert (len(frames), status.skipped) in ((1, 0), (2, 0), (1, 1))
        if status.skipped:
            assert status.skipped_reason == (
                f"cannot read image {folder / 'b.jpg'}: not an image that OpenCV reads "
                "(PNG, JPEG ...)"
            )


def test_status_as_json() -> None:
    assert CameraStatus("ok").to_json(5.0) == {"state": "ok"}
    retrying = CameraStatus("retrying", "cannot open camera 0", 3, 7.25)
    assert retrying.to_json(5.0) == {
        "state": "retrying",
        "reason": "cannot open camera 0",
        "attempt": 3,
        "retry_in_s": 2.25,
    }
    assert retrying.to_json(9.0)["retry_in_s"] == 0.0


def test_bad_settings_are_refused() -> None:
    source = OpenCvSource(0, 1, 1, 10, capture=FakeDevice())
    with pytest.raises(ValueError, match="fps"):
        WatchedCamera(source, print, 0)
    with pytest.raises(ValueError, match="retry_s"):
        WatchedCamera(source, print, 10, retry_s=5, retry_max_s=1)


# The watched camera on its own thread.


def test_thread_delivers_frames_survives_an_unplug_and_closes_the_camera() -> None:
    device = FakeDevice(picture(100), None, picture(100), picture(100))
    got = threading.Event()
    frames: list[Image] = []

    def on_frame(frame: Image) -> None:
        frames.append(frame)
        if len(frames) == 3:
            got.set()

    camera = WatchedCamera(
        OpenCvSource(0, WIDTH, HEIGHT, 500, capture=device),
        on_frame,
        fps=500,
        retry_s=0.001,
    )
    camera.start()
    assert got.wait(5)
    camera.close()
    assert camera.status == CameraStatus("ok", failures=1)
    assert device.opened == 2
    assert device.released == 2  # after the failed read, and on close
