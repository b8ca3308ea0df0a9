"""Romergo core: the story domain, accounts and (later) channels.

This package is framework-free: it never imports NiceGUI, MCP, FastAPI or Starlette. Adapters
(`ui`, `mcp_tools`, `api`) call its services; the services reach the database through `storage`.
"""
