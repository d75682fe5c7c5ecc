"""The table microcontroller's MicroPython, a package so that the host imports the same protocol.

On the Pico this folder is copied to /firmware and main.py to the root (README.md); on the host,
hardware/serial_link.py frames with `firmware.protocol` and hardware/link_sim.py runs
`firmware.device`. Nothing here imports the host's packages.
"""
