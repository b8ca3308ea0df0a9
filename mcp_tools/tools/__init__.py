"""One module per topic of MCP tools; each has `register(server, services)`."""
