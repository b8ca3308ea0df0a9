"""DNS rebinding outside `/mcp`, and bodies streamed past their limit.

Attacks from the round-2 pass: `Host: evil.example` was served on `/login` (a sign-in POST set a
cookie) and on `/api/v1`; Socket.IO answered any `Origin`; a body streamed without
`Content-Length` past the limit got 500 instead of 413 on `/mcp`, `/token` and `/register`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from romergo.common.config import MIB
from tests.support.server import RunningServer

FOREIGN_HOST = {"Host": "evil.example"}
FOREIGN_ORIGIN = {"Origin": "http://evil.example"}
SOCKET_IO = "/_nicegui_ws/socket.io/?EIO=4&transport=polling"


@pytest.mark.parametrize("path", ["/login", "/projects", "/api/v1/projects", "/mcp", SOCKET_IO])
async def test_a_foreign_host_is_refused_on_every_route(server: RunningServer, path: str):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.get(path, headers=FOREIGN_HOST)
    assert answer.status_code == 421, answer.text


async def test_a_sign_in_through_a_foreign_host_sets_no_cookie(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post(
            "/login", data={"username": "ada", "password": "x" * 12}, headers=FOREIGN_HOST
        )
    assert answer.status_code == 421 and "set-cookie" not in answer.headers


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1"])
async def test_every_loopback_spelling_is_the_same_server(server: RunningServer, name: str):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.get("/login", headers={"Host": f"{name}:{server.port}"})
    assert answer.status_code == 200


async def test_socket_io_refuses_a_foreign_origin_and_serves_its_own(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        foreign = await http.get(SOCKET_IO, headers=FOREIGN_ORIGIN)
        own = await http.get(SOCKET_IO, headers={"Origin": server.base_url})
    assert foreign.status_code == 403
    assert own.status_code == 200 and '"sid"' in own.text


@pytest.mark.parametrize("path", ["/login", "/api/v1/channels"])
async def test_a_foreign_origin_cannot_post(server: RunningServer, path: str):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post(path, data={"username": "ada"}, headers=FOREIGN_ORIGIN)
    assert answer.status_code == 403 and "set-cookie" not in answer.headers


async def chunks(total: int, size: int = 256 * 1024) -> AsyncIterator[bytes]:
    """A body with no Content-Length: httpx sends it chunked."""
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        sent += piece
        yield b" " * piece


async def pieces(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


@pytest.mark.parametrize("path", ["/mcp", "/token", "/register"])
async def test_a_streamed_body_over_the_limit_gets_413(server: RunningServer, path: str):
    async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
        streamed = await http.post(
            path, content=chunks(6 * MIB), headers={"Content-Type": "application/json"}
        )
        sized = await http.post(path, content=b" " * (6 * MIB), headers={"Content-Type": "application/json"})
    assert (streamed.status_code, sized.status_code) == (413, 413)
    assert streamed.json()["error"]["code"] == "too_large"


async def test_a_streamed_body_within_the_limit_still_reaches_the_endpoint(server: RunningServer):
    body = b'{"client_name": "Streamed", "redirect_uris": ["http://127.0.0.1:9/cb"]}'
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/register", content=pieces(body[:20], body[20:]))
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize(
    "path",
    ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server/mcp", "/.well-known/x"],
)
async def test_unknown_discovery_documents_are_404_not_the_sign_in_page(server: RunningServer, path: str):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.get(path)
        served = await http.get("/.well-known/oauth-protected-resource/mcp")
    assert answer.status_code == 404 and "location" not in answer.headers
    assert served.status_code == 200
