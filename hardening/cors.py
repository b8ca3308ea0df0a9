"""CORS for the endpoints a browser-based MCP client calls (the MCP endpoint and the OAuth routes).

Only allowed origins are echoed (a foreign one never gets here: HostGuard answers it 403 first);
preflights are answered before authentication, and the headers a client must read
(`Mcp-Session-Id`, `WWW-Authenticate`) are exposed. No credentials: agents send bearer tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

METHODS = ["GET", "POST", "DELETE", "OPTIONS"]
REQUEST_HEADERS = ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]
EXPOSED_HEADERS = ["Mcp-Session-Id", "WWW-Authenticate"]


class AgentCors:
    def __init__(self, app: ASGIApp, prefixes: Iterable[str], allowed_origins: Iterable[str]) -> None:
        self.app = app
        self.prefixes = tuple(prefixes)
        self.cors = CORSMiddleware(
            app,
            allow_origin_regex=origin_pattern(allowed_origins),
            allow_methods=METHODS,
            allow_headers=REQUEST_HEADERS,
            expose_headers=EXPOSED_HEADERS,
            max_age=600,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.prefixes):
            await self.cors(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def origin_pattern(origins: Iterable[str]) -> str:
    """One regular expression for origin patterns (`scheme://host[:port]`, `:*` for any port)."""
    parts = []
    for origin in origins:
        if origin.endswith(":*"):
            parts.append(re.escape(origin[:-2]) + r"(:\d+)?")
        else:
            parts.append(re.escape(origin))
    return "^(" + "|".join(parts) + ")$"
