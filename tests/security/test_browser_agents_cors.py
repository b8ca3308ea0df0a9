"""Browser-based MCP clients: CORS on the agent endpoints for allowed origins only.

A preflight is answered before authentication, echoes the allowed origin and lists what a client
must read (`Mcp-Session-Id`, `WWW-Authenticate`); a foreign origin still gets 403.
"""

from __future__ import annotations

import httpx
import pytest

from tests.support.server import RunningServer

OWN_TOOL_ORIGIN = "http://localhost:6274"  # e.g. MCP Inspector's web UI on this machine


def preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
    }


@pytest.mark.parametrize("path", ["/mcp", "/token", "/register", "/.well-known/oauth-authorization-server"])
async def test_a_preflight_from_an_allowed_origin_is_answered_before_authentication(
    server: RunningServer, path: str
):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.options(path, headers=preflight(OWN_TOOL_ORIGIN))
    assert answer.status_code == 200, answer.text
    assert answer.headers["access-control-allow-origin"] == OWN_TOOL_ORIGIN
    assert "authorization" in answer.headers["access-control-allow-headers"].lower()


async def test_an_unauthenticated_call_exposes_the_challenge_to_the_page(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.post("/mcp", json={}, headers={"Origin": OWN_TOOL_ORIGIN})
    assert answer.status_code == 401
    assert answer.headers["access-control-allow-origin"] == OWN_TOOL_ORIGIN
    exposed = answer.headers["access-control-expose-headers"].lower()
    assert "www-authenticate" in exposed and "mcp-session-id" in exposed


async def test_a_foreign_origin_gets_no_cors_and_403(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.options("/mcp", headers=preflight("https://evil.example"))
    assert answer.status_code == 403
    assert "access-control-allow-origin" not in answer.headers


async def test_pages_outside_the_agent_endpoints_get_no_cors(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answer = await http.get("/login", headers={"Origin": OWN_TOOL_ORIGIN})
    assert "access-control-allow-origin" not in answer.headers
