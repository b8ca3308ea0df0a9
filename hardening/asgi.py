"""HTTP hardening around the whole app: allowed hosts and origins, body size limits, security headers.

Plain ASGI (no BaseHTTPMiddleware) so streaming responses (MCP's SSE) pass through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = "; ".join(
    [
        "default-src 'self'",
        # NiceGUI's Vue templates need eval and its page boot script is inline.
        "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "media-src 'self' blob: data:",
        "font-src 'self' data:",
        "connect-src 'self' ws: wss:",
        "object-src 'none'",
        "base-uri 'self'",
        "frame-ancestors 'none'",
    ]
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class HostGuard:
    """DNS-rebinding protection for every route, websockets (Socket.IO) included.

    A `Host` that matches no allowed pattern gets 421; a request that carries an `Origin` (browsers
    send one on cross-site requests, on POSTs and on every websocket handshake) that matches none
    gets 403. `Origin: null` carries no origin at all (Chromium sends it on form posts under
    `Referrer-Policy: no-referrer`): those forms rely on their CSRF tokens. Patterns end in `:*`
    for any port; a pattern without a port matches only a Host
    without one.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]) -> None:
        self.app = app
        self.hosts = tuple(allowed_hosts)
        self.origins = tuple(allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        origin = headers.get(b"origin")
        if not _matches(host, self.hosts):
            await _refuse(
                scope, send, 421, "misdirected_request", "This server does not answer for that host."
            )
        elif origin not in (None, b"null") and not _matches(origin.decode("latin-1").lower(), self.origins):
            await _refuse(scope, send, 403, "forbidden", "Requests from that origin are not allowed.")
        else:
            await self.app(scope, receive, send)


class BodyLimit:
    """413 for bodies above the limit of the longest matching path prefix (`Content-Length` or streamed).

    A streamed body (no `Content-Length`) is read up to the limit before the app sees it: an app
    that fails while reading would answer 500 instead of 413.
    """

    def __init__(self, app: ASGIApp, limits: Iterable[tuple[str, int]], default: int) -> None:
        self.app = app
        self.limits = sorted(limits, key=lambda item: len(item[0]), reverse=True)
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = next((size for prefix, size in self.limits if scope["path"].startswith(prefix)), self.default)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > limit:
                await _too_large(send)
                return
            await self.app(scope, receive, send)  # the server never reads past Content-Length
            return
        buffered = await _read_within(receive, limit)
        if buffered is None:
            await _too_large(send)
            return

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in SECURITY_HEADERS if name not in present)
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class NoStore:
    """`Cache-Control: no-store` on every response under the given path prefixes."""

    def __init__(self, app: ASGIApp, prefixes: Iterable[str]) -> None:
        self.app = app
        self.prefixes = tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return

        async def no_store(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(n, v) for n, v in message.get("headers", []) if n.lower() != b"cache-control"]
                message = {**message, "headers": [*headers, (b"cache-control", b"no-store")]}
            await send(message)

        await self.app(scope, receive, no_store)


async def _read_within(receive: Receive, limit: int) -> list[Message] | None:
    """Every message of a streamed body, or None as soon as it grows past `limit` bytes."""
    messages: list[Message] = []
    received = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages
        received += len(message.get("body", b""))
        if received > limit:
            return None
        if not message.get("more_body", False):
            return messages


def _matches(value: str, patterns: tuple[str, ...]) -> bool:
    for pattern in patterns:
        if pattern.endswith(":*"):
            base = pattern[:-2]
            if value == base or (value.startswith(base + ":") and value[len(base) + 1 :].isdigit()):
                return True
        elif value == pattern:
            return True
    return False


async def _refuse(scope: Scope, send: Send, status: int, code: str, message: str) -> None:
    if scope["type"] == "websocket":
        # Closing before accepting makes the server answer the handshake with 403.
        await send({"type": "websocket.close", "code": 1008})
        return
    await _respond(send, status, json.dumps({"error": {"code": code, "message": message}}).encode())


async def _too_large(send: Send) -> None:
    await _respond(send, 413, b'{"error":{"code":"too_large","message":"The request body is too large."}}')


async def _respond(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
