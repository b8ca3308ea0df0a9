"""The ID token checks of signing in with the team's provider, on tokens signed here with a test
key (real RS256 signatures, joserfc as authlib uses it): the configured client's own validation,
with its claims options, given the provider's keys as its discovery would give them."""

from __future__ import annotations

import time
from typing import Any

import pytest
from authlib.integrations.starlette_client import StarletteOAuth2App
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey

from romergo.common.config import Settings
from ui.provider_sign_in import LEEWAY_SECONDS, claims_options, identity_of, provider_client

ISSUER = "https://id.team.example"
CLIENT_ID = "romergo"
NONCE = "the-nonce-of-this-sign-in"
SETTINGS = Settings(oidc_issuer=ISSUER, oidc_client_id=CLIENT_ID, oidc_client_secret="secret")
KEY = RSAKey.generate_key(2048, parameters={"kid": "provider-key"})
OTHER_KEY = RSAKey.generate_key(2048, parameters={"kid": "provider-key"})


def client() -> StarletteOAuth2App:
    provider = provider_client(SETTINGS)
    # What discovery would have loaded: the issuer and its public keys.
    provider.server_metadata.update(
        {
            "_loaded_at": time.time(),
            "issuer": ISSUER,
            "jwks": {"keys": [KEY.as_dict(private=False)]},
            "id_token_signing_alg_values_supported": ["RS256"],
        }
    )
    return provider


def id_token(key: RSAKey = KEY, **changes: Any) -> dict[str, str]:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "sub": "person-1",
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 300,
        "nonce": NONCE,
        "email": "ada@team.example",
        "email_verified": True,
        "groups": ["writers"],
        "preferred_username": "ada",
    }
    claims.update(changes)
    signed = jwt.encode({"alg": "RS256", "kid": "provider-key"}, claims, key)
    return {"id_token": signed, "access_token": "an-access-token", "token_type": "Bearer"}


async def validated(token: dict[str, str], nonce: str = NONCE) -> dict[str, Any]:
    claims = await client().parse_id_token(
        token, nonce=nonce, claims_options=claims_options(SETTINGS), leeway=LEEWAY_SECONDS
    )
    return dict(claims)


async def test_a_valid_id_token_names_the_person():
    identity = identity_of(await validated(id_token()))
    assert (identity.issuer, identity.subject, identity.email) == (ISSUER, "person-1", "ada@team.example")
    assert (
        identity.email_verified and identity.groups == ("writers",) and identity.preferred_username == "ada"
    )


async def test_an_address_not_said_to_be_verified_is_not_verified():
    identity = identity_of(await validated(id_token(email_verified="true")))
    assert not identity.email_verified


@pytest.mark.parametrize(
    "changes",
    [
        {"iss": "https://id.elsewhere.example"},
        {"aud": "another-client"},
        {"aud": ["another-client"], "azp": CLIENT_ID},
        {"exp": int(time.time()) - LEEWAY_SECONDS - 60},
    ],
    ids=["wrong issuer", "wrong audience", "audience without this client", "expired"],
)
async def test_a_token_not_for_this_sign_in_is_refused(changes: dict[str, Any]):
    with pytest.raises(JoseError):
        await validated(id_token(**changes))


async def test_a_token_without_a_subject_is_refused():
    with pytest.raises(JoseError):
        await validated(id_token_without("sub"))


async def test_another_nonce_is_refused():
    with pytest.raises(JoseError):
        await validated(id_token(), nonce="the-nonce-of-another-sign-in")


async def test_a_token_signed_by_another_key_is_refused():
    with pytest.raises(JoseError):
        await validated(id_token(OTHER_KEY))


def id_token_without(claim: str) -> dict[str, str]:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "sub": "person-1",
        "aud": CLIENT_ID,
        "iat": now,
        "exp": now + 300,
        "nonce": NONCE,
    }
    del claims[claim]
    return {"id_token": jwt.encode({"alg": "RS256", "kid": "provider-key"}, claims, KEY), "access_token": "a"}
