"""Are the dice fair (issue 22)? Rolls journalled with how they came, counted per die and tested."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import fast_sim_config, options_in
from daemon_run import call, serving

from controller.cli import main
from controller.dice_stats import chi_square_sf, tallies
from controller.journal import Journal


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        (11.0705, 5, 0.05),  # the textbook table's critical values
        (15.0863, 5, 0.01),
        (3.84146, 1, 0.05),
        (9.21034, 2, 0.01),
        (0.5, 5, 0.99212),
        (19.6751, 11, 0.05),  # a d12
        (0.0, 5, 1.0),
    ],
)
def test_chi_square_p_values_match_the_tables(statistic: float, df: int, p: float) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(p, abs=2e-5)


def played(folder: Path, game: str, *rolls: dict[str, object]) -> None:
    """A journal of `game` holding `rolls` (with no moves: the tally reads only the rolls)."""
    journal = Journal(folder)
    journal.start(game, {})
    for roll in rolls:
        journal.append_actions([], dice=roll)
    journal.close()


def d6(values: list[int], source: str = "read") -> dict[str, object]:
    return {"kind": "d6", "values": values, "source": source}


def test_fair_loaded_and_too_few_rolls_are_told_apart(tmp_path: Path) -> None:
    rng = random.Random(3)
    fair = [rng.randint(1, 6) for _ in range(300)]
    loaded = [6 if rng.random() < 0.3 else rng.randint(1, 6) for _ in range(300)]
    played(tmp_path / "fair", "akuma", *(d6(fair[i : i + 2]) for i in range(0, 300, 2)))
    played(tmp_path / "loaded", "akuma", *(d6([v], "typed") for v in loaded))
    played(tmp_path / "few", "akuma", d6([1, 2, 3, 4, 5, 6]))
    (fair_tally,) = tallies(tmp_path / "fair")
    assert (fair_tally.rolls, fair_tally.verdict()["key"], fair_tally.verdict()["warn"]) == (
        300,
        "fair",
        False,
    )
    assert fair_tally.verdict()["text"].startswith("the d6: no sign of bias after 300 rolls")
    (loaded_tally,) = tallies(tmp_path / "loaded")
    verdict = loaded_tally.verdict()
    assert verdict["warn"] and verdict["params"]["face"] == "6"
    assert verdict["text"].startswith("the d6 shows 6 too often: p < 0.001 over 300 rolls")
    (few,) = tallies(tmp_path / "few")
    assert few.verdict()["text"] == "the d6: 6 rolls, too few to tell (at least 30 needed)"


def test_software_rolls_are_left_out_corrections_replace_and_kept_games_count(
    tmp_path: Path,
) -> None:
    played(tmp_path, "akuma", d6([6, 6]), d6([1], "virtual"))
    journal = Journal(tmp_path)
    journal.start("voodoo", {})  # the akuma game is kept beside the new one
    soul = {"kind": "soul", "source": "read"}
    journal.append_actions([{"type": "Roll"}], dice=soul | {"values": ["red:steal"]})
    # Misread: its move is retracted and the right roll recorded in its place.
    right = soul | {"values": ["blue:steal"], "source": "corrected"}
    journal.append_actions([{"type": "Roll"}], retract=1, dice=right)
    journal.close()
    found = {(t.game, t.kind, t.die): t for t in tallies(tmp_path)}
    assert set(found) == {("akuma", "d6", None), ("voodoo", "soul", "blue")}
    assert found[("akuma", "d6", None)].counts == (0, 0, 0, 0, 0, 2)  # not the software's 1
    blue = found[("voodoo", "soul", "blue")]
    assert blue.rolls == 1 and blue.counts[blue.faces.index("steal")] == 1
    assert blue.verdict()["text"].startswith("the blue soul: 1 roll, too few to tell")


def test_the_daemon_journals_how_each_roll_came_and_the_cli_tells(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with serving(fast_sim_config(), options_in(tmp_path, game="akuma")) as daemon:
        assert call(daemon, op="act", id="choose_dice:2")["ok"]
        assert call(daemon, op="roll", values=[3, 5])["ok"]  # typed by a player
        assert call(daemon, op="correct", values=[3, 6])["ok"]  # that roll was misread
    journal = Journal(tmp_path).read()
    assert [e["dice"]["source"] for e in journal.entries if "dice" in e] == ["typed", "corrected"]
    (tally,) = tallies(tmp_path)
    assert dict(zip(tally.faces, tally.counts, strict=True)) == {
        "1": 0, "2": 0, "3": 1, "4": 0, "5": 0, "6": 1,
    }  # fmt: skip
    assert main(["dice", "stats", "--state-dir", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "akuma: the d6: 2 rolls, too few to tell (at least 30 needed)" in shown
    assert "3: 1  4: 0  5: 0  6: 1" in shown
    assert main(["dice", "stats", "--state-dir", str(tmp_path), "--json"]) == 0
    (listed,) = json.loads(capsys.readouterr().out)
    assert (listed["rolls"], listed["verdict"]["key"]) == (2, "too_few")
