"""Where the page points for a decision (issue 20): the place a piece starts from and where it
goes, from the layouts the game gives before and after it (controller/snapshot.py)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from mightymania_play import started
from playwright.sync_api import Page, expect
from table_session import session_over
from takeover_play import position

from controller.computer import SHOWN_FROM, SHOWN_SWAP, SHOWN_TO, Computer
from controller.config import load_config
from controller.rules import GAMES, takeover
from controller.rules.api import Layout
from controller.rules.mightymania import Attack, Defend, Phase, Reveal
from controller.rules.voodoo import ErzulieFreda, Jump, VoodooState
from controller.session import differing
from controller.simulate import random_step
from controller.snapshot import board_places, decision_places, pointed, table_snapshot
from controller.startup import board_profile
from controller.thinker import Thinker
from controller.web import Dashboard


def point(game: str, before: Layout, after: Layout) -> tuple[str, str | None]:
    return pointed(before, after, differing(after, before), board_places(GAMES[game]))


def test_a_marker_on_its_voyage_is_pointed_from_its_square_to_the_next() -> None:
    """Sub-spots ("6.ladybug") are pointed at through the square they are drawn in (AK-1)."""
    assert point("akuma", {"6.ladybug": "piece"}, {"1.ladybug": "piece"}) == ("6", "1")


def test_a_pawn_moves_from_its_cell_and_a_tile_is_laid_at_its_named_cell() -> None:
    """A tile's four cells are read in board order, not string order: r9c9 comes before r10c9
    (HT-1's 2 x 2 tiles; the 12 x 12 map)."""
    tile = {f"r{r}c{c}.map": "tile" for r in (9, 10) for c in (9, 10)}
    assert point("takeover", {}, tile) == ("r9c9", None)
    pawn = {"r7c4": "piece", "r7c4.map": "tile", "r6c3.map": "tile"}
    moved = {"r6c3": "piece", "r7c4.map": "tile", "r6c3.map": "tile"}
    assert point("takeover", pawn, moved) == ("r7c4", "r6c3")


def test_a_die_jumping_upward_is_pointed_from_where_it_leaves() -> None:
    """A Voodoo jump over a die (BV-5): from the die's cell, over the taken one, to its landing."""
    before = {"r4c1": "red:point", "r3c1": "white:steal", "r2c1": "yellow:change"}
    after = {"r2c1": "red:point"}
    assert point("voodoo", before, after) == ("r4c1", "r2c1")


def test_a_card_turned_where_it_lies_is_one_place() -> None:
    assert point("akuma", {"7": "akumatized-7", "7.akuma": "piece"}, {"7": "civilian-7"}) == (
        "7",
        None,
    )


def test_a_die_jumping_over_one_alike_is_pointed_from_the_jumper(tmp_path: Path) -> None:
    """BV-5: a yellow Point jumps over a yellow Point. The layouts alone would point at the die
    jumped over (it leaves its cell empty first in reading order); the game names the jumper."""
    voodoo = GAMES["voodoo"]
    columns = {"r4c1": ["yellow:point"], "r3c1": ["yellow:point"]}
    state = VoodooState.from_position({"columns": columns})
    session = session_over(voodoo, tmp_path, state)
    config = load_config(None)
    shown = table_snapshot(
        voodoo, session, session.view(0.0), board_profile(config, voodoo), config.palette
    )
    jump = next(a for a in shown["actions"] if a["id"] == "jump:r4c1:r2c1")
    assert (jump["at"], jump["to"]) == ("r4c1", "r2c1")
    layouts = (session.expected, session.layout_after(Jump("r4c1", "r2c1")))
    assert point("voodoo", *layouts) == ("r3c1", "r2c1")  # what the layouts alone would say
    # The die jumped over is the jump's too: a tap on it offers the jumps that capture it.
    assert jump["covers"] == ["r3c1"]


def test_a_jump_and_a_paid_power_landing_alike_say_what_each_gains(
    tmp_path: Path, page: Page
) -> None:
    """The walk: a die moved from r4c1 to r2c1 is Mamy Wata's jump over r3c1 (BV-5) or Papa
    Legba's power, which she pays an Offering for (BV-7); the chooser showed the two alike. A
    decision carries what it changes of its mover's own: the die captured, the Offering paid;
    her own Loa's power is free."""
    voodoo = GAMES["voodoo"]
    columns = {"r4c1": ["yellow:point"], "r3c1": ["red:steal"], "r0c0": ["white:point"]}
    # A second capture, far off, so that the powers below leave one (BV-5, BV-11).
    columns |= {"r6c4": ["yellow:change"], "r6c5": ["red:point"]}
    state = VoodooState.from_position({"columns": columns})
    session = session_over(voodoo, tmp_path, state)
    config = load_config(None)
    shown = table_snapshot(
        voodoo, session, session.view(0.0), board_profile(config, voodoo), config.palette
    )
    assert shown["to_move"] == "mamy_wata"
    offered = {a["id"]: a for a in shown["actions"]}
    jump, paid = offered["jump:r4c1:r2c1"], offered["papa_legba:r4c1:r2c1"]
    assert (jump["at"], jump["to"]) == (paid["at"], paid["to"]) == ("r4c1", "r2c1")
    assert jump["gains"] == {"capture_zones": ["red:steal"]}
    assert paid["gains"] == {"offerings": -1}
    own = next(a for a in shown["actions"] if a["id"].startswith("mamy_wata:"))
    assert own.get("gains", {}) == {}  # her own Loa's power is free
    # Where no other kind of decision starts and ends alike, the words tell them apart: no
    # gains are worked out (each would describe the position after it).
    kinds: dict[tuple[str, str], set[str]] = {}
    for a in shown["actions"]:
        kinds.setdefault((a["at"], a["to"]), set()).add(a["id"].split(":")[0])
    lone = [a for a in shown["actions"] if len(kinds[(a["at"], a["to"])]) == 1]
    assert lone and all("gains" not in a for a in lone)
    # What every decision of a kind costs alike is worked out once a kind, for the page to say
    # of those (the walk: of six paid moves to one square, one was said to cost an Offering).
    assert shown["kind_gains"]["papa_legba"] == {"offerings": -1}
    assert "mamy_wata" not in shown["kind_gains"]  # her own Loa's power is free
    # The page: a tap on the die, then on where it lands, offers both, each with its gain.
    extras = {"paused": False, "sim": False, "alerts": [], "marks": {}, "camera": None}
    shown |= extras | {"dice_seen": [], "dice_unsure": None}
    token = "test-token-0123456789"
    dash = Dashboard("127.0.0.1:0", lambda request, reply: reply.put(shown), lambda: None, token)
    try:
        dash.publish(shown)
        page.goto(dash.url() + f"?token={token}")
        page.locator('#board > [data-spot="r4c1"]').click()
        page.locator('#board > [data-spot="r2c1"]').click()
        chooser = page.locator("#chooser[open]")
        expect(chooser.locator(f'[data-action="{paid["id"]}"]')).to_contain_text(
            "Papa Legba\u2019s power: move the die on B5 to B3"
        )
        expect(chooser.locator(f'[data-action="{paid["id"]}"] .gains')).to_have_text(
            "Offerings \u22121"
        )
        expect(chooser.locator(f'[data-action="{jump["id"]}"] .gains')).to_have_text(
            re.compile(r"^Capture zones: \+ \w")
        )
        expect(page.locator("#chooser-title")).to_have_text("Which one?")
        # Two paid moves to the empty r1c1 (the dice of r3c1 and r4c1 up their column): what
        # both cost is said once, above them.
        page.locator("#chooser button[value=cancel]").click()
        page.locator('#board > [data-spot="r1c1"]').click()
        choices = chooser.locator(".choice")
        expect(choices).to_have_count(2)
        expect(page.locator("#chooser-title")).to_have_text("Which one? Each: Offerings \u22121")
        expect(choices.locator(".gains")).to_have_count(0)
        # To r4c0 her own Loa's slide is free too: each paid move says its cost.
        page.locator("#chooser button[value=cancel]").click()
        page.locator('#board > [data-spot="r4c0"]').click()
        expect(choices).to_have_count(3)
        expect(page.locator("#chooser-title")).to_have_text("Which one?")
        expect(chooser.locator('[data-action^="papa_legba:"] .gains')).to_have_text(
            ["Offerings \u22121"] * 2
        )
        expect(chooser.locator('[data-action^="mamy_wata:"] .gains')).to_have_count(0)
    finally:
        dash.close()


def test_the_tables_swap_lights_both_dice_alike_bv_6(tmp_path: Path) -> None:
    """BV-6: Erzulie Freda swaps two single dice. Lit from one and to the other, a hand would
    move one die onto the other; both are lit as changing places, and the page still points
    from the first to the second."""
    voodoo = GAMES["voodoo"]
    columns = {"r1c1": ["white:steal"], "r2c3": ["red:point"], "r4c1": ["yellow:point"]}
    state = VoodooState.from_position({"columns": columns | {"r3c1": ["red:steal"]}})
    swap = ErzulieFreda("r1c1", "r2c3")
    assert state.is_legal(swap)
    session = session_over(voodoo, tmp_path, state)
    computer = Computer(voodoo, {1: "easy"}, False, Thinker, None, random.Random(1))
    assert computer.roles(session, swap) == {"r1c1": SHOWN_SWAP, "r2c3": SHOWN_SWAP}
    jump = Jump("r4c1", "r2c1")  # a die that moves: lit from and to, the die jumped taken
    assert computer.roles(session, jump)["r4c1"] == SHOWN_FROM
    assert computer.roles(session, jump)["r2c1"] == SHOWN_TO
    config = load_config(None)
    shown = table_snapshot(
        voodoo, session, session.view(0.0), board_profile(config, voodoo), config.palette
    )
    (offered,) = (a for a in shown["actions"] if a["id"] == swap.id)
    assert (offered["at"], offered["to"]) == ("r1c1", "r2c3")


def test_an_attack_and_a_defence_point_from_card_to_card(tmp_path: Path) -> None:
    """Mightymania: an attack moves no card, yet it is two taps, the attacking card then the
    card it attacks (MM-3); a defence, the defending card then the attacked card it fights for
    (MM-5). The table's own attack is lit from card to card as well."""
    game = GAMES["mightymania"]
    state = started()  # player_1 to attack, every card face down
    session = session_over(game, tmp_path, state)
    config = load_config(None)
    shown = table_snapshot(
        game, session, session.view(0.0), board_profile(config, game), config.palette
    )
    attacks = {a["id"]: (a["at"], a["to"]) for a in shown["actions"] if "attack:" in a["id"]}
    assert attacks["attack:2:3"] == ("s1.c2", "s2.c3")
    assert len(attacks) == sum(isinstance(a, Attack) for a in state.legal_actions())
    computer = Computer(game, {1: "easy"}, False, Thinker, None, random.Random(1))
    assert computer.roles(session, Attack(2, 3)) == {"s1.c2": SHOWN_FROM, "s2.c3": SHOWN_TO}
    state.apply(Attack(2, 3))
    while state.phase is Phase.REVEAL:  # the attacking card turned up
        player, col = state.reveals[0]
        state.apply(Reveal(player, col + 1, state.unrevealed(player)[0]))
    defences = [a for a in state.legal_actions() if isinstance(a, Defend)]
    assert defences and {game.pointing(state, d) for d in defences} == {
        (f"s2.c{d.from_col}", "s2.c3") for d in defences
    }


def test_a_takeover_claim_and_attack_point_from_the_pawn(tmp_path: Path) -> None:
    """HT-5: buildings bear no number on the board, so a claim is two taps, the pawn then the
    building; a large one on its cell next to the pawn (here its second). An attack: the pawn
    then the pawn it fights. The table's own claim is lit the same way."""
    game = GAMES["takeover"]
    state = position(
        """
        o o o o o
        o L L r o
        o o s b o
        R o o B o
        """
    )
    session = session_over(game, tmp_path, state)
    config = load_config(None)
    shown = table_snapshot(
        game, session, session.view(0.0), board_profile(config, game), config.palette
    )
    offered = {a["id"]: (a["at"], a["to"]) for a in shown["actions"]}
    # The board shows each building's number on its cells ("#1" for building 0, as "Claim
    # building 1" says it for claim:0): a claim is readable.
    assert shown["looks"]["numbers"] == "building_at"
    assert shown["details"]["building_at"] == {"r1c1": 0, "r1c2": 0, "r2c2": 1}
    assert shown["looks"]["worn"] == "building_worn" and shown["details"]["building_worn"] == {}
    worn = state.clone()
    assert isinstance(worn, takeover.TakeoverState)
    worn.buildings[0].points = 7  # a claim's roll of 18 against the large one's 25 (HT-5)
    assert game.describe(worn)["building_worn"] == {"r1c1": [7, 25], "r1c2": [7, 25]}
    assert offered["claim:0"] == ("r1c3", "r1c2")  # the large building on r1c1 and r1c2
    assert offered["claim:1"] == ("r1c3", "r2c2")
    assert offered["attack:blue"] == ("r1c3", "r2c3")
    assert offered["move:r0c2"] == ("r1c3", "r0c2")
    assert None not in {at for at, _ in offered.values()}  # no buttons left
    computer = Computer(game, {1: "easy"}, False, Thinker, None, random.Random(1))
    roles = computer.roles(session, takeover.Claim(0))
    assert roles == {"r1c3": SHOWN_FROM, "r1c2": SHOWN_TO}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_takeover_turn_decision_is_pointed_apart(players: int) -> None:
    """HT-5, over random games: on a turn, every claim points from the pawn to a cell of its
    building that the pawn touches, every attack from the pawn to the defender's pawn, and no
    two decisions point alike (no chooser: each is one tap from the pawn)."""
    game = GAMES["takeover"]
    places = board_places(game)
    rng = random.Random(players)
    seen = {takeover.Claim: 0, takeover.Attack: 0}
    for _ in range(3):
        state = takeover.TakeoverState.of(game.new_initial_state({"players": players}))
        while not state.is_terminal():
            if state.phase is takeover.Phase.TURN:
                names, pawn = state.grid.names, state.pawns[state.player]
                assert pawn is not None
                before = game.layout(state)
                ends = set()
                actions = state.legal_actions()
                for action in actions:
                    after = game.layout(state.child(action))
                    changes = differing(after, before)
                    at, to = decision_places(game, state, action, before, after, changes, places)
                    ends.add((at, to))
                    if isinstance(action, takeover.Claim):
                        cells = {names[c] for c in state.buildings[action.building].cells}
                        assert at == names[pawn] and to in cells
                        assert state.grid.index[to] in state.grid.around[pawn]
                    elif isinstance(action, takeover.Attack):
                        defender = state.pawns[takeover.COLOURS.index(action.target)]
                        assert defender is not None
                        assert (at, to) == (names[pawn], names[defender])
                    if type(action) in seen:
                        seen[type(action)] += 1
                assert len(ends) == len(actions)
            random_step(state, rng)
    assert seen[takeover.Claim] and seen[takeover.Attack]
