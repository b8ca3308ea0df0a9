"""Romergo core, in rooms: the story domain (story/), channels between the owner and their agent
(channels/), who may come in and how often (access/: accounts, agents' tokens and consent, rate
limits), story files in and out (interchange/), the demo (demo/), and what every room uses
(common/: actors, the event bus, clock, settings, errors, ids, page paths). `services.py` composes
them with storage's ledgers.

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
