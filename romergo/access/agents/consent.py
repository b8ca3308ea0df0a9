"""`/authorize` checks, the pending request the consent page shows, and the user's answer.

Saying yes creates a grant and a single-use code under it; saying no (or letting the request
expire) creates nothing. Of two answers to one request only the first counts.
"""

from __future__ import annotations

import re
from datetime import timedelta

from romergo.access.agents import redirects
from romergo.access.agents.base import answered, new_token
from romergo.access.agents.clients import Clients
from romergo.access.agents.housekeeping import Housekeeping
from romergo.access.agents.records import PendingAuthorization, RegisteredClient, registered_client
from romergo.access.agents.scopes import CONTROL, OAUTH_SCOPES, READ, ordered
from romergo.access.agents.site import OAuthSite
from romergo.access.agents.token_ledger import AuthorizationRequest, ConsentLedger
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id, new_secret, plausible_secret, sha256_hex

CODE_MINUTES = 10
AUTHORIZATION_MINUTES = 10
MAX_STATE_CHARS = 1000
_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")


class Consent:
    def __init__(
        self, ledger: ConsentLedger, site: OAuthSite, clients: Clients, housekeeping: Housekeeping
    ) -> None:
        self.ledger = ledger
        self.site = site
        self.clients = clients
        self.housekeeping = housekeeping

    def check_authorization(
        self,
        client: RegisteredClient,
        *,
        redirect_uri: str | None,
        scope: str | None,
        code_challenge: str | None,
        code_challenge_method: str | None,
        resource: str | None,
        state: str | None,
    ) -> str:
        """Everything an `/authorize` request must satisfy before anyone is redirected anywhere.

        Returns the redirect URI to use; raises `invalid_argument` with the reason otherwise.
        """
        if redirect_uri is None:
            if len(client.redirect_uris) != 1:
                raise invalid("This agent registered several redirect URIs; the request must name one.")
            redirect_uri = client.redirect_uris[0]
        elif redirects.find_match(list(client.redirect_uris), redirect_uri) is None:
            raise invalid("The redirect URI is not one this agent registered.")
        if code_challenge_method != "S256":
            raise invalid("PKCE with code_challenge_method=S256 is required.")
        if not isinstance(code_challenge, str) or not _CHALLENGE.match(code_challenge):
            raise invalid("The PKCE code_challenge must be 43 base64url characters (S256).")
        requested_scopes(client, scope)
        if resource is not None and not self.site.is_this_resource(resource):
            raise invalid(f"Tokens can be issued only for {self.site.resource}, not for {resource}.")
        if state is not None and len(state) > MAX_STATE_CHARS:
            raise invalid(f"The state parameter has at most {MAX_STATE_CHARS} characters.")
        return redirect_uri

    async def start_authorization(
        self,
        client_id: str,
        *,
        redirect_uri: str,
        redirect_uri_explicit: bool,
        state: str | None,
        scope: str | None,
        code_challenge: str,
        resource: str | None,
        issuer: str | None = None,
    ) -> str:
        """Keep a checked request until the user answers it; returns its handle for the consent URL.

        `issuer` is the issuer as the client named this server (`site.issuer_for(Host)`), which the
        answer's `iss` repeats.
        """
        client = await self.clients.get(client_id)
        if client is None:
            raise RomergoError("not_found", "This agent is not registered with Romergo.")
        redirect_uri = self.check_authorization(
            client,
            redirect_uri=redirect_uri,
            scope=scope,
            code_challenge=code_challenge,
            code_challenge_method="S256",
            resource=resource,
            state=state,
        )
        request_id = new_secret(24)
        now = utcnow()
        asked = requested_scopes(client, scope)
        await self.ledger.add_request(
            AuthorizationRequest(
                request_hash=sha256_hex(request_id),
                client_id=client.client_id,
                redirect_uri=redirect_uri,
                redirect_uri_explicit=redirect_uri_explicit,
                state=state,
                requested_scopes=None if asked is None else tuple(asked),
                code_challenge=code_challenge,
                resource=self.site.resource,
                issuer=issuer or self.site.issuer,
                created_at=now,
                expires_at=now + timedelta(minutes=AUTHORIZATION_MINUTES),
            )
        )
        await self.housekeeping.purge_if_due()
        return request_id

    async def pending_authorization(self, request_id: str) -> PendingAuthorization | None:
        """The request behind a consent link, if it is still waiting for an answer."""
        if not plausible_secret(request_id):
            return None
        found = await self.ledger.waiting(sha256_hex(request_id), utcnow())
        if found is None:
            return None
        row, client = found
        return PendingAuthorization(
            request_id=request_id,
            client=registered_client(client),
            redirect_uri=row.redirect_uri,
            state=row.state,
            requested_scopes=row.requested_scopes,
            expires_at=row.expires_at,
            issuer=row.issuer or self.site.issuer,
        )

    async def approve(self, request_id: str, user_id: str, scopes: list[str]) -> str:
        """The user said yes to (some of) the offered scopes: a grant, a code, and where to send it.

        Returns the client's redirect URI with exactly one `code`, `state` and `iss`.
        """
        pending = await self.pending_authorization(request_id)
        if pending is None:
            raise answered()
        offered = set(pending.offered_scopes)
        extra = [scope for scope in scopes if scope not in offered]
        if extra:
            raise invalid(f"The scope {extra[0]} was not offered to this agent.")
        granted = ordered({*scopes, READ})
        code = new_token("code")
        now = utcnow()
        approved = await self.ledger.approve(
            sha256_hex(request_id),
            now,
            grant_id=new_id("grt"),
            user_id=user_id,
            scopes=granted,
            code_hash=sha256_hex(code),
            code_expires_at=now + timedelta(minutes=CODE_MINUTES),
        )
        if not approved:
            raise answered()
        response = {"code": code, "state": pending.state, "iss": pending.issuer}
        return redirects.with_response(pending.redirect_uri, response)

    async def deny(self, request_id: str) -> str:
        """The user said no: the client's redirect URI with `error=access_denied`, `state` and `iss`."""
        pending = await self.pending_authorization(request_id)
        if pending is None:
            raise answered()
        if not await self.ledger.deny(sha256_hex(request_id), utcnow()):
            raise answered()
        return redirects.with_response(
            pending.redirect_uri,
            {
                "error": "access_denied",
                "error_description": "The user denied access.",
                "state": pending.state,
                "iss": pending.issuer,
            },
        )


def requested_scopes(client: RegisteredClient, scope: str | None) -> list[str] | None:
    """The scopes an `/authorize` request names (None if it names none), each one allowed."""
    if scope is None:
        return None
    asked = scope.split(" ")
    if CONTROL in asked:
        raise invalid(f"{CONTROL} is never granted to agents; only personal tokens can carry it.")
    unknown = [item for item in asked if item not in OAUTH_SCOPES]
    if unknown:
        raise invalid(f"Unknown scope {unknown[0]!r}; Romergo offers {' '.join(OAUTH_SCOPES)}.")
    unregistered = [item for item in asked if item not in client.scopes]
    if unregistered:
        raise invalid(f"This agent did not register for the scope {unregistered[0]}.")
    return ordered(asked)
