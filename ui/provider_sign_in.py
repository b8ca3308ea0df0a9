"""`/login/oidc`: signing in with the team's OpenID Connect provider (authlib's Starlette client).

`/login/oidc` sends the browser to the provider with an authorization code request (PKCE S256, a
fresh state and nonce, kept in NiceGUI's signed session cookie, so only the browser that started
the flow can finish it); `/login/oidc/callback` exchanges the code, validates the ID token
(signature by the provider's JWKS, issuer, audience, expiry, nonce) and hands the identity to the
core (`romergo.access.accounts.identities`), which decides who it is here. The session it starts
is the same server-side session a password sign-in starts. Registered only when a provider is
configured, on NiceGUI's own app: its session middleware is where the flow's state lives.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import httpx2
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response

from romergo.access.accounts.identities import ProviderIdentity
from romergo.common import urls
from romergo.common.config import Settings
from romergo.common.errors import RomergoError
from romergo.services import Services
from ui.web_session import safe_next, session_token, set_session_cookie

if TYPE_CHECKING:
    from authlib.integrations.starlette_client import StarletteOAuth2App

# authlib and joserfc are imported where a provider is configured (`provider_client`, `add_routes`):
# ~0.1 s of imports that a server without one, and the sign-in page's import of this module's
# names, never need.

log = logging.getLogger(__name__)

START = "/login/oidc"
CALLBACK = "/login/oidc/callback"
REFUSAL = "romergo_sign_in_refusal"
"""Where the core's refusal waits for the sign-in page (the session, not the URL: a link cannot
make the page say anything)."""
_NEXT = "romergo_sign_in_next"
LEEWAY_SECONDS = 60
"""Clock skew forgiven between the provider and this server when checking `exp` and `iat`."""
PROVIDER_TIMEOUT = httpx2.Timeout(10.0)
"""Discovery, JWKS and the token exchange each: a stuck provider must not hold a sign-in forever."""


def provider_client(settings: Settings) -> StarletteOAuth2App:
    """The provider as an authlib client: metadata from its discovery document, PKCE S256."""
    from authlib.integrations.starlette_client import OAuth

    issuer = settings.oidc_issuer or ""
    client: StarletteOAuth2App = OAuth().register(
        name="provider",
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret,
        server_metadata_url=f"{issuer.rstrip('/')}/.well-known/openid-configuration",
        client_kwargs={
            "scope": "openid email profile",
            "code_challenge_method": "S256",
            "timeout": PROVIDER_TIMEOUT,
        },
    )
    return client


def claims_options(settings: Settings) -> dict[str, Any]:
    """The ID token must come from the configured issuer (not merely the one discovery named), for
    this client, and still be valid; authlib checks the nonce and the signature itself."""
    return {
        "iss": {"essential": True, "value": settings.oidc_issuer},
        "aud": {"essential": True, "value": settings.oidc_client_id},
        "exp": {"essential": True},
        "sub": {"essential": True},
    }


def identity_of(claims: dict[str, Any]) -> ProviderIdentity:
    groups = claims.get("groups")
    return ProviderIdentity(
        issuer=str(claims["iss"]),
        subject=str(claims["sub"]),
        email=_text(claims, "email"),
        # Only a real `true`: a provider that leaves it out has not verified the address.
        email_verified=claims.get("email_verified") is True,
        groups=tuple(str(group) for group in groups) if isinstance(groups, list) else (),
        preferred_username=_text(claims, "preferred_username"),
    )


def _text(claims: dict[str, Any], name: str) -> str | None:
    value = claims.get(name)
    return value if isinstance(value, str) else None


def add_routes(app: FastAPI, services: Services) -> None:
    if not services.identities.configured:
        return
    from authlib.integrations.starlette_client import OAuthError
    from joserfc.errors import JoseError

    settings = services.settings
    client = provider_client(settings)

    @app.get(START, include_in_schema=False)
    async def start(request: Request) -> Response:
        next_path = safe_next(request.query_params.get("next"))
        request.session.pop(_NEXT, None)
        if next_path:
            request.session[_NEXT] = next_path
        try:
            redirect: Response = await client.authorize_redirect(request, f"{settings.base_url}{CALLBACK}")
        except (httpx2.HTTPError, ValueError, KeyError, RuntimeError) as error:
            log.warning("The identity provider's discovery document could not be read: %s", error)
            return _refused(request, "The identity provider cannot be reached. Try again in a moment.")
        return redirect

    @app.get(CALLBACK, include_in_schema=False)
    async def callback(request: Request) -> Response:
        try:
            token = await client.authorize_access_token(
                request, claims_options=claims_options(settings), leeway=LEEWAY_SECONDS
            )
        except (OAuthError, JoseError, httpx2.HTTPError, ValueError, KeyError) as error:
            log.warning("Sign-in with the identity provider failed: %s", error)
            return _refused(request, "Signing in with the identity provider did not work. Please try again.")
        claims = token.get("userinfo")
        if not claims:
            return _refused(request, "The identity provider did not say who you are. Please try again.")
        try:
            signed_in = await services.identities.sign_in(identity_of(dict(claims)))
        except RomergoError as refusal:
            return _refused(request, refusal.message)
        await services.accounts.end_session(session_token(request))
        response = RedirectResponse(request.session.pop(_NEXT, None) or urls.PROJECTS, status_code=303)
        set_session_cookie(response, signed_in.session_token, services)
        return response


def _refused(request: Request, message: str) -> Response:
    request.session[REFUSAL] = message
    return RedirectResponse(f"{urls.LOGIN}?error=provider", status_code=303)
