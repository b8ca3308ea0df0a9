"""Who issues agents' tokens and for what: this server's OAuth issuer and its MCP endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from romergo.config import Settings


@dataclass(frozen=True)
class OAuthSite:
    issuer: str
    """The OAuth issuer: exactly the configured base URL (never taken from request headers)."""
    resource: str
    """The audience of every OAuth access token: this server's MCP endpoint."""

    @classmethod
    def from_settings(cls, settings: Settings) -> OAuthSite:
        return cls(issuer=settings.base_url, resource=settings.mcp_url)

    def is_this_resource(self, resource: str) -> bool:
        return isinstance(resource, str) and resource.rstrip("/") == self.resource
