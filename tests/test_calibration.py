"""Camera calibration (vision/calibration.py) and `smartboard calibrate`, on synthetic frames.

A frame is drawn in table coordinates (the board's cells, the markers on white paper around
it), then seen through a known perspective with blur and noise, as a camera would see it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import cv2
import numpy as np
import pytest
from profiles import akuma_without_table

from controller.cli import main
from controller.rules.akuma import GAME as AKUMA
from controller.rules.voodoo import GAME as VOODOO
from hardware.profile import (
    MARKER_IDS,
    BoardProfile,
    ProfileError,
    builtin_profile_path,
    load_profile,
)
from vision.calibration import (
    Calibration,
    CalibrationError,
    Detection,
    annotate,
    calibrate,
    detect_markers,
    marker_dictionary,
    profile_markers,
)

PX_PER_MM = 2.0
ORIGIN_MM = -70.0  # the drawing's top-left corner on the table: room for the markers
FRAME_SIZE = (1280, 960)
# Where the drawing's corners land in the frame: a camera above the table, a little tilted.
FRAME_CORNERS = np.float32([[180, 90], [1100, 140], [1230, 900], [60, 860]])


@pytest.fixture(scope="module")
def profile() -> BoardProfile:
    return load_profile(builtin_profile_path("voodoo"), VOODOO.spots())


def table_to_drawing() -> np.ndarray:
    # Pixel centres sit at whole coordinates: pixel i covers [i - 0.5, i + 0.5).
    shift = -ORIGIN_MM * PX_PER_MM - 0.5
    return np.array([[PX_PER_MM, 0, shift], [0, PX_PER_MM, shift], [0, 0, 1]])


def drawing_size(profile: BoardProfile) -> int:
    assert profile.table_size_mm is not None
    return int((max(profile.table_size_mm) - 2 * ORIGIN_MM) * PX_PER_MM)


def table_to_frame(profile: BoardProfile) -> np.ndarray:
    """The true homography from table millimetres to frame pixels."""
    size = drawing_size(profile)
    square = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    return np.asarray(cv2.getPerspectiveTransform(square, FRAME_CORNERS)) @ table_to_drawing()


def render_frame(
    profile: BoardProfile,
    printed: Mapping[int, int] | None = None,
    turned: int | None = None,
    covered: int | None = None,
) -> np.ndarray:
    """The table as the camera sees it. `printed` swaps the id drawn at a marker's place;
    `turned` lays one marker a quarter turn round; `covered` hides one under a hand."""
    size = drawing_size(profile)
    drawing = np.full((size, size, 3), (90, 120, 150), np.uint8)  # the table's wood

    def px(x: float, y: float) -> tuple[int, int]:
        u, v, _ = table_to_drawing() @ (x, y, 1.0)
        return round(u), round(v)

    assert profile.table_size_mm is not None
    cv2.rectangle(drawing, px(0, 0), px(*profile.table_size_mm), (200, 220, 230), -1)
    for x, y, w, h in profile.camera_regions().values():
        cv2.rectangle(drawing, px(x + 2, y + 2), px(x + w - 2, y + h - 2), (60, 80, 140), 2)
    for marker in profile.markers:
        (left, top), _, (right, bottom), _ = marker.corners_mm()
        cv2.rectangle(drawing, px(left - 5, top - 5), px(right + 5, bottom + 5), (255,) * 3, -1)
        marker_id = (printed or {}).get(marker.id, marker.id)
        side = round(marker.size_mm * PX_PER_MM)
        image = cv2.aruco.generateImageMarker(marker_dictionary(), marker_id, side)
        if marker.id == turned:
            image = np.rot90(image).copy()
        if marker.id == covered:
            image[:] = 150
        u, v = px(left, top)
        drawing[v : v + side, u : u + side] = image[..., None]
    square = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    view = cv2.getPerspectiveTransform(square, FRAME_CORNERS)
    frame = cv2.warpPerspective(drawing, view, FRAME_SIZE, borderValue=(40, 40, 40))
    frame = cv2.GaussianBlur(frame, (5, 5), 1.0)
    noise = np.random.default_rng(1).normal(0, 6, frame.shape)
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def frame(profile: BoardProfile) -> np.ndarray:
    return render_frame(profile)


@pytest.fixture(scope="module")
def calibration(profile: BoardProfile, frame: np.ndarray) -> Calibration:
    return calibrate(detect_markers(frame), profile, FRAME_SIZE)


def calibration_error(profile: BoardProfile, frame: np.ndarray) -> str:
    with pytest.raises(CalibrationError) as caught:
        calibrate(detect_markers(frame), profile, FRAME_SIZE)
    return str(caught.value)


def test_the_dictionary_holds_the_ids_profiles_may_use() -> None:
    assert len(marker_dictionary().bytesList) == MARKER_IDS


def test_every_marker_is_found(profile: BoardProfile, frame: np.ndarray) -> None:
    assert sorted(d.id for d in detect_markers(frame)) == [0, 1, 2, 3]
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert sorted(d.id for d in detect_markers(grey)) == [0, 1, 2, 3]


def test_table_points_map_back_within_2_mm(profile: BoardProfile, calibration: Calibration) -> None:
    rng = np.random.default_rng(7)
    table = rng.uniform(0, 400, (50, 2))
    truth = cv2.perspectiveTransform(table.reshape(-1, 1, 2), table_to_frame(profile))
    pixels = truth.reshape(-1, 2)
    assert np.abs(calibration.to_table(pixels) - table).max() < 2.0
    assert np.abs(calibration.to_pixels(table) - pixels).max() < 2.0 * PX_PER_MM
    assert np.allclose(calibration.to_table(calibration.to_pixels(table)), table)
    assert calibration.error_mm < 1.0
    assert calibration.marker_ids == (0, 1, 2, 3)
    assert calibration.profile == "Baron Voodoo, 7x7 board"
    assert calibration.image_size == FRAME_SIZE


def test_regions_become_pixel_polygons(profile: BoardProfile, calibration: Calibration) -> None:
    region = profile.camera_regions()["r6c6"]  # [325, 325, 50, 50]
    polygon = calibration.region_polygon(region)
    x, y, w, h = region
    corners = np.array([[x, y, 1], [x + w, y, 1], [x + w, y + h, 1], [x, y + h, 1]]).T
    truth = table_to_frame(profile) @ corners
    assert np.abs(polygon - (truth[:2] / truth[2]).T).max() < 2.0 * PX_PER_MM


def test_a_covered_marker_is_named_with_its_place(profile: BoardProfile) -> None:
    message = calibration_error(profile, render_frame(profile, covered=2))
    assert "marker not found in the frame: 2 (bottom-right, centre at [430, 430] mm)" in message
    assert "seen instead" not in message


def test_every_missing_marker_is_named_and_strangers_too(profile: BoardProfile) -> None:
    message = calibration_error(profile, render_frame(profile, printed={0: 9}, covered=3))
    assert "markers not found in the frame: 0 (top-left, centre at [-30, -30] mm); 3 (" in message
    assert "seen instead: 9, not in this profile" in message


def test_a_marker_seen_twice(profile: BoardProfile) -> None:
    message = calibration_error(profile, render_frame(profile, printed={3: 1}))
    assert "marker 1 seen more than once" in message


def test_a_turned_marker_is_named(profile: BoardProfile) -> None:
    message = calibration_error(profile, render_frame(profile, turned=1))
    assert "marker 1 is 40 mm from where the profile puts it (top-right" in message
    assert "turned or moved" in message


def test_a_profile_without_markers_cannot_calibrate(tmp_path: Path) -> None:
    akuma = load_profile(akuma_without_table(tmp_path), AKUMA.spots())
    with pytest.raises(ProfileError, match="places no markers"):
        profile_markers(akuma)
    with pytest.raises(ProfileError, match="places no markers"):
        calibrate([], akuma, FRAME_SIZE)


def test_calibration_round_trips_through_json(calibration: Calibration, tmp_path: Path) -> None:
    path = tmp_path / "state" / "calibration.json"
    calibration.save(path)
    assert Calibration.load(path) == calibration
    data = json.loads(path.read_text())
    assert set(data) == {"profile", "image_size", "homography", "marker_ids", "error_mm"}
    assert data["image_size"] == [1280, 960] and data["marker_ids"] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "is not valid JSON"),
        ("{}", "is malformed: KeyError('homography')"),
        ('{"homography": [[1, 0], [0, 1]], "image_size": [1, 1]}', "3 x 3 finite numbers"),
    ],
)
def test_a_bad_calibration_file_is_named(tmp_path: Path, text: str, reason: str) -> None:
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(CalibrationError, match=f"calibration {path}") as caught:
        Calibration.load(path)
    assert reason in str(caught.value)
    with pytest.raises(CalibrationError, match="cannot read calibration"):
        Calibration.load(tmp_path / "missing.json")


def test_annotated_frame_draws_regions_and_markers(
    profile: BoardProfile, frame: np.ndarray, calibration: Calibration
) -> None:
    found = detect_markers(frame)
    image = annotate(frame, found, profile, calibration)
    assert image.shape == frame.shape and not np.array_equal(image, frame)
    changed = np.any(image != frame, axis=2)
    for polygon in (
        calibration.region_polygon(profile.camera_regions()["r3c3"]),
        found[0].corners,
    ):
        x, y = polygon[0].round().astype(int)  # a corner, where the outline passes
        assert changed[y - 2 : y + 3, x - 2 : x + 3].any()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert annotate(grey, [], profile, None).shape == frame.shape  # markers missing: no regions


# `smartboard calibrate`, in process.


@pytest.fixture(scope="module")
def frame_file(frame: np.ndarray, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("frames") / "frame.png"
    cv2.imwrite(str(path), frame)
    return path


CAMERA = f"[camera]\nwidth = {FRAME_SIZE[0]}\nheight = {FRAME_SIZE[1]}\n"
"""A table whose camera gives these tests' frames (the built-in config's: 1280x720)."""


@pytest.fixture(scope="module")
def camera(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`--config` of a table whose camera gives frames of FRAME_SIZE."""
    path = tmp_path_factory.mktemp("config") / "camera.toml"
    path.write_text(CAMERA, encoding="utf-8")
    return ["--config", str(path)]


def test_cli_calibrate_saves_and_annotates(
    frame_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], camera: list[str]
) -> None:
    out, annotated = tmp_path / "cal.json", tmp_path / "seen.png"
    args = ["--image", str(frame_file), "--out", str(out), "--annotated", str(annotated), *camera]
    assert main(["calibrate", "--game", "voodoo", *args]) == 0
    printed = capsys.readouterr().out
    assert "calibrated Baron Voodoo, 7x7 board from markers 0, 1, 2, 3: error" in printed
    assert str(out) in printed and str(annotated) in printed
    assert Calibration.load(out).marker_ids == (0, 1, 2, 3)
    image = cv2.imread(str(annotated))
    assert image is not None and image.shape == (960, 1280, 3)


def test_cli_calibrate_saves_where_the_table_reads_it(
    frame_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, camera: list[str]
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert main(["calibrate", "--game", "voodoo", "--image", str(frame_file), *camera]) == 0
    assert Calibration.load(tmp_path / "state" / "calibration.json").profile.startswith("Baron")
    # The builder's walk: a table run with --state-dir reads its calibration there.
    table = tmp_path / "table"
    args = ["--game", "voodoo", "--image", str(frame_file), "--state-dir", str(table)]
    assert main(["calibrate", *args, *camera]) == 0
    assert Calibration.load(table / "calibration.json").profile.startswith("Baron")
    # And where the config names a file, there.
    named = tmp_path / "named.json"
    config = tmp_path / "table.toml"
    config.write_text(f'{CAMERA}calibration = "{named}"\n', encoding="utf-8")
    assert main(["calibrate", *args, "--config", str(config)]) == 0
    assert Calibration.load(named).profile.startswith("Baron")


def test_cli_calibrate_with_a_profile_file(
    frame_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], camera: list[str]
) -> None:
    profile = tmp_path / "mine.toml"
    profile.write_text(builtin_profile_path("voodoo").read_text().replace("7x7 board", "mine"))
    out = tmp_path / "cal.json"
    args = ["--profile", str(profile), "--image", str(frame_file), "--out", str(out)]
    assert main(["calibrate", *args, *camera]) == 0
    assert Calibration.load(out).profile == "Baron Voodoo, mine"


def test_cli_calibrate_names_the_missing_marker(
    profile: BoardProfile, tmp_path: Path, capsys: pytest.CaptureFixture[str], camera: list[str]
) -> None:
    path, out, annotated = tmp_path / "hand.png", tmp_path / "cal.json", tmp_path / "seen.jpg"
    cv2.imwrite(str(path), render_frame(profile, covered=0))
    args = ["--image", str(path), "--out", str(out), "--annotated", str(annotated), *camera]
    assert main(["calibrate", "--game", "voodoo", *args]) == 1
    error = capsys.readouterr().err
    assert "smartboard: marker not found in the frame: 0 (top-left" in error
    assert not out.exists()
    assert annotated.exists()  # to see what the camera saw


def test_cli_calibrate_refuses_a_frame_the_tables_camera_would_not_give(
    frame_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The builder's walk: `rpicam-still -o frame.jpg` takes the sensor's full size; the
    calibration saved from it then stopped the table's start ("calibrate again")."""
    out = tmp_path / "cal.json"
    args = ["--game", "voodoo", "--image", str(frame_file), "--out", str(out)]
    assert main(["calibrate", *args]) == 2
    said = capsys.readouterr().err
    assert "is 1280x960, but the table's camera gives 1280x720 frames" in said
    assert "`rpicam-still --width 1280 --height 720 -o frame.jpg`" in said
    assert not out.exists()


@pytest.mark.parametrize(("content", "reason"), [(None, "No such file"), (b"", "not an image")])
def test_cli_calibrate_unreadable_image(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None, reason: str
) -> None:
    path = tmp_path / "frame.png"
    if content is not None:
        path.write_bytes(content)
    assert main(["calibrate", "--game", "voodoo", "--image", str(path)]) == 1
    assert f"smartboard: cannot read {path}: {reason}" in capsys.readouterr().err


def test_cli_calibrate_profile_errors_exit_78(
    frame_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_table = akuma_without_table(tmp_path)
    assert main(["calibrate", "--profile", str(no_table), "--image", str(frame_file)]) == 78
    assert "places no markers" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "voodoo"\n[leds]\ncount = 0\n')
    assert main(["calibrate", "--profile", str(bad), "--image", str(frame_file)]) == 78
    # Every problem is listed, each with its line: the count, and the spots it lacks.
    assert f"board profile {bad}: 2 problems: line 3: [leds] count" in capsys.readouterr().err
    bad.write_text('game = "chess"\n')
    assert main(["calibrate", "--profile", str(bad), "--image", str(frame_file)]) == 78
    assert "unknown game 'chess'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["calibrate", "--game", "voodoo"],  # no --image
        ["calibrate", "--image", "f.png", "--game", "voodoo", "--profile", "p.toml"],
        ["calibrate", "--image", "f.png", "--game", "chess"],
    ],
)
def test_cli_calibrate_usage_errors_exit_2(args: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(args)
    assert caught.value.code == 2


def test_cli_calibrate_refuses_an_annotated_file_of_unknown_type(
    frame_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--image", str(frame_file), "--annotated", "seen.gif"]
    assert main(["calibrate", "--game", "voodoo", *args]) == 2
    assert "name a .png or .jpg" in capsys.readouterr().err


def test_detection_corners_are_clockwise_from_the_top_left() -> None:
    page = np.full((300, 300), 255, np.uint8)
    page[90:210, 90:210] = cv2.aruco.generateImageMarker(marker_dictionary(), 4, 120)
    [found] = detect_markers(page)
    assert isinstance(found, Detection) and found.id == 4
    assert np.abs(found.corners - [[90, 90], [209, 90], [209, 209], [90, 209]]).max() < 1.0
