"""Accounts: users, passwords, one-time sign-in links and server-side browser sessions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import select

from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError
from romergo.common.ids import sha256_hex
from storage.tables import SigninLink, User, WebSession

DATABASES = ("sqlite",)
"""The database side is the ledgers' contract, run on both (tests/storage/ledgers/test_access_*.py)."""


async def test_first_start_creates_author_without_password_once(services):
    user, created = await services.accounts.ensure_first_user()
    again, created_again = await services.accounts.ensure_first_user()

    assert (user.username, user.password_hash, created) == ("author", None, True)
    assert (again.id, created_again) == (user.id, False)


async def test_password_sign_in_and_the_same_refusal_for_unknown_user_and_bad_password(services):
    await services.accounts.create_user("Ada", "correct horse battery")

    signed_in = await services.accounts.sign_in_with_password("ada", "correct horse battery")
    assert signed_in.user.username == "ada"
    assert (await services.accounts.session_user(signed_in.session_token)).id == signed_in.user.id

    for username, password in (("ada", "wrong password!!"), ("nobody", "correct horse battery")):
        with pytest.raises(RomergoError) as refused:
            await services.accounts.sign_in_with_password(username, password)
        assert (refused.value.code, refused.value.message) == ("unauthorized", "Wrong username or password.")


async def test_a_user_without_password_cannot_sign_in_with_any(services):
    await services.accounts.ensure_first_user()
    with pytest.raises(RomergoError):
        await services.accounts.sign_in_with_password("author", "")


@pytest.mark.parametrize(
    ("name", "password"), [("bob", "short"), ("", "long enough pass"), ("Bad Name", "long enough pass")]
)
async def test_bad_new_accounts_are_refused_and_not_created(services, name, password):
    with pytest.raises(RomergoError) as refused:
        await services.accounts.create_user(name, password)
    assert refused.value.code == "invalid_argument"
    assert await services.accounts.user_count() == 0


async def test_duplicate_username_is_a_conflict(services):
    await services.accounts.create_user("ada")
    with pytest.raises(RomergoError) as refused:
        await services.accounts.create_user("ADA")
    assert refused.value.code == "conflict"


async def test_sign_in_attempts_are_rate_limited_per_username(services):
    await services.accounts.create_user("ada", "correct horse battery")
    codes = []
    for _ in range(11):
        try:
            await services.accounts.sign_in_with_password("ada", "wrong password!!")
        except RomergoError as error:
            codes.append(error.code)
    assert codes[:10] == ["unauthorized"] * 10
    assert codes[10] == "rate_limited"


async def test_a_sign_in_link_works_once(services):
    user, _ = await services.accounts.ensure_first_user()
    token = await services.accounts.create_signin_link(user.id)

    signed_in = await services.accounts.sign_in_with_link(token)
    assert signed_in.user.id == user.id
    with pytest.raises(RomergoError) as reused:
        await services.accounts.sign_in_with_link(token)
    assert reused.value.code == "unauthorized"

    async with services.db.read() as session:
        stored = (await session.exec(select(SigninLink))).all()
    assert [row.token_hash for row in stored] == [sha256_hex(token)]  # only the hash is stored


async def test_an_expired_or_made_up_link_is_refused(services):
    user, _ = await services.accounts.ensure_first_user()
    token = await services.accounts.create_signin_link(user.id)
    async with services.db.write() as session:
        await session.exec(update(SigninLink).values(expires_at=utcnow() - timedelta(seconds=1)))

    for candidate in (token, "made-up", "", "x" * 500):
        with pytest.raises(RomergoError):
            await services.accounts.sign_in_with_link(candidate)


async def test_sessions_end_on_sign_out_on_expiry_and_when_idle(services):
    user = await services.accounts.create_user("ada", "correct horse battery")
    ended = await services.accounts.start_session(user.id)
    expired = await services.accounts.start_session(user.id)
    idle = await services.accounts.start_session(user.id)
    alive = await services.accounts.start_session(user.id)

    await services.accounts.end_session(ended)
    now = utcnow()
    async with services.db.write() as session:
        await session.exec(
            update(WebSession).where(WebSession.token_hash == sha256_hex(expired)).values(expires_at=now)
        )
        await session.exec(
            update(WebSession)
            .where(WebSession.token_hash == sha256_hex(idle))
            .values(last_seen_at=now - timedelta(days=8))
        )

    assert await services.accounts.session_user(ended) is None
    assert await services.accounts.session_user(expired) is None
    assert await services.accounts.session_user(idle) is None
    assert (await services.accounts.session_user(alive)).id == user.id
    assert await services.accounts.session_user(None) is None
    assert await services.accounts.session_user("garbage") is None


async def test_a_new_password_ends_existing_sessions(services):
    user = await services.accounts.create_user("ada", "correct horse battery")
    token = await services.accounts.start_session(user.id)

    await services.accounts.set_password("ada", "another long password")

    assert await services.accounts.session_user(token) is None
    async with services.db.read() as session:
        stored = await session.get(User, user.id)
    assert stored.password_hash.startswith("$argon2id$")
    assert "another long password" not in stored.password_hash


async def test_only_refused_sign_ins_count_and_a_full_window_refuses_even_the_right_password(services):
    await services.accounts.create_user("ada", "correct horse battery")
    for _ in range(15):
        await services.accounts.sign_in_with_password("ada", "correct horse battery")
    for _ in range(10):
        with pytest.raises(RomergoError):
            await services.accounts.sign_in_with_password("ada", "wrong password!!")
    with pytest.raises(RomergoError) as refused:
        await services.accounts.sign_in_with_password("ada", "correct horse battery")
    assert refused.value.code == "rate_limited"
