"""Who may use `/mcp`, answered in HTTP as the MCP authorization spec describes.

Replaces the SDK's `RequireAuthMiddleware` (its bearer check stays: the SDK's authentication
backend has already read the token into `scope["user"]`), to say more than it does:

- 401 without a usable token: `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`, with
  `error="invalid_token"` only when a token was sent (RFC 6750 §3.1: no error code for a request
  that carried no credentials). `scope` names every scope an agent can get (see ASKED_FOR_BY_DEFAULT).
- 403 `insufficient_scope` for a `tools/call` whose tool needs a scope the token lacks, naming the
  scopes to ask for (the spec's step-up challenge), so a client can re-authorize for more. This is
  the token's outer bound; what the room allows inside a channel stays a tool error.

A `tools/call` with the token of a revoked grant is refused like any unusable token, and also
reported to `on_revoked` (the core records it for the owner: proof that the agent stopped).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_tools.bodies import read_body
from romergo.access.agents.scopes import OAUTH_SCOPES, READ, ordered

RevokedCall = Callable[[str, str], Awaitable[None]]
"""(token, tool): a tool call refused because its token may have been revoked."""
ASKED_FOR_BY_DEFAULT = " ".join(OAUTH_SCOPES)
"""What the 401 tells a client to ask for: every scope an agent can get. The consent page offers
them with publish and delete unticked, so the person decides; a later call beyond what they
granted gets the step-up challenge."""


class BearerGate:
    def __init__(
        self,
        app: ASGIApp,
        resource_metadata_url: Callable[[str | None], str],
        tool_scopes: Mapping[str, str],
        on_revoked: RevokedCall | None = None,
    ) -> None:
        self.app = app
        self.resource_metadata_url = resource_metadata_url
        """`Host` header → the resource document's URL as that request names this server."""
        self.tool_scopes = tool_scopes
        """Tool name → the scope its category needs."""
        self.on_revoked = on_revoked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if not isinstance(user, AuthenticatedUser):
            sent_token = any(name == b"authorization" for name, _ in scope.get("headers", []))
            if sent_token and scope["method"] == "POST":
                await self._report_refused(scope, receive)
            await self._challenge(
                scope, send, 401, "invalid_token" if sent_token else None, ASKED_FOR_BY_DEFAULT
            )
            return
        granted = set(user.scopes)
        if READ not in granted:
            await self._challenge(scope, send, 403, "insufficient_scope", READ)
            return
        if scope["method"] == "POST":
            body, receive = await read_body(scope, receive)
            needed = self.tool_scopes.get(_called_tool(body) or "")
            if needed is not None and needed not in granted:
                await self._challenge(
                    scope, send, 403, "insufficient_scope", " ".join(ordered({*granted, needed}))
                )
                return
        await self.app(scope, receive, send)

    async def _report_refused(self, scope: Scope, receive: Receive) -> None:
        token = _bearer(scope)
        if self.on_revoked is None or token is None:
            return
        body, _ = await read_body(scope, receive)
        tool = _called_tool(body)
        if tool is not None:
            await self.on_revoked(token, tool[:100])

    async def _challenge(self, scope: Scope, send: Send, status: int, error: str | None, scopes: str) -> None:
        host = next((value.decode("latin-1") for name, value in scope["headers"] if name == b"host"), None)
        parts = [f'error="{error}"'] if error else []
        parts += [f'scope="{scopes}"', f'resource_metadata="{self.resource_metadata_url(host)}"']
        if status == 401:
            description = "Sign in: this endpoint needs an OAuth access token."
        else:
            description = f"This needs the scopes {scopes}: authorize again to grant them."
        body = json.dumps({"error": error or "unauthorized", "error_description": description}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", f"Bearer {', '.join(parts)}".encode()),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _bearer(scope: Scope) -> str | None:
    value = next(
        (v.decode("latin-1") for name, v in scope.get("headers", []) if name == b"authorization"), ""
    )
    kind, _, token = value.partition(" ")
    return token.strip() or None if kind.lower() == "bearer" else None


def _called_tool(body: bytes) -> str | None:
    """The tool a JSON-RPC `tools/call` names; None for anything else (the SDK judges that)."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # nested deeper than the parser goes: the SDK refuses it
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    return name if isinstance(name, str) else None
