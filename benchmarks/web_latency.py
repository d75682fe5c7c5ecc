"""A change on the table to the dashboard's page updated, in headless Chromium (target: 100 ms).

A simulated daemon serves the page; the page itself sends each request and times, with a
MutationObserver, until the pushed snapshot has changed its DOM. Two figures:
- control: pause / resume, a control request through the daemon's loop, pushed by SSE;
- piece: a piece put on or lifted from a simulated reed (`place`), through the reed's debounce
  ([reeds] debounce_ms, 30 ms by default) and the session, then pushed.

Run: .venv/bin/python benchmarks/web_latency.py [--changes 50]
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser import launch

# Sends one request and resolves with the milliseconds until `probe` reads something else.
TIMED_CHANGE = """async ([op, body, probe]) => {
  const read = new Function(`return ${probe}`);
  const before = read();
  const start = performance.now();
  const changed = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (read() !== before) {
        observer.disconnect();
        resolve(performance.now() - start);
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true,
                                      characterData: true });
  });
  const reply = await fetch(`/api/${op}`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!reply.ok) throw new Error(await reply.text());
  return await changed;
}"""


def timed(page: Page, changes: int, steps: list[tuple[str, dict[str, str], str]]) -> list[float]:
    return [page.evaluate(TIMED_CHANGE, list(steps[i % len(steps)])) for i in range(changes)]


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state_dir:
        command = [sys.executable, "-m", "controller", "run", "--sim", "--no-show", "--game"]
        daemon = subprocess.Popen(
            [*command, "akuma", "--state-dir", state_dir, "--web", "127.0.0.1:0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert daemon.stdout is not None
            url = daemon.stdout.readline().split()[-1]
            token = (Path(state_dir) / "web_token").read_text().strip()
            with sync_playwright() as playwright:
                browser = launch(playwright)
                page = browser.new_page()
                page.goto(f"{url}?token={token}")
                page.wait_for_selector('[data-spot="5.trap"]')
                pause = 'document.getElementById("pause").textContent'
                trap = "document.querySelector('[data-spot=\"5.trap\"]').dataset.sensed"
                piece = timed(page, args.changes, [("place", {"spot": "5.trap"}, trap)])
                control = timed(page, args.changes, [("pause", {}, pause), ("resume", {}, pause)])
                browser.close()
        finally:
            daemon.send_signal(signal.SIGTERM)
            daemon.wait()
    report = {"changes": args.changes, "control": summary(control), "piece": summary(piece)}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
