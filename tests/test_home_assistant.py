"""Home Assistant's MQTT discovery for a linked table (issue 25), without a broker: the
discovery messages' shape, the state their templates read, what is sent when, and the switch
in `[link]`, off by default."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from controller.config import load_config
from controller.home_assistant import HomeAssistant, discovery, state_of
from controller.rules import get_game
from controller.rules.api import JSON

STATE_TOPIC = "smartboard/kitchen/home_assistant/1-3"


def _snapshot(game_name: str) -> JSON:
    """The fields of the dashboard's snapshot (controller/snapshot.py) that the sensors read,
    for a new game of `game_name`."""
    game = get_game(game_name)
    state = game.new_initial_state({})
    players = [state.player_name(seat) for seat in range(state.num_players)]
    return {
        "title": game.title,
        "players": players,
        "to_move": players[1],
        "turn": 4,
        "details": game.describe(state),
        "result": None,
        "room": {"state": "playing"},
        "log": [],
    }


def _read(template: str, state: JSON) -> Any:
    """What a value template of ours gives for `state` (they are `value_json.KEY[INDEX]`)."""
    found = re.fullmatch(r"\{\{ value_json\.(\w+)(?:\[(\d+)\])? \}\}", template)
    assert found is not None, template
    value = state[found[1]]
    return value if found[2] is None else value[int(found[2])]


def test_the_discovery_messages_announce_one_device_whose_sensors_read_the_state() -> None:
    snapshot = _snapshot("voodoo")
    snapshot["details"]["scores"] = {"mamy_wata": 7, "gran_bwa": 3}
    state = state_of(snapshot)
    assert state == {
        "game": get_game("voodoo").title,
        "turn": "gran_bwa",
        "turn_number": 4,
        "players": ["mamy_wata", "gran_bwa"],
        "scores": [7, 3],
        "table": "playing",
    }
    messages = discovery("kitchen", "1-3", STATE_TOPIC, state["players"])
    topics = [topic for topic, _ in messages]
    node = "homeassistant/sensor/smartboard_kitchen_1_3"
    keys = ("game", "turn", "table", "score_1", "score_2")
    assert topics == [f"{node}/{key}/config" for key in keys]
    read = {}
    for (_, config), key in zip(messages, keys, strict=True):
        assert re.fullmatch(r"[a-z0-9_]+", config["unique_id"])
        assert config["state_topic"] == STATE_TOPIC
        assert config["device"]["identifiers"] == ["smartboard_kitchen_1_3"]
        assert config["name"] and json.loads(json.dumps(config)) == config
        read[key] = _read(config["value_template"], state)
    assert len({config["unique_id"] for _, config in messages}) == len(messages)
    assert read == {
        "game": state["game"],
        "turn": "gran_bwa",
        "table": "playing",
        "score_1": 7,
        "score_2": 3,
    }
    assert messages[3][1]["name"] == "Score mamy_wata"


def test_sensors_are_announced_once_a_game_their_state_sent_on_change() -> None:
    sent: list[tuple[str, bytes]] = []
    sensors = HomeAssistant(
        lambda topic, payload: sent.append((topic, payload)),
        "smartboard/kitchen",
        "kitchen",
        "1-3",
    )
    voodoo = _snapshot("voodoo")
    sensors.offer(voodoo)
    assert [topic.split("/")[3] for topic, _ in sent[:-1]] == [
        "game",
        "turn",
        "table",
        "score_1",
        "score_2",
    ]
    assert sent[-1][0] == STATE_TOPIC and json.loads(sent[-1][1]) == state_of(voodoo)
    sent.clear()
    sensors.offer(voodoo | {"log": ["roll:3"]})  # nothing the sensors read changed
    assert sent == []
    sensors.offer(voodoo | {"to_move": "mamy_wata"})
    assert sent == [(STATE_TOPIC, json.dumps(state_of(voodoo | {"to_move": "mamy_wata"})).encode())]
    sent.clear()
    # A game that keeps no score: its scores' sensors are removed (an empty config).
    sensors.offer(_snapshot("akuma") | {"result": {"winners": ["hawkmoth"]}})
    removed = [topic.split("/")[3] for topic, payload in sent if payload == b""]
    assert removed == ["score_1", "score_2"]
    assert json.loads(sent[-1][1])["turn"] == "over"
    sent.clear()
    sensors.reset()  # after a reconnection: everything again
    sensors.offer(_snapshot("akuma"))
    assert len(sent) == 4


def test_home_assistant_is_off_unless_the_link_section_turns_it_on(tmp_path: Path) -> None:
    assert load_config(None).link_home_assistant is False
    config = tmp_path / "config.toml"
    config.write_text("[link]\nhome_assistant = true\n")
    assert load_config(config).link_home_assistant is True
