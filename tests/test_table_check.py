"""`smartboard check`: the table tested part by part on the simulated table, each wiring fault
injected found and named, the command's exit status and report, a profile's every problem with
its line, a silent camera reported in time, and the daemon's `check` op."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import fast_sim_config
from daemon_run import call, serving

from controller.check_camera import check_camera
from controller.check_report import CheckEvent, CheckReport, Fault, quiet
from controller.check_table import CheckOptions, SimFaults, open_table, run_check
from controller.cli import main
from controller.config import load_config
from controller.daemon import Daemon, RunOptions
from controller.profile_lint import lint_profile
from controller.rules import get_game
from controller.startup import StartupError, board_profile
from firmware import protocol
from hardware.profile import BoardProfile, ProfileError, builtin_profile_path, load_profile
from hardware.reeds import ReedBank
from vision.calibration import Calibration
from vision.frame_sources import CameraError, EndOfFrames, Image

TAKEOVER = get_game("takeover")


def check(profile: str, *faults: str, parts: tuple[str, ...] = ()) -> CheckReport:
    """The automatic check of a built-in takeover profile on the simulated table."""
    profile_read = load_profile(builtin_profile_path(profile), TAKEOVER.spots())
    injected = SimFaults()
    for spec in faults:
        injected = injected.add(spec)
    injected.check(profile_read)
    # The simulated Pico reports a reed within milliseconds; on a loaded machine (CI, the
    # tests in parallel) 0.2 s was once too short, and a live reed was taken for dead.
    options = CheckOptions(parts=parts or CheckOptions().parts, spot_timeout_s=0.5)
    config = load_config(None).simulated()
    with open_table(config, TAKEOVER, profile_read, Path("/nonexistent"), True, injected) as table:
        return run_check(table, options)


def kinds(report: CheckReport) -> dict[str, list[Fault]]:
    found: dict[str, list[Fault]] = {}
    for fault in report.faults():
        found.setdefault(fault.kind, []).append(fault)
    return found


def test_a_clean_simulated_table_passes_every_automatic_part() -> None:
    report = check("takeover")
    parts = report.to_json()["parts"]
    assert report.passed and report.faults() == []
    assert [name for name in parts] == ["profile", "lights", "reeds", "link", "camera"]
    assert parts["lights"]["status"] == "passed" and parts["lights"]["figures"]["read_back"]
    assert parts["reeds"]["figures"]["walked"] == 144 and parts["reeds"]["figures"]["skipped"] == []
    assert parts["link"]["status"] == parts["camera"]["status"] == "skipped"
    # 144 LEDs at full white draw 8.6 A, 3 A at the 35 % cap: more than the 2 A supply.
    lights = parts["lights"]["figures"]
    assert (lights["full_white_ma"], lights["capped_white_ma"]) == (8640, 3024)
    assert [w["kind"] for w in report.to_json()["warnings"]] == ["over_budget"]


def test_the_walk_names_two_crossed_reeds_as_a_swap_and_a_dead_expander() -> None:
    report = check("takeover", "crossed:r3c5,r3c6", "dead-expander:6", parts=("reeds",))
    assert not report.passed
    found = kinds(report)
    assert set(found) == {"crossed", "dead_group"}
    (crossed,) = found["crossed"]
    assert crossed.spots == ("r3c5", "r3c6") and crossed.channels == ("4:9", "4:10")
    assert crossed.text.startswith("r3c5 and r3c6 look swapped")
    (dead,) = found["dead_group"]
    # Cells 64 to 79 in reading order: line n % 16 of gpiochip 2 + n // 16.
    assert "/dev/gpiochip6 does not answer: none of its 16 reeds closed" in dead.text
    assert dead.spots[0] == "r5c4" and dead.spots[-1] == "r6c7" and len(dead.spots) == 16


def test_a_chattering_reed_is_counted_and_named() -> None:
    report = check("takeover", "chatter:r0c0", parts=("reeds",))
    (chatter,) = report.faults()
    assert chatter.kind == "chatter" and chatter.spots == ("r0c0",)
    # Five edges each time the piece comes and goes, where a clean reed makes one.
    assert report.parts[0].figures["bounce_counts"] == {"r0c0": 8}


def test_a_dead_led_and_one_stuck_lit_are_named_with_their_spots() -> None:
    report = check("takeover", "stuck-led:17", "stuck-led:30=#ff0000", parts=("lights",))
    found = kinds(report)
    assert set(found) == {"dead_led", "stuck_led"}
    assert found["dead_led"][0].leds == (17,) and found["dead_led"][0].spots == ("r1c6",)
    assert found["stuck_led"][0].leds == (30,) and "(255, 0, 0)" in found["stuck_led"][0].text


def test_a_real_strip_passes_on_the_word_of_the_person_who_watched_it() -> None:
    """The builder's walk: a real strip cannot be read back, and its check passed whatever the
    LEDs did. The walk asks which were wrong; without it, it says it was not watched."""
    profile = load_profile(builtin_profile_path("takeover"), TAKEOVER.spots())
    config = load_config(None).simulated()
    questions: list[str] = []
    answers = iter(["17 some", "17, 300", "17 30"])

    def person(question: str) -> str:
        questions.append(question)
        return next(answers)

    with open_table(config, TAKEOVER, profile, Path("/nonexistent"), True) as table:
        table.shown = None  # as a real strip: nothing reads back what it shows
        options = CheckOptions(parts=("lights",), walk=True, ask=person)
        (walked,) = run_check(table, options).parts
        (unwatched,) = run_check(table, CheckOptions(parts=("lights",)), quiet).parts
    assert questions[0].startswith("which LEDs stayed dark, stayed lit, or showed a wrong")
    assert questions[1:] == ["LED numbers from 0 to 143, or Enter if every one lit: "] * 2
    (seen,) = [f for f in walked.faults if f.severity == "fault"]
    assert seen.kind == "seen_wrong" and seen.leds == (17, 30)
    assert seen.spots == ("r1c6", "r2c6") and walked.figures["watched"]  # a serpentine strip
    assert walked.status == "failed" and "not_watched" not in [f.kind for f in walked.faults]
    assert unwatched.status == "passed" and not unwatched.figures["watched"]
    assert "not_watched" in [f.kind for f in unwatched.faults if f.severity == "warning"]


def test_the_simulated_pico_reports_its_link_and_a_dead_scan_row() -> None:
    report = check("takeover-serial", "dead-row:7", "crossed:r2c0,r2c1", parts=("reeds", "link"))
    parts = report.to_json()["parts"]
    link = parts["link"]["figures"]
    assert parts["link"]["status"] == "passed"
    assert link["firmware"] == protocol.VERSION and link["matrix"] == "12x12"
    assert link["frames"] > 0 and link["crc_errors"] == 0 and link["round_trip_ms"] is not None
    found = kinds(report)
    assert set(found) == {"dead_group", "crossed"}
    assert "scan row 7 of the Pico's matrix does not answer" in found["dead_group"][0].text
    assert found["crossed"][0].spots == ("r2c0", "r2c1")


def test_the_command_exits_0_on_a_clean_table_and_1_naming_a_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["check", "--sim", "--game", "takeover", "--json", "--state-dir", str(tmp_path)]
    assert main([*base, "--only", "lights,reeds"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["passed"] and list(out["parts"]) == ["lights", "reeds"]
    written = json.loads((tmp_path / "check-report.json").read_text())
    assert out["report_file"] == str(tmp_path / "check-report.json") and written["passed"]
    assert main([*base, "--only", "reeds", "--fault", "crossed:r3c5,r3c6"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [f["kind"] for f in out["faults"]] == ["crossed"]
    assert "r3c5 and r3c6 look swapped" in out["faults"][0]["text"]
    assert main(["check", "--game", "takeover", "--fault", "chatter:r0c0"]) == 2
    assert "add --sim" in capsys.readouterr().err
    assert main([*base, "--fault", "chatter:r99c0"]) == 2
    assert "no reed spot" in capsys.readouterr().err


def test_a_profile_is_refused_with_every_problem_and_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = builtin_profile_path("takeover").read_text(encoding="utf-8")
    text = text.replace("count = 144", "count = 144\ncolour = 1")
    text += (
        '\n[[spots]]\nid = "r3c4"\nreed = "2:0"\n'  # r0c0's channel
        '\n[[spots]]\nid = "r5c5"\nleds = [200]\n'
        '\n[[spots]]\nid = "r6c6.map"\nregion = [380, 380, 40, 40]\n'
    )
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    lines = text.splitlines()

    def line_of(key: str, after: str) -> int:
        start = lines.index(after)
        return next(n for n in range(start, len(lines)) if lines[n].startswith(key)) + 1

    expected = [
        (line_of("colour", "[leds]"), "[leds] has unknown keys ['colour']"),
        (line_of("reed", 'id = "r3c4"'), "reed channel 2:0 is used twice: 'r0c0' and 'r3c4'"),
        (line_of("leds", 'id = "r5c5"'), "LED index 200 is out of range 0..143"),
        (line_of("region", 'id = "r6c6.map"'), "reaches beyond the table"),
    ]
    assert main(["check", "--profile", str(path), "--json", "--state-dir", str(tmp_path)]) == 1
    faults = json.loads(capsys.readouterr().out)["faults"]
    assert len(faults) == len(expected)
    for fault, (line, said) in zip(faults, expected, strict=True):
        assert fault["file"] == str(path) and fault["line"] == line and said in fault["text"]
        assert fault["text"].startswith(f"{path}, line {line} (")
    # `smartboard run` refuses it at start-up, every problem listed on one line.
    with pytest.raises(ProfileError) as refused:
        load_profile(path, TAKEOVER.spots())
    message = str(refused.value)
    assert message.startswith(f"board profile {path}: 4 problems: line {expected[0][0]}: ")
    assert all(f"line {line}: " in message for line, _ in expected) and "\n" not in message


def test_check_takes_the_configs_profile_as_run_does_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: `check --game takeover --config my.toml` checked the built-in
    profile, not my.toml's `takeover-serial` that `run` plays on; without --game, a profile of
    another game than the config's was refused as 289 spots that game lacks."""
    config = tmp_path / "my.toml"
    config.write_text('[table]\nprofile = "takeover-serial"\n', encoding="utf-8")
    base = ["check", "--sim", "--config", str(config), "--state-dir", str(tmp_path)]
    assert main([*base, "--game", "takeover", "--only", "profile"]) == 0
    said = capsys.readouterr().out.splitlines()
    serial = builtin_profile_path("takeover-serial")
    named = (
        "the simulated table with board profile Hostile Takeover, 12x12 board, over the serial "
        f"link (takeover), {serial}"
    )
    assert said[0] == f"checking {named}" and f"checked {named}" in said  # first and last
    assert main([*base, "--only", "profile", "--json"]) == 1  # the config's game: Akuma
    (fault,) = json.loads(capsys.readouterr().out)["faults"]
    assert fault["text"] == (
        f"board profile {serial} (the config's [table] profile) is for Hostile Takeover, not "
        'Capture the Akuma: set [table] game = "takeover", or --profile akuma for Capture the '
        "Akuma's built-in one"
    )
    # `run` says the same at once, not as the spots Akuma lacks.
    voodoo = replace(load_config(None).simulated(), profile=builtin_profile_path("voodoo"))
    with pytest.raises(StartupError, match=r"is for Baron Voodoo, not Capture the Akuma: play "):
        board_profile(voodoo, get_game("akuma"))


class _Silent:
    """A camera that opens and then never gives a frame."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def open(self) -> None:
        pass

    def read(self) -> Image:
        self.closed.wait()
        raise CameraError("closed")

    def close(self) -> None:
        self.closed.set()


class _Failing(_Silent):
    def read(self) -> Image:
        raise CameraError("no /dev/video0")


class _Grey(_Silent):
    def read(self) -> Image:
        time.sleep(0.01)
        return np.full((120, 160, 3), 128, np.uint8)


@pytest.fixture(scope="module")
def akuma_profile() -> BoardProfile:
    akuma = get_game("akuma")
    return load_profile(builtin_profile_path("akuma"), akuma.spots())


@pytest.mark.parametrize(
    ("source", "said"), [(_Silent, "no frame in 0.3 s."), (_Failing, ": no /dev/video0.")]
)
def test_a_camera_with_no_frames_is_reported_within_the_timeout(
    akuma_profile: BoardProfile, source: Any, said: str
) -> None:
    started = time.monotonic()
    part = check_camera(source, akuma_profile, None, quiet, seconds=1.0, timeout_s=0.3)
    assert time.monotonic() - started < 1.0
    (fault,) = part.faults
    assert fault.kind == "no_frames" and said in fault.text and part.figures["frames"] == 0


class _Unopened(_Silent):
    def open(self) -> None:
        raise CameraError("camera.source = 'picamera2' needs the picamera2 module")


class _NoPhotos(_Silent):
    def read(self) -> Image:
        raise EndOfFrames("the folder is empty")


@pytest.mark.parametrize(
    ("source", "said"),
    [(_Unopened, "needs the picamera2 module"), (_NoPhotos, "the folder is empty")],
)
def test_a_camera_that_cannot_give_frames_says_why_not_a_cable(
    akuma_profile: BoardProfile, source: Any, said: str
) -> None:
    """The builder's walk: a missing picamera2 module, a missing folder or an empty one waited
    out the time limit, then said to check the camera's cable."""
    part = check_camera(source, akuma_profile, None, quiet, seconds=1.0, timeout_s=60.0)
    (fault,) = part.faults
    assert fault.text.startswith("the camera gives no frames: ") and said in fault.text
    assert "cable" not in fault.text


def test_a_camera_is_counted_and_its_missing_markers_named(akuma_profile: BoardProfile) -> None:
    part = check_camera(_Grey, akuma_profile, None, quiet, seconds=0.2, timeout_s=2.0)
    figures = part.figures
    assert figures["frames"] >= 5 and figures["fps"] > 10
    assert (figures["width"], figures["height"], figures["mean_level"]) == (160, 120, 128)
    assert figures["markers_missing"] == [0, 1, 2, 3]
    assert {f.kind for f in part.faults} == {"markers_missing", "not_calibrated"}


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Daemon]:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    with serving(fast_sim_config(), options) as daemon:
        yield daemon


def test_the_check_op_runs_while_paused_and_leaves_the_pieces(running: Daemon) -> None:
    refused = call(running, op="check")
    assert not refused["ok"] and refused["key"] == "check_playing"
    assert call(running, op="act", id="choose_dice:2")["ok"]
    assert call(running, op="pause")["ok"]
    before = running.reeds.read()
    reply = call(running, op="check", only=["lights", "reeds"])
    assert reply["ok"] and reply["report"]["passed"], reply
    report = reply["report"]
    assert report["parts"]["reeds"]["figures"]["walked"] == 45
    assert report["parts"]["lights"]["figures"]["leds_driven"] == 63
    assert json.loads(Path(reply["report_file"]).read_text())["passed"]
    assert running.reeds.read() == before
    assert call(running, op="resume")["ok"]
    assert len(call(running, op="status")["history"]) == 1  # the check moved nothing


def test_a_person_walks_the_board_with_a_time_limit_per_spot_and_a_skip() -> None:
    """No hands: each spot is asked for, and waited for, as on a real table."""
    profile = load_profile(builtin_profile_path("takeover"), TAKEOVER.spots())
    config = load_config(None).simulated()
    asked: list[str] = []
    with open_table(config, TAKEOVER, profile, Path("/nonexistent"), True) as table:
        bank = table.reeds
        assert isinstance(bank, ReedBank) and table.hands is not None
        table.hands = None

        def person(event: CheckEvent) -> None:
            if event.step == "place":
                asked.append(event.data["spot"])
                if event.data["spot"] not in ("r0c1", "r0c2"):  # skipped, forgotten
                    bank.drive(event.data["spot"], True)
            elif event.step == "lift":
                bank.drive(event.data["spot"], False)

        options = CheckOptions(
            parts=("reeds",), walk=True, spot_timeout_s=0.05, skip=lambda: asked[-1] == "r0c1"
        )
        report = run_check(table, options, person)
    assert len(asked) == 144 and report.parts[0].figures["skipped"] == ["r0c1"]
    (forgotten,) = report.faults()
    assert forgotten.kind == "never_closed" and forgotten.spots == ("r0c2",)
    assert "never closed within 0.05 s" in forgotten.text


def test_camera_regions_off_the_calibrated_camera_are_named_with_their_lines(
    akuma_profile: BoardProfile,
) -> None:
    # A camera that sees the table's left 400 x 300 mm, a pixel a millimetre.
    identity = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    seen = Calibration(akuma_profile.name, (400, 300), identity, (0, 1, 2, 3), 0.5)
    part = lint_profile(akuma_profile, seen)
    lines = builtin_profile_path("akuma").read_text(encoding="utf-8").splitlines()
    named = {fault.key: fault for fault in part.faults}
    tray = named["[dice] tray"]
    assert tray.kind == "region_off_camera" and lines[tray.line - 1].startswith("tray = [380")
    # The cards of the bottom row (squares 7 to 9) lie below the 300 mm seen.
    assert {"spot '7' region", "spot '8' region", "spot '9' region"} <= set(named)
    assert lines[named["spot '9' region"].line - 1].startswith("region = [")
    assert lint_profile(akuma_profile, None).faults == []


def test_a_reed_on_a_line_its_chip_lacks_is_a_fault_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: reed "2:99" passed the lint, then `check --sim` and `run --sim`
    ended in gpiozero's traceback."""
    text = builtin_profile_path("akuma").read_text(encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text(text.replace('reed = "2:4"', 'reed = "2:99"', 1), encoding="utf-8")
    state = ["--state-dir", str(tmp_path)]
    assert (
        main(["check", "--sim", "--profile", str(path), "--only", "reeds", "--json", *state]) == 1
    )
    (fault,) = json.loads(capsys.readouterr().out)["faults"]
    assert fault["kind"] == "unavailable" and fault["text"].startswith(
        "the reed of 1.akuma (channel 2:99) cannot be opened: "
    )
    config = tmp_path / "table.toml"
    config.write_text(f'[table]\nprofile = "{path}"\n', encoding="utf-8")
    assert main(["run", "--sim", "--no-show", "--config", str(config), *state]) != 0
    said = capsys.readouterr().err
    assert "the reed of 1.akuma (channel 2:99) cannot be opened" in said
    assert "Traceback" not in said


def test_the_walk_in_any_order_is_walked_by_the_simulated_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: `check --sim --order any` named every reed dead: no hands walked it."""
    base = ["check", "--sim", "--game", "akuma", "--only", "reeds", "--order", "any", "--json"]
    base += ["--state-dir", str(tmp_path)]
    assert main(base) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["parts"]["reeds"]["figures"]["seen"] == 45
    assert main([*base, "--fault", "dead-expander:3"]) == 1
    faults = json.loads(capsys.readouterr().out)["faults"]
    assert len(faults) == 16 and {f["kind"] for f in faults} == {"never_closed"}
    assert all(f["channels"][0].startswith("3:") for f in faults)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--game", "takeover", "--fault", "dead-expander:42"], "no reed of Hostile Takeover"),
        (["--game", "takeover", "--fault", "dead-row:3"], "use dead-expander:CHIP"),
        (["--profile", "takeover-serial", "--fault", "dead-expander:2"], "use dead-row:ROW"),
        (["--profile", "takeover-serial", "--fault", "dead-row:40"], "its reeds are on scan rows"),
    ],
)
def test_a_dead_part_the_board_has_not_is_refused(
    args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: `dead-expander:42` passed as a table with nothing dead, and each
    kind stood for the other on the other kind of board."""
    assert main(["check", "--sim", *args, "--state-dir", str(tmp_path)]) == 2
    assert said in capsys.readouterr().err


def test_check_through_the_daemon_refuses_what_the_running_table_decides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: `check --daemon --fault dead-row:3 --game akuma` checked the running
    table as it was and said it passed, the options dropped without a word."""
    args = ["check", "--daemon", "--fault", "dead-row:3", "--game", "akuma"]
    assert main([*args, "--state-dir", str(tmp_path)]) == 2
    assert "leave out --fault, --game" in capsys.readouterr().err
