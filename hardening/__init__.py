"""Generic HTTP hardening for the whole ASGI app: allowed hosts and origins, CORS for agents,
body size limits, security headers, no-store.

It knows nothing of Romergo (it imports only Starlette's types), so the composition root decides
the limits and paths; see `app.build_app`.
"""

from hardening.asgi import BodyLimit, HostGuard, NoStore, SecurityHeaders
from hardening.cors import AgentCors

__all__ = ["AgentCors", "BodyLimit", "HostGuard", "NoStore", "SecurityHeaders"]
