"""The issuer as the request being handled names this server (see `romergo.access.agents.site`).

The SDK calls the provider's `authorize` without the request, so the authorization gate, which
sees the request's `Host`, leaves the issuer here for the duration of the call.
"""

from __future__ import annotations

from contextvars import ContextVar

asked_issuer: ContextVar[str | None] = ContextVar("asked_issuer", default=None)
