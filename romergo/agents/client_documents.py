"""Client ID Metadata Documents: an agent whose `client_id` is an `https://` URL of its own metadata.

The 2025-11-25 MCP authorization spec prefers these to dynamic registration: the client needs no
registration round trip, and the URL's host says who it is. The document is fetched here under
tight bounds (one 5 s deadline for the whole fetch, 5 KB, no redirects, only from a public
address: see `public_addresses`, which `ROMERGO_CIMD_ALLOW_PRIVATE` widens to loopback and private
networks for development, and then plain `http://` on loopback too), validated (its `client_id` is
the URL itself, redirect URIs follow the rules of `/register`, a public client), cached as its HTTP
caching headers say (at most a day), and kept as an agent client row so grants can name it. The
consent page shows the document's host.

Whoever names a URL learns only whether it could be used: every way a fetch can fail (no answer,
too slow, too large, a redirect, any status but 200) reads as one sentence, so Romergo cannot be
used to probe what a server answers. A failure is remembered for `FAILED_SECONDS`, so a hostile
URL is not fetched again at once; the HTTP routes that cause fetches also count them per address
(`fetches`), and no more than `MAX_FETCHES_AT_ONCE` run at the same time.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import time
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx2

from romergo.agents import redirects
from romergo.agents.base import client_name
from romergo.agents.document_fetch import (
    FETCH_SECONDS,
    MAX_DOCUMENT_BYTES,
    Fetch,
    Fetched,
    Lookup,
    Unreadable,
    fetch_from,
    look_up,
)
from romergo.agents.public_addresses import may_fetch_from
from romergo.agents.records import RegisteredClient, registered_client
from romergo.agents.scopes import OAUTH_SCOPES, ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ratelimit import LocalRateLimit, RateLimit
from storage import Database
from storage.tables import AgentClient

DEFAULT_CACHE_SECONDS = 300
MAX_CACHE_SECONDS = 24 * 3600
FAILED_SECONDS = 30
"""How long a document that could not be used is refused again without fetching it."""
MAX_REMEMBERED = 1000
"""Documents (and failures) remembered at most; the oldest are forgotten first."""
FETCHES_PER_MINUTE = 12
"""Document fetches one client address may cause per minute (a connecting agent needs one or two)."""
MAX_FETCHES_AT_ONCE = 16
"""Fetches running at the same time, for all addresses together; beyond it a fetch is refused."""
MAX_URL_CHARS = 500
_MAX_AGE = re.compile(r"max-age=(\d+)")
Remembered = TypeVar("Remembered")

COULD_NOT_FETCH = (
    "The client's metadata document could not be fetched: Romergo needs an HTTP 200 answer of at most "
    f"{MAX_DOCUMENT_BYTES // 1024} KB within {FETCH_SECONDS:g} seconds, without redirects."
)
NOT_PUBLIC = (
    "The client_id URL's host is a private, local or multicast address; Romergo does not fetch those."
)


def is_document_url(client_id: object) -> bool:
    """Whether a `client_id` names a metadata document rather than a registered client."""
    return isinstance(client_id, str) and client_id.startswith(("https://", "http://"))


class ClientDocuments:
    def __init__(
        self,
        db: Database,
        *,
        allow_private: bool,
        fetches: RateLimit | None = None,
        fetch: Fetch | None = None,
        lookup: Lookup | None = None,
    ) -> None:
        self.db = db
        self.allow_private = allow_private
        self.fetches = fetches or LocalRateLimit(limit=FETCHES_PER_MINUTE, window_seconds=60)
        """Fetches per client address; the HTTP routes that resolve a `client_id` ask it first."""
        self.fetch = fetch or fetch_from
        self.lookup = lookup or look_up
        self._cached: dict[str, tuple[float, RegisteredClient]] = {}
        self._failed: dict[str, tuple[float, str]] = {}
        self._fetching = 0

    async def resolve(self, url: str) -> RegisteredClient:
        """The client a document describes; raises `invalid_argument` saying why it cannot be used."""
        now = time.monotonic()
        cached = _fresh(self._cached, url, now)
        if cached is not None:
            return cached
        failed = _fresh(self._failed, url, now)
        if failed is not None:
            raise invalid(failed)
        problem = self._url_problem(url)
        if problem is not None:
            raise invalid(problem)
        try:
            fetched = await self._fetch_once(url)
            client = await self._keep(url, _document(url, fetched))
        except RomergoError as refused:
            if refused.code == "invalid_argument":
                _remember(self._failed, url, (time.monotonic() + FAILED_SECONDS, refused.message))
            raise
        lifetime = _cache_seconds(fetched.cache_control)
        if lifetime > 0:
            _remember(self._cached, url, (now + lifetime, client))
        else:
            self._cached.pop(url, None)
        return client

    def will_fetch(self, url: str) -> bool:
        """Whether resolving `url` now would fetch it: a document URL not remembered either way."""
        if not is_document_url(url) or self._url_problem(url) is not None:
            return False
        now = time.monotonic()
        return _fresh(self._cached, url, now) is None and _fresh(self._failed, url, now) is None

    async def _fetch_once(self, url: str) -> Fetched:
        if self._fetching >= MAX_FETCHES_AT_ONCE:
            raise RomergoError(
                "rate_limited", "Romergo is fetching many client metadata documents; try again in a minute."
            )
        self._fetching += 1
        try:
            async with asyncio.timeout(FETCH_SECONDS):
                return await self._fetch_checked(url)
        except (httpx2.HTTPError, OSError, TimeoutError, Unreadable, ValueError):
            raise invalid(COULD_NOT_FETCH) from None
        finally:
            self._fetching -= 1

    async def _fetch_checked(self, url: str) -> Fetched:
        """Ask the first address that answers, among the host's addresses, once all are checked."""
        parts = urlsplit(url)
        try:
            addresses = await self.lookup(parts.hostname or "", parts.port or _default_port(parts.scheme))
        except OSError:
            raise invalid("The client_id URL's host does not resolve.") from None
        if not addresses or not all(
            may_fetch_from(address, allow_private=self.allow_private) for address in addresses
        ):
            raise invalid(NOT_PUBLIC)
        for address in addresses[:-1]:
            try:
                return await self.fetch(url, address)
            except httpx2.ConnectError:
                continue
        return await self.fetch(url, addresses[-1])

    def _url_problem(self, url: str) -> str | None:
        parts = urlsplit(url)
        loopback_http = self.allow_private and parts.scheme == "http" and _is_loopback_name(parts.hostname)
        if len(url) > MAX_URL_CHARS or (parts.scheme != "https" and not loopback_http):
            return "A client_id URL must be an https:// URL of at most 500 characters."
        try:
            parts.port  # noqa: B018 - a port out of range raises here, before any lookup
        except ValueError:
            return "A client_id URL's port must be a number from 1 to 65535."
        if (
            not parts.hostname
            or parts.username
            or parts.password
            or parts.fragment
            or parts.path in ("", "/")
        ):
            return "A client_id URL names a document by its path, without credentials or fragment."
        return None

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
        raise invalid(COULD_NOT_FETCH)
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


def _default_port(scheme: str) -> int:
    return 80 if scheme == "http" else 443


def _fresh(remembered: dict[str, tuple[float, Remembered]], url: str, now: float) -> Remembered | None:
    found = remembered.get(url)
    if found is None:
        return None
    if found[0] <= now:
        del remembered[url]
        return None
    return found[1]


def _remember(
    remembered: dict[str, tuple[float, Remembered]], url: str, entry: tuple[float, Remembered]
) -> None:
    """Keep `entry` for `url`, forgetting the oldest entries beyond `MAX_REMEMBERED`."""
    remembered.pop(url, None)
    remembered[url] = entry
    while len(remembered) > MAX_REMEMBERED:
        del remembered[next(iter(remembered))]
