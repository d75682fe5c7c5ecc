"""The marker sheet (vision/marker_sheet.py) and `smartboard markers`: the PDF read back."""

from __future__ import annotations

import re
import tomllib
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from profiles import akuma_without_table

from controller.cli import main
from controller.rules.voodoo import GAME as VOODOO
from hardware.profile import BoardProfile, builtin_profile_path, load_profile, parse_profile
from vision.calibration import detect_markers
from vision.marker_sheet import DPI, MarkerSheetError, write_marker_sheet

IMAGE = re.compile(rb"/Width (\d+) /Height (\d+) .*?/Length (\d+) >>\nstream\n")


def read_pdf(path: Path) -> list[np.ndarray]:
    """The grey pages of a PDF written by the marker sheet, checking its cross-references."""
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4\n") and data.endswith(b"%%EOF\n")
    xref = int(re.search(rb"startxref\n(\d+)\n", data)[1])  # type: ignore[index]
    assert data[xref:].startswith(b"xref\n")
    count = int(re.match(rb"xref\n0 (\d+)\n", data[xref:])[1])  # type: ignore[index]
    entries = data[xref:].split(b"\n")[3 : 2 + count]
    for number, entry in enumerate(entries, 1):
        offset = int(entry[:10])
        assert data[offset:].startswith(b"%d 0 obj\n" % number)
    pages = []
    for match in IMAGE.finditer(data):
        width, height, length = map(int, match.groups())
        stream = data[match.end() : match.end() + length]
        assert data[match.end() + length :].startswith(b"\nendstream")
        pixels = np.frombuffer(zlib.decompress(stream), np.uint8)
        pages.append(pixels.reshape(height, width))
    page_count = int(re.search(rb"/Type /Pages /Kids \[[^]]*\] /Count (\d+)", data)[1])  # type: ignore[index]
    assert page_count == len(pages) == data.count(b"/Type /Page ")
    return pages


@pytest.fixture(scope="module")
def voodoo() -> BoardProfile:
    return load_profile(builtin_profile_path("voodoo"), VOODOO.spots())


def profile_with_markers(markers: list[dict[str, Any]]) -> BoardProfile:
    data = tomllib.loads(builtin_profile_path("voodoo").read_text())
    data["markers"] = markers
    return parse_profile(data, VOODOO.spots(), "test.toml")


def test_the_default_markers_fit_one_page_at_true_size(
    voodoo: BoardProfile, tmp_path: Path
) -> None:
    path = tmp_path / "sheet.pdf"
    assert write_marker_sheet(voodoo, path) == 1
    [page] = read_pdf(path)
    assert page.shape == (3507, 2480)  # A4 at 300 dpi
    found = {d.id: d for d in detect_markers(page)}
    assert sorted(found) == [0, 1, 2, 3]
    side = 40 * DPI / 25.4  # 40 mm markers
    for detection in found.values():
        edges = np.linalg.norm(np.roll(detection.corners, 1, axis=0) - detection.corners, axis=1)
        assert np.abs(edges - side).max() < 2.0  # within 0.2 mm


def test_a_page_has_a_scale_bar(voodoo: BoardProfile, tmp_path: Path) -> None:
    path = tmp_path / "sheet.pdf"
    write_marker_sheet(voodoo, path)
    [page] = read_pdf(path)
    # The bar's thickest row: 100 mm of black, centred on the page.
    dark = (page < 128).sum(axis=1)
    bottom = dark[page.shape[0] * 3 // 4 :]
    row = int(np.argmax(bottom)) + page.shape[0] * 3 // 4
    columns = np.flatnonzero(page[row] < 128)
    length_mm = (columns.max() - columns.min()) * 25.4 / DPI
    assert abs(length_mm - 100) < 0.5


def test_large_markers_take_a_page_each(tmp_path: Path) -> None:
    centres = [[-100, 0], [-100, 200], [-100, 400], [500, 0], [500, 200]]
    markers = [{"id": i + 10, "center_mm": c, "size_mm": 120} for i, c in enumerate(centres)]
    path = tmp_path / "sheet.pdf"
    assert write_marker_sheet(profile_with_markers(markers), path) == 5
    pages = read_pdf(path)
    assert [[d.id for d in detect_markers(page)] for page in pages] == [
        [10],
        [11],
        [12],
        [13],
        [14],
    ]


def test_a_marker_larger_than_a_page_is_refused(tmp_path: Path) -> None:
    markers = [
        {"id": 1, "center_mm": [-100, 0], "size_mm": 190},
        {"id": 2, "center_mm": [500, 0]},
        {"id": 3, "center_mm": [500, 400]},
    ]
    with pytest.raises(MarkerSheetError, match=r"marker 1 is 190 mm: .* more than an A4 page's"):
        write_marker_sheet(profile_with_markers(markers), tmp_path / "sheet.pdf")


# `smartboard markers`, in process.


def test_cli_markers_writes_the_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sheet.pdf"
    assert main(["markers", "--game", "voodoo", "--out", str(path)]) == 0
    assert f"wrote 4 markers on 1 page to {path}" in capsys.readouterr().out
    assert len(read_pdf(path)) == 1


def test_cli_markers_profile_errors_exit_78(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sheet.pdf"
    no_table = akuma_without_table(tmp_path)
    assert main(["markers", "--profile", str(no_table), "--out", str(path)]) == 78
    assert "places no markers" in capsys.readouterr().err
    assert main(["markers", "--profile", str(tmp_path / "none.toml"), "--out", str(path)]) == 78
    assert "cannot read board profile" in capsys.readouterr().err
    assert not path.exists()


def test_cli_markers_unwritable_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "no" / "sheet.pdf"
    assert main(["markers", "--game", "voodoo", "--out", str(path)]) == 1
    assert f"cannot write {path}: No such file or directory" in capsys.readouterr().err
    # The builder's walk: `--out m.png` wrote a PDF under a picture's name.
    picture = tmp_path / "m.png"
    assert main(["markers", "--game", "voodoo", "--out", str(picture)]) == 2
    assert "the sheet is a PDF, name a .pdf file" in capsys.readouterr().err
    assert not picture.exists()


def test_cli_help_names_the_camera_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    usage = capsys.readouterr().out
    assert "markers" in usage and "calibrate" in usage
    with pytest.raises(SystemExit):
        main(["markers", "--help"])
    assert "(actual size)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        main(["markers", "--game", "voodoo"])  # no --out
    assert caught.value.code == 2
