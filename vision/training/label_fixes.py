"""The labels of the shared dice photos, with the project's corrections applied.

`label_fixes.toml` lists dice labelled wrong in ../shared/data/dice, dice in plain view that
the labels leave out, and labelled dice that are not in the photo; ../shared stays as it is.
Everything that reads those labels to learn or to score (dataset.py, heldout.py,
benchmarks/dice.py) reads them through here.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path
from typing import Any

FIXES = Path(__file__).with_name("label_fixes.toml")
SUFFIXES = (".jpg", ".jpeg", ".png")


@functools.cache
def _listed() -> dict[str, list[dict[str, Any]]]:
    with FIXES.open("rb") as handle:
        return tomllib.load(handle)


@functools.cache
def _fixes() -> dict[tuple[str, str], dict[int, tuple[int, int]]]:
    """(folder, photo) -> {line: (label, truth)}."""
    fixes: dict[tuple[str, str], dict[int, tuple[int, int]]] = {}
    for fix in _listed()["fix"]:
        key = (str(fix["folder"]), str(fix["photo"]))
        fixes.setdefault(key, {})[int(fix["line"])] = (int(fix["label"]), int(fix["truth"]))
    return fixes


@functools.cache
def _dice(kind: str) -> dict[tuple[str, str], list[str]]:
    """(folder, photo) -> the label lines listed as `kind`: "missing", dice the labels leave
    out, or "absent", labelled dice that are not in the photo."""
    listed: dict[tuple[str, str], list[str]] = {}
    for die in _listed().get(kind, []):
        key = (str(die["folder"]), str(die["photo"]))
        listed.setdefault(key, []).append(str(die["die"]))
    return listed


def label_text(label: Path) -> str:
    """The text of a label file (`ROOT/labels/PHOTO.txt`), mended where the fixes say; a
    ValueError if a fix no longer matches the file."""
    text = label.read_text(encoding="utf-8")
    key = (label.parent.parent.name, label.stem)
    fixes, missing = _fixes().get(key, {}), _dice("missing").get(key, [])
    absent = _dice("absent").get(key, [])
    if not fixes and not missing and not absent:
        return text
    lines = text.splitlines()
    for number, (wrong, truth) in fixes.items():
        fields = lines[number - 1].split() if number <= len(lines) else []
        if fields and fields[0] == str(truth):
            continue  # mended already (a copy made by `mended`)
        if not fields or fields[0] != str(wrong):
            raise ValueError(f"{label}: line {number} is not labelled {wrong} ({FIXES} is stale)")
        lines[number - 1] = " ".join([str(truth), *fields[1:]])
    lines += [die for die in missing if die not in lines]  # not twice in a mended copy
    # Dice that are not there go last, so that the fixes' line numbers stay those of the file.
    lines = [line for line in lines if line not in absent]
    return "\n".join(lines) + "\n"


def mended(data: Path, work: Path) -> Path:
    """A copy of the labelled folder `data` under `work` for tools that read a folder
    (../shared/tools/dice_eval.py): its images linked, its labels mended."""
    out = work / data.name
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for image in (data / "images").iterdir():
        if image.suffix.lower() not in SUFFIXES:
            continue
        link = out / "images" / image.name
        if not link.is_symlink():
            link.symlink_to(image.resolve())
        label = data / "labels" / f"{image.stem}.txt"
        if label.exists():
            (out / "labels" / label.name).write_text(label_text(label), encoding="utf-8")
    return out
