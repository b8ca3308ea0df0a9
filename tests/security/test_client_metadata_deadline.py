"""Fetching an agent's client metadata document is bounded as a whole, and `/authorize` (which
needs no sign-in) cannot be used to make Romergo fetch without end.

A document served one byte every 1.5 s never trips a per-read timeout; only one deadline for the
whole fetch ends it. The document servers here live on this machine, so this server allows
loopback documents (`ROMERGO_CIMD_ALLOW_PRIVATE`, for development).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from tests.support.oauth import CALLBACK_URI, authorize_url, pkce
from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_CIMD_ALLOW_PRIVATE": "1"}
SLOW_ANSWER = (
    b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"client_id": '
)


@asynccontextmanager
async def trickling_site() -> AsyncIterator[str]:
    """A document server that answers one byte every 1.5 s, for as long as it is listened to."""
    answering: set[asyncio.Task[None]] = set()

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        answering.add(asyncio.current_task())
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        try:
            for byte in SLOW_ANSWER:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(1.5)
        except ConnectionError:
            pass  # Romergo gave up listening, as it should
        finally:
            writer.close()

    site = await asyncio.start_server(trickle, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{site.sockets[0].getsockname()[1]}"
    finally:
        site.close()
        for task in answering:
            task.cancel()
        await asyncio.gather(*answering, return_exceptions=True)


async def test_a_document_that_trickles_in_gets_the_error_page_within_the_deadline(server: RunningServer):
    async with trickling_site() as site:
        url = authorize_url(server.base_url, f"{site}/agent.json", CALLBACK_URI, pkce()[1])
        started = time.monotonic()
        async with httpx.AsyncClient(timeout=20) as http:
            answered = await http.get(url)
        took = time.monotonic() - started
    assert answered.status_code == 400 and "location" not in answered.headers
    assert "could not be fetched" in answered.text
    assert took < 8, f"/authorize held {took:.1f} s by a document that trickles in"


async def test_a_flood_of_document_urls_from_one_address_is_rate_limited(server: RunningServer):
    asked: list[str] = []
    async with counting_site(asked) as site:
        flooder = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(transport=flooder, timeout=20) as http:
            answers = [
                await http.get(authorize_url(server.base_url, f"{site}/{n}.json", CALLBACK_URI, pkce()[1]))
                for n in range(30)
            ]
        async with httpx.AsyncClient(timeout=20) as neighbour:
            other = await neighbour.get(
                authorize_url(server.base_url, f"{site}/neighbour.json", CALLBACK_URI, pkce()[1])
            )
    limited = [answer for answer in answers if answer.status_code == 429]
    assert limited, "thirty fetches in a row from one address were all made"
    assert "Too many" in limited[-1].text and int(limited[-1].headers["retry-after"]) >= 1
    assert "location" not in limited[-1].headers
    assert len(asked) <= 16, f"{len(asked)} documents fetched for one address within a minute"
    # Another address is not held back by the first one's flood.
    assert other.status_code == 400 and "could not be fetched" in other.text
    assert asked[-1] == "/neighbour.json"


async def test_a_flood_through_the_token_endpoint_is_rate_limited_too(server: RunningServer):
    asked: list[str] = []
    async with counting_site(asked) as site:
        flooder = httpx.AsyncHTTPTransport(local_address="127.0.0.3")
        async with httpx.AsyncClient(transport=flooder, base_url=server.base_url, timeout=20) as http:
            answers = [
                await http.post(
                    "/token",
                    data={
                        "grant_type": "authorization_code",
                        "client_id": f"{site}/{n}.json",
                        "code": "made-up",
                        "code_verifier": pkce()[0],
                        "redirect_uri": CALLBACK_URI,
                    },
                )
                for n in range(30)
            ]
    limited = [answer for answer in answers if answer.status_code == 429]
    assert limited, "thirty fetches in a row from one address were all made"
    assert limited[-1].json()["error"] == "rate_limited" and int(limited[-1].headers["retry-after"]) >= 1
    assert len(asked) <= 16, f"{len(asked)} documents fetched for one address within a minute"


@asynccontextmanager
async def counting_site(asked: list[str]) -> AsyncIterator[str]:
    """A document server that notes each path Romergo asks for and has none of them."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        asked.append((await reader.readline()).decode("latin-1").split(" ")[1])
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
        writer.close()

    site = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{site.sockets[0].getsockname()[1]}"
    finally:
        site.close()
        await site.wait_closed()
