"""The camera as the dice source: real photos replayed as frames, settled into Akuma's rolls;
unsure readings shown and confirmed; a failing camera flashed on the table, never changing
the game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import options_in, wait_for
from daemon_run import call, serving
from dice_photos import PHOTOS, load, photos
from web_daemon import fetch

from controller.cli import main
from controller.config import Config, load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.lights import role_colour
from controller.rules.akuma import GAME, POWERS, ChooseDice, Roll
from controller.rules.potions import GAME as POTIONS
from controller.startup import StartupError, UnavailableError
from hardware.leds import limit_frame
from hardware.profile import builtin_profile_path, load_profile
from vision.calibration import Calibration
from vision.dice_reader import DiceReader
from vision.dice_settle import DiceSettler, SettledRoll
from vision.dice_sources import DiceReading
from vision.frame_sources import CameraError, Image, ReplaySource
from vision.table_camera import TableCamera, TrayDice

TRAY = PHOTOS / "nell" / "images"  # one or two dice in each: Akuma's rolls


def camera_config(**changes: object) -> Config:
    """The simulated table, with rolls read from TRAY replayed fast and in a loop."""
    config = load_config(None).simulated().replaying(TRAY)
    fast = {
        "debounce_s": 0.005,
        "settle_s": 0.2,
        "camera_fps": 20.0,
        "replay_fps": 4.0,
        "replay_loop": True,
        "dice_stable_frames": 3,
        "dice_min_confidence": 0.0,
    }
    return replace(config, **{**fast, **changes})  # type: ignore[arg-type]


def options(tmp_path: Path, **changes: object) -> RunOptions:
    return options_in(tmp_path, **({"game": "akuma"} | changes))


def flashed(daemon: Daemon, role: str) -> bool:
    """Whether every LED has shown the role's colour at once (as the brightness cap allows)."""
    config = daemon.config
    count = daemon.profile.led_count
    colour = role_colour(role, config.palette)
    flash = limit_frame((colour,) * count, config.brightness_cap, config.power_budget_ma)
    return any(frame == flash for _, frame in daemon.strip.frames)  # type: ignore[attr-defined]


def photo_rolls() -> dict[int, tuple[int, ...]]:
    """The values shown in each photo of TRAY, by their number of dice... as totals."""
    return {
        i: tuple(sorted(label.value for label in load(photo)[1]))
        for i, photo in enumerate(photos("nell"))
    }


def test_a_photo_held_still_is_one_roll_left_to_right() -> None:
    rolls: list[SettledRoll] = []
    image, truth = load(photos("nell")[0])
    tray = TrayDice({"d6": DiceReader("top")}, lambda: DiceSettler(3, 0.0, 8), rolls.append)
    camera = TableCamera(ReplaySource(TRAY, 1.0), lambda status: None, 10, 0.5, 1.0, dice=tray)
    for _ in range(6):
        camera.frame(image)
    left_to_right = sorted(truth, key=lambda label: label.box[0])
    assert [roll.values for roll in rolls] == [tuple(label.value for label in left_to_right)]
    assert rolls[0].certain and rolls[0].reading.source == "camera"
    assert len(camera.seen) == len(truth)


# Phantom rolls (issue 19): a damaged photo, a camera that fails and comes back.

DAMAGED = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8
"""Garbage behind a JPEG's first bytes: listed as an image, unreadable."""


def damaged_folder(tmp_path: Path) -> Path:
    """The first four photos, with a damaged one between the second and the third."""
    folder = tmp_path / "frames"
    folder.mkdir()
    for name, photo in zip("abde", photos("nell")[:4], strict=True):
        (folder / f"{name}.jpg").write_bytes(photo.read_bytes())
    (folder / "c.jpg").write_bytes(DAMAGED)
    return folder


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LooseCable:
    """A replay whose `fail_at`-th read fails, once, as a camera on a loose cable does."""

    def __init__(self, replay: ReplaySource, fail_at: int) -> None:
        self.replay = replay
        self.fail_at = fail_at
        self.reads = 0

    def open(self) -> None:
        self.replay.open()

    def read(self) -> Image:
        self.reads += 1
        if self.reads == self.fail_at:
            raise CameraError("camera unplugged")
        return self.replay.read()

    def close(self) -> None:
        self.replay.close()


def camera_rolls(
    source: ReplaySource | LooseCable,
    clock: Clock,
    settler: Callable[[], DiceSettler] = lambda: DiceSettler(2, 0.0, 8),
) -> tuple[list[SettledRoll], TableCamera]:
    """The rolls read in the tray as the camera steps through `source` (2 frames a second) on
    `clock`, until the replay ends (a replay that started over would not end)."""
    rolls: list[SettledRoll] = []
    tray = TrayDice({"d6": DiceReader("top")}, settler, rolls.append)
    camera = TableCamera(source, lambda status: None, 2, 0.5, 1.0, dice=tray, clock=clock)
    for _ in range(40):
        delay = camera.camera.step()
        if delay is None:
            break
        clock.now += delay
    return rolls, camera


def camera_frames(photo: Path, folder: Path, count: int) -> Path:
    """`count` frames of a camera looking at the dice of `photo`: each a little shifted, noisy
    and compressed anew (benchmarks/dice_frames.py measures such frames)."""
    image = load(photo)[0]
    rng = np.random.default_rng(0)
    folder.mkdir()
    for i in range(count):
        shift = np.float32([[1, 0, rng.uniform(-1.5, 1.5)], [0, 1, rng.uniform(-1.5, 1.5)]])
        moved = cv2.warpAffine(image, shift, image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
        noisy = np.clip(moved + rng.normal(0, 2, moved.shape), 0, 255).astype(np.uint8)
        quality = [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 96))]
        cv2.imwrite(str(folder / f"{i}.jpg"), noisy, quality)
    return folder


def test_a_die_unsure_in_each_frame_is_read_surely_from_several(tmp_path: Path) -> None:
    # The five of this photo reads 0.4 to 0.9 sure as the frames change.
    frames = camera_frames(photos("nell")[5], tmp_path / "frames", 6)
    read = {}
    for combined in (1, 5):
        rolls, _ = camera_rolls(
            ReplaySource(frames, 2.0, clock=(clock := Clock())),
            clock,
            lambda: DiceSettler(3, 0.8, 8, combined),  # noqa: B023 (called in the loop)
        )
        read[combined] = [(roll.values, roll.certain) for roll in rolls]
    assert read[1][-1] == ((5, 1), False)  # each frame alone: still asking
    assert read[5][-1] == ((5, 1), True)


def test_a_damaged_photo_is_skipped_each_photo_one_roll(tmp_path: Path) -> None:
    clock = Clock()
    rolls, camera = camera_rolls(ReplaySource(damaged_folder(tmp_path), 0.5, clock=clock), clock)
    assert [tuple(sorted(roll.values)) for roll in rolls] == [photo_rolls()[i] for i in range(4)]
    status = camera.status
    assert (status.state, status.failures, status.skipped) == ("ended", 0, 1)
    assert "c.jpg" in status.skipped_reason


def test_a_camera_back_from_a_failure_reads_no_roll_twice(tmp_path: Path) -> None:
    clock = Clock()
    folder = damaged_folder(tmp_path)
    (folder / "c.jpg").unlink()
    # Each photo is due for 2 s, read every 0.5 s: the 7th read, of the second photo once it
    # has been read as a roll, fails; the camera is opened again half a second later.
    replay = LooseCable(ReplaySource(folder, 0.5, clock=clock), fail_at=7)
    rolls, camera = camera_rolls(replay, clock)
    assert [tuple(sorted(roll.values)) for roll in rolls] == [photo_rolls()[i] for i in range(4)]
    assert camera.status.failures == 1


def test_the_table_plays_each_photo_once_past_a_damaged_one(tmp_path: Path) -> None:
    folder = damaged_folder(tmp_path)
    config = camera_config(replay_loop=False, replay_fps=1.5, camera_fps=10.0)
    config = replace(config, camera_device=str(folder))
    with serving(config, options(tmp_path, bots=True, pace=0.0, seed=3)) as daemon:
        wait_for(lambda: call(daemon, op="status")["camera"]["state"] == "ended", timeout=30)
        camera = call(daemon, op="status")["camera"]
    assert camera["frames_skipped"] == 1 and "c.jpg" in camera["last_skipped"]
    assert "failures" not in camera  # a damaged photo is no failure of the camera
    history = GAME.replay(Journal(tmp_path).read().history(), {}).actions()
    played = [action.total for action in history if isinstance(action, Roll)]
    shown = [sum(photo_rolls()[i]) for i in range(4)]  # 4, 3, 8, 10: told apart by their totals
    # Each photo's roll at most once (one the game did not want then is not applied), in order.
    assert played and played == [total for total in shown if total in played]


def test_bots_play_akuma_with_rolls_read_from_replayed_photos(tmp_path: Path) -> None:
    shown = {sum(values): len(values) for values in photo_rolls().values()}
    run = options(tmp_path, bots=True, pace=0.0, until_end=True, seed=3)
    with serving(camera_config(), run) as daemon:
        assert daemon.bots is not None and daemon.table_camera is not None
        thrown: list[DiceReading] = []
        submit = daemon.bots.submit_dice

        def spy(reading: DiceReading) -> None:
            thrown.append(reading)
            submit(reading)

        daemon.bots.submit_dice = spy

        def rolls() -> int:
            return sum(isinstance(a, Roll) for a in daemon.session.state.actions())

        wait_for(lambda: daemon.session.state.is_terminal() or rolls() >= 4, timeout=60)
    # The bots threw only the Miraculous Powers die, which the camera does not read yet.
    assert all(reading.values[0] in POWERS for reading in thrown)
    history = GAME.replay(Journal(tmp_path).read().history(), {}).actions()
    read = [i for i, action in enumerate(history) if isinstance(action, Roll)]
    assert read
    for i in read:
        roll = history[i]
        assert isinstance(roll, Roll)
        # Every roll is the total of the dice of one of the photos, thrown as chosen (AK-3).
        assert roll.total in shown
        chosen = [a for a in history[:i] if isinstance(a, ChooseDice)][-1]
        assert chosen.count == shown[roll.total]


def test_an_unsure_roll_waits_flashing_until_confirmed(tmp_path: Path) -> None:
    config = camera_config(dice_min_confidence=1.0, replay_loop=False, replay_fps=0.2)
    with serving(config, options(tmp_path)) as daemon:
        wait_for(lambda: daemon.unsure is not None)
        before = daemon.session.state.actions()
        status = call(daemon, op="status")
        values = status["dice_unsure"]["values"]
        assert sorted(values) == list(photo_rolls()[0])
        assert "unsure" in status["message"] and "smartboard confirm" in status["message"]
        wait_for(lambda: flashed(daemon, "unsure"))
        assert daemon.session.state.actions() == before  # not applied
        reply = call(daemon, op="confirm")
        assert reply["ok"], reply
        assert reply["applied"] == [f"choose_dice:{len(values)}", f"roll:{sum(values)}"]
        assert call(daemon, op="status")["dice_unsure"] is None
        assert not call(daemon, op="confirm")["ok"]


def test_a_failing_camera_flashes_and_leaves_the_game_alone(tmp_path: Path) -> None:
    config = replace(camera_config(), camera_device=str(tmp_path / "unplugged"))
    with serving(config, options(tmp_path)) as daemon:
        before = daemon.session.state.actions()
        wait_for(lambda: call(daemon, op="status")["camera"]["state"] == "retrying")
        status = call(daemon, op="status")
        assert "no folder or video file" in status["camera"]["reason"]
        assert status["message"].startswith("camera failing")
        wait_for(lambda: flashed(daemon, "camera_fault"))
        # Each retry counted: in a row, and in all (issue 19).
        wait_for(lambda: call(daemon, op="status")["camera"].get("attempt", 0) >= 2)
        status = call(daemon, op="status")
        assert status["camera"]["failures"] >= status["camera"]["attempt"] >= 2
        assert status["alerts"] == [
            f"the camera is not answering: {status['camera']['reason']} "
            f"(attempt {status['camera']['attempt']}; failures in all: "
            f"{status['camera']['failures']})"
        ]
        assert call(daemon, op="roll", values=[3])["ok"]  # typed rolls still play
        assert len(daemon.session.state.actions()) == len(before) + 2


def test_the_pi_camera_missing_off_a_pi_is_a_clear_error(tmp_path: Path) -> None:
    config = replace(camera_config(), camera_source="picamera2", camera_device="0")
    calibration_for("Capture the Akuma, 3x3 board").save(tmp_path / "calibration.json")
    daemon = Daemon(config, options(tmp_path))
    with pytest.raises(UnavailableError, match="picamera2") as caught:
        daemon.open()
    daemon.close()
    assert "--sim" in str(caught.value)  # the cards on the squares are read too


def test_games_without_dice_read_no_dice(tmp_path: Path) -> None:
    # Multipli Potion rolls no dice: its frames are read for the card slots alone.
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    calibration_for(profile.name).save(tmp_path / "calibration.json")
    daemon = Daemon(camera_config(), options(tmp_path, game="potions"))
    daemon.open()
    try:
        assert daemon.table_camera is not None and daemon.table_camera.board is not None
        assert daemon.table_camera.dice is None
    finally:
        daemon.close()


def calibration_for(profile_name: str) -> Calibration:
    """A camera 2 pixels to the millimetre, square over the table."""
    half = ((0.5, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.0, 1.0))
    return Calibration(profile_name, (1280, 960), half, (0, 1, 2, 3), 0.3)


def test_a_calibrated_camera_reads_only_the_profiles_tray(tmp_path: Path) -> None:
    daemon = Daemon(camera_config(), options(tmp_path))
    daemon.open()  # photos of dice, with no calibration: the whole frame
    try:
        assert daemon.table_camera is not None and daemon.table_camera.dice is not None
        assert daemon.table_camera.dice.tray is None
        assert daemon.sim_camera is not None  # the cards on the squares stay simulated
        name = daemon.profile.name
    finally:
        daemon.close()
    config = replace(camera_config(), camera_source="opencv", camera_device=str(tmp_path / "no"))
    daemon = Daemon(config, options(tmp_path))
    daemon.open()  # a live camera reads the cards on the squares through the calibration:
    try:  # with none yet, the table starts for the builder to calibrate, the board not read
        assert "calibrate" in str(daemon.backends.uncalibrated)
        assert daemon.table_camera is not None and daemon.table_camera.board is None
    finally:
        daemon.close()
    calibration_for(name).save(tmp_path / "calibration.json")
    daemon = Daemon(config, options(tmp_path))
    daemon.open()
    try:
        assert daemon.table_camera is not None and daemon.table_camera.dice is not None
        x, y, w, h = daemon.profile.dice_tray  # type: ignore[misc]
        corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
        assert daemon.table_camera.dice.tray.tolist() == [[2 * a, 2 * b] for a, b in corners]  # type: ignore[union-attr]
    finally:
        daemon.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not valid JSON"),
        ('{"profile": "x"}', "is malformed"),
        (None, "is for 'Mightymania"),
    ],
)
def test_a_bad_calibration_stops_the_start_clearly(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "calibration.json"
    if content is None:
        calibration_for("Mightymania, 2 x 4 card positions and 2 x 5 round slots").save(path)
    else:
        path.write_text(content)
    config = replace(camera_config(), camera_source="opencv", camera_calibration=path)
    daemon = Daemon(config, options(tmp_path))
    with pytest.raises(StartupError, match=message):
        daemon.open()
    daemon.close()


def test_status_shows_the_running_tables_camera_and_confirm_needs_a_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = camera_config(replay_loop=False, replay_fps=0.2)
    with serving(config, options(tmp_path)) as daemon:
        wait_for(lambda: bool(daemon.table_camera and daemon.table_camera.seen))
        assert main(["status", "--state-dir", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        # The first roll may be read and applied already.
        assert out.startswith("Capture the Akuma, turn ")
        assert "  camera: ok" in out
        assert "  dice seen: 4 (" in out  # the first photo's die
        # Each die is read from the frames it lay still in ([dice] combine_frames).
        assert daemon.table_camera is not None and daemon.table_camera.dice is not None
        assert daemon.table_camera.dice.make_settler().frames == 5
        assert main(["confirm", "--state-dir", str(tmp_path)]) == 1
        assert "no unsure dice reading to confirm" in capsys.readouterr().err
    assert main(["status", "--state-dir", str(tmp_path)]) == 0  # from the journal alone
    assert "camera" not in capsys.readouterr().out


def test_run_refuses_a_camera_folder_that_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "frames"
    args = ["run", "--sim", "--game", "akuma", "--camera-folder", str(missing)]
    assert main([*args, "--state-dir", str(tmp_path)]) == 2
    assert f"--camera-folder {missing}: no such folder or file" in capsys.readouterr().err


def test_the_end_of_a_replay_says_rolls_can_be_typed(tmp_path: Path) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "roll.jpg").write_bytes(photos("nell")[0].read_bytes())
    config = replace(camera_config(replay_loop=False), camera_device=str(frames))
    with serving(config, options(tmp_path)) as daemon:
        wait_for(lambda: call(daemon, op="status")["camera"]["state"] == "ended")
        assert "type the rolls with `smartboard roll`" in call(daemon, op="status")["message"]
        assert call(daemon, op="roll", values=[2, 5])["ok"]


def test_an_unsure_roll_is_shown_outlined_and_settled_die_by_die(tmp_path: Path) -> None:
    # The player's view (issue 22): the tray as read, each unsure die outlined, and a tap on one
    # of its best two readings settling it; a value changed makes the roll `corrected`.
    config = camera_config(
        dice_min_confidence=1.0, replay_loop=False, replay_fps=0.2, web_listen="127.0.0.1:0"
    )
    with serving(config, options(tmp_path)) as daemon:
        wait_for(lambda: daemon.unsure is not None)
        assert daemon.web is not None
        held = call(daemon, op="status")["dice_unsure"]
        key = {"X-Smartboard-Token": daemon.web.token}  # type: ignore[attr-defined]
        url = f"{daemon.web.url()}api/unsure.jpg?roll="
        shown = fetch(f"{url}{held['roll']}", headers=key)
        assert shown.status == 200 and shown.headers["Content-Type"] == "image/jpeg"
        picture = cv2.imdecode(np.frombuffer(shown.body, np.uint8), cv2.IMREAD_COLOR)
        assert picture is not None and max(picture.shape) == 480
        # Each unsure die outlined in orange (BGR 0, 160, 255), give or take the JPEG's loss;
        # none in green, as no die is sure.
        drawn = picture.astype(int)
        orange = np.all(np.abs(drawn - (0, 160, 255)) < 40, axis=2).sum()
        green = np.all(np.abs(drawn - (0, 200, 0)) < 40, axis=2).sum()
        assert orange > 500 * len(held["dice"]) and green < 50
        assert fetch(f"{url}{held['roll'] + 1}", headers=key).status == 404  # no such roll
        assert held["text"].startswith(
            f"dice read {', '.join(map(str, held['values']))} but unsure"
        )
        refused = call(daemon, op="confirm", die=len(held["values"]) + 1, face=1)
        assert refused["key"] == "no_such_die" and "numbered 1 to" in refused["error"]
        first, *rest = held["dice"]
        assert len(first["readings"]) == 2  # the top view's reader gives each face's chance
        other = first["readings"][1]["face"]
        taps = [(first["die"], other), *((die["die"], die["value"]) for die in rest)]
        for die, face in taps[:-1]:
            assert call(daemon, op="confirm", die=die, face=face)["applied"] == []
        reply = call(daemon, op="confirm", die=taps[-1][0], face=taps[-1][1])
        assert reply["ok"] and reply["applied"], reply
        assert call(daemon, op="status")["dice_unsure"] is None
    journal = Journal(tmp_path).read()
    (roll,) = [e["dice"] for e in journal.entries if "dice" in e]
    values = list(held["values"])
    values[first["die"] - 1] = other
    assert (roll["values"], roll["source"]) == (values, "corrected")
