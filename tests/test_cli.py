"""The command line, run as a user would: simulate, run, status, crash and resume, bad config."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from conftest import REPO, smartboard

from controller.cli import main
from controller.journal import Journal
from controller.operations import OPERATIONS


def test_simulate_reports_finished_games() -> None:
    done = smartboard("simulate", "akuma", "--games", "300", "--seed", "1", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["games"] == report["finished"] == 300
    assert sum(report["wins"].values()) == 300
    assert set(report["wins"]) == {"hawkmoth", "ladybug"}
    assert report["mean_actions"] > 3 and report["seconds"] >= 0


def test_run_until_end_prints_a_winner_and_status_agrees(tmp_path: Path) -> None:
    args = ("--sim", "--bots", "--game", "akuma", "--until-end", "--pace", "0")
    done = smartboard("run", *args, "--state-dir", str(tmp_path), "--seed", "3")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.rsplit("result: ", 1)[1])
    assert len(result["winners"]) == 1
    status = smartboard("status", "--state-dir", str(tmp_path), "--json")
    summary = json.loads(status.stdout)
    assert summary["game"] == "akuma"
    assert summary["result"]["winners"] == result["winners"]
    assert summary["to_move"] is None
    assert summary["history"][0]["type"] == "ChooseDice"


def test_killed_daemon_resumes_the_same_game(tmp_path: Path) -> None:
    args = ["run", "--sim", "--bots", "--game", "akuma", "--pace", "0.05", "--seed", "11"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", *args, "--state-dir", str(tmp_path)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    journal = Journal(tmp_path)
    deadline = time.monotonic() + 30
    before: list[dict[str, object]] = []
    while time.monotonic() < deadline and len(before) < 6:
        time.sleep(0.2)
        if journal.exists():
            before = journal.read().history()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert len(before) >= 6, "the game did not get going before the kill"
    before = journal.read().history()  # everything applied before the kill
    done = smartboard(*args[:-2], "--pace", "0", "--until-end", "--state-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    final = journal.read().history()
    assert final[: len(before)] == before
    status = json.loads(smartboard("status", "--state-dir", str(tmp_path), "--json").stdout)
    assert status["result"] is not None


def test_bad_config_exits_78_with_a_clear_message(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[leds]\nbrightness_cap = 3\n")
    done = smartboard("run", "--sim", "--config", str(config), "--state-dir", str(tmp_path))
    assert done.returncode == 78
    assert "leds.brightness_cap" in done.stderr and str(config) in done.stderr


def test_a_second_daemon_on_the_same_state_dir_exits_73(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its own status, not 65 (a journal that does not replay): the journal is not at fault."""
    first = Journal(tmp_path)
    first.lock()
    try:
        assert main(["run", "--sim", "--no-show", "--state-dir", str(tmp_path)]) == 73
    finally:
        first.close()
    assert f"another smartboard daemon is using {tmp_path}" in capsys.readouterr().err


def test_neopixel_backend_off_a_pi_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "pi.toml"
    config.write_text('[reeds]\nbackend = "sim"\n')
    done = smartboard("run", "--config", str(config), "--state-dir", str(tmp_path))
    assert done.returncode == 78
    assert "neopixel" in done.stderr and "pi" in done.stderr


def test_status_without_a_journal_says_so(tmp_path: Path) -> None:
    done = smartboard("status", "--state-dir", str(tmp_path), "--json")
    assert done.returncode == 1
    assert "no game journal" in done.stderr


def test_actions_without_a_daemon_says_so(tmp_path: Path) -> None:
    done = smartboard("actions", "--state-dir", str(tmp_path))
    assert done.returncode == 1
    assert "is `smartboard run` running?" in done.stderr


def test_help_lists_every_command() -> None:
    done = smartboard("--help")
    for command in ("run", "simulate", "status", "actions", "act", "roll", "correct", "new"):
        assert command in done.stdout


def test_version_names_the_installed_package(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"smartboard {version('smartboard')}\n"


def test_a_reader_that_stops_early_ends_the_command_quietly() -> None:
    """`smartboard cards list | head -1`: exit 141, as a tool killed by SIGPIPE, no traceback."""
    read_end, write_end = os.pipe()
    # One page of pipe: the 5 KB list cannot all be written before the reader is gone.
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    command = [sys.executable, "-m", "controller", "cards", "list", "--game", "potions"]
    with os.fdopen(write_end, "wb") as writer:
        proc = subprocess.Popen(command, cwd=REPO, stdout=writer, stderr=subprocess.PIPE)
    with os.fdopen(read_end, "rb", buffering=0) as reader:
        first = b""
        while not first.endswith(b"\n"):
            first += reader.read(1)
    _, stderr = proc.communicate(timeout=60)
    assert first.startswith(b"2x1: "), first
    assert (proc.returncode, stderr) == (141, b"")


def test_the_daemon_commands_take_their_help_from_the_control_ops() -> None:
    done = smartboard("act", "--help")
    assert done.returncode == 0 and OPERATIONS["act"].arguments[0].help in done.stdout


def test_the_command_line_does_not_load_opencv() -> None:
    """`--help`, `status`, `act` and `roll` answer without the camera's library."""
    check = "import sys, controller.cli; assert 'cv2' not in sys.modules"
    done = subprocess.run([sys.executable, "-c", check], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "controller", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert traced.returncode == 0 and " cv2" not in traced.stderr


def test_a_finished_game_stays_until_a_new_one_is_asked_for(tmp_path: Path) -> None:
    args = ("run", "--sim", "--bots", "--until-end", "--pace", "0", "--state-dir", str(tmp_path))
    first = smartboard(*args, "--seed", "4")
    assert first.returncode == 0, first.stderr
    history = Journal(tmp_path).read().history()
    again = smartboard(*args)  # the game is over: the result again, nothing new played
    assert again.returncode == 0, again.stderr
    assert again.stdout.rsplit("result: ", 1)[1] == first.stdout.rsplit("result: ", 1)[1]
    assert Journal(tmp_path).read().history() == history
    fresh = smartboard(*args, "--new-game", "--seed", "5")
    assert fresh.returncode == 0, fresh.stderr
    assert len(list(tmp_path.glob("journal-*.jsonl"))) == 1


def test_players_and_teams_are_refused_for_a_game_without_them(tmp_path: Path) -> None:
    """A two-player game takes `--players 2`, as a person would say it (the walk: `--players 2`
    stopped Multipli Potion), and refuses any other number, and teams it has not."""
    refusals = {
        ("--players", "3"): "Capture the Akuma is for 2 players, not 3",
        ("--teams",): "akuma takes no --teams option",
    }
    for args, said in refusals.items():
        simulated = smartboard("simulate", "akuma", "--games", "1", *args)
        assert simulated.returncode == 2
        assert said in simulated.stderr
        run = smartboard("run", "--sim", "--game", "akuma", *args, "--state-dir", str(tmp_path))
        assert run.returncode == 2
        assert said in run.stderr
    assert not Journal(tmp_path).exists()  # refused before any game was started
    played = smartboard("simulate", "potions", "--games", "1", "--players", "2")
    assert played.returncode == 0, played.stderr


def test_status_text_names_the_winner(tmp_path: Path) -> None:
    args = ("--sim", "--bots", "--until-end", "--pace", "0", "--seed", "2", "--no-show")
    assert smartboard("run", *args, "--state-dir", str(tmp_path)).returncode == 0
    done = smartboard("status", "--state-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Capture the Akuma, turn ")
    assert " won" in done.stdout


def test_a_mistyped_command_is_told_the_one_meant(capsys: pytest.CaptureFixture[str]) -> None:
    """The walk: `smartboard stauts` listed all the commands and no more."""
    with pytest.raises(SystemExit) as ended:
        main(["stauts"])
    assert ended.value.code == 2
    assert capsys.readouterr().err.rstrip().endswith("; did you mean status?")
