"""One module per topic of MCP tools, each declaring its tools on a `Toolbox` (`mcp_tools.declare`)."""
