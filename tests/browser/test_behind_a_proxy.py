"""The team set-up end to end: deploy/'s nginx and Caddy examples, each served over TLS
by the real proxy in front of two instances on one PostgreSQL database. An author signs in with the
printed link, an agent connects with the SDK's own OAuth client (the author consents in the
browser), long-polls, gets the command typed in the panel, and edits the story; the editor shows
each edit live.

The proxy keeps the browser on one instance (nginx: the session cookie; Caddy: a cookie of its
own) and deals the agent's calls to both in turn, so two edits in a row are served by different
instances: one of them reaches the editor only through the wake-ups that cross between the
processes. The proxy's access log shows which instance served what.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.support.agents import Agent, data
from tests.support.databases import PostgresDatabases
from tests.support.oauth import CallbackListener, MemoryTokenStorage
from tests.support.panel import card, invite, panel, send
from tests.support.proxies import CADDY_EXAMPLE, NGINX_EXAMPLE, Proxy, caddy, free_port, nginx
from tests.support.server import RunningServer, two_instances
from tests.support.tls import local_certificates

LIVE = 5_000  # ms


class Site:
    def __init__(self, proxy: Proxy, instances: tuple[RunningServer, RunningServer]) -> None:
        self.proxy = proxy
        self.instances = instances

    @property
    def url(self) -> str:
        return self.proxy.url

    def upstreams(self, path: str, method: str | None = None) -> set[str]:
        return {
            served.upstream
            for served in self.proxy.served()
            if served.path.startswith(path)
            and (method is None or served.method == method)
            and served.upstream != "-"  # answered by the proxy itself, or not named in its log
        }


@pytest.fixture(scope="module", params=["nginx", "caddy"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, postgres: PostgresDatabases
) -> Iterator[Site]:
    proxy_in_front = {"nginx": nginx, "caddy": caddy}[request.param]
    work = tmp_path_factory.mktemp(f"behind-{request.param}")
    certificates = local_certificates(work / "tls")
    port = free_port()
    trusted = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = str(certificates.authority)  # the agent's and the API's HTTP clients
    try:
        with postgres.fresh_now() as url:
            env = {
                "ROMERGO_DATABASE_URL": url,
                "ROMERGO_PUBLIC_URL": f"https://127.0.0.1:{port}",
                "ROMERGO_TRUSTED_PROXIES": "127.0.0.1",
            }
            with two_instances((work / "a", work / "b"), env) as instances:
                ports = (instances[0].port, instances[1].port)
                with proxy_in_front(work / request.param, port, ports, certificates) as proxy:
                    yield Site(proxy, instances)
    finally:
        if trusted is None:
            os.environ.pop("SSL_CERT_FILE", None)
        else:
            os.environ["SSL_CERT_FILE"] = trusted


@pytest.fixture
async def tls_context(browser: Browser) -> AsyncIterator[BrowserContext]:
    # Chromium is not told about the test's authority; the agent's client verifies it for real.
    created = await browser.new_context(ignore_https_errors=True, viewport={"width": 1400, "height": 900})
    created.set_default_timeout(10_000)
    yield created
    await created.close()


async def test_sign_in_oauth_long_poll_and_live_edits_through_the_proxy(
    site: Site, tls_context: BrowserContext
):
    first = site.instances[0]
    assert first.signin_url.startswith(f"{site.url}/login?token="), "the printed link is the public URL"
    page = await tls_context.new_page()
    await page.goto(first.signin_url)
    await expect(page).to_have_url(re.compile(r"/projects/prj_[a-z0-9]+$"))
    project_path = page.url.removeprefix(site.url)

    async with CallbackListener() as listener:
        consenting = await tls_context.new_page()
        agent = await _connect_agent(site, consenting, listener)
        async with agent.client:
            me = Agent(agent.client)
            outline = data(
                await me.call("romergo_get_project_outline", project_id=project_path.rsplit("/")[-1])
            )
            scenes = outline["chapters"][0]["scenes"]
            await expect(page.get_by_text(scenes[0]["title"], exact=True)).to_be_visible()

            code = await invite(page)
            joined = await me.call("romergo_join_builder_channel", code=code)
            await expect(panel(page).get_by_test_id("presence")).to_contain_text("Agent behind a proxy")
            waiting = asyncio.create_task(me.wait(joined["channel_id"], joined["cursor"], timeout_seconds=30))
            await send(page, "Rename the first two scenes")
            command = (await asyncio.wait_for(waiting, 15))["command"]
            assert command["text"] == "Rename the first two scenes"

            # Two calls in a row: the proxy deals them to the two instances in turn.
            await page.evaluate("window.__romergoNoReload = true")
            for number, scene in enumerate(scenes[:2], start=1):
                title = f"Renamed behind the proxy {number}"
                await me.call(
                    "romergo_update_scene",
                    scene_id=scene["id"],
                    title=title,
                    command_id=command["command_id"],
                )
                await expect(page.get_by_text(title, exact=True)).to_be_visible(timeout=LIVE)
            await me.reply_done(command["command_id"], "Renamed both.")
            await expect(card(page, 1)).to_contain_text("Renamed both.", timeout=LIVE)
            assert await page.evaluate("window.__romergoNoReload === true")  # live, not reloaded

    both = {f"127.0.0.1:{server.port}" for server in site.instances}
    assert site.upstreams("/mcp", "POST") == both, "the agent's calls were spread over both instances"
    assert site.upstreams("/token") <= both and site.upstreams("/register")
    # The signed-in tab and its WebSocket stayed on one instance.
    assert len(site.upstreams(project_path)) == 1
    # The socket too (Caddy names no instance for an upgraded connection in its log; the page that
    # lived on without a reload shows it reached the page's instance all the same).
    assert site.upstreams("/_nicegui_ws") <= site.upstreams(project_path)


class ConnectedAgent:
    def __init__(self, client: Client) -> None:
        self.client = client


async def _connect_agent(site: Site, person: Page, listener: CallbackListener) -> ConnectedAgent:
    """The SDK's OAuth client through the proxy; the person, signed in, allows it in the browser."""

    async def approve(authorization_url: str) -> None:
        assert authorization_url.startswith(f"{site.url}/authorize?")
        await person.goto(authorization_url)
        await expect(person).to_have_url(re.compile(r"/oauth/consent\?request="))
        await person.get_by_role("button", name="Allow").click()

    provider = OAuthClientProvider(
        server_url=f"{site.url}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Agent behind a proxy",
            redirect_uris=[listener.redirect_uri],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryTokenStorage(),
        redirect_handler=approve,
        callback_handler=listener.result,
    )
    http = httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(70, connect=10))
    return ConnectedAgent(Client(streamable_http_client(f"{site.url}/mcp", http_client=http)))


def test_the_proxy_examples_name_the_same_paths_for_agents() -> None:
    """The nginx and Caddy examples send the same paths to any instance; everything else sticks."""
    nginx_paths = re.search(r"location ~ \^/\(([^)]+)\)", NGINX_EXAMPLE.read_text())
    assert nginx_paths, "the agents' location of the nginx example"
    matcher = re.search(r"@agents path (.+)", CADDY_EXAMPLE.read_text())
    assert matcher, "the agents' matcher of the Caddy example"
    for name in nginx_paths.group(1).replace("\\", "").split("|"):
        assert f"/{name.rstrip('/')}" in matcher.group(1), name
    assert "/api/*" in matcher.group(1)
