"""Slow clients cannot hold the server: 1,200 connections from one address, each trickling a request
head one byte at a time, against a server whose open-files limit is the common 1,024.

The attacker's connections come from 127.0.0.2, the ordinary client from 127.0.0.1. The excess
connections are answered 503 at once, the rest are closed once the head deadline passes, and the
ordinary client is served all along.
"""

from __future__ import annotations

import asyncio
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.support.oauth import add_user, mcp_status, personal_token
from tests.support.server import RunningServer

# Its own server, 1,200 connections and the head deadline's real seconds: near a minute under the
# suite's load, so it starts early rather than finish last alone.
pytestmark = pytest.mark.long

OPEN_FILES = 1024
ATTACKERS = 1200
ATTACKER_ADDRESS = "127.0.0.2"
HEAD_SECONDS = 8
ORDINARY_REQUESTS = 20
SPREAD_ADDRESSES = 4
SPREAD_PER_ADDRESS = 240
"""Slow connections from each of several addresses: under the per-address cap, over the total."""
SLOW_HEAD = (
    b"GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
)
TRICKLE_SECONDS = 0.5
"""The attacker's pace: one byte of the head every half second, never its end."""


@dataclass
class Outcome:
    answer: bytes
    """The first bytes the server wrote back (empty if it closed without a word)."""
    closed_after: float
    """Seconds from starting to connect until the server closed the connection."""


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    env = {"ROMERGO_REQUEST_HEAD_SECONDS": str(HEAD_SECONDS)}
    with open_files_limit(OPEN_FILES):
        running = RunningServer(Path(tmp_path_factory.mktemp("slow")), env=env).start()
    add_user(running, "ada", demo=False)
    yield running
    running.stop()


async def test_slow_heads_from_one_address_cannot_starve_other_clients(slow_server: RunningServer):
    port = slow_server.port
    connected = asyncio.Queue[None]()
    attack = [
        asyncio.create_task(_trickle_a_head(port, connected, ATTACKER_ADDRESS)) for _ in range(ATTACKERS)
    ]
    try:
        # Every attacking connection is open before the ordinary client starts.
        for _ in attack:
            await asyncio.wait_for(connected.get(), 60)
        durations = await _ordinary_requests(slow_server.base_url)
        # Served while the attackers are held, well before their head deadline would free the server
        # (a loaded machine delayed all twenty by ~2.9 s at once, as it refused the excess).
        assert all(took is not None and took < HEAD_SECONDS - 2 for took in durations), durations
        outcomes = await asyncio.wait_for(asyncio.gather(*attack), HEAD_SECONDS + 30)
    finally:
        for task in attack:
            task.cancel()

    refused = [o for o in outcomes if o.answer.startswith(b"HTTP/1.1 503")]
    held = [o for o in outcomes if not o.answer.startswith(b"HTTP/1.1 503")]
    assert len(refused) > ATTACKERS // 2, f"{len(refused)} of {ATTACKERS} refused"
    assert all(b"too many connections" in o.answer.lower() for o in refused), refused[0].answer
    assert held, "no connection was admitted at all"
    # A connection that never finishes its head is answered 408 and closed after the deadline.
    assert all(o.answer.startswith(b"HTTP/1.1 408") for o in held), held[0].answer
    assert all(HEAD_SECONDS - 1 <= o.closed_after <= HEAD_SECONDS + 15 for o in held), sorted(
        o.closed_after for o in held
    )[:: max(1, len(held) // 10)]


async def _trickle_a_head(port: int, connected: asyncio.Queue[None], address: str) -> Outcome:
    """One attacking connection: a head sent a byte at a time until the server answers or closes."""
    # Timed from before the connect: the server's deadline starts when it accepts, which a busy client
    # loop may only notice a second later, so a clock started after the connect would read short.
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    connected.put_nowait(None)
    answer = b""
    try:
        for byte in SLOW_HEAD:
            try:
                writer.write(bytes([byte]))
                await writer.drain()
            except ConnectionError:
                break
            try:
                answer = await asyncio.wait_for(reader.read(4096), TRICKLE_SECONDS)
                break  # an answer, or the server closed the connection
            except TimeoutError:
                continue
        answer += await _rest(reader)
        return Outcome(answer=answer, closed_after=time.monotonic() - started)
    finally:
        writer.close()


async def _rest(reader: asyncio.StreamReader) -> bytes:
    try:
        return await asyncio.wait_for(reader.read(), 5)
    except (ConnectionError, TimeoutError):
        return b""


async def _ordinary_requests(base_url: str) -> list[float | None]:
    """How long each ordinary request took (None: it failed), one after the other."""
    durations: list[float | None] = []
    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        for _ in range(ORDINARY_REQUESTS):
            started = time.monotonic()
            try:
                response = await http.get("/.well-known/oauth-authorization-server")
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            durations.append(time.monotonic() - started if ok else None)
    return durations


async def test_a_server_full_of_slow_connections_says_so_and_serves_again_after_the_deadline(
    slow_server: RunningServer,
):
    """Slow heads from several addresses, each under its own cap, fill the server: a new connection
    is answered 503 at once (never left hanging in the kernel's queue), and once the deadline has
    closed the slow ones every request is served again."""
    connected = asyncio.Queue[None]()
    addresses = [f"127.0.0.{n}" for n in range(3, 3 + SPREAD_ADDRESSES)]
    attack = [
        asyncio.create_task(_trickle_a_head(slow_server.port, connected, address))
        for address in addresses
        for _ in range(SPREAD_PER_ADDRESS)
    ]
    try:
        for _ in attack:
            await asyncio.wait_for(connected.get(), 60)
        async with httpx.AsyncClient(base_url=slow_server.base_url, timeout=10) as http:
            started = time.monotonic()
            while_full = await http.get("/.well-known/oauth-authorization-server")
            answered_after = time.monotonic() - started
        outcomes = await asyncio.wait_for(asyncio.gather(*attack), HEAD_SECONDS + 30)
    finally:
        for task in attack:
            task.cancel()

    assert (while_full.status_code, answered_after < 3) == (503, True), (while_full.text, answered_after)
    assert "too many connections to this server" in while_full.text.lower()
    refused = [o for o in outcomes if o.answer.startswith(b"HTTP/1.1 503")]
    assert refused and all(b"too many connections to this server" in o.answer.lower() for o in refused)
    durations = await _ordinary_requests(slow_server.base_url)
    assert all(took is not None and took < 3 for took in durations), durations


async def test_a_trickled_body_is_cut_while_an_event_stream_lives_on(slow_server: RunningServer):
    """A body sent a byte at a time is cut within two windows; an MCP event stream opened at the
    same moment, which sends nothing for longer than that, is a response being made and stays."""
    token = personal_token(slow_server, "ada", "--scopes", "read")
    session = (await mcp_status(slow_server.base_url, token)).headers.get("mcp-session-id", "")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
        **({"Mcp-Session-Id": session} if session else {}),
    }
    async with httpx.AsyncClient(base_url=slow_server.base_url, timeout=30) as http:
        async with http.stream("GET", "/mcp", headers=headers) as stream:
            assert stream.status_code == 200
            closed_after = await _trickle_a_body(slow_server.port)
            assert not stream.is_closed
            events = stream.aiter_bytes()
            with pytest.raises(TimeoutError):  # nothing to say, and not closed either
                await asyncio.wait_for(anext(events), 1)
    assert closed_after is not None and closed_after <= 2 * HEAD_SECONDS + 5, closed_after


async def _trickle_a_body(port: int) -> float | None:
    """Seconds until the server closes a connection whose 1,000-byte body comes a byte at a time
    (None: still open after three windows)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = b"POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
    writer.write(head + b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
    started = time.monotonic()
    try:
        while time.monotonic() - started < 3 * HEAD_SECONDS:
            try:
                writer.write(b"a")
                await writer.drain()
                if await asyncio.wait_for(reader.read(4096), TRICKLE_SECONDS) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                continue
            except ConnectionError:
                return time.monotonic() - started
        return None
    finally:
        writer.close()


@contextmanager
def open_files_limit(limit: int) -> Iterator[None]:
    """A server started inside this block inherits `limit` open files (the test process keeps its own)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(limit, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
