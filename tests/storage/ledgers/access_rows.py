"""What the access ledgers' tests start from: a user with a registered agent, and a consent request
for it, made through the ledgers themselves."""

from __future__ import annotations

from datetime import datetime, timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.clients import StoredClients
from storage.access.consent import StoredConsent
from storage.access.records import AgentClientRecord, AuthorizationRequest, TokenPair

CLIENT = "agt_agent"
SCOPES = ["romergo:read", "romergo:edit", "romergo:media"]


async def user_with_agent(services: Services) -> str:
    """`ada`'s id; her agent `CLIENT` is registered."""
    ada = await services.accounts.create_user("ada")
    assert await StoredClients(services.db).register(
        AgentClientRecord(
            id=CLIENT,
            name="Agent",
            redirect_uris=("http://127.0.0.1:9/cb",),
            scopes=tuple(SCOPES),
            registration={"client_name": "Agent"},
            created_at=utcnow(),
        )
    )
    return ada.id


def request(name: str, *, expires_at: datetime | None = None) -> AuthorizationRequest:
    now = utcnow()
    return AuthorizationRequest(
        request_hash=f"req_{name}",
        client_id=CLIENT,
        redirect_uri="http://127.0.0.1:9/cb",
        redirect_uri_explicit=True,
        state="xyz",
        requested_scopes=("romergo:read", "romergo:edit"),
        code_challenge="c" * 43,
        resource="https://romergo.example/mcp",
        issuer=None,
        created_at=now,
        expires_at=expires_at or now + timedelta(minutes=10),
    )


async def approved_code(services: Services, user_id: str, name: str, scopes: list[str] = SCOPES) -> str:
    """The hash of a code issued under grant `grt_<name>` for a request answered yes."""
    consent = StoredConsent(services.db)
    await consent.add_request(request(name))
    assert await consent.approve(
        f"req_{name}",
        utcnow(),
        grant_id=f"grt_{name}",
        user_id=user_id,
        scopes=scopes,
        code_hash=f"code_{name}",
        code_expires_at=utcnow() + timedelta(minutes=10),
    )
    return f"code_{name}"


def pair(name: str) -> TokenPair:
    now = utcnow()
    return TokenPair(
        access_hash=f"access_{name}",
        access_expires_at=now + timedelta(hours=1),
        refresh_hash=f"refresh_{name}",
        refresh_expires_at=now + timedelta(days=30),
        created_at=now,
    )
