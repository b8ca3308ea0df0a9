"""docs/security.md, "OAuth and tokens" and "Web UI": what the other modules do not already prove,
against a real server process. Time-bound rules (an idle session, an expired token) are tested
by moving the stored times back in the server's own SQLite file, as time passing would.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sqlite3
from datetime import datetime
from typing import Any

import httpx
import pytest

from romergo.access.accounts.service import SESSION_COOKIE
from tests.support.agents import ToolRefused, agent, data
from tests.support.media import png
from tests.support.oauth import (
    PASSWORD,
    mcp_status,
    oauth_tokens,
    personal_token,
    post_form,
    signed_in,
)
from tests.support.server import RunningServer


def database(server: RunningServer) -> sqlite3.Connection:
    return sqlite3.connect(server.data_dir / "romergo.db")


def stored(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


async def test_codes_live_ten_minutes_at_most_and_access_tokens_an_hour(server: RunningServer):
    async with signed_in(server.base_url, "ada") as person:
        first, second = await oauth_tokens(person), await oauth_tokens(person)
    with database(server) as db:
        row = db.execute(
            "SELECT created_at, expires_at FROM agent_codes WHERE code_hash = ?", (stored(first.code),)
        ).fetchone()
    created, expires = (datetime.fromisoformat(value) for value in row)
    assert 0 < (expires - created).total_seconds() <= 600
    for tokens in (first, second):
        for token in (tokens.access_token, tokens.refresh_token):
            assert len(token) >= 32  # at least 128 bits of randomness, however it is encoded
    assert first.access_token != second.access_token and first.refresh_token != second.refresh_token
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        refreshed = await http.post(
            "/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": first.refresh_token,
                "client_id": first.client_id,
            },
        )
    assert refreshed.status_code == 200 and 0 < refreshed.json()["expires_in"] <= 3600


async def test_an_expired_token_gets_the_401_challenge(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "read", "--expires-days", "1")
    assert (await mcp_status(server.base_url, token)).status_code == 200
    with database(server) as db:
        changed = db.execute(
            "UPDATE agent_tokens SET expires_at = '2020-01-01 00:00:00' WHERE token_hash = ?",
            (stored(token),),
        ).rowcount
    assert changed == 1  # personal tokens expire, and only their hash is stored
    refused = await mcp_status(server.base_url, token)
    assert refused.status_code == 401
    assert "resource_metadata=" in refused.headers["www-authenticate"]


async def test_the_session_cookie_is_http_only_and_same_site(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        form = (await http.get("/login")).text
        token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
        assert token
        answer = await post_form(
            http, "/login", [("username", "ada"), ("password", PASSWORD), ("csrf", token.group(1))]
        )
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie


async def test_an_idle_session_ends(server: RunningServer):
    async with signed_in(server.base_url, "ada") as person:
        assert (await person.get("/projects")).status_code == 200
        session = person.cookies.get(SESSION_COOKIE)
        assert session
        with database(server) as db:
            db.execute(
                "UPDATE web_sessions SET last_seen_at = '2020-01-01 00:00:00' WHERE token_hash = ?",
                (stored(session),),
            )
        after = await person.get("/projects")
    assert after.status_code in (302, 303, 307) and "/login" in after.headers["location"]


async def test_sign_in_attempts_are_rate_limited(server: RunningServer):
    async with httpx.AsyncClient(base_url=server.base_url) as http:
        outcomes = []
        for _ in range(12):
            form = (await http.get("/login")).text
            token = re.search(r'"name":"csrf","value":"([^"]+)"', form)
            assert token
            answer = await post_form(
                http, "/login", [("username", "mallory"), ("password", "guess"), ("csrf", token.group(1))]
            )
            outcomes.append(answer.headers.get("location", ""))
    assert all("/login" in outcome for outcome in outcomes)
    assert "busy" not in outcomes[0] and "busy" in outcomes[-1]


@pytest.mark.parametrize("path", ["/login", "/projects"])
async def test_pages_carry_a_content_security_policy_and_nosniff(server: RunningServer, path: str):
    async with signed_in(server.base_url, "ada") as person:
        answer = await person.get("/projects")
    async with httpx.AsyncClient(base_url=server.base_url) as stranger:
        answer = answer if path == "/projects" else await stranger.get(path)
    assert answer.status_code == 200
    assert "content-security-policy" in answer.headers
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_uploads_are_typed_from_their_content_and_served_with_nosniff(server: RunningServer):
    token = personal_token(server, "ada", "--scopes", "read,media")
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'
    fake_png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
    async with agent(server.base_url, token) as ada:
        project_id = data(await ada.call("romergo_list_projects"))["projects"][0]["id"]

        async def upload(body: bytes) -> Any:
            """The new asset, or the refusal's code."""
            arguments = {"project_id": project_id, "kind": "background", "name": "Probe"}
            try:
                encoded = base64.b64encode(body).decode()
                return data(await ada.call("romergo_import_asset", **arguments, data_base64=encoded))
            except ToolRefused as refusal:
                return refusal.code

        assert await upload(svg) == "invalid_argument"
        assert await upload(fake_png) == "invalid_argument"
        made = await upload(png())
    assert isinstance(made, dict) and made["mime"] == "image/png"
    async with signed_in(server.base_url, "ada") as person:
        served = await person.get(f"/media/{made['id']}")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"


async def test_no_token_code_password_or_join_code_reaches_the_log(server: RunningServer):
    control = personal_token(server, "ada", "--scopes", "read,control")
    async with signed_in(server.base_url, "ada") as person:
        tokens = await oauth_tokens(person)
        session = person.cookies.get(SESSION_COOKIE)
    async with httpx.AsyncClient(
        base_url=f"{server.base_url}/api/v1", headers={"Authorization": f"Bearer {control}"}
    ) as api:
        project_id = (await api.get("/projects")).json()["projects"][0]["id"]
        channel = (await api.post("/channels", json={"project_id": project_id})).json()
    async with agent(server.base_url, tokens.access_token) as ada:
        await ada.call("romergo_join_builder_channel", code=channel["code"])
    secrets = {
        "password": PASSWORD,
        "access token": tokens.access_token,
        "refresh token": tokens.refresh_token,
        "code": tokens.code,
        "personal token": control,
        "join code": channel["code"],
        "session": session or "",
    }
    log = server.log()
    assert "Sign in: " in log  # the log is the right one
    assert [name for name, secret in secrets.items() if secret and secret in log] == []
