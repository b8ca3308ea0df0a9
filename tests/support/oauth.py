"""Driving Romergo's OAuth as agents and people do: registration, PKCE, consent, tokens, MCP calls.

Two kinds of "person": Playwright in a real browser (tests/browser) and, where the browser is not
what is tested, a signed-in HTTP client that reads the consent form and posts it like a browser.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthToken

from romergo.access.accounts.service import SESSION_COOKIE
from tests.support.cli import romergo_here
from tests.support.server import RunningServer

PASSWORD = "correct horse battery"
CALLBACK_URI = "http://127.0.0.1:9/cb"
READ_AND_WRITE = "romergo:read romergo:edit romergo:media romergo:publish romergo:delete"


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query, keep_blank_values=True)


def add_user(server: RunningServer, name: str, *, demo: bool = True) -> None:
    added = romergo_here(
        "user", "add", name, data_dir=server.data_dir, stdin=PASSWORD + "\n", env=server.extra_env
    )
    assert added.returncode == 0, added.stderr
    if demo:
        seeded = romergo_here("seed-demo", "--user", name, data_dir=server.data_dir, env=server.extra_env)
        assert seeded.returncode == 0, seeded.stderr


def personal_token(server: RunningServer, user: str, *args: str) -> str:
    made = romergo_here("token", "create", user, *args, data_dir=server.data_dir, env=server.extra_env)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


async def register(base_url: str, redirect_uri: str, **extra: Any) -> httpx.Response:
    body = {"client_name": "Test agent", "redirect_uris": [redirect_uri], **extra}
    async with httpx.AsyncClient(base_url=base_url) as http:
        return await http.post("/register", json=body)


async def registered_client(base_url: str, redirect_uri: str, **extra: Any) -> str:
    response = await register(base_url, redirect_uri, **extra)
    assert response.status_code == 201, response.text
    return str(response.json()["client_id"])


def authorize_url(base_url: str, client_id: str, redirect_uri: str, challenge: str, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "state-" + secrets.token_hex(4),
        "resource": f"{base_url}/mcp",
        "scope": READ_AND_WRITE,
        **extra,
    }
    return f"{base_url}/authorize?{urlencode(params)}"


@asynccontextmanager
async def signed_in(base_url: str, username: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client holding a browser session of `username` (signed in through the form)."""
    async with httpx.AsyncClient(base_url=base_url) as http:
        form = (await http.get("/login")).text
        token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
        assert token, "the sign-in page carries a form token"
        response = await http.post(
            "/login",
            data={"username": username, "password": PASSWORD, "csrf": token.group(1)},
            headers={"Origin": base_url},
        )
        assert response.status_code == 303 and SESSION_COOKIE in response.cookies, response.text
        yield http


@dataclass
class ConsentForm:
    request_id: str
    csrf: str
    page: str

    def fields(self, decision: str, scopes: list[str] | None = None) -> list[tuple[str, str]]:
        chosen = ["romergo:read", "romergo:edit", "romergo:media"] if scopes is None else scopes
        return [
            ("request", self.request_id),
            ("csrf", self.csrf),
            ("decision", decision),
            *[("scope", scope) for scope in chosen],
        ]


async def open_consent(http: httpx.AsyncClient, url: str) -> ConsentForm:
    """Follow an authorization URL to the consent page, as a browser would."""
    started = await http.get(url)
    assert started.status_code == 302, started.text
    location = started.headers["location"]
    # Relative, or absolute on the configured address when the agent named another loopback spelling.
    assert urlsplit(location).path == "/oauth/consent" and "request=" in location, location
    page = await http.get(location)
    assert page.status_code == 200
    csrf = re.search(r'"name":"csrf","value":"([^"]+)"', page.text)
    assert csrf, "the consent page carries a form token"
    return ConsentForm(request_id=query_of(location)["request"][0], csrf=csrf.group(1), page=page.text)


async def answer(
    http: httpx.AsyncClient, form: ConsentForm, decision: str = "allow", scopes: list[str] | None = None
) -> httpx.Response:
    return await post_form(http, "/oauth/consent", form.fields(decision, scopes))


async def post_form(
    http: httpx.AsyncClient, path: str, fields: list[tuple[str, str]], origin: str | None = None
) -> httpx.Response:
    """A browser's form post (repeated fields allowed), from `origin` (default: the server's own)."""
    return await http.post(
        path,
        content=urlencode(fields),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": origin or str(http.base_url).rstrip("/"),
        },
    )


async def consent_over_http(http: httpx.AsyncClient, url: str, scopes: list[str] | None = None) -> str:
    """Approve an authorization request; returns where the browser is sent (the client's callback)."""
    response = await answer(http, await open_consent(http, url), "allow", scopes)
    assert response.status_code == 303, response.text
    return response.headers["location"]


@dataclass
class Tokens:
    client_id: str
    access_token: str
    refresh_token: str
    scope: str
    code: str
    consent_request: str


async def exchange(
    base_url: str, client_id: str, code: str, verifier: str, redirect_uri: str
) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url) as http:
        return await http.post(
            "/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": redirect_uri,
                "client_id": client_id,
                "resource": f"{base_url}/mcp",
            },
        )


async def refresh(base_url: str, client_id: str, refresh_token: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base_url) as http:
        return await http.post(
            "/token",
            data={"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id},
        )


async def oauth_tokens(person: httpx.AsyncClient, redirect_uri: str = CALLBACK_URI) -> Tokens:
    """The whole authorization-code flow, `person` (a signed-in HTTP client) consenting."""
    base_url = str(person.base_url).rstrip("/")
    client_id = await registered_client(base_url, redirect_uri)
    verifier, challenge = pkce()
    form = await open_consent(person, authorize_url(base_url, client_id, redirect_uri, challenge))
    answered = await answer(person, form, "allow")
    assert answered.status_code == 303, answered.text
    code = query_of(answered.headers["location"])["code"][0]
    response = await exchange(base_url, client_id, code, verifier, redirect_uri)
    assert response.status_code == 200, response.text
    body = response.json()
    return Tokens(
        client_id, body["access_token"], body["refresh_token"], body["scope"], code, form.request_id
    )


def mcp_client(base_url: str, token: str, mode: str = "auto") -> Client:
    """The SDK's client over Streamable HTTP with a bearer token (no OAuth flow of its own)."""
    # Long reads: a parked wait may send nothing but a progress note every 10 s.
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(70, connect=10)
    )
    return Client(streamable_http_client(f"{base_url}/mcp", http_client=http), mode=mode)


async def mcp_status(base_url: str, token: str | None, **kwargs: Any) -> httpx.Response:
    """A raw MCP request (`initialize`, or the `json` given) with this bearer token: 200 when the
    token is accepted."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-11-25",
        **({"Authorization": f"Bearer {token}"} if token else {}),
        **kwargs.pop("headers", {}),
    }
    body = kwargs.pop("json", None) or initialize_request()
    async with httpx.AsyncClient(base_url=base_url) as http:
        return await http.post(kwargs.pop("path", "/mcp"), json=body, headers=headers, **kwargs)


def initialize_request(capabilities: dict[str, object] | None = None) -> dict[str, Any]:
    """A raw handshake-era `initialize` from a client that declares `capabilities`."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities or {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }


@dataclass
class MemoryTokenStorage:
    """The SDK client's `TokenStorage`, in memory (what a real client keeps on disk)."""

    tokens: OAuthToken | None = None
    client_info: OAuthClientInformationFull | None = None
    history: list[OAuthToken] = field(default_factory=list)

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class CallbackListener:
    """A tiny HTTP server on a loopback port standing in for a native agent's redirect listener."""

    def __init__(self) -> None:
        self.port = 0
        self._server: asyncio.Server | None = None
        self._results: asyncio.Queue[str] = asyncio.Queue()

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def __aenter__(self) -> CallbackListener:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *_: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def next_url(self, timeout: float = 30) -> str:
        return await asyncio.wait_for(self._results.get(), timeout)

    async def result(self) -> AuthorizationCodeResult:
        """What the SDK's callback handler hands back: the code, state and iss of the redirect."""
        query = query_of(await self.next_url())
        assert len(query.get("code", [])) == 1, query
        return AuthorizationCodeResult(
            code=query["code"][0], state=query.get("state", [None])[0], iss=query.get("iss", [None])[0]
        )

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request_line = (await reader.readline()).decode("latin-1")
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        target = request_line.split(" ")[1] if " " in request_line else "/"
        body = b"<!doctype html><title>Done</title><p>You can close this tab.</p>"
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()
        if target.startswith("/callback"):
            await self._results.put(f"http://127.0.0.1:{self.port}{target}")
