"""Opaque ids (a short prefix naming the entity kind, then 80 random bits in base32) and the
random secrets handed out to people and agents, which are stored only as their SHA-256."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import TypeGuard

MAX_SECRET_CHARS = 200
"""Longer than every secret handed out (tokens, links, handles); anything longer is not looked up."""


def new_id(prefix: str) -> str:
    raw = base64.b32encode(secrets.token_bytes(10)).decode("ascii").lower()
    return f"{prefix}_{raw}"


def new_secret(nbytes: int = 32) -> str:
    """A bearer secret (tokens, sign-in links, join codes): URL-safe, `nbytes` of randomness."""
    return secrets.token_urlsafe(nbytes)


def plausible_secret(value: object) -> TypeGuard[str]:
    """Worth looking up: a non-empty string no longer than any secret this server hands out."""
    return isinstance(value, str) and 0 < len(value) <= MAX_SECRET_CHARS


def sha256_hex(value: str | bytes) -> str:
    """How random secrets are stored: only their SHA-256 (DESIGN.md §5)."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    return hashlib.sha256(data).hexdigest()
