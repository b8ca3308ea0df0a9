"""The accounts ledger: users by name and id, the first user added once (as administrator),
sign-in links used once, browser sessions kept, touched and ended, a new password ending them all,
and never fewer than one active administrator."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.accounts import Accounts
from storage.access.records import BrowserSession, User
from storage.database import Database


def user(name: str, user_id: str | None = None, *, minutes: int = 0) -> User:
    created = utcnow() + timedelta(minutes=minutes)
    return User(id=user_id or f"usr_{name}", username=name, password_hash=None, created_at=created)


def browser(token_hash: str, user_id: str) -> BrowserSession:
    now = utcnow()
    return BrowserSession(token_hash, user_id, now, now, now + timedelta(days=1))


async def test_users_are_found_by_name_and_id_and_names_are_unique(services: Services) -> None:
    accounts = Accounts(services.db)
    assert await accounts.add_user(user("ada"))
    assert not await accounts.add_user(user("ada", "usr_other"))
    assert await accounts.user_count() == 1
    assert await accounts.user_named("ada") == await accounts.user("usr_ada")
    assert (await accounts.user("usr_ada")).username == "ada"
    assert await accounts.user_named("nobody") is None
    assert await accounts.user("usr_other") is None


async def test_the_first_user_is_added_once_even_when_instances_start_together(services: Services) -> None:
    engines = [Database(services.db.url) for _ in range(3)]
    try:
        results = await asyncio.gather(
            *(Accounts(db).first_user_or_add(user("author", f"usr_{n}")) for n, db in enumerate(engines))
        )
    finally:
        for db in engines:
            await db.dispose()
    assert [added for _, added in results].count(True) == 1
    assert len({found.id for found, _ in results}) == 1
    assert await Accounts(services.db).user_count() == 1


async def test_a_signin_link_is_used_once_and_never_after_it_expires(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    now = utcnow()
    await accounts.add_signin_link("fresh", "usr_ada", now, now + timedelta(minutes=15))
    await accounts.add_signin_link("old", "usr_ada", now, now + timedelta(minutes=1))
    uses = await asyncio.gather(*(accounts.use_signin_link("fresh", now) for _ in range(3)))
    assert sorted(uses, key=str) == [None, None, "usr_ada"]
    assert await accounts.use_signin_link("old", now + timedelta(minutes=1)) is None
    assert await accounts.use_signin_link("unknown", now) is None


async def test_a_session_is_kept_touched_and_ended(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    started = browser("hash", "usr_ada")
    await accounts.start_session(started)
    found = await accounts.session_and_user("hash")
    assert found is not None
    kept, owner = found
    assert kept == started and owner is not None
    assert owner.last_sign_in_at == started.created_at
    later = started.last_seen_at + timedelta(minutes=5)
    await accounts.touch_session("hash", later)
    touched = await accounts.session_and_user("hash")
    assert touched is not None and touched[0].last_seen_at == later
    await accounts.end_session("hash")
    assert await accounts.session_and_user("hash") is None
    await accounts.end_session("hash")  # ending it twice is harmless


async def test_a_new_password_ends_every_session_of_its_user_only(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    await accounts.add_user(user("bob"))
    await accounts.start_session(browser("ada-1", "usr_ada"))
    await accounts.start_session(browser("ada-2", "usr_ada"))
    await accounts.start_session(browser("bob-1", "usr_bob"))
    assert await accounts.set_password("ada", "$argon2id$new")
    assert (await accounts.user_named("ada")).password_hash == "$argon2id$new"
    assert await accounts.session_and_user("ada-1") is None
    assert await accounts.session_and_user("ada-2") is None
    assert await accounts.session_and_user("bob-1") is not None
    assert not await accounts.set_password("nobody", "$argon2id$x")


async def test_the_first_account_added_is_kept_as_administrator_and_no_other(services: Services) -> None:
    accounts = Accounts(services.db)
    ada = await accounts.add_user(user("ada"))
    bob = await accounts.add_user(user("bob", minutes=1))
    assert ada is not None and ada.administrator and bob is not None and not bob.administrator
    assert [(kept.username, kept.administrator) for kept in await accounts.accounts()] == [
        ("ada", True),
        ("bob", False),
    ]
    first, added = await Accounts(services.db).first_user_or_add(user("author"))
    assert (first.username, first.administrator, added) == ("ada", True, False)


async def test_the_first_start_adds_its_account_as_administrator(services: Services) -> None:
    first, added = await Accounts(services.db).first_user_or_add(user("author"))
    assert added and first.administrator
    assert (await Accounts(services.db).user_named("author")) == first


async def test_the_last_active_administrator_keeps_the_role_and_stays_active(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    await accounts.add_user(user("bob", minutes=1))
    assert not await accounts.set_administrator("usr_ada", False)
    assert not await accounts.deactivate("usr_ada", utcnow())
    assert await accounts.set_administrator("usr_bob", True)
    assert await accounts.deactivate("usr_bob", utcnow())
    assert not await accounts.set_administrator("usr_ada", False)  # bob is no active one
    await accounts.reactivate("usr_bob")
    assert await accounts.set_administrator("usr_ada", False)
    standing = [
        (kept.username, kept.administrator, kept.deactivated_at) for kept in await accounts.accounts()
    ]
    assert standing == [("ada", False, None), ("bob", True, None)]
    assert not await accounts.set_administrator("usr_nobody", True)


async def test_two_administrators_stepping_down_at_once_leave_one(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    await accounts.add_user(user("bob", minutes=1))
    await accounts.set_administrator("usr_bob", True)
    engines = [Database(services.db.url) for _ in range(2)]
    try:
        results = await asyncio.gather(
            Accounts(engines[0]).set_administrator("usr_ada", False),
            Accounts(engines[1]).deactivate("usr_bob", utcnow()),
        )
    finally:
        for db in engines:
            await db.dispose()
    assert sorted(results) == [False, True]
    active = [kept for kept in await accounts.accounts() if kept.administrator and not kept.deactivated_at]
    assert len(active) == 1


async def test_deactivating_ends_sessions_and_links_and_refuses_new_sessions(services: Services) -> None:
    accounts = Accounts(services.db)
    await accounts.add_user(user("ada"))
    await accounts.add_user(user("bob", minutes=1))
    now = utcnow()
    assert await accounts.start_session(browser("bob-1", "usr_bob"))
    assert await accounts.start_session(browser("ada-1", "usr_ada"))
    await accounts.add_signin_link("bob-link", "usr_bob", now, now + timedelta(minutes=15))

    assert await accounts.deactivate("usr_bob", now)

    bob = await accounts.user("usr_bob")
    assert bob is not None and bob.deactivated_at is not None
    assert await accounts.session_and_user("bob-1") is None
    assert await accounts.session_and_user("ada-1") is not None
    assert await accounts.use_signin_link("bob-link", now) is None
    assert not await accounts.start_session(browser("bob-2", "usr_bob"))
    assert await accounts.session_and_user("bob-2") is None
    assert not await accounts.start_session(browser("ghost-1", "usr_ghost"))

    await accounts.reactivate("usr_bob")
    assert await accounts.start_session(browser("bob-3", "usr_bob"))
    assert (await accounts.user("usr_bob")).deactivated_at is None
