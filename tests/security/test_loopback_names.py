"""`localhost` and `127.0.0.1` are the same server ("Connecting").

Without a public URL, on loopback, the OAuth metadata, the issuer and the `iss` of the answer
follow the loopback name the agent used, so the SDK's OAuth client completes the flow whichever
it was configured with; and a token issued under one name works under the other.
"""

from __future__ import annotations

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from tests.support.oauth import (
    CallbackListener,
    MemoryTokenStorage,
    answer,
    mcp_status,
    open_consent,
    signed_in,
)
from tests.support.server import RunningServer

NAMES = ["localhost", "127.0.0.1"]


def spelled(server: RunningServer, name: str) -> str:
    return f"http://{name}:{server.port}"


@pytest.mark.parametrize("name", NAMES)
async def test_discovery_names_the_server_as_the_agent_did(server: RunningServer, name: str):
    base = spelled(server, name)
    async with httpx.AsyncClient(base_url=base) as http:
        resource = (await http.get("/.well-known/oauth-protected-resource/mcp")).json()
        issuer = (await http.get("/.well-known/oauth-authorization-server")).json()
        challenge = (await http.post("/mcp", json={})).headers["www-authenticate"]
    assert resource["resource"] == f"{base}/mcp"
    assert [server.rstrip("/") for server in resource["authorization_servers"]] == [base]
    assert issuer["issuer"] == base and issuer["token_endpoint"] == f"{base}/token"
    assert f'resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"' in challenge


@pytest.mark.parametrize("name", NAMES)
async def test_the_sdk_client_connects_under_either_name_and_its_token_works_under_both(
    server: RunningServer, name: str
):
    storage = MemoryTokenStorage()

    async def consent(authorization_url: str) -> None:
        async with signed_in(server.base_url, "ada") as ada:
            allowed = await answer(ada, await open_consent(ada, authorization_url), "allow")
            assert allowed.status_code == 303, allowed.text
            await ada.get(allowed.headers["location"])  # the browser goes on to the agent's listener

    async with CallbackListener() as listener:
        provider = OAuthClientProvider(
            server_url=f"{spelled(server, name)}/mcp",
            client_metadata=OAuthClientMetadata(
                client_name="Loopback agent",
                redirect_uris=[listener.redirect_uri],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=consent,
            callback_handler=listener.result,
        )
        transport = streamable_http_client(
            f"{spelled(server, name)}/mcp", http_client=httpx2.AsyncClient(auth=provider)
        )
        async with Client(transport) as client:
            listed = await client.call_tool("romergo_list_projects", {})
    assert not listed.is_error, listed.content
    assert storage.tokens is not None
    for other in NAMES:
        assert (await mcp_status(spelled(server, other), storage.tokens.access_token)).status_code == 200
