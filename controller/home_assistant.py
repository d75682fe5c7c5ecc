"""Home Assistant's MQTT discovery for a linked table (issue 25), off unless `[link]
home_assistant = true`: sensors for the game, whose turn it is, each seat's score and the
table's state in its room, announced retained under `homeassistant/sensor/NODE/KEY/config`
and fed from one small retained state message that the table sends with its spectators'
snapshot (controller/spectators.py). Built from the snapshot alone, so no game is named here."""

from __future__ import annotations

import json
from collections.abc import Callable

from controller.rules.api import JSON

PREFIX = "homeassistant"
"""Home Assistant's default discovery prefix."""

Publish = Callable[[str, bytes], None]
"""Sends a retained message: its topic and payload."""


def node_id(room: str, seated: str) -> str:
    """This table's device in Home Assistant: its room and seats (`1-3`), ids of [A-Za-z0-9_]."""
    return f"smartboard_{room}_{seated}".replace("-", "_")


def state_of(snapshot: JSON) -> JSON:
    """What the sensors read, from the dashboard's snapshot: the game's title, whose turn it is
    (or `over`), the turn's number, each seat's score where the game keeps one (None where it
    does not), and the table's state in its room."""
    players = list(snapshot.get("players") or [])
    details = snapshot.get("details") or {}
    scores = details.get("scores") if isinstance(details, dict) else None
    room = snapshot.get("room") or {}
    return {
        "game": snapshot.get("title"),
        "turn": "over" if snapshot.get("result") is not None else snapshot.get("to_move"),
        "turn_number": snapshot.get("turn"),
        "players": players,
        "scores": [scores.get(player) if isinstance(scores, dict) else None for player in players],
        "table": room.get("state") if isinstance(room, dict) else None,
    }


def discovery(
    room: str, seated: str, state_topic: str, scored: list[str]
) -> list[tuple[str, JSON]]:
    """The discovery messages of a table's sensors, as (topic, config): one a sensor, all on
    one device, reading `state_topic` (see `state_of`) with a value template each; a score
    sensor for each of the `scored` seats."""
    node = node_id(room, seated)
    device = {
        "identifiers": [node],
        "name": f"Smartboard {room} (seats {seated})",
        "manufacturer": "smartboard",
        "model": "games table",
    }
    sensors = [
        ("game", "Game", "{{ value_json.game }}", "mdi:dice-multiple"),
        ("turn", "Turn", "{{ value_json.turn }}", "mdi:account-arrow-right"),
        ("table", "Table", "{{ value_json.table }}", "mdi:lan-connect"),
    ]
    for index, player in enumerate(scored):
        template = f"{{{{ value_json.scores[{index}] }}}}"
        sensors.append((f"score_{index + 1}", f"Score {player}", template, "mdi:trophy"))
    messages: list[tuple[str, JSON]] = []
    for key, name, template, icon in sensors:
        config = {
            "name": name,
            "unique_id": f"{node}_{key}",
            "object_id": f"{node}_{key}",
            "state_topic": state_topic,
            "value_template": template,
            "icon": icon,
            "device": device,
        }
        if key == "turn":
            config["json_attributes_topic"] = state_topic
            config["json_attributes_template"] = "{{ {'turn': value_json.turn_number} | tojson }}"
        messages.append((f"{PREFIX}/sensor/{node}/{key}/config", config))
    return messages


class HomeAssistant:
    """Announces this table's sensors (again when the game's seats change) and sends their
    state when it changes."""

    def __init__(self, publish: Publish, root: str, room: str, seated: str) -> None:
        self._publish = publish
        self.room, self.seated = room, seated
        self.state_topic = f"{root}/home_assistant/{seated}"
        self._announced: list[str] | None = None
        self._last: JSON | None = None

    def offer(self, snapshot: JSON) -> None:
        state = state_of(snapshot)
        # A score a seat, for a game that keeps scores.
        scored = [] if all(score is None for score in state["scores"]) else state["players"]
        if scored != self._announced:
            node = node_id(self.room, self.seated)
            for gone in range(len(scored), len(self._announced or [])):
                # An empty config removes the sensor of a seat the game no longer has.
                self._publish(f"{PREFIX}/sensor/{node}/score_{gone + 1}/config", b"")
            for topic, config in discovery(self.room, self.seated, self.state_topic, scored):
                self._publish(topic, json.dumps(config).encode())
            self._announced = scored
        if state != self._last:
            self._publish(self.state_topic, json.dumps(state).encode())
            self._last = state

    def reset(self) -> None:
        """After a reconnection: everything sent again."""
        self._announced = self._last = None
