"""What a linked table sends its spectators (controller/spectators.py), without a broker: the
snapshot when it changes, its page's version aside, built at most twice a second, and sent
again after a reconnection; never the cards a player holds."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import fast_sim_config, options_in
from daemon_run import call, serving

from controller.journal import Journal
from controller.rules import get_game
from controller.spectators import MIN_INTERVAL_S, Spectators

TOPIC = "smartboard/kitchen/snapshot/1"


def test_the_snapshot_is_sent_when_it_changes_at_most_twice_a_second() -> None:
    sent: list[tuple[str, bytes]] = []
    spectators = Spectators(lambda topic, payload: sent.append((topic, payload)), TOPIC)
    assert spectators.due(100.0)
    spectators.offer({"version": 1, "log": []}, 100.0)
    assert sent == [(TOPIC, b'{"log":[]}')]
    assert not spectators.due(100.0 + MIN_INTERVAL_S / 2)
    later = 100.0 + MIN_INTERVAL_S
    assert spectators.due(later)
    spectators.offer({"version": 2, "log": []}, later)  # only the page's version changed
    assert len(sent) == 1 and not spectators.due(later + MIN_INTERVAL_S / 2)
    spectators.offer({"version": 3, "log": ["roll:3"]}, later + MIN_INTERVAL_S)
    assert json.loads(sent[-1][1]) == {"log": ["roll:3"]}
    spectators.reset()  # the broker may have lost it: sent again
    spectators.offer({"version": 4, "log": ["roll:3"]}, later + 2 * MIN_INTERVAL_S)
    assert len(sent) == 3


def test_a_spectator_is_not_shown_the_cards_a_player_holds(tmp_path: Path) -> None:
    """On a table that knows its players' hands (the simulated one, a page-only seat), the
    page's decisions are the cards the player to move holds: kept from the spectators' copy,
    which the other tables' account may read too, with the hint made from them."""
    game = get_game("potions")
    journal = Journal(tmp_path)
    journal.start(game.name, game.new_initial_state({}).options)
    for card in ("2x9", "7x9"):  # the two cards turned face up; then each player has a hand
        journal.append_action({"type": "Deal", "player": int(card == "7x9"), "card": card})
    with serving(fast_sim_config(game="potions"), options_in(tmp_path)) as daemon:
        snapshot = call(daemon, op="snapshot")
        assert daemon.hands is not None and daemon.hands.hidden is not None
        hand = daemon.hands.hidden.hands[daemon.session.state.current_player()]  # type: ignore[attr-defined]
        placed = {action["id"].split(":")[1] for action in snapshot["actions"]}
        assert placed == hand  # the page is offered the cards in hand, and only those
        sent: list[bytes] = []
        Spectators(lambda topic, payload: sent.append(payload), TOPIC).offer(snapshot, 0.0)
        shown = json.loads(sent[0])
        assert "actions" not in shown and "hint" not in shown
        assert shown["log"] == snapshot["log"] and shown["spots"] == snapshot["spots"]
        assert not any(f'"{card}"' in sent[0].decode() for card in hand)
