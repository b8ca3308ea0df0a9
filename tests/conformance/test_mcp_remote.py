"""mcp-remote 0.15 (the stdio bridge Claude Desktop and others use) connects to Romergo under
either loopback name, runs the whole OAuth flow, and lists and calls the tools.

The person's consent is given over HTTP as a browser would, at the URL mcp-remote prints when it
cannot open a browser; MCP is spoken to it over stdio, as a desktop client does.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.conftest import HERE, MCP_REMOTE
from tests.support.oauth import answer, open_consent, signed_in
from tests.support.server import RunningServer

LONGEST_LINE = 16 * 1024 * 1024  # a tools/list answer is one line of JSON, well over asyncio's 64 KB
AUTHORIZE_URL = re.compile(r"(http://\S+/authorize\?\S+)")


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1"])
async def test_mcp_remote_signs_in_and_calls_tools(
    server: RunningServer, node: Path, tmp_path: Path, name: str
):
    url = f"http://{name}:{server.port}/mcp"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MCP_REMOTE_CONFIG_DIR": str(tmp_path)}
    bridge = await asyncio.create_subprocess_exec(
        str(node), str(MCP_REMOTE), url, str(_free_port()), "--host", "127.0.0.1",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=HERE, env=env, limit=LONGEST_LINE,
    )  # fmt: skip
    assert bridge.stdin is not None and bridge.stdout is not None and bridge.stderr is not None
    said: list[str] = []
    reading: asyncio.Task[None] | None = None
    try:
        async with asyncio.timeout(90):
            authorization = await _authorization_url(bridge.stderr, said)
            # Keep reading what it logs, so a full pipe never stalls it.
            reading = asyncio.create_task(_read_on(bridge.stderr, said))
            async with signed_in(server.base_url, "ada") as ada:
                allowed = await answer(ada, await open_consent(ada, authorization), "allow")
                assert allowed.status_code == 303, allowed.text
                await ada.get(allowed.headers["location"])  # on to mcp-remote's callback listener
            rpc = _Rpc(bridge.stdin, bridge.stdout)
            initialized = await rpc.call(
                "initialize",
                protocolVersion="2025-06-18",
                capabilities={},
                clientInfo={"name": "t", "version": "1"},
            )
            assert initialized["serverInfo"]["name"] == "romergo"
            await rpc.notify("notifications/initialized")
            tools = [tool["name"] for tool in (await rpc.call("tools/list"))["tools"]]
            assert "romergo_list_projects" in tools and "romergo_wait_for_builder_command" in tools
            listed = await rpc.call("tools/call", name="romergo_list_projects", arguments={})
            assert not listed.get("isError"), listed
            assert listed["structuredContent"]["untrusted_content"]["data"]["projects"]
    except BaseException:
        print("mcp-remote said:\n" + "".join(said))
        raise
    finally:
        bridge.kill()
        await bridge.wait()
        if reading is not None:
            await reading


async def _authorization_url(stderr: asyncio.StreamReader, said: list[str]) -> str:
    while True:
        line = (await stderr.readline()).decode()
        assert line, "mcp-remote ended without asking for authorization"
        said.append(line)
        found = AUTHORIZE_URL.search(line)
        if found:
            return found.group(1)


async def _read_on(stderr: asyncio.StreamReader, said: list[str]) -> None:
    while line := await stderr.readline():
        said.append(line.decode())


class _Rpc:
    """JSON-RPC over a child's stdio, one message per line (the MCP stdio transport)."""

    def __init__(self, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.next_id = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        await self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = json.loads(await self.stdout.readline())
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                result: dict[str, Any] = message["result"]
                return result

    async def notify(self, method: str) -> None:
        await self._send({"jsonrpc": "2.0", "method": method})

    async def _send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        await self.stdin.drain()


def _free_port() -> int:
    with socket.socket() as probe:  # mcp-remote needs its callback port named up front
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
