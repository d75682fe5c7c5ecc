"""The control operations: one registry (`registry.py`) that the socket, the command line and
the dashboard read, filled by the modules that declare the operations, in the order listed."""

from controller.operations import look, play, table
from controller.operations.registry import OPERATIONS, Argument, answer, dashboard_ops, refused

__all__ = ["OPERATIONS", "Argument", "answer", "dashboard_ops", "look", "play", "refused", "table"]
