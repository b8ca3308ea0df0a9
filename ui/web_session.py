"""The browser session cookie and the same-origin check for state-changing requests."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import Request, Response

from romergo.access.accounts.ledger import User
from romergo.access.accounts.service import SESSION_COOKIE
from romergo.common import urls
from romergo.services import Services


def session_token(request: Request) -> str | None:
    return request.cookies.get(SESSION_COOKIE)


async def signed_in_user(services: Services, request: Request) -> User | None:
    return await services.accounts.session_user(session_token(request))


def set_session_cookie(response: Response, token: str, services: Services) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=services.settings.session_absolute_days * 86400,
        httponly=True,
        samesite="lax",
        secure=services.settings.base_url.startswith("https://"),
        path="/",
    )


def clear_session_cookie(response: Response, services: Services) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        httponly=True,
        samesite="lax",
        secure=services.settings.base_url.startswith("https://"),
        path="/",
    )


def same_origin(request: Request) -> bool:
    """Refuse requests another site's page made the browser send (Fetch Metadata, then Origin)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return site is not None or origin is None
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host


def safe_next(value: object) -> str | None:
    """Only local paths are followed after sign-in: never another site, never `//host`."""
    if not isinstance(value, str) or not urls.is_internal(value):
        return None
    return value if len(value) <= 500 else None
