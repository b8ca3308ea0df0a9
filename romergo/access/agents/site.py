"""Who issues agents' tokens and for what: this server's OAuth issuer and its MCP endpoint.

One server on this machine has several names: an agent may be configured with
`http://localhost:8080/mcp` (the usual spelling in agents' docs) or `http://127.0.0.1:8080/mcp`,
and OAuth clients refuse metadata that names another host than the one they asked. So when no
public URL is set and the server listens on loopback, the issuer and the resource follow whichever
loopback name the request used (`localhost`, `127.0.0.1`, `[::1]`, on this server's port), and a
token issued under one name works under the others: tokens always record the configured
(canonical) resource. Any other `Host` never reaches here (the host guard answers 421), and with a
public URL that URL is the only name, as ever.
"""

from __future__ import annotations

from dataclasses import dataclass

from romergo.access.origins import LOOPBACK_HOSTS
from romergo.common.config import MCP_PATH, Settings


@dataclass(frozen=True)
class OAuthSite:
    issuer: str
    """The configured OAuth issuer: the public URL, else the bound address."""
    resource: str
    """The audience every OAuth access token records: this server's MCP endpoint."""
    loopback_port: int | None = None
    """Set when no public URL is configured and the server listens on loopback: other loopback
    names on this port are this server too."""

    @classmethod
    def from_settings(cls, settings: Settings) -> OAuthSite:
        on_loopback = settings.public_url is None and settings.host in ("127.0.0.1", "localhost", "::1")
        return cls(
            issuer=settings.base_url,
            resource=settings.mcp_url,
            loopback_port=settings.port if on_loopback else None,
        )

    def issuer_for(self, host: str | None) -> str:
        """The issuer as a request with this `Host` header names this server."""
        if host is not None and host.lower() in self._loopback_hosts():
            return f"http://{host.lower()}"
        return self.issuer

    def resource_for(self, host: str | None) -> str:
        return self.issuer_for(host) + MCP_PATH

    def is_this_resource(self, resource: str) -> bool:
        if not isinstance(resource, str):
            return False
        names = {self.resource} | {f"http://{host}{MCP_PATH}" for host in self._loopback_hosts()}
        return resource.rstrip("/") in names

    def _loopback_hosts(self) -> set[str]:
        if self.loopback_port is None:
            return set()
        return {f"{name}:{self.loopback_port}" for name in LOOPBACK_HOSTS}
