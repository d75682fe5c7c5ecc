"""`smartboard markers` and `smartboard calibrate`: the ArUco markers of a board profile, printed
and laid on the table, then found in a frame from the camera to calibrate it."""

from __future__ import annotations

import argparse
from pathlib import Path

from controller.cli.arguments import (
    Commands,
    add_profile_choice,
    add_state_dir,
    board_profile,
    read_config,
)
from controller.cli.errors import EX_CONFIG, EX_USAGE, CommandError, failing
from controller.paths import default_state_dir
from hardware.profile import ProfileError


def add_commands(commands: Commands) -> None:
    markers = commands.add_parser(
        "markers",
        help="write the ArUco marker sheet of a board profile, a PDF to print at 100 %%",
        description="Write the board profile's ArUco markers at true size on A4 pages (PDF). "
        "Print at 100 % (actual size), check the 100 mm scale bar, cut the markers out and "
        "lay each where its label says, its top edge towards the table's top edge.",
    )
    markers.add_argument(
        "--out", type=Path, required=True, metavar="FILE.pdf", help="the PDF to write"
    )
    add_profile_choice(markers)
    markers.set_defaults(command=_markers)

    calibrate = commands.add_parser(
        "calibrate",
        help="find the markers in a camera frame and save the camera's calibration",
        description="Find the board profile's ArUco markers in a frame from the camera over "
        "the table, and save the mapping from its pixels to table millimetres where the table "
        "reads it (give the same --config and --state-dir as `run`; for the service: "
        "sudo -u smartboard smartboard calibrate --state-dir /var/lib/smartboard ...). A marker "
        "not found is named, with where it belongs on the table. A frame to calibrate from: "
        "`rpicam-still --width 1280 --height 720 -o frame.jpg` on the Pi (the size the "
        "table's camera runs at, the config's [camera] width and height), the table's service "
        "stopped; or calibrate from "
        "the dashboard's Table test & camera view instead, which takes the frame itself.",
    )
    calibrate.add_argument(
        "--image",
        type=Path,
        required=True,
        metavar="FRAME",
        help="a frame from the camera (PNG or JPEG) showing every marker",
    )
    add_profile_choice(calibrate)
    calibrate.add_argument(
        "--out",
        type=Path,
        metavar="FILE.json",
        help="where to save the calibration (default: where the table reads it, the config's "
        "[camera] calibration, else calibration.json in the state directory)",
    )
    add_state_dir(calibrate)
    calibrate.add_argument(
        "--annotated",
        type=Path,
        metavar="FILE.png",
        help="also write the frame with the markers found and every region drawn on it "
        "(.png or .jpg), even when markers are missing",
    )
    calibrate.set_defaults(command=_calibrate)


def _markers(args: argparse.Namespace) -> int:
    from vision.marker_sheet import MarkerSheetError, write_marker_sheet

    if args.out.suffix.lower() != ".pdf":  # a PDF named .png opens as a broken picture
        raise CommandError(f"--out {args.out}: the sheet is a PDF, name a .pdf file", EX_USAGE)
    try:
        profile = board_profile(args)
        pages = write_marker_sheet(profile, args.out)
    except ProfileError as error:
        raise CommandError(str(error), EX_CONFIG) from None
    except MarkerSheetError as error:
        raise CommandError(str(error)) from None
    except OSError as error:
        raise CommandError(f"cannot write {args.out}: {error.strerror}") from None
    print(
        f"wrote {len(profile.markers)} markers on {pages} page{'s' if pages > 1 else ''} to "
        f"{args.out}: print at 100 % and check that the scale bar measures 100 mm"
    )
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import (
        Calibration,
        CalibrationError,
        annotate,
        calibrate,
        detect_markers,
        profile_markers,
    )
    from vision.image_files import read_image

    if args.annotated and args.annotated.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise CommandError(f"--annotated {args.annotated}: name a .png or .jpg", EX_USAGE)
    config = read_config(args.config, service=True)
    with failing(EX_CONFIG, ProfileError):
        profile = board_profile(args, config)
        profile_markers(profile)
    try:
        frame = read_image(args.image)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) else error
        raise CommandError(f"cannot read {args.image}: {reason}") from None
    height, width = frame.shape[:2]
    wanted = (config.camera_width, config.camera_height)
    pi_camera = config.camera_backend == "camera" and config.camera_source == "picamera2"
    if pi_camera and (width, height) != wanted:
        # The Pi camera gives frames of the config's size, and the table reads the board in
        # none of another (table_reader.check_size): this calibration would never be used.
        raise CommandError(
            f"{args.image} is {width}x{height}, but the table's camera gives "
            f"{wanted[0]}x{wanted[1]} frames (the config's [camera] width and height): "
            f"calibrate from a frame of that size, e.g. `rpicam-still --width {wanted[0]} "
            f"--height {wanted[1]} -o frame.jpg`",
            EX_USAGE,
        )
    found = detect_markers(frame)
    try:
        calibration: Calibration | None = calibrate(
            found, profile, (frame.shape[1], frame.shape[0])
        )
        failure = ""
    except CalibrationError as error:
        calibration, failure = None, str(error)
    # Where `run` reads it (backends.py): the running table uses it without more ado.
    state_dir = args.state_dir or default_state_dir()
    out = args.out or config.calibration_path(state_dir)
    try:
        if args.annotated:
            image = annotate(frame, found, profile, calibration)
            args.annotated.write_bytes(cv2.imencode(args.annotated.suffix, image)[1].tobytes())
        if calibration is not None:
            calibration.save(out)
    except OSError as error:
        raise CommandError(f"cannot write {error.filename}: {error.strerror}") from None
    if calibration is None:
        raise CommandError(failure)
    print(
        f"calibrated {profile.name} from markers {', '.join(map(str, calibration.marker_ids))}: "
        f"error {calibration.error_mm:.2f} mm; saved to {out}"
        + (f"; annotated frame in {args.annotated}" if args.annotated else "")
    )
    return 0
