"""Password hashing with Argon2id (pwdlib). Only passwords use a KDF; random tokens use SHA-256."""

from __future__ import annotations

import asyncio

from pwdlib import PasswordHash

from romergo.common.errors import invalid

MIN_PASSWORD_CHARS = 12
MAX_PASSWORD_CHARS = 1024
_hasher = PasswordHash.recommended()
# Verifying against this when the user does not exist keeps sign-in timing uniform.
_DUMMY_HASH = _hasher.hash("romergo-timing-equaliser")


def check_strength(password: object) -> str:
    if not isinstance(password, str):
        raise invalid("Password must be text.")
    if len(password) < MIN_PASSWORD_CHARS:
        raise invalid(f"Password must have at least {MIN_PASSWORD_CHARS} characters.")
    if len(password) > MAX_PASSWORD_CHARS:
        raise invalid(f"Password must have at most {MAX_PASSWORD_CHARS} characters.")
    return password


async def hash_password(password: str) -> str:
    # ~130 ms of CPU: off the event loop so pages and long-polls keep moving.
    return await asyncio.to_thread(_hasher.hash, password)


async def verify_password(password: str, stored: str | None) -> bool:
    if not isinstance(password, str) or len(password) > MAX_PASSWORD_CHARS:
        return False
    ok = await asyncio.to_thread(_hasher.verify, password, stored or _DUMMY_HASH)
    return bool(ok) and stored is not None
