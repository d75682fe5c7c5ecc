"""The board camera of the simulated table (vision/board_camera.py) and the frame settler."""

from __future__ import annotations

import random
import threading

import pytest

from vision.board_camera import Board, FrameSettler, SimBoardCamera

SPOTS = [f"r0c{c}" for c in range(7)]
BOARD = {"r0c0": "yellow:steal", "r0c3": "red:curse", "r0c6": "white:protect"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def camera(noise: float = 0.0, delay_s: float = 0.0, seed: int = 1) -> tuple[SimBoardCamera, Clock]:
    clock = Clock()
    sim = SimBoardCamera(
        SPOTS,
        lambda _: None,
        10,
        noise=noise,
        delay_s=delay_s,
        rng=random.Random(seed),
        clock=clock,
    )
    return sim, clock


def test_frames_show_the_board_of_the_camera_spots_only() -> None:
    sim, _ = camera()
    assert sim.frame() == {}  # nothing laid out yet
    sim.show({**BOARD, "1.trap": "piece"})  # a spot the camera does not read
    assert sim.frame() == BOARD
    assert sim.truth == BOARD


def test_noise_misreads_each_spot_at_its_rate_with_tokens_seen_or_nothing() -> None:
    sim, _ = camera(noise=0.1, seed=7)
    sim.show(BOARD)
    misread = 0
    frames = 2000
    for _ in range(frames):
        frame = sim.frame()
        assert set(frame) <= set(SPOTS)
        assert set(frame.values()) <= set(BOARD.values())
        misread += len([spot for spot in SPOTS if frame.get(spot) != BOARD.get(spot)])
    assert misread / (frames * len(SPOTS)) == pytest.approx(0.1, abs=0.01)


def test_noise_is_reproducible_from_the_seed() -> None:
    first, _ = camera(noise=0.3, seed=3)
    second, _ = camera(noise=0.3, seed=3)
    first.show(BOARD)
    second.show(BOARD)
    assert [first.frame() for _ in range(50)] == [second.frame() for _ in range(50)]


def test_noise_of_one_misreads_every_spot() -> None:
    sim, _ = camera(noise=1.0)
    sim.show(BOARD)
    frame = sim.frame()
    assert all(frame.get(spot) != BOARD.get(spot) for spot in SPOTS)


def test_frames_lag_the_table_by_the_delay() -> None:
    sim, clock = camera(delay_s=0.5)
    sim.show(BOARD)
    clock.now = 0.4
    assert sim.frame() == {}  # the board laid out at 0 is not seen yet
    clock.now = 1.0
    moved = {"r0c1": "yellow:steal"}
    sim.show(moved)
    assert sim.frame() == BOARD
    assert sim.truth == moved
    clock.now = 1.49
    assert sim.frame() == BOARD
    clock.now = 1.5
    assert sim.frame() == moved


def test_camera_thread_delivers_frames_until_closed() -> None:
    frames: list[Board] = []
    enough = threading.Event()

    def on_frame(frame: Board) -> None:
        frames.append(frame)
        if len(frames) >= 3:
            enough.set()

    sim = SimBoardCamera(SPOTS, on_frame, fps=200)
    sim.show(BOARD)
    sim.start()
    try:
        assert enough.wait(timeout=5)
    finally:
        sim.close()
    count = len(frames)
    threading.Event().wait(0.05)
    assert len(frames) == count
    assert frames[0] == BOARD


@pytest.mark.parametrize(
    ("fps", "noise", "delay"), [(0, 0.0, 0.0), (10, 1.5, 0.0), (10, -0.1, 0.0), (10, 0.0, -1.0)]
)
def test_bad_camera_settings_are_refused(fps: float, noise: float, delay: float) -> None:
    with pytest.raises(ValueError):
        SimBoardCamera(SPOTS, lambda _: None, fps, noise=noise, delay_s=delay)


def test_settler_reports_nothing_while_frames_change() -> None:
    settler = FrameSettler(3)
    rolling = [{"r0c0": face} for face in ("yellow:steal", "yellow:curse", "yellow:hex")] * 3
    assert [settler.feed(frame) for frame in rolling] == [None] * len(rolling)
    assert settler.settled is None


def test_settler_reports_a_board_after_n_equal_frames_and_only_once() -> None:
    settler = FrameSettler(3)
    assert settler.feed(BOARD) is None
    assert settler.feed(dict(BOARD)) is None and settler.changing
    assert settler.feed(dict(BOARD)) == BOARD
    assert settler.settled == BOARD
    assert settler.feed(BOARD) is None  # still the same board: not reported again
    assert not settler.changing
    moved = {"r0c1": "yellow:steal"}
    assert settler.feed(moved) is None and settler.changing
    assert settler.feed(BOARD) is None  # a flicker back does not count as settling
    assert settler.feed(moved) is None
    assert settler.feed(moved) is None
    assert settler.feed(moved) == moved


def test_settler_of_one_frame_reports_each_new_board() -> None:
    settler = FrameSettler(1)
    assert settler.feed({}) == {}
    assert settler.feed(BOARD) == BOARD
    with pytest.raises(ValueError):
        FrameSettler(0)
