"""How a tool call's arguments appear in the channel's events and confirmation cards."""

from __future__ import annotations

from typing import Any

LARGE_ARGUMENTS = ("data_base64",)


def redact(arguments: dict[str, Any]) -> dict[str, Any]:
    """Large values (base64 file contents) appear in events as their byte count."""
    shown: dict[str, Any] = {}
    for name, value in arguments.items():
        if name in LARGE_ARGUMENTS and isinstance(value, str):
            shown[name] = len(value) * 3 // 4 - value[-2:].count("=")
        else:
            shown[name] = value
    return shown
