"""The fault harness of issue 19: the daemon on loopback under a flood of idle connections, then
each other fault (the serial link, the camera, the journal, the config) by its own script.

    python benchmarks/faults.py [--json] [--idle 2000] [--only flood,serial,...]

The flood: `smartboard run --sim` serving its dashboard on 127.0.0.1 under systemd's default
limit of 1,024 open files; 2,000 idle TCP connections are opened and held. While they are held,
commands go through the control socket (their success rate), the page is asked for its snapshot
(how long it takes to answer), a changing request is sent twice with the same id (how often it
was applied); the daemon's open files are counted. After they close, the page's p99 latency.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.config import load_config
from controller.control import ControlError, request

SERVICE_FILES = 1024  # systemd's default LimitNOFILE soft limit


def _limit_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (SERVICE_FILES, SERVICE_FILES))


def _open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _get(url: str, token: str, timeout: float) -> tuple[int, float]:
    started = time.perf_counter()
    query = urllib.request.Request(url, headers={"X-Smartboard-Token": token})
    try:
        with urllib.request.urlopen(query, timeout=timeout) as reply:
            reply.read()
            status = int(reply.status)
    except OSError:
        status = 0
    return status, time.perf_counter() - started


def flood(idle: int) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, idle + 512)), hard))
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        command = [sys.executable, "-m", "controller", "run", "--sim", "--no-show"]
        daemon = subprocess.Popen(
            [*command, "--game", "akuma", "--state-dir", folder, "--web", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_limit_files,
        )
        try:
            assert daemon.stdout is not None
            port = int(daemon.stdout.readline().rstrip().rstrip("/").rpartition(":")[2])
            token = (state / "web_token").read_text().strip()
            sock_path = state / "control.sock"
            snapshot = f"http://127.0.0.1:{port}/api/snapshot"
            held = []
            for _ in range(idle):
                try:
                    held.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                except OSError:
                    break
            peak_files = _open_files(daemon.pid)
            ok = 0
            commands = 100
            for n in range(commands):
                try:
                    op = "pause" if n % 2 == 0 else "resume"
                    ok += bool(request(sock_path, {"op": op}, timeout=10)["ok"])
                except ControlError:
                    pass
                peak_files = max(peak_files, _open_files(daemon.pid))
            page_status, page_s = _get(snapshot, token, timeout=15)
            # One changing request sent three times with one id: applied once.
            twice = {"op": "act", "id": "choose_dice:1", "request_id": "faults-1"}
            replies = [request(sock_path, twice) for _ in range(3)]
            history = request(sock_path, {"op": "status"})["history"]
            applied_twice = len(history) - 1 if replies[0]["ok"] else len(history)
            alive_during = daemon.poll() is None
            for connection in held:
                connection.close()
            latencies = sorted(_get(snapshot, token, timeout=15)[1] for _ in range(300))
            return {
                "idle_connections_held": len(held),
                "daemon_file_limit": SERVICE_FILES,
                "cli_success_rate_during_flood": ok / commands,
                "page_answered_during_flood": page_status == 200,
                "page_answer_s_during_flood": round(page_s, 3),
                "daemon_alive": alive_during and daemon.poll() is None,
                "page_p99_ms_after_flood": round(1000 * latencies[int(0.99 * 299)], 1),
                "page_p50_ms_after_flood": round(1000 * latencies[150], 1),
                "open_files_peak": peak_files,
                "web_max_connections": load_config(None).web_max_connections,
                "requests_applied_twice": applied_twice,
            }
        finally:
            daemon.send_signal(signal.SIGTERM)
            try:
                daemon.wait(timeout=15)
            except subprocess.TimeoutExpired:
                daemon.kill()


def _area(name: str) -> Callable[[], dict[str, object]]:
    """`measure` of benchmarks/fault_<name>.py."""
    module = __import__(f"fault_{name}")
    measure: Callable[[], dict[str, object]] = module.measure
    return measure


AREAS = ("flood", "serial", "camera", "journal", "config")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object, for scripts")
    parser.add_argument("--idle", type=int, default=2000, help="idle connections to hold")
    areas = ",".join(AREAS)
    parser.add_argument("--only", default=areas, help=f"comma-separated, of {areas}")
    args = parser.parse_args()
    figures: dict[str, object] = {}
    for area in args.only.split(","):
        if area not in AREAS:
            parser.error(f"--only: no fault area {area!r}; known: {', '.join(AREAS)}")
        found = flood(args.idle) if area == "flood" else _area(area)()
        figures.update(found)
        if not args.json:
            for key, value in found.items():
                print(f"{key:45} {value}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
