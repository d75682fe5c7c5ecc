"""Phantom rolls from the camera (issue 19, point 6): damaged photos, a camera that reconnects.

1. The daemon plays Akuma on the simulated table with its bots, the d6 rolls read by the real
   dice reader from real photos replayed as the camera's frames (the replay, the watched camera,
   the tray's settler: what `smartboard run --sim --camera-folder DIR` runs). Between the photos
   lie damaged ones: a JPEG's and a PNG's first bytes, then garbage. Each readable photo must be
   one roll, never read again after a damaged one; the damaged ones skipped and counted.
2. The same components without the daemon, on a stepped clock: the camera fails once while
   each of the last three photos lies in the tray, after it was read, and is opened again. Each
   photo must still be one roll, and every failure counted.

Run: .venv/bin/python benchmarks/fault_camera.py
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

from controller.config import load_config
from controller.daemon import Daemon
from controller.rules.akuma import Roll
from controller.startup import RunOptions
from vision.dice_reader import DiceReader
from vision.dice_settle import DiceSettler, SettledRoll
from vision.frame_sources import CameraError, Image, ReplaySource
from vision.table_camera import TableCamera, TrayDice

PHOTOS = Path(__file__).resolve().parent.parent / "tests" / "data" / "dice" / "nell" / "images"
DAMAGED = {
    "jpg": b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8,
    "png": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8,
}
REPLAY_FPS = 1.0  # each photo lies in the tray for a second: time for the bots to play on
TIMEOUT_S = 30.0


def camera_folder(folder: Path, damaged: bool) -> tuple[int, int]:
    """Four photos of dice, if `damaged` with a damaged one after the first two and after the
    third: (damaged, readable)."""
    folder.mkdir()
    photos = sorted(PHOTOS.glob("*.jpg"))[:4]
    names = iter("abcdef")
    for i, photo in enumerate(photos):
        (folder / f"{next(names)}.jpg").write_bytes(photo.read_bytes())
        if damaged and i in (1, 2):
            ext = "jpg" if i == 1 else "png"
            (folder / f"{next(names)}.{ext}").write_bytes(DAMAGED[ext])
    return len(DAMAGED) if damaged else 0, len(photos)


class SteppedClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LooseCable:
    """A replay that fails once at the first read at or after each of `fail_at` (seconds)."""

    def __init__(self, replay: ReplaySource, clock: SteppedClock, fail_at: list[float]) -> None:
        self.replay = replay
        self.clock = clock
        self.fail_at = sorted(fail_at)

    def open(self) -> None:
        self.replay.open()

    def read(self) -> Image:
        if self.fail_at and self.clock() >= self.fail_at[0]:
            self.fail_at.pop(0)
            raise CameraError("camera unplugged")
        return self.replay.read()

    def close(self) -> None:
        self.replay.close()


def reconnecting(folder: Path) -> dict[str, object]:
    """Each photo for 2 s, read every 0.5 s; the camera fails 1 s into the second, third and
    fourth photos, once each has been read as a roll, and is back half a second later."""
    _, readable = camera_folder(folder, damaged=False)
    clock = SteppedClock()
    fail_at = [2.0 * i + 1.0 for i in range(1, 4)]
    source = LooseCable(ReplaySource(folder, 0.5, clock=clock), clock, fail_at)
    rolls: list[SettledRoll] = []
    tray = TrayDice({"d6": DiceReader("top")}, lambda: DiceSettler(2, 0.0, 8), rolls.append)
    camera = TableCamera(source, lambda status: None, 2, 0.5, 1.0, dice=tray, clock=clock)
    for _ in range(100):
        delay = camera.camera.step()
        if delay is None:
            break
        clock.now += delay
    return {
        "camera_failures_injected": len(fail_at),
        "camera_failures_counted": camera.status.failures,
        "camera_reconnect_rolls_expected": readable,
        "camera_reconnect_rolls_read": len(rolls),
        "camera_reconnect_phantom_rolls": len(rolls) - readable,
    }


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        frames = tmp / "frames"
        bad, readable = camera_folder(frames, damaged=True)
        config = replace(
            load_config(None).simulated().replaying(frames),
            debounce_s=0.005,
            settle_s=0.2,
            camera_fps=10.0,
            replay_fps=REPLAY_FPS,
            replay_loop=False,
            dice_stable_frames=3,
            dice_min_confidence=0.0,
            web_listen="",
        )
        state = tmp / "state"
        state.mkdir()
        run = RunOptions(
            state_dir=state,
            socket_path=state / "control.sock",
            game="akuma",
            bots=True,
            pace=0.0,
            seed=3,
        )
        daemon = Daemon(config, run)
        read: list[SettledRoll] = []
        on_roll = daemon.events.on_roll

        def counted(roll: SettledRoll) -> None:
            read.append(roll)
            on_roll(roll)

        daemon.events.on_roll = counted  # type: ignore[method-assign]
        daemon.open()
        thread = threading.Thread(target=daemon.run)
        thread.start()
        try:
            camera = daemon.table_camera
            assert camera is not None
            deadline = time.monotonic() + TIMEOUT_S
            while camera.status.state != "ended" and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.3)  # the last roll's way through the daemon's queue
            status = camera.status
        finally:
            daemon.stop()
            thread.join(timeout=10)
            applied = sum(isinstance(a, Roll) for a in daemon.session.state.actions())
            daemon.close()
        reconnects = reconnecting(tmp / "clean")
    return {
        "camera_bad_frames": bad,
        "camera_frames_skipped": status.skipped,
        "camera_failures_from_bad_frames": status.failures,
        "camera_replay_ended": status.state == "ended",
        "camera_rolls_expected": readable,
        "camera_rolls_read": len(read),
        "camera_rolls_applied": applied,
        "camera_phantom_rolls": applied - readable,
        **reconnects,
    }


if __name__ == "__main__":
    print(json.dumps(measure()))
