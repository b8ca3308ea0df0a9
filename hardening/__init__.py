"""Generic HTTP hardening for the whole ASGI app: body size limits, security headers, no-store.

It knows nothing of Romergo (it imports only Starlette's types), so the composition root decides
the limits and paths; see `app.build_app`.
"""

from hardening.asgi import BodyLimit, HostGuard, NoStore, SecurityHeaders

__all__ = ["BodyLimit", "HostGuard", "NoStore", "SecurityHeaders"]
