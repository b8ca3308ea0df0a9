"""MCP and OAuth over HTTP, inside Romergo's one FastAPI app.

The SDK's Streamable HTTP app brings `/mcp` (behind its bearer middleware) and the OAuth routes
(`/authorize`, `/token`, `/register`, `/revoke`, the two metadata documents). Each of its paths is
mounted on the host app with the whole sub-app as endpoint, so the bearer middleware stays on MCP
traffic only; the session manager runs in a task of its own for the host's lifespan.

The OAuth routes go through the gates of `mcp_tools.oauth_gates` (what SECURITY.md asks for).
The metadata documents are built from configuration (never from request headers) and announce
S256 only, the `iss` response parameter (RFC 9207) and the scopes an agent can get.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlsplit

from fastapi import FastAPI
from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import ASGIApp

from mcp_tools.bearer_gate import BearerGate, RevokedCall
from mcp_tools.metadata import authorization_document, resource_document, resource_metadata_url
from mcp_tools.oauth_gates import AuthorizeGate, RegisterGate, RevokeGate, TokenGate
from mcp_tools.resumption import NoStreamResumption
from mcp_tools.server import RomergoMCPServer
from romergo.access.agents.site import OAuthSite
from romergo.access.origins import allowed_hosts, allowed_origins
from romergo.common.config import MAX_AGENT_BODY, MCP_PATH, Settings
from romergo.services import Services

log = logging.getLogger(__name__)

AUTHORIZATION_METADATA = "/.well-known/oauth-authorization-server"
SHUTDOWN_SECONDS = 3.0


@dataclass
class McpHttp:
    server: RomergoMCPServer
    app: Starlette
    paths: tuple[str, ...]

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the session manager (once) for as long as the host app runs."""
        started = asyncio.Event()
        stopping = asyncio.Event()

        async def run() -> None:
            async with self.server.session_manager.run():
                started.set()
                await stopping.wait()

        task = asyncio.create_task(run(), name="mcp session manager")
        ready = asyncio.create_task(started.wait())
        await asyncio.wait({task, ready}, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if task.done():
            await task  # it failed to start: let the host's start-up fail with its error
        try:
            yield
        finally:
            stopping.set()
            try:
                await asyncio.wait_for(task, SHUTDOWN_SECONDS)
            except TimeoutError:
                log.warning("The MCP session manager did not stop within %s s", SHUTDOWN_SECONDS)


def mount(app: FastAPI, services: Services, server: RomergoMCPServer) -> McpHttp:
    """Add `/mcp` and the OAuth routes to `app`; call before the UI takes over `/`."""
    settings = services.settings
    sub = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=transport_security(settings),
        max_request_body_size=MAX_AGENT_BODY,
        host=settings.host,
        # Several instances behind a proxy: no MCP session lives in one process, so any instance
        # answers any call (DESIGN.md §6); Romergo binds nothing to the session either way.
        stateless_http=settings.many_instances,
    )
    auth = server.settings.auth
    assert auth is not None and auth.resource_server_url is not None
    agents = services.agents
    resource_metadata_path = urlsplit(str(build_resource_metadata_url(auth.resource_server_url))).path
    replaced: dict[str, ASGIApp] = {
        AUTHORIZATION_METADATA: authorization_document(agents.site, auth),
        resource_metadata_path: resource_document(agents.site),
        "/authorize": AuthorizeGate(_endpoint(sub, "/authorize"), agents),
        "/register": RegisterGate(_endpoint(sub, "/register"), agents),
        "/token": TokenGate(_endpoint(sub, "/token"), agents),
        "/revoke": RevokeGate(_endpoint(sub, "/revoke"), agents),
        MCP_PATH: _gated(_endpoint(sub, MCP_PATH), server, agents.site, services.refused_revoked_call),
    }
    routes: list[Route] = []
    for route in sub.routes:
        assert isinstance(route, Route)
        routes.append(Route(route.path, endpoint=replaced.get(route.path, route.app), methods=route.methods))
    sub.router.routes = list(routes)
    paths = tuple(route.path for route in routes)
    for path in paths:
        app.router.routes.append(Route(path, endpoint=sub, include_in_schema=False))
    return McpHttp(server=server, app=sub, paths=paths)


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The SDK's own DNS-rebinding check on `/mcp`, with the same lists as the host guard in front
    of every route (`romergo.access.origins`): 421 for a foreign `Host`, 403 for a foreign `Origin`."""
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts(settings),
        allowed_origins=allowed_origins(settings),
    )


def _gated(endpoint: ASGIApp, server: RomergoMCPServer, site: OAuthSite, on_revoked: RevokedCall) -> ASGIApp:
    """`/mcp` behind Romergo's bearer gate instead of the SDK's (`mcp_tools.bearer_gate`)."""
    assert isinstance(endpoint, RequireAuthMiddleware), "the SDK's /mcp route changed its bearer check"
    inner = NoStreamResumption(endpoint.app)
    return BearerGate(inner, partial(resource_metadata_url, site), server.tool_scopes, on_revoked)


def _endpoint(sub: Starlette, path: str) -> ASGIApp:
    for route in sub.routes:
        if isinstance(route, Route) and route.path == path:
            return route.app
    raise LookupError(f"the SDK app has no {path} route")
