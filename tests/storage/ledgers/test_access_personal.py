"""Personal tokens kept with their client and grant at once, and the forgetting of what expired."""

from __future__ import annotations

from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.accounts import Accounts
from storage.access.expiry import AccessExpiry
from storage.access.grants import StoredGrants
from storage.access.personal import StoredPersonalTokens
from storage.tables import AgentClient, AgentGrant, AgentToken


async def add(services: Services, username: str, name: str, days: float = 1) -> bool:
    now = utcnow()
    return await StoredPersonalTokens(services.db).add(
        username,
        client_id=f"agt_{name}",
        grant_id=f"grt_{name}",
        token_hash=f"hash_{name}",
        name=name,
        scopes=["romergo:read", "romergo:control"],
        created_at=now,
        expires_at=now + timedelta(days=days),
    )


async def test_a_token_comes_with_its_own_client_and_grant(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    assert await add(services, "ada", "script")
    async with services.db.read() as session:
        client = await session.get(AgentClient, "agt_script")
        grant = await session.get(AgentGrant, "grt_script")
        token = await session.get(AgentToken, "hash_script")
    assert client is not None and (client.kind, client.user_id, client.name) == ("personal", ada.id, "script")
    assert grant is not None and (grant.kind, grant.user_id, grant.client_id) == (
        "personal",
        ada.id,
        "agt_script",
    )
    assert token is not None and (token.kind, token.grant_id) == ("personal", "grt_script")
    assert token.scopes == grant.scopes == ["romergo:read", "romergo:control"]


async def test_nothing_is_kept_for_an_unknown_user(services: Services) -> None:
    assert not await add(services, "nobody", "script")
    async with services.db.read() as session:
        assert await session.get(AgentClient, "agt_script") is None


async def test_nothing_is_kept_for_a_deactivated_user(services: Services) -> None:
    await services.accounts.create_user("ada")
    bob = await services.accounts.create_user("bob")
    await Accounts(services.db).deactivate(bob.id, utcnow())
    assert not await add(services, "bob", "script")
    async with services.db.read() as session:
        assert await session.get(AgentClient, "agt_script") is None


async def test_expired_tokens_are_forgotten_and_their_grants_stay(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    await add(services, "ada", "old", days=-1)
    await add(services, "ada", "new", days=1)
    await AccessExpiry(services.db).forget_expired(utcnow())
    async with services.db.read() as session:
        assert await session.get(AgentToken, "hash_old") is None
        assert await session.get(AgentToken, "hash_new") is not None
        assert await session.get(AgentGrant, "grt_old") is not None
    assert [grant.grant_id for grant in await StoredGrants(services.db).usable(ada.id, utcnow())] == [
        "grt_new"
    ]
