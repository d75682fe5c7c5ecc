"""The builder's camera tools through the control ops (issue 23): the picture of the simulated
table with its markers drawn, calibration taken from it and saved where the daemon reads it, a
frame with a marker hidden refused with that marker named, and icon dice learned from the
simulated camera."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import fast_sim_config, wait_for
from daemon_run import call, serving
from playwright.sync_api import Page, expect
from web_daemon import dashboard, fetch

from controller import dice_learning
from controller.daemon import Daemon, RunOptions
from vision import icon_model
from vision.calibration import Calibration, detect_markers
from vision.icon_dice import IconModel


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=5)
    with serving(fast_sim_config(), options) as running:
        yield running


def test_the_picture_calibration_and_its_refusals(
    daemon: Daemon, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picture = daemon.camera_view()
    assert picture is not None
    image = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (720, 1280, 3)
    # The profile's markers found, outlined in green; no calibration yet, so no regions.
    green = (image[:, :, 1] > 180) & (image[:, :, 0] < 60) & (image[:, :, 2] < 60)
    assert green.sum() > 500
    state = call(daemon, op="camera_state")
    assert state["source"] == "sim" and state["markers"] == [0, 1, 2, 3]
    assert state["calibration"] is None and state["learning"] is None
    assert "miraculous" in state["learnable"]

    # A game in progress: the builder's tools wait for a pause.
    assert call(daemon, op="calibrate_take")["key"] == "playing"
    assert call(daemon, op="pause")["ok"]

    # A hand over marker 2: refused, naming it.
    frame = daemon.desk.frame

    def covered() -> np.ndarray | None:
        image = frame()
        assert image is not None
        for found in detect_markers(image):
            if found.id == 2:
                cv2.fillConvexPoly(image, found.corners.round().astype(np.int32), (80, 80, 80))
        return image

    monkeypatch.setattr(daemon.desk, "frame", covered)
    refused = call(daemon, op="calibrate_take")
    assert refused["key"] == "markers_missing" and refused["params"]["missing"] == "2"
    assert "marker not found in the frame: 2 (bottom-right" in refused["error"]
    assert call(daemon, op="calibrate_save")["key"] == "calibration_none"
    monkeypatch.undo()

    taken = call(daemon, op="calibrate_take")
    assert taken["ok"] and taken["markers"] == [0, 1, 2, 3]
    assert 0 < taken["error_mm"] < 1.0
    assert call(daemon, op="camera_state")["taken"]["error_mm"] == taken["error_mm"]
    saved = call(daemon, op="calibrate_save")
    assert saved == {"ok": True, "path": str(tmp_path / "calibration.json")}
    # The daemon reads it: the picture now draws the regions through it.
    assert Calibration.load(tmp_path / "calibration.json").error_mm == pytest.approx(
        taken["error_mm"], abs=1e-3
    )
    state = call(daemon, op="camera_state")
    assert state["calibration"]["markers"] == [0, 1, 2, 3] and state["taken"] is None
    assert daemon.desk.calibration() is not None
    picture = daemon.camera_view()
    assert picture is not None
    drawn = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
    # The regions' outlines (orange-blue) and the tray's (yellow) are drawn now.
    blue = (drawn[:, :, 0] > 200) & (drawn[:, :, 1] > 120) & (drawn[:, :, 2] < 60)
    assert blue.sum() > 10 * ((image[:, :, 0] > 200) & (image[:, :, 2] < 60)).sum() + 1000


def test_dice_learned_from_the_simulated_camera(
    daemon: Daemon, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fewer frames, variants and training steps than the table's: the flow is tested here, the
    # learning itself in test_icon_dice.py.
    monkeypatch.setattr(dice_learning, "SHOTS", 3)
    monkeypatch.setattr(dice_learning, "SHOT_S", 0.0)
    monkeypatch.setattr(dice_learning, "VARIANTS", 2)
    monkeypatch.setattr(dice_learning, "FOLDS_SCORED", 2)
    monkeypatch.setattr(icon_model, "STEPS", 150)
    assert call(daemon, op="pause")["ok"]
    # The dice are looked for in the tray: it must be found in the frame first.
    assert call(daemon, op="learn_dice", kind="miraculous")["key"] == "uncalibrated"
    assert call(daemon, op="learn_take")["key"] == "learning_none"
    assert call(daemon, op="calibrate_take")["ok"] and call(daemon, op="calibrate_save")["ok"]

    def learning() -> dict[str, object]:
        state = call(daemon, op="camera_state")["learning"]
        assert isinstance(state, dict)
        return state

    started = call(daemon, op="learn_dice", kind="miraculous")
    assert started["ok"] and started["learning"]["state"] == "ready"
    faces = [step["face"] for step in started["learning"]["steps"]]
    assert faces[0] == "cataclysm" and len(faces) == 6
    # Cancelled, then started again.
    assert call(daemon, op="learn_cancel")["ok"]
    assert call(daemon, op="learn_take")["key"] == "learning_none"
    assert call(daemon, op="learn_dice", kind="miraculous")["ok"]
    # Each face in turn, the first taken twice (a redo); the simulated die shows the face asked.
    for face in [None, "cataclysm", *[None] * 5]:
        taken = call(daemon, op="learn_take", **({} if face is None else {"face": face}))
        assert taken["ok"], taken
        wait_for(lambda: learning()["state"] != "taking", what="the frames of a face")
        assert learning()["error"] is None
    wait_for(lambda: learning()["state"] == "learned", timeout=30, what="the learning")
    state = learning()
    assert all(step["taken"] == 3 for step in state["steps"])  # type: ignore[attr-defined]
    accuracy = state["accuracy"]
    assert isinstance(accuracy, dict) and 0.0 <= accuracy["face"] <= 1.0
    assert accuracy["colour"] is None
    saved = call(daemon, op="learn_save")
    assert saved == {"ok": True, "path": str(tmp_path / "icon-model-miraculous.npz")}
    assert IconModel.load(tmp_path / "icon-model-miraculous.npz").kind == "miraculous"
    assert learning()["state"] == "saved"


def test_calibration_from_a_phone(page: Page, tmp_path: Path) -> None:
    """At phone size: the tools wait for a pause, then a frame taken shows the markers found and
    the error, and once saved the picture is drawn through the calibration."""
    page.set_viewport_size({"width": 390, "height": 844})
    with dashboard(tmp_path, "--seed", "3") as table:
        page.goto(table.page)
        page.click("#tools-open")
        expect(page.locator("#tools-paused")).to_be_visible()
        page.click("#tools-pause")
        page.click("#tools-tab-camera")  # the table test's tab comes first
        expect(page.locator("#tools-camera")).to_contain_text("Simulated camera")
        expect(page.locator("#tools-picture")).to_be_visible()
        expect(page.locator("#calib-help")).to_contain_text("(0, 1, 2, 3)")
        page.click("#calib-take")
        expect(page.locator("#calib-result")).to_contain_text("Markers found: 0, 1, 2, 3. Error")
        save = page.locator("#calib-save")
        expect(save).to_be_visible()
        box = save.bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390
        save.click()
        expect(page.locator("#calib-result")).to_contain_text("Saved")
        expect(page.locator("#tools-camera")).to_contain_text("calibrated: error")
        assert (tmp_path / "calibration.json").exists()
        # The page's own picture, as it asks for it: a JPEG of the camera's size.
        jpeg = fetch(table.url + "api/camera.jpg", headers=table.key)
        assert jpeg.status == 200 and jpeg.body[:2] == b"\xff\xd8"
