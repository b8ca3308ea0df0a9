"""Rules every part of the agent service shares: token shapes, client names, the "answered" error."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta

from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_secret

TOUCH_EVERY = timedelta(minutes=1)
MAX_NAME_CHARS = 100
TOKEN_PREFIX = {"access": "rga_", "refresh": "rgr_", "personal": "rgp_", "code": "rgc_"}
"""Recognisable prefixes (for people and secret scanners); the rest is 256 random bits."""


def new_token(kind: str) -> str:
    """A fresh secret of one kind: its prefix and 256 random bits. Only its SHA-256 is ever stored."""
    return TOKEN_PREFIX[kind] + new_secret(32)


def client_name(name: str | None) -> str:
    if name is None or (isinstance(name, str) and not name.strip()):
        return "Unnamed agent"
    if not isinstance(name, str):
        raise invalid("A client name must be text.")
    clean = " ".join(name.split())
    if len(clean) > MAX_NAME_CHARS:
        raise invalid(f"A client name has at most {MAX_NAME_CHARS} characters.")
    # Control and format characters (bidi overrides, zero-width joiners, tags) could disguise the
    # name on the consent page.
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in clean):
        raise invalid("A client name must not contain control or invisible formatting characters.")
    return clean


def expired(moment: datetime | None, now: datetime) -> bool:
    return moment is not None and moment <= now


def answered() -> RomergoError:
    return RomergoError(
        "conflict",
        "This request was already answered or has expired. Start connecting again from your agent.",
    )
