"""The MCP adapter: the SDK's MCPServer at `/mcp` with Romergo's tools and prompts.

`tools/` declares each tool once (`declare.Toolbox`); `tooling` is the seam every call passes
(token identity, scope, rate, the core's guard); `envelope` wraps project data as untrusted;
`http` mounts the endpoint with the OAuth routes, whose gates (`oauth_gates`, `bearer_gate`,
`metadata`) add what the SDK's authorization server leaves to the app (SECURITY.md).
"""
