"""The OAuth 2.1 server and the MCP endpoint over HTTP, against the running server: what a
well-behaved agent gets, and everything SECURITY.md says must be refused."""

from __future__ import annotations

import httpx
import pytest

from romergo.access.agents.scopes import CONTROL
from romergo.common.config import MAX_AGENT_BODY
from tests.support.oauth import (
    answer,
    authorize_url,
    exchange,
    mcp_client,
    mcp_status,
    oauth_tokens,
    open_consent,
    personal_token,
    pkce,
    post_form,
    query_of,
    refresh,
    register,
    registered_client,
    signed_in,
)
from tests.support.server import RunningServer

CALLBACK = "http://127.0.0.1:9/cb"
# Nearly every test here registers a client; the registration limit has a test of its own elsewhere.
SERVER_ENV = {"ROMERGO_REGISTRATIONS_PER_MINUTE": "1000"}


async def test_metadata_comes_from_configuration_not_from_request_headers(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        # A foreign Host never gets this far (421, tests/security); forwarding headers are not trusted.
        spoofed = {"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https", "Forwarded": "host=evil"}
        metadata = (await http.get("/.well-known/oauth-authorization-server", headers=spoofed)).json()
        resource = (await http.get("/.well-known/oauth-protected-resource/mcp", headers=spoofed)).json()
    base = server.base_url
    assert metadata["issuer"] == base  # exact: no trailing slash
    assert metadata["authorization_endpoint"] == f"{base}/authorize"
    assert metadata["token_endpoint"] == f"{base}/token"
    assert metadata["registration_endpoint"] == f"{base}/register"
    assert metadata["revocation_endpoint"] == f"{base}/revoke"
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["token_endpoint_auth_methods_supported"] == ["none"]
    assert CONTROL not in metadata["scopes_supported"]
    assert resource["resource"] == f"{base}/mcp"
    assert resource["authorization_servers"] == [base]
    assert resource["scopes_supported"] == [
        "romergo:read",
        "romergo:edit",
        "romergo:media",
        "romergo:publish",
        "romergo:delete",
    ]


async def test_a_missing_or_garbage_token_gets_401_pointing_at_the_metadata(server: RunningServer):
    for token in (None, "rga_garbage"):
        response = await mcp_status(server.base_url, token)
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{server.base_url}/.well-known/oauth-protected-resource/mcp"' in challenge


@pytest.mark.parametrize(
    ("redirect_uri", "error"),
    [
        ("javascript:alert(document.cookie)", "invalid_redirect_uri"),
        ("http://evil.example/callback", "invalid_redirect_uri"),
        ("https://app.example/cb#fragment", "invalid_redirect_uri"),
        ("https://user:pass@app.example/cb", "invalid_redirect_uri"),
        ("https://app.example/a/../cb", "invalid_redirect_uri"),
        ("https://app.example/cb?code=planted", "invalid_redirect_uri"),
    ],
)
async def test_registration_refuses_unsafe_redirect_uris(server: RunningServer, redirect_uri, error):
    response = await register(server.base_url, redirect_uri)
    assert response.status_code == 400
    assert response.json()["error"] == error


async def test_registration_refuses_the_control_scope(server: RunningServer):
    response = await register(server.base_url, CALLBACK, scope="romergo:read romergo:control")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"


async def test_every_client_is_registered_public_without_a_secret(server: RunningServer):
    response = await register(
        server.base_url,
        "https://app.example/oauth/callback",
        token_endpoint_auth_method="client_secret_basic",
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["token_endpoint_auth_method"] == "none"
    assert "client_secret" not in body
    assert body["scope"] == "romergo:read romergo:edit romergo:media romergo:publish romergo:delete"


async def test_bodies_above_5_mib_are_refused(server: RunningServer):
    big = b"x" * (MAX_AGENT_BODY + 1)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        for path in ("/mcp", "/token", "/register"):
            response = await http.post(path, content=big, headers={"Content-Type": "application/json"})
            assert response.status_code == 413, path


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"client_id": "nobody"}, "not registered with Romergo"),
        ({"redirect_uri": "http://127.0.0.1:9/elsewhere"}, "not one this agent registered"),
        ({"redirect_uri": "javascript:alert(1)"}, "not one this agent registered"),
        ({"code_challenge_method": "plain"}, "S256 is required"),
        ({"scope": "romergo:read romergo:control"}, "never granted to agents"),
        ({"scope": "romergo:everything"}, "Unknown scope"),
        ({"resource": "https://other.example/mcp"}, "Tokens can be issued only for"),
        ({"response_type": "token"}, "only response_type=code"),
    ],
)
async def test_a_bad_authorization_request_gets_an_error_page_never_a_redirect(
    server: RunningServer, change, reason
):
    client_id = await registered_client(server.base_url, CALLBACK)
    _, challenge = pkce()
    params = {"client_id": client_id, "redirect_uri": CALLBACK} | change
    url = authorize_url(
        server.base_url, params.pop("client_id"), params.pop("redirect_uri"), challenge, **params
    )
    async with httpx.AsyncClient() as anonymous:  # nobody is signed in yet
        response = await anonymous.get(url)
    assert response.status_code == 400
    assert "location" not in response.headers
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-store"
    assert "This connection request cannot be used" in response.text
    assert reason in response.text


async def test_a_repeated_parameter_is_refused(server: RunningServer):
    client_id = await registered_client(server.base_url, CALLBACK)
    _, challenge = pkce()
    url = (
        authorize_url(server.base_url, client_id, CALLBACK, challenge) + "&redirect_uri=http://127.0.0.1:9/cb"
    )
    async with httpx.AsyncClient() as anonymous:
        response = await anonymous.get(url)
    assert response.status_code == 400 and "appears more than once" in response.text


async def test_a_sound_request_leads_to_sign_in_then_consent_and_loopback_ports_may_differ(
    server: RunningServer,
):
    client_id = await registered_client(server.base_url, CALLBACK)
    _, challenge = pkce()
    url = authorize_url(server.base_url, client_id, "http://127.0.0.1:51234/cb", challenge)
    async with httpx.AsyncClient(base_url=server.base_url) as anonymous:
        started = await anonymous.get(url)
        consent = await anonymous.get(started.headers["location"])
    assert started.status_code == 302 and started.headers["location"].startswith("/oauth/consent?request=")
    assert consent.status_code == 303
    assert consent.headers["location"].startswith("/login?next=/oauth/consent%3Frequest%3D")


async def test_the_final_redirect_carries_exactly_one_server_made_code_state_and_iss(
    server: RunningServer, ada
):
    redirect_uri = "https://app.example/cb?tenant=7"
    client_id = await registered_client(server.base_url, redirect_uri)
    verifier, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, redirect_uri, challenge))
    response = await answer(ada, form, "allow")
    query = query_of(response.headers["location"])
    assert response.headers["location"].startswith("https://app.example/cb?")
    assert set(query) == {"tenant", "code", "state", "iss"}
    assert all(len(values) == 1 for values in query.values())
    assert query["iss"] == [server.base_url] and query["tenant"] == ["7"]
    tokens = await exchange(server.base_url, client_id, query["code"][0], verifier, redirect_uri)
    assert tokens.status_code == 200


async def test_deny_sends_access_denied_with_state_and_iss(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK)
    _, challenge = pkce()
    url = authorize_url(server.base_url, client_id, CALLBACK, challenge, state="keep-me")
    response = await answer(ada, await open_consent(ada, url), "deny")
    assert response.status_code == 303
    assert query_of(response.headers["location"]) == {
        "error": ["access_denied"],
        "error_description": ["The user denied access."],
        "state": ["keep-me"],
        "iss": [server.base_url],
    }


async def test_the_consent_form_is_single_use_and_bound_to_session_and_origin(server: RunningServer):
    client_id = await registered_client(server.base_url, CALLBACK)
    _, challenge = pkce()
    url = authorize_url(server.base_url, client_id, CALLBACK, challenge)
    async with signed_in(server.base_url, "ada") as http, signed_in(server.base_url, "ada") as other:
        form = await open_consent(http, url)
        # Another session of the same user cannot use this form's token.
        stolen = await answer(other, form)
        forged = await post_form(http, "/oauth/consent", form.fields("allow"), origin="http://evil.example")
        tampered = await post_form(
            http,
            "/oauth/consent",
            [("request", form.request_id), ("csrf", tampered_with(form.csrf)), ("decision", "allow")],
        )
        first = await answer(http, form)
        second = await answer(http, form)
        gone = await http.get(second.headers["location"])
    assert stolen.status_code == 403 and forged.status_code == 403 and tampered.status_code == 403
    assert first.status_code == 303 and "code=" in first.headers["location"]
    assert second.status_code == 303 and second.headers["location"].startswith("/oauth/consent?request=")
    assert "This connection request cannot be used" in gone.text


def tampered_with(token: str) -> str:
    """The token with its last character changed (to one it surely is not: "00" sometimes was)."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


async def test_consent_cannot_grant_what_was_not_offered(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK, scope="romergo:read romergo:edit")
    _, challenge = pkce()
    url = authorize_url(server.base_url, client_id, CALLBACK, challenge, scope="romergo:read romergo:edit")
    form = await open_consent(ada, url)
    refused = await answer(ada, form, "allow", ["romergo:read", "romergo:delete"])
    still = await answer(ada, form, "allow", ["romergo:edit"])
    assert refused.status_code == 403
    assert still.status_code == 303 and "code=" in still.headers["location"]


async def test_a_wrong_verifier_is_refused_and_the_right_one_still_works(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK)
    verifier, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK, challenge))
    code = query_of((await answer(ada, form)).headers["location"])["code"][0]
    wrong = await exchange(server.base_url, client_id, code, pkce()[0], CALLBACK)
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"
    right = await exchange(server.base_url, client_id, code, verifier, CALLBACK)
    assert right.status_code == 200 and right.json()["token_type"] == "Bearer"


async def test_a_reused_code_is_refused_and_kills_the_first_exchanges_tokens(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK)
    verifier, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK, challenge))
    code = query_of((await answer(ada, form)).headers["location"])["code"][0]
    first = (await exchange(server.base_url, client_id, code, verifier, CALLBACK)).json()
    assert (await mcp_status(server.base_url, first["access_token"])).status_code == 200

    replay = await exchange(server.base_url, client_id, code, verifier, CALLBACK)

    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert (await mcp_status(server.base_url, first["access_token"])).status_code == 401
    assert (await refresh(server.base_url, client_id, first["refresh_token"])).status_code == 400


async def test_codes_belong_to_their_client_and_redirect_uri(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK)
    thief = await registered_client(server.base_url, CALLBACK)
    verifier, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK, challenge))
    code = query_of((await answer(ada, form)).headers["location"])["code"][0]
    stolen = await exchange(server.base_url, thief, code, verifier, CALLBACK)
    moved = await exchange(server.base_url, client_id, code, verifier, "ada://127.0.0.1:9/other")
    assert stolen.status_code == 400 and moved.status_code == 400
    assert (await exchange(server.base_url, client_id, code, verifier, CALLBACK)).status_code == 200


async def test_a_token_for_another_resource_is_never_issued(server: RunningServer, ada):
    client_id = await registered_client(server.base_url, CALLBACK)
    verifier, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK, challenge))
    code = query_of((await answer(ada, form)).headers["location"])["code"][0]
    async with httpx.AsyncClient(base_url=server.base_url) as plain:
        response = await plain.post(
            "/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "redirect_uri": CALLBACK,
                "client_id": client_id,
                "resource": "https://other.example/mcp",
            },
        )
    assert response.status_code == 400 and response.json()["error"] == "invalid_target"


async def test_refresh_rotates_and_reusing_the_old_refresh_token_revokes_the_family(
    server: RunningServer, ada
):
    tokens = await oauth_tokens(ada)
    rotated = await refresh(server.base_url, tokens.client_id, tokens.refresh_token)
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()
    assert new["refresh_token"] != tokens.refresh_token
    assert (await mcp_status(server.base_url, new["access_token"])).status_code == 200

    reused = await refresh(server.base_url, tokens.client_id, tokens.refresh_token)

    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    assert (await mcp_status(server.base_url, new["access_token"])).status_code == 401
    assert (await refresh(server.base_url, tokens.client_id, new["refresh_token"])).status_code == 400


async def test_revoking_the_refresh_token_kills_the_access_token_of_the_same_grant(
    server: RunningServer, ada
):
    tokens = await oauth_tokens(ada)
    other = await oauth_tokens(ada)
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        revoked = await http.post(
            "/revoke",
            data={
                "token": tokens.refresh_token,
                "token_type_hint": "refresh_token",
                "client_id": tokens.client_id,
            },
        )
    assert revoked.status_code == 200
    assert (await mcp_status(server.base_url, tokens.access_token)).status_code == 401
    assert (await mcp_status(server.base_url, other.access_token)).status_code == 200


async def test_tokens_are_never_accepted_in_the_query_string(server: RunningServer, ada):
    tokens = await oauth_tokens(ada)
    in_query = await mcp_status(server.base_url, None, params={"access_token": tokens.access_token})
    assert in_query.status_code == 401
    assert (await mcp_status(server.base_url, tokens.access_token)).status_code == 200


async def test_the_mcp_endpoint_refuses_foreign_hosts_and_origins(server: RunningServer):
    token = personal_token(server, "ada")
    foreign_host = await mcp_status(server.base_url, token, headers={"Host": "evil.example"})
    foreign_origin = await mcp_status(server.base_url, token, headers={"Origin": "http://evil.example"})
    own_origin = await mcp_status(server.base_url, token, headers={"Origin": server.base_url})
    assert foreign_host.status_code == 421
    assert foreign_origin.status_code == 403
    assert own_origin.status_code == 200


async def test_a_token_without_read_gets_403_insufficient_scope(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "control")
    response = await mcp_status(server.base_url, token)
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert "romergo:read" in response.headers["www-authenticate"]


async def test_personal_tokens_work_at_mcp_but_not_at_the_token_endpoint(server: RunningServer):
    token = personal_token(server, "ada", "--name", "CI")
    async with mcp_client(server.base_url, token) as client:
        listed = await client.call_tool("romergo_list_projects", {})
    assert not listed.is_error
    titles = [p["title"] for p in listed.structured_content["untrusted_content"]["data"]["projects"]]
    assert titles == ["The Lighthouse Keeper's Secret"]

    async with httpx.AsyncClient(base_url=server.base_url) as http:
        as_refresh = await http.post(
            "/token",
            data={"grant_type": "refresh_token", "refresh_token": token, "client_id": "anything"},
        )
    assert as_refresh.status_code in (400, 401)
    assert as_refresh.json()["error"] in ("invalid_grant", "invalid_client")


async def test_the_consent_page_is_never_cached_framed_or_leaked_and_shows_names_as_text(
    server: RunningServer, ada
):
    client_id = await registered_client(
        server.base_url, CALLBACK, client_name="<img src=x onerror=alert(1)>Evil</script>"
    )
    _, challenge = pkce()
    form = await open_consent(ada, authorize_url(server.base_url, client_id, CALLBACK, challenge))
    page = await ada.get(f"/oauth/consent?request={form.request_id}")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-store"
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "<img src=x" not in page.text and "Evil</script>" not in page.text
    assert "&lt;img src=x onerror=alert(1)&gt;Evil&lt;/script&gt;" in page.text  # there, as text
    answered = await answer(ada, form, "deny")
    assert answered.status_code == 303 and answered.headers["cache-control"] == "no-store"


async def test_an_unknown_consent_request_shows_a_page_and_nothing_else(server: RunningServer, ada):
    page = await ada.get("/oauth/consent?request=made-up")
    assert page.status_code == 200 and "This connection request cannot be used" in page.text
    posted = await post_form(ada, "/oauth/consent", [("request", "made-up"), ("decision", "allow")])
    assert posted.status_code == 303 and posted.headers["location"] == "/oauth/consent?request=made-up"
