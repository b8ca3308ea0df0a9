"""The consent ledger: a request waits until answered or expired, and of two answers only the first
counts; yes keeps a grant and a code bound to the request, no keeps nothing."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.consent import StoredConsent
from storage.tables import AgentCode, AgentGrant
from tests.storage.ledgers.access_rows import CLIENT, request, user_with_agent


async def test_a_request_waits_with_its_client_until_it_expires(services: Services) -> None:
    await user_with_agent(services)
    consent = StoredConsent(services.db)
    kept = request("one")
    await consent.add_request(kept)
    found = await consent.waiting("req_one", utcnow())
    assert found is not None
    waiting, client = found
    assert waiting.requested_scopes == ("romergo:read", "romergo:edit") and waiting.state == "xyz"
    assert (client.id, client.name, client.redirect_uris) == (CLIENT, "Agent", ("http://127.0.0.1:9/cb",))
    assert await consent.waiting("req_one", kept.expires_at) is None
    assert await consent.waiting("req_unknown", utcnow()) is None


async def test_yes_keeps_a_grant_and_a_code_bound_to_the_request(services: Services) -> None:
    ada = await user_with_agent(services)
    consent = StoredConsent(services.db)
    await consent.add_request(request("one"))
    now = utcnow()
    approved = await consent.approve(
        "req_one",
        now,
        grant_id="grt_one",
        user_id=ada,
        scopes=["romergo:read"],
        code_hash="code_one",
        code_expires_at=now + timedelta(minutes=10),
    )
    assert approved
    assert await consent.waiting("req_one", utcnow()) is None  # answered
    async with services.db.read() as session:
        grant = await session.get(AgentGrant, "grt_one")
        code = await session.get(AgentCode, "code_one")
    assert grant is not None and (grant.user_id, grant.client_id, grant.kind) == (ada, CLIENT, "oauth")
    assert code is not None and code.grant_id == "grt_one" and code.scopes == ["romergo:read"]
    assert (code.redirect_uri, code.code_challenge, code.resource) == (
        "http://127.0.0.1:9/cb",
        "c" * 43,
        "https://romergo.example/mcp",
    )


async def test_of_answers_at_once_only_one_counts(services: Services) -> None:
    ada = await user_with_agent(services)
    consent = StoredConsent(services.db)
    await consent.add_request(request("one"))
    now = utcnow()
    answers = await asyncio.gather(
        consent.deny("req_one", now),
        *(
            consent.approve(
                "req_one",
                now,
                grant_id=f"grt_{n}",
                user_id=ada,
                scopes=["romergo:read"],
                code_hash=f"code_{n}",
                code_expires_at=now + timedelta(minutes=10),
            )
            for n in range(3)
        ),
    )
    assert answers.count(True) == 1
    assert not await consent.deny("req_one", now)


async def test_an_expired_request_cannot_be_answered(services: Services) -> None:
    ada = await user_with_agent(services)
    consent = StoredConsent(services.db)
    late = request("late", expires_at=utcnow() - timedelta(seconds=1))
    await consent.add_request(late)
    assert not await consent.deny("req_late", utcnow())
    assert not await consent.approve(
        "req_late",
        utcnow(),
        grant_id="grt_late",
        user_id=ada,
        scopes=["romergo:read"],
        code_hash="code_late",
        code_expires_at=utcnow(),
    )
    async with services.db.read() as session:
        assert await session.get(AgentGrant, "grt_late") is None
