"""The dashboard's table test (issue 23): `light_test` lighting a spot's LEDs or one LED while the
game is paused, the snapshot's live reeds, and the view in a browser running the check on the
simulated table, clean and then with a dead LED and two crossed reeds injected."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fast_sim_config, wait_for
from daemon_run import call, serving
from playwright.sync_api import Page, expect

from controller.daemon import Daemon, RunOptions
from hardware.leds import SimStrip
from hardware.reeds import ReedBank, WiringFaults


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    with serving(fast_sim_config(web_listen="127.0.0.1:0"), options) as running:
        yield running


def lit_leds(daemon: Daemon) -> list[int]:
    strip = daemon.strip
    assert isinstance(strip, SimStrip) and strip.last is not None
    return [i for i, rgb in enumerate(strip.last) if any(rgb)]


def test_light_test_lights_a_spot_or_an_led_while_paused(daemon: Daemon) -> None:
    assert call(daemon, op="light_test", spot="1.trap")["key"] == "playing"
    assert call(daemon, op="pause")["ok"]
    reply = call(daemon, op="light_test", spot="2")
    assert reply == {"ok": True, "leds": [7, 8], "spots": ["2"], "count": 63}
    wait_for(lambda: lit_leds(daemon) == [7, 8], what="square 2's LEDs alone")
    assert call(daemon, op="light_test", led="11")["spots"] == ["2.trap"]
    wait_for(lambda: lit_leds(daemon) == [11], what="LED 11 alone")
    assert "no LED 63: the strip has LEDs 0 to 62" in call(daemon, op="light_test", led=63)["error"]
    assert "no spot 'r3c5'" in call(daemon, op="light_test", spot="r3c5")["error"]
    # Given back: the game's own lights, dimmed by the pause.
    assert call(daemon, op="light_test")["leds"] == []
    wait_for(lambda: len(lit_leds(daemon)) > 2, what="the game's lights")
    assert call(daemon, op="light_test", led=0)["ok"]
    assert call(daemon, op="resume")["ok"]
    wait_for(lambda: daemon.lit is None and lit_leds(daemon) != [0], what="the lights on resume")


def test_the_snapshot_shows_the_reeds_closed_while_paused(daemon: Daemon) -> None:
    assert call(daemon, op="pause")["ok"]
    reeds = daemon.reeds
    assert isinstance(reeds, ReedBank)
    assert "5.trap" not in call(daemon, op="snapshot")["reeds_closed"]
    reeds.drive("5.trap", True)  # a magnet over the reed: the paused game reads nothing
    wait_for(lambda: "5.trap" in call(daemon, op="snapshot")["reeds_closed"], what="the reed")
    assert call(daemon, op="snapshot")["spots"]["5.trap"]["sensed"] is None


def test_the_table_test_view_runs_the_check_and_names_the_faults(
    daemon: Daemon, page: Page
) -> None:
    """At phone size: the check passes on the simulated table; with a dead LED and two crossed
    reeds it names them, on the map too; a tap on a spot lights its LED; in French too."""
    page.set_viewport_size({"width": 390, "height": 844})
    assert daemon.web is not None
    page.goto(daemon.web.url(with_token=True))
    page.click("#tools-open")
    expect(page.locator("#tools-paused")).to_be_visible()
    page.click("#tools-pause")
    expect(page.locator("#tools-tab-test")).to_have_attribute("aria-selected", "true")
    run = page.locator("#test-run")
    expect(run).to_be_visible()  # drawn once the view's first answer came: measured after
    box = run.bounding_box()
    assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390
    run.click()
    summary = page.locator("#test-summary")
    passed = "Every part checked passed (Capture the Akuma, 3x3 board, simulated table)"
    expect(summary).to_contain_text(passed)
    lights = page.locator('#test-report [data-part="lights"]')
    expect(lights).to_have_attribute("data-status", "passed")
    expect(lights).to_contain_text("63 LEDs lit one by one, each checked as shown")
    expect(page.locator('#test-report [data-part="reeds"]')).to_contain_text("Walked: 45 spots")
    expect(page.locator('#test-report [data-part="link"]')).to_contain_text("skipped")

    strip, reeds = daemon.strip, daemon.reeds
    assert isinstance(strip, SimStrip) and isinstance(reeds, ReedBank)
    strip.stuck[11] = (0, 0, 0)
    reeds.faults = WiringFaults(crossed=(("3.trap", "4.trap"),))
    for part in ("profile", "link", "camera"):
        page.uncheck(f"#test-part-{part}")
    run.click()
    expect(summary).to_contain_text("2 fault(s) found")
    expect(page.locator("#test-report > li")).to_have_count(2)
    dead = page.locator('#test-report [data-kind="dead_led"]')
    expect(dead).to_contain_text("Dead LED (fault) LED 11 (2.trap) stays dark")
    expect(dead).to_contain_text("spots: 2.trap · LEDs: 11")
    crossed = page.locator('#test-report [data-kind="crossed"]')
    expect(crossed).to_contain_text("3.trap and 4.trap look swapped")
    expect(page.locator('#test-map [data-spot="4.trap"]')).to_have_attribute("data-fault", "")

    # A spot tapped on the map is lit alone, its LED named.
    page.click('#test-map [data-spot="2.trap"]')
    expect(page.locator("#test-lit")).to_have_text("2.trap: LED 11")
    expect(page.locator('#test-map [data-spot="2.trap"]')).to_have_attribute("data-lit", "")
    assert daemon.lit is not None
    # Every LED in turn, each with its spot's name, until stopped.
    walk = page.locator("#test-walk-leds")
    walk.click()
    expect(walk).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#test-lit")).to_have_text(re.compile(r"^Lit: LED \d+ — \S+"))
    walk.click()
    expect(walk).to_have_attribute("aria-pressed", "false")
    # The language chosen in the header (behind the dialog), as its select would.
    page.evaluate("() => { lang = 'fr'; translate(); }")
    expect(summary).to_contain_text("2 défaut(s) trouvé(s)")
    expect(dead).to_contain_text("LED morte (défaut)")
    page.keyboard.press("Escape")  # the dialog closed: the game's lights again
    wait_for(lambda: daemon.lit is None, what="the lights given back")
