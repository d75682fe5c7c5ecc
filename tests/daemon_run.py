"""A daemon serving in a thread, as the service would, for tests that talk to its socket."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from controller.config import Config
from controller.control import request
from controller.daemon import Daemon, Publisher, RunOptions


@contextmanager
def serving(config: Config, run: RunOptions, web: Publisher | None = None) -> Iterator[Daemon]:
    daemon = Daemon(config, run)
    daemon.web = web
    daemon.open()
    thread = threading.Thread(target=daemon.run)
    thread.start()
    try:
        yield daemon
    finally:
        daemon.stop()
        thread.join(timeout=5)
        daemon.close()


def call(daemon: Daemon, **message: object) -> dict[str, Any]:
    return request(daemon.options.socket_path, dict(message))
