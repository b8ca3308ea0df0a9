"""The team's accounts as administrators manage them: who may, the last administrator, and what
deactivating an account ends (sign-in of every kind, sessions, agents and their rooms)."""

from __future__ import annotations

import pytest

from romergo.access.accounts.people import COMMAND_LINE
from romergo.channels import AgentRef
from romergo.common.actors import user_actor
from romergo.common.errors import RomergoError
from tests.support.channels import open_room

DATABASES = ("sqlite",)
"""The database side is the accounts ledger's contract, run on both (tests/storage/ledgers)."""

PASSWORD = "correct horse battery"


async def refused(code: str, work) -> str:
    with pytest.raises(RomergoError) as error:
        await work
    assert error.value.code == code, error.value.message
    return error.value.message


async def test_the_first_account_administers_and_the_next_do_not(services):
    first, _ = await services.accounts.ensure_first_user()
    ada = await services.people.add(first.id, "Ada", PASSWORD)

    assert first.administrator and not ada.administrator
    assert [(user.username, user.administrator) for user in await services.people.listed(first.id)] == [
        ("author", True),
        ("ada", False),
    ]
    assert await services.people.is_administrator(first.id)
    assert not await services.people.is_administrator(ada.id)


async def test_an_account_added_first_from_the_command_line_administers(services):
    ada = await services.accounts.create_user("ada", PASSWORD)
    bob = await services.accounts.create_user("bob", PASSWORD)
    assert (ada.administrator, bob.administrator) == (True, False)


async def test_someone_who_is_not_an_administrator_can_do_none_of_it(services):
    first, _ = await services.accounts.ensure_first_user()
    bob = await services.people.add(first.id, "bob", PASSWORD)
    before = await services.people.listed(first.id)

    for work in (
        services.people.listed(bob.id),
        services.people.add(bob.id, "eve", PASSWORD),
        services.people.signin_link(bob.id, "author"),
        services.people.set_administrator(bob.id, "bob", True),
        services.people.reactivate(bob.id, "bob"),
        services.deactivate_account(bob.id, "author"),
        services.people.listed("usr_nobody"),
    ):
        message = await refused("permission_denied", work)
        assert message == "Only an administrator can manage accounts."
    assert await services.people.listed(first.id) == before


async def test_administrators_are_made_and_unmade_but_never_the_last_one(services):
    first, _ = await services.accounts.ensure_first_user()
    await services.people.add(first.id, "ada")

    assert (await services.people.set_administrator(first.id, "ada", True)).administrator
    assert not (await services.people.set_administrator(first.id, "author", False)).administrator
    message = await refused("conflict", services.people.set_administrator(COMMAND_LINE, "ada", False))
    assert "last active administrator" in message
    assert await services.people.is_administrator((await services.accounts.user_by_name("ada")).id)
    await refused("not_found", services.people.set_administrator(COMMAND_LINE, "ghost", True))


async def test_nobody_deactivates_themselves_or_the_last_active_administrator(services):
    first, _ = await services.accounts.ensure_first_user()
    await services.people.add(first.id, "ada")

    assert "your own account" in await refused("conflict", services.deactivate_account(first.id, "author"))
    message = await refused("conflict", services.deactivate_account(COMMAND_LINE, "author"))
    assert "last active administrator" in message
    await refused("not_found", services.deactivate_account(first.id, "ghost"))
    await refused("conflict", services.people.add(first.id, "ADA"))
    assert [user.deactivated_at for user in await services.people.listed(first.id)] == [None, None]


async def test_a_deactivated_account_cannot_sign_in_and_loses_its_sessions_and_agents(services):
    first, _ = await services.accounts.ensure_first_user()
    ada = await services.people.add(first.id, "ada", PASSWORD)
    session = (await services.accounts.sign_in_with_password("ada", PASSWORD)).session_token
    link = await services.people.signin_link(first.id, "ada")
    token, client_id = await services.agents.personal.create("ada")
    room = await open_room(services, user_actor(ada.id, "ada"))
    agent = AgentRef(user_id=ada.id, client_id=client_id, client_name="Personal access token")
    await services.channels.agent.join(agent, room.code)

    gone = await services.deactivate_account(first.id, "ada")

    assert gone.deactivated_at is not None
    assert await services.accounts.session_user(session) is None
    assert await services.agents.tokens.identity(token) is None
    assert (await room.kinds())[-1] == "agent_left"
    for attempt in (
        services.accounts.sign_in_with_password("ada", PASSWORD),
        services.accounts.sign_in_with_link(link),
        services.accounts.start_session(ada.id),
    ):
        await refused("unauthorized", attempt)
    assert "deactivated" in await refused("conflict", services.people.signin_link(first.id, "ada"))
    await refused("not_found", services.agents.personal.create("ada"))

    await services.people.reactivate(first.id, "ada")
    assert (await services.accounts.sign_in_with_password("ada", PASSWORD)).user.id == ada.id
    assert await services.agents.tokens.identity(token) is None  # what was revoked stays so


async def test_a_deactivated_administrator_leaves_the_others_to_administer(services):
    first, _ = await services.accounts.ensure_first_user()
    await services.people.add(first.id, "ada")
    await services.people.set_administrator(first.id, "ada", True)

    await services.deactivate_account(COMMAND_LINE, "ada")

    assert not await services.people.is_administrator((await services.accounts.user_by_name("ada")).id)
    message = await refused("conflict", services.people.set_administrator(COMMAND_LINE, "author", False))
    assert "last active administrator" in message
