"""What a player meets around hints and take-backs (issue 24): hints switched on or off during a
game, journalled so that a restart keeps them; the hint's other moves lit when tapped; the log
marking where moves were taken back, on the page, in `smartboard status` and in a replay.
Dice Race (tests/dice_race.py) keeps the games short."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from conftest import RunOptionsMaker, fast_sim_config, wait_for
from daemon_run import call, serving

from controller.cli import main
from controller.journal import Journal, JournalError, Record, read_journal
from controller.rules.api import Game

SHOWN = {"shown_from", "shown_to", "shown_take", "shown_swap"}


def test_the_journal_keeps_the_last_hints_switch_and_where_moves_were_taken_back(
    race: Game, tmp_path: Path
) -> None:
    journal = Journal(tmp_path)
    journal.start("dice_race", {"goal": 8})
    journal.append_actions([{"type": "Roll", "value": 4}])
    journal.append_hints(False)
    record, _ = read_journal(journal.path)
    assert record.hints is False  # an old journal, with no switch, keeps its first record's
    journal.append_hints(True)
    assert read_journal(journal.path)[0].hints is True
    journal.close()
    bad = tmp_path / "bad.jsonl"
    good = journal.path.read_text().splitlines()[:2]
    bad.write_text("\n".join([*good, _line({"hints": "no"})]) + "\n")
    with pytest.raises(JournalError, match="switches hints to 'no'"):
        read_journal(bad)

    roll = {"action": {"type": "Roll", "value": 4}}
    advance = {"action": {"type": "Advance", "steps": 4}}
    entries = [roll, advance, roll, advance, {"take_back": 2}]
    two = {"at": 2, "count": 2, "moves": ["roll:4", "advance:4"]}
    assert Record("dice_race", {}, entries).take_backs().to_json(race) == [two]
    # Taken back again from that point or before it: one mark, with every move taken back,
    # those taken back before first.
    entries += [{"action": {"type": "Roll", "value": 6}}, advance, {"take_back": 3}]
    five = {"at": 1, "count": 5, "moves": ["roll:4", "advance:4", "advance:4", "roll:6"]}
    five["moves"] += ["advance:4"]
    assert Record("dice_race", {}, entries).take_backs().to_json(race) == [five]
    # A mark past the line's end goes: a misread roll retracted; the others stay.
    entries += [advance, roll, {"take_back": 1}, roll, roll, {"take_back": 1}]
    assert len(Record("dice_race", {}, entries).take_backs().marks) == 3
    entries += [{"retract": 1}, roll]
    marks = Record("dice_race", {}, entries).take_backs()
    one = {"at": 2, "count": 1, "moves": ["roll:4"]}
    assert marks.to_json(race) == [five, one]
    assert marks.to_json(race, upto=1) == [five] and len(marks.line) == 3


def _line(body: dict[str, object]) -> str:
    """A journal record as the journal writes one."""
    text = json.dumps(body, separators=(",", ":"), sort_keys=True)
    return f'{{"crc":{zlib.crc32(text.encode())},"body":{text}}}'


def test_hints_switched_during_a_game_and_the_taken_back_marks_across_a_restart(
    race: Game, run_options: RunOptionsMaker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = fast_sim_config(game=race.name)
    state_dir = ["--state-dir", str(tmp_path)]
    with serving(config, run_options(seed=3, names=("Ana",))) as daemon:
        assert main(["hints", "off", *state_dir]) == 0
        assert capsys.readouterr().out == "hints are now off for this game\n"
        assert call(daemon, op="roll", values=[4])["ok"]
        assert call(daemon, op="hint")["key"] == "hints_off"
        assert call(daemon, op="hints", hints="off")["key"] == "hints_already_off"
        assert "error" in call(daemon, op="hints", hints="maybe")
        assert call(daemon, op="snapshot")["hints"] is False
        # Red's move taken back: the log marks it, the status says it.
        assert call(daemon, op="act", id="advance:4")["ok"]
        assert call(daemon, op="undo")["taken_back"] == ["advance:4"]
        mark = {"at": 1, "count": 1, "moves": ["advance:4"]}
        assert call(daemon, op="status")["taken_back"] == [mark]
    capsys.readouterr()
    assert main(["status", *state_dir]) == 0  # no daemon: from the journal
    said = capsys.readouterr().out
    # Red by the name chosen for it, and its move taken back.
    assert said.startswith("Dice Race, turn 1, 1 actions; to move: Ana\n")
    assert "  \u21b6 1 move taken back after move 1: advance: 4\n" in said
    with serving(config, run_options(seed=3)) as daemon:
        snap = call(daemon, op="snapshot")
        assert snap["hints"] is False and snap["taken_back"] == [mark]
        assert call(daemon, op="hints", hints="on")["hints"] is True
        assert call(daemon, op="snapshot")["hints"] is True
        for step in ("advance:4", "roll:6", "advance:6", "roll:3", "advance:3"):
            kind, _, value = step.partition(":")
            reply = call(daemon, op="act", id=step) if kind == "advance" else None
            reply = reply or call(daemon, op="roll", values=[int(value)])
            assert reply["ok"], reply
        assert call(daemon, op="snapshot")["result"] is not None
        assert call(daemon, op="hints", hints="off")["key"] == "hints_over"
        # The game kept, replayed: the mark shows from the move it follows.
        assert call(daemon, op="new", computer=["1", "2"])["ok"]
        (past,) = call(daemon, op="games")["games"]
        step = call(daemon, op="replay", id=past["id"], step="1")
        assert step["snapshot"]["taken_back"] == [mark]
        assert call(daemon, op="replay", id=past["id"], step="0")["snapshot"]["taken_back"] == []
        # A game the table plays alone: nobody to give hints to.
        assert call(daemon, op="hints", hints="off")["ok"]
        assert call(daemon, op="hints", hints="on")["key"] == "hints_nobody"
    assert Journal(tmp_path).read().hints is False


def test_a_hints_other_move_is_lit_when_asked_and_hints_off_puts_out_the_hint(
    race: Game, run_options: RunOptionsMaker
) -> None:
    config = fast_sim_config(game=race.name)
    with serving(config, run_options(seed=3, think_s=0.3)) as daemon:
        assert call(daemon, op="roll", values=[4])["ok"]
        assert call(daemon, op="hint", id="advance:1")["key"] == "hint_none"
        call(daemon, op="hint")
        wait_for(lambda: not call(daemon, op="hint")["pending"], what="the hint")
        hint = call(daemon, op="hint")["hint"]
        assert hint["lit"] == hint["best"]
        other = next(c["id"] for c in hint["choices"] if c["id"] != hint["best"])

        def lit() -> dict[str, str]:
            spots = call(daemon, op="snapshot")["spots"]
            return {s: spot["role"] for s, spot in spots.items() if spot["role"] in SHOWN}

        best_lights = lit()
        assert best_lights["1.red"] == "shown_from"
        reply = call(daemon, op="hint", id=other)
        assert reply["ok"] and reply["hint"]["lit"] == other
        steps = int(other.split(":")[1])
        assert lit() == {"1.red": "shown_from", f"{1 + steps}.red": "shown_to"} != best_lights
        note = call(daemon, op="snapshot")["note"]
        # Not the best: said so, lest the player take it for the advice (the walk).
        assert note["key"] == "hint_other" and note["actions"] == [other]
        rank = [c["id"] for c in hint["choices"]].index(other) + 1
        assert note["rank"] == rank and rank > 1
        refused = call(daemon, op="hint", id="advance:9")
        assert refused["key"] == "hint_not_listed"
        assert call(daemon, op="hint")["hint"]["lit"] == other
        assert call(daemon, op="hints", hints="off")["ok"]
        snap = call(daemon, op="snapshot")
        assert snap["hint"] is None and lit() == {}
        # Nor does the hint's message stay, naming a move no longer lit.
        assert snap["note"] == {"key": "hints_switched_off"}
