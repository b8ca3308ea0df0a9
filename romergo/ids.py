"""Opaque ids: a short prefix naming the entity kind, then 80 random bits in base32."""

from __future__ import annotations

import base64
import hashlib
import secrets


def new_id(prefix: str) -> str:
    raw = base64.b32encode(secrets.token_bytes(10)).decode("ascii").lower()
    return f"{prefix}_{raw}"


def new_secret(nbytes: int = 32) -> str:
    """A bearer secret (tokens, sign-in links, join codes): URL-safe, `nbytes` of randomness."""
    return secrets.token_urlsafe(nbytes)


def sha256_hex(value: str | bytes) -> str:
    """How random secrets are stored: only their SHA-256 (DESIGN.md §5)."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    return hashlib.sha256(data).hexdigest()
