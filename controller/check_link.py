"""`smartboard check`, its serial scan: the Pico's firmware, the frames it sent, the errors on
the wire, and the round trip of an LED frame (hardware/link_bench.py measures it alike)."""

from __future__ import annotations

import statistics

from controller.check_report import CheckEvent, Listener, PartReport
from hardware.link_bench import frame_round_trips
from hardware.serial_link import SerialLink, silent_link_hint

ROUND_TRIPS = 10
# An LED frame of 256 LEDs takes some 70 ms at 115200 baud; beyond this something is wrong.
SLOW_MS = 150.0


def check_link(
    link: SerialLink | None, listen: Listener, round_trips: int = ROUND_TRIPS
) -> PartReport:
    part = PartReport("link")
    if link is None:
        part.skipped = "no Pico: this profile's reeds and LEDs hang off the Pi"
        return part
    state = link.state()
    part.figures["port"] = link.path
    if not state.synced:
        why = state.last_error or "no answer"
        part.fault(
            "link_silent",
            f"the Pico on {link.path} does not answer ({why}): {silent_link_hint(link.path)}",
        )
        return part
    dark = bytes(3 * link.led_count)
    times = frame_round_trips(link, [dark] * round_trips, wait_s=1.0)
    state = link.state()
    part.figures.update(
        firmware=link.firmware,
        matrix=f"{link.rows}x{link.cols}",
        frames=link.frames,
        crc_errors=state.crc_errors,
        malformed=state.malformed,
        resyncs=state.resyncs,
        recoveries=state.recoveries,
        led_resends=link.led_resends,
        round_trip_ms=round(statistics.median(times) * 1000, 1) if times else None,
        round_trip_max_ms=round(max(times) * 1000, 1) if times else None,
    )
    listen(
        CheckEvent(
            "link",
            "figures",
            f"Pico firmware {link.firmware} on {link.path}: {link.frames} frames, "
            f"{state.crc_errors} CRC errors, LED frame round trip "
            f"{part.figures['round_trip_ms']} ms",
            dict(part.figures),
        )
    )
    if len(times) < round_trips:
        part.fault(
            "frames_lost",
            f"{round_trips - len(times)} of {round_trips} LED frames were never acknowledged by "
            "the Pico within a second: a bad cable or a firmware that stalls",
        )
    if state.crc_errors or state.malformed:
        part.warn(
            "wire_errors",
            f"{state.crc_errors} frames failed their CRC and {state.malformed} did not fit "
            "their type: the link recovers, but a good USB cable (short, with a ferrite) "
            "should give none",
        )
    if times and statistics.median(times) * 1000 > SLOW_MS:
        part.warn(
            "slow_link",
            f"an LED frame takes {statistics.median(times) * 1000:.0f} ms to be acknowledged: "
            "lights will lag the pieces; check the USB cable and hub",
        )
    return part
