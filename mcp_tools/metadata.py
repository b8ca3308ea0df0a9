"""The two OAuth discovery documents: who issues tokens (RFC 8414) and for which resource (RFC 9728).

Built from configuration, never from request headers, except that a loopback spelling of this
server gets itself named back (`romergo.access.agents.site`): `localhost` and `127.0.0.1` are one server.
They announce S256 only, the `iss` response parameter (RFC 9207) and the scopes an agent can get.
"""

from __future__ import annotations

from mcp.server.auth.handlers.metadata import MetadataHandler, ProtectedResourceMetadataHandler
from mcp.server.auth.routes import build_metadata, build_resource_metadata_url, cors_middleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp

from mcp_tools.oauth_gates import GRANT_TYPES
from romergo.access.agents.scopes import OAUTH_SCOPES
from romergo.access.agents.site import OAuthSite


def authorization_document(site: OAuthSite, auth: AuthSettings) -> ASGIApp:
    async def document(request: Request) -> Response:
        issuer = site.issuer_for(request.headers.get("host"))
        return await MetadataHandler(authorization_metadata(issuer, auth)).handle(request)

    return cors_middleware(document, ["GET", "OPTIONS"])


def resource_document(site: OAuthSite) -> ASGIApp:
    async def document(request: Request) -> Response:
        host = request.headers.get("host")
        metadata = resource_metadata(site.issuer_for(host), site.resource_for(host))
        return await ProtectedResourceMetadataHandler(metadata).handle(request)

    return cors_middleware(document, ["GET", "OPTIONS"])


def resource_metadata_url(site: OAuthSite, host: str | None) -> str:
    """Where the resource document is, as a request with this `Host` names this server."""
    return str(build_resource_metadata_url(AnyHttpUrl(site.resource_for(host))))


def authorization_metadata(issuer: str, auth: AuthSettings) -> OAuthMetadata:
    metadata = build_metadata(
        issuer,  # type: ignore[arg-type]  # a plain string: AnyHttpUrl would add a slash to `iss`
        auth.service_documentation_url,
        auth.client_registration_options or ClientRegistrationOptions(),
        auth.revocation_options or RevocationOptions(),
    )
    return metadata.model_copy(
        update={
            "issuer": issuer,
            "scopes_supported": list(OAUTH_SCOPES),
            "response_types_supported": ["code"],
            "grant_types_supported": list(GRANT_TYPES),
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "revocation_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": True,
            "client_id_metadata_document_supported": True,
        }
    )


def resource_metadata(issuer: str, resource: str) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata(
        resource=resource,
        authorization_servers=[issuer],
        scopes_supported=list(OAUTH_SCOPES),
        resource_name="Romergo",
        bearer_methods_supported=["header"],
    )
