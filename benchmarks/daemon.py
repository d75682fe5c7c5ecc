"""The daemon in --sim: time from start to READY=1, and resident memory while bots play.

It listens as systemd would, on a NOTIFY_SOCKET datagram socket, so READY is timed exactly as
the service manager sees it.

Run: .venv/bin/python benchmarks/daemon.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command() -> list[str]:
    script = shutil.which("smartboard")
    return [script] if script else [sys.executable, "-m", "controller"]


def rss_kib(pid: int) -> tuple[int, int]:
    """(current, peak) resident set size in KiB, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def one_run(play_seconds: float) -> tuple[float, int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        notify_path = os.path.join(tmp, "notify")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(notify_path)
        listener.settimeout(10)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path, WATCHDOG_USEC="2000000")
        args = ["run", "--sim", "--bots", "--pace", "0.02", "--no-show", "--state-dir", tmp]
        start = time.monotonic()
        proc = subprocess.Popen([*command(), *args], env=env, stderr=subprocess.DEVNULL)
        try:
            while True:
                message = listener.recv(4096).decode()
                if "READY=1" in message:
                    ready = time.monotonic() - start
                    break
            time.sleep(play_seconds)
            watchdog = listener.recv(4096).decode()
            if "WATCHDOG=1" not in watchdog:
                raise RuntimeError(f"expected a watchdog ping, got {watchdog!r}")
            rss, peak = rss_kib(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
            listener.close()
        return ready, rss, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--play", type=float, default=3.0, help="seconds of bot play per run")
    args = parser.parse_args()
    runs = [one_run(args.play) for _ in range(args.runs)]
    ready = [r[0] * 1000 for r in runs]
    print(
        f"start to READY: median {statistics.median(ready):.0f} ms, max {max(ready):.0f} ms "
        f"over {args.runs} runs"
    )
    rss = max(r[1] for r in runs) / 1024
    peak = max(r[2] for r in runs) / 1024
    print(f"resident memory after {args.play:.0f} s of bots: {rss:.1f} MiB, peak {peak:.1f} MiB")


if __name__ == "__main__":
    main()
