"""Only the authorization code flow (with refresh) exists.

`/register` refuses the implicit and password grants and token response types; `/token` answers
`unsupported_grant_type` for any other grant, and `invalid_grant` for a code presented with
another redirect URI than the one it was issued for.
"""

from __future__ import annotations

import httpx
import pytest

from tests.support.oauth import (
    CALLBACK_URI,
    answer,
    authorize_url,
    exchange,
    open_consent,
    pkce,
    query_of,
    register,
    registered_client,
    signed_in,
)
from tests.support.server import RunningServer

OTHER_CALLBACK = "http://127.0.0.1:9/other"


@pytest.mark.parametrize(
    "metadata",
    [
        {"grant_types": ["implicit"]},
        {"grant_types": ["authorization_code", "password"]},
        {"grant_types": ["client_credentials"]},
        {"response_types": ["token"]},
    ],
)
async def test_registration_refuses_every_flow_but_the_code_flow(
    server: RunningServer, metadata: dict[str, list[str]]
):
    refused = await register(server.base_url, CALLBACK_URI, **metadata)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"] == "invalid_client_metadata"


async def test_registration_of_the_code_flow_with_refresh_is_accepted(server: RunningServer):
    accepted = await register(
        server.base_url, CALLBACK_URI, grant_types=["authorization_code", "refresh_token"]
    )
    assert accepted.status_code == 201, accepted.text


@pytest.mark.parametrize(
    "grant", ["password", "client_credentials", "implicit", "urn:ietf:params:oauth:grant-type:jwt-bearer"]
)
async def test_the_token_endpoint_knows_only_code_and_refresh_grants(server: RunningServer, grant: str):
    client_id = await registered_client(server.base_url, CALLBACK_URI)
    fields = {"grant_type": grant, "client_id": client_id, "username": "ada", "password": "x"}
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        answered = await http.post("/token", data=fields)
    assert answered.status_code == 400, answered.text
    assert answered.json()["error"] == "unsupported_grant_type"


async def test_a_code_presented_with_another_redirect_uri_is_an_invalid_grant(server: RunningServer):
    client_id = await registered_client(
        server.base_url, CALLBACK_URI, redirect_uris=[CALLBACK_URI, OTHER_CALLBACK]
    )
    verifier, challenge = pkce()
    async with signed_in(server.base_url, "ada") as ada:
        form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK_URI, challenge))
        allowed = await answer(ada, form, "allow")
    code = query_of(allowed.headers["location"])["code"][0]
    mismatched = await exchange(server.base_url, client_id, code, verifier, OTHER_CALLBACK)
    assert mismatched.status_code == 400 and mismatched.json()["error"] == "invalid_grant", mismatched.text
    matched = await exchange(server.base_url, client_id, code, verifier, CALLBACK_URI)
    assert matched.status_code == 200, matched.text
