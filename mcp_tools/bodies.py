"""Reading a request body in an ASGI gate and handing it on to the app behind the gate.

The gates in front of the SDK's handlers (`oauth_gates`, `bearer_gate`) look at a body before the
SDK does; the outer `hardening.asgi.BodyLimit` has bounded its size already.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import Message, Receive, Scope


async def read_body(scope: Scope, receive: Receive) -> tuple[bytes, Receive]:
    """The whole body, and a `receive` that gives it to the next app as if unread."""
    body = await Request(scope, receive).body()
    return body, replay(body, receive)


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the already-read body to the next app, then defers to the real one."""
    delivered = False

    async def replayed() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def with_length(scope: Scope, length: int) -> Scope:
    """`scope` with its Content-Length set to a rewritten body's length."""
    headers = [(name, value) for name, value in scope["headers"] if name.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}
