"""Generic HTTP hardening for the whole ASGI app: allowed hosts and origins, CORS for agents,
body size limits, security headers, no-store; and below the app, uvicorn's HTTP protocol with
deadlines for slow clients and caps on open connections (`hardening.connections`).

It knows nothing of Romergo (it imports only Starlette's and uvicorn's types), so the composition
root decides the limits and paths; see `app.build_app` and `app.connection_rules`.
"""

from hardening.asgi import BodyLimit, HostGuard, NoStore, SecurityHeaders
from hardening.cors import AgentCors

__all__ = ["AgentCors", "BodyLimit", "HostGuard", "NoStore", "SecurityHeaders"]
