"""Issue 19, point 8: every bad config ends `smartboard run` with one clear line and exit 78
(EX_CONFIG), which the unit's RestartPreventExitStatus= names, never with a traceback or
another status that systemd would restart five times."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.cli.errors import EX_CONFIG, EX_USAGE
from controller.config import load_config

REPO = Path(__file__).resolve().parent.parent


def run(tmp_path: Path, config: str, *more: str) -> tuple[int, str]:
    """`smartboard run --sim` in this process with `config`: its status and what it said."""
    path = tmp_path / "bad.toml"
    path.write_text(config, encoding="utf-8")
    state = tmp_path / "state"
    return main(["run", "--config", str(path), "--sim", "--state-dir", str(state), *more]), str(
        path
    )


def one_clear_line(err: str, *names: str) -> str:
    """The one line `smartboard: ...` that names each of `names`."""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("smartboard: "), line
    assert len(line) < 600, line
    for name in names:
        assert name in line, line
    return line


def test_an_integer_of_400_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, path = run(tmp_path, "[reeds]\ndebounce_ms = " + "9" * 400 + "\n")
    line = one_clear_line(capsys.readouterr().err, path, "reeds.debounce_ms")
    assert status == EX_CONFIG
    assert "0..1000 ms" in line and "400 digits" in line


def test_an_integer_too_long_for_toml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, path = run(tmp_path, "[reeds]\ndebounce_ms = " + "9" * 5000 + "\n")
    one_clear_line(capsys.readouterr().err, path, "too long")
    assert status == EX_CONFIG


def test_5000_nested_brackets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, path = run(tmp_path, "[reeds]\ndebounce_ms = " + "[" * 5000 + "]" * 5000 + "\n")
    one_clear_line(capsys.readouterr().err, path, "nests")
    assert status == EX_CONFIG


def test_nested_brackets_in_a_real_process(tmp_path: Path) -> None:
    """The same in the daemon's own process, whose stack is not pytest's."""
    path = tmp_path / "nested.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "controller", "run", "--config", str(path), "--sim"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    one_clear_line(done.stderr, str(path))
    assert done.returncode == EX_CONFIG


def test_an_unknown_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, path = run(tmp_path, '[table]\ngame = "chess"\n')
    line = one_clear_line(capsys.readouterr().err, path, "table.game", "'chess'")
    assert status == EX_CONFIG
    assert "akuma, mightymania, potions, takeover, voodoo" in line  # the known ones


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ("[leds]\ncount = 60\n", "[leds] count is a board profile's key: put it in your profile"),
        ('[link]\nport = "/dev/pico"\n', "[link] port is a board profile's key"),
        ('[reeds]\nbackend = "serial"\n', "A Pico's serial link is the board profile's"),
    ],
)
def test_a_board_profiles_key_in_the_config_says_where_it_goes(
    config: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: docs/building.md's fault table says to mend `[leds] count`, and the
    config refused it as an unknown key, not saying that it belongs in the board profile."""
    status, path = run(tmp_path, config)
    one_clear_line(capsys.readouterr().err, path, said)
    assert status == EX_CONFIG


def _no_such_host(error: int) -> object:
    def getaddrinfo(host: str, *args: object, **kwargs: object) -> object:
        raise socket.gaierror(error, "Name or service not known" if error else "Try again")

    return getaddrinfo


def test_an_unresolvable_listen_host(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The resolver is stubbed: a machine without DNS says "try again" for any name.
    monkeypatch.setattr(socket, "getaddrinfo", _no_such_host(socket.EAI_NONAME))
    status, path = run(tmp_path, '[web]\nlisten = "no-such-host.invalid:8080"\n')
    line = one_clear_line(capsys.readouterr().err, path, "web.listen", "'no-such-host.invalid'")
    assert status == EX_CONFIG
    assert "does not resolve" in line


def test_an_unresolvable_web_option_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _no_such_host(socket.EAI_NONAME))
    status, _ = run(tmp_path, "", "--web", "no-such-host.invalid:8080")
    one_clear_line(capsys.readouterr().err, "--web", "does not resolve")
    assert status == EX_USAGE


def test_a_resolver_that_says_try_again_is_restarted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At boot the network may not be up yet: exit 1, which systemd restarts."""
    monkeypatch.setattr(socket, "getaddrinfo", _no_such_host(socket.EAI_AGAIN))
    status, path = run(tmp_path, '[web]\nlisten = "table.lan:8080"\n')
    one_clear_line(capsys.readouterr().err, path, "restart will try again")
    assert status == 1


@pytest.mark.parametrize(
    ("calibration", "said"),
    [
        ('{"homography": [1', "not valid JSON"),
        ("[" * 100_000, "larger than 64 KiB"),
        ("[" * 5000 + "]" * 5000, "not valid JSON"),
        (json.dumps({"homography": [[1e999] * 3] * 3}), "malformed"),
        (json.dumps({"homography": [[0] * 3] * 3, "image_size": [1, 1]}), "malformed"),
    ],
)
def test_a_bad_calibration_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], calibration: str, said: str
) -> None:
    bad = tmp_path / "calibration.json"
    bad.write_text(calibration, encoding="utf-8")
    photos = tmp_path / "photos"
    photos.mkdir()
    # The camera reads the dice from replayed photos, through the calibration the config names.
    config = f'[camera]\ncalibration = "{bad}"\n'
    status, _ = run(tmp_path, config, "--camera-folder", str(photos), "--no-show")
    one_clear_line(capsys.readouterr().err, str(bad), said, "smartboard calibrate")
    assert status == EX_CONFIG


def test_a_30_mb_palette_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    roles = "".join(f'role{i} = "#123456"\n' for i in range(1_500_000))
    status, path = run(tmp_path, "[palette]\n" + roles)
    assert len(roles) > 30_000_000
    one_clear_line(capsys.readouterr().err, path, "larger than 1024 KiB")
    assert status == EX_CONFIG


def test_a_palette_of_too_many_roles(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roles = "".join(f'role{i} = "#123456"\n' for i in range(300))
    status, path = run(tmp_path, "[palette]\n" + roles)
    built_in = len(load_config(None).palette)  # the games' roles and the table's own
    one_clear_line(
        capsys.readouterr().err, path, f"[palette] has {300 + built_in} roles; at most 256"
    )
    assert status == EX_CONFIG


def test_a_board_profile_too_large(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "board.toml"
    profile.write_bytes(b"#" * (2 << 20))
    status, _ = run(tmp_path, f'[table]\nprofile = "{profile}"\n')
    one_clear_line(capsys.readouterr().err, str(profile), "board profile", "larger than 1024 KiB")
    assert status == EX_CONFIG


def test_a_board_profile_of_another_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The akuma board's spots, but a profile that says it is for another game."""
    akuma = (REPO / "hardware" / "profiles" / "akuma.toml").read_text(encoding="utf-8")
    profile = tmp_path / "board.toml"
    profile.write_text(akuma.replace('game = "akuma"', 'game = "voodoo"'), encoding="utf-8")
    status, _ = run(tmp_path, f'[table]\ngame = "akuma"\nprofile = "{profile}"\n')
    one_clear_line(
        capsys.readouterr().err, str(profile), "is for Baron Voodoo, not Capture the Akuma"
    )
    assert status == EX_CONFIG
