"""The accounts ledger: users by name and id, the first user added once, sign-in links used once,
browser sessions kept, touched and ended, and a new password ending them all."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from romergo.common.clock import utcnow
from romergo.services import Services
from storage.access.accounts import Accounts
from storage.access.records import BrowserSession, User
from storage.database import Database


def user(name: str, user_id: str | None = None) -> User:
    return User(id=user_id or f"usr_{name}", username=name, password_hash=None, created_at=utcnow())


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
