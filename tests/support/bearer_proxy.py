"""A local HTTP proxy that adds a bearer token to every request it forwards.

For outside MCP clients that cannot sign in (the conformance suite's server scenarios connect
without OAuth): they talk to this proxy, which forwards to Romergo with a personal token, so
everything they check is Romergo's own answer. Bodies and SSE streams pass through unchanged.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

HOP_BY_HOP = {"host", "content-length", "authorization", "connection", "transfer-encoding"}


@asynccontextmanager
async def bearer_proxy(target: str, token: str) -> AsyncIterator[str]:
    """Serve the proxy on a free loopback port for the block; yields its base URL."""
    upstream = httpx.AsyncClient(base_url=target, timeout=httpx.Timeout(120, connect=10))

    async def forward(request: Request) -> StreamingResponse:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["authorization"] = f"Bearer {token}"
        sent = upstream.build_request(
            request.method,
            request.url.path,
            params=request.query_params,
            headers=headers,
            content=await request.body(),
        )
        answer = await upstream.send(sent, stream=True)
        kept = {k: v for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP | {"content-encoding"}}
        return StreamingResponse(
            answer.aiter_raw(),
            status_code=answer.status_code,
            headers=kept,
            background=BackgroundTask(answer.aclose),
        )

    app = Starlette(routes=[Route("/{path:path}", forward, methods=["GET", "POST", "DELETE"])])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    # Bound and listening before the server runs: connections wait in the backlog, so there is no
    # start-up to wait for, and the port is the kernel's pick (no free-port race).
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving
        listening.close()
        await upstream.aclose()
