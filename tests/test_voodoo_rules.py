"""Baron Voodoo, rule by rule.

Each test cites its source: a clarification (BV-1 .. BV-12 in CLARIFICATIONS.md) or a short quote
of the rulebook (baron-voodoo.txt). Positions are written compactly (see `voodoo_play`): after
set-up by rolling, the board, zones, spirit worlds, Offerings and scores are rearranged and the
turn of the player to move starts through the engine.

Seats follow BV-3 unless the "loas" option says otherwise: 0 Mamy Wata (yellow), 1 Gran Bwa
(turquoise), 2 Papa Legba (red), 3 Erzulie Freda (purple). Most positions hold a spare capture
for the mover in a corner, so that a power at the start still leaves a capture to make.
"""

from __future__ import annotations

import doctest
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import docstring_test
from voodoo_play import (
    cells,
    dice,
    ids,
    legal,
    new_state,
    phase,
    play,
    position,
    rolled,
    snapshot,
)

from controller.rules.api import (
    CHANCE,
    TERMINAL,
    Action,
    DiceRequest,
    HistoryError,
    IllegalActionError,
)
from controller.rules.voodoo import (
    CELLS,
    CENTRE,
    FACES,
    GAME,
    INDEX,
    LOA_COLOUR,
    LOAS,
    POSITION_KEYS,
    SIZE,
    ChangeFace,
    EffectChange,
    EffectOffering,
    EffectPoint,
    EffectProtection,
    EndTurn,
    ErzulieFreda,
    ExtraTurn,
    GranBwa,
    Jump,
    MamyWata,
    PapaLegba,
    Phase,
    Place,
    PlaceCombo,
    PoolFace,
    PositionError,
    RuleDataError,
    SetupFace,
    Steal,
    Switch,
    TakeOffering,
    VoodooState,
    builtin_rules_path,
    combo_kind,
    combo_text,
    load_rules,
)

# --- Helpers -------------------------------------------------------------------------------------

LETTER = {"yellow": "Y", "turquoise": "T", "red": "R", "purple": "P", "white": "W"}
POWERS = (MamyWata, GranBwa, PapaLegba, ErzulieFreda)
STEP_KINDS: tuple[type[Action], ...] = (TakeOffering, ChangeFace, EffectOffering, EffectPoint)
STEP_KINDS += (EffectChange, EffectProtection, Steal, Switch, ExtraTurn, PlaceCombo)
SPARE = {"r6c0": "Y", "r6c1": "R"}  # Mamy Wata's spare capture: r6c0 over r6c1 to r6c2
JUMP = Jump("r3c3", "r3c5")  # the capture made by `after_capture`
BUILTIN = load_rules("")


def spare(colour_letter: str) -> dict[str, str]:
    """A spare capture for a player of this colour: r6c0 over a red r6c1 (or yellow) to r6c2."""
    return {"r6c0": colour_letter, "r6c1": "Y" if colour_letter == "R" else "R"}


def after_capture(
    jumped: str = "Rv", *, to_move: int = 0, board: dict[str, str] | None = None, **kw: Any
) -> VoodooState:
    """The mover's die on r3c3 has just jumped over `jumped` on r3c4 to r3c5: steps are next."""
    mover = "YTRP"[to_move]  # the default seats of BV-3
    state = position({**(board or {}), "r3c3": mover, "r3c4": jumped}, to_move=to_move, **kw)
    play(state, JUMP)
    assert state.phase is Phase.STEPS
    return state


def powers(state: VoodooState) -> set[str]:
    """The Loa powers offered now, by name."""
    return {type(a).__name__ for a in state.legal_actions() if isinstance(a, POWERS)}


def ended(
    *,
    players: int = 2,
    teams: bool = False,
    ender: int = 0,
    zones: list[str] | None = None,
    spirits: list[str] | None = None,
    scores: list[int] | None = None,
) -> VoodooState:
    """A game that ends at once: no side has an Offering and no one can capture (BV-11). A
    score at the target must have triggered the end already: `ender` did it then."""
    sides = 2 if teams else players
    target = BUILTIN.targets["teams" if teams else str(players)]
    state = position(
        {"r0c0": "Y", "r6c6": "T"},
        players=players,
        teams=teams,
        to_move=ender,
        offerings=[0] * sides,
        zones=zones,
        spirits=spirits,
        scores=scores,
        ended_by=ender if scores and max(scores) >= target else None,
        expect_play=False,
    )
    assert state.is_terminal()
    return state


def rules_file(tmp_path: Path, text: str, name: str = "rules.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


BUILTIN_TEXT = builtin_rules_path().read_text(encoding="utf-8")


def edited_rules(tmp_path: Path, old: str, new: str) -> str:
    assert old in BUILTIN_TEXT
    return rules_file(tmp_path, BUILTIN_TEXT.replace(old, new))


def random_game(options: dict[str, Any], seed: int, limit: int = 100_000) -> VoodooState:
    rng = random.Random(seed)
    state = new_state(options)
    while not state.is_terminal() and len(state.actions()) < limit:
        if state.is_chance_node():
            state.apply(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


# --- BV-1 Board and the rules file ---------------------------------------------------------------


def test_bv1_the_board_is_7_by_7_with_a_black_centre() -> None:
    """BV-1 "7x7 spaces; rows and columns 0-6. The centre space (3,3) is black"."""
    assert SIZE == 7
    assert len(CELLS) == 49
    assert CELLS[0] == "r0c0" and CELLS[48] == "r6c6"
    assert INDEX["r3c3"] == CENTRE
    assert BUILTIN.colours[CENTRE] is None
    assert all(colour is not None for i, colour in enumerate(BUILTIN.colours) if i != CENTRE)
    assert GAME.board_rows()[3][3] == "r3c3"


def test_bv1_bv2_the_layout_has_10_of_each_loa_colour_and_8_white() -> None:
    """BV-1 "10 spaces are yellow, 10 turquoise, 10 red, 10 purple, and 8 white" (BV-2 dice)."""
    counts = Counter(c for c in BUILTIN.colours if c is not None)
    assert counts == {"yellow": 10, "turquoise": 10, "red": 10, "purple": 10, "white": 8}


def test_bv1_a_quarter_turn_maps_the_board_onto_itself_with_the_loa_colours_cycled() -> None:
    """BV-1 "symmetric under a quarter turn", the Loa colours cycled yellow -> turquoise ->
    red -> purple (the data file's comment): each seat sees its own Loa where the first sees
    yellow."""
    cycle = {"yellow": "turquoise", "turquoise": "red", "red": "purple", "purple": "yellow"}
    cycle["white"] = "white"
    for r in range(SIZE):
        for c in range(SIZE):
            colour = BUILTIN.colours[r * SIZE + c]
            turned = BUILTIN.colours[c * SIZE + (SIZE - 1 - r)]  # (r, c) a quarter turn on
            assert turned == (None if colour is None else cycle[colour]), (r, c)


@pytest.mark.parametrize("ring", [0, 1, 2])
def test_bv1_each_ring_seen_from_each_side_shows_the_same_sequence(ring: int) -> None:
    """BV-1 "each ring of the board, seen from each of the four sides, shows the same sequence"
    (each side's Loa colour in the place of the first side's)."""
    k, far = ring, SIZE - 1 - ring

    def at(r: int, c: int) -> str:
        colour = BUILTIN.colours[r * SIZE + c]
        assert colour is not None
        return colour

    sides = [
        [at(k, c) for c in range(k, far)],  # top, left to right
        [at(r, far) for r in range(k, far)],  # right, top to bottom
        [at(far, c) for c in range(far, k, -1)],  # bottom, right to left
        [at(r, k) for r in range(far, k, -1)],  # left, bottom to top
    ]
    loa_colours = [colour for _, colour in LOAS]
    for seat, seen in enumerate(sides):
        own = {colour: loa_colours[(i + seat) % 4] for i, colour in enumerate(loa_colours)}
        assert seen == [own.get(colour, colour) for colour in sides[0]], seat
    assert len(set(map(tuple, sides))) == 4  # really cycled: the sides differ


def test_bv1_the_layout_is_the_data_file() -> None:
    """BV-1 "The layout is a data file": the built-in rules are voodoo.toml's rows."""
    assert builtin_rules_path().name == "voodoo.toml"
    letters = "".join("." if c is None else LETTER[c] for c in BUILTIN.colours)
    rows = [letters[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
    for row in rows:
        assert f'"{row}"' in BUILTIN_TEXT


def test_bv1_configurable_another_rules_file_gives_another_board(tmp_path: Path) -> None:
    """BV-1 "Configurable: the printed board may differ": set-up follows the file's colours."""
    path = edited_rules(tmp_path, '"PYTWRYY"', '"YPTWRYY"')
    state = rolled({"rules": path})
    assert cells(state)["r0c0"] == "Y"
    assert cells(state)["r0c1"] == "P"
    assert cells(rolled())["r0c0"] == "P"


BAD_RULES = [
    ("board = [", "is not valid TOML"),
    ('board = ["PYTWRYY"]', "board must be a list of 7 rows"),
    ('board = "PYTWRYY"', "board must be a list of 7 rows"),
]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('  "PYTWRYY",\n', "", "board must be a list of 7 rows"),
        ('"PYTWRYY"', '"PYTWRY"', "board row 0 must be 7 letters"),
        ('"PYTWRYY"', "7", "board row 0 must be 7 letters"),
        ('"WRT.PYW"', '"WRTYPYW"', "row 3 column 3: only the centre is black"),
        ('"PYTWRYY"', '"PYT.RYY"', "row 0 column 3: only the centre is black"),
        ('"PYTWRYY"', '"PYTXRYY"', "row 0 column 3: unknown colour 'X'"),
        ('"PYTWRYY"', '"pYTWRYY"', "unknown colour 'p'"),
        ("[points]\n3 = 3\n4 = 5\n5 = 8\n6 = 12\n", "", "[points] must be a table"),
        ("4 = 5\n", "", "sizes 3, 4, ... with no gap"),
        ("3 = 3\n", "", "sizes 3, 4, ... with no gap"),
        ("3 = 3\n4 = 5\n5 = 8\n6 = 12\n", "", "sizes 3, 4, ... with no gap"),
        ("4 = 5", "4 = -5", "whole numbers"),
        ("4 = 5", "4 = 5.0", "whole numbers"),
        ("4 = 5", "4 = true", "whole numbers"),
        ("4 = 5", "x = 5", "whole numbers"),
        ("teams = 18\n", "", "[target] must give"),
        ("teams = 18\n", "teams = 18\n5 = 10\n", "[target] must give"),
        ("3 = 15", "3 = 0", "[target] 3 must be a positive whole number"),
        ("3 = 15", '3 = "15"', "[target] 3 must be a positive whole number"),
    ],
)
def test_bv1_a_bad_rules_file_is_refused_clearly(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    """BV-1 / BV-9 / BV-11 data: a file that cannot be played raises RuleDataError, naming the
    file and the problem, when a game is made with it."""
    path = edited_rules(tmp_path, old, new)
    with pytest.raises(RuleDataError, match="rules") as caught:
        new_state({"rules": path})
    assert message in str(caught.value)
    assert path in str(caught.value)


@pytest.mark.parametrize(("text", "message"), BAD_RULES)
def test_bv1_a_rules_file_that_is_not_a_board_is_refused(
    tmp_path: Path, text: str, message: str
) -> None:
    path = rules_file(tmp_path, text)
    with pytest.raises(RuleDataError) as caught:
        new_state({"rules": path})
    assert message in str(caught.value)
    assert path in str(caught.value)


def test_bv1_a_missing_rules_file_is_refused(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.toml")
    with pytest.raises(RuleDataError, match=r"cannot read rules .*nowhere\.toml"):
        new_state({"rules": missing})
    assert issubclass(RuleDataError, ValueError)


def test_bv9_bv11_the_builtin_points_and_targets() -> None:
    """BV-9 "3 dice 3, 4 dice 5, 5 dice 8, 6 dice 12"; BV-11 "18 for 2 players, 15 for 3
    players, and 12 for 4 players; team mode uses 18"."""
    assert dict(BUILTIN.points) == {3: 3, 4: 5, 5: 8, 6: 12}
    assert dict(BUILTIN.targets) == {"2": 18, "3": 15, "4": 12, "teams": 18}


# --- Set-up --------------------------------------------------------------------------------------


def test_setup_by_rolling_is_48_chance_events_one_per_coloured_space() -> None:
    """Rulebook "Roll the 48 Dice and place them ... matching the dice color with the color of
    the space"; BV-1 "at set-up each takes one die of its own colour"; the centre stays empty."""
    state = new_state()
    faces = [FACES[i % 6] for i in range(48)]
    for n, face in enumerate(faces):
        assert state.current_player() == CHANCE
        assert state.legal_actions() == []
        odds = state.chance_outcomes()
        assert [a for a, _ in odds] == [SetupFace(f) for f in FACES]
        assert all(p == pytest.approx(1 / 6) for _, p in odds)
        assert sum(len(s) for s in state.board) == n
        state.apply(SetupFace(face))
    placed = [i for i in range(49) if i != CENTRE]
    assert [state.board[i] for i in placed] == [
        [(BUILTIN.colours[i], face)] for i, face in zip(placed, faces, strict=True)
    ]
    assert state.board[CENTRE] == []
    assert state.phase is Phase.START
    assert state.current_player() == 0


def test_setup_the_rolled_faces_are_the_six_effects_of_bv2() -> None:
    """BV-2 "Every die has the same six faces ... Offering, Victory point, Change face,
    Protection, Steal, Switch"."""
    assert FACES == ("offering", "point", "change", "protection", "steal", "switch")
    with pytest.raises(IllegalActionError):
        new_state().apply(SetupFace("skull"))


def test_setup_rolled_dice_are_read_on_the_board_not_typed() -> None:
    state = new_state()
    assert GAME.dice_wanted(state) is None
    with pytest.raises(IllegalActionError, match="no dice roll is expected"):
        GAME.dice_actions(state, ["point"])


@pytest.mark.parametrize(
    ("options", "offerings", "reserve"),
    [
        ({"players": 2}, [3, 3], 14),
        ({"players": 3}, [3, 3, 3], 11),
        ({"players": 4}, [3, 3, 3, 3], 8),
        ({"players": 4, "teams": True}, [3, 3], 14),
    ],
    ids=["2", "3", "4", "teams"],
)
def test_setup_each_side_takes_3_offerings_and_the_rest_is_the_reserve(
    options: dict[str, Any], offerings: list[int], reserve: int
) -> None:
    """Rulebook set-up "3 Offering tokens" each, "remaining tokens ... in the reserve"; BV-7
    "there are 20 in all"; BV-12 "3 per team"."""
    state = rolled(options)
    assert state.offerings == offerings
    assert state.reserve == reserve
    assert state.reserve + sum(state.offerings) == 20
    assert state.scores == [0] * len(offerings)
    assert state.protected == [False] * state.num_players  # "placed inactive side up"
    assert state.samedi is None
    assert all(zone == [] for zone in state.zones + state.spirits)


def test_setup_the_oldest_player_plays_first() -> None:
    """Rulebook "The oldest player is the first to play": the first seat."""
    for players in (2, 3, 4):
        state = rolled({"players": players})
        assert state.current_player() == 0
        assert state.turn == 1 and state.round == 1


def test_setup_by_placing_rolls_the_pool_as_chance_then_players_place_in_turn() -> None:
    """Rulebook "each player can place a die, one after another until the board is filled":
    the 48 dice are rolled (chance), then each player in turn places one."""
    state = new_state({"setup": "place"})
    assert phase(state) is Phase.SETUP_POOL
    assert GAME.dice_wanted(state) == DiceRequest("soul", 48, FACES)
    for n in range(48):
        assert state.current_player() == CHANCE
        state.apply(PoolFace(FACES[n % 6]))
    assert Counter(c for c, _ in state.pool) == Counter(c for c in BUILTIN.colours if c)
    assert phase(state) is Phase.SETUP_PLACE
    movers = []
    for _ in range(48):
        movers.append(state.current_player())
        options = legal(state, Place)
        assert options and len(options) == len(state.legal_actions())
        state.apply(options[-1])
    assert movers == [0, 1] * 24
    assert all(
        [c for c, _ in state.board[i]] == [BUILTIN.colours[i]] for i in range(49) if i != CENTRE
    )
    assert state.board[CENTRE] == []
    assert phase(state) is Phase.START and state.current_player() == 0


def test_setup_by_placing_matches_the_colour_of_the_space() -> None:
    """Rulebook "matching the dice color with the color of the space": only empty spaces of the
    die's colour are offered; the black centre takes no die."""
    state = play(new_state({"setup": "place"}), [PoolFace("steal")] * 48)
    for action in legal(state, Place):
        assert isinstance(action, Place)
        assert BUILTIN.colours[INDEX[action.cell]] == action.die.split(":")[0]
    assert {a.die for a in legal(state, Place) if isinstance(a, Place)} == {
        f"{colour}:steal" for colour in LETTER
    }
    before = snapshot(state)
    for wrong in (Place("r0c0", "yellow:steal"), Place("r3c3", "yellow:steal")):
        with pytest.raises(IllegalActionError):
            state.apply(wrong)  # r0c0 is purple
    assert snapshot(state) == before
    play(state, Place("r0c0", "purple:steal"))
    assert "r0c0" not in {a.cell for a in legal(state, Place) if isinstance(a, Place)}
    with pytest.raises(IllegalActionError):
        state.apply(Place("r0c0", "purple:steal"))  # now full


def test_setup_by_placing_only_rolled_dice_can_be_placed() -> None:
    state = play(new_state({"setup": "place"}), [PoolFace("point")] * 48)
    with pytest.raises(IllegalActionError):
        state.apply(Place("r0c0", "purple:steal"))  # no such die was rolled


def test_setup_by_placing_reads_the_pool_from_the_table() -> None:
    state = new_state({"setup": "place"})
    assert GAME.dice_actions(state, ["steal", "point"]) == [PoolFace("steal"), PoolFace("point")]
    play(state, GAME.dice_actions(state, ["steal", "point"]))
    assert GAME.dice_wanted(state) == DiceRequest("soul", 46, FACES)
    for bad in (["skull"], [], ["point"] * 47):
        with pytest.raises(IllegalActionError, match="soul dice faces"):
            GAME.dice_actions(state, bad)


def test_setup_by_placing_in_team_mode_alternates_the_teams() -> None:
    """BV-12 "turns alternate between the teams", from the first placement on."""
    state = play(new_state({"setup": "place", "teams": True}), [PoolFace("point")] * 48)
    movers = []
    for _ in range(8):
        movers.append(state.current_player())
        state.apply(legal(state, Place)[0])
    assert movers == [0, 2, 1, 3] * 2


# --- BV-3 Loas and options -----------------------------------------------------------------------


def test_bv3_each_loa_and_its_colour() -> None:
    """BV-3 "Mamy Wata is yellow, Gran Bwa turquoise, Papa Legba red, Erzulie Freda purple"."""
    assert LOA_COLOUR == {
        "mamy_wata": "yellow",
        "gran_bwa": "turquoise",
        "papa_legba": "red",
        "erzulie_freda": "purple",
    }
    state = rolled({"players": 4})
    assert [state.colour_of(p) for p in range(4)] == ["yellow", "turquoise", "red", "purple"]
    assert [state.player_name(p) for p in range(4)] == list(LOA_COLOUR)


def test_bv3_the_loas_option_seats_loas_by_name_or_colour() -> None:
    """BV-3 "Each player is one Loa, whose colour is theirs"."""
    state = rolled({"players": 3, "loas": "purple, papa_legba,turquoise"})
    assert state.loas == ("erzulie_freda", "papa_legba", "gran_bwa")
    assert [state.colour_of(p) for p in range(3)] == ["purple", "red", "turquoise"]
    assert state.target() == 15
    # The first seat captures with purple dice only.
    for action in legal(state, Jump):
        assert isinstance(action, Jump)
        assert state.board[INDEX[action.frm]][-1][0] == "purple"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 1}, "2 to 4 players, not 1"),
        ({"players": 5}, "2 to 4 players, not 5"),
        ({"players": 0}, "2 to 4 players, not 0"),
        ({"players": 3, "teams": True}, "team mode is for 4 players, not 3"),
        ({"loas": "yellow,yellow"}, "must name 2 different Loas"),
        ({"loas": "yellow"}, "must name 2 different Loas"),
        ({"loas": "yellow,red,purple"}, "must name 2 different Loas"),
        ({"loas": "yellow,baron_samedi"}, "must name 2 different Loas"),
        ({"loas": "yellow,white"}, "must name 2 different Loas"),
        ({"setup": "fixed"}, "option 'setup' must be 'roll' or 'place'"),
        ({"players": "2"}, "option 'players' for voodoo must be int"),
        ({"teams": 1}, "option 'teams' for voodoo must be bool"),
        ({"seats": 2}, "unknown option 'seats'"),
    ],
)
def test_bv3_bad_options_are_refused_clearly(options: dict[str, Any], message: str) -> None:
    """BV-3 "2-4 players, or team mode with 4"; the Loas are the four of BV-3."""
    with pytest.raises(ValueError) as caught:
        new_state(options)
    assert message in str(caught.value)


def test_bv3_white_belongs_to_nobody() -> None:
    """BV-3 "White belongs to nobody": no seat plays white."""
    state = rolled({"players": 4})
    assert "white" not in {state.colour_of(p) for p in range(4)}


# --- BV-4 / BV-5 Capture by jumping --------------------------------------------------------------


@pytest.mark.parametrize(
    ("over", "to"),
    [("r2c3", "r1c3"), ("r4c3", "r5c3"), ("r3c2", "r3c1"), ("r3c4", "r3c5")],
    ids=["north", "south", "west", "east"],
)
def test_bv5_a_die_captures_by_jumping_in_each_direction(over: str, to: str) -> None:
    """BV-5 "It jumps in a straight orthogonal line over the adjacent space ... The top die of
    the jumped column is captured into the player's capture zone. The jumping die ends on top
    of the landing column"; rulebook "The die you jumped over is captured and goes in your
    capture zone"."""
    state = position({"r3c4" if over != "r3c4" else "r3c2": "W", "r3c3": "Ys", over: "Pc"})
    assert Jump("r3c3", to) in state.legal_actions()
    play(state, Jump("r3c3", to))
    assert cells(state)[to] == "Ys"
    assert "r3c3" not in cells(state)
    assert over not in cells(state)
    assert state.zones == [dice("Pc"), []]
    assert state.captured == ("purple", "change")
    assert state.phase is Phase.STEPS
    assert state.current_player() == 0


def test_bv5_the_black_centre_is_a_normal_landing_space() -> None:
    """BV-5 "the black centre is a normal space": dice land on it, and a die on it can be
    jumped over."""
    state = position({"r3c1": "Y", "r3c2": "T"})
    assert ids(state, Jump) == ["jump:r3c1:r3c3"]
    play(state, Jump("r3c1", "r3c3"), EndTurn())
    assert cells(state) == {"r3c3": "Y"}
    state = position({"r3c3": "T", "r3c4": "Y", **SPARE})
    assert "jump:r3c4:r3c2" in ids(state, Jump)
    play(state, Jump("r3c4", "r3c2"))
    assert state.zones[0] == dice("T")


def test_bv5_rulebook_example_two_choices() -> None:
    """Rulebook: "I can jump over and capture the blue Die by placing my Die on the empty
    space" or "capture the purple Die by placing my Die on the other yellow one"."""
    state = position({"r2c2": "Y", "r2c3": "T", "r3c2": "P", "r4c2": "Y"})
    assert {a for a in ids(state, Jump) if a.startswith("jump:r2c2")} == {
        "jump:r2c2:r2c4",
        "jump:r2c2:r4c2",
    }
    play(state, Jump("r2c2", "r4c2"))
    assert cells(state) == {"r2c3": "T", "r4c2": "YY"}
    assert state.zones[0] == dice("P")


@pytest.mark.parametrize("landing", ["T", "RW", "Y"])
def test_bv5_landing_on_a_column_of_1_or_2_dice_of_any_colour(landing: str) -> None:
    """BV-5 "That space must be on the board and hold 0, 1 or 2 dice, of any colour"."""
    state = position({"r3c3": "Y", "r3c4": "P", "r3c5": landing})
    play(state, JUMP)
    assert cells(state)["r3c5"] == landing + "Y"


def test_bv5_no_landing_on_a_complete_column_of_3() -> None:
    """Rulebook "Die 5 cannot jump over the purple Die either because the next space is a
    complete column (3 dice)"; BV-4 "A space holds 0-3 dice"."""
    state = position({"r3c3": "Y", "r3c4": "P", "r3c5": "TRW", **SPARE})
    assert not [a for a in ids(state, Jump) if a.startswith("jump:r3c3")]
    with pytest.raises(IllegalActionError):
        state.apply(JUMP)


def test_bv5_an_isolated_die_cannot_jump() -> None:
    """Rulebook "The Die 2 is isolated and cannot jump over another Die"; BV-5 "the adjacent
    space, which must hold at least one die"."""
    state = position({"r3c3": "Y", "r3c5": "R", "r1c1": "T", **SPARE})
    assert ids(state, Jump) == ["jump:r6c0:r6c2"]
    with pytest.raises(IllegalActionError):
        state.apply(JUMP)  # over the empty r3c4


def test_bv5_a_die_under_others_is_not_accessible() -> None:
    """Rulebook "The Die 3 is not accessible (under other dice)"; BV-4 "Only the top die of a
    column is accessible"."""
    state = position({"r3c3": "YR", "r3c4": "T", **SPARE})
    assert ids(state, Jump) == ["jump:r6c0:r6c2"]


def test_bv4_the_top_die_of_a_column_jumps_and_leaves_the_rest() -> None:
    """BV-4 "Only the top die of a column is accessible": a yellow top die jumps."""
    state = position({"r3c3": "TRY", "r3c4": "P"})
    play(state, JUMP)
    assert cells(state) == {"r3c3": "TR", "r3c5": "Y"}


def test_bv5_jumping_over_a_column_captures_only_its_top_die() -> None:
    """BV-5 "The top die of the jumped column is captured"; rulebook "jumping over an adjacent
    die or column of dice"."""
    state = position({"r3c3": "Y", "r3c4": "TWPc"})
    play(state, JUMP)
    assert cells(state) == {"r3c4": "TW", "r3c5": "Y"}
    assert state.zones[0] == dice("Pc")


@pytest.mark.parametrize(("frm", "over"), [("r0c1", "r0c0"), ("r1c5", "r1c6"), ("r5c2", "r6c2")])
def test_bv5_no_jump_over_the_edge_of_the_board(frm: str, over: str) -> None:
    """Rulebook "Die 4 cannot jump over the red Die because no empty space is available (the
    red Die is over the edge of the board)"; BV-5 "That space must be on the board"."""
    board = {frm: "Y", over: "R", "r3c3": "Y", "r3c4": "R"}
    state = position(board)
    assert ids(state, Jump) == ["jump:r3c3:r3c5"]  # and nothing from the edge


def test_bv5_only_the_players_own_colour_jumps_and_white_never() -> None:
    """BV-5 "The player picks an accessible die of their own colour; white does not jump";
    rulebook "The other dice are not yellow and Mamy Wata only plays yellow dice"."""
    board = {"r1c1": "T", "r1c2": "R", "r4c1": "W", "r4c2": "R", "r3c3": "Y", "r3c4": "R"}
    board |= {"r5c4": "P", "r5c5": "Y", "r0c5": "R", "r0c6": "T"}
    expected = {
        0: {"jump:r3c3:r3c5", "jump:r5c5:r5c3"},
        1: {"jump:r1c1:r1c3", "jump:r0c6:r0c4"},
        2: {"jump:r1c2:r1c0", "jump:r4c2:r4c0", "jump:r3c4:r3c2"},  # not over r0c6: the edge
        3: {"jump:r5c4:r5c6"},
    }
    for player, jumps in expected.items():
        state = position(board, players=4, to_move=player)
        assert set(ids(state, Jump)) == jumps, player


def test_bv5_every_direction_at_once() -> None:
    state = position({"r3c3": "Y", "r2c3": "R", "r4c3": "R", "r3c2": "R", "r3c4": "R"})
    assert set(ids(state, Jump)) == {
        "jump:r3c3:r1c3",
        "jump:r3c3:r5c3",
        "jump:r3c3:r3c1",
        "jump:r3c3:r3c5",
    }


@pytest.mark.parametrize(
    "bad", [Jump("r3c3", "r5c5"), Jump("r3c3", "r3c4"), Jump("r3c3", "r3c6"), Jump("r3c4", "r3c2")]
)
def test_bv5_only_a_straight_jump_over_one_space(bad: Jump) -> None:
    """BV-5 "in a straight orthogonal line over the adjacent space ... lands on the space just
    beyond": no diagonal, no slide, no long jump, no jump by the jumped die."""
    state = position({"r3c3": "Y", "r3c4": "R", "r4c4": "T", "r3c5": "T"})
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(bad)
    assert snapshot(state) == before


def test_bv5_a_protected_players_top_die_cannot_be_captured() -> None:
    """BV-5 "A die belonging to a player whose Protection is active cannot be captured. Such a
    die is the top die of that player's colour"; rulebook Protection "Your dice on the central
    game board cannot be captured"."""
    board = {"r3c3": "Y", "r3c4": "T", "r1c1": "Y", "r1c2": "YT", "r5c1": "Y", "r5c2": "TR"}
    state = position(board, protected=[1])
    assert set(ids(state, Jump)) == {"jump:r5c1:r5c3"}  # red on top of turquoise is fair game
    state = position(board)
    assert set(ids(state, Jump)) == {"jump:r3c3:r3c5", "jump:r1c1:r1c3", "jump:r5c1:r5c3"}


def test_bv5_the_capture_is_compulsory() -> None:
    """BV-5 "This is the compulsory main action"; rulebook "You have to capture a Die": the turn
    cannot end before a capture."""
    state = position({"r3c3": "Y", "r3c4": "R"})
    kinds = {type(a) for a in state.legal_actions()}
    assert Jump in kinds
    assert not kinds & {EndTurn, *STEP_KINDS}
    with pytest.raises(IllegalActionError):
        state.apply(EndTurn())


def test_bv4_random_games_never_stack_above_3_and_keep_20_offerings() -> None:
    """BV-4 "A space holds 0-3 dice in a column"; BV-7 "there are 20 in all"; BV-2 48 dice."""
    cases: list[dict[str, Any]] = [{}, {"players": 4}, {"teams": True}, {"players": 3}]
    for seed, options in enumerate(cases):
        rng = random.Random(seed)
        state = rolled(options)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            assert max(len(stack) for stack in state.board) <= 3
            assert state.reserve >= 0 and min(state.offerings) >= 0
            assert state.reserve + sum(state.offerings) == 20
            held = sum(map(len, state.board)) + sum(map(len, state.zones + state.spirits))
            assert held == 48


def test_bv4_the_table_sees_the_top_die_of_each_column() -> None:
    """BV-4 "Only the top die of a column is accessible": the camera's layout is the top dice,
    and a lifted top die shows the one below."""
    state = position({"r3c3": "Y", "r3c4": "TRc"})
    assert GAME.layout(state) == {"r3c3": "yellow:point", "r3c4": "red:change"}
    assert GAME.lifted(state) == {"r3c4": "turquoise:point"}


# --- BV-6 Loa powers: Mamy Wata ------------------------------------------------------------------

ROW = {"r2c1": "T", "r2c3": "RW", "r2c5": "Po"}
COLUMN = {"r1c4": "T", "r3c4": "RW", "r5c4": "Po"}


@pytest.mark.parametrize(
    ("board", "action", "after"),
    [
        (ROW, MamyWata("r2", "w"), {"r2c0": "T", "r2c1": "RW", "r2c2": "Po"}),
        (ROW, MamyWata("r2", "e"), {"r2c4": "T", "r2c5": "RW", "r2c6": "Po"}),
        (COLUMN, MamyWata("c4", "n"), {"r0c4": "T", "r1c4": "RW", "r2c4": "Po"}),
        (COLUMN, MamyWata("c4", "s"), {"r4c4": "T", "r5c4": "RW", "r6c4": "Po"}),
    ],
    ids=["row-west", "row-east", "column-north", "column-south"],
)
def test_bv6_mamy_wata_slides_a_line_toward_either_end_keeping_order(
    board: dict[str, str], action: MamyWata, after: dict[str, str]
) -> None:
    """BV-6 "Mamy Wata. Choose a line and one of its two ends. Every stack in the line slides
    toward that end, closing all gaps and keeping its order"; "Stacks move as whole stacks"."""
    state = position({**board, **SPARE})
    assert action in state.legal_actions()
    play(state, action)
    assert cells(state) == {**after, **SPARE}


def test_bv6_mamy_wata_only_offers_lines_where_something_moves() -> None:
    """BV-6 Mamy Wata: a line already closed toward an end, an empty line and a full line are
    not offered for that end: nothing would move."""
    full_row = {f"r0c{c}": "T" for c in range(7)}
    state = position({**full_row, "r2c0": "T", "r2c1": "R", **SPARE})
    offered = set(ids(state, MamyWata))
    assert "mamy_wata:r2:w" not in offered and "mamy_wata:r2:e" in offered
    # Row 6 is closed westward; eastward it would leave Mamy Wata no capture (BV-5, BV-11).
    assert not {"mamy_wata:r6:w", "mamy_wata:r6:e"} & offered
    assert not {"mamy_wata:r0:w", "mamy_wata:r0:e"} & offered  # full
    assert not {"mamy_wata:r4:w", "mamy_wata:r4:e"} & offered  # empty
    # c0 holds r0c0, r2c0, r6c0: gaps both ways. c3 holds r0c3 only: closed toward the north.
    assert {"mamy_wata:c0:n", "mamy_wata:c0:s", "mamy_wata:c3:s"} <= offered
    assert "mamy_wata:c3:n" not in offered
    assert all(a.split(":")[2] in "we" for a in offered if a.split(":")[1][0] == "r")
    assert all(a.split(":")[2] in "ns" for a in offered if a.split(":")[1][0] == "c")


@pytest.mark.parametrize("bad", [MamyWata("r2", "n"), MamyWata("c4", "e"), MamyWata("d1", "w")])
def test_bv6_mamy_wata_moves_a_row_west_or_east_and_a_column_north_or_south(bad: Action) -> None:
    state = position({**ROW, **COLUMN, **SPARE})
    with pytest.raises(IllegalActionError):
        state.apply(bad)


def test_bv6_mamy_wata_slides_across_and_onto_the_black_centre() -> None:
    """BV-5 / BV-1: the centre is a normal space, also for the powers."""
    state = position({"r3c0": "T", "r3c1": "R", "r3c2": "P", "r3c5": "Wo", **SPARE})
    play(state, MamyWata("r3", "w"))
    assert cells(state)["r3c3"] == "Wo"


# --- BV-6 Loa powers: Gran Bwa -------------------------------------------------------------------

BWA = {"r1c1": "YRPc", "r1c5": "W", "r5c5": "RW", "r5c1": "YRP", "r6c0": "T", "r6c1": "R"}


def test_bv6_gran_bwa_moves_the_upper_dice_one_at_a_time_onto_columns_of_1_or_2() -> None:
    """BV-6 "Gran Bwa. Choose a column of 2 or 3 dice. Every die above the bottom one moves, one
    at a time, onto another column of 1 or 2 dice. It may not land on an empty space. A column
    never exceeds 3"; rulebook "Move all dice from a column except the one directly on the
    Board, and place them freely on other dice"."""
    state = position(BWA, to_move=1)
    first = {a for a in ids(state, GranBwa) if a.startswith("gran_bwa:r1c1:")}
    # Not onto r6c0: covering Gran Bwa's only turquoise die would leave no capture (BV-5, BV-11).
    assert first == {f"gran_bwa:r1c1:{t}" for t in ("r1c5", "r5c5", "r6c1")}
    play(state, GranBwa("r1c1", "r5c5"))
    assert cells(state)["r5c5"] == "RWPc"
    assert cells(state)["r1c1"] == "YR"
    # The rest of the column must follow: nothing else is offered, and r5c5 is now full.
    assert state.phase is Phase.GRAN_BWA
    assert set(ids(state)) == {f"gran_bwa:r1c1:{t}" for t in ("r1c5", "r6c1")}
    # Lit as the moves go: not onto r6c0 either (the review: lit, and it blinked when followed).
    lit = {spot for spot, role in GAME.lights(state).items() if role == "power"}
    assert lit == {"r1c1", "r1c5", "r6c1"}
    for bad in (EndTurn(), Jump("r6c0", "r6c2"), GranBwa("r5c1", "r1c5"), GranBwa("r1c1", "r5c5")):
        with pytest.raises(IllegalActionError):
            state.apply(bad)
    play(state, GranBwa("r1c1", "r1c5"))
    assert cells(state)["r1c5"] == "WR"
    assert cells(state)["r1c1"] == "Y"
    # The power is over: the capture follows.
    assert phase(state) is Phase.CAPTURE
    assert ids(state) == ["jump:r6c0:r6c2"]


def test_bv6_gran_bwa_on_a_column_of_2_moves_one_die() -> None:
    state = position(BWA, to_move=1)
    play(state, GranBwa("r5c5", "r1c5"))
    assert cells(state)["r5c5"] == "R"
    assert cells(state)["r1c5"] == "WW"
    assert state.phase is Phase.CAPTURE


def test_bv6_gran_bwa_never_onto_an_empty_space_a_full_column_or_itself() -> None:
    state = position(BWA, to_move=1)
    for action in legal(state, GranBwa):
        assert isinstance(action, GranBwa)
        assert action.to != action.frm
        assert 1 <= len(state.board[INDEX[action.to]]) <= 2
        assert len(state.board[INDEX[action.frm]]) >= 2
    assert {a.split(":")[1] for a in ids(state, GranBwa)} == {"r1c1", "r5c1", "r5c5"}


@pytest.mark.parametrize(
    ("room", "sources"), [({}, set()), ({"r3c5": "W"}, {"r1c1", "r1c5", "r6c1"})]
)
def test_bv6_gran_bwa_needs_room_for_every_die_above_the_bottom(
    room: dict[str, str], sources: set[str]
) -> None:
    """BV-6 "Every die above the bottom one moves ... A column never exceeds 3": a column whose
    upper dice cannot all find a place is not offered (the power could not be finished)."""
    board = {"r1c1": "YRP", "r1c5": "WW", "r6c0": "YYT", "r6c1": "RRR", **room}
    state = position(board, to_move=1)
    # Without r3c5, the only room is r1c5's own last place. Not r6c0 in any case: its top die
    # is the turquoise one that captures, and moved off it would leave none (BV-5, BV-11).
    assert {a.split(":")[1] for a in ids(state, GranBwa)} == sources


def test_bv6_gran_bwa_does_not_take_a_single_die() -> None:
    state = position({"r1c1": "Y", "r1c2": "R", "r6c0": "T", "r6c1": "R"}, to_move=1)
    assert ids(state, GranBwa) == []


# --- BV-6 Loa powers: Papa Legba and Erzulie Freda -----------------------------------------------


def test_bv6_papa_legba_moves_an_accessible_die_to_an_empty_space_of_its_row_or_column() -> None:
    """BV-6 "Papa Legba. Move one accessible die to an empty space in the same line"; "A line is
    a whole row or a whole column"."""
    board = {"r2c2": "TYP", "r2c5": "W", "r5c2": "T", **spare("R")}
    state = position(board, players=3, to_move=2)
    from_r2c2 = {a.split(":")[2] for a in ids(state, PapaLegba) if a.startswith("papa_legba:r2c2")}
    row = {"r2c0", "r2c1", "r2c3", "r2c4", "r2c6"}
    column = {"r0c2", "r1c2", "r3c2", "r4c2", "r6c2"}
    assert from_r2c2 == row | column
    play(state, PapaLegba("r2c2", "r2c6"))
    assert cells(state)["r2c2"] == "TY"
    assert cells(state)["r2c6"] == "P"


@pytest.mark.parametrize(
    "bad",
    [PapaLegba("r2c2", "r2c5"), PapaLegba("r2c2", "r3c3"), PapaLegba("r2c2", "r5c2")],
    ids=["occupied", "other-line", "occupied-column"],
)
def test_bv6_papa_legba_only_to_an_empty_space_in_the_same_line(bad: Action) -> None:
    state = position({"r2c2": "TYP", "r2c5": "W", "r5c2": "T", **spare("R")}, players=3, to_move=2)
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(bad)
    assert snapshot(state) == before


def test_bv6_papa_legba_may_use_the_black_centre() -> None:
    state = position({"r3c1": "P", **spare("R")}, players=3, to_move=2)
    play(state, PapaLegba("r3c1", "r3c3"))
    assert cells(state)["r3c3"] == "P"


def test_bv6_erzulie_freda_swaps_two_single_dice() -> None:
    """BV-6 "Erzulie Freda. Swap the positions of two single dice"; BV-4 "A die is single when
    it stands alone on its space"; rulebook "Switch two isolated dice on the Board"."""
    board = {"r1c1": "T", "r1c5": "Rs", "r4c4": "YW", "r3c0": "T", **spare("P")}
    state = position(board, players=4, to_move=3)
    offered = set(ids(state, ErzulieFreda))
    assert "erzulie_freda:r1c1:r1c5" in offered
    assert not [a for a in offered if "r4c4" in a]  # a die in a column is not single
    assert "erzulie_freda:r1c1:r3c0" not in offered  # two dice alike: nothing would change
    play(state, ErzulieFreda("r1c1", "r1c5"))
    assert cells(state)["r1c1"] == "Rs"
    assert cells(state)["r1c5"] == "T"
    assert cells(state)["r4c4"] == "YW"


def test_bv6_erzulie_freda_cannot_swap_a_die_of_a_column() -> None:
    board = {"r1c1": "T", "r4c4": "YW", **spare("P")}
    state = position(board, players=4, to_move=3)
    with pytest.raises(IllegalActionError):
        state.apply(ErzulieFreda("r1c1", "r4c4"))


# --- BV-7 Power costs ----------------------------------------------------------------------------

COSTS = {"r2c2": "TR", "r4c0": "W", **SPARE}  # something for each of the four powers


def test_bv7_the_players_own_loa_power_is_free() -> None:
    """Rulebook "you can use your Loa's power"; BV-7 "Using another Loa's power costs 1
    Offering": one's own costs nothing."""
    state = position(COSTS)
    play(state, MamyWata("r2", "e"))
    assert state.offerings == [3, 3] and state.reserve == 14


@pytest.mark.parametrize(
    "action",
    [GranBwa("r2c2", "r4c0"), PapaLegba("r4c0", "r4c6"), ErzulieFreda("r4c0", "r6c1")],
    ids=["gran_bwa", "papa_legba", "erzulie_freda"],
)
def test_bv7_another_loas_power_costs_1_offering_to_the_reserve(action: Action) -> None:
    """Rulebook "spend 1 (place it in the reserve) to use another Loa's power"."""
    state = position(COSTS)
    play(state, action)
    assert state.offerings == [2, 3]
    assert state.reserve == 15


def test_bv7_another_loas_power_is_not_offered_without_an_offering() -> None:
    state = position(COSTS, offerings=[0, 3])
    assert powers(state) == {"MamyWata"}
    with pytest.raises(IllegalActionError):
        state.apply(PapaLegba("r4c0", "r4c6"))
    assert powers(position(COSTS, offerings=[1, 3])) == {n.__name__ for n in POWERS}


def test_bv7_gran_bwa_is_paid_once_for_all_its_moves() -> None:
    state = position({"r1c1": "YRP", "r1c5": "W", **SPARE})
    play(state, GranBwa("r1c1", "r1c5"), GranBwa("r1c1", "r6c1"))
    assert state.offerings == [2, 3] and state.reserve == 15


def test_bv7_bv10_baron_samedi_makes_every_power_free() -> None:
    """BV-7 "Holding Baron Samedi makes every power free"; rulebook "you can use Any Loa's power
    without paying the cost"."""
    state = position(COSTS, offerings=[0, 3], samedi=0)
    assert powers(state) == {n.__name__ for n in POWERS}
    play(state, PapaLegba("r4c0", "r4c6"))
    assert state.offerings == [0, 3] and state.reserve == 17
    # The other player, without the token, still pays.
    state = position(COSTS, offerings=[3, 3], samedi=1)
    play(state, PapaLegba("r4c0", "r4c6"))
    assert state.offerings == [2, 3]


# --- BV-7 Turn order -----------------------------------------------------------------------------


def test_bv7_a_power_at_the_start_then_the_capture_and_no_power_at_the_end() -> None:
    """BV-7 "1. optional power; 2. compulsory capture; ... 4. optional power at the end, only if
    none was used at the start"."""
    state = position({**COSTS, "r2c6": "P"})
    play(state, MamyWata("r2", "w"))
    assert state.phase is Phase.CAPTURE
    assert ids(state) == ["jump:r6c0:r6c2"]  # no second power, no end of turn
    play(state, Jump("r6c0", "r6c2"))
    assert powers(state) == set()
    assert EndTurn() in state.legal_actions()
    play(state, EndTurn())
    assert state.current_player() == 1


def test_bv7_a_power_at_the_end_when_none_at_the_start_ends_the_turn() -> None:
    """BV-7 "4. optional power at the end"; rulebook "At the end of your turn, if you did not act
    during step A, you can apply your Loa's power or spend 1 to apply another Loa's effect"."""
    state = position({**COSTS, "r0c6": "T", "r0c5": "Y"})
    play(state, Jump("r6c0", "r6c2"))
    assert powers(state) == {n.__name__ for n in POWERS}
    play(state, PapaLegba("r4c0", "r4c6"))
    assert cells(state)["r4c6"] == "W"
    assert state.offerings == [2, 3]
    assert state.current_player() == 1
    assert state.phase is Phase.START


def test_bv7_gran_bwa_at_the_end_finishes_then_ends_the_turn() -> None:
    state = position({"r1c1": "YRP", "r1c5": "W", "r0c6": "T", "r0c5": "Y", **SPARE})
    play(state, Jump("r6c0", "r6c2"), GranBwa("r1c1", "r1c5"))
    assert state.phase is Phase.GRAN_BWA and state.current_player() == 0
    play(state, GranBwa("r1c1", "r6c2"))
    assert state.current_player() == 1
    assert cells(state)["r6c2"] == "YR"
    assert cells(state)["r1c5"] == "WP"


def test_bv7_the_steps_go_only_in_order_1_to_5() -> None:
    """Rulebook "you can do all or any of these 5 optional actions (in this order)"."""
    state = after_capture("Yo", zones=["To Ro", ""])
    kinds = {type(a) for a in state.legal_actions()}
    assert {TakeOffering, ChangeFace, EffectOffering, ExtraTurn, PlaceCombo} <= kinds
    play(state, EffectOffering())  # step 3: steps 1 to 3 are over
    kinds = {type(a) for a in state.legal_actions()}
    assert not kinds & {TakeOffering, ChangeFace, EffectOffering}
    assert {ExtraTurn, PlaceCombo, EndTurn} <= kinds
    play(state, PlaceCombo("red:offering+turquoise:offering+yellow:offering"))  # step 5
    kinds = {type(a) for a in state.legal_actions()}
    assert ExtraTurn not in kinds
    with pytest.raises(IllegalActionError):
        state.apply(ExtraTurn())


def test_bv7_step_4_closes_steps_1_to_3() -> None:
    state = after_capture("Yo")
    play(state, ExtraTurn())
    kinds = {type(a) for a in state.legal_actions()}
    assert not kinds & {TakeOffering, ChangeFace, EffectOffering, ExtraTurn}


def test_bv7_step_1_an_offering_for_capturing_a_die_of_ones_own_colour() -> None:
    """Rulebook step 1 "Take 1 from the reserve if the captured Die is the same colour of your
    Loa", once."""
    state = after_capture("Yv")
    play(state, TakeOffering())
    assert state.offerings == [4, 3] and state.reserve == 13
    assert TakeOffering() not in state.legal_actions()
    assert TakeOffering() not in after_capture("Tv").legal_actions()
    assert TakeOffering() not in after_capture("Wv").legal_actions()


def test_bv7_step_2_pays_1_to_change_the_captured_face_whose_effect_then_applies() -> None:
    """Rulebook step 2 "Spend 1 to change the captured Die's face", then step 3 "Apply the
    Die's face up effect"."""
    state = after_capture("Tv", zones=["Rs", ""])
    assert set(ids(state, ChangeFace)) == {f"change_face:{f}" for f in FACES if f != "point"}
    play(state, ChangeFace("offering"))
    assert state.offerings == [2, 3] and state.reserve == 15
    assert sorted(state.zones[0]) == sorted(dice("Rs To"))
    assert ChangeFace("steal") not in state.legal_actions()  # once
    effects = {type(a) for a in state.legal_actions()} & {EffectOffering, EffectPoint}
    assert effects == {EffectOffering}
    play(state, EffectOffering())
    assert state.offerings == [3, 3] and state.reserve == 14


def test_bv7_step_2_needs_an_offering() -> None:
    assert ids(after_capture("Tv", offerings=[0, 3]), ChangeFace) == []


def test_bv7_an_extra_turn_costs_2_offerings_once_per_turn_and_is_a_full_turn() -> None:
    """Rulebook step 4 "Spend 2 to play another turn (only possible once per turn)"; BV-7 "the
    extra turn is a full turn"."""
    board = {"r0c0": "Y", "r0c1": "R", "r2c0": "W", "r5c0": "T", "r5c1": "R"}
    state = after_capture("Tv", board=board, offerings=[4, 3])
    play(state, ExtraTurn())
    assert state.offerings == [2, 3] and state.reserve == 15
    assert ExtraTurn() not in state.legal_actions()
    turn = state.turn
    play(state, EndTurn())
    # The same player again, from the start of a turn: a power or the capture.
    assert state.current_player() == 0
    assert state.phase is Phase.START
    assert state.turn == turn + 1
    assert powers(state) == {"MamyWata", "PapaLegba", "ErzulieFreda"}  # no column for Gran Bwa
    play(state, Jump("r0c0", "r0c2"))
    # Its own steps, step 4 included: a full turn.
    assert {EffectPoint, ExtraTurn} <= {type(a) for a in state.legal_actions()}
    play(state, EndTurn())
    assert state.current_player() == 1


def test_bv7_an_extra_turn_needs_2_offerings() -> None:
    assert ExtraTurn() not in after_capture("Tv", offerings=[1, 3]).legal_actions()
    assert ExtraTurn() in after_capture("Tv", offerings=[2, 3]).legal_actions()


def test_bv7_taking_from_an_empty_reserve_is_not_offered() -> None:
    """BV-7 "Offerings in the reserve are finite: there are 20 in all": with none left, step 1
    and the Offering effect are not offered."""
    state = after_capture("Yo", offerings=[10, 10])
    assert state.reserve == 0
    kinds = {type(a) for a in state.legal_actions()}
    assert not kinds & {TakeOffering, EffectOffering}
    state = after_capture("Yo", offerings=[10, 9])
    play(state, TakeOffering())
    assert state.reserve == 0
    assert EffectOffering() not in state.legal_actions()


def test_rulebook_play_passes_clockwise_one_player_after_another() -> None:
    """Rulebook "Play one player after another, clockwise": seats in order, round after round."""
    state = rolled({"players": 3})
    movers = []
    for _ in range(6):
        movers.append(state.current_player())
        play(state, legal(state, Jump)[0], EndTurn())
    assert movers == [0, 1, 2, 0, 1, 2]
    assert state.round == 3


# --- BV-8 Die effects ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "effect"),
    [
        ("o", EffectOffering),
        ("v", EffectPoint),
        ("c", EffectChange),
        ("p", EffectProtection),
        ("s", Steal),
        ("w", Switch),
    ],
)
def test_bv8_only_the_captured_faces_effect_is_offered(face: str, effect: type[Action]) -> None:
    """Rulebook step 3 "Apply the Die's face up effect"."""
    state = after_capture(f"T{face}", players=3, zones=["Rv", "Pv", "Yc"], spirits=["", "Y", "W"])
    effects = {type(a) for a in state.legal_actions()}
    effects &= {EffectOffering, EffectPoint, EffectChange, EffectProtection, Steal, Switch}
    assert effects == {effect}


def test_bv8_an_effect_not_applied_is_lost() -> None:
    """BV-8 "may be applied in step 3 of the turn, or is lost"; rulebook "Dice effects are
    optional"."""
    board = {"r0c0": "Y", "r0c1": "R", "r5c0": "T", "r5c1": "R"}
    state = after_capture("To", board=board)
    play(state, EndTurn(), Jump("r5c0", "r5c2"), EndTurn(), Jump("r0c0", "r0c2"))
    assert state.captured == ("red", "point")
    assert EffectOffering() not in state.legal_actions()
    assert state.offerings == [3, 3]


def test_bv8_offering_takes_one_from_the_reserve() -> None:
    """Rulebook "Take 1 in the reserve"."""
    state = after_capture("To")
    play(state, EffectOffering())
    assert state.offerings == [4, 3] and state.reserve == 13


def test_bv8_victory_point_earns_1_point() -> None:
    """Rulebook "Earn 1 Victory Point"."""
    state = after_capture("Tv", scores=[5, 0])
    play(state, EffectPoint())
    assert state.scores == [6, 0]


def test_bv8_change_face_sets_any_die_of_ones_zone_to_any_face_without_its_effect() -> None:
    """BV-8 "Change face sets any die in the player's capture zone to any face. The new face's
    effect is not applied"; rulebook "(including this one)"."""
    state = after_capture("Tc", zones=["Rs Pw", "Yv"])
    offered = set(ids(state, EffectChange))
    assert len(offered) == 3 * 5
    assert "effect_change:turquoise:change:steal" in offered  # this die itself
    assert not [a for a in offered if "yellow" in a]  # not another player's zone
    play(state, EffectChange("red:steal", "point"))
    assert sorted(state.zones[0]) == sorted(dice("Rv Pw Tc"))
    kinds = {type(a) for a in state.legal_actions()}
    assert not kinds & {EffectPoint, Steal, EffectChange, ChangeFace, TakeOffering}
    assert state.scores == [0, 0]


def test_bv8_change_face_on_the_captured_die_itself() -> None:
    state = after_capture("Tc")
    play(state, EffectChange("turquoise:change", "point"))
    assert state.zones[0] == dice("Tv")
    assert EffectPoint() not in state.legal_actions()


def test_bv8_protection_shields_the_owners_dice_until_the_start_of_their_next_turn() -> None:
    """BV-8 "Protection stays active until the start of the owner's next turn"; rulebook "Your
    dice on the central game board cannot be captured, and your captured dice cannot be stolen
    by any opponent, until your next turn"."""
    board = {"r0c0": "T", "r0c1": "Y", "r6c0": "T", "r6c1": "R", "r5c5": "Y", "r5c4": "R"}
    board |= {"r2c0": "R", "r2c1": "T"}  # for Papa Legba's turn
    state = after_capture("Tp", board=board, players=3, spirits=["Yv", "", ""])
    play(state, EffectProtection())
    assert state.protected == [True, False, False]
    play(state, EndTurn())
    # Turquoise may not jump the protected yellow die, only the red one.
    assert ids(state, Jump) == ["jump:r6c0:r6c2"]
    play(state, Jump("r6c0", "r6c2"), EndTurn())
    # Still protected during the third player's turn.
    assert state.current_player() == 2 and state.protected[0]
    play(state, legal(state, Jump)[0], EndTurn())
    assert state.current_player() == 0
    assert state.protected == [False, False, False]
    assert GAME.describe(state)["protection"]["mamy_wata"] is False


def test_bv8_protection_ends_at_the_start_of_an_extra_turn() -> None:
    """BV-7 "the extra turn is a full turn", so it is the owner's next turn (BV-8)."""
    board = {"r0c0": "Y", "r0c1": "R"}
    state = after_capture("Tp", board=board)
    play(state, EffectProtection(), ExtraTurn(), EndTurn())
    assert state.current_player() == 0
    assert state.protected == [False, False]


def test_bv8_steal_takes_a_die_of_an_unprotected_opponents_spirit_world() -> None:
    """BV-8 "Steal takes one die from an unprotected opponent's spirit world into the thief's
    capture zone. The stolen die's effect is not applied"; rulebook "You cannot steal a die from
    a player with an active Protection"."""
    state = after_capture("Ts", players=3, spirits=["Yc", "Rv Wo", "Pv"], protected=[2])
    assert set(ids(state, Steal)) == {"steal:1:red:point", "steal:1:white:offering"}
    play(state, Steal(1, "white:offering"))
    assert state.spirits == [dice("Yc"), dice("Rv"), dice("Pv")]
    assert sorted(state.zones[0]) == sorted(dice("Ts Wo"))
    kinds = {type(a) for a in state.legal_actions()}
    assert not kinds & {EffectOffering, Steal, EffectChange}


def test_bv8_steal_is_not_offered_with_nothing_to_steal() -> None:
    """Only an opponent's spirit world: not one's own, not a capture zone."""
    state = after_capture("Ts", spirits=["Yc", ""], zones=["", "Rv"])
    assert ids(state, Steal) == []


def test_bv8_switch_exchanges_dice_between_two_opponents_capture_zones() -> None:
    """BV-8 "Switch exchanges one die between two capture zones"; rulebook "Switch a die from an
    opponent with one from another opponent"."""
    state = after_capture("Tw", players=3, zones=["Yv", "Rv", "Po"])
    play(state, Switch(1, "red:point", 2, "purple:offering"))
    assert state.zones[1] == dice("Po") and state.zones[2] == dice("Rv")
    assert sorted(state.zones[0]) == sorted(dice("Yv Tw"))
    assert Switch(1, "purple:offering", 2, "red:point") not in state.legal_actions()  # once


def test_bv8_switch_may_involve_ones_own_capture_zone() -> None:
    """BV-8 "Either zone may be the player's own"; rulebook "You can choose any player
    (including yourself)"."""
    state = after_capture("Tw", players=3, zones=["Yv", "Yv Pc", ""])
    offered = set(ids(state, Switch))
    assert offered == {
        "switch:0:turquoise:switch:1:purple:change",
        "switch:0:turquoise:switch:1:yellow:point",
        "switch:0:yellow:point:1:purple:change",
    }  # two dice alike would change nothing; an empty zone has nothing to give
    play(state, Switch(0, "turquoise:switch", 1, "purple:change"))
    assert sorted(state.zones[0]) == sorted(dice("Yv Pc"))
    assert sorted(state.zones[1]) == sorted(dice("Yv Tw"))


def test_bv8_switch_leaves_a_protected_opponents_captured_dice_alone() -> None:
    """Rulebook Protection "your captured dice cannot be stolen by any opponent"."""
    state = after_capture("Tw", players=3, zones=["", "Rv", "Po"], protected=[2])
    assert set(ids(state, Switch)) == {"switch:0:turquoise:switch:1:red:point"}


# --- BV-9 Combos ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("group", "kind"),
    [
        ("Yv Tv Rv", "face"),
        ("Ys Ts Rs Ps", "face"),
        ("Yv Tv Rv Pv Wv", "face"),
        ("Yv Wv Wv", "face"),
        ("Yo Yv Yc", "colour"),
        ("Yo Yv Yc Yp Ys Yw", "colour"),
        ("Yo Wv Yc", "colour"),
        ("Wo Wv Wc", "colour"),
        ("Ro Rv Wc Ws", "colour"),
        ("Yv Tv", None),
        ("Yo Yv", None),
        ("Yv Yv Tv", None),
        ("Yo Yo Yv", None),
        ("Yo Tv Rc", None),
        ("Yo Tv Yc", None),
        ("Yo Wo Tv", None),
        ("Yv Tv Rv Pv Wv Wv", None),
    ],
)
def test_bv9_the_two_kinds_of_combo_with_white_as_joker(group: str, kind: str | None) -> None:
    """BV-9 "a group of 3 or more of one of two kinds: same face, all colours different; same
    colour, all faces different. White stands in for any colour"; rulebook "Grouping dice of
    different colour but same icon", "Grouping dice of same colour but different icon"."""
    assert combo_kind(dice(group)) == kind


def test_bv9_placing_a_combo_moves_it_to_the_spirit_world_and_scores() -> None:
    """Rulebook step 5 "Earn Victory Points by placing dice in the Spirit World"; BV-9 "3 dice
    3"."""
    state = after_capture("Rv", zones=["Yv Tv", "Po"])
    assert ids(state, PlaceCombo) == ["place_combo:red:point+turquoise:point+yellow:point"]
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores == [3, 0]
    assert state.zones[0] == []
    assert sorted(state.spirits[0]) == sorted(dice("Yv Tv Rv"))
    assert state.zones[1] == dice("Po") and state.spirits[1] == []


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_bv9_points_by_size(size: int) -> None:
    """BV-9 "Points: 3 dice 3, 4 dice 5, 5 dice 8, 6 dice 12"; rulebook "3 Dice = 3 4 Dice =
    5"."""
    group = dice("Yo Yv Yc Yp Ys Yw")[:size]
    state = after_capture("Tv", zones=["Yo Yv Yc Yp Ys Yw", ""])
    play(state, PlaceCombo(combo_text(group)))
    assert state.scores[0] == {3: 3, 4: 5, 5: 8, 6: 12}[size]
    assert len(state.spirits[0]) == size


def test_bv9_a_face_combo_of_all_five_colours_scores_8() -> None:
    """BV-9 "5 dice 8": a face shown in yellow, turquoise, red, purple and white."""
    state = after_capture("Rs", zones=["Ys Ts Ps Ws", ""])
    play(state, PlaceCombo("purple:steal+red:steal+turquoise:steal+white:steal+yellow:steal"))
    assert state.scores == [8, 0]


def test_bv9_white_stands_in_for_a_colour_in_both_kinds() -> None:
    """BV-9 "White stands in for any colour"; rulebook "White dice can be used as a colour
    joker, replacing any colour you need"."""
    state = after_capture("Tv", zones=["Yv Wv Ro Rc Wp", ""])
    offered = set(ids(state, PlaceCombo))
    assert "place_combo:turquoise:point+white:point+yellow:point" in offered
    assert "place_combo:red:change+red:offering+white:protection" in offered
    assert "place_combo:red:change+red:offering+white:point+white:protection" in offered


@pytest.mark.parametrize(
    "group",
    [
        "red:point+turquoise:point+yellow:offering",
        "turquoise:point+yellow:point",
        "turquoise:point+yellow:point+yellow:point",
        "purple:point+turquoise:point+yellow:point",
        "yellow:point+turquoise:point+red:point",
    ],
    ids=["mixed", "two", "repeated-colour", "not-in-zone", "unsorted"],
)
def test_bv9_a_group_that_is_no_combo_is_refused(group: str) -> None:
    """BV-9 "score when they form a group of 3 or more of one of two kinds": only combos of the
    capture zone's dice are placed, written in sorted order."""
    state = after_capture("Rv", zones=["Yv Tv Yo Yv", "Pv"])
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(PlaceCombo(group))
    assert snapshot(state) == before


def test_bv9_each_placed_group_scores_once_and_several_may_be_placed() -> None:
    """BV-9 "Each placed group scores once"; rulebook "place the dice you want"."""
    state = after_capture("Rv", zones=["Yv Tv Pv Ro Rc Rs", ""])
    play(state, PlaceCombo("purple:point+turquoise:point+yellow:point"))
    assert not [a for a in ids(state, PlaceCombo) if "yellow" in a]  # those dice are placed
    play(state, PlaceCombo("red:change+red:offering+red:steal"))
    assert state.scores == [6, 0]
    assert state.zones[0] == dice("Rv")
    assert ids(state, PlaceCombo) == []


def test_bv9_points_come_from_the_rules_file(tmp_path: Path) -> None:
    """BV-9 "the rest are configurable": a house table."""
    path = edited_rules(tmp_path, "3 = 3\n", "3 = 7\n")
    state = after_capture("Rv", zones=["Yv Tv", ""], rules=path)
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores == [7, 0]


def test_bv9_a_shorter_points_table_limits_the_combo_size(tmp_path: Path) -> None:
    path = edited_rules(tmp_path, "5 = 8\n6 = 12\n", "")
    state = after_capture("Tv", zones=["Yo Yv Yc Yp Ys", ""], rules=path)
    assert {len(a.split("+")) for a in ids(state, PlaceCombo)} == {3, 4}


# --- BV-10 Baron Samedi --------------------------------------------------------------------------


def test_bv10_strictly_the_most_white_dice_takes_the_token() -> None:
    """BV-10 "The player with strictly the most white dice in their spirit world holds the
    token"; rulebook "The player with the most White dice in the spirit world gets the Baron
    Samedi token"."""
    state = after_capture("Tv", zones=["Yv Wv", ""])
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi == 0
    assert GAME.describe(state)["baron_samedi"] == "mamy_wata"


def test_bv10_on_a_tie_the_holder_keeps_the_token() -> None:
    """BV-10 "On a tie the current holder keeps it"."""
    state = after_capture("Tv", zones=["Yv Wv", ""], spirits=["", "Wo"], samedi=1)
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi == 1
    state = after_capture("Tv", zones=["Yv Wv", ""], spirits=["Wc", "Wo"], samedi=1)
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi == 0  # now strictly more


def test_bv10_on_a_tie_with_no_holder_nobody_takes_it() -> None:
    """BV-10 "if nobody holds it, nobody takes it"."""
    state = after_capture("Tv", zones=["Yv Wv", ""], spirits=["", "Wo"])
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi is None


def test_bv10_a_tie_for_the_most_between_others_leaves_the_token_with_its_holder() -> None:
    """BV-10 "strictly the most ... On a tie the current holder keeps it": nobody has strictly
    the most."""
    spirits = ["", "Wo", "Wc"]
    state = after_capture("Tv", players=3, zones=["Yv Wv", "", ""], spirits=spirits, samedi=2)
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi == 2


def test_bv10_a_stolen_white_die_can_pass_the_token_on() -> None:
    """BV-10 is checked whenever a spirit world changes, a Steal included; the stolen die is in
    the thief's capture zone, not yet in a spirit world."""
    state = after_capture("Ts", players=3, spirits=["Wv", "Wo", ""], samedi=1)
    play(state, Steal(1, "white:offering"))
    assert state.samedi == 0
    state = after_capture("Ts", players=3, spirits=["", "Wo", "Wv"], samedi=1)
    play(state, Steal(1, "white:offering"))
    assert state.samedi == 2


# --- BV-11 End -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "target"),
    [({"players": 2}, 18), ({"players": 3}, 15), ({"players": 4}, 12), ({"teams": True}, 18)],
    ids=["2", "3", "4", "teams"],
)
def test_bv11_the_target_score_by_player_count(options: dict[str, Any], target: int) -> None:
    """BV-11 "The target is 18 for 2 players, 15 for 3 players, and 12 for 4 players; team mode
    uses 18"; rulebook "depending on the number of players"."""
    state = rolled(options)
    assert state.target() == target
    assert GAME.describe(state)["target"] == target


def test_bv11_reaching_the_target_ends_the_game_after_the_round() -> None:
    """BV-11 "The game ends when a player reaches the target score ... The round is then
    finished, so that every player has had the same number of turns"."""
    board = {"r0c0": "T", "r0c1": "R", "r5c0": "Y", "r5c1": "R", "r2c0": "R", "r2c1": "T"}
    state = after_capture("Rv", board=board, players=3, zones=["Yv Tv", "", ""], scores=[13, 0, 0])
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores[0] == 16 and state.ending
    assert not state.is_terminal()
    play(state, EndTurn())
    assert state.current_player() == 1
    play(state, Jump("r0c0", "r0c2"), EndTurn())
    assert state.current_player() == 2  # the round goes on to its last seat
    play(state, legal(state, Jump)[0], EndTurn())
    assert state.is_terminal()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == []
    assert GAME.result(state)["ended"] == "target"  # type: ignore[index]  # said on the page


def test_bv11_reaching_the_target_by_the_point_effect_finishes_the_turn() -> None:
    """Rulebook "If you reach the score limit with this effect, finish your turn. Then apply
    game end"."""
    board = {"r0c0": "T", "r0c1": "R"}
    state = after_capture("Rv", board=board, zones=["Yv Tv", ""], scores=[17, 0])
    play(state, EffectPoint())
    assert state.scores[0] == 18 and state.ending
    assert state.current_player() == 0  # the turn goes on: step 5 and the end power
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores[0] == 21
    play(state, EndTurn(), Jump("r0c0", "r0c2"), EndTurn())
    assert state.is_terminal()
    assert GAME.result(state)["ended_by"] == "mamy_wata"  # type: ignore[index]


def test_bv11_the_last_seat_reaching_the_target_ends_at_once() -> None:
    state = after_capture("Rv", to_move=1, zones=["", "Yv Tv"], scores=[0, 15])
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"), EndTurn())
    assert state.is_terminal()
    assert state.ender == 1


def test_bv11_the_first_to_reach_the_target_ended_the_game_and_wins_a_tie() -> None:
    """BV-11: the player who ended the game is the first to reach the target; a second player
    reaching it in the same round does not take that over, and a tie goes to the first."""
    board = {"r0c0": "T", "r0c1": "P"}
    zones = ["Yv Tv", "Yo To Ro"]
    state = after_capture("Rv", board=board, zones=zones, spirits=["Pv", ""], scores=[15, 15])
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"), EndTurn())
    assert state.ender == 0
    play(state, Jump("r0c0", "r0c2"), PlaceCombo("red:offering+turquoise:offering+yellow:offering"))
    assert state.scores == [18, 18] and state.ender == 0
    play(state, EndTurn())
    assert state.is_terminal()
    assert state.end_bonus == [4, 4]  # every colour tied
    assert state.winner == 0


def test_bv11_below_the_target_the_game_goes_on() -> None:
    state = after_capture("Rv", zones=["Yv Tv", ""], scores=[14, 0])
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores[0] == 17 and not state.ending


def test_bv11_a_player_who_cannot_capture_even_with_any_power_ends_the_game() -> None:
    """BV-11 "when the player to move can make no capture, even after every power they could use
    or pay for"; rulebook "A player cannot play anymore because he cannot perform any capture
    move"."""
    board = {"r0c0": "Y", "r6c4": "T", "r6c5": "R"}
    state = position(board, offerings=[0, 3], expect_play=False)
    assert state.ending and state.ender == 0
    # The round is finished: the second seat still plays its turn.
    assert state.current_player() == 1
    play(state, Jump("r6c4", "r6c6"), EndTurn())
    assert state.is_terminal()
    assert GAME.result(state)["ended_by"] == "mamy_wata"  # type: ignore[index]
    assert GAME.result(state)["ended"] == "no_capture"  # type: ignore[index]


def test_bv11_a_power_that_opens_a_capture_keeps_the_game_going() -> None:
    """Rulebook "remember he can use his Loa's power or another Loa's power (if he can spend 1
    Offering) to unlock the situation": own power free, another's for an Offering."""
    # Mamy Wata's own power closes row 0: Y then R, and r0c2 free to land on.
    own = position({"r0c0": "Y", "r0c3": "R"}, offerings=[0, 3])
    assert not own.ending and ids(own, Jump) == []
    # Said so: a power must open a capture (the walk: "use a power if you wish").
    assert GAME.describe(own)["phase"] == "unlock"
    play(own, MamyWata("r0", "w"), Jump("r0c0", "r0c2"))
    # Only another Loa's power helps here: Erzulie Freda puts the yellow die by the red one.
    board = {"r0c0": "Y", "r4c4": "W", "r4c5": "R"}
    paid = position(board, offerings=[1, 3])
    assert not paid.ending and ids(paid, Jump) == []
    play(paid, ErzulieFreda("r0c0", "r4c4"), Jump("r4c4", "r4c6"))
    assert paid.offerings == [0, 3]
    broke = position(board, offerings=[0, 3], expect_play=False)
    assert broke.ending and broke.ender == 0


def test_bv11_baron_samedi_counts_for_the_powers_that_could_unlock() -> None:
    board = {"r0c0": "Y", "r4c4": "W", "r4c5": "R"}
    state = position(board, offerings=[0, 3], samedi=0)
    assert not state.ending


def test_bv5_bv11_a_start_power_must_leave_a_capture() -> None:
    """BV-5: the capture is the turn's compulsory action; BV-11: the game ends for a player who
    can make none "even after every power they could use or pay for". So a power at the start
    that would leave no capture is not the player's to choose: nobody ends the game on purpose
    (the walk: the computer, ahead on points, moved a die away from its only capture)."""
    # Mamy Wata's own power: closing row 0 westward opens a capture, eastward none.
    state = position({"r0c0": "Y", "r0c3": "R", "r6c6": "T", "r5c6": "R"}, offerings=[0, 3])
    assert state.is_legal(MamyWata("r0", "w"))
    assert not state.is_legal(MamyWata("r0", "e"))
    assert MamyWata("r0", "e") not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="mamy_wata:r0:w"):
        state.apply(MamyWata("r0", "e"))
    assert not state.ending
    # With a capture open: a paid swap may keep it or open another, never close them all.
    paid = position({"r0c0": "Y", "r0c1": "R", "r3c3": "T"}, offerings=[1, 3])
    assert not paid.is_legal(ErzulieFreda("r0c0", "r3c3"))  # the yellow die sent away
    assert paid.is_legal(ErzulieFreda("r0c1", "r3c3"))  # turquoise to jump instead of red
    legal = paid.legal_actions()
    assert ErzulieFreda("r0c0", "r3c3") not in legal and ErzulieFreda("r0c1", "r3c3") in legal
    play(paid, ErzulieFreda("r0c1", "r3c3"), Jump("r0c0", "r0c2"))
    assert not paid.ending
    # Every power drawn at random leaves a capture, and the game is never ended by one.
    for seed in range(200):
        drawn = position(
            {"r0c0": "Y", "r0c1": "R", "r3c3": "T", "r3c4": "P", "r5c5": "Y"}, offerings=[2, 3]
        )
        action = drawn.sample(random.Random(seed))
        drawn.apply(action)
        assert not drawn.ending and (drawn.phase is not Phase.CAPTURE or drawn.legal_actions())


def test_bv11_bv5_a_player_whose_only_captures_are_protected_cannot_play() -> None:
    """BV-11 with BV-5: a protected die cannot be captured, so it gives no capture move."""
    state = position({"r0c0": "T", "r0c1": "Y"}, to_move=1, protected=[0], expect_play=False)
    assert state.is_terminal()
    assert state.ender == 1
    state = position({"r0c0": "T", "r0c1": "Y"}, to_move=1)
    assert ids(state, Jump) == ["jump:r0c0:r0c2"]


def test_bv11_when_nobody_can_capture_the_game_is_over_at_once() -> None:
    state = ended(players=3, ender=1)
    assert state.ender == 1
    assert state.returns() != [0.0, 0.0, 0.0]


def test_bv11_capture_zones_go_to_the_spirit_world_and_one_combo_scores() -> None:
    """BV-11 "Each player moves their capture zone into their spirit world, and only one combo
    made at this step scores"; rulebook "you can only earn Victory Points from one of them"."""
    zones = ["Yv Tv Rv Po Pc Ps Pp", ""]
    spirits = ["", "Yv Tv Rv Pv Pv Pv Pv"]  # the same colour counts: every majority tied
    state = ended(zones=zones, spirits=spirits, scores=[2, 2])
    assert state.zones == [[], []]
    assert sorted(state.spirits[0]) == sorted(dice(zones[0]))
    # The best combo (4 purples: 5) and not also the 3 of a face (3); +1 for each tied colour.
    assert state.end_bonus == [5 + 4, 4]
    assert state.scores == [11, 6]


@pytest.mark.parametrize(
    ("spirits", "bonus"),
    [
        (["Yv Yv Tv", "Yv Tv Rv"], [3 + 1, 1 + 3]),
        (["Pv Pv Pv", ""], [3, 0]),
        (["Wv Wv Wv Yv", "Yv"], [1, 1]),
        (["", ""], [0, 0]),
    ],
    ids=["strict-and-tie", "one-colour", "white-no-majority", "nobody"],
)
def test_bv11_colour_majorities(spirits: list[str], bonus: list[int]) -> None:
    """BV-11 "Majorities are counted over all dice in the spirit world, for each of the four Loa
    colours. A strict majority of a colour earns +3. A tie gives +1 to each tied player. White
    earns no majority"; rulebook "(If players are tied, they get 1 point each)"."""
    state = ended(spirits=spirits)
    assert state.end_bonus == bonus


def test_bv11_majorities_count_the_dice_just_moved_from_the_capture_zones() -> None:
    state = ended(zones=["", "Pv"], spirits=["", ""])
    assert state.end_bonus == [0, 3]


def test_bv11_a_three_way_majority_tie_and_a_two_way_tie() -> None:
    state = ended(players=3, spirits=["Yv Yv Tv", "Yv Yv", "Yv Tv"])
    # yellow 2-2-1: +1 to the first two; turquoise 1-0-1: +1 to the first and the third.
    assert state.end_bonus == [2, 1, 1]


@pytest.mark.parametrize(
    ("players", "ender", "scores", "winner"),
    [
        (2, 0, [9, 9], 0),
        (2, 1, [9, 9], 1),
        (3, 0, [5, 9, 9], 1),
        (3, 1, [9, 5, 9], 2),
        (3, 2, [9, 9, 5], 0),
        (3, 2, [9, 9, 10], 2),
        (3, 0, [9, 10, 9], 1),
    ],
)
def test_bv11_the_highest_score_wins_and_ties_go_to_the_ender_then_the_next_seats(
    players: int, ender: int, scores: list[int], winner: int
) -> None:
    """BV-11 "The highest score wins. A tie goes to the player who ended the game, or else to
    the nearest player after them in turn order"."""
    state = ended(players=players, ender=ender, scores=scores)
    assert state.ender == ender
    assert state.winner == winner
    assert state.returns() == [1.0 if p == winner else -1.0 for p in range(players)]
    result = GAME.result(state)
    assert result is not None
    assert result["winners"] == [state.player_name(winner)]
    assert result["ended_by"] == state.player_name(ender)
    assert result["scores"] == {state.player_name(p): s for p, s in enumerate(scores)}


def test_bv11_scores_above_20_are_kept_whole() -> None:
    """Rulebook "If your score exceeds 20 pts, get a 20 pts token ... (if your score is 24
    points, your score track should show 4 points)": the score is 24."""
    state = ended(scores=[24, 3])
    assert state.scores == [24, 3]
    assert GAME.result(state)["scores"] == {"mamy_wata": 24, "gran_bwa": 3}  # type: ignore[index]


def test_bv11_nothing_is_played_after_the_end() -> None:
    state = ended()
    assert state.current_player() == TERMINAL
    assert state.legal_actions() == [] and state.chance_outcomes() == []
    before = snapshot(state)
    for action in (EndTurn(), Jump("r0c0", "r0c2"), SetupFace("point")):
        with pytest.raises(IllegalActionError, match="ended"):
            state.apply(action)
    assert snapshot(state) == before


def test_bv11_returns_are_zero_while_the_game_goes_on() -> None:
    state = rolled()
    assert state.returns() == [0.0, 0.0]
    assert GAME.result(state) is None


# --- BV-12 Team mode -----------------------------------------------------------------------------


def test_bv12_two_teams_of_neighbours_share_offerings_and_score() -> None:
    """BV-12 "teammates share Offerings (3 per team), the capture zone, the spirit world and the
    score"; rulebook "Form 2 teams of 2 players ... sit next to each other"."""
    state = rolled({"teams": True})
    assert state.num_players == 4
    assert [state.side_of(p) for p in range(4)] == [0, 0, 1, 1]
    facts = GAME.describe(state)
    assert facts["offerings"] == {"mamy_wata+gran_bwa": 3, "papa_legba+erzulie_freda": 3}
    assert facts["scores"] == {"mamy_wata+gran_bwa": 0, "papa_legba+erzulie_freda": 0}
    assert facts["target"] == 18


def test_bv12_turns_alternate_between_the_teams() -> None:
    """BV-12 "turns alternate between the teams"; rulebook "alternating a player of each team"."""
    state = rolled({"teams": True})
    movers = []
    for _ in range(8):
        movers.append(state.current_player())
        play(state, legal(state, Jump)[0], EndTurn())
    assert movers == [0, 2, 1, 3] * 2


def test_bv12_teammates_share_the_capture_zone_spirit_world_score_and_offerings() -> None:
    state = after_capture("Rv", teams=True, players=4, to_move=1, zones=["Yv Pv", "Tv"])
    # Gran Bwa's capture joins the team's zone, with the dice Mamy Wata captured.
    assert sorted(state.zones[0]) == sorted(dice("Yv Pv Rv"))
    play(state, PlaceCombo("purple:point+red:point+yellow:point"))
    assert state.scores == [3, 0]
    assert GAME.describe(state)["scores"]["mamy_wata+gran_bwa"] == 3
    assert sorted(state.spirits[0]) == sorted(dice("Yv Pv Rv"))
    state = after_capture("Rv", teams=True, players=4, to_move=1, offerings=[2, 3])
    play(state, ExtraTurn())
    assert state.offerings == [0, 3]


def test_bv12_the_shared_score_ends_the_game_at_the_team_target_after_the_round() -> None:
    """BV-12 "the score" is shared; BV-11 "team mode uses 18", and the round is finished."""
    board = {"r6c4": "P", "r6c5": "Y"}
    state = after_capture(
        "Rv", board=board, teams=True, players=4, to_move=1, zones=["Yv Tv", ""], scores=[15, 0]
    )
    play(state, PlaceCombo("red:point+turquoise:point+yellow:point"))
    assert state.scores == [18, 0] and state.ending and state.ender == 1
    play(state, EndTurn())
    assert state.current_player() == 3  # the last seat of the round: 0, 2, 1, 3
    play(state, Jump("r6c4", "r6c6"), EndTurn())
    assert state.is_terminal()


def test_bv12_step_1_is_for_ones_own_colour_not_a_teammates() -> None:
    """Rulebook step 1 "the same colour of your Loa": Gran Bwa capturing Mamy Wata's yellow."""
    state = after_capture("Yv", teams=True, players=4, to_move=1)
    assert TakeOffering() not in state.legal_actions()


def test_bv12_an_offering_taken_goes_to_the_team() -> None:
    state = after_capture("Tv", teams=True, players=4, to_move=1)
    play(state, TakeOffering())
    assert state.offerings == [4, 3] and state.reserve == 13


def test_bv12_protection_is_personal_on_the_board_and_guards_the_team_spirit_world() -> None:
    """BV-12 "Protection is personal"; rulebook "It protects the spirit world, but only your dice
    on the game board (your team mate's dice on the central game board are not protected)"."""
    board = {"r3c3": "R", "r3c2": "Ts", "r2c3": "Ys"}
    landing = {"r3c2": "r3c1", "r2c3": "r1c3"}  # where the red die lands over each
    for guard, own_die, mates_die in ((0, "r2c3", "r3c2"), (1, "r3c2", "r2c3")):
        spirits = ["Pv", ""]
        state = position(
            board, teams=True, players=4, to_move=2, protected=[guard], spirits=spirits
        )
        jumps = {a.split(":")[2] for a in ids(state, Jump)}
        assert landing[own_die] not in jumps  # the guard's own die is protected
        assert landing[mates_die] in jumps  # the teammate's is not
        play(state, Jump("r3c3", landing[mates_die]))
        assert state.captured is not None and state.captured[1] == "steal"
        assert ids(state, Steal) == []  # the team's spirit world is guarded all the same
    state = position(board, teams=True, players=4, to_move=2, spirits=["Pv", ""])
    play(state, Jump("r3c3", "r3c1"))
    assert ids(state, Steal) == ["steal:0:purple:point"]


def test_bv12_there_is_no_baron_samedi_in_team_mode() -> None:
    """BV-12 "there is no Baron Samedi"."""
    state = after_capture("Tv", teams=True, players=4, zones=["Yv Wv", ""], offerings=[0, 3])
    play(state, PlaceCombo("turquoise:point+white:point+yellow:point"))
    assert state.samedi is None
    assert GAME.describe(state)["baron_samedi"] is None
    assert powers(state) == {"MamyWata"}  # without the token, other powers still cost


@pytest.mark.parametrize(
    ("spirits", "bonus"),
    [(["Wv Wv", "Wv"], [3, 0]), (["Wv", "Wv Wv Wo"], [0, 3]), (["Wv Yv", "Wv"], [1 + 3, 1])],
    ids=["team-0", "team-1", "tie"],
)
def test_bv12_the_team_with_most_white_dice_earns_3(spirits: list[str], bonus: list[int]) -> None:
    """BV-11 "White earns no majority, except +3 to the team with most white dice in team mode";
    rulebook "you win 3 Victory Points if you have the most white dice when the game ends" (a
    tie is shared as every majority: +1 each)."""
    state = ended(teams=True, spirits=spirits)
    assert state.end_bonus == bonus


def test_bv12_a_team_wins_together_and_a_tie_goes_to_the_enders_team() -> None:
    state = ended(teams=True, ender=2, scores=[10, 10])
    assert state.winner == 1
    assert state.returns() == [-1.0, -1.0, 1.0, 1.0]
    result = GAME.result(state)
    assert result is not None
    assert result["winners"] == ["papa_legba", "erzulie_freda"]
    assert result["ended_by"] == "papa_legba"


def test_bv12_a_teammates_loa_power_is_still_another_loas_power() -> None:
    """BV-7 "Using another Loa's power costs 1 Offering" also between teammates."""
    state = position(COSTS, teams=True, players=4)
    play(state, GranBwa("r2c2", "r4c0"))
    assert state.offerings == [2, 3]


# --- Setting up a position through the API ------------------------------------------------------


def test_from_position_builds_a_puzzle_at_the_start_of_a_turn() -> None:
    """A puzzle described in `describe`'s names: the turn starts through the rules (BV-7)."""
    state = VoodooState.from_position(
        {
            "to_move": "gran_bwa",
            "columns": {"r0c0": ["turquoise:steal"], "r0c1": ["yellow:switch", "red:point"]},
            "offerings": {"mamy_wata": 1},
            "capture_zones": {"gran_bwa": ["white:offering"]},
            "spirit_worlds": {"mamy_wata": ["white:point"]},
            "scores": {"gran_bwa": 7},
            "protection": {"mamy_wata": True, "gran_bwa": True},
            "baron_samedi": "mamy_wata",
            "round": 4,
            "turn": 8,
        }
    )
    details = GAME.describe(state)
    assert state.current_player() == 1 and state.phase is Phase.START
    assert details["turn"] == 8 and details["round"] == 4
    assert details["columns"] == {
        "r0c0": ["turquoise:steal"],
        "r0c1": ["yellow:switch", "red:point"],
    }
    assert details["offerings"] == {"mamy_wata": 1, "gran_bwa": 3}
    assert details["reserve"] == 16  # BV-7: the 20 less what the sides hold
    assert details["scores"] == {"mamy_wata": 0, "gran_bwa": 7}
    # BV-8: the mover's own Protection ends as their turn starts; the other's stays.
    assert details["protection"] == {"mamy_wata": True, "gran_bwa": False}
    assert details["baron_samedi"] == "mamy_wata"
    assert ids(state, Jump) == ["jump:r0c0:r0c2"]
    assert state.history() == []


def test_from_position_docstring_example_runs() -> None:
    test = docstring_test("controller.rules.voodoo", "VoodooState.from_position")
    result = doctest.DocTestRunner().run(test)
    assert result.attempted > 0 and result.failed == 0


def test_from_position_a_mover_who_cannot_capture_ends_the_game() -> None:
    """BV-11: the turn starts through the rules, so a mover with no capture, even after a power,
    triggers the end."""
    state = VoodooState.from_position({"columns": {"r0c0": ["yellow:point"]}})
    assert state.is_terminal() and state.ender == 0


def test_from_position_with_the_end_triggered_finishes_the_round() -> None:
    """BV-11: a side at the target triggered the end; the round is finished from there."""
    board = {"r0c0": "T", "r0c1": "R", "r6c0": "Y", "r6c1": "R"}
    state = position(board, to_move=1, scores=[18, 0], ended_by=0)
    assert state.ending and GAME.describe(state)["ended_by"] == "mamy_wata"
    play(state, Jump("r0c0", "r0c2"), EndTurn())
    assert state.is_terminal()


def test_from_position_rebuilds_random_positions_from_their_description() -> None:
    """A state at the start of a turn is rebuilt whole from `describe`'s settable fields."""
    rng = random.Random("voodoo positions")
    checked = 0
    for options in (
        {"players": 3},
        {"teams": True},
        {"players": 4, "loas": "red,purple,yellow,turquoise"},
    ):
        state = new_state(options)
        while not state.is_terminal():
            if state.phase is Phase.START and rng.random() < 0.2:
                details = GAME.describe(state)
                described = {k: details[k] for k in POSITION_KEYS}
                rebuilt = VoodooState.from_position(json.loads(json.dumps(described)), options)
                again = GAME.describe(rebuilt)
                for derived in ("last_capture", "extra_turn"):  # the turn before's, not kept
                    del details[derived], again[derived]
                assert again == details
                assert ids(rebuilt) == ids(state)
                checked += 1
            if state.is_chance_node():
                state.apply(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply(rng.choice(state.legal_actions()))
    assert checked > 10


@pytest.mark.parametrize(
    ("position", "options", "message"),
    [
        ({"colour": "red"}, {}, "unknown position keys ['colour']"),
        ({"columns": {"r7c0": ["red:point"]}}, {}, "columns: unknown ['r7c0']"),
        ({"columns": {"r0c0": "red:point"}}, {}, "r0c0 must be a list of dice"),
        ({"columns": {"r0c0": ["red:point"] * 4}}, {}, "at most 3 (BV-4)"),
        ({"columns": {"r0c0": ["pink:point"]}}, {}, "'pink:point' is no die"),
        ({"columns": {"r0c0": ["red:skull"]}}, {}, "'red:skull' is no die"),
        ({"capture_zones": {"mamy_wata": ["white:point"] * 9}}, {}, "9 white dice"),
        ({"offerings": {"mamy_wata": 12, "gran_bwa": 9}}, {}, "there are 20 in all (BV-7)"),
        ({"reserve": 20}, {}, "there are 20 in all (BV-7)"),
        ({"offerings": {"mamy_wata": -1}}, {}, "a whole number >= 0"),
        ({"scores": {"papa_legba": 3}}, {}, "scores: unknown ['papa_legba']"),
        ({"scores": {"mamy_wata": 18}}, {}, "say who triggered it in 'ended_by' (BV-11)"),
        ({"scores": {"mamy_wata+gran_bwa": 18}}, {"teams": True}, "(BV-11)"),
        ({"to_move": "baron"}, {}, "'baron' is not a seated Loa"),
        ({"to_move": "papa_legba"}, {}, "'papa_legba' is not a seated Loa"),
        ({"protection": {"gran_bwa": 1}}, {}, "must be true or false"),
        (
            {"baron_samedi": "mamy_wata", "spirit_worlds": {"gran_bwa": ["white:point"]}},
            {},
            "the token passes to strictly the most (BV-10)",
        ),
        ({"baron_samedi": "mamy_wata"}, {"teams": True}, "no Baron Samedi in team mode (BV-12)"),
        ({"round": 0}, {}, "round must be a whole number >= 1"),
        (["columns"], {}, "a position is a mapping"),
    ],
)
def test_from_position_refuses_a_position_no_game_can_be_in(
    position: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(PositionError) as raised:
        VoodooState.from_position(position, options)
    assert message in str(raised.value)


# --- Illegal actions, replay and options ---------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        EndTurn(),
        Jump("r3c3", "r3c1"),
        Place("r0c0", "purple:point"),
        SetupFace("point"),
        PoolFace("point"),
        TakeOffering(),
        PlaceCombo("red:point+turquoise:point+yellow:point"),
        GranBwa("r1c1", "r2c1"),
        Steal(1, "white:point"),
    ],
    ids=lambda a: a.id,
)
def test_an_illegal_action_at_the_start_raises_and_changes_nothing(bad: Action) -> None:
    """API: "an illegal one raises and changes nothing"."""
    state = position({"r3c3": "Y", "r3c4": "R", "r1c1": "TR"}, spirits=["", "W"])
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="not a legal action for mamy_wata"):
        state.apply(bad)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "bad",
    [
        Steal(0, "white:point"),
        Steal(1, "white:offering"),
        Switch(0, "turquoise:steal", 0, "red:point"),
        EffectPoint(),
    ],
    ids=["own", "missing", "same-zone", "face"],
)
def test_an_illegal_effect_raises_and_changes_nothing(bad: Action) -> None:
    state = after_capture("Ts", zones=["", "Rv"], spirits=["", "Wv"])
    assert Steal(1, "white:point") in state.legal_actions()
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.apply(bad)
    assert snapshot(state) == before


@pytest.mark.parametrize(
    "data",
    [
        {"type": "Steal", "side": True, "die": "white:point"},
        {"type": "Steal", "side": 1.0, "die": "white:point"},
        {"type": "Switch", "side_a": 0, "die_a": "turquoise:steal", "side_b": True,
         "die_b": "red:point"},
    ],
    ids=["steal-bool", "steal-float", "switch-bool"],
)  # fmt: skip
def test_a_wrongly_typed_effect_is_refused_as_it_comes_in(data: dict[str, object]) -> None:
    """A side given as True or 1.0 compares equal to 1 but is no side: the history would not
    replay (exact field types, as in the API). Refused from JSON, before an action is made:
    compiled (setup.py), Steal(True, ...) is Steal(1, ...) already."""
    with pytest.raises(HistoryError, match="must be int"):
        GAME.action_from_json(data)


def test_a_decision_at_a_chance_node_is_refused() -> None:
    state = new_state()
    with pytest.raises(IllegalActionError, match="chance outcome"):
        state.apply(Jump("r3c1", "r3c3"))
    state = new_state({"setup": "place"})
    with pytest.raises(IllegalActionError):
        state.apply(SetupFace("point"))  # this set-up rolls a pool
    assert snapshot(state) == snapshot(new_state({"setup": "place"}))


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"players": 3, "setup": "place"},
        {"players": 4},
        {"teams": True},
        {"players": 2, "loas": "red,purple"},
    ],
    ids=["2", "3-place", "4", "teams", "loas"],
)
def test_replay_of_a_history_gives_the_same_state(options: dict[str, Any]) -> None:
    """API: "their history of immutable actions is the save format"."""
    for seed in range(2):
        state = random_game(options, seed)
        assert state.is_terminal()
        history = json.loads(json.dumps(state.history()))
        replayed = GAME.replay(history, options)
        assert isinstance(replayed, VoodooState)
        assert snapshot(replayed) == snapshot(state)
        assert GAME.result(replayed) == GAME.result(state)
        # A game cut short replays to the same position too.
        cut = len(history) * 2 // 3
        partial = GAME.replay(history[:cut], options)
        assert isinstance(partial, VoodooState)
        again = random_game(options, seed, limit=cut)
        assert snapshot(partial) == snapshot(again)


def test_a_clone_is_independent() -> None:
    state = position({"r3c3": "Y", "r3c4": "R"})
    copy = state.clone()
    play(copy, JUMP)
    assert cells(state) == {"r3c3": "Y", "r3c4": "R"}
    assert state.zones == [[], []]
