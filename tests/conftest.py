"""Fixtures shared by the test files: a fast simulated config, the daemon's run options, the
sixth game (Dice Race, registered only while a test uses it), and a headless browser."""

from __future__ import annotations

import ast
import doctest
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import dice_race
import pytest
from browser import launch
from hypothesis import HealthCheck, settings
from playwright.sync_api import Browser, Page, sync_playwright

from controller import paths, rules
from controller.config import Config, load_config
from controller.rules.api import Action, Game, GameState
from controller.startup import RunOptions

RunOptionsMaker = Callable[..., RunOptions]

# The fuzz tests of the parsers: enough examples to find a traceback, few enough for CI's two
# cores; no deadline, since a loaded CI machine is slow at random moments. A fixture (a server)
# is shared by the examples of a test on purpose.
settings.register_profile(
    "smartboard",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.load_profile("smartboard")


QUICK_CAMERA: dict[str, Any] = {"camera_fps": 200, "stable_frames": 2}
"""A simulated camera that settles in a hundredth of a second, for the card and dice boards."""


def module_source(name: str) -> str:
    """The source of module `name`, also when it runs compiled (the rules: setup.py), where
    `inspect` finds none and its functions keep no docstrings."""
    path = Path(str(sys.modules[name].__file__))
    return path.with_name(path.name.split(".")[0] + ".py").read_text()


def docstring_test(module: str, qualname: str) -> doctest.DocTest:
    """The doctest of the docstring of `qualname` (a function, or Class.method) in `module`,
    read from its source."""
    nodes: list[ast.stmt] = ast.parse(module_source(module)).body
    for part in qualname.split("."):
        (node,) = [
            n for n in nodes if isinstance(n, ast.FunctionDef | ast.ClassDef) and n.name == part
        ]
        nodes = node.body
    docstring = ast.get_docstring(node)
    assert docstring is not None, qualname
    return doctest.DocTestParser().get_doctest(
        docstring, vars(sys.modules[module]), qualname, None, 0
    )


def fast_sim_config(**changes: Any) -> Config:
    """The simulated table with a short debounce and settle time, so that tests move quickly;
    any other field changed."""
    quick = {"debounce_s": 0.005, "settle_s": 0.2}
    return replace(load_config(None).simulated(), **(quick | changes))


REPO = Path(__file__).resolve().parent.parent


def smartboard(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`smartboard ARGS...` run as a user runs it, in its own process, from the checkout."""
    return subprocess.run(
        [sys.executable, "-m", "controller", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def draws_evenly(state: GameState, rng: random.Random, each: int) -> Counter[Action]:
    """`state.sample` drawn `each` times a legal action: every legal action comes up, none
    else, and about as often (a chi-square against even odds, far above its 99.9th percentile
    for this many degrees of freedom only if they do not). The counts, for more checks."""
    listed = state.legal_actions()
    draws = each * len(listed)
    counts = Counter(state.sample(rng) for _ in range(draws))
    assert set(counts) == set(listed)
    expected = draws / len(listed)
    chi_square = sum((counts[a] - expected) ** 2 / expected for a in listed)
    assert chi_square < len(listed) + 6 * (2 * len(listed)) ** 0.5 + 10, (len(listed), chi_square)
    return counts


def wait_for(check: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Poll `check` until it holds; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what or check}")
        time.sleep(0.01)


@pytest.fixture(scope="session", autouse=True)
def _no_service_here() -> Iterator[None]:
    """The commands under test never read or reach a smartboard service installed on the
    machine that runs them (its /etc/smartboard/config.toml, its /run/smartboard socket)."""
    absent = Path("/nonexistent/smartboard")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paths, "SERVICE_CONFIG", absent / "config.toml")
        patch.setattr(paths, "SERVICE_SOCKET", absent / "control.sock")
        yield


@pytest.fixture
def sim_config() -> Config:
    return fast_sim_config()


def options_in(folder: Path, **changes: Any) -> RunOptions:
    """RunOptions with the journal and the control socket in `folder`, any field changed."""
    return replace(RunOptions(state_dir=folder, socket_path=folder / "control.sock"), **changes)


@pytest.fixture
def run_options(tmp_path: Path) -> RunOptionsMaker:
    """`options_in` the test's own folder."""
    return lambda **changes: options_in(tmp_path, **changes)


@pytest.fixture
def race() -> Iterator[Game]:
    """Dice Race registered as any game is, and taken off the registry afterwards."""
    rules.register(dice_race.GAME)
    try:
        yield dice_race.GAME
    finally:
        rules.unregister(dice_race.GAME.name)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A desktop-sized page whose script must not fail."""
    context = browser.new_context(locale="en-GB", viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == [], "the page's script failed"


def broker_conf_head() -> str:
    """The start of a Mosquitto config: started as root, it would drop to a user that cannot
    read the test's folder."""
    return f"user {os.environ.get('USER', 'root')}\n" if os.geteuid() == 0 else ""


@dataclass(frozen=True)
class Mosquitto:
    """A throw-away broker: `port` lets anyone in, `auth_port` only USER with PASSWORD,
    `tls_port` anyone over TLS, with a certificate for 127.0.0.1 signed by the CA `ca`
    (`stranger_ca` signed nothing of it)."""

    port: int
    auth_port: int
    tls_port: int
    ca: Path
    stranger_ca: Path
    binary: str = "mosquitto"
    user: str = "table"
    password: str = "s3cret"
    spectator: str = "spectator"  # may only read (the ACL of docs/two-tables.md)
    spectator_password: str = "watch"

    @property
    def conf_head(self) -> str:
        return broker_conf_head()

    def url(self, room: str) -> str:
        return f"mqtt://127.0.0.1:{self.port}/{room}"


def make_certificates(openssl: str, folder: Path) -> None:
    """A CA (ca.crt), a server certificate for 127.0.0.1 it signed (server.crt, server.key)
    and a CA that signed nothing (stranger.crt), as docs/two-tables.md makes them
    (elliptic-curve keys: quick to make)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"]

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=folder, check=True, capture_output=True)

    for ca in ("ca", "stranger"):
        subject = f"/CN=smartboard {ca} CA"
        run("req", "-x509", *key, "-keyout", f"{ca}.key", "-out", f"{ca}.crt", "-subj", subject)
    run("req", *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "server.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    signed = ["-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-extfile", "server.ext"]
    run("x509", "-req", "-in", "server.csr", *signed, "-days", "2", "-out", "server.crt")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(*ports: int) -> bool:
    for port in ports:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return False
    return True


@pytest.fixture(scope="session")
def mosquitto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mosquitto]:
    """Debian's Mosquitto on three free ports of the loopback, its files in a temporary folder,
    stopped after the session (`make test` installs it, and openssl for the certificates)."""
    binary = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin")
    passwd = shutil.which("mosquitto_passwd") or shutil.which("mosquitto_passwd", path="/usr/bin")
    openssl = shutil.which("openssl")
    if binary is None or passwd is None or openssl is None:
        pytest.skip("the linked-table tests need Mosquitto: apt-get install mosquitto openssl")
    folder = tmp_path_factory.mktemp("mosquitto")
    make_certificates(openssl, folder)
    broker = Mosquitto(
        free_port(), free_port(), free_port(), folder / "ca.crt", folder / "stranger.crt", binary
    )
    passwords = folder / "passwords"
    subprocess.run([passwd, "-b", "-c", str(passwords), broker.user, broker.password], check=True)
    add = [passwd, "-b", str(passwords), broker.spectator, broker.spectator_password]
    subprocess.run(add, check=True)
    passwords.chmod(0o600)
    acl = folder / "acl"
    rules = (
        f"user {broker.user}\ntopic readwrite #\nuser {broker.spectator}\ntopic read smartboard/#\n"
    )
    acl.write_text(rules)
    acl.chmod(0o600)
    conf = folder / "mosquitto.conf"
    conf.write_text(
        "per_listener_settings true\n"
        + broker.conf_head
        + f"listener {broker.port} 127.0.0.1\nallow_anonymous true\n"
        + f"listener {broker.auth_port} 127.0.0.1\nallow_anonymous false\n"
        + f"password_file {passwords}\nacl_file {acl}\n"
        + f"listener {broker.tls_port} 127.0.0.1\nallow_anonymous true\n"
        + f"cafile {broker.ca}\ncertfile {folder / 'server.crt'}\nkeyfile {folder / 'server.key'}\n"
    )
    log = (folder / "mosquitto.log").open("w")
    process = subprocess.Popen([binary, "-c", str(conf)], stdout=log, stderr=log)
    try:
        wait_for(
            lambda: (
                process.poll() is not None
                or listening(broker.port, broker.auth_port, broker.tls_port)
            ),
            what="mosquitto to listen",
        )
        if process.poll() is not None:
            pytest.fail(f"mosquitto did not start: {(folder / 'mosquitto.log').read_text()}")
        yield broker
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
