"""The SDK's authorization-server provider, adapted onto `romergo.access.agents`.

The SDK's routes call these methods; every decision (what a client may register, what a code or a
refresh token is worth, whether a bearer token is alive) is made by the core.
"""

from __future__ import annotations

from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    RegistrationError,
    TokenError,
)
from mcp.shared.auth import InvalidRedirectUriError, OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl, ConfigDict

from mcp_tools.asked_issuer import asked_issuer
from romergo.access.agents import AgentIdentity, AgentService, CodeInfo, IssuedTokens, RefreshInfo, redirects
from romergo.common import urls
from romergo.common.errors import RomergoError


class VerifiedAccess(AccessToken):
    """An access token as the bearer gate verified it at the start of this request, with the agent
    the core knows behind it: the tool seam reads the agent from here instead of selecting the token
    a second time in the same request. Verified per request, so revocation still refuses
    the very next call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    identity: AgentIdentity


class RegisteredAgent(OAuthClientInformationFull):
    """A registered client whose redirect URIs match as Romergo's policy says: exactly, except
    that a loopback URI may use any port (RFC 8252 §7.3)."""

    def validate_redirect_uri(self, redirect_uri: AnyUrl | None) -> AnyUrl:
        if redirect_uri is None:
            return super().validate_redirect_uri(None)
        registered = [str(uri) for uri in self.redirect_uris or []]
        if redirects.find_match(registered, str(redirect_uri)) is None:
            raise InvalidRedirectUriError("The redirect URI is not one this agent registered.")
        return redirect_uri


class RomergoOAuthProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    def __init__(self, agents: AgentService) -> None:
        self.agents = agents

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        client = await self.agents.clients.get(client_id)
        if client is None:
            return None
        # Every client is public: PKCE protects its codes and no client secret exists anywhere.
        record: dict[str, Any] = {
            **client.registration,
            "client_id": client.client_id,
            "client_name": client.name,
            "redirect_uris": list(client.redirect_uris),
            "scope": " ".join(client.scopes),
            "token_endpoint_auth_method": "none",
            "client_secret": None,
            "client_secret_expires_at": None,
        }
        return RegisteredAgent.model_validate(record)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        uris = [str(uri) for uri in client_info.redirect_uris or []]
        try:
            redirects.check_redirect_uris(uris)
        except RomergoError as error:
            raise RegistrationError("invalid_redirect_uri", error.message) from None
        registration = client_info.model_dump(
            mode="json", exclude_none=True, exclude={"client_secret", "client_secret_expires_at"}
        )
        try:
            await self.agents.clients.register(
                client_id=client_info.client_id,
                name=client_info.client_name,
                redirect_uris=uris,
                scopes=client_info.scope.split() if client_info.scope else [],
                registration=registration,
            )
        except RomergoError as error:
            raise RegistrationError("invalid_client_metadata", error.message) from None

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        """Keep the (already checked) request and send the browser to the consent page.

        The consent page is on the configured address even when the client named this server
        another loopback way: that is where the author is signed in (the printed link's address).
        """
        issuer = asked_issuer.get() or self.agents.site.issuer
        try:
            request_id = await self.agents.consent.start_authorization(
                client.client_id,
                redirect_uri=str(params.redirect_uri),
                redirect_uri_explicit=params.redirect_uri_provided_explicitly,
                state=params.state,
                scope=" ".join(params.scopes) if params.scopes is not None else None,
                code_challenge=params.code_challenge,
                resource=params.resource,
                issuer=issuer,
            )
        except RomergoError as error:
            raise AuthorizeError("invalid_request", error.message) from None
        consent = urls.consent(request_id)
        return consent if issuer == self.agents.site.issuer else self.agents.site.issuer + consent

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        info = await self.agents.tokens.load_code(client.client_id, authorization_code)
        return _authorization_code(authorization_code, info) if info is not None else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        try:
            issued = await self.agents.tokens.exchange_code(client.client_id, authorization_code.code)
        except RomergoError as error:
            raise TokenError("invalid_grant", error.message) from None
        return _token(issued)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        info = await self.agents.tokens.load_refresh(client.client_id, refresh_token)
        return _refresh_token(refresh_token, info) if info is not None else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        try:
            issued = await self.agents.tokens.rotate_refresh(client.client_id, refresh_token.token, scopes)
        except RomergoError as error:
            if error.code == "invalid_argument":
                raise TokenError("invalid_scope", error.message) from None
            raise TokenError("invalid_grant", error.message) from None
        return _token(issued)

    async def load_access_token(self, token: str) -> AccessToken | None:
        verified = await self.agents.tokens.verify(token)
        if verified is None:
            return None
        identity = verified.identity
        return VerifiedAccess(
            identity=identity,
            token=token,
            client_id=identity.client_id,
            scopes=sorted(identity.scopes),
            expires_at=int(verified.expires_at.timestamp()) if verified.expires_at else None,
            # Personal tokens are minted by this server for itself: their audience is this endpoint.
            resource=verified.resource or self.agents.site.resource,
            subject=identity.user_id,
        )

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        await self.agents.tokens.revoke(token.token)


def _authorization_code(code: str, info: CodeInfo) -> AuthorizationCode:
    return AuthorizationCode(
        code=code,
        scopes=list(info.scopes),
        expires_at=info.expires_at.timestamp(),
        client_id=info.client_id,
        code_challenge=info.code_challenge,
        redirect_uri=AnyUrl(info.redirect_uri),
        redirect_uri_provided_explicitly=info.redirect_uri_explicit,
        resource=info.resource,
        subject=info.user_id,
    )


def _refresh_token(token: str, info: RefreshInfo) -> RefreshToken:
    return RefreshToken(
        token=token,
        client_id=info.client_id,
        scopes=list(info.scopes),
        expires_at=int(info.expires_at.timestamp()) if info.expires_at else None,
        resource=info.resource,
        subject=info.user_id,
    )


def _token(issued: IssuedTokens) -> OAuthToken:
    return OAuthToken(
        access_token=issued.access_token,
        expires_in=issued.expires_in,
        scope=" ".join(issued.scopes),
        refresh_token=issued.refresh_token,
    )
