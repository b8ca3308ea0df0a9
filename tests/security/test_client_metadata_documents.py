"""Client ID Metadata Documents against a real server ("Connecting"): an agent whose
client_id is the URL of its metadata completes the flow without registering; the consent page
shows the document's host; a document that lies about itself gets an error page, never a redirect.

This server allows documents on loopback (`ROMERGO_CIMD_ALLOW_PRIVATE`, for development): the
test's document lives on this machine. The default refusal of such addresses is a core test.
"""

from __future__ import annotations

import json

import httpx

from tests.support.oauth import (
    CALLBACK_URI,
    answer,
    authorize_url,
    exchange,
    mcp_status,
    open_consent,
    pkce,
    query_of,
    signed_in,
)
from tests.support.pages_server import serving
from tests.support.server import RunningServer

SERVER_ENV = {"ROMERGO_CIMD_ALLOW_PRIVATE": "1"}


def document(client_id: str, **changes: object) -> bytes:
    body = {
        "client_id": client_id,
        "client_name": "Documented Agent",
        "redirect_uris": [CALLBACK_URI],
        "token_endpoint_auth_method": "none",
        **changes,
    }
    return json.dumps(body).encode()


async def test_metadata_announces_client_id_metadata_documents(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        metadata = (await http.get("/.well-known/oauth-authorization-server")).json()
    assert metadata["client_id_metadata_document_supported"] is True


async def test_an_agent_named_by_its_document_url_connects_without_registering(server: RunningServer):
    pages: dict[str, tuple[int, bytes]] = {}
    async with serving(pages) as site:
        client_id = f"{site}/agent.json"
        pages["/agent.json"] = (200, document(client_id))
        verifier, challenge = pkce()
        async with signed_in(server.base_url, "ada") as ada:
            form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK_URI, challenge))
            assert "Documented Agent" in form.page and site.removeprefix("http://") in form.page
            allowed = await answer(ada, form, "allow")
        code = query_of(allowed.headers["location"])["code"][0]
        tokens = await exchange(server.base_url, client_id, code, verifier, CALLBACK_URI)
    assert tokens.status_code == 200, tokens.text
    assert (await mcp_status(server.base_url, tokens.json()["access_token"])).status_code == 200


async def test_a_document_that_names_another_client_gets_an_error_page(server: RunningServer):
    pages: dict[str, tuple[int, bytes]] = {}
    async with serving(pages) as site:
        client_id = f"{site}/impostor.json"
        pages["/impostor.json"] = (200, document(f"{site}/someone-else.json"))
        async with httpx.AsyncClient(base_url=server.base_url) as http:
            answered = await http.get(authorize_url(server.base_url, client_id, CALLBACK_URI, pkce()[1]))
    assert answered.status_code == 400 and "location" not in answered.headers
    assert "must name its own URL as client_id" in answered.text
