"""One camera over the table (vision/table_camera.py): the tray read with the reader of the
kind of die the game wants, the board read into frames for the daemon, both from one source;
and the daemon playing from it: a card game advancing as replayed frames change, icon dice read
as rolls, `--sim` keeping the simulated camera."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import wait_for
from daemon_run import call, serving
from numpy.typing import ArrayLike
from table_frames import calibrated, photograph, table_drawing

from controller.cli import main
from controller.config import Config, load_config
from controller.daemon import Daemon, RunOptions
from controller.journal import Journal
from controller.rules.potions import GAME as POTIONS
from controller.rules.potions import Deal, Place
from controller.rules.takeover import Roll
from controller.rules.voodoo import GAME as VOODOO
from controller.startup import SetupError, UnavailableError
from hardware.profile import builtin_profile_path, load_profile
from vision.board_camera import Board
from vision.calibration import Calibration
from vision.dice_settle import DiceSettler, SettledRoll
from vision.die import Die
from vision.frame_sources import CameraError
from vision.icon_dice import IconDie
from vision.icon_model import DiceKind
from vision.table_camera import BoardFrames, TableCamera, TrayDice
from vision.table_reader import BoardReading

BOX = (10, 10, 30, 30)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Scripted:
    """A tray reader that sees what the test lays in it, and counts its reads."""

    def __init__(self, dice: Sequence[Die] = ()) -> None:
        self.dice = list(dice)
        self.reads = 0

    def read(self, image: np.ndarray, region: ArrayLike | None = None) -> list[Die]:
        self.reads += 1
        return list(self.dice)


def settler() -> DiceSettler:
    return DiceSettler(2, 0.8, 4)


def feed(part: TrayDice | BoardFrames, frames: int) -> None:
    for _ in range(frames):
        part.frame(np.zeros((8, 8, 3), np.uint8))


def test_the_tray_is_read_with_the_kind_the_game_wants_its_faces_as_the_game_names_them() -> None:
    d6, d12 = Scripted([Die(4, BOX, 0.95)]), Scripted([Die("11", BOX, 0.9)])
    rolls: list[SettledRoll] = []
    tray = TrayDice({"d6": d6, "d12": d12}, settler, rolls.append)
    assert tray.kinds == ("d6", "d12")
    feed(tray, 2)  # no dice wanted yet: the first kind, as read (a throw may tell a choice)
    assert (d6.reads, d12.reads) == (2, 0)
    assert [r.values for r in rolls] == [(4,)]
    tray.want("d12", tuple(range(1, 13)))
    feed(tray, 2)
    assert d12.reads == 2
    assert [r.values for r in rolls] == [(4,), (11,)]  # the label "11" is the game's face 11
    tray.want("miraculous", ("venom", "voyage"))  # no reader: typed in, the tray not read
    feed(tray, 3)
    assert (d6.reads, d12.reads, tray.seen, len(rolls)) == (2, 2, [], 2)


def test_dice_left_lying_while_another_kind_is_wanted_are_not_read_again() -> None:
    # Akuma: the d6 read, the Miraculous die typed, the d6 wanted again for the next throw
    # while the last one still lies in the tray (issue 19).
    d6 = Scripted([Die(4, BOX, 0.95)])
    rolls: list[SettledRoll] = []
    tray = TrayDice({"d6": d6}, settler, rolls.append)
    tray.want("d6", range(1, 7))
    feed(tray, 3)
    tray.want("miraculous", ("venom", "voyage"))
    feed(tray, 2)
    tray.want("d6", range(1, 7))
    feed(tray, 3)
    assert [r.values for r in rolls] == [(4,)]
    d6.dice = [Die(4, (80, 10, 30, 30), 0.95)]  # thrown again: the same face, elsewhere
    feed(tray, 2)
    assert [r.values for r in rolls] == [(4,), (4,)]


def test_a_face_the_game_does_not_name_is_no_die_of_it() -> None:
    reader = Scripted([Die("venom", BOX, 0.99), Die("3", (60, 10, 30, 30), 0.9)])
    rolls: list[SettledRoll] = []
    tray = TrayDice({"d12": reader}, settler, rolls.append)
    tray.want("d12", tuple(range(1, 13)))
    feed(tray, 2)
    assert [r.values for r in rolls] == [(3,)]
    assert [die.to_json() for die in tray.seen] == [
        {"value": 3, "box": [60, 10, 30, 30], "confidence": 0.9}
    ]


class ScriptedBoard:
    def __init__(self) -> None:
        self.reading: BoardReading | ValueError = BoardReading({})

    def read(self, image: np.ndarray) -> BoardReading:
        if isinstance(self.reading, ValueError):
            raise self.reading
        return self.reading


def test_board_frames_with_an_unsure_spot_are_skipped() -> None:
    reader = ScriptedBoard()
    frames: list[Board] = []
    board = BoardFrames(reader, frames.append)
    reader.reading = BoardReading({"a": "red:point"})
    feed(board, 1)
    reader.reading = BoardReading({"a": "red:point"}, unsure=("b",))
    feed(board, 2)
    assert board.unsure == ("b",)
    reader.reading = ValueError("a 640 x 480 frame, but the calibration is for 1280 x 960")
    feed(board, 2)
    reader.reading = BoardReading({"a": "red:point", "b": "white:steal"})
    feed(board, 1)
    assert frames == [{"a": "red:point"}, {"a": "red:point", "b": "white:steal"}]
    assert board.unsure == ()


class CountingSource:
    def __init__(self) -> None:
        self.opened = 0
        self.frame = np.random.default_rng(0).integers(0, 255, (48, 64, 3), np.uint8)

    def open(self) -> None:
        self.opened += 1

    def read(self) -> np.ndarray:
        return self.frame

    def close(self) -> None:
        pass


def test_one_source_feeds_the_tray_and_the_board() -> None:
    source = CountingSource()
    reader, board_reader = Scripted([Die(2, BOX, 0.9)]), ScriptedBoard()
    frames: list[Board] = []
    camera = TableCamera(
        source,
        lambda status: None,
        100,
        0.5,
        1.0,
        dice=TrayDice({"d6": reader}, settler, lambda roll: None),
        board=BoardFrames(board_reader, frames.append),
    )
    for _ in range(3):
        camera.camera.step()
    assert source.opened == 1
    assert reader.reads == 3 and len(frames) == 3
    latest = camera.latest
    assert latest is not None and latest[0].shape == (48, 64, 3)
    assert [die.value for die in latest[1]] == [2] and camera.dice_kinds == ("d6",)


class Reconnecting(CountingSource):
    """A live camera that fails on its `fail_at`-th read, and comes back aimed a little aside."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.reads = 0

    def read(self) -> np.ndarray:
        self.reads += 1
        if self.reads == self.fail_at:
            raise CameraError("VIDIOC_DQBUF: No such device")
        return self.frame


class Aside(Scripted):
    """The tray's dice, seen 10 pixels further right after each reconnect of `source`."""

    def __init__(self, source: Reconnecting, dice: Sequence[Die]) -> None:
        super().__init__(dice)
        self.source = source

    def read(self, image: np.ndarray, region: ArrayLike | None = None) -> list[Die]:
        shift = 10 * (self.source.opened - 1)
        return [Die(d.value, (d.box[0] + shift, *d.box[1:]), d.confidence) for d in self.dice]


def test_a_camera_that_reconnects_mid_roll_reads_the_dice_lying_there_once() -> None:
    source = Reconnecting(fail_at=4)
    reader = Aside(source, [Die(2, BOX, 0.9), Die(5, (60, 10, 30, 30), 0.9)])
    rolls: list[SettledRoll] = []
    statuses: list[str] = []
    clock = Clock()
    camera = TableCamera(
        source,
        lambda status: statuses.append(status.state),
        10,
        0.5,
        1.0,
        dice=TrayDice({"d6": reader}, settler, rolls.append),
        clock=clock,
    )
    for _ in range(10):
        clock.now += camera.camera.step() or 0.0
    assert source.opened == 2 and "retrying" in statuses
    assert [roll.values for roll in rolls] == [(2, 5)]  # once, not again once it is back
    # Then the dice are picked up and thrown again: a new roll.
    reader.dice = []
    for _ in range(3):
        clock.now += camera.camera.step() or 0.0
    reader.dice = [Die(6, BOX, 0.9)]
    for _ in range(3):
        clock.now += camera.camera.step() or 0.0
    assert [roll.values for roll in rolls] == [(2, 5), (6,)]


# -- the daemon ---------------------------------------------------------------------------------


def fast(config: Config, **changes: Any) -> Config:
    quick = {"debounce_s": 0.005, "settle_s": 0.2, "camera_fps": 20.0, "stable_frames": 2}
    return replace(config, **{**quick, **changes})


def options(tmp_path: Path, game: str, **changes: Any) -> RunOptions:
    state = tmp_path / "state"
    run = RunOptions(state_dir=state, socket_path=state / "control.sock")
    return replace(run, game=game, **changes)


def test_a_card_game_advances_as_the_replayed_frames_change(tmp_path: Path) -> None:
    # smartboard run --sim --game potions --camera-folder FRAMES: the slots read from the frames.
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    tables = [
        {},
        {"s1.z1": "7x9", "s2.z1": "3x4"},  # set-up: a card face up in each zone, any order
        {"s1.z1": "7x9", "s2.z1": "3x4", "s1.z2": "6x8"},  # the first player places a card
    ]
    frames = tmp_path / "frames"
    frames.mkdir()
    for n, cards in enumerate(tables):
        image = photograph(table_drawing(profile, dict(cards)), seed=n)
        cv2.imwrite(str(frames / f"{n}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if n == 0:
            calibrated(image, profile).save(tmp_path / "state" / "calibration.json")
    config = fast(load_config(None).simulated().replaying(frames), replay_fps=1.5)
    with serving(config, options(tmp_path, "potions")) as daemon:
        assert daemon.sim_camera is None and daemon.camera is daemon.table_camera
        wait_for(lambda: call(daemon, op="status")["camera"]["state"] == "ended")
        status = call(daemon, op="status")
        assert status["board_unsure"] == []
        assert daemon.session.sensed == tables[-1]
        # The dashboard's camera view: the last frame, each slot labelled with what it shows.
        assert daemon.table_camera is not None and daemon.table_camera.board is not None
        assert daemon.table_camera.board.seen == tables[-1]
        jpeg = daemon.camera_view()
        assert jpeg is not None
        shown = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert shown.shape == cv2.imread(str(frames / "2.jpg")).shape
    history = POTIONS.replay(Journal(tmp_path / "state").read().history(), {}).actions()
    assert history[:2] == (Deal(0, "7x9"), Deal(1, "3x4"))
    assert isinstance(history[2], Place) and history[2].card == "6x8"


def test_sim_keeps_the_simulated_camera(tmp_path: Path) -> None:
    daemon = Daemon(fast(load_config(None).simulated()), options(tmp_path, "potions"))
    daemon.open()
    try:
        assert daemon.sim_camera is not None and daemon.table_camera is None
        assert daemon.alerts() == []
    finally:
        daemon.close()


def test_the_first_calibration_is_taken_from_the_running_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With no calibration yet the table starts anyway, its camera running for the builder and
    the board not read, and says so; the calibration taken and saved through the ops (the
    dashboard's), the board is read."""
    profile = load_profile(builtin_profile_path("potions"), POTIONS.spots())
    cards = {"s1.z1": "7x9", "s2.z1": "3x4"}
    frames = tmp_path / "frames"
    frames.mkdir()
    image = photograph(table_drawing(profile, dict(cards)), seed=0)
    cv2.imwrite(str(frames / "0.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    config = fast(load_config(None).simulated().replaying(frames), replay_fps=10.0)
    config = replace(config, replay_loop=True)
    with serving(config, options(tmp_path, "potions")) as daemon:
        assert daemon.sim_camera is None and daemon.camera is None
        assert "the camera is not calibrated" in caplog.text
        (alert,) = call(daemon, op="status")["alerts"]
        assert "smartboard calibrate --image FRAME.jpg --game potions" in alert
        assert [a["key"] for a in daemon.alerts()] == ["board_uncalibrated"]
        wait_for(lambda: daemon.desk.frame() is not None)
        assert daemon.session.sensed == {}  # the cards lie there, unread
        assert call(daemon, op="pause")["ok"]
        assert call(daemon, op="calibrate_take")["ok"]
        assert call(daemon, op="calibrate_save")["ok"]
        assert call(daemon, op="status")["alerts"] == []
        assert daemon.camera is daemon.table_camera and daemon.camera is not None
        assert call(daemon, op="resume")["ok"]
        wait_for(lambda: daemon.session.sensed == cards)
    history = POTIONS.replay(Journal(tmp_path / "state").read().history(), {}).actions()
    assert set(history[:2]) == {Deal(0, "7x9"), Deal(1, "3x4")}


@pytest.mark.parametrize("kept", ["another profile", "damaged"])
def test_a_calibration_for_another_profile_or_damaged_stops_the_start(
    tmp_path: Path, kept: str
) -> None:
    """Only a calibration never made waits for the dashboard: a wrong one is said at start-up."""
    path = tmp_path / "state" / "calibration.json"
    if kept == "damaged":
        path.parent.mkdir()
        path.write_text("{")
    else:
        eye = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        Calibration("Baron Voodoo, 7x7 board", (1280, 720), eye, (0, 1, 2, 3), 0.1).save(path)
    replaying = fast(load_config(None).simulated().replaying(tmp_path))
    daemon = Daemon(replaying, options(tmp_path, "potions"))
    with pytest.raises(SetupError, match=r"run `smartboard calibrate`"):
        daemon.open()
    daemon.close()


class FakeIconReader:
    """Stands in for a learned model of the d12: reads a 7, sure or not as the test says."""

    confidence = 0.95

    def __init__(self, model: object) -> None:
        pass

    def read(self, image: np.ndarray, region: ArrayLike | None = None) -> list[IconDie]:
        return [IconDie("7", None, BOX, self.confidence)]


def d12_daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, confidence: float) -> Config:
    """Takeover on the simulated table (its map is simulated: the camera cannot read it yet),
    its d12 read from replayed frames by a stand-in model."""
    frames = tmp_path / "frames"
    frames.mkdir()
    noise = np.random.default_rng(1).integers(0, 255, (120, 160, 3), np.uint8)
    cv2.imwrite(str(frames / "tray.png"), noise)
    monkeypatch.setattr("controller.backends.learned_model", lambda folder, kind: object())
    monkeypatch.setattr("vision.icon_dice.IconReader", FakeIconReader)
    monkeypatch.setattr(FakeIconReader, "confidence", confidence)
    return fast(load_config(None).simulated().replaying(frames), replay_loop=True)


def test_the_d12_is_read_as_a_roll(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = d12_daemon(tmp_path, monkeypatch, 0.95)
    with serving(config, options(tmp_path, "takeover")) as daemon:
        assert daemon.sim_camera is not None  # the map
        assert daemon.table_camera is not None and daemon.table_camera.dice_kinds == ("d12",)
        wait_for(lambda: bool(daemon.session.state.actions()))
        time.sleep(0.3)  # the die left lying is not read again
        assert daemon.session.state.actions() == (Roll(7),)
        assert call(daemon, op="status")["dice_seen"][0]["value"] == 7


def test_an_unsure_d12_waits_for_confirm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = d12_daemon(tmp_path, monkeypatch, 0.5)
    with serving(config, options(tmp_path, "takeover")) as daemon:
        wait_for(lambda: daemon.unsure is not None)
        assert daemon.session.state.actions() == ()
        assert call(daemon, op="status")["dice_unsure"]["values"] == [7]
        assert call(daemon, op="confirm")["ok"]
        assert daemon.session.state.actions() == (Roll(7),)


def test_icon_dice_with_no_model_are_typed_and_say_how_to_learn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frames = Path(__file__).parent / "data" / "dice" / "nell" / "images"
    config = fast(load_config(None).simulated().replaying(frames))
    with serving(config, options(tmp_path, "akuma", bots=True, pace=60.0)) as daemon:
        # Akuma's d6 are read, its Miraculous die typed (the bots roll it).
        assert daemon.table_camera is not None and daemon.table_camera.dice_kinds == ("d6",)
        assert daemon.bots is not None and daemon.bots.camera_kinds == {"d6"}
        typed = call(daemon, op="status")["dice_typed"]
        assert list(typed) == ["miraculous"]
        assert "smartboard dice learn --kind miraculous" in typed["miraculous"]
        assert main(["status", "--state-dir", str(tmp_path / "state")]) == 0
        assert "miraculous dice typed in: no model" in capsys.readouterr().out


class FakeSoulReader:
    """Stands in for a learned model of the soul dice: a red `steal` on the board's middle cell."""

    def __init__(self, model: object) -> None:
        pass

    def read(self, image: np.ndarray, region: ArrayLike | None = None) -> list[IconDie]:
        return []  # nothing in the tray

    def read_cells(
        self, image: np.ndarray, cells: Mapping[str, ArrayLike]
    ) -> dict[str, IconDie | None]:
        middle = np.asarray(cells["r3c3"]).mean(axis=0)
        height, width = image.shape[:2]
        # The calibration puts the board's middle at the frame's middle.
        assert middle == pytest.approx([width / 2, height / 2])
        return {
            name: IconDie("steal", "red", BOX, 0.9) if name == "r3c3" else None for name in cells
        }


def test_voodoo_cells_are_read_with_the_soul_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = tmp_path / "frames"
    frames.mkdir()
    noise = np.random.default_rng(2).integers(0, 255, (200, 200, 3), np.uint8)
    cv2.imwrite(str(frames / "board.png"), noise)
    profile = load_profile(builtin_profile_path("voodoo"), VOODOO.spots())
    half = ((2.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 1.0))  # 200 px over the 400 mm board
    Calibration(profile.name, (200, 200), half, (0, 1, 2, 3), 0.1).save(
        tmp_path / "state" / "calibration.json"
    )
    models: list[tuple[Path, str]] = []

    def learned(folder: Path, dice: DiceKind) -> object:
        models.append((folder, dice.kind))
        return object()

    monkeypatch.setattr("controller.backends.learned_model", learned)
    monkeypatch.setattr("vision.table_reader.learned_model", learned)
    monkeypatch.setattr("vision.icon_dice.IconReader", FakeSoulReader)
    config = fast(load_config(None).simulated().replaying(frames), replay_loop=True)
    with serving(config, options(tmp_path, "voodoo")) as daemon:
        assert daemon.sim_camera is None and daemon.table_camera is not None
        wait_for(lambda: daemon.settler.settled is not None)
        assert daemon.camera_board == {"r3c3": "red:steal"}  # BV-4: the top die, colour:face
        assert daemon.session.sensed == {"r3c3": "red:steal"}
    # The soul model of the tray and of the board, from the state directory ([dice] models unset).
    assert models == [(tmp_path / "state", "soul")] * 2


def test_a_damaged_model_stops_the_start_clearly(tmp_path: Path) -> None:
    frames = Path(__file__).parent / "data" / "dice" / "nell" / "images"
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "icon-model-miraculous.npz").write_bytes(b"not a model")
    daemon = Daemon(
        fast(load_config(None).simulated().replaying(frames)), options(tmp_path, "akuma")
    )
    with pytest.raises(UnavailableError, match="learn it again with `smartboard dice learn"):
        daemon.open()
    daemon.close()
