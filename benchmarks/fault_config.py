"""Issue 19, point 8: bad configs through the real `smartboard run`, each in its own process.

Each case should end with exit 78 (EX_CONFIG, which the unit does not restart) and one line on
stderr, never a traceback; the 30 MB [palette] should be refused unread, the process staying
small (it grew to 549 MB before).

Run: .venv/bin/python benchmarks/fault_config.py (prints one JSON object)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EX_CONFIG = 78
TIMEOUT_S = 30


def _cases(folder: Path) -> dict[str, tuple[str, list[str]]]:
    """Each case: the config's text and more arguments for `smartboard run`."""
    calibration = folder / "calibration.json"
    calibration.write_text('{"homography": [[1e999', encoding="utf-8")
    photos = folder / "photos"
    photos.mkdir()
    profile = folder / "board.toml"
    profile.write_bytes(b"#" * (2 << 20))
    roles = "".join(f'role{i} = "#123456"\n' for i in range(300))
    return {
        "debounce_ms of 400 digits": ("[reeds]\ndebounce_ms = " + "9" * 400, []),
        "debounce_ms of 5,000 digits": ("[reeds]\ndebounce_ms = " + "9" * 5000, []),
        "5,000 nested [": ("x = " + "[" * 5000 + "]" * 5000, []),
        "unknown game": ('[table]\ngame = "chess"', []),
        "unresolvable listen host": ('[web]\nlisten = "no-such-host.invalid:8080"', []),
        "bad calibration file": (
            f'[camera]\ncalibration = "{calibration}"',
            ["--camera-folder", str(photos)],
        ),
        "300 palette roles": ("[palette]\n" + roles, []),
        "board profile of 2 MiB": (f'[table]\nprofile = "{profile}"', []),
    }


# `smartboard run` with its peak RSS (VmHWM) written to a file at exit: the kernel's ru_maxrss
# of a child counts the parent's memory it was forked from.
_WRAPPER = """
import atexit, runpy, sys
peak = sys.argv.pop(1)
def report():
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    with open(peak, "w") as out:
        out.write(hwm.split()[1])
atexit.register(report)
runpy.run_module("controller", run_name="__main__", alter_sys=True)
"""


def _run(config: Path, more: list[str], state: Path) -> tuple[int, str, float | None]:
    """`smartboard run --sim` on `config`: its exit status, stderr and peak RSS in MB (None
    if it had to be killed)."""
    peak = state.with_suffix(".peak")
    command = [sys.executable, "-c", _WRAPPER, str(peak), "run", "--config", str(config)]
    command += ["--sim", "--state-dir", str(state), "--no-show", *more]
    try:
        done = subprocess.run(
            command, cwd=REPO, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S
        )
    except subprocess.TimeoutExpired as expired:  # accepted: the table runs until stopped
        said = (expired.stderr or b"").decode("utf-8", "replace")
        return -1, said, None
    peak_mb = int(peak.read_text()) / 1024 if peak.exists() else None
    return done.returncode, done.stderr.decode("utf-8", "replace"), peak_mb


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = _cases(folder)
        exit_78 = tracebacks = 0
        statuses: dict[str, int] = {}
        for index, (name, (text, more)) in enumerate(cases.items()):
            config = folder / f"case{index}.toml"
            config.write_text(text + "\n", encoding="utf-8")
            status, said, _ = _run(config, more, folder / f"state{index}")
            statuses[name] = status
            exit_78 += status == EX_CONFIG and len(said.splitlines()) == 1
            tracebacks += "Traceback" in said
        palette = folder / "palette.toml"
        with palette.open("w", encoding="utf-8") as out:
            out.write("[palette]\n")
            for i in range(1_500_000):  # 30 MB
                out.write(f'role{i} = "#123456"\n')
        status, said, peak_mb = _run(palette, [], folder / "state-palette")
        statuses["30 MB palette"] = status
        exit_78 += status == EX_CONFIG and len(said.splitlines()) == 1
        tracebacks += "Traceback" in said
    return {
        "config_cases": len(statuses),
        "config_exit_78": exit_78,
        "config_tracebacks": tracebacks,
        "config_peak_rss_mb_with_huge_palette": None if peak_mb is None else round(peak_mb, 1),
        "config_exit_statuses": statuses,
    }


if __name__ == "__main__":
    print(json.dumps(measure()))
