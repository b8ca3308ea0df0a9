"""Client ID Metadata Documents in the core: what a document must say, how long it is believed,
and which URLs are never fetched."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from romergo.access.agents import client_documents
from romergo.access.agents.client_documents import ClientDocuments
from romergo.access.agents.document_fetch import Fetched, fetch_from
from romergo.access.agents.trusted_documents import TrustedDocuments
from romergo.common.errors import RomergoError
from romergo.services import Services, agent_ledgers
from tests.support.pages_server import serving

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""

URL = "https://agent.example/client.json"
GOOD: dict[str, Any] = {
    "client_id": URL,
    "client_name": "Example Agent",
    "redirect_uris": ["http://127.0.0.1:7777/callback"],
    "token_endpoint_auth_method": "none",
}


class Site:
    """What the document's site answers, and how often it was asked."""

    def __init__(self, body: object = GOOD, status: int = 200, cache_control: str = "max-age=60") -> None:
        self.body, self.status, self.cache_control = body, status, cache_control
        self.asked = 0
        self.addresses: list[str] = []

    async def __call__(self, url: str, address: str) -> Fetched:
        self.asked += 1
        self.addresses.append(address)
        raw = self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()
        return Fetched(self.status, raw, self.cache_control)


async def public_lookup(host: str, port: int) -> list[str]:
    """These tests have no network: every name is a public address. The address rule has its own tests."""
    return ["93.184.215.14"]


def resolver_of(services: Services, **options: Any) -> ClientDocuments:
    """A resolver on the services' database, with its own cache and no documents trusted."""
    ledgers = agent_ledgers(services.db)
    return ClientDocuments(
        ledgers.clients, trusted=TrustedDocuments(ledgers.trusted_documents, ledgers.clients), **options
    )


def documents(services: Services, site: Site, allow_private: bool = True) -> ClientDocuments:
    return resolver_of(services, allow_private=allow_private, fetch=site, lookup=public_lookup)


async def test_a_good_document_becomes_a_client_shown_by_its_host(services):
    client = await documents(services, Site()).resolve(URL)
    assert client.client_id == URL and client.name == "Example Agent"
    assert client.redirect_uris == ("http://127.0.0.1:7777/callback",)
    assert client.document_host == "agent.example"
    assert await services.agents.clients.get("https://agent.example/other.json") is None  # never fetched here


@pytest.mark.parametrize(
    ("site", "says"),
    [
        (Site({**GOOD, "client_id": "https://other.example/client.json"}), "its own URL"),
        (Site({**GOOD, "redirect_uris": ["http://evil.example/cb"]}), "redirect"),
        (Site({**GOOD, "redirect_uris": "http://127.0.0.1/cb"}), "redirect_uris"),
        (Site({**GOOD, "token_endpoint_auth_method": "client_secret_basic"}), "public clients"),
        (Site(b"<html>not json</html>"), "not JSON"),
        (Site(["a", "list"]), "its own URL"),
        (Site(status=302), "could not be fetched"),
        (Site(status=404), "could not be fetched"),
    ],
)
async def test_a_document_that_cannot_be_believed_is_refused_saying_why(services, site: Site, says: str):
    with pytest.raises(RomergoError) as refused:
        await documents(services, site).resolve(URL)
    assert refused.value.code == "invalid_argument" and says in refused.value.message
    assert await services.agents.clients.get(URL) is None


@pytest.mark.parametrize(
    "url",
    [
        "http://agent.example/client.json",  # not https
        "https://agent.example/",  # no document path
        "https://user:pw@agent.example/client.json",
        "https://agent.example/client.json#frag",
        "https://agent.example/" + "x" * 600,
    ],
)
async def test_urls_that_are_no_document_address_are_refused_before_any_fetch(services, url: str):
    site = Site({**GOOD, "client_id": url})
    with pytest.raises(RomergoError):
        await documents(services, site, allow_private=False).resolve(url)
    assert site.asked == 0


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1/c.json", "https://localhost/c.json", "https://10.1.2.3/c.json"]
)
async def test_private_and_loopback_addresses_are_never_fetched_by_default(services, url: str):
    site = Site({**GOOD, "client_id": url})
    resolver = resolver_of(services, allow_private=False, fetch=site)
    with pytest.raises(RomergoError) as refused:
        await resolver.resolve(url)
    assert "Romergo does not fetch those" in refused.value.message and site.asked == 0


async def test_the_document_is_believed_as_long_as_its_cache_headers_say(services):
    cached = Site(cache_control="public, max-age=600")
    resolver = documents(services, cached)
    await resolver.resolve(URL)
    await resolver.resolve(URL)
    assert cached.asked == 1
    uncached = Site(cache_control="no-store")
    resolver = documents(services, uncached)
    await resolver.resolve(URL)
    await resolver.resolve(URL)
    assert uncached.asked == 2


async def test_a_document_over_5_kb_or_a_redirect_is_refused_by_the_real_fetch(services):
    async with serving({"/big.json": (200, b"{" + b" " * 6000 + b"}"), "/moved.json": (302, b"")}) as base:
        resolver = resolver_of(services, allow_private=True)
        for path in ("/big.json", "/moved.json"):
            with pytest.raises(RomergoError) as refused:
                await resolver.resolve(base + path)
            assert "could not be fetched" in refused.value.message and "5 KB" in refused.value.message


async def test_the_fetch_goes_to_the_address_that_was_checked_and_looks_the_name_up_once(services):
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])  # a name that rebinds after the first lookup
    lookups: list[str] = []

    async def rebinding(host: str, port: int) -> list[str]:
        lookups.append(host)
        return next(answers)

    site = Site(cache_control="no-store")
    resolver = resolver_of(services, allow_private=False, fetch=site, lookup=rebinding)
    await resolver.resolve(URL)
    assert lookups == ["agent.example"] and site.addresses == ["93.184.215.14"]


async def test_the_real_fetch_connects_to_the_checked_address_and_names_the_host_only_in_the_request():
    heads: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads.append(await reader.readuntil(b"\r\n\r\n"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
        await writer.drain()
        writer.close()

    site = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = site.sockets[0].getsockname()[1]
    try:
        fetched = await fetch_from(f"http://documents.invalid:{port}/agent.json", "127.0.0.1")
    finally:
        site.close()
        await site.wait_closed()
    assert fetched.status == 200 and fetched.body == b"{}"
    assert f"host: documents.invalid:{port}".encode() in heads[0].lower()


async def test_a_document_that_could_not_be_used_is_not_fetched_again_at_once(services):
    missing = Site(status=404)
    resolver = documents(services, missing)
    for _ in range(2):
        with pytest.raises(RomergoError) as refused:
            await resolver.resolve(URL)
        assert "could not be fetched" in refused.value.message
    assert missing.asked == 1 and not resolver.will_fetch(URL)


async def test_a_fetch_that_never_ends_is_given_up_at_the_deadline(services, monkeypatch):
    monkeypatch.setattr(client_documents, "FETCH_SECONDS", 0.2)

    async def endless(url: str, address: str) -> Fetched:
        await asyncio.Event().wait()
        raise AssertionError("never answered")

    resolver = resolver_of(services, allow_private=False, fetch=endless, lookup=public_lookup)
    with pytest.raises(RomergoError) as refused:
        await resolver.resolve(URL)
    assert "could not be fetched" in refused.value.message


async def test_only_so_many_documents_are_fetched_at_once(services):
    release, all_started = asyncio.Event(), asyncio.Event()
    started: list[str] = []

    async def held(url: str, address: str) -> Fetched:
        started.append(url)
        if len(started) == client_documents.MAX_FETCHES_AT_ONCE:
            all_started.set()
        await release.wait()
        return Fetched(404, b"", "")

    resolver = resolver_of(services, allow_private=False, fetch=held, lookup=public_lookup)
    urls = [f"https://agent{n}.example/client.json" for n in range(client_documents.MAX_FETCHES_AT_ONCE)]
    running = [asyncio.create_task(resolver.resolve(url)) for url in urls]
    await all_started.wait()
    with pytest.raises(RomergoError) as refused:
        await resolver.resolve("https://one-too-many.example/client.json")
    assert refused.value.code == "rate_limited"
    release.set()
    await asyncio.gather(*running, return_exceptions=True)
    assert resolver.will_fetch("https://one-too-many.example/client.json")
