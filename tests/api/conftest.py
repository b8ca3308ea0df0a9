from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

import api
from romergo.access import csrf
from romergo.access.accounts.service import SESSION_COOKIE


@dataclass(frozen=True)
class TokenIdentity:
    user_id: str
    scopes: frozenset[str]


@pytest.fixture
def tokens() -> dict[str, TokenIdentity]:
    """Bearer tokens the API will accept in these tests (the HTTP suite uses real ones)."""
    return {}


@pytest.fixture
async def client(services, tokens) -> AsyncIterator[httpx.AsyncClient]:
    async def verify(token: str) -> TokenIdentity | None:
        return tokens.get(token)

    app = FastAPI()
    api.mount(app, services, verify)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        yield http


@pytest.fixture
async def browser_session(services, author) -> dict[str, str]:
    """Cookie and CSRF header of a signed-in browser."""
    token = await services.accounts.start_session(author.id)
    return {
        "cookie": f"{SESSION_COOKIE}={token}",
        "x-csrf-token": csrf.session_token(services.secret, "api", token),
    }
