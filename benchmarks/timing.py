"""Timing helpers shared by the benchmark scripts."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(call: Callable[[], object], repeat: int) -> list[float]:
    """`repeat` wall times of `call`, in seconds, sorted."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)


def figures(times: list[float], decimals: int = 3) -> str:
    """Median and p99 of sorted times, in milliseconds."""
    p99 = times[int(0.99 * len(times))]
    median = statistics.median(times) * 1000
    return f"median {median:.{decimals}f} ms, p99 {p99 * 1000:.{decimals}f} ms"
