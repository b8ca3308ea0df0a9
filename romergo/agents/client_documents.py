"""Client ID Metadata Documents: an agent whose `client_id` is an `https://` URL of its own metadata.

The 2025-11-25 MCP authorization spec prefers these to dynamic registration: the client needs no
registration round trip, and the URL's host says who it is. The document is fetched here under
tight bounds (5 s, 5 KB, no redirects, never a private, loopback or link-local address unless
`ROMERGO_CIMD_ALLOW_PRIVATE` allows it for development, and then plain `http://` on loopback too),
validated (its `client_id` is the URL itself, redirect URIs follow the rules of `/register`, a
public client), cached as its HTTP caching headers say (at most a day), and kept as an agent
client row so grants can name it. The consent page shows the document's host.

Known limit: the address check resolves the name before the fetch; a name that resolves anew
between the two (DNS rebinding) is not caught here. The fetch sends no credentials and the answer
is only parsed as JSON, so what such a trick can reach is a private page's first 5 KB as a refused
document.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2

from romergo.agents import redirects
from romergo.agents.base import client_name
from romergo.agents.records import RegisteredClient, registered_client
from romergo.agents.scopes import OAUTH_SCOPES, ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from storage import Database
from storage.tables import AgentClient

MAX_DOCUMENT_BYTES = 5 * 1024
FETCH_SECONDS = 5.0
DEFAULT_CACHE_SECONDS = 300
MAX_CACHE_SECONDS = 24 * 3600
MAX_URL_CHARS = 500
_MAX_AGE = re.compile(r"max-age=(\d+)")

Fetch = Callable[[str], Awaitable["Fetched"]]


@dataclass(frozen=True)
class Fetched:
    status: int
    body: bytes
    cache_control: str


def is_document_url(client_id: object) -> bool:
    """Whether a `client_id` names a metadata document rather than a registered client."""
    return isinstance(client_id, str) and client_id.startswith(("https://", "http://"))


class ClientDocuments:
    def __init__(self, db: Database, *, allow_private: bool, fetch: Fetch | None = None) -> None:
        self.db = db
        self.allow_private = allow_private
        self.fetch = fetch or _fetch
        self._cached: dict[str, tuple[float, RegisteredClient]] = {}

    async def resolve(self, url: str) -> RegisteredClient:
        """The client a document describes; raises `invalid_argument` saying why it cannot be used."""
        now = time.monotonic()
        cached = self._cached.get(url)
        if cached is not None and cached[0] > now:
            return cached[1]
        self._check_url(url)
        await self._check_address(url)
        try:
            fetched = await self.fetch(url)
        except httpx2.HTTPError as error:
            raise invalid(
                f"The client's metadata document could not be fetched ({type(error).__name__})."
            ) from None
        client = await self._keep(url, _document(url, fetched))
        lifetime = _cache_seconds(fetched.cache_control)
        if lifetime > 0:
            self._cached[url] = (now + lifetime, client)
        else:
            self._cached.pop(url, None)
        return client

    def _check_url(self, url: str) -> None:
        parts = urlsplit(url)
        loopback_http = self.allow_private and parts.scheme == "http" and _is_loopback_name(parts.hostname)
        if len(url) > MAX_URL_CHARS or (parts.scheme != "https" and not loopback_http):
            raise invalid("A client_id URL must be an https:// URL of at most 500 characters.")
        if (
            not parts.hostname
            or parts.username
            or parts.password
            or parts.fragment
            or parts.path in ("", "/")
        ):
            raise invalid("A client_id URL names a document by its path, without credentials or fragment.")

    async def _check_address(self, url: str) -> None:
        if self.allow_private:
            return
        parts = urlsplit(url)
        try:
            found = await asyncio.get_running_loop().getaddrinfo(parts.hostname, parts.port or 443)
        except OSError:
            raise invalid("The client_id URL's host does not resolve.") from None
        for *_, address in found:
            ip = ipaddress.ip_address(address[0])
            if not ip.is_global:
                raise invalid(
                    "The client_id URL's host is a private or local address; Romergo does not fetch those."
                )

    async def _keep(self, url: str, document: dict[str, Any]) -> RegisteredClient:
        """Store (or refresh) the client row, so its grants and codes can name it."""
        row = AgentClient(
            id=url,
            kind="cimd",
            name=client_name(document.get("client_name") or urlsplit(url).hostname),
            redirect_uris=list(document["redirect_uris"]),
            scopes=ordered(_scopes(document)),
            registration=document,
            created_at=utcnow(),
        )
        async with self.db.write() as session:
            existing = await session.get(AgentClient, url)
            if existing is not None and existing.kind != "cimd":
                raise RomergoError("conflict", "This client id is taken.")
            if existing is None:
                session.add(row)
            else:
                existing.name, existing.redirect_uris = row.name, row.redirect_uris
                existing.scopes, existing.registration = row.scopes, row.registration
                row = existing
        return registered_client(row)


def _document(url: str, fetched: Fetched) -> dict[str, Any]:
    if fetched.status != 200:
        raise invalid(f"The client's metadata document answered HTTP {fetched.status}, not 200.")
    try:
        document = json.loads(fetched.body)
    except ValueError:
        raise invalid("The client's metadata document is not JSON.") from None
    if not isinstance(document, dict) or document.get("client_id") != url:
        raise invalid("The client's metadata document must name its own URL as client_id.")
    if document.get("token_endpoint_auth_method", "none") != "none":
        raise invalid("Romergo accepts public clients only: token_endpoint_auth_method must be none.")
    uris = document.get("redirect_uris")
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        raise invalid("The client's metadata document must list its redirect_uris.")
    redirects.check_redirect_uris(uris)
    return document


def _scopes(document: dict[str, Any]) -> list[str]:
    asked = document.get("scope")
    if not isinstance(asked, str):
        return list(OAUTH_SCOPES)
    return [scope for scope in asked.split() if scope in OAUTH_SCOPES] or list(OAUTH_SCOPES)


def _cache_seconds(cache_control: str) -> int:
    directives = cache_control.lower()
    if "no-store" in directives or "no-cache" in directives:
        return 0
    found = _MAX_AGE.search(directives)
    return min(int(found.group(1)), MAX_CACHE_SECONDS) if found else DEFAULT_CACHE_SECONDS


def _is_loopback_name(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _fetch(url: str) -> Fetched:
    """GET with no redirects, a time bound and a size bound (the body is read only that far)."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=FETCH_SECONDS) as http:
        async with http.stream("GET", url, headers={"Accept": "application/json"}) as answer:
            body = b""
            async for chunk in answer.aiter_bytes():
                body += chunk
                if len(body) > MAX_DOCUMENT_BYTES:
                    raise invalid("The client's metadata document is larger than 5 KB.")
            return Fetched(answer.status_code, body, answer.headers.get("cache-control", ""))
