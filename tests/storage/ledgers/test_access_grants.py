"""The grant ledger: which grants still count as connections, revoking them, and their last uses.
Personal tokens make the clients and grants (one each per token)."""

from __future__ import annotations

from datetime import datetime, timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.grants import StoredGrants
from storage.access.personal import StoredPersonalTokens
from storage.tables import AgentGrant, AgentToken

READ = ["romergo:read"]


async def personal(services: Services, name: str, *, expires_at: datetime | None = None) -> str:
    """A personal token of `ada`'s named `name`; its grant is `grt_<name>`, its client `agt_<name>`."""
    now = utcnow()
    await StoredPersonalTokens(services.db).add(
        "ada",
        client_id=f"agt_{name}",
        grant_id=f"grt_{name}",
        token_hash=f"hash_{name}",
        name=name,
        scopes=READ,
        created_at=now,
        expires_at=expires_at or now + timedelta(days=1),
    )
    return f"grt_{name}"


async def test_usable_grants_are_the_live_ones_with_a_usable_token(services: Services) -> None:
    await services.accounts.create_user("ada")
    await services.accounts.create_user("bob")
    grants = StoredGrants(services.db)
    live = await personal(services, "live")
    await personal(services, "expired", expires_at=utcnow() - timedelta(seconds=1))
    revoked = await personal(services, "revoked")
    await grants.revoke([revoked], utcnow())
    ada = await services.accounts.user_by_name("ada")
    assert ada is not None
    usable = await grants.usable(ada.id, utcnow())
    assert [(grant.grant_id, grant.client_id, grant.client_name, grant.kind) for grant in usable] == [
        (live, "agt_live", "live", "personal")
    ]
    assert usable[0].scopes == tuple(READ) and usable[0].last_used_at is None
    bob = await services.accounts.user_by_name("bob")
    assert bob is not None and await grants.usable(bob.id, utcnow()) == []


async def test_a_grant_whose_only_refresh_token_was_used_is_no_connection(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    grant_id = await personal(services, "oauth")
    now = utcnow()
    async with services.db.write() as session:
        token = await session.get(AgentToken, "hash_oauth")
        assert token is not None
        token.kind, token.used_at = "refresh", now
        session.add(token)
    assert await StoredGrants(services.db).usable(ada.id, now) == []
    async with services.db.write() as session:
        grant = await session.get(AgentGrant, grant_id)
        assert grant is not None
    assert grant.revoked_at is None  # still live: it only has nothing left to use


async def test_revoking_counts_only_grants_still_live(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    grants = StoredGrants(services.db)
    first = await personal(services, "one")
    await personal(services, "two")
    assert await grants.revoke([first, "grt_unknown"], utcnow()) == 1
    assert await grants.revoke([first], utcnow()) == 0
    assert await grants.revoke([], utcnow()) == 0
    assert await grants.revoke_client(ada.id, "agt_two", utcnow()) == 1
    assert await grants.revoke_client(ada.id, "agt_two", utcnow()) == 0
    assert await grants.usable(ada.id, utcnow()) == []


async def test_last_uses_are_stamped_together(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    grants = StoredGrants(services.db)
    one, two = await personal(services, "one"), await personal(services, "two")
    used = utcnow().replace(microsecond=0)
    await grants.stamp_last_uses({one: used, two: used + timedelta(seconds=5), "grt_gone": used})
    await grants.stamp_last_uses({})
    stamped = {grant.grant_id: grant.last_used_at for grant in await grants.usable(ada.id, utcnow())}
    assert {key: value and value.replace(tzinfo=None) for key, value in stamped.items()} == {
        one: used.replace(tzinfo=None),
        two: (used + timedelta(seconds=5)).replace(tzinfo=None),
    }


async def test_live_clients_are_those_with_a_grant_not_revoked_expired_or_not(services: Services) -> None:
    await services.accounts.create_user("ada")
    await services.accounts.create_user("bob")
    grants = StoredGrants(services.db)
    await personal(services, "live")
    await personal(services, "expired", expires_at=utcnow() - timedelta(seconds=1))
    await grants.revoke([await personal(services, "revoked")], utcnow())
    ada = await services.accounts.user_by_name("ada")
    bob = await services.accounts.user_by_name("bob")
    assert ada is not None and bob is not None
    assert await grants.live_clients(ada.id) == ["agt_expired", "agt_live"]
    assert await grants.live_clients(bob.id) == []
