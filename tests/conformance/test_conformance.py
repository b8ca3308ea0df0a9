"""The MCP conformance suite (0.2.0-alpha.12) against a real Romergo server.

Server scenarios that need no fixture of the suite's own run through a proxy that adds a personal
token (the suite's server mode cannot sign in); the authorization-server scenarios run against the
OAuth endpoints directly, a person's consent given over HTTP as a browser would.

Out of scope, and why: the tool, resource and prompt scenarios named after the suite's fixtures
(`tools-call-simple-text`, `resources-read-text`, `prompts-get-with-args`, ...) call tools,
resources and prompts only the suite's reference server has; `logging-set-level` and
`completion-complete` test capabilities Romergo does not declare (it sends no log messages and
offers no completions); `elicitation-*`, `tools-call-sampling` and the `tasks-*` and
`input-required-result-*` families need those fixture tools too.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
from pathlib import Path

import pytest

from tests.conformance.conftest import CONFORMANCE, HERE
from tests.support.bearer_proxy import bearer_proxy
from tests.support.oauth import answer, open_consent, personal_token, registered_client, signed_in
from tests.support.server import RunningServer

SERVER_SCENARIOS = [
    "server-initialize",
    "server-session-lifecycle",
    "ping",
    "tools-list",
    "prompts-list",
    "dns-rebinding-protection",
]
AUTHORIZE_URL = re.compile(r"^(http://\S+/authorize\?\S+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def token(server: RunningServer) -> str:
    return personal_token(server, "ada", "--scopes", "read")


@pytest.mark.parametrize("scenario", SERVER_SCENARIOS)
async def test_server_scenario_passes(
    server: RunningServer, token: str, node: Path, tmp_path: Path, scenario: str
):
    async with bearer_proxy(server.base_url, token) as proxied:
        ran = await _conformance(
            node, "server", "--url", f"{proxied}/mcp", "--scenario", scenario, out=tmp_path
        )
    assert ran.code == 0, ran.output
    assert _failures(tmp_path) == [], ran.output


async def test_authorization_server_scenarios_pass(server: RunningServer, node: Path, tmp_path: Path):
    port = _free_port()  # the suite listens for the callback there; it must be registered first
    callback = f"http://127.0.0.1:{port}/callback"
    client_id = await registered_client(server.base_url, callback)
    suite = await asyncio.create_subprocess_exec(
        str(node), str(CONFORMANCE), "authorization", "--url", server.base_url, "--client-id", client_id,
        "--resource", f"{server.base_url}/mcp", "--port", str(port), "--output-dir", str(tmp_path),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=HERE,
    )  # fmt: skip
    assert suite.stdout is not None
    seen = ""
    async with asyncio.timeout(60):
        while (found := AUTHORIZE_URL.search(seen)) is None:
            line = await suite.stdout.readline()
            assert line, f"the suite ended without asking for consent:\n{seen}"
            seen += line.decode()
        async with signed_in(server.base_url, "ada") as ada:
            allowed = await answer(ada, await open_consent(ada, found.group(1)), "allow")
            assert allowed.status_code == 303, allowed.text
            await ada.get(allowed.headers["location"])  # the browser follows to the suite's callback
        rest, _ = await suite.communicate()
    output = seen + rest.decode()
    assert suite.returncode == 0, output
    assert _failures(tmp_path) == [], output


class _Ran:
    def __init__(self, code: int, output: str) -> None:
        self.code = code
        self.output = output


async def _conformance(node: Path, *arguments: str, out: Path) -> _Ran:
    process = await asyncio.create_subprocess_exec(
        str(node), str(CONFORMANCE), *arguments, "--output-dir", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, cwd=HERE,
    )  # fmt: skip
    async with asyncio.timeout(120):
        output, _ = await process.communicate()
    return _Ran(process.returncode or 0, output.decode())


def _failures(out: Path) -> list[str]:
    """Every check the suite recorded as failed, from its result files."""
    results = list(out.glob("*/checks.json"))
    assert results, "the suite wrote no results"
    return [
        f"{check['id']}: {check.get('errorMessage', '')}"
        for path in results
        for check in json.loads(path.read_text())
        if check["status"] == "FAILURE"
    ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
