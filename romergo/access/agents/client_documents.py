"""Client ID Metadata Documents: an agent whose `client_id` is an `https://` URL of its own metadata.

The 2025-11-25 MCP authorization spec prefers these to dynamic registration: the client needs no
registration round trip, and the URL's host says who it is. The document is fetched here under
tight bounds (one 5 s deadline for the whole fetch, 5 KB, no redirects, only from a public
address: see `public_addresses`, which `ROMERGO_CIMD_ALLOW_PRIVATE` widens to loopback and private
networks for development, and then plain `http://` on loopback too), validated (its `client_id` is
the URL itself, redirect URIs follow the rules of `/register`, a public client), cached as its HTTP
caching headers say (at most a day), and kept as an agent client row so grants can name it. The
consent page shows the document's host. A document an administrator trusted from a file
(`trusted_documents`) is used instead of fetching, for servers that cannot reach the URL; a fetch
that cannot reach the document at all raises `UnreachableDocument`, so the error page can say so.

Whoever names a URL learns only whether it could be used: every way a fetch can fail (no answer,
too slow, too large, a redirect, any status but 200) reads as one sentence, so Romergo cannot be
used to probe what a server answers. A failure is remembered for `FAILED_SECONDS`, so a hostile
URL is not fetched again at once; the HTTP routes that cause fetches also count them per address
(`fetches`), and no more than `MAX_FETCHES_AT_ONCE` run at the same time.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx2

from romergo.access.agents.document_fetch import (
    FETCH_SECONDS,
    MAX_DOCUMENT_BYTES,
    Fetch,
    Fetched,
    Lookup,
    Unreadable,
    fetch_from,
    look_up,
)
from romergo.access.agents.document_rules import (
    MAX_URL_CHARS,
    checked_document,
    is_document_url,
    keep_client,
    url_problem,
)
from romergo.access.agents.ledger import ClientLedger
from romergo.access.agents.public_addresses import may_fetch_from
from romergo.access.agents.records import RegisteredClient
from romergo.access.agents.trusted_documents import TrustedDocuments
from romergo.access.ratelimit import LocalRateLimit, RateLimit
from romergo.common.errors import RomergoError, invalid

__all__ = ["MAX_URL_CHARS", "ClientDocuments", "UnreachableDocument", "is_document_url"]

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
_MAX_AGE = re.compile(r"max-age=(\d+)")
Remembered = TypeVar("Remembered")

COULD_NOT_FETCH = (
    "The client's metadata document could not be fetched: Romergo needs an HTTP 200 answer of at most "
    f"{MAX_DOCUMENT_BYTES // 1024} KB within {FETCH_SECONDS:g} seconds, without redirects."
)
NOT_PUBLIC = (
    "The client_id URL's host is a private, local or multicast address; Romergo does not fetch those."
)
NO_SUCH_HOST = "The client_id URL's host does not resolve."


class UnreachableDocument(RomergoError):
    """The document could not be fetched at all (as opposed to a document fetched and refused):
    the case an administrator can settle by trusting the document from a file."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_argument", message)


class ClientDocuments:
    def __init__(
        self,
        clients: ClientLedger,
        *,
        trusted: TrustedDocuments,
        allow_private: bool,
        fetches: RateLimit | None = None,
        fetch: Fetch | None = None,
        lookup: Lookup | None = None,
    ) -> None:
        self.clients = clients
        self.trusted = trusted
        """Documents an administrator stored from files; they win over fetching."""
        self.allow_private = allow_private
        self.fetches = fetches or LocalRateLimit(limit=FETCHES_PER_MINUTE, window_seconds=60)
        """Fetches per client address; the HTTP routes that resolve a `client_id` ask it first."""
        self.fetch = fetch or fetch_from
        self.lookup = lookup or look_up
        self._cached: dict[str, tuple[float, RegisteredClient]] = {}
        self._failed: dict[str, tuple[float, RomergoError]] = {}
        self._trusted_urls: set[str] = set()
        self._fetching = 0

    async def resolve(self, url: str) -> RegisteredClient:
        """The client a document describes; raises `invalid_argument` saying why it cannot be used.

        A document an administrator trusted from a file wins over the URL: it is read from the
        database every time (the command that trusts or untrusts runs in another process), and the
        URL is not fetched while it is trusted.
        """
        problem = url_problem(url, allow_private=self.allow_private)
        if problem is not None:
            raise invalid(problem)
        trusted = await self.trusted.client(url)
        if trusted is not None:
            self._trusted_urls.add(url)
            return trusted
        self._trusted_urls.discard(url)
        now = time.monotonic()
        cached = _fresh(self._cached, url, now)
        if cached is not None:
            return cached
        failed = _fresh(self._failed, url, now)
        if failed is not None:
            raise _again(failed)
        try:
            fetched = await self._fetch_once(url)
            client = await keep_client(self.clients, url, _document(url, fetched))
        except RomergoError as refused:
            if refused.code == "invalid_argument":
                _remember(self._failed, url, (time.monotonic() + FAILED_SECONDS, _again(refused)))
            raise
        lifetime = _cache_seconds(fetched.cache_control)
        if lifetime > 0:
            _remember(self._cached, url, (now + lifetime, client))
        else:
            self._cached.pop(url, None)
        return client

    def will_fetch(self, url: str) -> bool:
        """Whether resolving `url` now would fetch it: a document URL not remembered either way,
        nor trusted when last resolved."""
        if not is_document_url(url) or url_problem(url, allow_private=self.allow_private) is not None:
            return False
        if url in self._trusted_urls:
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
            raise UnreachableDocument(COULD_NOT_FETCH) from None
        finally:
            self._fetching -= 1

    async def _fetch_checked(self, url: str) -> Fetched:
        """Ask the first address that answers, among the host's addresses, once all are checked."""
        parts = urlsplit(url)
        try:
            addresses = await self.lookup(parts.hostname or "", parts.port or _default_port(parts.scheme))
        except OSError:
            raise UnreachableDocument(NO_SUCH_HOST) from None
        if not addresses or not all(
            may_fetch_from(address, allow_private=self.allow_private) for address in addresses
        ):
            raise UnreachableDocument(NOT_PUBLIC)
        for address in addresses[:-1]:
            try:
                return await self.fetch(url, address)
            except httpx2.ConnectError:
                continue
        return await self.fetch(url, addresses[-1])


def _again(refused: RomergoError) -> RomergoError:
    """The same refusal as a fresh exception: remembered without the traceback (and the frames it
    holds), and raised anew without piling up the tracebacks of earlier raises."""
    if isinstance(refused, UnreachableDocument):
        return UnreachableDocument(refused.message)
    return RomergoError(refused.code, refused.message)


def _document(url: str, fetched: Fetched) -> dict[str, Any]:
    if fetched.status != 200:
        raise UnreachableDocument(COULD_NOT_FETCH)
    return checked_document(url, fetched.body)


def _cache_seconds(cache_control: str) -> int:
    directives = cache_control.lower()
    if "no-store" in directives or "no-cache" in directives:
        return 0
    found = _MAX_AGE.search(directives)
    return min(int(found.group(1)), MAX_CACHE_SECONDS) if found else DEFAULT_CACHE_SECONDS


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
