"""Capture the Akuma (`capture-the-akuma.txt`, clarifications AK-1 to AK-10).

Players: 0 is Team Hawk Moth, 1 is Team Ladybug (AK-2). A side's turn is: choose one die or two
(AK-3), roll, then act on the roll (AK-4, AK-5, AK-6).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    PRESENT,
    REED,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    IllegalActionError,
    Layout,
    construct,
)
from controller.rules.game_type import (
    CARDS,
    CardDeck,
    CardFace,
    Detail,
    GameType,
    IconDice,
    Look,
    Looks,
    Option,
    Role,
)

HAWK_MOTH = 0
LADYBUG = 1
SQUARES = tuple(range(1, 10))
# AK-1: keypad numbering, so rows are 1-2-3, 4-5-6, 7-8-9.
LINES: tuple[tuple[int, int, int], ...] = (
    (1, 2, 3), (4, 5, 6), (7, 8, 9),
    (1, 4, 7), (2, 5, 8), (3, 6, 9),
    (1, 5, 9), (3, 5, 7),
)  # fmt: skip
POWERS = ("cataclysm", "shellter", "venom", "deevilize", "second_chance", "voyage")  # AK-6
D6 = (1, 2, 3, 4, 5, 6)
PIECES = ("hawkmoth", "ladybug", "trap", "shellter", "akuma")
# Civilian and akumatized names are data (AK-10); the rulebook gives only Luka / Silencer.
DEFAULT_NAMES = {1: ("Luka", "Silencer")}


def names(square: int) -> tuple[str, str]:
    """AK-10: the (civilian, akumatized) names on the two cards of `square`, as printed on the
    card sheet; a square the rulebook names no one for gets a numbered stand-in."""
    return DEFAULT_NAMES.get(square, (f"Civilian {square}", f"Akuma {square}"))


_NAMES = {str(square): names(square) for square in SQUARES}  # for describe, made once


@dataclass(frozen=True)
class ChooseDice(Action):
    """AK-3: roll one die (1-6) or two (2-12)."""

    count: int


@dataclass(frozen=True)
class Roll(Action):
    """The chance outcome of the regular dice: their total."""

    total: int


@dataclass(frozen=True)
class PlaceTrap(Action):
    """AK-4: after a 10 or 12, Hawk Moth puts a trap on a square."""

    square: int


@dataclass(frozen=True)
class DeEvilize(Action):
    """AK-4: after an 11, Ladybug chooses an akuma to de-evilize."""

    square: int


@dataclass(frozen=True)
class Power(Action):
    """AK-6: the chance outcome of the Miraculous Powers die."""

    face: str


@dataclass(frozen=True)
class Voyage(Action):
    """AK-7: the Ladybug marker moves to another square of Ladybug's choice."""

    square: int


class Phase(enum.Enum):
    CHOOSE_DICE = "choose_dice"
    ROLL = "roll"
    PLACE_TRAP = "place_trap"
    CHOOSE_DEEVILIZE = "choose_deevilize"
    MIRACULOUS = "miraculous"
    VOYAGE = "voyage"
    OVER = "over"


# Phases whose acting side is fixed, whichever side's turn it is; the others act for `side`.
_ACTING = {
    Phase.PLACE_TRAP: HAWK_MOTH,  # AK-4: whichever side rolled the 10 or 12
    Phase.CHOOSE_DEEVILIZE: LADYBUG,  # AK-4: whichever side rolled the 11
    Phase.VOYAGE: LADYBUG,  # AK-7: only in Ladybug's turn
    Phase.MIRACULOUS: LADYBUG,  # AK-6: only in Ladybug's turn
}
# current_player() by phase, None for the side whose turn it is.
_PLAYER: dict[Phase, int | None] = {
    **_ACTING,
    Phase.ROLL: CHANCE,
    Phase.MIRACULOUS: CHANCE,
    Phase.OVER: TERMINAL,
}


def _two_dice_odds(total: int) -> float:
    return (6 - abs(7 - total)) / 36


class AkumaState(GameState):
    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.akumatized: set[int] = set()
        self.traps: set[int] = set()
        self.tiles: set[int] = set()
        self.hawkmoth_at: int | None = None  # markers start beside the board
        self.ladybug_at: int | None = None
        self.side = HAWK_MOTH  # whose turn it is, who rolls its dice; AK-2: Hawk Moth first
        self.turn = 1
        self.phase = Phase.CHOOSE_DICE
        self.dice_count = 0
        self.last_roll: int | None = None
        self.rolled_square: int | None = None
        self.voyaged = False  # a Voyage face came up this turn: another one re-rolls (AK-7)
        self.venom_turn = False  # this Ladybug turn is the one Hawk Moth lost to Venom (AK-7)
        # Hawk Moth's latest akuma-or-trap, for 2nd Chance (AK-7): never cleared, see
        # second_chance_target.
        self.last_placement: tuple[str, int] | None = None
        # What the latest roll or power came to, for the page to say: (event, square, piece,
        # side, turn).
        self.last_event: tuple[str, int | None, str | None, int, int] | None = None
        self.winner: int | None = None
        self.winning_line: tuple[int, int, int] | None = None

    @property
    def num_players(self) -> int:
        return 2

    @property
    def trap_supply(self) -> int:
        return int(self.options["traps"]) - len(self.traps)

    @property
    def tile_supply(self) -> int:
        return int(self.options["tiles"]) - len(self.tiles)

    def acting_side(self) -> int | None:
        """The side that acts now: the one deciding, or at a chance node the one whose dice are
        rolled; None once the game is over. `current_player` and `describe` both use it."""
        return _ACTING.get(self.phase, self.side) if self.phase is not Phase.OVER else None

    def current_player(self) -> int:
        # Asked several times an action: one look-up, not a chain of comparisons.
        player = _PLAYER.get(self.phase)
        return self.side if player is None else player

    def trap_targets(self) -> list[int]:
        # AK-4 / AK-8: a civilian with no trap, and only while the supply lasts.
        if self.trap_supply <= 0:
            return []
        return [sq for sq in SQUARES if sq not in self.traps]

    def deevilize_targets(self) -> list[int]:
        # AK-7: a trapped akuma cannot be de-evilized until Cataclysm destroys its trap.
        return sorted(self.akumatized - self.traps)

    def legal_actions(self) -> list[Action]:
        match self.phase:
            case Phase.CHOOSE_DICE:
                return [ChooseDice(1), ChooseDice(2)]
            case Phase.PLACE_TRAP:
                return [PlaceTrap(sq) for sq in self.trap_targets()]
            case Phase.CHOOSE_DEEVILIZE:
                return [DeEvilize(sq) for sq in self.deevilize_targets()]
            case Phase.VOYAGE:
                return [Voyage(sq) for sq in SQUARES if sq != self.ladybug_at]
            case _:
                return []

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase is Phase.ROLL:
            if self.dice_count == 1:
                return [(Roll(n), 1 / 6) for n in range(1, 7)]
            return [(Roll(n), _two_dice_odds(n)) for n in range(2, 13)]
        if self.phase is Phase.MIRACULOUS:
            return [(Power(face), 1 / 6) for face in POWERS]
        return []

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    def _apply(self, action: Action) -> None:
        match action:
            case ChooseDice(count):
                self.dice_count = count
                self.phase = Phase.ROLL
            case Roll(total):
                self._after_roll(total)
            case PlaceTrap(square):
                self.traps.add(square)
                self.last_placement = ("trap", square)
                self._event("trap_laid", square, side=HAWK_MOTH)  # after either side's 10 or 12
                self._end_turn()
            case DeEvilize(square):
                self.akumatized.discard(square)
                self._event("freed", square, side=LADYBUG)  # after either side's 11 (AK-4)
                self._ladybug_removed_something()
            case Power(face):
                self._power(face)
            case Voyage(square):
                self.ladybug_at = square
                self.phase = Phase.MIRACULOUS

    def _after_roll(self, total: int) -> None:
        self.last_roll = total
        self.rolled_square = total if total <= 9 else None
        if total in (10, 12):
            self.phase = Phase.PLACE_TRAP
            if not self.trap_targets():  # AK-4: no legal target, nothing happens
                self._event("no_trap")
                self._end_turn()
            else:  # said now: Hawk Moth's trap, on either side's roll, comes next (AK-4)
                self._event("trap_to_lay")
        elif total == 11:
            self.phase = Phase.CHOOSE_DEEVILIZE
            if not self.deevilize_targets():
                self._event("no_akuma_to_free")
                self._end_turn()
            else:
                self._event("akuma_to_free")
        elif self.side == HAWK_MOTH:
            self._hawk_moth_lands(total)
        else:
            self.ladybug_at = total  # AK-6
            self.phase = Phase.MIRACULOUS

    def _event(
        self,
        name: str,
        square: int | None = None,
        piece: str | None = None,
        side: int | None = None,
    ) -> None:
        self.last_event = (name, square, piece, self.side if side is None else side, self.turn)

    def _hawk_moth_lands(self, square: int) -> None:
        # AK-5
        self.hawkmoth_at = square
        if square in self.tiles:
            self.tiles.discard(square)
            self._event("tile_took_it", square)
        elif square in self.akumatized:
            self._event("already_akuma", square)
        else:
            self.akumatized.add(square)
            self._event("akumatized", square)
            self.last_placement = ("akuma", square)
            for line in LINES:
                if all(sq in self.akumatized for sq in line):
                    self._win(HAWK_MOTH, line)
                    return
        self._end_turn()

    def _power(self, face: str) -> None:
        square = self.ladybug_at
        assert square is not None
        match face:
            case "cataclysm":
                if square in self.traps:
                    self.traps.discard(square)
                    self._event("trap_destroyed", square)
                    self._ladybug_removed_something()
                    return
                self._event("cataclysm_no_trap", square)
            case "shellter":
                # AK-7 / AK-8: not on an akuma, not on a tile, not beyond the supply.
                if square in self.akumatized:
                    self._event("shellter_on_akuma", square)
                elif square in self.tiles:
                    self._event("shellter_tile_there", square)
                elif self.tile_supply <= 0:
                    self._event("shellter_none_left", square)
                else:
                    self.tiles.add(square)
                    self._event("tile_laid", square)
            case "venom":
                self._event("venom")
                self._end_turn(venom=True)
                return
            case "deevilize":
                if square in self.akumatized and square not in self.traps:
                    self.akumatized.discard(square)
                    self._event("freed", square)
                    self._ladybug_removed_something()
                    return
                trapped = square in self.akumatized
                self._event("deevilize_trapped" if trapped else "deevilize_no_akuma", square)
            case "second_chance":
                undone = self._second_chance()
                if undone is not None:
                    self._event("undone", undone[1], undone[0])
                    self._ladybug_removed_something()
                    return
                self._event("nothing_to_undo")
            case "voyage":
                # AK-7: the first Voyage moves the marker; a repeated one is just rolled again.
                self.phase = Phase.MIRACULOUS if self.voyaged else Phase.VOYAGE
                self.voyaged = True
                return
        self._end_turn()

    def second_chance_target(self) -> tuple[str, int] | None:
        """AK-7 2nd Chance: the piece it would take away now, as (kind, square), or None.

        Only Hawk Moth's latest placement counts, and only while it is on the board. The memory
        of that placement is never cleared: a piece that left the board cannot come back (a new
        akuma or trap on the same square is a newer placement), so "kind still on its square"
        means "that very piece is still there", and a 2nd Chance that did nothing leaves the
        latest placement known for a later one.
        """
        if self.last_placement is None:
            return None
        kind, square = self.last_placement
        if kind == "trap" and square in self.traps:
            return self.last_placement
        # Undoing an akuma de-evilizes it, which its trap forbids until Cataclysm (AK-7 "Trapped
        # akuma", rulebook's Cataclysm rule); once the trap is gone it can be undone again.
        if kind == "akuma" and square in self.akumatized and square not in self.traps:
            return self.last_placement
        return None

    def _second_chance(self) -> tuple[str, int] | None:
        """AK-7: undo only the single most recent placement, if it is still on the board; the
        piece taken away, as (kind, square), or None."""
        target = self.second_chance_target()
        if target is None:
            return None  # nothing happens; no older placement is looked at
        kind, square = target
        (self.traps if kind == "trap" else self.akumatized).discard(square)
        return target

    def _ladybug_removed_something(self) -> None:
        # AK-9: Ladybug wins when its action leaves no akuma and no trap.
        if not self.akumatized and not self.traps:
            self._win(LADYBUG, None)
        else:
            self._end_turn()

    def _win(self, side: int, line: tuple[int, int, int] | None) -> None:
        self.winner = side
        self.winning_line = line
        self.phase = Phase.OVER

    def _end_turn(self, venom: bool = False) -> None:
        # AK-7 Venom (only ever rolled in Ladybug's turn): Hawk Moth skips its next turn, so
        # Ladybug plays again; otherwise the sides alternate (rulebook).
        self.venom_turn = venom
        if not venom:
            self.side = LADYBUG if self.side == HAWK_MOTH else HAWK_MOTH
        self.turn += 1
        self.phase = Phase.CHOOSE_DICE
        self.dice_count = 0
        self.voyaged = False  # a new turn's first Voyage moves the marker again


def _cards() -> tuple[CardFace, ...]:
    """AK-10: a red-bordered civilian card per square (AK-1), and its black-bordered akumatized
    card, laid over it (AK-5). Markers: the civilians' block of nine, then the akumatized."""
    cards: list[CardFace] = []
    for square in SQUARES:
        civilian, akumatized = names(square)
        cards += [
            CardFace(
                f"civilian-{square}",
                civilian,
                (f"civilian {square}",),
                "#d21e1e",
                index=square - 1,
                data={"square": square, "name": civilian, "kind": "civilian"},
            ),
            CardFace(
                f"akumatized-{square}",
                akumatized,
                (f"akumatized {square}", f"over {civilian}"),
                "#000000",
                index=len(SQUARES) + square - 1,
                data={"square": square, "name": akumatized, "kind": "akumatized"},
            ),
        ]
    return tuple(cards)


# How the page draws the game (issue 20): the cards as printed (AK-10), each piece on its reed in
# its light's colour, and the Miraculous Powers die's faces (AK-6).
LOOKS = Looks(
    tokens=(
        Look(r"(civilian|akumatized)-\d", "card"),
        Look(PRESENT, "piece", colour="hawkmoth", glyph="\u2748", spot=r"\d\.hawkmoth"),
        Look(PRESENT, "piece", colour="ladybug", glyph="\u2742", spot=r"\d\.ladybug"),
        Look(PRESENT, "piece", colour="trap", glyph="\u2716", spot=r"\d\.trap"),
        Look(PRESENT, "piece", colour="shellter", glyph="\u2b22", spot=r"\d\.shellter"),
        Look(PRESENT, "piece", colour="akuma", glyph="\u2739", spot=r"\d\.akuma"),
    ),
    seats=("hawkmoth", "ladybug"),
    faces={
        "cataclysm": "\u2604",
        "shellter": "\u2b22",
        "venom": "\u2620",
        "deevilize": "\u2740",
        "second_chance": "\u21bb",
        "voyage": "\u2691",
    },
)


class AkumaGame(Game):
    info = GameType(
        name="akuma",
        title="Capture the Akuma",
        title_fr="Capture l'Akuma",
        player_names=("hawkmoth", "ladybug"),
        options=(
            # AK-8: the supply is configurable.
            Option("traps", 5, "traps in Hawk Moth's supply", low=0, high=len(SQUARES)),
            Option("tiles", 5, "Shellter tiles in Ladybug's supply", low=0, high=len(SQUARES)),
        ),
        profile="akuma",
        guide="akuma",
        palette=(
            Role("civilian", "#303030"),
            Role("akumatized", "#8000ff", "*"),
            Role("rolled", "#ffffff", "+"),
            Role("winning", "#ffb000", "#"),
            Role("hawkmoth", "#a000a0"),
            Role("ladybug", "#ff0000"),
            Role("trap", "#ff6000"),
            Role("shellter", "#00c040"),
            Role("akuma", "#4000c0"),
        ),
        dice_kinds=("d6", "miraculous"),
        icon_dice=(IconDice("miraculous", POWERS),),  # AK-6
        board=CARDS,
        # Printed before decks were allocated: the block stays where the cards have it.
        deck=CardDeck(_cards, size=18, first=94),
        # Every public fact of the position, so that the page, `smartboard status` and a computer
        # player need nothing else (sides are named as in `player_names`; squares are 1-9, AK-1)
        words=Path(__file__).with_name("akuma.words.toml"),
        looks=LOOKS,
        details=(
            Detail(
                "turn",
                "the turn's number, from 1; each ended turn adds one (Venom's extra turn too).",
            ),
            Detail(
                "phase",
                "choose_dice, roll, place_trap, choose_deevilize, miraculous, voyage or over.",
            ),
            Detail(
                "side",
                "the side that acts now, the same as `current_player()` at a decision; at a "
                "chance node the side whose dice are rolled; None once the game is over.",
                inner=True,
            ),
            Detail(
                "turn_of",
                "the side whose turn it is, the one that chose and rolled the dice (it "
                "differs from `side` while Hawk Moth places a trap after Ladybug's 10 or 12, "
                "or Ladybug chooses an akuma after Hawk Moth's 11: AK-4); None once the game "
                "is over.",
            ),
            Detail(
                "dice",
                "how many regular dice were chosen for this turn's roll (AK-3), None before.",
            ),
            Detail(
                "last_roll",
                "the latest total of the regular dice, by either side; None before any.",
            ),
            Detail(
                "akumatized",
                "the akumatized squares, each with its akumatized card (and akuma).",
            ),
            Detail(
                "traps",
                "the squares with a trap.",
            ),
            Detail(
                "tiles",
                "the squares with a Shell-ter tile.",
            ),
            Detail(
                "traps_left",
                "traps still in the box, that a 10 or 12 can place (AK-8).",
            ),
            Detail(
                "tiles_left",
                "Shell-ter tiles still in the box, that Shell-ter can place (AK-8).",
            ),
            Detail(
                "hawkmoth_at",
                "the Hawk Moth marker's square; None while it is beside the board.",
            ),
            Detail(
                "ladybug_at",
                "the Ladybug marker's square; None while it is beside the board.",
            ),
            Detail(
                "last_placement",
                'Hawk Moth\'s latest akuma-or-trap, {"piece", "square"}, whether or not it is '
                "still on the board; None before any (AK-7).",
            ),
            Detail(
                "last_event",
                'what the latest roll or Miraculous power came to, {"event", "square", "piece", '
                '"side", "turn"}: an akuma made, a tile that took the blow, a trap destroyed, a '
                "power that did nothing (AK-5, AK-7); None before any.",
            ),
            Detail(
                "second_chance",
                'what a 2nd Chance would remove now, {"piece", "square", "spot"} (the spot as'
                " in `layout`), or None when it would do nothing (AK-7).",
                inner=True,
            ),
            Detail(
                "next_voyage",
                '"move" if a Voyage rolled next would move the Ladybug marker, "reroll" if '
                "this turn has had a Voyage already, so another is just rolled again (AK-7).",
                inner=True,
            ),
            Detail(
                "venom_turn",
                "true during the Ladybug turn that Hawk Moth lost to Venom (AK-7).",
            ),
            Detail(
                "winner",
                "the side that has won, None while the game goes on (AK-9).",
            ),
            Detail(
                "winning_line",
                "Hawk Moth's three squares in a line once it has won, else [] (AK-9).",
            ),
            Detail(
                "names",
                'for each square ("1"-"9"), its {"civilian", "akumatized"} names (AK-10).',
                inner=True,
            ),
        ),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (
        ChooseDice,
        Roll,
        PlaceTrap,
        DeEvilize,
        Power,
        Voyage,
    )

    def _new_state(self, options: Mapping[str, Any]) -> AkumaState:
        return construct(AkumaState, options)

    def layout(self, state: GameState) -> Layout:
        s = AkumaState.of(state)
        spots = {f"{sq}.akuma" for sq in s.akumatized}
        spots |= {f"{sq}.trap" for sq in s.traps}
        spots |= {f"{sq}.shellter" for sq in s.tiles}
        if s.hawkmoth_at is not None:
            spots.add(f"{s.hawkmoth_at}.hawkmoth")
        if s.ladybug_at is not None:
            spots.add(f"{s.ladybug_at}.ladybug")
        return dict.fromkeys(sorted(spots), PRESENT) | square_cards(s.akumatized)

    def lights(self, state: GameState) -> dict[str, str]:
        s = AkumaState.of(state)
        roles: dict[str, str] = {}
        for sq in SQUARES:
            roles[str(sq)] = "akumatized" if sq in s.akumatized else "civilian"
        if s.rolled_square is not None and s.phase is not Phase.OVER:
            roles[str(s.rolled_square)] = "rolled"
        for sq in s.winning_line or ():
            roles[str(sq)] = "winning"
        for spot in self.layout(state):
            _, _, piece = spot.partition(".")
            if piece:
                roles[spot] = piece
        return roles

    def board_rows(self) -> list[list[str]]:
        return [[str(sq) for sq in line] for line in LINES[:3]]

    def spots(self) -> dict[str, str]:
        # The camera reads the card on each square; each piece spot has its own reed.
        squares = {str(sq): CAMERA for sq in SQUARES}
        return squares | {f"{sq}.{piece}": REED for sq in SQUARES for piece in PIECES}

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        s = AkumaState.of(state)
        if s.phase is Phase.ROLL:
            return DiceRequest("d6", s.dice_count, D6)
        if s.phase is Phase.MIRACULOUS:
            return DiceRequest("miraculous", 1, POWERS)
        return None

    def roller(self, state: GameState) -> int | None:
        """The side whose turn it is rolls its dice (AK-3), and Ladybug the Miraculous Powers
        die after her roll or Voyage (AK-6)."""
        s = AkumaState.of(state)
        if s.phase is Phase.MIRACULOUS:
            return LADYBUG
        return s.side if s.phase is Phase.ROLL else None

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        s = AkumaState.of(state)
        if s.phase is Phase.MIRACULOUS:
            if len(reading) != 1 or reading[0] not in POWERS:
                raise IllegalActionError(
                    f"the Miraculous Powers die is wanted (one of {', '.join(POWERS)}), "
                    f"not {list(reading)}"
                )
            return [Power(str(reading[0]))]
        pips = [v for v in reading if isinstance(v, int) and 1 <= v <= 6]
        if len(pips) != len(reading) or len(reading) not in (1, 2):
            raise IllegalActionError(f"one or two dice showing 1-6 are wanted, not {list(reading)}")
        total = sum(pips)
        if s.phase is Phase.CHOOSE_DICE:
            # AK-3: how many dice lie in the tray tells the choice made before the roll.
            return [ChooseDice(len(pips)), Roll(total)]
        if s.phase is Phase.ROLL:
            if len(pips) != s.dice_count:
                chosen, faces = (
                    ("one die was", "one face is")
                    if s.dice_count == 1
                    else ("two dice were", "two faces are")
                )
                raise IllegalActionError(
                    f"{chosen} chosen for this roll (AK-3): {faces} wanted, not {len(pips)}"
                )
            return [Roll(total)]
        raise IllegalActionError(f"no dice roll is expected now ({s.phase.value})")

    def describe(self, state: GameState) -> JSON:
        """The public facts of the position: the fields of `info.details`, in that order."""
        s = AkumaState.of(state)
        acting = s.acting_side()
        over = s.phase is Phase.OVER
        placed, event = s.last_placement, s.last_event
        undo = s.second_chance_target()
        return {
            "turn": s.turn,
            "phase": s.phase.value,
            "side": None if acting is None else self.player_names[acting],
            "turn_of": None if over else self.player_names[s.side],
            "dice": s.dice_count or None,
            "last_roll": s.last_roll,
            "akumatized": sorted(s.akumatized),
            "traps": sorted(s.traps),
            "tiles": sorted(s.tiles),
            "traps_left": s.trap_supply,
            "tiles_left": s.tile_supply,
            "hawkmoth_at": s.hawkmoth_at,
            "ladybug_at": s.ladybug_at,
            "last_placement": None if placed is None else {"piece": placed[0], "square": placed[1]},
            "last_event": None
            if event is None
            else {
                "event": event[0],
                "square": event[1],
                "piece": event[2],
                "side": self.player_names[event[3]],
                "turn": event[4],
            },
            "second_chance": None
            if undo is None
            else {"piece": undo[0], "square": undo[1], "spot": f"{undo[1]}.{undo[0]}"},
            "next_voyage": "reroll" if s.voyaged else "move",
            "venom_turn": s.venom_turn,
            "winner": None if s.winner is None else self.player_names[s.winner],
            "winning_line": list(s.winning_line or ()),
            "names": {
                square: {"civilian": civilian, "akumatized": akumatized}
                for square, (civilian, akumatized) in _NAMES.items()
            },
        }

    def result(self, state: GameState) -> JSON | None:
        summary = super().result(state)
        if summary is not None:
            line = AkumaState.of(state).winning_line
            summary["winning_line"] = list(line or ())
            # Why it ended (AK-9), for the page to say in words (values.ended).
            summary["ended"] = "line" if line else "cleared"
        return summary


def square_cards(akumatized: Iterable[int]) -> dict[str, str]:
    """The card on top of each square, as the camera reads it (vision/card_deck.py): the
    civilian's (red border), or its akumatized card laid over it (black border; rulebook
    set-up and AK-5, AK-10)."""
    covered = set(akumatized)
    return {str(sq): f"akumatized-{sq}" if sq in covered else f"civilian-{sq}" for sq in SQUARES}


GAME = AkumaGame()
AkumaState.game = GAME
