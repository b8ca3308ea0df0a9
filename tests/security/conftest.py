"""Security tests: black-box attacks on one real server process per module (docs/contract.md,
../shared/SECURITY.md). Each test is named after what it proves.

The server fixture is the MCP HTTP tests' own (one server per module, user `ada`, a module may set
`SERVER_ENV`): re-exported here rather than written twice.
"""

from tests.mcp_tools.conftest import server

__all__ = ["server"]
