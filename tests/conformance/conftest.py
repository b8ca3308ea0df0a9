"""Outside MCP clients against a real Romergo server: the MCP conformance suite and mcp-remote,
installed by `scripts/bootstrap test` into tests/conformance/node_modules (with Node 22)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mcp_tools.conftest import server

HERE = Path(__file__).parent
NODE = HERE / "node_modules" / ".bin" / "node"
CONFORMANCE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
MCP_REMOTE = HERE / "node_modules" / "mcp-remote" / "dist" / "proxy.js"

__all__ = ["server"]


@pytest.fixture(scope="session")
def node() -> Path:
    assert NODE.exists() and CONFORMANCE.exists(), "scripts/bootstrap test installs the Node clients"
    return NODE
