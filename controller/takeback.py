"""Taking back moves (issue 24): how far a take-back goes, and what it leaves.

A move taken back is a player's decision with the chance outcomes that followed it (the dice
rolled after it, a card it turned up): the game goes back to just before that decision. The
dice rolled before the decision stay as they fell, unless the players choose to roll again
(`reroll`): then the dice outcomes it was made on are taken back too, and the table waits for a
new roll. Only the deciding seat's own dice are rolled again: a take-back never throws another
player's roll again (Hawk Moth's choice of dice is not made on Ladybug's Miraculous die). A
card turned up before the decision stays up: only dice are thrown again. A card turned up after
it is turned down again with it, as the lights show; it is still the same card lying there,
and the board reads it again when it is turned up. The dice the decision brought (an attack's
rolls) go back with it but stay as they fell too: the same decision made again gets them again,
not a new throw, so that a lost fight is not fought again by taking it back (`fallen`); rolling
again never throws them.

A decision that only ends its player's turn ("End the turn", `Game.turn_enders`) goes
back with the move before it in the same turn: a player taking back after ending the turn means
that move, not the end of the turn alone.

Against the computer, the table's own seats (`skip`) do not count as a stop: a take-back goes
back to the last decision of a person, taking the computer's replies with it, as PicoChess
takes back a whole round.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from controller.rules.api import JSON, Action, Game, GameState

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    """One action as it was played: the seat that decided it (None: chance), whether dice
    told it, for a chance outcome the seat the rules say rolls it (None: they do not say, and
    it is the roll of the seat whose decision it follows), and whether the decision only ended
    its player's turn."""

    player: int | None
    dice: bool
    roller: int | None = None
    ends_turn: bool = False


def step(game: Game, state: GameState, action: Action) -> Step:
    """The step of `action`, about to be applied to `state`."""
    if state.is_chance_node():
        return Step(None, game.dice_wanted(state) is not None, game.roller(state))
    return Step(state.current_player(), False, ends_turn=type(action) in game.turn_enders)


def steps(game: Game, state: GameState) -> list[Step]:
    """The steps of `state`'s history, found by playing it again from the start."""
    walked = game.new_initial_state(state.options)
    found = []
    for action in state.actions():
        found.append(step(game, walked, action))
        walked.apply(action)
    return found


def _last_decision(played: Sequence[Step], index: int) -> int | None:
    """The place of the last decision before step `index`; None if there is none."""
    return next((k for k in range(index - 1, -1, -1) if played[k].player is not None), None)


def _roller(played: Sequence[Step], index: int) -> int | None:
    """Whose roll chance step `index` is: the seat the rules name, else the last seat that
    decided before it (AK-3: the dice thrown are its choice); None before any decision."""
    if played[index].roller is not None:
        return played[index].roller
    before = _last_decision(played, index)
    return None if before is None else played[before].player


@dataclass(frozen=True)
class TakeBack:
    """What a take-back leaves: the first `keep` actions, the next being the decision of seat
    `player` taken back; rolling again also takes back the last `rolled` of those, the dice
    outcomes the decision was made on. The `fallen` dice outcomes that followed the decision
    are kept as they fell, for the same decision made again."""

    keep: int
    rolled: int
    player: int
    fallen: int = 0

    def kept(self, reroll: bool) -> int:
        return self.keep - self.rolled if reroll else self.keep


def plan(played: Sequence[Step], skip: Collection[int] = ()) -> TakeBack | None:
    """The take-back of the last decision of a seat not in `skip`; None if there is none (only
    the set-up's chance outcomes so far, or only the table's own moves)."""
    last = next(
        (
            index
            for index in range(len(played) - 1, -1, -1)
            if played[index].player is not None and played[index].player not in skip
        ),
        None,
    )
    if last is None:
        return None
    player = played[last].player
    assert player is not None
    if played[last].ends_turn:
        before = _last_decision(played, last)
        if before is not None and played[before].player == player and not played[before].ends_turn:
            last = before  # the move of the turn ended
    first = last
    while (
        first > 0
        and played[first - 1].player is None
        and played[first - 1].dice
        and _roller(played, first - 1) in (None, player)
    ):
        first -= 1
    after = last + 1
    while after < len(played) and played[after].player is None and played[after].dice:
        after += 1
    return TakeBack(last, last - first, player, after - last - 1)


def kept_dice(state: GameState, taken: TakeBack) -> JSON | None:
    """What a take-back of `taken` keeps, for the journal (`Journal.dice_kept`): the dice the
    decision brought, as they fell, with the decision and its place in the game's line; None if
    it brought none. Rolling again throws the player's own dice the move was made on, never
    those it brought (another player's defence roll): a lost fight is not fought again."""
    decision, *fallen = state.actions()[taken.keep : taken.keep + 1 + taken.fallen]
    if not fallen:
        return None
    dice = [a.to_json() for a in fallen]
    return {"at": taken.keep, "decision": decision.to_json(), "dice": dice}


def dice_as_fallen(game: Game, state: GameState, kept: Sequence[JSON]) -> list[Action]:
    """For `state`, just after a decision: the dice it had brought before it was taken back
    there (the last of `kept`, the journal's, that says so), as many as the rules still take;
    given again whatever was tried between (the walk: another move taken back, and the fight
    fought afresh)."""
    played = state.actions()
    if not played:
        return []
    at, decision = len(played) - 1, played[-1]
    dice: list[Action] = []
    for record in kept:
        try:
            if int(record["at"]) == at and game.action_from_json(record["decision"]) == decision:
                dice = [game.action_from_json(outcome) for outcome in record["dice"]]
        # A record this version cannot read loses only the dice kept, not the game.
        except (KeyError, TypeError, ValueError) as error:  # HistoryError is a ValueError
            log.warning("dice kept from a take-back not read (%r): %s", record, error)
    given: list[Action] = []
    trial = state.clone()
    for outcome in dice:
        if not trial.is_chance_node() or outcome not in dict(trial.chance_outcomes()):
            break
        trial.apply(outcome)
        given.append(outcome)
    return given
