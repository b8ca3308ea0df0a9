"""The token ledger: codes and refresh tokens redeemed once for a pair (nothing changes otherwise),
the bearer check's read, and what a revoked token is known by."""

from __future__ import annotations

import asyncio

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.grants import StoredGrants
from storage.access.tokens import StoredTokens
from tests.storage.ledgers.access_rows import CLIENT, SCOPES, approved_code, pair, user_with_agent


async def test_a_code_is_redeemed_once_for_a_pair_with_its_scopes(services: Services) -> None:
    ada = await user_with_agent(services)
    tokens = StoredTokens(services.db)
    code = await approved_code(services, ada, "one")
    held = await tokens.held_code(code, CLIENT)
    assert held is not None and held[0].used_at is None and held[1] is not None and held[1].user_id == ada
    assert await tokens.held_code(code, "agt_other") is None
    redeemed = await asyncio.gather(
        *(tokens.redeem_code(code, CLIENT, utcnow(), pair(f"p{n}")) for n in range(3))
    )
    assert sorted(r.outcome for r in redeemed) == ["issued", "refused", "refused"]
    [issued] = [r for r in redeemed if r.outcome == "issued"]
    assert issued.access_scopes == tuple(SCOPES)
    # Presented again, it is known as used, by the grant it was issued under.
    assert {r.replayed_grant_id for r in redeemed if r.outcome == "refused"} == {"grt_one"}
    again = await tokens.held_code(code, CLIENT)
    assert again is not None and again[0].used_at is not None


async def test_a_code_of_a_revoked_grant_issues_nothing_and_stays_unused(services: Services) -> None:
    ada = await user_with_agent(services)
    tokens = StoredTokens(services.db)
    code = await approved_code(services, ada, "one")
    await StoredGrants(services.db).revoke(["grt_one"], utcnow())
    assert (await tokens.redeem_code(code, CLIENT, utcnow(), pair("p"))).outcome == "grant_revoked"
    held = await tokens.held_code(code, CLIENT)
    assert held is not None and held[0].used_at is None
    assert await tokens.bearer("access_p") is None
    assert (await tokens.redeem_code("code_unknown", CLIENT, utcnow(), pair("q"))).replayed_grant_id is None


async def test_the_bearer_read_carries_token_grant_and_client(services: Services) -> None:
    ada = await user_with_agent(services)
    tokens = StoredTokens(services.db)
    await tokens.redeem_code(await approved_code(services, ada, "one"), CLIENT, utcnow(), pair("p"))
    bearer = await tokens.bearer("access_p")
    assert bearer is not None
    assert (bearer.user_id, bearer.client_id, bearer.client_name, bearer.grant_id) == (
        ada,
        CLIENT,
        "Agent",
        "grt_one",
    )
    assert (bearer.grant_kind, bearer.scopes, bearer.revoked_at) == ("oauth", tuple(SCOPES), None)
    assert bearer.resource == "https://romergo.example/mcp"
    assert await tokens.bearer("refresh_p") is None  # a refresh token is no bearer
    assert await tokens.grant_of("refresh_p") == "grt_one"
    assert await tokens.grant_of("unknown") is None
    assert await tokens.revoked_bearer("access_p") is None
    await StoredGrants(services.db).revoke(["grt_one"], utcnow())
    revoked = await tokens.bearer("access_p")
    assert revoked is not None and revoked.revoked_at is not None
    found = await tokens.revoked_bearer("access_p")
    assert found is not None and (found[0].id, found[0].user_id, found[1]) == ("grt_one", ada, "Agent")


async def test_a_refresh_token_rotates_once_and_narrows_only(services: Services) -> None:
    ada = await user_with_agent(services)
    tokens = StoredTokens(services.db)
    await tokens.redeem_code(await approved_code(services, ada, "one"), CLIENT, utcnow(), pair("p"))
    wider = await tokens.redeem_refresh("refresh_p", CLIENT, utcnow(), ["romergo:publish"], pair("q"))
    assert wider.outcome == "scopes_not_granted"
    held = await tokens.held_token("refresh_p", CLIENT)
    assert held is not None and held[0].used_at is None  # asking for too much used nothing
    narrower = await tokens.redeem_refresh(
        "refresh_p", CLIENT, utcnow(), ["romergo:edit", "romergo:read"], pair("q")
    )
    assert (narrower.outcome, narrower.access_scopes) == ("issued", ("romergo:read", "romergo:edit"))
    access = await tokens.bearer("access_q")
    assert access is not None and access.scopes == ("romergo:read", "romergo:edit")
    refreshed = await tokens.held_token("refresh_q", CLIENT)
    assert refreshed is not None and refreshed[0].scopes == tuple(SCOPES)  # the family keeps its scopes
    replay = await tokens.redeem_refresh("refresh_p", CLIENT, utcnow(), [], pair("r"))
    assert (replay.outcome, replay.replayed_grant_id) == ("refused", "grt_one")
    whole = await tokens.redeem_refresh("refresh_q", CLIENT, utcnow(), [], pair("s"))
    assert whole.access_scopes == tuple(SCOPES)
    assert (
        await tokens.redeem_refresh("refresh_s", "agt_other", utcnow(), [], pair("t"))
    ).outcome == "refused"
