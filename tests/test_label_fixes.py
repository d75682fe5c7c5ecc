"""The labels of the shared dice photos that the project mends (issue 22): each fix changes the
one die it names, a copy of a folder carries them, and a fix that no longer fits is refused."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from vision.training.label_fixes import FIXES, label_text, mended

DICE = Path(__file__).resolve().parents[2] / "shared" / "data" / "dice"
LISTED = tomllib.loads(FIXES.read_text(encoding="utf-8"))["fix"]


@pytest.mark.parametrize("fix", LISTED, ids=[fix["photo"] for fix in LISTED])
def test_each_fix_changes_only_the_value_of_its_die(fix: dict[str, object]) -> None:
    label = DICE / str(fix["folder"]) / "labels" / f"{fix['photo']}.txt"
    before = label.read_text(encoding="utf-8").splitlines()
    after = label_text(label).splitlines()[: len(before)]  # a die left out may follow
    line = int(str(fix["line"])) - 1
    assert before[line].split()[0] == str(fix["label"])
    assert after[line].split() == [str(fix["truth"]), *before[line].split()[1:]]
    assert after[:line] + after[line + 1 :] == before[:line] + before[line + 1 :]
    assert fix["why"]


def test_a_mended_copy_links_the_images_and_mends_the_labels(tmp_path: Path) -> None:
    data = tmp_path / "nell"
    (data / "images").mkdir(parents=True)
    (data / "labels").mkdir()
    (data / "images" / "IMG_20191209_100722.jpg").write_bytes(b"jpeg")
    shared = DICE / "nell" / "labels" / "IMG_20191209_100722.txt"
    (data / "labels" / shared.name).write_text(shared.read_text(encoding="utf-8"), "utf-8")
    copy = mended(data, tmp_path / "work")
    assert (copy / "images" / "IMG_20191209_100722.jpg").resolve().read_bytes() == b"jpeg"
    fixed = (copy / "labels" / shared.name).read_text(encoding="utf-8").splitlines()
    assert fixed[4].split()[0] == "5"  # the cocked die, labelled 6
    assert label_text(copy / "labels" / shared.name) == "\n".join(fixed) + "\n"  # not twice
    # A label file that changed under the fix: refused, never applied to another die.
    (data / "labels" / shared.name).write_text("3 0.5 0.5 0.1 0.1\n", "utf-8")
    with pytest.raises(ValueError, match="line 5 is not labelled 6"):
        label_text(data / "labels" / shared.name)


@pytest.mark.parametrize("kind", ["missing", "absent"])
def test_a_die_left_out_is_added_and_one_not_there_taken_out_once(
    kind: str, tmp_path: Path
) -> None:
    """ "missing": a die in plain view the labels leave out, added after them; "absent": a
    labelled die the photo does not show (matteo_train_0050: one five, and a one on bare wood),
    taken out. A mended copy is not mended twice."""
    listed = tomllib.loads(FIXES.read_text(encoding="utf-8"))[kind]
    for die in listed:
        label = DICE / die["folder"] / "labels" / f"{die['photo']}.txt"
        before = label.read_text(encoding="utf-8").splitlines()
        after = label_text(label).splitlines()
        if kind == "missing":
            # (a fix may change a value of the same photo: only the count and the last line)
            assert len(after) == len(before) + 1 and after[-1] == die["die"]
        else:
            assert die["die"] in before and after == [line for line in before if line != die["die"]]
        assert die["why"]
    copy = mended(DICE / listed[0]["folder"], tmp_path)
    kept = copy / "labels" / f"{listed[0]['photo']}.txt"
    assert label_text(kept) == kept.read_text(encoding="utf-8")
