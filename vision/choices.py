"""The camera's choices that the config names: where frames come from, how the d6 reader looks.

Apart from the modules that use them, which need OpenCV: reading a config, or the command line's
help, does not load it.
"""

SOURCES = ("picamera2", "opencv", "replay")
"""Frame sources: the Pi camera, an OpenCV capture, frames replayed from disk."""

VIEWS = ("auto", "top", "oblique")
"""How the d6 reader looks at dice: straight down, at an angle, or guessed from the picture."""
