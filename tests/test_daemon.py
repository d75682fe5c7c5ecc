"""The daemon end to end on the simulated table: bots, lights, the control socket, the journal."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from controller.config import load_config
from controller.control import request
from controller.daemon import Daemon, RunOptions, StartupError
from controller.journal import Journal
from controller.rules.akuma import GAME


def sim_config(settle: float = 0.2):  # type: ignore[no-untyped-def]
    return replace(load_config(None).simulated(), debounce_s=0.005, settle_s=settle)


def options(tmp_path: Path, **changes: object) -> RunOptions:
    return replace(RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock"), **changes)


def test_bots_play_a_whole_game_that_the_journal_replays(tmp_path: Path) -> None:
    daemon = Daemon(sim_config(), options(tmp_path, bots=True, pace=0.0, until_end=True, seed=7))
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
    daemon = Daemon(sim_config(), options(tmp_path))
    daemon.open()
    thread = threading.Thread(target=daemon.run)
    thread.start()
    yield daemon
    daemon.stop()
    thread.join(timeout=5)
    daemon.close()


def call(daemon: Daemon, **message: object) -> dict[str, object]:
    return request(daemon.options.socket_path, dict(message))


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
    assert status["expected"] == ["4.trap"]
    assert not call(running, op="nonsense")["ok"]


def test_new_game_needs_the_old_one_over_or_abandoned(running: Daemon, tmp_path: Path) -> None:
    call(running, op="roll", values=[2])
    refused = call(running, op="new")
    assert not refused["ok"] and "in progress" in str(refused["error"])
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


def test_a_second_daemon_on_the_same_state_dir_is_refused(running: Daemon, tmp_path: Path) -> None:
    other = Daemon(sim_config(), options(tmp_path, socket_path=tmp_path / "other.sock"))
    with pytest.raises(StartupError, match="another smartboard daemon"):
        other.open()
    other.close()


def test_restart_resumes_the_same_game(tmp_path: Path) -> None:
    first = Daemon(sim_config(), options(tmp_path))
    first.open()
    first.session.on_dice((4,), now=0.0)
    history = first.session.state.history()
    first.close()
    second = Daemon(sim_config(), options(tmp_path))
    second.open()
    try:
        assert second.session.state.history() == history
        # The simulated pieces are where the game left them, so nothing needs fixing.
        assert second.session.sensed == second.session.expected == {"4.hawkmoth", "4.akuma"}
    finally:
        second.close()
