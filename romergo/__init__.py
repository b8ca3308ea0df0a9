"""Romergo core: the story domain (story/), channels between the owner and their agent (channels/),
agent access and tokens (agents/), accounts and sign-in (accounts/), the demo (demo/), the event bus,
settings, and the one builder of page paths (urls.py).

This package is framework-free: it never imports NiceGUI, MCP, FastAPI or Starlette. Adapters
(`ui`, `mcp_tools`, `api`) call its services; the services reach the database through `storage`.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version


def version() -> str:
    """The installed package's version: what `romergo --version` and MCP's `serverInfo` say."""
    try:
        return _distribution_version("romergo")
    except PackageNotFoundError:  # a source checkout run without installing
        return "unknown"
