"""Fuzzing the parsers of the table's files (issue 19): the config, the board profiles and the
camera's calibration. Any document, any bytes: a valid result or the module's own error, on one
line naming the file, never another exception."""

from __future__ import annotations

import datetime
import json
import math
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.config import Config, ConfigError, load_config
from controller.rules.akuma import GAME
from hardware.profile import BoardProfile, ProfileError, load_profile, parse_profile
from vision.calibration import Calibration, CalibrationError

DEFAULTS: dict[str, dict[str, Any]] = tomllib.loads(
    (resources.files("controller") / "default_config.toml").read_text(encoding="utf-8")
)
AKUMA_PROFILE: dict[str, Any] = tomllib.loads(
    (resources.files("hardware") / "profiles" / "akuma.toml").read_text(encoding="utf-8")
)
CALIBRATION: dict[str, Any] = {
    "profile": AKUMA_PROFILE["name"],
    "image_size": [1280, 720],
    "homography": [[0.5, 0.01, -20.0], [0.0, 0.5, -10.0], [0.0, 0.0001, 1.0]],
    "marker_ids": [0, 1, 2, 3],
    "error_mm": 0.4,
}


# -- TOML values and documents ------------------------------------------------------------

EDGE_NUMBERS = st.sampled_from([0, -1, 2**63, 2**64, 10**400, -(10**400), 1e308, 5e-324])
SCALARS = st.one_of(
    st.integers(),
    EDGE_NUMBERS,
    st.floats(),
    st.booleans(),
    st.text(max_size=30),
    st.sampled_from(["", "sim", "akuma", "chess", "#ff8000", "#FFF", "127.0.0.1:8080", "[::1]:0"]),
    st.dates(),
    st.times(),
    st.datetimes(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes, but non-ASCII as is (JSON would write surrogate
    pairs) and DEL escaped (JSON would not)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_document(document: dict[str, Any]) -> str:
    """Plain keys first, then one [section] per table (TOML's order)."""
    lines = [
        f"{toml_string(k)} = {toml_value(v)}"
        for k, v in document.items()
        if not isinstance(v, dict)
    ]
    for section, values in document.items():
        if isinstance(values, dict):
            lines.append(f"[{toml_string(section)}]")
            lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


def like(default: object) -> st.SearchStrategy[Any]:
    """Values of the default's type, often near a bound, or of any other type."""
    if isinstance(default, bool):
        typed: st.SearchStrategy[Any] = st.booleans()
    elif isinstance(default, int | float):
        typed = st.integers(-2000, 2000) | st.floats() | EDGE_NUMBERS
    else:
        typed = st.text(max_size=20) | st.text(max_size=5000)
    return typed | VALUES


KEYS = [(section, key) for section, values in sorted(DEFAULTS.items()) for key in sorted(values)]


@st.composite
def config_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A few keys of the real sections set to values of their type or of any other (so that
    each fault is often the first that the config meets), now and then an unknown section or
    key, or a section that is not a table."""
    document: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.integers(0, 19))
        if kind == 0:
            document[draw(st.text(max_size=6))] = draw(VALUES)
        elif kind == 1:
            document[draw(st.sampled_from(sorted(DEFAULTS)))] = draw(VALUES)
        else:
            section, key = draw(st.sampled_from(KEYS))
            if kind == 2:
                key = draw(st.text(max_size=8))
            values = document.setdefault(section, {})
            if isinstance(values, dict):
                values[key] = draw(like(DEFAULTS[section].get(key, "#000000")))
    return document


def one_line_naming(error: Exception, path: Path) -> None:
    message = str(error)
    assert "\n" not in message and len(message) < 1000, message
    assert str(path) in message, message


def loads_or_refuses(
    write: Callable[[Path], None], tmp: Path, load: Callable[[Path], object], error: type[Exception]
) -> object:
    path = tmp / "fuzzed"
    write(path)
    try:
        return load(path)
    except error as refused:
        one_line_naming(refused, path)
        return None


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# -- the config -----------------------------------------------------------------------------


@given(config_documents())
def test_any_config_document_is_a_config_or_a_config_error(
    tmp: Path, document: dict[str, Any]
) -> None:
    text = toml_document(document)
    config = loads_or_refuses(
        lambda p: p.write_text(text, encoding="utf-8"), tmp, load_config, ConfigError
    )
    assert config is None or isinstance(config, Config)


@given(st.binary(max_size=2000))
def test_any_bytes_are_a_config_or_a_config_error(tmp: Path, data: bytes) -> None:
    config = loads_or_refuses(lambda p: p.write_bytes(data), tmp, load_config, ConfigError)
    assert config is None or isinstance(config, Config)


@given(st.integers(1, 6000), st.sampled_from(["[", "{a = ", "[[", "{a = ["]))
def test_any_nesting_is_a_config_or_a_config_error(tmp: Path, depth: int, opener: str) -> None:
    closer = "".join({"[": "]", "{": "}"}[c] for c in reversed(opener) if c in "[{")
    text = "[reeds]\ndebounce_ms = " + opener * depth + "1" + closer * depth + "\n"
    config = loads_or_refuses(
        lambda p: p.write_text(text, encoding="utf-8"), tmp, load_config, ConfigError
    )
    assert config is None


# -- board profiles -------------------------------------------------------------------------


@st.composite
def profile_documents(draw: st.DrawFn) -> dict[str, Any]:
    """The built-in akuma profile with a few of its tables, keys or spots changed."""
    document = json.loads(json.dumps(AKUMA_PROFILE))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from([*sorted(document), "spots", "link", "markers", "other"]))
        target = document.get(where)
        if where == "spots" and isinstance(target, list) and target and draw(st.booleans()):
            spot = draw(st.sampled_from(target))
            key = draw(st.sampled_from(["id", "reed", "leds", "region", "other"]))
            if isinstance(spot, dict):
                spot[key] = draw(like(spot.get(key, 0)))
        elif isinstance(target, dict) and draw(st.booleans()):
            key = draw(st.sampled_from([*sorted(target), "other", "backend", "count", "tray"]))
            target[key] = draw(like(target.get(key, 0)))
        else:
            document[where] = draw(like(target if target is not None else 0))
    return document


@given(profile_documents())
def test_any_profile_document_is_a_profile_or_a_profile_error(document: dict[str, Any]) -> None:
    try:
        profile = parse_profile(document, GAME.spots(), "fuzzed.toml")
    except ProfileError as refused:
        message = str(refused)
        assert "\n" not in message and len(message) < 1000 and "fuzzed.toml" in message, message
    else:
        assert isinstance(profile, BoardProfile)


@given(profile_documents())
def test_any_profile_file_is_a_profile_or_a_profile_error(
    tmp: Path, document: dict[str, Any]
) -> None:
    text = toml_document(document)
    profile = loads_or_refuses(
        lambda p: p.write_text(text, encoding="utf-8"),
        tmp,
        lambda p: load_profile(p, GAME.spots()),
        ProfileError,
    )
    assert profile is None or isinstance(profile, BoardProfile)


@given(st.binary(max_size=2000))
def test_any_bytes_are_a_profile_or_a_profile_error(tmp: Path, data: bytes) -> None:
    loads_or_refuses(
        lambda p: p.write_bytes(data), tmp, lambda p: load_profile(p, GAME.spots()), ProfileError
    )


# -- the camera's calibration ---------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | EDGE_NUMBERS | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@st.composite
def calibration_documents(draw: st.DrawFn) -> object:
    document = dict(CALIBRATION)
    for key in draw(st.lists(st.sampled_from([*sorted(CALIBRATION), "other"]), max_size=3)):
        if draw(st.integers(0, 5)) == 0:
            document.pop(key, None)
        else:
            document[key] = draw(JSON_VALUES)
    return draw(st.just(document) | JSON_VALUES)


@given(calibration_documents())
def test_any_calibration_document_is_a_calibration_or_its_error(
    tmp: Path, document: object
) -> None:
    text = json.dumps(document)
    calibration = loads_or_refuses(
        lambda p: p.write_text(text, encoding="utf-8"), tmp, Calibration.load, CalibrationError
    )
    assert calibration is None or isinstance(calibration, Calibration)


@given(st.binary(max_size=2000))
def test_any_bytes_are_a_calibration_or_its_error(tmp: Path, data: bytes) -> None:
    loads_or_refuses(lambda p: p.write_bytes(data), tmp, Calibration.load, CalibrationError)


def test_the_fuzzed_calibration_starts_valid(tmp_path: Path) -> None:
    """The documents above are changed from a valid one: else the fuzzing proves little."""
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(CALIBRATION), encoding="utf-8")
    assert Calibration.load(path).marker_ids == (0, 1, 2, 3)
