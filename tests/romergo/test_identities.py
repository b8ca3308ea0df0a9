"""Who an identity of the team's OpenID Connect provider is here: the allow rules, the link of
(issuer, subject) to an account, and the account made on first sign-in only when the settings say so."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from romergo.access.accounts.identities import IdentitySignIn, ProviderIdentity
from romergo.common.errors import RomergoError
from romergo.services import Services

DATABASES = ("sqlite",)
"""The database side is the ledger's contract, run on both
(tests/storage/ledgers/test_access_identities.py)."""

ISSUER = "https://id.team.example"
ADA = ProviderIdentity(
    issuer=ISSUER,
    subject="subject-ada",
    email="ada@team.example",
    email_verified=True,
    groups=("writers",),
    preferred_username="Ada.Lovelace",
)


def sign_in_with(services: Services, **settings: Any) -> IdentitySignIn:
    configured = dataclasses.replace(
        services.settings, oidc_issuer=ISSUER, oidc_client_id="romergo", **settings
    )
    return IdentitySignIn(services.identities.ledger, services.accounts, configured)


async def refused(identities: IdentitySignIn, identity: ProviderIdentity, words: str) -> None:
    with pytest.raises(RomergoError) as refusal:
        await identities.sign_in(identity)
    assert refusal.value.code == "forbidden" and words in refusal.value.message


async def test_an_identity_nobody_linked_is_refused_and_no_account_made(services):
    users = await services.accounts.user_count()
    await refused(sign_in_with(services), ADA, "not linked")
    assert await services.accounts.user_count() == users


async def test_an_account_with_the_same_name_or_address_is_not_taken_over(services):
    await services.accounts.create_user("ada.lovelace")
    await services.accounts.create_user("ada")
    await refused(sign_in_with(services), ADA, "not linked")


async def test_a_linked_identity_signs_in_as_its_account_every_time(services):
    writer = await services.accounts.create_user("writer")
    identities = sign_in_with(services)
    assert (await identities.link("Writer", ADA.subject)).id == writer.id
    first, second = await identities.sign_in(ADA), await identities.sign_in(ADA)
    assert first.user.id == second.user.id == writer.id
    assert await services.accounts.session_user(first.session_token) == await services.accounts.user_by_id(
        writer.id
    )


async def test_an_identity_links_to_one_account_only(services):
    await services.accounts.create_user("writer")
    await services.accounts.create_user("editor")
    identities = sign_in_with(services)
    await identities.link("writer", ADA.subject)
    with pytest.raises(RomergoError, match="already linked"):
        await identities.link("editor", ADA.subject)


async def test_linking_needs_a_provider_and_an_account(services):
    with pytest.raises(RomergoError, match="No identity provider"):
        await services.identities.link("writer", ADA.subject)
    with pytest.raises(RomergoError, match="does not exist"):
        await sign_in_with(services).link("nobody", ADA.subject)


async def test_the_first_sign_in_makes_an_account_when_the_settings_say_so(services):
    identities = sign_in_with(services, oidc_create_accounts=True)
    first = await identities.sign_in(ADA)
    again = await identities.sign_in(ADA)
    assert first.user.username == "ada.lovelace" and again.user.id == first.user.id
    assert first.user.password_hash is None


async def test_a_taken_name_gets_a_number(services):
    await services.accounts.create_user("ada.lovelace")
    made = await sign_in_with(services, oidc_create_accounts=True).sign_in(ADA)
    assert made.user.username == "ada.lovelace-2"


async def test_an_address_outside_the_allowed_domains_is_refused(services):
    identities = sign_in_with(services, oidc_create_accounts=True, oidc_allowed_domains=("team.example",))
    users = await services.accounts.user_count()
    await refused(identities, dataclasses.replace(ADA, email="ada@elsewhere.example"), "e-mail address")
    await refused(identities, dataclasses.replace(ADA, email_verified=False), "e-mail address")
    await refused(identities, dataclasses.replace(ADA, email=None), "e-mail address")
    assert await services.accounts.user_count() == users
    assert (await identities.sign_in(ADA)).user.username == "ada.lovelace"


async def test_the_allowed_domains_hold_for_a_linked_identity_too(services):
    await services.accounts.create_user("writer")
    await sign_in_with(services).link("writer", ADA.subject)
    identities = sign_in_with(services, oidc_allowed_domains=("team.example",))
    await refused(identities, dataclasses.replace(ADA, email="ada@elsewhere.example"), "e-mail address")


async def test_one_of_the_allowed_groups_is_needed(services):
    identities = sign_in_with(services, oidc_create_accounts=True, oidc_allowed_groups=("editors", "writers"))
    await refused(identities, dataclasses.replace(ADA, groups=("readers",)), "groups")
    assert (await identities.sign_in(ADA)).user.username == "ada.lovelace"


async def test_another_issuer_is_refused(services):
    identities = sign_in_with(services, oidc_create_accounts=True)
    await refused(identities, dataclasses.replace(ADA, issuer="https://id.elsewhere.example"), "another")


async def test_sign_in_with_a_provider_is_off_without_an_issuer(services):
    assert not services.identities.configured
    assert sign_in_with(services).configured
