"""Who calls the API: the owner, by a bearer token with `romergo:control` or by the browser
session (then state-changing requests need the session's CSRF token in `X-CSRF-Token`).

Agents' tokens never pass: only the owner creates commands, changes room settings or decides
confirmations (SECURITY.md). Tokens are only ever read from the Authorization header.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from fastapi import Request

from romergo.access import csrf
from romergo.access.accounts.service import SESSION_COOKIE
from romergo.access.agents.scopes import CONTROL
from romergo.common.errors import RomergoError
from romergo.services import Services

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class BearerIdentity(Protocol):
    @property
    def user_id(self) -> str: ...

    @property
    def scopes(self) -> frozenset[str]: ...


BearerVerifier = Callable[[str], Awaitable[BearerIdentity | None]]


@dataclass(frozen=True)
class Owner:
    user_id: str
    via: str  # "token" | "session"


class OwnerAuth:
    def __init__(self, services: Services, verify_bearer: BearerVerifier) -> None:
        self.services = services
        self.verify_bearer = verify_bearer

    async def __call__(self, request: Request) -> Owner:
        header = request.headers.get("authorization")
        if header is not None:
            return await self._bearer(header)
        token = request.cookies.get(SESSION_COOKIE)
        user = await self.services.accounts.session_user(token)
        if user is None or token is None:
            raise RomergoError("unauthorized", "Sign in, or send a personal token with the control scope.")
        if request.method not in SAFE_METHODS and not csrf.check_session_token(
            self.services.secret, "api", token, request.headers.get("x-csrf-token")
        ):
            raise RomergoError("forbidden", "This request needs the page's X-CSRF-Token header.")
        return Owner(user.id, "session")

    async def _bearer(self, header: str) -> Owner:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise RomergoError("unauthorized", "Use an Authorization: Bearer <token> header.")
        identity = await self.verify_bearer(token.strip())
        if identity is None:
            raise RomergoError("unauthorized", "This token is unknown, expired or revoked.")
        if CONTROL not in identity.scopes:
            raise RomergoError(
                "forbidden",
                "This token cannot act for the owner. "
                "Create one with `romergo token create USER --scopes control`.",
            )
        return Owner(identity.user_id, "token")
