"""The activity ledger: each agent's last refused call, and its newest accepted call, which an
older one written later never replaces."""

from __future__ import annotations

from datetime import datetime, timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.activity import StoredActivity
from storage.access.records import AgentCalls


def plain(moment: datetime | None) -> datetime | None:
    """SQLite hands back naive moments, PostgreSQL aware ones: compare them as UTC wall time."""
    return moment if moment is None else moment.replace(tzinfo=None)


def calls_of(found: list[AgentCalls], client_id: str) -> AgentCalls:
    [calls] = [calls for calls in found if calls.client_id == client_id]
    return calls


async def test_accepted_calls_are_kept_newest_first(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    activity = StoredActivity(services.db)
    now = utcnow().replace(microsecond=0)
    await activity.store_accepted(
        {(ada.id, "agt_a"): ("romergo_get_scene", now), (ada.id, "agt_b"): ("x", now)}
    )
    # Another instance writes an older call of agt_a later: the newer one stays.
    await activity.store_accepted({(ada.id, "agt_a"): ("romergo_list", now - timedelta(seconds=30))})
    await activity.store_accepted({(ada.id, "agt_b"): ("romergo_edit", now + timedelta(seconds=1))})
    await activity.store_accepted({})
    found = await activity.of_user(ada.id)
    assert {calls.client_id for calls in found} == {"agt_a", "agt_b"}
    a, b = calls_of(found, "agt_a"), calls_of(found, "agt_b")
    assert (a.last_accepted_tool, plain(a.last_accepted_at)) == ("romergo_get_scene", plain(now))
    assert (b.last_accepted_tool, plain(b.last_accepted_at)) == (
        "romergo_edit",
        plain(now + timedelta(seconds=1)),
    )
    assert a.last_refused_tool is None


async def test_a_refusal_replaces_the_last_one_and_keeps_the_accepted_call(services: Services) -> None:
    ada = await services.accounts.create_user("ada")
    bob = await services.accounts.create_user("bob")
    activity = StoredActivity(services.db)
    now = utcnow().replace(microsecond=0)
    await activity.record_refusal(ada.id, "agt_a", "romergo_publish", now, "permission_denied")
    await activity.store_accepted({(ada.id, "agt_a"): ("romergo_get_scene", now)})
    await activity.record_refusal(ada.id, "agt_a", "romergo_delete", now, "out_of_scope")
    [calls] = await activity.of_user(ada.id)
    assert (calls.last_refused_tool, calls.last_refused_code) == ("romergo_delete", "out_of_scope")
    assert calls.last_accepted_tool == "romergo_get_scene"
    assert await activity.of_user(bob.id) == []
