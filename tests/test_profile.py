"""Board profiles (hardware/profile.py): the built-in Akuma profile and every validation error."""

from __future__ import annotations

import copy
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.rules import GAMES
from controller.rules.akuma import GAME
from controller.rules.api import UNSENSED
from hardware.profile import (
    BoardProfile,
    Channel,
    Link,
    Marker,
    ProfileError,
    Region,
    builtin_profile_path,
    load_profile,
    parse_profile,
)

PIECES = ("hawkmoth", "ladybug", "trap", "shellter", "akuma")
SQUARES = [str(square) for square in range(1, 10)]
SOURCE = "test.toml"


@pytest.fixture(scope="module")
def akuma_data() -> dict[str, Any]:
    with builtin_profile_path("akuma").open("rb") as handle:
        return tomllib.load(handle)


@pytest.fixture
def data(akuma_data: dict[str, Any]) -> dict[str, Any]:
    """A fresh, mutable copy of the built-in profile's TOML data."""
    return copy.deepcopy(akuma_data)


@pytest.fixture(scope="module")
def builtin() -> BoardProfile:
    return load_profile(builtin_profile_path("akuma"), GAME.spots())


def spot_entry(data: dict[str, Any], spot_id: str) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [e for e in data["spots"] if e["id"] == spot_id]
    assert len(entries) == 1, spot_id
    return entries[0]


def parse(data: dict[str, Any]) -> BoardProfile:
    return parse_profile(data, GAME.spots(), SOURCE)


def parse_error(data: dict[str, Any]) -> str:
    with pytest.raises(ProfileError) as caught:
        parse(data)
    message = str(caught.value)
    assert SOURCE in message, message
    return message


# The built-in profile.


def test_builtin_profile_loads_with_its_header(builtin: BoardProfile) -> None:
    assert builtin.game == "akuma"
    assert builtin.name == "Capture the Akuma, 3x3 board"
    assert builtin.led_count == 63
    assert builtin.pull_up is True
    assert builtin.source == str(builtin_profile_path("akuma"))


def test_builtin_profile_covers_exactly_the_games_spots(builtin: BoardProfile) -> None:
    expected = set(SQUARES) | {f"{sq}.{piece}" for sq in SQUARES for piece in PIECES}
    assert set(GAME.spots()) == expected
    assert set(builtin.spots) == expected
    assert len(builtin.spots) == 9 * 6


@pytest.mark.parametrize("square", SQUARES)
@pytest.mark.parametrize("piece", PIECES)
def test_every_piece_spot_has_a_reed_and_one_led(
    builtin: BoardProfile, square: str, piece: str
) -> None:
    spot = builtin.spots[f"{square}.{piece}"]
    assert spot.id == f"{square}.{piece}"
    assert isinstance(spot.reed, Channel)
    assert len(spot.leds) == 1
    assert 0 <= spot.leds[0] < builtin.led_count


@pytest.mark.parametrize("square", SQUARES)
def test_every_square_has_card_leds_and_no_reed(builtin: BoardProfile, square: str) -> None:
    spot = builtin.spots[square]
    assert spot.reed is None
    assert len(spot.leds) == 2
    assert all(0 <= index < builtin.led_count for index in spot.leds)


def test_builtin_reeds_and_leds_are_all_distinct(builtin: BoardProfile) -> None:
    channels = builtin.reed_channels()
    assert len(channels) == 45
    assert len(set(channels.values())) == 45
    assert {channel.chip for channel in channels.values()} == {2, 3, 4}
    assert all(0 <= channel.line < 16 for channel in channels.values())  # MCP23017 lines
    leds = [index for spot in builtin.spots.values() for index in spot.leds]
    assert sorted(leds) == list(range(63))


def test_reed_channels_leaves_out_the_camera_spots(builtin: BoardProfile) -> None:
    channels = builtin.reed_channels()
    assert not set(channels) & set(SQUARES)
    assert channels["1.hawkmoth"] == Channel(2, 0)
    assert channels["5.ladybug"] == Channel(3, 5)
    assert str(channels["9.akuma"]) == "4:12"


def test_parse_profile_of_unchanged_data_matches_load_profile(
    data: dict[str, Any], builtin: BoardProfile
) -> None:
    parsed = parse(data)
    assert parsed.spots == builtin.spots
    assert parsed.source == SOURCE


def test_channel_parse_reads_chip_and_line() -> None:
    assert Channel.parse("0:17", "here") == Channel(0, 17)
    assert Channel.parse("12:3", "here") == Channel(12, 3)
    assert str(Channel(3, 5)) == "3:5"


# Validation errors, each naming its culprit.


def test_unknown_spot_is_named(data: dict[str, Any]) -> None:
    data["spots"].append({"id": "10.akuma", "reed": "5:0", "leds": [1]})
    message = parse_error(data)
    assert "unknown spot '10.akuma'" in message
    assert "'akuma'" in message  # the game


def test_spot_without_id_is_unknown(data: dict[str, Any]) -> None:
    data["spots"].append({"reed": "5:0"})
    assert "unknown spot ''" in parse_error(data)


def test_reed_channel_used_twice_names_both_spots(data: dict[str, Any]) -> None:
    spot_entry(data, "9.akuma")["reed"] = "2:3"  # 1.shellter's reed
    message = parse_error(data)
    assert "reed channel 2:3 is used twice" in message
    assert "'1.shellter'" in message
    assert "'9.akuma'" in message


def test_same_reed_written_differently_is_still_a_duplicate(data: dict[str, Any]) -> None:
    spot_entry(data, "2.trap")["reed"] = "02:00"  # 1.hawkmoth's "2:0"
    message = parse_error(data)
    assert "used twice" in message
    assert "'1.hawkmoth'" in message
    assert "'2.trap'" in message


@pytest.mark.parametrize("index", [63, 100, -1])
def test_led_index_out_of_range(data: dict[str, Any], index: int) -> None:
    spot_entry(data, "4.trap")["leds"] = [index]
    message = parse_error(data)
    assert "'4.trap'" in message
    assert f"LED index {index} is out of range 0..62" in message


def test_led_range_follows_the_led_count(data: dict[str, Any]) -> None:
    data["leds"]["count"] = 62  # LED 62 belongs to 9.akuma
    message = parse_error(data)
    assert "'9.akuma'" in message
    assert "LED index 62 is out of range 0..61" in message


def test_spot_listed_twice(data: dict[str, Any]) -> None:
    data["spots"].append(dict(spot_entry(data, "3.ladybug")))
    message = parse_error(data)
    assert "'3.ladybug' is listed twice" in message


def test_missing_spots_are_all_named(data: dict[str, Any]) -> None:
    data["spots"] = [e for e in data["spots"] if e["id"] not in ("9.akuma", "6")]
    message = parse_error(data)
    assert "spots missing for game 'akuma': 6, 9.akuma" in message


def test_no_spots_at_all_names_every_spot(data: dict[str, Any]) -> None:
    del data["spots"]
    message = parse_error(data)
    assert "spots missing" in message
    assert all(spot in message for spot in GAME.spots())


def test_sensed_spot_without_reed(data: dict[str, Any]) -> None:
    del spot_entry(data, "5.trap")["reed"]
    message = parse_error(data)
    assert "'5.trap' needs a reed channel" in message


def test_unsensed_spot_may_have_a_reed(data: dict[str, Any]) -> None:
    # A spot a game only lights (UNSENSED) may still be wired, for another game on the table.
    lit_only = GAME.spots() | {"5": UNSENSED}
    spot_entry(data, "5")["reed"] = "4:15"
    del spot_entry(data, "5")["region"]
    profile = parse_profile(data, lit_only, SOURCE)
    assert profile.spots["5"].reed == Channel(4, 15)
    assert "5" not in profile.camera_regions()


@pytest.mark.parametrize("text", ["17", "a:b", "2:", ":3", "-1:2", "2:3:4", "2 : 3", 17, ""])
def test_malformed_reed_channel(data: dict[str, Any], text: object) -> None:
    spot_entry(data, "7.trap")["reed"] = text
    message = parse_error(data)
    assert "'7.trap'" in message
    assert "must be 'CHIP:LINE'" in message
    assert repr(text) in message


def test_reed_channel_with_non_ascii_digits_is_a_profile_error(data: dict[str, Any]) -> None:
    # "²" passes str.isdigit() but int() cannot read it.
    spot_entry(data, "7.trap")["reed"] = "²:0"
    message = parse_error(data)
    assert "'7.trap'" in message
    assert "must be 'CHIP:LINE'" in message


@pytest.mark.parametrize("leds", [3, "3", [1.5], ["3"], [[3]], {"a": 1}])
def test_bad_leds_type(data: dict[str, Any], leds: object) -> None:
    spot_entry(data, "8.shellter")["leds"] = leds
    message = parse_error(data)
    assert "'8.shellter'" in message
    assert "leds must be a list of integers" in message


def test_boolean_led_index_is_rejected(data: dict[str, Any]) -> None:
    # TOML `true` is a Python bool, which isinstance(..., int) accepts.
    spot_entry(data, "8.shellter")["leds"] = [True]
    message = parse_error(data)
    assert "'8.shellter'" in message
    assert "leds must be a list of integers" in message


def test_spot_with_unknown_key(data: dict[str, Any]) -> None:
    spot_entry(data, "1.trap")["led"] = [4]
    message = parse_error(data)
    assert "'1.trap' has unknown keys ['led']" in message


def test_missing_leds_table(data: dict[str, Any]) -> None:
    del data["leds"]
    assert "[leds] count must be a positive integer up to 4096, not None" in parse_error(data)


def test_missing_leds_count(data: dict[str, Any]) -> None:
    del data["leds"]["count"]
    assert "[leds] count must be a positive integer up to 4096, not None" in parse_error(data)


@pytest.mark.parametrize("count", [0, -5, "63", 63.0, 4097, 10**400])
def test_invalid_leds_count(data: dict[str, Any], count: object) -> None:
    data["leds"]["count"] = count
    message = parse_error(data)
    assert "[leds] count must be a positive integer up to 4096, not " in message


def test_boolean_leds_count_is_rejected(data: dict[str, Any]) -> None:
    # `count = true` must not be taken for a strip of 1 LED.
    data["leds"]["count"] = True
    message = parse_error(data)
    assert "[leds] count must be a positive integer" in message


def test_leds_not_a_table_is_a_profile_error(data: dict[str, Any]) -> None:
    data["leds"] = 63  # `leds = 63` instead of `[leds] count = 63`
    message = parse_error(data)
    assert "leds" in message


@pytest.mark.parametrize("pull_up", ["yes", 1])
def test_invalid_pull_up(data: dict[str, Any], pull_up: object) -> None:
    data["reeds"]["pull_up"] = pull_up
    assert f"[reeds] pull_up must be true or false, not {pull_up!r}" in parse_error(data)


def test_pull_up_false_and_default(data: dict[str, Any]) -> None:
    data["reeds"]["pull_up"] = False
    assert parse(data).pull_up is False
    del data["reeds"]
    assert parse(data).pull_up is True


def test_name_defaults_to_the_source(data: dict[str, Any]) -> None:
    del data["name"]
    assert parse(data).name == SOURCE


# Loading from files.


def test_load_profile_bad_toml(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('game = "akuma"\n[leds\ncount = 63\n', encoding="utf-8")
    with pytest.raises(ProfileError, match=re.escape(f"board profile {path} is not valid TOML")):
        load_profile(path, GAME.spots())


def test_load_profile_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ProfileError) as caught:
        load_profile(path, GAME.spots())
    assert str(caught.value) == f"cannot read board profile {path}: No such file or directory"


def test_load_profile_directory(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=re.escape(f"cannot read board profile {tmp_path}")):
        load_profile(tmp_path, GAME.spots())


def test_load_profile_validation_names_the_file(tmp_path: Path) -> None:
    text = builtin_profile_path("akuma").read_text(encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text(text.replace('reed = "4:12"', 'reed = "4:11"'), encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path, GAME.spots())
    message = str(caught.value)
    assert message.startswith(f"board profile {path}:")
    assert "'9.shellter'" in message
    assert "'9.akuma'" in message


def test_load_profile_from_a_copy_of_the_builtin(tmp_path: Path, builtin: BoardProfile) -> None:
    path = tmp_path / "copy.toml"
    path.write_text(builtin_profile_path("akuma").read_text(encoding="utf-8"), encoding="utf-8")
    profile = load_profile(path, GAME.spots())
    assert profile.spots == builtin.spots
    assert profile.source == str(path)


# Camera regions, and the built-in Baron Voodoo profile (spots as the game will name them).

VOODOO_CELLS = [f"r{r}c{c}" for r in range(7) for c in range(7)]
VOODOO_SPOTS = dict.fromkeys(VOODOO_CELLS, "camera")


@pytest.fixture(scope="module")
def voodoo() -> BoardProfile:
    return load_profile(builtin_profile_path("voodoo"), VOODOO_SPOTS)


@pytest.fixture
def voodoo_data() -> dict[str, Any]:
    with builtin_profile_path("voodoo").open("rb") as handle:
        return tomllib.load(handle)


def parse_voodoo_error(data: dict[str, Any]) -> str:
    with pytest.raises(ProfileError) as caught:
        parse_profile(data, VOODOO_SPOTS, SOURCE)
    return str(caught.value)


def test_voodoo_profile_reads_49_cells_by_camera(voodoo: BoardProfile) -> None:
    assert voodoo.game == "voodoo"
    assert set(voodoo.spots) == set(VOODOO_CELLS)
    assert voodoo.reed_channels() == {}
    assert set(voodoo.camera_regions()) == set(VOODOO_CELLS)
    assert voodoo.table_size_mm == (400.0, 400.0)


def test_voodoo_cells_are_50mm_squares_in_rows_and_columns(voodoo: BoardProfile) -> None:
    regions = voodoo.camera_regions()
    assert regions["r0c0"] == Region(25, 25, 50, 50)
    assert regions["r0c1"] == Region(75, 25, 50, 50)  # columns run along x
    assert regions["r1c0"] == Region(25, 75, 50, 50)  # rows run along y
    assert regions["r6c6"] == Region(325, 325, 50, 50)


def test_voodoo_leds_are_two_a_cell_in_a_serpentine(voodoo: BoardProfile) -> None:
    assert voodoo.led_count == 98
    leds = {cell: voodoo.spots[cell].leds for cell in VOODOO_CELLS}
    assert sorted(i for pair in leds.values() for i in pair) == list(range(98))
    assert leds["r0c0"] == (0, 1) and leds["r0c6"] == (12, 13)
    assert leds["r1c6"] == (14, 15) and leds["r1c0"] == (26, 27)  # back along row 1
    assert leds["r6c0"] == (84, 85)


def test_akuma_profile_reads_the_square_cards_and_a_dice_tray(builtin: BoardProfile) -> None:
    # AK-1: 120 mm squares in keypad order; the card (64 x 89 mm) in the middle of each.
    regions = builtin.camera_regions()
    assert set(regions) == {str(sq) for sq in range(1, 10)}
    assert regions["1"] == Region(28, 16, 64, 89) and regions["9"] == Region(268, 256, 64, 89)
    assert builtin.table_size_mm == (520, 360)
    assert builtin.dice_tray == Region(380, 100, 130, 160)


def test_camera_spot_without_region(voodoo_data: dict[str, Any]) -> None:
    del voodoo_data["spots"][10]["region"]
    message = parse_voodoo_error(voodoo_data)
    assert "'r1c3' needs a region = [x, y, w, h]" in message


def test_camera_spot_with_a_reed(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["spots"][0]["reed"] = "0:17"
    assert "'r0c0' is read by the camera: it takes no reed" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize(
    "region",
    [[1, 2, 3], [1, 2, 3, 4, 5], "1,2,3,4", [1, 2, "3", 4], [0, 0, True, 4], [0, 0, 5, math.nan]],
)
def test_malformed_region(voodoo_data: dict[str, Any], region: object) -> None:
    voodoo_data["spots"][0]["region"] = region
    message = parse_voodoo_error(voodoo_data)
    assert "'r0c0': region must be [x, y, w, h]" in message


@pytest.mark.parametrize(
    "region", [[-1, 0, 50, 50], [0, -5, 50, 50], [0, 0, 0, 50], [0, 0, 50, -1]]
)
def test_region_with_negative_corner_or_no_size(
    voodoo_data: dict[str, Any], region: list[float]
) -> None:
    voodoo_data["spots"][0]["region"] = region
    assert "positive width and height" in parse_voodoo_error(voodoo_data)


def test_region_beyond_the_table(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["spots"][48]["region"] = [360, 325, 50, 50]
    message = parse_voodoo_error(voodoo_data)
    assert "'r6c6'" in message and "beyond the table" in message and "[400, 400]" in message


def test_regions_are_unbounded_without_a_table_size(voodoo_data: dict[str, Any]) -> None:
    del voodoo_data["table"]
    voodoo_data["spots"][48]["region"] = [2000, 2000, 50, 50]
    profile = parse_profile(voodoo_data, VOODOO_SPOTS, SOURCE)
    assert profile.table_size_mm is None
    assert profile.camera_regions()["r6c6"] == Region(2000, 2000, 50, 50)


@pytest.mark.parametrize("size", [[400], [400, 0], [400, -1], "400x400", [400, True], 400])
def test_bad_table_size(voodoo_data: dict[str, Any], size: object) -> None:
    voodoo_data["table"]["size_mm"] = size
    assert "[table] size_mm must be [width, height]" in parse_voodoo_error(voodoo_data)


def test_reed_spot_may_carry_a_region(data: dict[str, Any]) -> None:
    spot_entry(data, "5.trap")["region"] = [10, 10, 20, 20]
    profile = parse(data)
    assert profile.spots["5.trap"].region == Region(10, 10, 20, 20)
    assert "5.trap" not in profile.camera_regions()  # a reed senses it, not the camera


def test_unknown_sensor_named_by_a_game(data: dict[str, Any]) -> None:
    with pytest.raises(ProfileError, match="unknown sensor 'laser'"):
        parse_profile(data, {**GAME.spots(), "5.trap": "laser"}, SOURCE)


# ArUco markers around the table, for calibrating the camera.


def markers_of(data: dict[str, Any]) -> tuple[Marker, ...]:
    return parse_profile(data, VOODOO_SPOTS, SOURCE).markers


def three_markers() -> list[dict[str, Any]]:
    return [
        {"id": 5, "center_mm": [-40, 200], "size_mm": 50},
        {"id": 6, "center_mm": [440, 200], "size_mm": 50},
        {"id": 7, "center_mm": [200, 440]},
    ]


def test_default_markers_sit_just_outside_the_corners(voodoo: BoardProfile) -> None:
    assert voodoo.markers == (
        Marker(0, (-30.0, -30.0), 40.0),
        Marker(1, (430.0, -30.0), 40.0),
        Marker(2, (430.0, 430.0), 40.0),
        Marker(3, (-30.0, 430.0), 40.0),
    )


def test_every_builtin_profile_the_camera_reads_has_markers() -> None:
    for name, game in GAMES.items():
        profile = load_profile(builtin_profile_path(name), game.spots())
        read = bool(profile.camera_regions()) or profile.dice_tray is not None
        assert bool(profile.markers) == read, name


def test_every_builtin_profile_of_a_game_with_pip_dice_has_a_tray() -> None:
    for name, game in GAMES.items():
        profile = load_profile(builtin_profile_path(name), game.spots())
        assert (profile.dice_tray is not None) == ("d6" in game.dice_kinds), name


def test_dice_tray_is_a_region_on_the_table(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["dice"] = {"tray": [300, 300, 50, 50]}
    assert parse_profile(voodoo_data, VOODOO_SPOTS, SOURCE).dice_tray == Region(300, 300, 50, 50)
    voodoo_data["dice"] = {"tray": [380, 300, 50, 50]}
    assert "[dice] tray: region [380, 300, 50, 50] reaches beyond" in parse_voodoo_error(
        voodoo_data
    )
    voodoo_data["dice"] = {"tray": [0, 0, 10, 10], "cup": 1}
    assert "[dice] has unknown keys ['cup']" in parse_voodoo_error(voodoo_data)


def test_marker_corners_run_clockwise_from_the_top_left() -> None:
    marker = Marker(0, (100.0, 50.0), 20.0)
    assert marker.corners_mm() == ((90, 40), (110, 40), (110, 60), (90, 60))


def test_listed_markers_replace_the_defaults(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["markers"] = three_markers()
    assert markers_of(voodoo_data) == (
        Marker(5, (-40.0, 200.0), 50.0),
        Marker(6, (440.0, 200.0), 50.0),
        Marker(7, (200.0, 440.0), 40.0),  # size_mm defaults to 40
    )


def test_markers_need_no_table_size(voodoo_data: dict[str, Any]) -> None:
    del voodoo_data["table"]
    assert markers_of(voodoo_data) == ()
    voodoo_data["markers"] = three_markers()
    assert [m.id for m in markers_of(voodoo_data)] == [5, 6, 7]


def test_marker_listed_twice(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["markers"] = [*three_markers(), {"id": 6, "center_mm": [-40, 0]}]
    assert "marker 6 is listed twice" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize("marker_id", [-1, 50, 1.0, "3", True, None])
def test_marker_id_outside_the_dictionary(voodoo_data: dict[str, Any], marker_id: object) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][0]["id"] = marker_id
    assert "id must be a whole number 0..49" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize("size", [0, -10, math.inf, "40", True, [40]])
def test_marker_size_must_be_positive(voodoo_data: dict[str, Any], size: object) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][1]["size_mm"] = size
    message = parse_voodoo_error(voodoo_data)
    assert "marker 6: size_mm must be a positive number of mm" in message


@pytest.mark.parametrize("center", [[1], [1, 2, 3], "1,2", [1, math.nan], None])
def test_malformed_marker_center(voodoo_data: dict[str, Any], center: object) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][2]["center_mm"] = center
    assert "marker 7: center_mm must be [x, y]" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize("center", [[-300, 200], [200, 4000], [590, 200], [200, -190]])
def test_marker_far_off_the_table(voodoo_data: dict[str, Any], center: list[float]) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][2]["center_mm"] = center
    message = parse_voodoo_error(voodoo_data)
    assert "marker 7 at" in message and "too far off the table" in message
    assert "[400, 400]" in message


def test_marker_on_the_table_or_near_it_is_fine(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][2]["center_mm"] = [200, 200]
    voodoo_data["markers"][1]["center_mm"] = [575, 200]  # its edge 200 mm off the table
    assert len(markers_of(voodoo_data)) == 3


def test_overlapping_markers(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][2]["center_mm"] = [-40, 240]  # 40 mm below marker 5, 50 mm wide
    assert "markers 5 and 7 overlap" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize("count", [0, 2])
def test_too_few_markers(voodoo_data: dict[str, Any], count: int) -> None:
    voodoo_data["markers"] = three_markers()[:count]
    assert f"lists {count} markers: give at least 3" in parse_voodoo_error(voodoo_data)


@pytest.mark.parametrize("markers", [{"id": 0}, [1, 2, 3], "corners"])
def test_markers_not_a_list_of_tables(voodoo_data: dict[str, Any], markers: object) -> None:
    voodoo_data["markers"] = markers
    assert "markers must be a list of [[markers]] tables" in parse_voodoo_error(voodoo_data)


def test_marker_with_unknown_key(voodoo_data: dict[str, Any]) -> None:
    voodoo_data["markers"] = three_markers()
    voodoo_data["markers"][0]["centre_mm"] = [0, 0]
    assert "marker 5 has unknown keys ['centre_mm']" in parse_voodoo_error(voodoo_data)


def test_a_serial_profile_puts_its_reeds_on_the_links_matrix() -> None:
    profile = load_profile(builtin_profile_path("takeover-serial"), GAMES["takeover"].spots())
    assert profile.link == Link("/dev/smartboard-pico", 12, 12)
    assert profile.reed_channels()["r11c0"] == Channel(11, 0)  # ROW:COL


@pytest.mark.parametrize(
    ("reeds", "link", "message"),
    [
        ({"backend": "usb"}, None, '[reeds] backend must be "gpio" or "serial"'),
        ({"backend": "serial"}, None, 'backend = "serial" needs a [link] table'),
        ({}, {"port": "/dev/x", "rows": 4, "cols": 4}, '[link] is for [reeds] backend = "serial"'),
        ({"backend": "serial"}, {"port": "", "rows": 4, "cols": 4}, "[link] port must name"),
        ({"backend": "serial"}, {"port": "/dev/x", "rows": 17, "cols": 4}, "in 1..16"),
        ({"backend": "serial"}, {"port": "/dev/x", "rows": 4, "cols": 4, "baud": 9600}, "['baud']"),
        (
            {"backend": "serial"},
            {"port": "/dev/x", "rows": 2, "cols": 2},
            "outside the link's 2 x 2",
        ),
        ({"pullup": True}, None, "[reeds] has unknown keys ['pullup']"),
    ],
)
def test_bad_serial_links_are_named(
    reeds: dict[str, Any], link: dict[str, Any] | None, message: str
) -> None:
    data = tomllib.loads(builtin_profile_path("akuma").read_text())
    data["reeds"] = {**data["reeds"], **reeds}
    for index, spot in enumerate(s for s in data["spots"] if "reed" in s):
        spot["reed"] = f"{index // 8}:{index % 8}"
    if link is not None:
        data["link"] = link
    with pytest.raises(ProfileError) as caught:
        parse_profile(data, GAME.spots(), SOURCE)
    assert message in str(caught.value)
