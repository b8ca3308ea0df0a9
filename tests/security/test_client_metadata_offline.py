"""An agent named by a metadata document URL connects to a server that cannot reach that URL, once
an administrator trusted the document from a file; before, the error page says what to do.

The client_id's host is under `.invalid` (RFC 6761), which never resolves: the same refusal an
offline server gives for `https://claude.ai/oauth/claude-code-client-metadata`.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.support.cli import romergo
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
from tests.support.server import RunningServer

CLIENT_ID = "https://agent.invalid/oauth/client-metadata.json"


async def test_an_unreachable_document_gets_a_page_that_says_what_to_do(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answered = await http.get(authorize_url(server.base_url, CLIENT_ID, CALLBACK_URI, pkce()[1]))
    assert answered.status_code == 400 and "location" not in answered.headers
    page = answered.text
    assert "does not resolve" in page
    assert "romergo client trust" in page and "--document" in page
    assert "codex mcp login romergo --oauth-client-registration dcr" in page
    assert "--client-id" in page


async def test_a_document_trusted_from_a_file_connects_without_fetching(
    server: RunningServer, tmp_path: Path
):
    document = tmp_path / "client-metadata.json"
    document.write_text(
        json.dumps(
            {
                "client_id": CLIENT_ID,
                "client_name": "Offline Agent",
                "redirect_uris": [CALLBACK_URI],
                "token_endpoint_auth_method": "none",
            }
        )
    )
    trusted = romergo("client", "trust", CLIENT_ID, "--document", str(document), data_dir=server.data_dir)
    assert trusted.returncode == 0, trusted.stderr

    verifier, challenge = pkce()
    async with signed_in(server.base_url, "ada") as ada:
        form = await open_consent(ada, authorize_url(server.base_url, CLIENT_ID, CALLBACK_URI, challenge))
        assert "Offline Agent" in form.page and "agent.invalid" in form.page
        allowed = await answer(ada, form, "allow")
    code = query_of(allowed.headers["location"])["code"][0]
    tokens = await exchange(server.base_url, CLIENT_ID, code, verifier, CALLBACK_URI)
    assert tokens.status_code == 200, tokens.text
    assert (await mcp_status(server.base_url, tokens.json()["access_token"])).status_code == 200

    untrusted = romergo("client", "untrust", CLIENT_ID, data_dir=server.data_dir)
    assert untrusted.returncode == 0, untrusted.stderr
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        again = await http.get(authorize_url(server.base_url, CLIENT_ID, CALLBACK_URI, pkce()[1]))
    assert again.status_code == 400 and "does not resolve" in again.text
