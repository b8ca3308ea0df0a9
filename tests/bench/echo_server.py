"""The floor for any MCP call on this machine: a bare `MCPServer` with an echo tool and a wait.

    .venv/bin/python -m tests.bench.echo_server

Served over Streamable HTTP by uvicorn on a free loopback port (printed as `echo on http://…`), with
no authorization, no database and no middleware of Romergo's: what is left is the SDK's own work
on both ends, the HTTP stack and the process hop. The benchmarks measure Romergo's calls as a ratio
of this round trip, made by the same client in the same run.
"""

from __future__ import annotations

import asyncio
import gc
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app import GC_THRESHOLDS


class Echoed(BaseModel):
    text: str


def build(posted: asyncio.Queue[str] | None = None) -> MCPServer[Any]:
    replayed = _Replayed()
    server: MCPServer[Any] = MCPServer(name="echo", tools=[replayed.tool])
    mailbox: asyncio.Queue[str] = posted if posted is not None else asyncio.Queue()

    @server.tool()
    def echo(text: str) -> Echoed:
        """Return the text it was given."""
        return Echoed(text=text)

    @server.tool()
    async def wait(seconds: float) -> Echoed:
        """Answer after `seconds`: a long-poll with nothing behind it (the waiters' floor)."""
        await asyncio.sleep(seconds)
        return Echoed(text="timeout")

    @server.tool()
    async def wait_for_post(seconds: float) -> Echoed:
        """Answer with the next text POSTed to `/post`: a delivery with nothing behind it (the
        delivery's floor: the owner's HTTP request, the wake-up, the parked call's answer)."""
        try:
            return Echoed(text=await asyncio.wait_for(mailbox.get(), seconds))
        except TimeoutError:
            return Echoed(text="timeout")

    @server.tool()
    def remember(result: dict[str, Any], output_schema: dict[str, Any]) -> Echoed:
        """From now on `replay` answers with this tool result and declares this output schema."""
        replayed.answer = CallToolResult.model_validate(result)
        replayed.tool.fn_metadata.output_schema = output_schema
        return Echoed(text="remembered")

    return server


class _Replayed:
    """A tool that answers with a result it was given: the floor for a call whose answer has the
    size and shape of a Romergo tool's (its envelope, its text rendering and the output schema
    the client checks it against), with none of Romergo's work behind it.

    The client reads the output schema when it first meets the tool, so a client should call
    `replay` only after `remember`."""

    def __init__(self) -> None:
        self.answer = CallToolResult(content=[])

        def replay() -> CallToolResult:
            """The remembered result."""
            return self.answer

        self.tool = Tool.from_function(replay, name="replay")


def with_post_route(server: MCPServer[Any], posted: asyncio.Queue[str]) -> Starlette:
    """The server's Streamable HTTP app with `/post`: a JSON POST whose text its parked
    `wait_for_post` call answers with (what the owner's post is to Romergo's wait)."""
    app = server.streamable_http_app()

    async def post(request: Request) -> JSONResponse:
        posted.put_nowait(str((await request.json())["text"]))
        return JSONResponse({"posted": True})

    app.router.routes.append(Route("/post", post, methods=["POST"]))
    return app


def serve() -> None:
    posted: asyncio.Queue[str] = asyncio.Queue()
    app = with_post_route(build(posted), posted)
    # IPPROTO_TCP, or asyncio leaves Nagle on: see app.listening_socket.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    # Listening before the URL is printed: a client that reads it connects into the backlog instead
    # of being refused while uvicorn is still starting (as app.listening_socket does).
    listener.listen(2048)
    print(f"echo on http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    # Started as `romergo serve` starts (app._run), so the floor is what Romergo's process would be
    # with nothing of Romergo's behind it: the same collector settings, and uvicorn making the event
    # loop (uvloop where it is installed: NiceGUI's dependencies bring it). Under `asyncio.run`, with
    # the collector's defaults, the floor ran on asyncio's own loop while Romergo ran on uvloop.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    uvicorn.Server(config).run(sockets=[listener])


@dataclass
class EchoServer:
    """The echo server in a process of its own, like Romergo's."""

    process: subprocess.Popen[str]
    base_url: str


@contextmanager
def running_echo() -> Iterator[EchoServer]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.bench.echo_server"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        if not first.startswith("echo on "):
            raise RuntimeError(f"the echo server did not start: {first!r}")
        yield EchoServer(process, first.removeprefix("echo on ").strip())
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    serve()
