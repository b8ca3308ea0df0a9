"""Signing in with the team's OpenID Connect provider: who a validated identity is here.

The adapter runs the authorization code flow and validates the ID token (signature, issuer,
audience, expiry, nonce); what it hands on is a `ProviderIdentity`. Here the team's rules decide
whether that identity may sign in, and as whom:

- The provider names a person for good by (issuer, subject), so that pair is what is linked to an
  account (`provider_identities`). An e-mail address or a username from the provider is never
  matched against an existing account: whoever controls that claim at the provider (a renamed
  account, a second provider account with the same address) would take the account over.
- With `oidc_allowed_domains`, the identity needs a verified e-mail address in one of them; with
  `oidc_allowed_groups`, one of those groups. They are checked on every sign-in, linked or not.
- An identity not yet linked signs in only with `oidc_create_accounts` (a new account, named after
  its preferred username or e-mail's local part); otherwise an administrator links it to an
  existing account (`romergo user link NAME SUBJECT`, the subject as the refusal logs it).

Every refusal is a `RomergoError` that changes nothing.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from romergo.access.accounts.ledger import IdentityLedger, IdentityLink, User
from romergo.access.accounts.service import AccountService, SignedIn, new_user
from romergo.common.clock import utcnow
from romergo.common.config import Settings
from romergo.common.errors import RomergoError

log = logging.getLogger(__name__)

_NOT_A_NAME_CHARACTER = re.compile(r"[^a-z0-9_.-]+")
_NAME_TRIES = 50


@dataclass(frozen=True)
class ProviderIdentity:
    """What a validated ID token says about the person signing in."""

    issuer: str
    subject: str
    email: str | None = None
    email_verified: bool = False
    groups: tuple[str, ...] = ()
    preferred_username: str | None = None


class IdentitySignIn:
    def __init__(self, ledger: IdentityLedger, accounts: AccountService, settings: Settings) -> None:
        self.ledger = ledger
        self.accounts = accounts
        self.settings = settings

    @property
    def configured(self) -> bool:
        return bool(self.settings.oidc_issuer and self.settings.oidc_client_id)

    async def sign_in(self, identity: ProviderIdentity) -> SignedIn:
        """A new browser session for the identity's account; refusals (`forbidden`) change nothing."""
        self._check_allowed(identity)
        user = await self.ledger.linked_user(identity.issuer, identity.subject)
        if user is None:
            user = await self._new_account(identity)
        return SignedIn(user, await self.accounts.start_session(user.id))

    async def link(self, username: str, subject: str) -> User:
        """Links the configured provider's `subject` to the account `username`."""
        issuer = self.settings.oidc_issuer
        if not issuer:
            raise RomergoError(
                "invalid_argument", "No identity provider is configured (ROMERGO_OIDC_ISSUER)."
            )
        user = await self.accounts.user_by_name(username.strip().lower())
        if user is None:
            raise RomergoError("not_found", f'User "{username}" does not exist.')
        if not subject.strip() or not await self.ledger.link(
            IdentityLink(issuer, subject.strip(), user.id, utcnow())
        ):
            raise RomergoError("conflict", "That identity is already linked to an account.")
        return user

    def _check_allowed(self, identity: ProviderIdentity) -> None:
        settings = self.settings
        if identity.issuer != settings.oidc_issuer:
            raise RomergoError("forbidden", "This sign-in comes from another identity provider.")
        if settings.oidc_allowed_domains:
            domain = (identity.email or "").rpartition("@")[2].lower()
            if not identity.email_verified or domain not in settings.oidc_allowed_domains:
                _refused(identity, "e-mail domain not allowed or address not verified")
                raise RomergoError("forbidden", "Your e-mail address is not one this Romergo accepts.")
        if settings.oidc_allowed_groups and not set(identity.groups) & set(settings.oidc_allowed_groups):
            _refused(identity, "in none of the allowed groups")
            raise RomergoError("forbidden", "You are in none of the groups this Romergo accepts.")

    async def _new_account(self, identity: ProviderIdentity) -> User:
        if not self.settings.oidc_create_accounts:
            _refused(identity, "not linked to an account (romergo user link NAME SUBJECT)")
            raise RomergoError(
                "forbidden",
                "Your account there is not linked to a Romergo account yet. Ask whoever runs this "
                "Romergo to link it.",
            )
        base = _username_for(identity)
        for attempt in range(1, _NAME_TRIES + 1):
            user = new_user(base if attempt == 1 else f"{base[:36]}-{attempt}", None)
            if await self.ledger.add_user_linked(
                user, IdentityLink(identity.issuer, identity.subject, user.id, user.created_at)
            ):
                log.info(
                    "Created the account %r for the identity %r at %s",
                    user.username,
                    identity.subject,
                    identity.issuer,
                )
                return user
            linked = await self.ledger.linked_user(identity.issuer, identity.subject)
            if linked is not None:  # another sign-in of the same person got there first
                return linked
        raise RomergoError(
            "conflict", "No free username was found for your account; ask whoever runs this Romergo."
        )


def _username_for(identity: ProviderIdentity) -> str:
    wanted = identity.preferred_username or (identity.email or "").partition("@")[0]
    name = _NOT_A_NAME_CHARACTER.sub("-", wanted.strip().lower()).lstrip("_.-")[:40]
    return name or "member"


def _refused(identity: ProviderIdentity, why: str) -> None:
    # The subject is what an administrator needs to link the identity; the page shows none of it.
    log.warning(
        "Sign-in refused for subject %r (e-mail %r) at %s: %s",
        identity.subject,
        identity.email,
        identity.issuer,
        why,
    )
