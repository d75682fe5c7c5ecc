"""The d6 reader on real photos (tests/data/dice), its regions, and `smartboard dice read`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from dice_photos import load, photos, read_right

from controller.cli import main
from vision.dice_reader import MODELS, PIPS, DiceReader, draw_dice, view_of
from vision.dice_tray import INPUT_SIZE, SIZE_SCALE, STRIDE, TrayReader
from vision.image_files import read_image

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


@pytest.mark.parametrize("photo", photos("nell") + photos("matteo"), ids=lambda p: p.stem)
def test_every_die_of_a_real_photo_is_read(reader: DiceReader, photo: Path) -> None:
    image, truth = load(photo)
    dice = reader.read(image)
    assert read_right(dice, truth), (dice, truth)
    assert all(0 <= die.confidence <= 1 for die in dice)
    assert [d.box[0] for d in dice] == sorted(d.box[0] for d in dice)  # left to right


def test_square_photos_are_top_views_and_others_oblique() -> None:
    assert view_of(np.zeros((640, 640, 3), np.uint8)) == "top"
    assert view_of(np.zeros((480, 640, 3), np.uint8)) == "oblique"


def test_a_region_reads_only_its_dice_in_frame_pixels(reader: DiceReader) -> None:
    image, truth = load(photos("nell")[2])
    assert len(truth) == 2
    everything = reader.read(image)
    one = truth[0]
    x, y, w, h = one.box
    left, top, right, bottom = x - w / 2, y - h / 2, x + 1.5 * w, y + 1.5 * h
    region = [(left, top), (right, top), (right, bottom), (left, bottom)]
    dice = reader.read(image, region)
    assert read_right(dice, [one])
    # The same die, its box in the whole frame's pixels (a box left in the crop's pixels would be
    # hundreds of pixels off; the detector sizes a die a few pixels apart in the two contexts).
    assert any(
        die.value == dice[0].value
        and all(abs(a - b) <= 0.15 * w for a, b in zip(die.box, dice[0].box, strict=True))
        for die in everything
    )
    assert reader.read(image, [(-50, -50), (-10, -50), (-10, -10), (-50, -10)]) == []


def test_the_wrong_kind_of_picture_is_refused_clearly(reader: DiceReader) -> None:
    with pytest.raises(ValueError, match="a BGR picture is needed"):
        reader.read(np.zeros((480, 640), np.uint8))
    with pytest.raises(ValueError, match="dice view must be one of"):
        DiceReader("sideways")


def test_an_empty_tray_has_no_dice(reader: DiceReader) -> None:
    tray = np.full((640, 640, 3), (200, 205, 210), np.uint8)
    assert reader.read(tray) == []
    assert reader.read(np.zeros((4, 4, 3), np.uint8)) == []  # a picture too small for a die
    desk = np.full((480, 640, 3), (60, 110, 170), np.uint8)
    assert reader.read(desk) == []


def test_overlay_draws_each_die(reader: DiceReader) -> None:
    image, _ = load(photos("nell")[0])
    dice = reader.read(image)
    drawn = draw_dice(image, dice, 0.8)
    assert drawn.shape == image.shape
    x, y, w, _ = dice[0].box
    assert (drawn[y, x : x + w] != image[y, x : x + w]).any()  # the box's top edge


def test_cli_reads_every_image_as_one_json_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    images = photos("nell")[:2] + photos("matteo")[:1]
    overlay = tmp_path / "overlay"
    assert main(["dice", "read", "--json", "--overlay", str(overlay), *map(str, images)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["image"] for line in lines] == [str(p) for p in images]
    for line, photo in zip(lines, images, strict=True):
        _, truth = load(photo)
        assert sorted(d["value"] for d in line["dice"]) == sorted(t.value for t in truth)
        for die in line["dice"]:
            assert set(die) == {"value", "box", "confidence"} and len(die["box"]) == 4
        assert read_image(overlay / photo.name).shape == read_image(photo).shape


def test_cli_names_an_unreadable_image_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a jpeg")
    good = photos("nell")[2]
    assert main(["dice", "read", str(junk), str(tmp_path / "none.jpg"), str(good)]) == 1
    out = capsys.readouterr()
    assert f"cannot read {junk}: not an image that OpenCV reads" in out.err
    assert "none.jpg: No such file or directory" in out.err
    assert out.out.startswith(f"{good}: 2 dice: ")


def test_cli_will_not_draw_over_the_photos(tmp_path: Path) -> None:
    photo = tmp_path / "roll.jpg"
    photo.write_bytes(photos("nell")[0].read_bytes())
    assert main(["dice", "read", "--overlay", str(tmp_path), str(photo)]) == 2
    assert photo.read_bytes() == photos("nell")[0].read_bytes()


def test_dice_read_as_a_command() -> None:
    photo = photos("matteo")[0]
    done = subprocess.run(
        [sys.executable, "-m", "controller", "dice", "read", "--json", str(photo)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["image"] == str(photo)


def test_a_grey_photo_reads_like_its_colour_one(reader: DiceReader) -> None:
    """The camera may be set to give grey frames: they are read the same once made BGR."""
    image, truth = load(photos("matteo")[0])
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert read_right(reader.read(grey), truth)


def test_cli_refuses_a_bad_config_and_takes_the_view_from_a_good_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[dice]\nview = "sideways"\n')
    photo = str(photos("nell")[0])
    assert main(["dice", "read", "--config", str(bad), photo]) == 78
    assert "dice.view must be one of" in capsys.readouterr().err
    oblique = tmp_path / "oblique.toml"
    oblique.write_text('[dice]\nview = "oblique"\n')
    # The tray photo read as an oblique view: another reader, so other boxes.
    assert main(["dice", "read", "--json", "--config", str(oblique), photo]) == 0
    as_oblique = json.loads(capsys.readouterr().out)
    assert main(["dice", "read", "--json", photo]) == 0
    assert json.loads(capsys.readouterr().out) != as_oblique


def test_a_peak_is_centred_on_its_cells_even_at_the_map_edge() -> None:
    tray = TrayReader(MODELS / "dice_detector.onnx", PIPS)
    cells = INPUT_SIZE // STRIDE
    out = np.zeros((3, cells, cells), np.float32)
    out[1:] = 2.0  # every box 2 * SIZE_SCALE input pixels a side
    heat = out[0]
    heat[0, 0], heat[0, 1] = 0.9, 0.3  # a die in the corner, its centre pulled right
    heat[10, 10], heat[11, 10] = 0.6, 0.6  # one across two cells: the first found stays
    heat[40, 60] = 0.8  # in the letterbox padding of a picture 200 px wide
    scale = 0.5
    peaks = tray._peaks(out, scale, width=200, height=400)
    assert [p.score for p in peaks] == pytest.approx([0.9, 0.6])
    corner, middle = peaks
    assert corner.cx == pytest.approx((0.25 + 0.5) * STRIDE / scale)
    assert corner.cy == pytest.approx(0.5 * STRIDE / scale)
    assert (middle.cx, middle.cy) == pytest.approx((10.5 * STRIDE / scale, 11 * STRIDE / scale))
    assert corner.w == corner.h == pytest.approx(2 * SIZE_SCALE / scale)
