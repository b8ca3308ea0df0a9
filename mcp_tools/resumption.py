"""Stream resumption on `/mcp`, which Romergo does not offer.

Romergo runs the SDK's transport without an event store: its SSE events carry no ids, so a
well-behaved client never has a `Last-Event-ID` to send. A GET that sends one anyway would reach
the SDK's replay branch, which without a store returns without answering (the server's 500).
It gets a clear 400 instead. The check sits inside the SDK's bearer check (`mcp_tools.http`), so an
anonymous caller still gets the 401 challenge first.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

NOT_RESUMABLE = (
    "This server does not resume streams: open a new one with a GET without Last-Event-ID, "
    "or repeat the request."
)


class NoStreamResumption:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET" and _resuming(scope):
            await _bad_request(send)
            return
        await self.app(scope, receive, send)


def _resuming(scope: Scope) -> bool:
    return any(name == b"last-event-id" for name, _ in scope.get("headers", []))


async def _bad_request(send: Send) -> None:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": NOT_RESUMABLE}}
    ).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 400, "headers": headers})
    await send({"type": "http.response.body", "body": body})
