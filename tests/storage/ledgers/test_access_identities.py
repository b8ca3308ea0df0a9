"""Identities at the team's provider: linked once, found with their user, added with a new user
in one go, and nothing added when the name or the identity is taken."""

from __future__ import annotations

import asyncio

from romergo.access.accounts.ledger import IdentityLink, User
from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.identities import Identities

ISSUER = "https://id.team.example"


def a_user(name: str) -> User:
    return User(id=f"usr_{name}", username=name, password_hash=None, created_at=utcnow())


async def test_an_identity_is_linked_once_and_found_with_its_user(services: Services) -> None:
    identities = Identities(services.db)
    writer = await services.accounts.create_user("writer")
    assert await identities.linked_user(ISSUER, "sub-1") is None
    assert await identities.link(IdentityLink(ISSUER, "sub-1", writer.id, utcnow()))
    assert not await identities.link(IdentityLink(ISSUER, "sub-1", writer.id, utcnow()))
    found = await identities.linked_user(ISSUER, "sub-1")
    assert found is not None and found.username == "writer"
    # The same subject at another issuer is another person.
    assert await identities.linked_user("https://id.elsewhere.example", "sub-1") is None


async def test_linking_to_a_missing_user_changes_nothing(services: Services) -> None:
    identities = Identities(services.db)
    assert not await identities.link(IdentityLink(ISSUER, "sub-1", "usr_missing", utcnow()))
    assert await identities.linked_user(ISSUER, "sub-1") is None


async def test_a_user_is_added_with_its_identity_unless_either_is_taken(services: Services) -> None:
    identities = Identities(services.db)
    ada = a_user("ada")
    assert await identities.add_user_linked(ada, IdentityLink(ISSUER, "sub-ada", ada.id, ada.created_at))
    found = await identities.linked_user(ISSUER, "sub-ada")
    assert found is not None and found.id == ada.id
    count = await services.accounts.user_count()
    other = a_user("other")
    assert not await identities.add_user_linked(other, IdentityLink(ISSUER, "sub-ada", other.id, utcnow()))
    same_name = User(id="usr_second", username="ada", password_hash=None, created_at=utcnow())
    assert not await identities.add_user_linked(
        same_name, IdentityLink(ISSUER, "sub-2", same_name.id, utcnow())
    )
    assert await services.accounts.user_count() == count
    assert await identities.linked_user(ISSUER, "sub-2") is None


async def test_two_first_sign_ins_at_once_add_one_user_and_the_other_is_told_no(services: Services) -> None:
    identities = Identities(services.db)
    first, second = (
        a_user("ada"),
        User(id="usr_ada2", username="ada-2", password_hash=None, created_at=utcnow()),
    )
    count = await services.accounts.user_count()

    added = await asyncio.gather(
        identities.add_user_linked(first, IdentityLink(ISSUER, "sub-ada", first.id, utcnow())),
        identities.add_user_linked(second, IdentityLink(ISSUER, "sub-ada", second.id, utcnow())),
    )

    assert sorted(added) == [False, True]
    assert await services.accounts.user_count() == count + 1
    found = await identities.linked_user(ISSUER, "sub-ada")
    assert found is not None and found.id == (first.id if added[0] else second.id)
