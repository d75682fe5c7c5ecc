"""What a linked table sends its spectators (controller/spectators.py), without a broker: the
snapshot when it changes, its page's version aside, built at most twice a second, and sent
again after a reconnection."""

from __future__ import annotations

import json

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
