"""Helpers shared by the Mightymania tests: positions written compactly, scripted duels, and
the invariants that the rules and the hidden cards keep.

A row is written as 4 words, column 1 first: a card id face up ("T1"), "v" a face-down card,
"." an empty position. The default decks are the Titans (T1 Leader, T2..T4) for player_1 and the
Rogues (R1 Leader, R2..R4) for player_2.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from controller.rules.api import Action, GameState
from controller.rules.mightymania import (
    DECK_SIZE,
    DOWN,
    GAME,
    MAX_ROUNDS,
    POS,
    Attack,
    Lay,
    LayPower,
    MightymaniaHidden,
    MightymaniaState,
    NoDefence,
    Phase,
    Reveal,
    RevealPower,
    Rounds,
    StartRoll,
)

P1, P2 = 0, 1


def new_state(options: dict[str, Any] | None = None) -> MightymaniaState:
    state = GAME.new_initial_state(options)
    assert isinstance(state, MightymaniaState)
    return state


def play(state: GameState, actions: Iterable[Action]) -> None:
    for action in actions:
        state.apply(action)


def lays() -> list[Action]:
    """Rule 1: every position filled face down, player_1's row first."""
    return [Lay(p, col) for p in (P1, P2) for col in range(1, 5)]


def first_rolls(first: int) -> list[Action]:
    """Rule 2: start rolls that make `first` the first attacker."""
    return [StartRoll(6), StartRoll(1)] if first == P1 else [StartRoll(1), StartRoll(6)]


def started(first: int = P1, options: dict[str, Any] | None = None) -> MightymaniaState:
    """A game just set up: all cards face down, `first` to attack."""
    state = new_state(options)
    play(state, [*lays(), *first_rolls(first)])
    assert state.phase is Phase.ATTACK
    return state


def arrange(
    row1: str,
    row2: str,
    attacker: int = P1,
    removed: Sequence[str] = (),
    lives: dict[str, int] | None = None,
) -> MightymaniaState:
    """A position of play before an attack (its moves first, MM-7), fields set directly.

    Face-down cards are the player's cards neither shown face up nor `removed`.
    """
    state = started(attacker)
    for p, text in enumerate((row1, row2)):
        words = text.split()
        assert len(words) == 4, text
        state.rows[p] = [None if w == "." else DOWN if w == "v" else w for w in words]
    state.removed = list(removed)
    state.up = {w for row in state.rows for w in row if w not in (None, DOWN)} | set(removed)
    state.lives.update(dict.fromkeys(removed, 0))
    state.lives.update(lives or {})
    state.movers = [p for p in (1 - attacker, attacker) if None in state.rows[p]]
    state.phase = Phase.MOVE if state.movers else Phase.ATTACK
    problems = consistency_problems(state)
    assert not problems, problems
    return state


def attack(state: MightymaniaState, source: int, target: int, *cards: str) -> None:
    """The attack, and each face-down fighter turned up as `cards`, attacker's first (rule 6).

    A defence asked for before a card still to turn up is declined (MM-5: the defender decides
    before the attacked card shows); one asked for after the last card is left to the caller.
    """
    state.apply(Attack(source, target))
    for card in cards:
        if state.phase is Phase.DEFEND:
            state.apply(NoDefence())
        assert state.phase is Phase.REVEAL
        player, col = state.reveals[0]
        state.apply(Reveal(player, col + 1, card))


def duel(state: MightymaniaState, attacker_powers: str, defender_powers: str) -> None:
    """From the rounds roll: the powers each side lays, revealed round by round (rules 7-9)."""
    mine, theirs = attacker_powers.split(), defender_powers.split()
    assert len(mine) == len(theirs)
    state.apply(Rounds(len(mine)))
    a, d = state.attacker, state.defender
    play(state, [LayPower(a, k + 1) for k in range(len(mine))])
    play(state, [LayPower(d, k + 1) for k in range(len(mine))])
    for k, (ours, others) in enumerate(zip(mine, theirs, strict=True)):
        play(state, [RevealPower(a, k + 1, ours), RevealPower(d, k + 1, others)])


def snapshot(state: MightymaniaState) -> dict[str, Any]:
    """Everything the rules keep, for comparing states."""
    facts = dict(GAME.describe(state))
    facts["layout"] = GAME.layout(state)
    facts["fields"] = (
        [list(row) for row in state.rows],
        dict(state.lives),
        sorted(state.up),
        state.movers,
        state.reveals,
        state.guard,
        state.defence_asked,
        state.leaving,
        state.winner,
    )
    facts["player"] = state.current_player()
    facts["history"] = state.history()
    facts["legal"] = [a.id for a in state.legal_actions()]
    return facts


def consistency_problems(state: MightymaniaState) -> list[str]:
    """What breaks the invariants of the public state (MM-1, MM-4, MM-6, rule 6); cheap, since
    the random games check it after every action."""
    problems: list[str] = []
    layout = GAME.layout(state)
    data, up, removed = state.data, state.up, state.removed
    set_up = state.phase is not Phase.SETUP
    for p in (P1, P2):
        shown = [layout.get(spot) for spot in POS[p]]
        face_up = [t for t in shown if t is not None and t != DOWN]
        down = shown.count(DOWN)
        if state.guard is not None and p == state.defender:
            # The Leader beneath the card defending it, as it lay (rule 5, MM-5).
            if state.rows[p][state.target] == DOWN:
                down += 1
            else:
                face_up.append(data.leaders[p])
        gone = [c for c in removed if data.owner[c] == p and c not in face_up]
        # Every card in exactly one place: a position (a defending card on its Leader), or
        # removed; at set-up, some still in hand. Face-up cards are revealed ones, and the
        # face-down ones all the others (rule 6).
        placed = len(face_up) + down + len(gone)
        if (
            len(set(face_up)) != len(face_up)
            or not up.issuperset(face_up)
            or any(data.owner[c] != p for c in face_up)
            or placed > DECK_SIZE
            or (set_up and (placed != DECK_SIZE or down != len(state.unrevealed(p))))
        ):
            problems.append(f"{p}: cards misplaced: {shown}, removed {gone}, up {sorted(up)}")
        # MM-4: at most the rolled rounds' power cards, each power once a duel.
        laid = state.powers[p]
        named = [power for power in laid if power != DOWN]
        if len(laid) > state.rounds or state.rounds > MAX_ROUNDS or len(set(named)) != len(named):
            problems.append(f"{p}: power cards {laid} for {state.rounds} rounds")
    # MM-1, MM-6: lives within 0..the card's; lost by revealed cards only; 0 once removed.
    cards = data.cards
    problems += [
        f"{c}: {n} of {cards[c].lives} lives, revealed {c in up}, removed {c in removed}"
        for c, n in state.lives.items()
        if not 0 <= n <= cards[c].lives
        or (n < cards[c].lives and c not in up)
        or (n == 0) != (c in removed)
    ]
    if state.guard is not None and not state.is_leader(state.defender, state.target):
        problems.append("a defending card on a card that is not the Leader")
    # MM-5: a Leader whose place a defence showed lies face down there, and is unrevealed.
    for p in (P1, P2):
        known = state.leader_down[p]
        if known is not None and (state.rows[p][known] != DOWN or data.leaders[p] in up):
            problems.append(f"{p}: Leader known face down in column {known + 1}: {state.rows[p]}")
    return problems


def hidden_problems(state: MightymaniaState, hidden: MightymaniaHidden) -> list[str]:
    """Where the secret cards disagree with the table: every face-down card has a real card that
    is still unseen, no card twice, and every face-down power card an unshown power."""
    problems = []
    for p in (P1, P2):
        row, secret, hand = state.rows[p], hidden.down[p], hidden.hand[p]
        held = {*secret.values(), *hand}
        if (
            len(secret) != row.count(DOWN)
            or any(row[i] != DOWN for i in secret)
            or len(held) != len(secret) + len(hand)
            or held != set(state.unrevealed(p))
        ):
            problems.append(f"{p}: secret cards {secret}, hand {hand} for the row {row}")
        known = state.leader_down[p]
        if known is not None and secret.get(known) != state.data.leaders[p]:
            problems.append(f"{p}: the Leader is known in column {known + 1}, secrets {secret}")
        powers, laid = state.powers[p], hidden.laid[p]
        if (
            len(laid) != powers.count(DOWN)
            or any(powers[k] != DOWN for k in laid)
            or len(set(laid.values())) != len(laid)
            or not set(powers).isdisjoint(laid.values())
        ):
            problems.append(f"{p}: secret powers {laid} for the power cards {powers}")
    return problems
