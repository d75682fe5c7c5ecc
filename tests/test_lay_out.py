"""`lay_out` (issue 24): on the simulated table played from the page, its hands lay out what
chance brings up to a player's decision, Baron Voodoo's 48 set-up dice (BV-1) here, each seen by
the simulated camera and journalled, so that a restart resumes; the decision stays the human's.
And what a person's own hand does on the simulated table: a tap that puts a piece right."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from pathlib import Path

from conftest import fast_sim_config, wait_for
from daemon_run import call, serving
from playwright.sync_api import Page, expect

from controller.daemon import Daemon, RunOptions

SET_UP = 48  # BV-1: a die rolled onto each coloured space


def _chance(daemon: Daemon) -> bool:
    return daemon.session.state.is_chance_node()


def _steps(daemon: Daemon) -> object:
    return call(daemon, op="snapshot")["lay_out_steps"]


def test_the_simulated_table_lays_out_the_set_up_and_the_first_turn_waits(
    tmp_path: Path, page: Page
) -> None:
    """The page counts the steps left up to the decision, and while the hands lay them out,
    those left out of all, in a bar; once done, it says so and whose decision it is."""
    config = fast_sim_config(camera_fps=100.0, stable_frames=1, web_listen="127.0.0.1:0")
    options = RunOptions(
        state_dir=tmp_path,
        socket_path=tmp_path / "control.sock",
        game="voodoo",
        options={"players": 3},
        computer=("2:strong", "3:normal"),
        seed=5,
    )
    with serving(config, options) as daemon:
        assert daemon.laying_out() == "offered"
        assert _steps(daemon) == {"laid": 0, "left": SET_UP}
        assert call(daemon, op="lay_out") == {"ok": True, "laying_out": True}
        wait_for(lambda: len(daemon.session.state.actions()) >= 5, what="the first dice laid")
        snap = call(daemon, op="snapshot")
        if snap["lay_out"] == "running":  # each step counted as it is laid
            assert snap["lay_out_steps"] == {
                "laid": len(snap["log"]),
                "left": SET_UP - len(snap["log"]),
            }
    # Stopped half-way: what was laid is in the journal, and the page offers the rest again.
    with serving(config, options) as daemon:
        laid = len(daemon.session.state.actions())
        assert 5 <= laid < SET_UP and _chance(daemon)
        assert daemon.laying_out() == "offered"
        assert daemon.web is not None
        page.goto(daemon.web.url(with_token=True))
        expect(page.locator("#lay-out-left")).to_have_text(
            f"{SET_UP - laid} steps up to the next decision"
        )
        expect(page.locator("#lay-out-progress")).to_be_hidden()
        page.select_option("#lang", "fr")
        expect(page.locator("#lay-out-left")).to_have_text(
            f"{SET_UP - laid} étapes jusqu\u2019à la prochaine décision"
        )
        page.select_option("#lang", "en")
        # One step at a time: one die, laid and settled, and the rest offered again.
        page.locator("#lay-out-one").click()
        wait_for(lambda: len(daemon.session.state.actions()) > laid, what="the one step")
        wait_for(lambda: daemon.laying is None, what="the hands done after one step")
        assert len(daemon.session.state.actions()) == laid + 1 and _chance(daemon)
        assert daemon.session.sensed == daemon.session.expected
        laid += 1
        expect(page.locator("#lay-out-left")).to_have_text(
            f"{SET_UP - laid} steps up to the next decision"
        )
        page.locator("#lay-out").click()
        expect(page.locator("#lay-out-left")).to_have_text(
            re.compile(rf"\d+ steps? to go, of {SET_UP - laid}")
        )
        expect(page.locator("#lay-out-progress")).to_be_visible()
        wait_for(lambda: not _chance(daemon), timeout=20, what="the set-up laid out")
        wait_for(lambda: daemon.laying is None, what="the hands done")
        state = daemon.session.state
        assert len(state.actions()) == SET_UP and state.current_player() == 0
        # The human seat's first turn waits for them: the hands took no decision.
        assert daemon.session.sensed == daemon.session.expected
        assert daemon.laying_out() is None
        # What the table says now is the news: all laid, the first seat to play; not the last
        # die seen, nor one "on the next space" that is already laid.
        expect(page.locator("#message")).to_have_text(
            "All laid out for you, up to the next decision: Mamy Wata to play."
        )
        expect(page.locator("#log li").last).to_have_text(re.compile(r"^A set-up die showing \w+$"))
        again = call(daemon, op="lay_out")
        assert again["key"] == "lay_out_nothing"
        assert len(daemon.session.state.actions()) == SET_UP
        # Once a player moves, the set-up's dice fold into one line of the log, the moves
        # after it in view (the walk: 48 lines of set-up before the first move).
        first = daemon.session.legal_actions()[0].id
        assert call(daemon, op="act", id=first)["ok"]
        expect(page.locator("#log > li")).to_have_count(2)
        expect(page.locator("#log > li.run summary")).to_have_text(
            f"1\u2013{SET_UP}. Set-up dice \u00d7 {SET_UP}"
        )
        expect(page.locator("#log > li").last).to_have_attribute("value", str(SET_UP + 1))


def _takeover_served(tmp_path: Path) -> AbstractContextManager[Daemon]:
    """Two seats of Hostile Takeover on the simulated table, served to a page."""
    options = RunOptions(
        state_dir=tmp_path,
        socket_path=tmp_path / "control.sock",
        game="takeover",
        options={"players": 2},
        seed=5,
    )
    return serving(fast_sim_config(web_listen="127.0.0.1:0"), options)


def test_a_tap_on_a_tile_under_a_pawn_to_take_off_takes_the_pawn(
    tmp_path: Path, page: Page
) -> None:
    """The walk, Hostile Takeover on a phone: told "Take the pawn off r0c0", a player taps the
    pawn, and the tap went to the tile under it (the cell's camera spot), offering to take the
    tile away. A tap on a spot that is as it should be, in a square whose own piece is not,
    goes to that piece."""
    with _takeover_served(tmp_path) as daemon:
        assert call(daemon, op="roll", values=[9])["ok"]
        assert call(daemon, op="roll", values=[3])["ok"]  # Red rolled higher: Red lays first
        assert call(daemon, op="act", id="place_tile:r0c0")["ok"]
        wait_for(lambda: daemon.session.sensed == daemon.session.expected, what="the tile laid")
        assert call(daemon, op="place", spot="r0c0", token="piece")["ok"]  # a stray pawn
        wait_for(lambda: "r0c0" in daemon.session.sensed, what="the pawn felt")
        assert daemon.web is not None
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(daemon.web.url(with_token=True))
        tile = page.locator('.sub[data-spot="r0c0.map"]')
        expect(tile).to_be_attached()
        tile.click()
        wait_for(lambda: "r0c0" not in daemon.session.sensed, what="the pawn lifted")
        expect(page.locator("#chooser")).not_to_be_visible()
        assert daemon.session.sensed.get("r0c0.map") == "tile"
        # What to put right says "the pawn", but not "the Red's spawn".
        fix = "(spot) => fixText('r0c0.map', spot)"
        assert page.evaluate(fix, {"expected": "spawn:red"}) == "Put Red\u2019s spawn on A1"
        assert page.evaluate(fix, {"sensed": "tile"}) == "Take the tile off A1"
        # A pawn the game has there is a player's: the reeds cannot tell whose the hand lays.
        page.evaluate("() => { snap.details.pawns = {blue: 'r0c0'}; }")
        pawn = "(spot) => fixText('r0c0', spot)"
        assert page.evaluate(pawn, {"expected": "piece"}) == "Put Blue\u2019s pawn on A1"
        assert page.evaluate(pawn, {"sensed": "piece"}) == "Take the pawn off A1"
        # What a combat came to is said once it happens (the walk: nothing said who lost).
        news = page.locator("#news")
        expect(news).to_be_hidden()
        combat = {"attacker": "red", "defender": "blue", "rolls": [5, 11]}
        page.evaluate(
            "(combat) => { snap.details.last_combat = combat; render(); }",
            combat | {"outcome": "defender_won"},
        )
        expect(news).to_have_text(
            "Red attacked Blue, rolls 5, 11: the defender won, and the attacker loses a life "
            "and goes back to its spawn"
        )
        # Buildings count from 1 on the board and in sentences; their ids from 0 (claim:0).
        page.evaluate(
            "(claim) => { snap.details.building_at = {r0c0: 0};"
            " snap.details.last_claim = claim; render(); }",
            {"player": "red", "roll": 7, "building": 0, "outcome": "claimed"},
        )
        expect(page.locator('[data-spot="r0c0"] .number')).to_have_text("#1")
        # Worn down by claims, it says its points left (the walk: 5 of 10 looked whole).
        page.evaluate("() => { snap.details.building_worn = {r0c0: [5, 10]}; render(); }")
        expect(page.locator('[data-spot="r0c0"] .worn')).to_have_text("5/10")
        page.evaluate(
            "() => { snap.details.claim = {player: 'red', building: 0};"
            " snap.details.buildings = [{id: 0, size: 'small'}]; render(); }"
        )
        claim = page.locator('#details [data-detail="claim"]')
        expect(claim).to_contain_text("Building")
        expect(claim.locator("dd").last).to_have_text("1")
        expect(page.locator('#details [data-detail="buildings"] td').first).to_have_text("1")
        expect(news).to_contain_text("Red rolled 7 to claim building 1: ")
        page.evaluate("() => { snap.details.last_combat = null; render(); }")
        page.evaluate(
            "(combat) => { snap.details.last_combat = combat; render(); }",
            combat | {"outcome": "defender_won"},
        )
        page.locator("#lang").select_option("fr")
        expect(news).to_contain_text("Rouge a attaqué Bleu, lancers 5, 11 : le défenseur gagne")
        # Once the turn moves on, an old combat is not news: it says when it was, drawn fainter.
        turn = page.evaluate("() => snap.turn")
        page.evaluate("() => { snap.turn += 1; render(); }")
        expect(news).to_have_class(re.compile(r"\bold\b"))
        expect(news).to_contain_text(f"Tour {turn} : Rouge a attaqué Bleu")
        page.evaluate(
            "(combat) => { snap.details.last_combat = combat; render(); }",
            combat | {"outcome": "attacker_won"},
        )
        expect(news).not_to_have_class(re.compile(r"\bold\b"))


def test_a_tap_on_a_lit_cell_off_a_tiles_corner_offers_the_tiles_that_cover_it(
    tmp_path: Path, page: Page
) -> None:
    """The walk, Hostile Takeover's tiles (HT-1): a tile's top-left corner is outlined, the
    other cells it would cover are lit alike, and a tap on one of those laid a piece of tile
    there by hand. Now it offers the tiles that would cover that cell, and a tap lays one."""
    with _takeover_served(tmp_path) as daemon:
        assert call(daemon, op="roll", values=[9])["ok"]
        assert call(daemon, op="roll", values=[3])["ok"]  # Red lays first
        assert call(daemon, op="act", id="place_tile:r5c5")["ok"]
        wait_for(lambda: daemon.session.sensed == daemon.session.expected, what="the tile laid")
        assert daemon.web is not None
        page.goto(daemon.web.url(with_token=True))
        # r4c4 is no tile's corner now (a tile there would lie over r5c5), but two tiles
        # sharing an edge with the first would cover it: from r3c4 and from r4c3.
        cell = page.locator('.sub[data-spot="r4c4.map"]')  # the cell's tile, as a finger meets it
        expect(cell).to_be_visible()
        expect(page.locator("html")).to_have_attribute("data-to-move", "blue")
        cell.click()
        offered = page.locator("#chooser-tokens .choice")
        expect(offered).to_have_count(2)
        assert [choice.get_attribute("data-action") for choice in offered.all()] == [
            "place_tile:r3c4",
            "place_tile:r4c3",
        ]
        assert "r4c4.map" not in daemon.session.sensed  # nothing laid there by hand
        offered.first.click()
        wait_for(lambda: daemon.session.state.actions()[-1].id == "place_tile:r3c4")
