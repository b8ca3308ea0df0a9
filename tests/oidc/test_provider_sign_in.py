"""Signing in with a real OpenID Connect provider (oidc-provider on loopback), end to end: the
browser's part is played by an HTTP client that follows every redirect and fills the provider's
sign-in form, as a person would."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from urllib.parse import parse_qs, urlsplit

import httpx

from romergo.access.accounts.service import SESSION_COOKIE
from tests.oidc.conftest import CLIENT_ID, PROVIDER_NAME
from tests.support.cli import romergo_here
from tests.support.server import RunningServer

INTERACTION = re.compile(r'action="(/interaction/[^"]+/login)"')


def a_browser() -> httpx.AsyncClient:
    return httpx.AsyncClient(follow_redirects=True, timeout=20)


async def sign_in_as(server: RunningServer, browser: httpx.AsyncClient, account: str) -> httpx.Response:
    """Starts at Romergo's button, signs in at the provider, follows the way back: where it landed."""
    form = await browser.get(f"{server.base_url}/login/oidc")
    assert form.status_code == 200, form.text
    action = INTERACTION.search(form.text)
    assert action is not None, form.text
    provider = f"{form.url.scheme}://{form.url.netloc.decode()}"
    return await browser.post(f"{provider}{action[1]}", data={"login": account})


def signed_in_username(server: RunningServer, browser: httpx.AsyncClient) -> str | None:
    token = browser.cookies.get(SESSION_COOKIE)
    if token is None:
        return None
    with sqlite3.connect(server.data_dir / "romergo.db") as db:
        row = db.execute(
            "SELECT users.username FROM web_sessions JOIN users ON users.id = web_sessions.user_id "
            "WHERE web_sessions.token_hash = ?",
            (hashlib.sha256(token.encode()).hexdigest(),),
        ).fetchone()
    return None if row is None else str(row[0])


def user_count(server: RunningServer) -> int:
    with sqlite3.connect(server.data_dir / "romergo.db") as db:
        return int(db.execute("SELECT count(*) FROM users").fetchone()[0])


async def test_the_provider_is_discovered_with_pkce_s256(issuer: str):
    async with httpx.AsyncClient() as http:
        discovery = (await http.get(f"{issuer}/.well-known/openid-configuration")).json()
    assert discovery["issuer"] == issuer
    assert discovery["code_challenge_methods_supported"] == ["S256"]


async def test_the_sign_in_page_offers_the_provider(team_server: RunningServer):
    async with httpx.AsyncClient() as http:
        page = await http.get(f"{team_server.base_url}/login")
    assert f"Sign in with {PROVIDER_NAME}" in page.text and "/login/oidc" in page.text


async def test_the_code_flow_asks_for_a_code_with_pkce_state_and_nonce(team_server: RunningServer):
    async with httpx.AsyncClient() as http:
        started = await http.get(f"{team_server.base_url}/login/oidc")
    assert started.status_code == 302, started.text + team_server.tail(40)
    asked = parse_qs(urlsplit(started.headers["location"]).query)
    assert started.status_code == 302
    assert asked["response_type"] == ["code"] and asked["client_id"] == [CLIENT_ID]
    assert asked["code_challenge_method"] == ["S256"] and len(asked["code_challenge"][0]) == 43
    assert asked["state"][0] and asked["nonce"][0]
    assert asked["redirect_uri"] == [f"{team_server.base_url}/login/oidc/callback"]


async def test_a_first_sign_in_creates_the_account_and_lands_signed_in(team_server: RunningServer):
    before = user_count(team_server)
    async with a_browser() as browser:
        landed = await sign_in_as(team_server, browser, "alice")
        assert landed.url.path == "/projects"
        assert signed_in_username(team_server, browser) == "alice"
        assert user_count(team_server) == before + 1
        # The same person again: the linked account, not a second one.
        async with a_browser() as again:
            landed_again = await sign_in_as(team_server, again, "alice")
            assert landed_again.url.path == "/projects"
            assert signed_in_username(team_server, again) == "alice"
        assert user_count(team_server) == before + 1


async def test_an_identity_linked_by_the_administrator_signs_in_as_that_account(team_server: RunningServer):
    env = team_server.extra_env
    added = romergo_here(
        "user", "add", "ada", data_dir=team_server.data_dir, stdin="a-long-password-1\n", env=env
    )
    assert added.returncode == 0, added.stderr
    linked = romergo_here("user", "link", "ada", "dave", data_dir=team_server.data_dir, env=env)
    assert linked.returncode == 0, linked.stderr
    async with a_browser() as browser:
        landed = await sign_in_as(team_server, browser, "dave")
        assert landed.url.path == "/projects"
        assert signed_in_username(team_server, browser) == "ada"


async def test_an_address_outside_the_allowed_domains_is_refused(team_server: RunningServer):
    before = user_count(team_server)
    async with a_browser() as browser:
        landed = await sign_in_as(team_server, browser, "bob")
        assert landed.url.path == "/login"
        assert "not one this Romergo accepts" in landed.text
        assert signed_in_username(team_server, browser) is None
    assert user_count(team_server) == before


async def test_an_unverified_address_is_refused(team_server: RunningServer):
    async with a_browser() as browser:
        landed = await sign_in_as(team_server, browser, "carol")
        assert landed.url.path == "/login" and signed_in_username(team_server, browser) is None


async def test_a_callback_with_another_state_is_refused(team_server: RunningServer):
    async with httpx.AsyncClient(follow_redirects=True) as browser:
        await browser.get(f"{team_server.base_url}/login/oidc", follow_redirects=False)
        landed = await browser.get(
            f"{team_server.base_url}/login/oidc/callback", params={"code": "stolen", "state": "not-this-one"}
        )
        assert landed.url.path == "/login" and "did not work" in landed.text
        assert signed_in_username(team_server, browser) is None


async def test_a_callback_in_another_browser_is_refused(team_server: RunningServer):
    async with httpx.AsyncClient() as victim:
        started = await victim.get(f"{team_server.base_url}/login/oidc")
    state = parse_qs(urlsplit(started.headers["location"]).query)["state"][0]
    async with httpx.AsyncClient(follow_redirects=True) as attacker:
        landed = await attacker.get(
            f"{team_server.base_url}/login/oidc/callback", params={"code": "any", "state": state}
        )
        assert landed.url.path == "/login" and signed_in_username(team_server, attacker) is None
