"""Multipli Potion (`multipli-potion.fr.txt`, summary `multipli-potion.md`; MP-1 to MP-4).

The state is what the table can see (DESIGN.md §3): the cards in the play zones and the trophy
areas, how many cards each hand and the draw pile hold, and which cards went under the pile.
It never knows a hand. A player may place a card that could be in their hand, as far as the
table can tell. `PotionsHidden` holds the real hands for bots and simulations.

What the table knows of the hidden cards comes in lots (`Lot`): cards it cannot tell apart, of
which it knows how many each hand holds and how many still lie in the pile. The cards never
seen are one lot. The two spent potions of a capture go under the pile (Étape 2), either way
up: everyone knows the pair, but it reaches a hand only once the cards above it are drawn, and
only the hand that draws it; from that draw on it is a lot of its own. So a player may place a
card of a lot only while their hand holds some of that lot.

The FAQ puts no cap on a play zone. The table has `ZONE_SLOTS` slots a zone; once they are
all taken, a card is laid beside the zone, in slot 21, 22, ...: the rules count it, the camera
does not see it, and the player names the placement through the control interface.
"""

from __future__ import annotations

import enum
import functools
import random
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, Self

from controller.rules.api import (
    CAMERA,
    CHANCE,
    JSON,
    TERMINAL,
    Action,
    DiceRequest,
    Game,
    GameState,
    Hidden,
    IllegalActionError,
    Layout,
    Problem,
    construct,
    leads,
    read_toml,
)
from controller.rules.game_type import (
    CARDS,
    CardDeck,
    CardFace,
    Detail,
    GameType,
    Look,
    Looks,
    Option,
    Role,
)

HAND = 4  # set-up, and the draw back to 4 (step 3)
WINNING_CAPTURES = 5  # MP-4
# The slots a play zone has on the table (hardware/profiles/potions.toml): two rows of 10. The
# rules set no limit (FAQ): slots beyond these lie beside the zone, off the camera's slots.
ZONE_SLOTS = 20
TROPHY_SLOTS = WINNING_CAPTURES  # the fifth capture ends the game
COLOURS = ("green", "purple")
SEATS = 2


class DeckError(ValueError):
    """A deck file that cannot be played."""


@dataclass(frozen=True)
class Card:
    id: str
    monster: int
    potion: int
    colour: str


@dataclass
class Lot:
    """Hidden cards that the table cannot tell apart: `held[p]` of them are in player p's hand
    and `in_pile` in the draw pile, but which are which it does not know."""

    cards: set[str]
    held: list[int]
    in_pile: int

    def copy(self) -> Lot:
        return Lot(set(self.cards), list(self.held), self.in_pile)


# -- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal(Action):
    """Chance, at set-up: the card put face up to start `player`'s play zone, in its first slot."""

    player: int
    card: str


@dataclass(frozen=True)
class Place(Action):
    """Step 1: a card from the hand into an empty slot (1-based) of the player's play zone:
    one of the table's slots while one is free, else the first slot beside the zone (FAQ: no
    limit), numbered on from `ZONE_SLOTS` + 1."""

    card: str
    slot: int


@dataclass(frozen=True)
class Capture(Action):
    """Step 2 (MP-2): the opponent's `monster`, with two potions of one's own zone."""

    monster: str
    potion_a: str
    potion_b: str


@dataclass(frozen=True)
class EndTurn(Action):
    """Step 3: "end my turn", through the control interface; a missed capture is flagged."""


class Phase(enum.Enum):
    DEAL = "deal"
    PLACE = "place"
    CAPTURE = "capture"
    FORGOTTEN = "forgotten"  # MP-3: ended with a capture possible; one must be made
    OVER = "over"


# -- decks ------------------------------------------------------------------------------------


def _builtin_deck(name: str) -> Path:
    return Path(str(resources.files("controller.rules") / "decks" / f"potions-{name}.toml"))


@functools.cache
def load_deck(name: str, colours: str) -> tuple[Card, ...]:
    """The deck `name` (a built-in edition such as "80" or "64", or a TOML path), keeping the
    cards of the chosen monster colours: "green", "purple" or "both"."""
    if colours != "both" and colours not in COLOURS:
        raise DeckError(f"colours must be green, purple or both, not {colours!r}")
    path = _builtin_deck(name)
    if not path.exists():
        path = Path(name)
        if not path.exists():
            raise DeckError(f"no deck {name!r}: neither a built-in edition (80, 64) nor a file")
    data = read_toml(path, "deck", DeckError)
    cards = [_card(entry, path, n) for n, entry in enumerate(data.get("cards", []))]
    ids = [card.id for card in cards]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise DeckError(f"deck {path}: card ids used twice: {', '.join(twice)}")
    kept = tuple(c for c in cards if colours == "both" or c.colour == colours)
    least = SEATS * (HAND + 1) + 1
    if len(kept) < least:
        raise DeckError(
            f"deck {path} with colours {colours!r} has {len(kept)} cards; a game needs {least}"
        )
    return kept


def _card(entry: Any, path: Path, n: int) -> Card:
    where = f"deck {path}, card {n + 1}"
    if not isinstance(entry, dict):
        raise DeckError(f"{where}: not a table")
    missing = {"id", "monster", "potion", "colour"} - entry.keys()
    if missing:
        raise DeckError(f"{where}: missing {', '.join(sorted(missing))}")
    card_id, monster, potion, colour = (entry[k] for k in ("id", "monster", "potion", "colour"))
    if not isinstance(card_id, str) or not card_id or ":" in card_id or card_id == "down":
        raise DeckError(f"{where}: id must be a short name without ':', not {card_id!r}")
    for key, value in (("monster", monster), ("potion", potion)):
        if type(value) is not int or value < 1:
            raise DeckError(f"{where} ({card_id}): {key} must be a positive whole number")
    if colour not in COLOURS:
        raise DeckError(f"{where} ({card_id}): colour must be green or purple, not {colour!r}")
    return Card(card_id, monster, potion, colour)


# -- the state --------------------------------------------------------------------------------


class PotionsState(GameState):
    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        youngest: int = options["youngest"]
        deck = load_deck(options["deck"], options["colours"])
        self.cards: dict[str, Card] = {card.id: card for card in deck}
        self.zones: list[list[str | None]] = [[None] * ZONE_SLOTS for _ in range(SEATS)]
        self.trophies: list[list[str]] = [[] for _ in range(SEATS)]
        self.hands = [0] * SEATS
        # The cards never face up: in a hand, or in the pile above the spent pairs.
        self.unseen = Lot(set(self.cards), [0] * SEATS, len(deck))
        # Spent pairs that the draws have reached, while a card of them is still hidden; only
        # the last may still have a card in the pile.
        self.reached: list[Lot] = []
        self.pile_under: deque[tuple[str, str]] = deque()  # spent pairs, next to draw first
        self.seen: set[str] = set()  # every card ever face up on the table
        self.phase = Phase.DEAL
        self.to_move = youngest  # "le plus jeune commence"
        self.rewarded: int | None = None  # MP-3: who holds a fifth card from the pile
        self.ended_by = ""

    def clone(self) -> Self:
        # The card table is shared: it never changes once loaded.
        other = self._copy()
        other.zones = [list(zone) for zone in self.zones]
        other.trophies = [list(t) for t in self.trophies]
        other.hands = list(self.hands)
        other.unseen = self.unseen.copy()
        other.reached = [lot.copy() for lot in self.reached]
        other.pile_under = deque(self.pile_under)
        other.seen = set(self.seen)
        return other

    @property
    def num_players(self) -> int:
        return SEATS

    @property
    def pile_size(self) -> int:
        return self.pile_unseen + 2 * len(self.pile_under)

    @property
    def pile_unseen(self) -> int:
        """The cards of the pile above the spent pairs that no draw has reached."""
        return self.unseen.in_pile + sum(lot.in_pile for lot in self.reached)

    @property
    def hidden(self) -> set[str]:
        """The cards whose place the table cannot see: in a hand, or in the pile above the spent
        pairs that no draw has reached."""
        cards = set(self.unseen.cards)
        for lot in self.reached:
            cards |= lot.cards
        return cards

    def lots(self) -> list[Lot]:
        """The hidden cards by lot, in pile order: the never-seen cards, then the reached pairs."""
        return [self.unseen, *self.reached]

    def lot_of(self, card: str) -> Lot | None:
        return next((lot for lot in self.lots() if card in lot.cards), None)

    def may_hold(self, player: int) -> set[str]:
        """The cards that could be in `player`'s hand, as far as the table can tell."""
        cards: set[str] = set()
        for lot in self.lots():
            if lot.held[player]:
                cards |= lot.cards
        return cards

    def zone_cards(self, player: int) -> list[str]:
        return [card for card in self.zones[player] if card is not None]

    def zone_slots(self, player: int) -> list[tuple[int, str]]:
        """(slot, card) for each card of `player`'s zone; slots past `ZONE_SLOTS` lie beside it."""
        return [(k + 1, card) for k, card in enumerate(self.zones[player]) if card is not None]

    def captures(self, player: int) -> list[Capture]:
        """MP-2: each opponent's monster that two potions of `player`'s zone multiply to."""
        own = self.zone_cards(player)
        products: dict[int, list[tuple[str, str]]] = {}
        for i, a in enumerate(own):
            for b in own[i + 1 :]:
                pair = (a, b) if a < b else (b, a)
                value = self.cards[a].potion * self.cards[b].potion
                products.setdefault(value, []).append(pair)
        return [
            Capture(monster, a, b)
            for monster in self.zone_cards(1 - player)
            for a, b in products.get(self.cards[monster].monster, ())
        ]

    def empty_slots(self, player: int) -> list[int]:
        """Where `player` may lay a card: the table's free slots, or when none is free the first
        free slot beside the zone (the FAQ caps no zone)."""
        zone = self.zones[player]
        free = [k + 1 for k in range(ZONE_SLOTS) if zone[k] is None]
        if free:
            return free
        beside = next((k for k in range(ZONE_SLOTS, len(zone)) if zone[k] is None), len(zone))
        return [beside + 1]

    def current_player(self) -> int:
        if self.phase is Phase.OVER:
            return TERMINAL
        if self.phase is Phase.DEAL:
            return CHANCE
        return self.to_move

    def legal_actions(self) -> list[Action]:
        if self.phase is Phase.PLACE:
            return [
                _place(card, slot)
                for card in sorted(self.may_hold(self.to_move))
                for slot in self.empty_slots(self.to_move)
            ]
        if self.phase is Phase.CAPTURE:
            return [*self.captures(self.to_move), EndTurn()]
        if self.phase is Phase.FORGOTTEN:
            return list(self.captures(self.to_move))
        return []

    def is_legal(self, action: Action) -> bool:
        if isinstance(action, Place):
            if self.phase is not Phase.PLACE:
                return False
            lot = self.lot_of(action.card)
            if lot is None or not lot.held[self.to_move]:
                return False
            if 1 <= action.slot <= ZONE_SLOTS:
                return self.zones[self.to_move][action.slot - 1] is None
            return action.slot in self.empty_slots(self.to_move)
        return super().is_legal(action)

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase is not Phase.DEAL:
            return []
        cards = sorted(self.unseen.cards)
        player = 0 if self.zones[0][0] is None else 1
        return [(Deal(player, card), 1 / len(cards)) for card in cards]

    def returns(self) -> list[float]:
        if self.phase is not Phase.OVER:
            return [0.0] * SEATS
        a, b = (len(t) for t in self.trophies)
        if a == b:
            return [0.0] * SEATS  # MP-4: equal captures draw
        return [1.0, -1.0] if a > b else [-1.0, 1.0]

    # -- playing ----------------------------------------------------------------------------

    def _apply(self, action: Action) -> None:
        if isinstance(action, Deal):
            self._deal(action)
        elif isinstance(action, Place):
            zone = self.zones[self.to_move]
            if action.slot > len(zone):
                zone.append(None)  # beside the zone: the first slot past its end
            zone[action.slot - 1] = action.card
            lot = self.lot_of(action.card)
            assert lot is not None
            lot.cards.discard(action.card)
            lot.held[self.to_move] -= 1
            if lot is not self.unseen and not lot.cards:
                self.reached.remove(lot)
            self.seen.add(action.card)
            self.hands[self.to_move] -= 1
            if self.rewarded == self.to_move:
                self.rewarded = None  # MP-3: the fifth card is down to 4 again
            self.phase = Phase.CAPTURE
        elif isinstance(action, Capture):
            self._capture(action)
        elif isinstance(action, EndTurn):
            if self.captures(self.to_move):
                self.phase = Phase.FORGOTTEN  # MP-3: the board flags it
            else:
                self._draw_and_pass()
        else:
            raise IllegalActionError(f"{action} is not a Multipli Potion action")

    def _deal(self, action: Deal) -> None:
        self.zones[action.player][0] = action.card
        self.unseen.cards.discard(action.card)
        self.unseen.in_pile -= 1
        self.seen.add(action.card)
        if action.player == SEATS - 1:
            # Then 4 cards face down to each player; the rest is the pile.
            self.hands = [HAND] * SEATS
            self.unseen.held = [HAND] * SEATS
            self.unseen.in_pile -= HAND * SEATS
            self.phase = Phase.PLACE

    def _capture(self, action: Capture) -> None:
        player, forgotten = self.to_move, self.phase is Phase.FORGOTTEN
        self._clear(1 - player, action.monster)
        self._clear(player, action.potion_a)
        self._clear(player, action.potion_b)
        self.trophies[player].append(action.monster)
        self.pile_under.append((action.potion_a, action.potion_b))  # spent: under the pile
        if len(self.trophies[player]) >= WINNING_CAPTURES:
            self._end("captures")  # MP-4: five captures win at once
            return
        if forgotten:
            # MP-3: the opponent who pointed it out takes the top card; it is not a turn.
            self._draw(1 - player)
            self.rewarded = 1 - player
        self._draw_and_pass()

    def _clear(self, player: int, card: str) -> None:
        zone = self.zones[player]
        zone[zone.index(card)] = None
        while len(zone) > ZONE_SLOTS and zone[-1] is None:
            zone.pop()  # beside the zone, only the slots up to its last card are kept

    def _draw_and_pass(self) -> None:
        """Step 3: draw back to 4 (MP-3: a rewarded hand holds 4 already), then pass."""
        player = self.to_move
        while self.hands[player] < HAND:
            if not self.pile_size:
                self._end("pile")  # MP-4: cannot draw, the pile is empty
                return
            self._draw(player)
        self.to_move = 1 - player
        self.phase = Phase.PLACE

    def _draw(self, player: int) -> None:
        """The pile's top card into `player`'s hand: a never-seen card while any is left above
        the spent pairs, else a card of the next spent pair, which of the two the table cannot
        tell; the pair becomes a lot that only the hands that drew it may hold."""
        if self.unseen.in_pile:
            lot = self.unseen
        elif self.reached and self.reached[-1].in_pile:
            lot = self.reached[-1]
        else:
            lot = Lot(set(self.pile_under.popleft()), [0] * SEATS, 2)
            self.reached.append(lot)
        lot.in_pile -= 1
        lot.held[player] += 1
        self.hands[player] += 1

    def _end(self, reason: str) -> None:
        self.phase = Phase.OVER
        self.ended_by = reason


@functools.cache
def _place(card: str, slot: int) -> Place:
    # Listing a placement for every hidden card and slot would build hundreds of actions a turn.
    return Place(card, slot)


# -- what the players hold --------------------------------------------------------------------


class PotionsHidden(Hidden):
    """The real hands and the real order of the pile (top first)."""

    def __init__(
        self, state: PotionsState, rng: random.Random, kept: tuple[int, set[str]] | None = None
    ) -> None:
        """`kept`: a seat and its hand, which stays as it is; the rest is dealt around it."""
        self.hands: list[set[str]] = [set() for _ in range(SEATS)]
        self.pile: deque[str] = deque()
        # Each lot's cards shared out at random among the places the table counts for it; the
        # lots come in pile order, the never-seen cards on top.
        for lot in state.lots():
            cards = sorted(lot.cards)
            held = list(lot.held)
            if kept is not None:
                seat, hand = kept
                mine = sorted(lot.cards & hand)[: held[seat]]
                self.hands[seat].update(mine)
                cards = [card for card in cards if card not in mine]
                held[seat] -= len(mine)  # none left unless the hand was out of step
            rng.shuffle(cards)
            for player, count in enumerate(held):
                self.hands[player].update(cards[:count])
                cards = cards[count:]
            self.pile.extend(cards)
        for a, b in state.pile_under:
            self.pile.extend(rng.sample((a, b), 2))
        self.mover = state.to_move

    def choices(self, state: GameState) -> list[Action]:
        assert isinstance(state, PotionsState)
        if state.phase is not Phase.PLACE:
            return state.legal_actions()
        hand = sorted(self.hands[state.to_move])
        return [_place(card, slot) for card in hand for slot in state.empty_slots(state.to_move)]

    def outcome(self, state: GameState) -> Action | None:
        assert isinstance(state, PotionsState)
        if state.phase is not Phase.DEAL:
            return None
        player = 0 if state.zones[0][0] is None else 1
        return Deal(player, self.pile[0])  # the deck's top card, turned face up

    def observe(self, action: Action, state: GameState) -> None:
        assert isinstance(state, PotionsState)
        if isinstance(action, Deal):
            self.pile.remove(action.card)
        elif isinstance(action, Place):
            if action.card not in self.hands[self.mover]:
                # Laid from a real hand this deal did not give (another table, a person): the
                # caller deals afresh to fit, or the card could come again from this pile.
                raise ValueError(f"{action.card} laid from a hand this deal did not hold")
            self.hands[self.mover].discard(action.card)
        elif isinstance(action, Capture):
            self.pile.extend((action.potion_a, action.potion_b))
        # Draws as the table counted them: the rewarded opponent (MP-3) before the player.
        for player in (1 - self.mover, self.mover):
            while len(self.hands[player]) < state.hands[player]:
                self.hands[player].add(self.pile.popleft())
        self.mover = state.to_move

    def known_to(self, seat: int) -> list[tuple[str, str]]:
        """The seat's hand (MP rules: four cards, drawn back up each turn)."""
        return [("", card) for card in sorted(self.hands[seat])]

    def redeal(self, state: GameState, rng: random.Random, seat: int) -> PotionsHidden:
        """The other hand and the pile's order dealt afresh; `seat` keeps its hand, which is
        all that a player knows of the hidden cards (the spent pairs' order under the pile is
        nobody's to know, Étape 2)."""
        return construct(PotionsHidden, PotionsState.of(state), rng, (seat, self.hands[seat]))


# -- the game on the table --------------------------------------------------------------------


def zone_spot(player: int, slot: int) -> str:
    return f"s{player + 1}.z{slot}"


def trophy_spot(player: int, k: int) -> str:
    return f"s{player + 1}.t{k}"


def _cards() -> tuple[CardFace, ...]:
    """The full 80-card pack; the 64-card edition is a part of it, with the same markers. Card
    "TxM" (table T 2-9, multiplier M 1-10) has its place (T - 2) * 10 + M - 1 in the block."""
    cards = []
    for c in load_deck("80", "both"):
        table, multiplier = (int(n) for n in c.id.split("x"))
        cards.append(
            CardFace(
                c.id,
                f"monster {c.monster}",
                (f"potion {c.potion}", f"{c.colour}: table of {c.monster // c.potion}"),
                "#289628" if c.colour == "green" else "#783296",
                index=(table - 2) * 10 + multiplier - 1,
                headline=True,
                data={"monster": c.monster, "potion": c.potion, "colour": c.colour},
            )
        )
    return tuple(cards)


# How the page draws the game (issue 20): each card as printed, with its table and multiplier.
LOOKS = Looks(
    tokens=(Look(r"(\d+)x(\d+)", "card", label="{1}\u00d7{2}"),),
    seats=("#3d8bfd", "#f08c00"),
)


class PotionsGame(Game):
    info = GameType(
        name="potions",
        title="Multipli Potion",
        title_fr="Multipli Potion",
        player_names=("player_1", "player_2"),
        options=(
            Option("deck", "80", "the deck: a built-in edition (80, 64) or a TOML file"),
            Option("colours", "both", "the monster colours kept", choices=(*COLOURS, "both")),
            Option(
                "youngest", 0, "the youngest player, who starts", low=0, high=SEATS - 1, seat=True
            ),
            Option("hints", False, "light the captures open this turn"),
        ),
        profile="potions",
        guide="potions",
        palette=(
            Role("green", "#00b000"),
            Role("purple", "#9000ff"),
            # A captured monster in a trophy area, the cards of a forgotten capture (MP-3,
            # blinking), and with the `hints` option the cards of the captures open this turn.
            Role("trophy", "#ffb000"),
            Role("forgotten", "#ff3000"),
            Role("hint", "#00a0ff"),
        ),
        board=CARDS,
        # The first deck printed: its block starts after the shared back's index 0.
        deck=CardDeck(_cards, size=80, first=1),
        # The public facts of the position, for the terminal, the dashboard, `smartboard status`
        # and computer players. Players are named ("player_1", "player_2"); cards by id.
        words=Path(__file__).with_name("potions.words.toml"),
        looks=LOOKS,
        details=(
            Detail(
                "turn",
                "the number of actions played so far (the session's turn counter).",
            ),
            Detail(
                "phase",
                '"deal" (set-up), "place" (step 1), "capture" (step 2), "forgotten" (MP-3: a '
                'capture must be made) or "over".',
            ),
            Detail(
                "to_move",
                "the player whose turn it is; null during the set-up and once over.",
            ),
            Detail(
                "may",
                'what that player may still do this turn: "place" (step 1), "capture" (a '
                'capture is open now), "end_turn" (step 3, which draws); empty during the '
                "set-up and once over.",
            ),
            Detail(
                "hands",
                "each player's number of cards in hand.",
            ),
            Detail(
                "rewarded",
                "the player holding a fifth card (MP-3), who draws nothing at the end of "
                "their next turn; null if nobody.",
            ),
            Detail(
                "pile",
                "the number of cards in the draw pile.",
            ),
            Detail(
                "pile_unseen",
                "of those, the cards above the spent pairs that no draw has reached.",
                inner=True,
            ),
            Detail(
                "spent_under_pile",
                "the spent pairs that no draw has reached, the next to be drawn first.",
                inner=True,
            ),
            Detail(
                "spent_drawn",
                "each spent pair that the draws have reached while a card of it is hidden: "
                'its hidden "cards", how many of them each hand holds ("hands") and how many '
                'still lie on top of the pile ("pile"); only those hands may hold them. Each '
                "hand's other cards are cards never seen.",
                inner=True,
            ),
            Detail(
                "zones",
                "each player's play zone, slot number (as a string) to card.",
            ),
            Detail(
                "table_slots",
                "the slots a zone has on the table; a zone's slots past it lie beside it, out"
                " of the camera's sight (FAQ: no limit to a zone).",
                inner=True,
            ),
            Detail(
                "trophies",
                "each player's captured monsters, in the order of capture.",
            ),
            Detail(
                "scores",
                "each player's number of captures.",
            ),
            Detail(
                "captures_to_win",
                "the captures that win at once (MP-4).",
            ),
            Detail(
                "seen",
                "the number of cards ever face up on the table.",
                inner=True,
            ),
            Detail(
                "deck",
                "the number of cards in play (MP-1: the deck and colours options).",
            ),
            Detail(
                "forgotten",
                'in the "forgotten" phase, the captures among which the player must choose '
                "(MP-3), as action ids; else null.",
            ),
            Detail(
                "captures",
                "with the `hints` option during step 2, the open captures, as action ids; else "
                "null.",
            ),
            Detail(
                "ended_by",
                'once over, "captures" (five, MP-4) or "pile" (empty when a player had to draw, '
                "MP-4); null before.",
            ),
        ),
    )
    action_types: ClassVar[tuple[type[Action], ...]] = (Deal, Place, Capture, EndTurn)
    turn_enders: ClassVar[tuple[type[Action], ...]] = (EndTurn,)

    def _new_state(self, options: Mapping[str, Any]) -> PotionsState:
        try:
            return construct(PotionsState, options)
        except DeckError as error:
            raise ValueError(str(error)) from error

    def deal(self, state: GameState, rng: random.Random) -> PotionsHidden:
        return construct(PotionsHidden, PotionsState.of(state), rng)

    def search_actions(self, state: GameState, hidden: Hidden | None) -> list[Action]:
        """A card in the first free slot only: which slot of a zone a card lies in changes no
        capture (MP-2); made so from the hand, without the other slots' placements. And no "end
        my turn" while a capture is open, where forgetting it only costs (MP-3,
        `_forgetting_only_costs`)."""
        s = PotionsState.of(state)
        if s.phase is Phase.PLACE:
            first = s.empty_slots(s.to_move)[0]
            if isinstance(hidden, PotionsHidden):
                return [_place(card, first) for card in sorted(hidden.hands[s.to_move])]
            return [a for a in s.legal_actions() if not isinstance(a, Place) or a.slot == first]
        actions = super().search_actions(state, hidden)
        capturing = s.phase is Phase.CAPTURE and any(isinstance(a, Capture) for a in actions)
        if capturing and _forgetting_only_costs(s):
            return [a for a in actions if not isinstance(a, EndTurn)]
        return actions

    def evaluate(self, state: GameState) -> list[float]:
        """For a search: the captures made (MP-4: five win, the most win when the pile runs
        out), a lead of two being a good one."""
        s = PotionsState.of(state)
        return leads([len(t) for t in s.trophies], 2.0)

    def layout(self, state: GameState) -> Layout:
        s = PotionsState.of(state)
        layout: Layout = {}
        for player in range(SEATS):
            for slot, card in s.zone_slots(player):
                if slot <= ZONE_SLOTS:  # a card beside the zone has no slot on the table
                    layout[zone_spot(player, slot)] = card
            for k, card in enumerate(s.trophies[player]):
                layout[trophy_spot(player, k + 1)] = card
        return layout

    def lights(self, state: GameState) -> dict[str, str]:
        s = PotionsState.of(state)
        roles: dict[str, str] = {}
        for player in range(SEATS):
            for k in range(len(s.trophies[player])):
                roles[trophy_spot(player, k + 1)] = "trophy"
        if s.phase is Phase.FORGOTTEN:
            roles.update(dict.fromkeys(self._capture_spots(s, s.captures(s.to_move)), "forgotten"))
        elif s.phase is Phase.CAPTURE and s.options["hints"]:
            roles.update(dict.fromkeys(self._capture_spots(s, s.captures(s.to_move)), "hint"))
        return roles

    def alert(self, state: GameState) -> Problem | None:
        s = PotionsState.of(state)
        player = s.player_name(s.to_move)
        if s.phase is Phase.FORGOTTEN:
            captures = s.captures(s.to_move)
            other = s.player_name(1 - s.to_move)
            return Problem(
                f"forgotten capture (MP-3): {player} must make one of "
                + ", ".join(f"{c.monster} with {c.potion_a} and {c.potion_b}" for c in captures)
                + f"; then {other} takes the pile's top card",
                frozenset(self._capture_spots(s, captures)),
                "forgotten",
                {"player": player, "other": other, "captures": [c.id for c in captures]},
            )
        if s.phase is Phase.PLACE:
            (slot, *_) = s.empty_slots(s.to_move)
            if slot > ZONE_SLOTS:
                # FAQ: no limit to a zone. The camera cannot see the card: it must be named.
                return Problem(
                    f"{player}'s zone has no free slot on the table: lay the card beside it "
                    f"and name it (place:CARD:{slot})",
                    key="zone_full",
                    params={"player": player, "slot": slot},
                )
        return None

    def _capture_spots(self, s: PotionsState, captures: Sequence[Capture]) -> set[str]:
        """The table's slots of the captures' cards; a card beside a zone has none to light."""
        player = s.to_move
        slots = set()
        for capture in captures:
            slots.add((1 - player, s.zones[1 - player].index(capture.monster) + 1))
            for potion in (capture.potion_a, capture.potion_b):
                slots.add((player, s.zones[player].index(potion) + 1))
        return {zone_spot(p, slot) for p, slot in slots if slot <= ZONE_SLOTS}

    def board_rows(self) -> list[list[str]]:
        """As the table lays them out: each zone in two rows of ten, its first row nearer the
        middle, between the trophy areas along the edges."""
        half = ZONE_SLOTS // 2

        def zone_row(player: int, first: int) -> list[str]:
            return [zone_spot(player, k) for k in range(first, first + half)]

        return [
            [trophy_spot(1, k) for k in range(1, TROPHY_SLOTS + 1)],
            zone_row(1, half + 1),
            zone_row(1, 1),
            zone_row(0, 1),
            zone_row(0, half + 1),
            [trophy_spot(0, k) for k in range(1, TROPHY_SLOTS + 1)],
        ]

    def spots(self) -> dict[str, str]:
        return {spot: CAMERA for row in self.board_rows() for spot in row}

    def token_names(self, state: GameState) -> dict[str, str]:
        """Each card's monster and potion, as printed on it ("8x5.monster" is "40"): a capture
        is said as a player sees it, "monster 40 with potions 5 and 8" (MP-2), not by the ids
        that would give the product away."""
        names: dict[str, str] = {}
        for card in PotionsState.of(state).cards.values():
            names[f"{card.id}.monster"] = str(card.monster)
            names[f"{card.id}.potion"] = str(card.potion)
        return names

    def dice_wanted(self, state: GameState) -> DiceRequest | None:
        return None

    def dice_actions(self, state: GameState, reading: Sequence[int | str]) -> list[Action]:
        raise IllegalActionError("Multipli Potion uses no dice")

    def to_find(self, state: GameState, action: Action) -> bool:
        """Step 2's captures, unless the hints option shows them: whether one is open is the
        player's to see (a forgotten one, MP-3, is the table's to flag)."""
        s = PotionsState.of(state)
        return isinstance(action, Capture) and s.phase is Phase.CAPTURE and not s.options["hints"]

    def finding(self, state: GameState) -> int:
        """A capture to find is guessed with its three cards: the monster and two potions."""
        s = PotionsState.of(state)
        return 3 if s.phase is Phase.CAPTURE and not s.options["hints"] else 0

    def explain(self, state: GameState, sensed: Layout) -> Problem | None:
        s = PotionsState.of(state)
        if s.phase is Phase.OVER:
            return None
        expected = self.layout(s)
        gone = {spot for spot in expected if spot not in sensed}
        added = sorted(spot for spot, card in sensed.items() if expected.get(spot) != card)
        where = {card: spot for spot, card in expected.items()}
        beside = {
            card: (p, slot)
            for p in range(SEATS)
            for slot, card in s.zone_slots(p)
            if slot > ZONE_SLOTS
        }
        for spot in added:
            card = sensed[spot]
            if card not in s.cards:
                return Problem(
                    f"{spot} shows {card!r}, which is not a card of this deck",
                    frozenset({spot}),
                    "not_a_card",
                    {"spot": spot, "card": card},
                )
            if card in where and sensed.get(where[card]) == card:
                return Problem(
                    f"card {card} cannot lie in {spot}: it is in {where[card]}",
                    frozenset({spot}),
                    "card_elsewhere",
                    {"card": card, "spot": spot, "where": where[card]},
                )
            if card in beside:
                owner, slot = beside[card]
                return Problem(
                    f"card {card} lies beside {s.player_name(owner)}'s zone (slot {slot}), "
                    f"not in {spot}",
                    frozenset({spot}),
                    "card_beside",
                    {"card": card, "owner": s.player_name(owner), "slot": slot, "spot": spot},
                )
            if any(card in pair for pair in s.pile_under):
                return Problem(
                    f"card {card} was spent: it lies under the draw pile, not in {spot}",
                    frozenset({spot}),
                    "card_spent",
                    {"card": card, "spot": spot},
                )
        if s.phase is Phase.DEAL:
            return None
        player = s.to_move
        prefix = f"s{player + 1}."
        strangers = {spot for spot in added if not spot.startswith(prefix)}
        if strangers:
            whose = s.player_name(player)
            return Problem(
                f"it is {whose}'s turn: cards go down only in {whose}'s own zone and trophies",
                frozenset(strangers),
                "not_your_zone",
                {"player": whose},
            )
        if s.phase is Phase.PLACE and gone:
            return Problem(
                f"{s.player_name(player)} places a card first (step 1): put back what was taken",
                frozenset(gone),
                "place_first",
                {"player": s.player_name(player)},
            )
        if s.phase is Phase.PLACE:
            for spot in added:
                lot = s.lot_of(sensed[spot])
                if lot is not None and not lot.held[player]:
                    return _not_in_hand(s, sensed[spot], spot)
        return _capture_problem(s, expected, gone)

    def describe(self, state: GameState) -> JSON:
        """The public facts of the position: the fields of `info.details`, in that order."""
        s = PotionsState.of(state)
        names = [s.player_name(p) for p in range(SEATS)]
        playing = s.phase is not Phase.DEAL and s.phase is not Phase.OVER
        may: list[str] = []
        if s.phase is Phase.PLACE:
            may = ["place"]
        elif s.phase is Phase.CAPTURE:
            # Whether a capture is open is the player's to find, unless the hints say it.
            found = s.captures(s.to_move) or not s.options["hints"]
            may = ["capture", "end_turn"] if found else ["end_turn"]
        elif s.phase is Phase.FORGOTTEN:
            may = ["capture"]
        details: JSON = {
            "turn": len(s.actions()),
            "phase": s.phase.value,
            "to_move": names[s.to_move] if playing else None,
            "may": may,
            "hands": dict(zip(names, s.hands, strict=True)),
            "rewarded": None if s.rewarded is None else names[s.rewarded],
            "pile": s.pile_size,
            "pile_unseen": s.pile_unseen,
            "spent_under_pile": [list(pair) for pair in s.pile_under],
            "spent_drawn": [
                {
                    "cards": sorted(lot.cards),
                    "hands": dict(zip(names, lot.held, strict=True)),
                    "pile": lot.in_pile,
                }
                for lot in s.reached
            ],
            "zones": {
                names[p]: {str(slot): card for slot, card in s.zone_slots(p)} for p in range(SEATS)
            },
            "table_slots": ZONE_SLOTS,
            "trophies": {names[p]: list(t) for p, t in enumerate(s.trophies)},
            "scores": {names[p]: len(t) for p, t in enumerate(s.trophies)},
            "captures_to_win": WINNING_CAPTURES,
            "seen": len(s.seen),
            "deck": len(s.cards),
        }
        forgotten = s.phase is Phase.FORGOTTEN
        hinted = s.phase is Phase.CAPTURE and s.options["hints"]
        open_ids = [c.id for c in s.captures(s.to_move)] if forgotten or hinted else None
        details["forgotten"] = open_ids if forgotten else None
        details["captures"] = open_ids if hinted else None
        details["ended_by"] = s.ended_by or None
        return details

    def result(self, state: GameState) -> JSON | None:
        result = super().result(state)
        if result is None:
            return None
        s = PotionsState.of(state)
        result["scores"] = {s.player_name(p): len(t) for p, t in enumerate(s.trophies)}
        result["ended_by"] = s.ended_by
        return result


def _forgetting_only_costs(s: PotionsState) -> bool:
    """Whether ending the turn with a capture open is never better than making it now (MP-3).
    Forgotten, the capture is made all the same, of the player's choice; the pile's top card
    goes to the opponent, who chooses their next card to lay among one more, and the player
    draws the card below it instead. While those cards are of one lot, which nobody can tell
    apart, that is a card of choice given away for nothing. A search's random playouts make
    nothing of a card of choice, so it must be told. Where the cards that change hands differ
    (the last never-seen card above a spent pair), who gets which may matter: it is weighed."""
    moved = 2 if s.hands[s.to_move] < HAND else 1  # a rewarded player draws nothing
    if s.unseen.in_pile:
        return s.unseen.in_pile >= moved
    if s.reached and s.reached[-1].in_pile:
        return moved == 1  # one card of that lot is left on top, then the next pair
    return True  # the next spent pair (or the capture's own), either way up (Étape 2)


def _not_in_hand(s: PotionsState, card: str, spot: str) -> Problem:
    """Why hidden `card` cannot come from the hand of the player to move: none of its lot is
    there (Étape 2: a spent card comes back only to the hand that draws it)."""
    player, other = s.player_name(s.to_move), s.player_name(1 - s.to_move)
    return Problem(
        f"card {card} cannot be in {player}'s hand: it lies in the pile or in {other}'s hand",
        frozenset({spot}),
        "not_in_hand",
        {"card": card, "player": player, "other": other},
    )


def _capture_problem(s: PotionsState, expected: Layout, gone: set[str]) -> Problem | None:
    """Cards taken off the zones that make no capture: MP-2 names what is wrong."""
    player, at_fault = s.to_move, frozenset(gone)
    mine = sorted(expected[spot] for spot in gone if spot.startswith(f"s{player + 1}.z"))
    theirs = sorted(expected[spot] for spot in gone if spot.startswith(f"s{2 - player}.z"))
    if not gone:
        return None
    if s.phase is Phase.CAPTURE or s.phase is Phase.FORGOTTEN:
        if len(mine) == 2 and len(theirs) == 1:
            a, b = (s.cards[c].potion for c in mine)
            monster = s.cards[theirs[0]].monster
            if a * b != monster:
                return Problem(
                    f"{a} x {b} = {a * b}, not {monster}: put the cards back (MP-2)",
                    at_fault,
                    "wrong_product",
                    {"a": a, "b": b, "product": a * b, "monster": monster},
                )
        elif len(mine) > 2:
            return Problem(
                "exactly two potions make a capture, never more (MP-2)", at_fault, "two_potions"
            )
        elif len(theirs) > 1:
            return Problem("one monster at most is captured a turn (FAQ)", at_fault, "one_monster")
    return None


GAME = PotionsGame()
PotionsState.game = GAME
