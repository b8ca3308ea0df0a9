"""Requests as an ASGI app receives them: captured from a real client once, then handed to an app
in this process again and again, with no socket (`tests.bench.in_process`)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")
PORT = 8080
BASE_URL = f"http://127.0.0.1:{PORT}"
"""Where the requests say they go (the app's allowed host)."""


class Request:
    """One HTTP request as an app receives it, to hand to it again and again."""

    def __init__(self, scope: Scope, body: bytes) -> None:
        self.scope = scope
        self.body = body

    def with_arguments(self, **arguments: Any) -> Request:
        message = json.loads(self.body)
        message["params"]["arguments"] |= arguments
        return Request(self.scope, json.dumps(message).encode())

    async def served_by(self, app: ASGIApp) -> tuple[bytes, float]:
        """The response's body and when its last part was sent (`perf_counter`)."""
        sent: dict[str, Any] = {}
        delivered = False

        async def receive() -> Message:
            nonlocal delivered
            if delivered:  # the client stays connected
                await asyncio.Event().wait()
            delivered = True
            return {"type": "http.request", "body": self.body, "more_body": False}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                sent["status"] = message["status"]
            elif not message.get("more_body"):
                sent["body"], sent["at"] = message.get("body", b""), time.perf_counter()

        await app({**self.scope, "state": {}}, receive, send)
        assert sent.get("status") in (200, 201), sent
        return sent["body"], sent["at"]


class Recorder:
    """An ASGI app in front of another that keeps the first request naming `wanted`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.wanted: str | None = None
        self.kept: dict[str, Request] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        wanted = self.wanted
        if scope["type"] != "http" or wanted is None:
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []

        async def recorded() -> Message:
            message = await receive()
            parts.append(message.get("body", b""))
            return message

        await self.app(scope, recorded, send)
        body = b"".join(parts)
        if f'"{wanted}"'.encode() in body:
            self.kept.setdefault(wanted, Request(dict(scope), body))

    async def capture(self, wanted: str, call: Awaitable[T]) -> tuple[Request, T]:
        """The request `call` sent naming `wanted`, and what the call returned."""
        self.wanted = wanted
        try:
            result = await call
        finally:
            self.wanted = None
        return self.kept[wanted], result


@asynccontextmanager
async def client(app: ASGIApp, token: str) -> AsyncIterator[Client]:
    """The SDK's client, its requests handed to `app` in this process."""
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), headers={"Authorization": f"Bearer {token}"}
    )
    async with Client(streamable_http_client(f"{BASE_URL}/mcp", http_client=http)) as client:
        yield client


def request_scope(method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes = b"") -> Scope:
    headers = [(b"host", f"127.0.0.1:{PORT}".encode()), (b"content-type", b"application/json"), *headers]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", PORT),
    }
