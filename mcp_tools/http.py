"""MCP and OAuth over HTTP, inside Romergo's one FastAPI app.

The SDK's Streamable HTTP app brings `/mcp` (behind its bearer middleware) and the OAuth routes
(`/authorize`, `/token`, `/register`, `/revoke`, the two metadata documents). Each of its paths is
mounted on the host app with the whole sub-app as endpoint, so the bearer middleware stays on MCP
traffic only; the session manager runs in a task of its own for the host's lifespan.

Around the SDK's routes sit the wrappers SECURITY.md asks for:
- `/authorize` checks the whole request first; anything wrong (unknown client, unregistered
  redirect URI, no S256 challenge, a scope or resource we do not offer) gets an error page here,
  never a redirect to the client. Only a sound request goes on to the consent page.
- `/register` is rate-limited per address (429) and registers public clients only (RFC 7591 lets
  the server replace requested metadata): no client secret is ever made or stored.
- `/token` refuses a `resource` other than this server's MCP endpoint (`invalid_target`).
- `/revoke` accepts public clients without a `client_secret` field.
- The metadata documents are built from configuration (never from request headers) and announce
  S256 only, the `iss` response parameter (RFC 9207) and the scopes an agent can get.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import math
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from fastapi import FastAPI
from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.routes import build_metadata, build_resource_metadata_url, cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_tools.server import RomergoMCPServer
from romergo.agents import AgentService, redirects
from romergo.agents.scopes import OAUTH_SCOPES
from romergo.config import MCP_PATH, Settings
from romergo.errors import RomergoError
from romergo.services import Services

log = logging.getLogger(__name__)

MIB = 1024 * 1024
MAX_MCP_BODY = 5 * MIB
AUTHORIZATION_METADATA = "/.well-known/oauth-authorization-server"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
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
        max_request_body_size=MAX_MCP_BODY,
        host=settings.host,
    )
    auth = server.settings.auth
    assert auth is not None and auth.resource_server_url is not None
    agents = services.agents
    resource_metadata_path = urlsplit(str(build_resource_metadata_url(auth.resource_server_url))).path
    replaced: dict[str, ASGIApp] = {
        AUTHORIZATION_METADATA: cors_middleware(
            MetadataHandler(authorization_metadata(auth)).handle, ["GET", "OPTIONS"]
        ),
        resource_metadata_path: cors_middleware(
            ProtectedResourceMetadataHandler(resource_metadata(auth, settings)).handle, ["GET", "OPTIONS"]
        ),
        "/authorize": AuthorizeGate(_endpoint(sub, "/authorize"), agents),
        "/register": RegisterGate(_endpoint(sub, "/register"), agents),
        "/token": TokenGate(_endpoint(sub, "/token"), agents),
        "/revoke": RevokeGate(_endpoint(sub, "/revoke")),
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
    """DNS-rebinding protection for `/mcp`: the public URL's host, loopback names, and any
    `ROMERGO_ALLOWED_HOSTS`; a foreign `Host` gets 421 and a foreign `Origin` 403."""
    public = urlsplit(settings.base_url)
    hosts = [public.netloc]
    origins = [f"{public.scheme}://{public.netloc}"]
    for name in LOOPBACK_HOSTS:
        hosts += [name, f"{name}:*"]
        origins += [f"http://{name}", f"http://{name}:*"]
    for extra in settings.allowed_hosts:
        hosts.append(extra)
        origins += [f"http://{extra}", f"https://{extra}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(dict.fromkeys(hosts)),
        allowed_origins=list(dict.fromkeys(origins)),
    )


def authorization_metadata(auth: AuthSettings) -> OAuthMetadata:
    metadata = build_metadata(
        auth.issuer_url,
        auth.service_documentation_url,
        auth.client_registration_options or ClientRegistrationOptions(),
        auth.revocation_options or RevocationOptions(),
    )
    return metadata.model_copy(
        update={
            "scopes_supported": list(OAUTH_SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": True,
        }
    )


def resource_metadata(auth: AuthSettings, settings: Settings) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata(
        resource=settings.mcp_url,
        authorization_servers=[auth.issuer_url],
        scopes_supported=list(OAUTH_SCOPES),
        resource_name="Romergo",
        bearer_methods_supported=["header"],
    )


class AuthorizeGate:
    """Checks an authorization request completely before the SDK's handler may redirect anywhere."""

    PARAMETERS = (
        "client_id",
        "redirect_uri",
        "response_type",
        "code_challenge",
        "code_challenge_method",
        "state",
        "scope",
        "resource",
    )

    def __init__(self, app: ASGIApp, agents: AgentService) -> None:
        self.app = app
        self.agents = agents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if request.method == "POST":
            if request.headers.get("content-type", "").split(";")[0] != "application/x-www-form-urlencoded":
                await _error_page("The authorization request must be a form post or a GET.")(
                    scope, receive, send
                )
                return
            body = await request.body()
            params = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
            receive = _replay(body, receive)
        else:
            params = request.query_params.multi_items()
        problem = await self.problem(params)
        if problem is not None:
            await _error_page(problem)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def problem(self, params: list[tuple[str, str]]) -> str | None:
        counts = Counter(key for key, _ in params)
        repeated = [key for key in self.PARAMETERS if counts[key] > 1]
        if repeated:
            return f"The parameter {repeated[0]} appears more than once."
        values = dict(params)
        if values.get("response_type") != "code":
            return "Romergo supports only response_type=code (the authorization code flow with PKCE)."
        client_id = values.get("client_id")
        if not client_id:
            return "The request names no client_id."
        client = await self.agents.get_client(client_id)
        if client is None:
            return "This agent is not registered with Romergo. Let it connect again so that it registers."
        try:
            self.agents.check_authorization(
                client,
                redirect_uri=values.get("redirect_uri"),
                scope=values.get("scope"),
                code_challenge=values.get("code_challenge"),
                code_challenge_method=values.get("code_challenge_method"),
                resource=values.get("resource"),
                state=values.get("state"),
            )
        except RomergoError as error:
            return error.message
        return None


class RegisterGate:
    """Rate-limits registrations per address and registers public clients only."""

    def __init__(self, app: ASGIApp, agents: AgentService) -> None:
        self.app = app
        self.agents = agents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        source = str((scope.get("client") or ("unknown", 0))[0])
        if not self.agents.allow_registration(source):
            wait = max(1, math.ceil(self.agents.registrations.retry_after(source)))
            refusal = JSONResponse(
                {"error": "rate_limited", "error_description": "Too many registrations; try again later."},
                status_code=429,
                headers={"Retry-After": str(wait), **NO_STORE},
            )
            await refusal(scope, receive, send)
            return
        body = await Request(scope, receive).body()
        try:
            metadata = json.loads(body)
        except ValueError:
            metadata = None  # the SDK's handler explains what is wrong with it
        if isinstance(metadata, dict):
            problem = _redirect_problem(metadata.get("redirect_uris"))
            if problem is not None:
                # Checked as sent: URL parsing downstream would quietly normalise `/a/../cb` away.
                refusal = JSONResponse(
                    {"error": "invalid_redirect_uri", "error_description": problem},
                    status_code=400,
                    headers=NO_STORE,
                )
                await refusal(scope, receive, send)
                return
            metadata["token_endpoint_auth_method"] = "none"  # noqa: S105 - a method name, not a secret
            body = json.dumps(metadata).encode()
        await self.app(_with_length(scope, len(body)), _replay(body, receive), send)


class TokenGate:
    """Tokens are only ever for this server's MCP endpoint: any other `resource` is `invalid_target`."""

    def __init__(self, app: ASGIApp, agents: AgentService) -> None:
        self.app = app
        self.agents = agents

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await Request(scope, receive).body()
        resources = [
            value
            for key, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
            if key == "resource"
        ]
        if len(resources) > 1 or not all(self.agents.is_this_resource(value) for value in resources):
            refusal = JSONResponse(
                {
                    "error": "invalid_target",
                    "error_description": f"Tokens are issued only for {self.agents.resource}.",
                },
                status_code=400,
                headers=NO_STORE,
            )
            await refusal(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


class RevokeGate:
    """Lets public clients revoke as RFC 7009 allows, without a `client_secret` field.

    The SDK's revocation handler requires the field to be present (even empty); public clients,
    which is all of Romergo's, have no secret to send.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await Request(scope, receive).body()
        fields = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
        if not any(key == "client_secret" for key, _ in fields):
            body = body + (b"&" if body else b"") + b"client_secret="
        await self.app(_with_length(scope, len(body)), _replay(body, receive), send)


def _redirect_problem(uris: object) -> str | None:
    if not isinstance(uris, list) or not all(isinstance(uri, str) for uri in uris):
        return None  # not our question: the SDK's handler refuses malformed metadata
    try:
        redirects.check_redirect_uris(uris)
    except RomergoError as error:
        return error.message
    return None


def _endpoint(sub: Starlette, path: str) -> ASGIApp:
    for route in sub.routes:
        if isinstance(route, Route) and route.path == path:
            return route.app
    raise LookupError(f"the SDK app has no {path} route")


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the already-read body to the next app, then defers to the real one."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _with_length(scope: Scope, length: int) -> Scope:
    headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def _error_page(reason: str) -> Response:
    """What a person sees instead of a redirect when a connection request cannot be used."""
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Connection refused · Romergo</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1 role="alert">This connection request cannot be used</h1>
<p>{html.escape(reason)}</p>
<p>Nothing was sent back to the agent. Start connecting again from your agent.</p>
</body></html>"""
    return HTMLResponse(page, status_code=400, headers=NO_STORE)
