"""A whole Hostile Takeover game read by the daemon from rendered camera frames (issue 21): the map
kit's pieces seen through the calibration, the pawns on simulated reeds, the d12 typed in."""

from __future__ import annotations

import random
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from conftest import wait_for
from daemon_run import call, serving
from map_photos import KIT, SIZE, Camera, Laid, drawing, laid, pawns, write_frames

from controller.config import Config, load_config
from controller.daemon import COVERED_S, Daemon, RunOptions
from controller.rules import GAMES
from controller.rules.api import PRESENT, Action, GameState, Layout
from controller.rules.takeover import (
    Attack,
    Claim,
    Move,
    PlaceSpawn,
    PlaceTile,
    Roll,
    TakeoverState,
)
from controller.startup import board_profile
from hardware.profile import BoardProfile
from hardware.reeds import ReedBank
from vision.board_camera import HIDDEN
from vision.calibration import Calibration

GAME = GAMES["takeover"]


class LiveCamera:
    """A camera over a table the test lays out: each read is a frame of the layout shown last,
    as one camera, fixed over one table, sees it."""

    def __init__(self, profile: BoardProfile, seed: int) -> None:
        self.profile = profile
        self.salt = str(seed)
        self._lock = threading.Lock()
        image, _ = drawing(profile, [])
        self.camera = Camera.random((image.shape[1], image.shape[0]), random.Random(seed))
        self._frame = self._photograph(image)

    def calibration(self) -> Calibration:
        return self.camera.calibration(self.profile)

    def show(self, layout: Layout) -> None:
        self.show_pieces(laid(layout, self.salt), pawns(layout))

    def show_pieces(self, pieces: list[Laid], standing: list[str]) -> None:
        image, _ = drawing(self.profile, pieces, standing)
        frame = self._photograph(image)
        with self._lock:
            self._frame = frame

    def _photograph(self, image: np.ndarray) -> np.ndarray:
        """The drawing in perspective, slightly blurred: the hard photos are the benchmark's."""
        frame = cv2.warpPerspective(image, self.camera.matrix, SIZE, flags=cv2.INTER_AREA)
        return cv2.GaussianBlur(frame, (0, 0), 0.7)

    def open(self) -> None:
        pass

    def read(self) -> np.ndarray:
        with self._lock:
            return self._frame

    def close(self) -> None:
        pass


def camera_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, **changes: Any
) -> tuple[Config, RunOptions, LiveCamera]:
    """The simulated table's reeds under a camera that `LiveCamera` shows, calibrated."""
    config = replace(
        load_config(None).simulated(),
        **{
            "camera_backend": "camera",
            "camera_source": "opencv",
            "camera_fps": 20,
            "stable_frames": 2,
            "settle_s": 0.2,
            **changes,
        },
    )
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    live = LiveCamera(board_profile(config, GAME), seed)
    live.calibration().save(state_dir / "calibration.json")
    monkeypatch.setattr("controller.backends.frame_source", lambda *args: live)
    run = RunOptions(state_dir=state_dir, socket_path=state_dir / "control.sock", game="takeover")
    return config, run, live


def choose(state: TakeoverState, rng: random.Random, claimed: list[int]) -> Action:
    """A short game: set-up at random; then one claim of a small building, attacks whenever a
    pawn is in reach, and otherwise a step toward the other pawn (HT-5)."""
    legal = state.legal_actions()
    if state.phase.value in ("tiles", "buildings") or state.spawns[0] is None:
        return rng.choice(legal)
    spots = state.spawns if state.phase.value == "spawns" else state.pawns
    other = next((c for p, c in enumerate(spots) if p != state.player and c is not None), None)
    if other is None:  # stepping off a loser's spawn (HT-5): anywhere will do
        return legal[0]
    size = state.grid.size

    def distance(action: Action) -> int:
        if not isinstance(action, Move | PlaceSpawn):
            return 99
        cell = state.grid.index[action.cell]
        return max(abs(cell // size - other // size), abs(cell % size - other % size))

    if state.phase.value == "spawns":  # blue spawns near red, to fight soon
        return min(legal, key=distance)
    small = [
        a for a in legal if isinstance(a, Claim) and state.buildings[a.building].size == "small"
    ]
    if small and not claimed:
        claimed.append(small[0].building)
        return small[0]
    attacks = [a for a in legal if isinstance(a, Attack)]
    if attacks:
        return attacks[0]
    return min(legal, key=distance)


def rolled(state: TakeoverState) -> Roll:
    """The d12 the test throws: red starts; a claim of a small building takes it at once; the
    attacker wins every fight (HT-5)."""
    if state.phase.value == "first_roll":
        return Roll(9 if state.roller() == 0 else 4)
    if state.phase.value == "defend_roll":
        return Roll(1)
    return Roll(12)


def test_a_whole_game_is_read_from_the_camera_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HT-1 to HT-6 on the table: tiles, buildings and spawns laid from the kit and read in the
    frames, pawns moved on the reeds, a claimed building swapped for its owner's colour, fights
    to the end; the journal holds the game the test played."""
    # The settle time is longer than the hands take to follow a roll.
    config, run, live = camera_table(tmp_path, monkeypatch, 3, settle_s=0.3, debounce_s=0.005)
    rng = random.Random(5)
    ours: GameState = GAME.new_initial_state({"players": 2})
    claimed: list[int] = []
    with serving(config, run) as daemon:
        assert daemon.sim_camera is None and daemon.table_camera is not None
        reeds = daemon.reeds
        assert isinstance(reeds, ReedBank)
        while not ours.is_terminal():
            if ours.is_chance_node():
                action: Action = rolled(TakeoverState.of(ours))
            else:
                action = choose(TakeoverState.of(ours), rng, claimed)
            before = GAME.layout(ours)
            ours.apply(action)
            if isinstance(action, Roll):
                assert call(daemon, op="roll", values=[action.value])["ok"]
                # The table may see more in the pawns as they stand: a winner who never
                # stepped onto the loser's spawn has stepped off it already (HT-5).
                for extra in daemon.session.state.actions()[len(ours.actions()) :]:
                    ours.apply(extra)
            after = GAME.layout(ours)
            moved = [s for s in reeds.channels if (before.get(s) == PRESENT) != (s in after)]
            if isinstance(action, Roll):
                # The hands follow the dice at once: pawns back to their spawns, then the
                # claimed building swapped under the camera.
                for spot in moved:
                    reeds.drive(spot, spot in after)
                if after != before:
                    live.show(after)
            else:
                if before == after:
                    assert call(daemon, op="act", id=action.id)["ok"]
                # The map under the camera first: a spawn is seen before its pawn stands on
                # it and hides it (HT-4).
                if any(k.endswith(".map") and after.get(k) != before.get(k) for k in after):
                    live.show({k: v for k, v in after.items() if k not in moved})
                    shown = {k: v for k, v in after.items() if k.endswith(".map")}
                    wait_for(lambda m=shown: daemon.camera_board == m, what=f"{action.id} seen")
                for spot in moved:
                    reeds.drive(spot, spot in after)
                if after != before:
                    live.show(after)
            played = len(ours.actions())
            wait_for(lambda n=played: len(daemon.session.state.actions()) >= n, what=action.id)
            assert daemon.session.state.actions() == ours.actions()
        assert daemon.session.state.is_terminal()
        # The claimed building was swapped for its owner's and read so (HT-5).
        buildings = GAME.describe(daemon.session.state)["buildings"]
        assert claimed and buildings[claimed[0]]["owner"] == "red"
        assert daemon.board_unsure is None


def test_run_with_a_camera_folder_reads_the_map_from_its_frames(tmp_path: Path) -> None:
    """`smartboard run --sim --game takeover --camera-folder DIR`: the first two tiles (HT-1)
    laid in the replayed frames are the tiles placed."""
    config = replace(
        load_config(None).simulated().replaying(tmp_path / "frames"),
        replay_fps=4.0,
        camera_fps=20.0,
        stable_frames=2,
        settle_s=0.2,
    )
    state = GAME.new_initial_state({"players": 2})
    layouts = [GAME.layout(state)]
    for action in (Roll(9), Roll(4), PlaceTile("r4c4"), PlaceTile("r4c6")):
        state.apply(action)
        if GAME.layout(state) != layouts[-1]:
            layouts.append(GAME.layout(state))
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    profile = board_profile(config, GAME)
    write_frames(tmp_path / "frames", profile, layouts, seed=2).save(state_dir / "calibration.json")
    run = RunOptions(state_dir=state_dir, socket_path=state_dir / "control.sock", game="takeover")
    with serving(config, run) as daemon:
        assert daemon.sim_camera is None and daemon.camera is daemon.table_camera
        assert call(daemon, op="roll", values=[9])["ok"]
        assert call(daemon, op="roll", values=[4])["ok"]
        wait_for(lambda: call(daemon, op="status")["camera"]["state"] == "ended")
        wait_for(lambda: call(daemon, op="status")["details"]["tiles_placed"] == 2)
        status = call(daemon, op="status")
        assert status["details"]["tiles"] == ["r4c4", "r4c6"]
        assert status["board_unsure"] == []


def test_a_map_that_cannot_be_is_said_and_lit_and_never_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tile laid across another (HT-1) is no map: the frame is skipped, the status says which
    cells and why, they blink, and the game waits; the tile laid right is then played."""
    config, run, live = camera_table(tmp_path, monkeypatch, 4)
    tile = KIT["tile"]
    with serving(config, run) as daemon:
        for value in (9, 4):
            assert call(daemon, op="roll", values=[value])["ok"]
        live.show_pieces([Laid(tile, (4, 4), 0, (0, 0, 0)), Laid(tile, (5, 4), 0, (0, 0, 0))], [])

        def said() -> list[str]:
            return [a for a in call(daemon, op="status")["alerts"] if "cannot read" in a]

        wait_for(lambda: said() != [], what="the alert")
        (alert,) = said()
        assert alert.startswith("the camera cannot read the board at ") and "overlap" in alert
        assert "r4c5.map" in alert and "r4c6.map" in alert
        view = daemon.view(0.0)
        assert view.roles["r4c5.map"] == "fix" and "r4c5.map" in view.blinking
        assert call(daemon, op="status")["details"]["tiles_placed"] == 0
        live.show_pieces([Laid(tile, (4, 4), 0, (0, 0, 0))], [])
        wait_for(lambda: call(daemon, op="status")["details"]["tiles_placed"] == 1)
        assert said() == []


def test_a_pawn_hides_the_cell_under_it_and_the_map_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pawn on its spawn (HT-4) hides the spawn's markers: a frame that sees nothing there, or
    the cell covered, keeps the spawn; one that sees something else there is taken as it is. A
    cell covered where no pawn stands is a hand passing: skipped, and said once it lasts."""
    config, run, _live = camera_table(tmp_path, monkeypatch, 5)
    daemon = Daemon(config, run)  # opened, not run: the test alone handles its events
    daemon.open()
    try:
        daemon.camera_board = {"r2c2.map": "spawn:red", "r2c3.map": "tile"}
        hidden = GAME.hidden({"r2c2": PRESENT, "r9c9": PRESENT, "r2c2.map": "tile"})
        assert hidden == {"r2c2.map", "r9c9.map"}
        daemon.debouncer.edge("r2c2", True, 0.0)
        daemon.debouncer.poll(1.0)
        seen = daemon._seen_through
        assert seen({"r2c3.map": "tile"}, 0.0) == {"r2c3.map": "tile", "r2c2.map": "spawn:red"}
        assert seen({"r2c2.map": "tile"}, 0.0) == {"r2c2.map": "tile"}
        assert seen({"r2c2.map": HIDDEN}, 0.0) == {"r2c2.map": "spawn:red"}
        assert seen({}, 0.0) == {"r2c2.map": "spawn:red"}
        covered = {"r2c2.map": HIDDEN, "r2c3.map": HIDDEN}
        assert seen(covered, 10.0) is None and daemon.board_unsure is None
        assert seen(covered, 10.0 + COVERED_S) is None
        assert daemon.board_unsure is not None and daemon.board_unsure.doubtful == ("r2c3.map",)
        (alert,) = [a["text"] for a in daemon.alerts() if a["key"] == "board_unsure"]
        assert "covered, and no piece felt on the reed there: r2c3.map" in alert
        daemon._handle(("frame", {"r2c2.map": HIDDEN, "r2c3.map": "tile"}))
        assert daemon.board_unsure is None
    finally:
        daemon.close()
