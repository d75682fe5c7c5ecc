"""The daemon end to end on the simulated table: bots, lights, the control socket, the journal."""

from __future__ import annotations

import queue
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import stack_game
from conftest import fast_sim_config, options_in, wait_for
from daemon_run import call, serving

from controller import rules
from controller.config import Config
from controller.daemon import Daemon, RunOptions, install_signal_handlers
from controller.journal import Journal
from controller.rules.akuma import GAME, square_cards
from controller.startup import StartupError, UnavailableError

CIVILIANS = square_cards(())


def test_bots_play_a_whole_game_that_the_journal_replays(tmp_path: Path) -> None:
    daemon = Daemon(
        fast_sim_config(), options_in(tmp_path, bots=True, pace=0.0, until_end=True, seed=7)
    )
    daemon.open()
    try:
        assert daemon.run() == 0
        state = daemon.session.state
        assert state.is_terminal()
        assert max(state.returns()) == 1.0
        record = Journal(tmp_path).read()
        assert GAME.replay(record.history(), record.options).history() == state.history()
        assert daemon.strip.writes >= 2  # type: ignore[attr-defined]
    finally:
        daemon.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Daemon]:
    with serving(fast_sim_config(), options_in(tmp_path)) as daemon:
        yield daemon


def test_control_socket_lists_applies_and_corrects(running: Daemon) -> None:
    listed = call(running, op="actions")
    assert listed["ok"] and listed["to_move"] == "hawkmoth"
    assert [a["id"] for a in listed["actions"]] == ["choose_dice:1", "choose_dice:2"]  # type: ignore[union-attr]
    assert call(running, op="roll", values=[6, 6])["applied"] == ["choose_dice:2", "roll:12"]
    corrected = call(running, op="correct", values=[6, 4])
    assert corrected["applied"] == ["choose_dice:2", "roll:10"]
    refused = call(running, op="act", id="voyage:2")
    assert not refused["ok"] and "not a legal action" in str(refused["error"])
    assert call(running, op="act", id="place_trap:4")["applied"] == ["place_trap:4"]
    status = call(running, op="status")
    assert status["to_move"] == "ladybug"
    assert status["expected"] == CIVILIANS | {"4.trap": "piece"}
    assert not call(running, op="nonsense")["ok"]


def test_new_game_needs_the_old_one_over_or_abandoned(running: Daemon, tmp_path: Path) -> None:
    call(running, op="roll", values=[2])
    played = call(running, op="status")["history"]
    refused = call(running, op="new")
    assert refused == {
        "ok": False,
        "error": "a game is in progress; abandon it with `smartboard new --abandon` "
        "(or the page's New game)",
    }
    # A mistake in the new game is said first: giving this game up would not mend it.
    mistaken = call(running, op="new", computer=["3"])
    assert not mistaken["ok"] and "seat" in str(mistaken["error"])
    assert "abandon" not in str(mistaken["error"])
    assert played and call(running, op="status")["history"] == played
    assert call(running, op="new", abandon=True)["ok"]
    assert call(running, op="status")["history"] == []
    kept = list(tmp_path.glob("journal-*.jsonl"))
    assert len(kept) == 1  # the abandoned game is kept, not lost


def test_a_trap_put_on_the_table_is_seen_and_lit(running: Daemon) -> None:
    call(running, op="roll", values=[5, 5])  # a 10: Hawk Moth places a trap (AK-4)
    running.reeds.drive("8.trap", True)
    for _ in range(200):
        status = call(running, op="status")
        if status["history"] and status["history"][-1] == {"type": "PlaceTrap", "square": 8}:  # type: ignore[index]
            break
        threading.Event().wait(0.01)
    else:
        pytest.fail("the trap placement was not inferred")
    frame = running.strip.last  # type: ignore[attr-defined]
    trap_led = running.profile.spots["8.trap"].leds[0]
    cap = running.config.brightness_cap
    expected = tuple(int(c * cap) for c in running.config.palette["trap"])
    assert frame[trap_led] == expected


def test_a_piece_left_to_put_right_never_spins_the_loop(running: Daemon) -> None:
    """Rolled 5, the akuma is to be laid on 5 (AK-5). Until a hand does, the loop wakes to blink
    its lights, not at once: a settle deadline already past kept a core busy (90 % of one here)
    for as long as the piece was missing."""
    call(running, op="act", id="choose_dice:1")
    call(running, op="roll", values=[5])
    clock = running.clock
    for _ in range(500):
        if running.session.fixes(clock()):
            break
        threading.Event().wait(0.01)
    else:
        pytest.fail("the akuma to lay never blinked")
    assert running._timeout(clock(), None) > 0.0


def _waits_while_settled(daemon: Daemon, count: int = 10) -> list[float]:
    """The loop's wait at `count` instants the table is settled before and after it is taken:
    a single sample could fall while the table is busy, when the hands' step is not waited
    for, and pass on a loop that spins."""
    waits: list[float] = []
    for _ in range(1000):
        if len(waits) == count:
            break
        if not daemon.table_busy():
            wait = daemon._timeout(daemon.clock(), None)
            if not daemon.table_busy():
                waits.append(wait)
        threading.Event().wait(0.005)
    assert len(waits) == count, "the table never settled"
    return waits


def test_a_paused_game_of_bots_never_spins_the_loop(tmp_path: Path) -> None:
    """Paused, the bots do not step; their next step, due and never taken, woke the loop at
    once, again and again, for as long as the game stayed paused (a core busy)."""
    with serving(fast_sim_config(), options_in(tmp_path, bots=True, pace=60.0)) as daemon:
        assert call(daemon, op="pause")["ok"]
        assert daemon.bots is not None
        daemon.bots.next_step = daemon.clock() - 1.0  # due while paused
        assert min(_waits_while_settled(daemon)) > 0.0


def test_a_finished_game_of_bots_lets_the_loop_sleep(tmp_path: Path) -> None:
    """`make run` keeps serving once the bots' game is over. Their last step, due and never
    taken, woke the loop at once for as long as the page stayed open (a core busy)."""
    with serving(fast_sim_config(), options_in(tmp_path, bots=True, pace=0.0, seed=7)) as daemon:
        wait_for(lambda: daemon.session.state.is_terminal(), 60.0, "the end of the game")
        # Once its last step has found nothing to do, the loop waits, whenever it is asked.
        waits = _waits_while_settled(daemon, count=40)
        assert min(waits[20:]) > 0.0


def test_frames_and_requests_waiting_are_no_pieces_on_their_way(tmp_path: Path) -> None:
    """The camera's frames keep coming and pages keep asking: neither makes the table look busy
    to a page waiting for it to settle (it was sent the same table without end)."""
    daemon = Daemon(fast_sim_config(), options_in(tmp_path))
    daemon.open()
    try:
        camera = daemon.sim_camera
        assert camera is not None
        board = camera.truth
        for _ in range(daemon.config.stable_frames):
            daemon.settler.feed(board)
        daemon.events.on_frame(board)
        daemon.events.submit_control({"op": "snapshot"}, queue.Queue())
        assert not daemon.snapshot(0.0)["settling"]
        daemon.events.on_edge("5.trap", True, 0.0)  # a piece laid, not yet read
        assert daemon.snapshot(0.0)["settling"]
    finally:
        daemon.close()


def test_a_stop_signal_never_waits_for_the_event_queue(tmp_path: Path) -> None:
    """SIGTERM may come while the loop's own thread holds the event queue's lock (in the middle
    of taking an event): the handler must not wait for it. It hung systemd's stop for ever."""
    daemon = Daemon(fast_sim_config(), options_in(tmp_path))
    kept = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    held, release = threading.Event(), threading.Event()

    def hold_the_queue() -> None:
        with daemon.events._queue.mutex:  # as queue.get holds it
            held.set()
            release.wait(5)

    holder = threading.Thread(target=hold_the_queue)
    try:
        install_signal_handlers(daemon)
        holder.start()
        held.wait()
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        handler(signal.SIGTERM, None)
        assert daemon.stopping
    finally:
        release.set()
        holder.join()
        for number, handler_kept in kept.items():
            signal.signal(number, handler_kept)


def test_a_second_daemon_on_the_same_state_dir_is_refused(running: Daemon, tmp_path: Path) -> None:
    other = Daemon(fast_sim_config(), options_in(tmp_path, socket_path=tmp_path / "other.sock"))
    with pytest.raises(StartupError, match="another smartboard daemon"):
        other.open()
    other.close()


def test_restart_resumes_the_same_game(tmp_path: Path) -> None:
    first = Daemon(fast_sim_config(), options_in(tmp_path))
    first.open()
    first.session.on_dice((4,), now=0.0)
    history = first.session.state.history()
    first.close()
    second = Daemon(fast_sim_config(), options_in(tmp_path))
    second.open()
    try:
        assert second.session.state.history() == history
        # The simulated pieces are where the game left them, so nothing needs fixing.
        expected = CIVILIANS | {"4": "akumatized-4", "4.akuma": "piece", "4.hawkmoth": "piece"}
        assert second.session.sensed == second.session.expected == expected
    finally:
        second.close()


# -- a game read by the camera: the three-cell stack game of tests/stack_game.py ---------------


@pytest.fixture
def stacks_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Config:
    monkeypatch.setitem(rules.GAMES, stack_game.GAME.name, stack_game.GAME)
    profile = tmp_path / "stacks.toml"
    profile.write_text(stack_game.PROFILE)
    return replace(
        fast_sim_config(), game="stacks", profile=profile, camera_fps=100, stable_frames=2
    )


def stacks_options(tmp_path: Path, **changes: object) -> RunOptions:
    return options_in(tmp_path / "state", **changes)


def test_bots_play_a_camera_game_through_noise_and_delay(
    tmp_path: Path, stacks_config: Config
) -> None:
    config = replace(stacks_config, sim_noise=0.05, sim_delay_s=0.03)
    run = stacks_options(tmp_path, bots=True, pace=0.0, until_end=True, seed=5)
    daemon = Daemon(config, replace(run, options={"moves": 4}))
    daemon.open()
    try:
        assert daemon.camera is not None and not daemon.reeds.channels
        assert daemon.run() == 0
        state = daemon.session.state
        assert state.is_terminal() and len(state.actions()) == 3 + 4
        # --until-end waited for the camera to settle on the final board.
        assert daemon.settler.settled == daemon.session.expected == stack_game.GAME.layout(state)
        record = Journal(tmp_path / "state").read()
        assert record.options["moves"] == 4
        replayed = stack_game.GAME.replay(record.history(), record.options)
        assert replayed.history() == state.history()
    finally:
        daemon.close()


def test_resumed_sim_camera_shows_the_board_the_journal_left(
    tmp_path: Path, stacks_config: Config
) -> None:
    first = Daemon(stacks_config, stacks_options(tmp_path))
    first.open()
    first.session.on_layout({"a": "red:1"}, now=0.0)  # the first die of the set-up
    assert first.session.state.actions() == (stack_game.Put("a", "red:1", 0),)
    first.close()
    second = Daemon(stacks_config, stacks_options(tmp_path))
    second.open()
    try:
        assert second.sim_camera is not None
        assert second.sim_camera.truth == {"a": "red:1"}
        assert second.sensed() == second.session.expected == {"a": "red:1"}
    finally:
        second.close()


def test_resuming_with_other_game_options_is_refused(tmp_path: Path, stacks_config: Config) -> None:
    first = Daemon(stacks_config, stacks_options(tmp_path, options={"moves": 3}))
    first.open()
    first.close()
    second = Daemon(stacks_config, stacks_options(tmp_path, options={"moves": 5}))
    with pytest.raises(
        StartupError, match=r"moves.*run again without the game's settings.*add --new-game"
    ):
        second.open()
    second.close()


def test_camera_game_on_a_real_table_is_refused_clearly(
    tmp_path: Path, stacks_config: Config
) -> None:
    daemon = Daemon(replace(stacks_config, reeds_backend="gpio"), stacks_options(tmp_path))
    with pytest.raises(UnavailableError, match="pieces is not available yet"):
        daemon.open()
    daemon.close()
