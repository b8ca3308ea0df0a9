"""The server's life: registration limits, tokens across restarts (and only their hashes on disk),
a changed public address, and a prompt stop with a long-lived MCP stream open.

The tests run in file order on one server; the last one stops it."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from tests.support.oauth import (
    CALLBACK_URI,
    mcp_client,
    mcp_status,
    oauth_tokens,
    personal_token,
    refresh,
)
from tests.support.server import RunningServer

pytestmark = pytest.mark.long

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


async def test_registrations_are_rate_limited_per_address(server: RunningServer):
    # From a loopback address of its own, so no other test's registrations count.
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    body = {"client_name": "Flood", "redirect_uris": [CALLBACK_URI]}
    async with httpx.AsyncClient(base_url=server.base_url, transport=transport) as http:
        statuses = [(await http.post("/register", json=body)).status_code for _ in range(20)]
        refused = await http.post("/register", json=body)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        elsewhere = await http.post("/register", json=body)
    assert statuses == [201] * 20
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert elsewhere.status_code == 201  # the limit is per address, never global


async def test_tokens_survive_a_restart_and_only_their_hashes_are_stored(server: RunningServer, ada):
    tokens = await oauth_tokens(ada)
    personal = personal_token(server, "ada")

    server.restart()

    assert (await mcp_status(server.base_url, tokens.access_token)).status_code == 200
    async with mcp_client(server.base_url, personal) as client:
        assert not (await client.call_tool("romergo_list_projects", {})).is_error
    rotated = await refresh(server.base_url, tokens.client_id, tokens.refresh_token)
    assert rotated.status_code == 200
    new = rotated.json()
    raw = b"".join(path.read_bytes() for path in sorted(server.data_dir.glob("romergo.db*")))
    assert raw, "the SQLite files were read"
    secrets = [tokens.code, tokens.access_token, tokens.refresh_token, personal, new["access_token"]]
    for secret in [*secrets, new["refresh_token"], tokens.consent_request]:
        assert secret.encode() not in raw
    assert tokens.client_id.encode() in raw  # the file is the right one, and readable as bytes


async def test_a_token_issued_for_another_address_is_refused(server: RunningServer, ada):
    tokens = await oauth_tokens(ada)
    personal = personal_token(server, "ada")
    # The same server, now known as http://localhost:PORT: its MCP endpoint is another resource.
    server.extra_env["ROMERGO_PUBLIC_URL"] = f"http://localhost:{server.port}"
    try:
        server.restart()
        foreign = await mcp_status(server.base_url, tokens.access_token)
        assert foreign.status_code == 401
        assert f'resource_metadata="http://localhost:{server.port}/' in foreign.headers["www-authenticate"]
        assert (await mcp_status(server.base_url, personal)).status_code == 200
    finally:
        del server.extra_env["ROMERGO_PUBLIC_URL"]
        server.restart()
    assert (await mcp_status(server.base_url, tokens.access_token)).status_code == 200


async def test_the_server_stops_within_5_seconds_with_an_mcp_stream_open(server: RunningServer):
    """No tool waits yet (the long-poll comes with channels), so the long-lived request is the
    handshake-era standalone stream: after `initialize`, a client's GET on /mcp stays open for
    server messages for as long as the session lives. Shutdown must not wait for it."""
    token = personal_token(server, "ada")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    async with httpx.AsyncClient(base_url=server.base_url, timeout=30) as http:
        started = await http.post("/mcp", json=INITIALIZE, headers=headers)
        assert started.status_code == 200, started.text
        session = {**headers, "Mcp-Session-Id": started.headers["mcp-session-id"]}
        ready = await http.post(
            "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
        )
        assert ready.status_code == 202
        async with http.stream("GET", "/mcp", headers={**session, "Accept": "text/event-stream"}) as stream:
            assert stream.status_code == 200  # open, and held by the server
            began = time.monotonic()
            took = await asyncio.to_thread(server.stop)
            assert server.process is not None and server.process.poll() is not None
        let_go = time.monotonic() - began  # the client's stream closed once the server was gone
    await asyncio.to_thread(server.start)  # the module's other tests, in any order, need it running
    assert took < 5, f"stopping took {took:.1f} s"
    assert let_go < 6, f"the client let go of the stream {let_go:.1f} s after the stop began"
    assert "Application shutdown complete" in server.log()
