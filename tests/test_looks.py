"""How the page draws each game (issue 20): every token a game can lay out has a declared look,
whose colour, die face and seats the page can resolve; and the printed cards' pictures."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from table_session import session_over
from web_daemon import fetch

from controller.config import load_config
from controller.rules import GAMES
from controller.rules.api import JSON, Game, GameState
from controller.rules.game_type import Look, Looks
from controller.simulate import random_step
from controller.snapshot import table_snapshot
from controller.web import Dashboard
from hardware.profile import builtin_profile_path, load_profile

HEX = re.compile(r"#[0-9a-f]{6}")
# Short random games, their chance sampled: enough for every kind of token to come up (each
# game's whole set-up and some play), few enough to take a second or two in all.
GAMES_EACH = 3
STEPS = 400
TOKEN = "test-token-0123456789"


def declared(game: Game) -> Looks:
    looks = game.info.looks
    assert looks is not None, f"{game.name} declares no looks"
    return looks


def colour_known(colour: str, game: Game) -> bool:
    looks = declared(game)
    roles = {role.name for role in game.info.palette}
    return bool(HEX.fullmatch(colour)) or colour in roles or colour in looks.colours


def seen_tokens(game: Game, seed: int) -> set[tuple[str, str]]:
    """Every (spot, token) that random play of `game` lays out, stacks beneath included."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    hidden = game.deal(state, rng)
    looks = declared(game)
    seen: set[tuple[str, str]] = set()
    for _ in range(STEPS):
        seen |= set(game.layout(state).items())
        if looks.stacks:
            stacks = game.describe(state)[looks.stacks]
            seen |= {(spot, token) for spot, stack in stacks.items() for token in stack}
        if state.is_terminal():
            break
        random_step(state, rng, hidden)
    return seen


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_token_has_a_look(name: str) -> None:
    game = GAMES[name]
    looks = declared(game)
    seen = set().union(*(seen_tokens(game, seed) for seed in range(GAMES_EACH)))
    used = set()
    for spot, token in sorted(seen):
        look = looks.find(token, spot)
        assert look is not None, f"{name}: no look for {token!r} on {spot}"
        used.add(look)
        drawn = look.fill(token)
        assert not drawn["colour"] or colour_known(drawn["colour"], game), (token, drawn)
        if look.kind == "die":
            assert drawn["face"] in looks.faces, f"{name}: no glyph for face {drawn['face']!r}"
    # And no look is declared for nothing: each drew something.
    assert used == set(looks.tokens)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_seat_and_face_has_a_colour_or_glyph(name: str) -> None:
    game = GAMES[name]
    looks = declared(game)
    assert len(looks.seats) == len(game.player_names)
    assert all(colour_known(colour, game) for colour in looks.seats)
    for dice in game.info.icon_dice:
        # A face of numbers (Hostile Takeover's d12) is written as its number.
        if not all(face.isdigit() for face in dice.faces):
            assert set(dice.faces) <= set(looks.faces), f"{name}: {dice.kind} faces unglyphed"


@pytest.mark.parametrize("name", sorted(n for n, game in GAMES.items() if declared(game).ground))
def test_a_printed_ground_colours_every_board_spot(name: str) -> None:
    game = GAMES[name]
    ground = game.describe(game.new_initial_state())[declared(game).ground]
    assert set(ground) == {spot for row in game.board_rows() for spot in row}
    assert all(colour_known(colour, game) or colour == "black" for colour in ground.values())


def test_a_building_shows_its_size_and_owner() -> None:
    """HT-2: a large building covers two cells, each showing it; the owner by colour and initial."""
    looks = declared(GAMES["takeover"])
    large, small = looks.find("large:blue", "r1c1.map"), looks.find("small:none", "r1c1.map")
    assert large is not None and small is not None
    assert (large.span, small.span) == (2, 1)
    assert {k: large.fill("large:blue")[k] for k in ("colour", "label")} == {
        "colour": "blue",
        "label": "b",
    }
    assert small.fill("small:none")["colour"] == "none" and not small.label


def test_a_look_refuses_a_group_it_does_not_have() -> None:
    with pytest.raises(ValueError, match="group"):
        Look(r"(\w+)", "die", face="{2}")
    with pytest.raises(ValueError, match="kind"):
        Look("x", "meeple")


def test_card_pictures() -> None:
    """The page's card spots show the printed card: a PNG each, cached by the browser; the back
    for a face-down card; an unknown card or game is a 404; the token is needed, as anywhere."""
    dash = Dashboard("127.0.0.1:0", lambda request, reply: None, lambda: None, TOKEN)
    key = {"X-Smartboard-Token": TOKEN}
    try:
        url = dash.url()
        card = fetch(url + "api/card/potions/6x10.png", headers=key)
        assert card.status == 200
        assert card.headers["Content-Type"] == "image/png"
        assert card.body.startswith(b"\x89PNG\r\n\x1a\n")
        assert "max-age" in card.headers["Cache-Control"]
        back = fetch(url + "api/card/back.png", headers=key)
        assert back.status == 200 and back.body != card.body
        other = fetch(url + "api/card/akuma/civilian-3.png", headers=key)
        assert other.status == 200 and other.body != card.body
        for missing in ("potions/1x1", "potions/civilian-3", "takeover/tile", "nogame/6x10"):
            assert fetch(url + f"api/card/{missing}.png", headers=key).status == 404
        assert fetch(url + "api/card/potions/6x10.png").status == 401
    finally:
        dash.close()


def played_snapshot(game: Game, tmp_path: Path, until: Callable[[GameState], bool]) -> JSON:
    """The snapshot the daemon would push after random play of `game` reaches `until`."""
    rng = random.Random(1)
    state = game.new_initial_state()
    while not until(state):
        random_step(state, rng)
    session = session_over(game, tmp_path / game.name, state)
    profile = load_profile(builtin_profile_path(game.info.profile), game.spots())
    palette = load_config(None).palette
    snapshot = table_snapshot(game, session, session.view(0.0), profile, palette)
    extras = {"paused": False, "sim": False, "alerts": [], "marks": {}, "camera": None}
    return snapshot | extras | {"dice_seen": [], "dice_unsure": None}


def test_dice_drawn_in_their_colours_stacks_and_pips(page: Page, tmp_path: Path) -> None:
    """A Voodoo die on the board is drawn in its body's colour, its face's glyph on it and its
    column's height beside it (BV-2, BV-4); a d6 the camera saw shows its pips."""
    voodoo, akuma = GAMES["voodoo"], GAMES["akuma"]

    def stacked(state: GameState) -> bool:
        return any(len(s) >= 2 for s in voodoo.describe(state)["columns"].values())

    snapshot = played_snapshot(voodoo, tmp_path, stacked)
    cell, column = next((c, s) for c, s in snapshot["details"]["columns"].items() if len(s) >= 2)
    colour, face = column[-1].split(":")
    shown: list[JSON] = [snapshot]
    dash = Dashboard("127.0.0.1:0", lambda request, reply: reply.put(shown[0]), lambda: None, TOKEN)
    try:
        dash.publish(snapshot)
        page.goto(dash.url() + f"?token={TOKEN}")
        drawn = page.locator(f'[data-spot="{cell}"] > .look-die')
        expect(drawn).to_have_attribute("data-stack", str(len(column)))
        expect(drawn.locator(".stack")).to_have_text(str(len(column)))
        die = drawn.locator(".die")
        body = snapshot["looks"]["colours"][colour]
        rgb = "rgb({}, {}, {})".format(*(int(body[i : i + 2], 16) for i in (1, 3, 5)))
        expect(die).to_have_css("background-color", rgb)
        expect(die.locator(".glyph")).to_have_text(declared(voodoo).faces[face])
        # BV-1: each space's printed colour around it; the board's list is not repeated.
        printed = snapshot["details"]["board_colours"][cell]
        expect(page.locator(f'#board > [data-spot="{cell}"]')).to_have_attribute(
            "data-ground", printed
        )
        expect(page.locator('#board > [data-spot="r3c3"]')).to_have_attribute(
            "data-ground", "black"
        )
        expect(page.locator('#details [data-detail="board_colours"]')).to_have_count(0)
        expect(page.locator('#details [data-detail="columns"]')).to_have_count(0)
        # Nor the rules' bookkeeping ("Last step 0", `Detail.inner`), which status keeps.
        assert "step" in snapshot["details"] and "step" in snapshot["inner_details"]
        expect(page.locator('#details [data-detail="step"]')).to_have_count(0)
        expect(page.locator('#details [data-detail="scores"]')).to_have_count(1)

        # Akuma's regular dice, as the camera saw them: pips.
        seen = played_snapshot(akuma, tmp_path, lambda state: True)
        shown[0] = seen | {"dice_seen": [{"value": 5, "confidence": 0.9}], "camera": {}}
        dash.publish(shown[0])
        pips = page.locator("#dice-seen .die.pips")
        expect(pips).to_have_attribute("data-face", "5")
        expect(pips.locator(".pip.on")).to_have_count(5)
    finally:
        dash.close()
