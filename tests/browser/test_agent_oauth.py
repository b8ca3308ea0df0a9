"""An agent connects the way real ones do: the SDK's own OAuth client registers itself, sends the
person to the consent page (Playwright signs in and clicks "Allow"), catches the loopback redirect,
calls a tool, refreshes, and is cut off from `/settings/agents`. Both protocol generations."""

from __future__ import annotations

import re
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from playwright.async_api import BrowserContext, Page, expect

from tests.support.oauth import (
    PASSWORD,
    CallbackListener,
    MemoryTokenStorage,
    add_user,
    mcp_status,
    personal_token,
    refresh,
)
from tests.support.server import RunningServer

AGENT_NAME = "Playwright's agent <b>bold</b>"
DEMO_TITLE = "The Lighthouse Keeper's Secret"


@pytest.fixture(scope="module")
def people(server: RunningServer) -> RunningServer:
    add_user(server, "ada")
    return server


class Person:
    """What a person does in the browser when their agent sends them to Romergo."""

    def __init__(self, server: RunningServer, page: Page) -> None:
        self.server = server
        self.page = page
        self.consents = 0

    async def approve(self, authorization_url: str) -> None:
        page = self.page
        await page.goto(authorization_url)
        if "/login" in page.url:
            await expect(page).to_have_url(re.compile(r"/login\?next=/oauth/consent"))
            await page.get_by_label("Username").fill("ada")
            await page.get_by_label("Password").fill(PASSWORD)
            await page.get_by_role("button", name="Sign in").click()
        # Back on the consent page after signing in.
        await expect(page).to_have_url(re.compile(r"/oauth/consent\?request="))
        await expect(page.get_by_test_id("client-name")).to_have_text(AGENT_NAME)  # shown as text
        await expect(page.get_by_test_id("unverified")).to_be_visible()
        await expect(page.get_by_test_id("redirect-host")).to_have_text(re.compile(r"^127\.0\.0\.1:\d+$"))
        await expect(page.get_by_label("Read")).to_be_checked()
        await expect(page.get_by_label("Read")).to_be_disabled()
        await expect(page.get_by_label("Edit")).to_be_checked()
        await expect(page.get_by_label("Media")).to_be_checked()
        await expect(page.get_by_label("Publish")).not_to_be_checked()
        await expect(page.get_by_label("Delete")).not_to_be_checked()
        self.consents += 1
        await page.get_by_role("button", name="Allow").click()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_agent_connects_refreshes_and_is_revoked_from_the_settings_page(
    people: RunningServer, context: BrowserContext, page: Page, mode: str
):
    server = people
    person = Person(server, page)
    storage = MemoryTokenStorage()
    async with CallbackListener() as listener:
        provider = OAuthClientProvider(
            server_url=f"{server.base_url}/mcp",
            client_metadata=OAuthClientMetadata(
                client_name=AGENT_NAME,
                redirect_uris=[listener.redirect_uri],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=person.approve,
            callback_handler=listener.result,
        )
        http = httpx2.AsyncClient(auth=provider)
        transport = streamable_http_client(f"{server.base_url}/mcp", http_client=http)
        async with Client(transport, mode=mode) as client:
            # 1. The first call runs the whole flow: discovery, registration, consent, code, tokens.
            listed = await client.call_tool("romergo_list_projects", {})
            assert not listed.is_error, listed.content
            projects = listed.structured_content["untrusted_content"]["data"]["projects"]
            assert [p["title"] for p in projects] == [DEMO_TITLE]
            assert person.consents == 1
            first = storage.history[-1]
            assert first.scope == "romergo:read romergo:edit romergo:media"  # publish, delete unticked
            client_id = storage.client_info.client_id

            # 2. The access token runs out: the client refreshes by itself and carries on.
            provider.context.token_expiry_time = time.time() - 1
            assert not (await client.call_tool("romergo_list_projects", {})).is_error
            second = storage.history[-1]
            assert second.refresh_token != first.refresh_token and person.consents == 1

            # 3. The old refresh token is dead; presenting it again revokes the whole family.
            reused = await refresh(server.base_url, client_id, first.refresh_token)
            assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
            assert (await mcp_status(server.base_url, second.access_token)).status_code == 401

            # 4. So the agent has to ask again; the person, still signed in, allows it once more.
            assert not (await client.call_tool("romergo_list_projects", {})).is_error
            assert person.consents == 2

            # 5. The person revokes the agent on the settings page; its next call is refused.
            await page.goto(f"{server.base_url}/settings/agents")
            row = page.get_by_test_id(f"connection-{client_id}")
            await expect(row).to_contain_text(AGENT_NAME)
            await expect(row.get_by_test_id("scopes")).to_have_text("Read · Edit · Media")
            await expect(row.get_by_test_id("details")).to_contain_text(re.compile(r"last used\s*just now"))
            await row.get_by_role("button", name="Revoke").click()
            await expect(page).to_have_url(f"{server.base_url}/settings/agents")
            await expect(page.get_by_test_id(f"connection-{client_id}")).to_have_count(0)
            current = storage.history[-1]
            assert (await mcp_status(server.base_url, current.access_token)).status_code == 401
            assert (await refresh(server.base_url, client_id, current.refresh_token)).status_code == 400


async def test_personal_tokens_are_listed_and_revoked_on_the_settings_page(
    people: RunningServer, context: BrowserContext, page: Page
):
    server = people
    token = personal_token(server, "ada", "--name", "Nightly script", "--scopes", "read,publish")
    assert (await mcp_status(server.base_url, token)).status_code == 200

    await page.goto(f"{server.base_url}/login")
    await page.get_by_label("Username").fill("ada")
    await page.get_by_label("Password").fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await page.get_by_role("link", name="Agents").click()
    await expect(page).to_have_url(f"{server.base_url}/settings/agents")
    row = page.locator("[data-testid^=connection-]", has_text="Nightly script")
    await expect(row.get_by_test_id("scopes")).to_have_text("Read · Publish")
    # In the author's clock, relative when recent; the UTC moment stays in the element.
    await expect(row.get_by_test_id("details")).to_contain_text(re.compile(r"last used\s*just now"))
    await expect(row.get_by_test_id("details")).to_contain_text(
        re.compile(r"expires\s*[A-Z][a-z]{2} \d+, 20\d\d")
    )
    since = row.get_by_test_id("details").locator("time").first
    await expect(since).to_have_attribute("datetime", re.compile(r"^20\d\d-\d\d-\d\dT"))
    await expect(since).not_to_have_text(re.compile(r"^20\d\d-"))
    client_id = (await row.get_attribute("data-testid")).removeprefix("connection-")

    # The signed-in session alone is not enough: the form token must be there too.
    forged = await page.request.post(
        f"{server.base_url}/settings/agents/revoke",
        form={"csrf": "guess", "client_id": client_id},
        max_redirects=0,
    )
    assert forged.status == 403
    assert (await mcp_status(server.base_url, token)).status_code == 200

    await row.get_by_role("button", name="Revoke").click()

    await expect(page.locator("[data-testid^=connection-]", has_text="Nightly script")).to_have_count(0)
    assert (await mcp_status(server.base_url, token)).status_code == 401
