"""The people of a self-hosted team: their accounts as an administrator manages them.

Only an administrator may list, add, link, promote, deactivate or reactivate accounts; the server's
own command line may too (whoever runs it holds the data dir already). The first account is an
administrator, and there is always an active one: the last cannot lose the role or be
deactivated, and nobody deactivates themselves. A refusal changes nothing.

Deactivating ends the account's browser sessions and unused sign-in links at once (the ledger);
the composition then revokes its agents (`Services.deactivate_account`).
"""

from __future__ import annotations

from romergo.access.accounts.ledger import AccountLedger, User
from romergo.access.accounts.service import AccountService
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError

COMMAND_LINE = None
"""`by` for the server's command line: an operator with the data dir, not an account."""

LAST_ADMINISTRATOR = "This is the last active administrator: make someone else one first."


class People:
    def __init__(self, ledger: AccountLedger, accounts: AccountService) -> None:
        self.ledger = ledger
        self.accounts = accounts

    async def is_administrator(self, user_id: str) -> bool:
        """Read afresh each time: a role taken away counts at once, in every open tab."""
        user = await self.ledger.user(user_id)
        return user is not None and user.administrator and user.deactivated_at is None

    async def listed(self, by: str | None) -> list[User]:
        """Every account, oldest first."""
        await self._administrator(by)
        return await self.ledger.accounts()

    async def add(self, by: str | None, username: str, password: str | None = None) -> User:
        await self._administrator(by)
        return await self.accounts.create_user(username, password)

    async def signin_link(self, by: str | None, username: str) -> str:
        """A fresh one-time sign-in link's token for an active account (`romergo login-link`'s)."""
        await self._administrator(by)
        user = await self._account(username)
        if user.deactivated_at is not None:
            raise RomergoError("conflict", f'User "{user.username}" is deactivated: reactivate them first.')
        return await self.accounts.create_signin_link(user.id)

    async def set_administrator(self, by: str | None, username: str, administrator: bool) -> User:
        await self._administrator(by)
        user = await self._account(username)
        if not await self.ledger.set_administrator(user.id, administrator):
            raise RomergoError("conflict", LAST_ADMINISTRATOR)
        return await self._account(username)

    async def deactivate(self, by: str | None, username: str) -> User:
        """Only the account's standing: its agents are the composition's to revoke."""
        await self._administrator(by)
        user = await self._account(username)
        if user.id == by:
            raise RomergoError("conflict", "You cannot deactivate your own account.")
        if not await self.ledger.deactivate(user.id, utcnow()):
            raise RomergoError("conflict", LAST_ADMINISTRATOR)
        return await self._account(username)

    async def reactivate(self, by: str | None, username: str) -> User:
        await self._administrator(by)
        user = await self._account(username)
        await self.ledger.reactivate(user.id)
        return await self._account(username)

    async def _administrator(self, by: str | None) -> None:
        if by is not COMMAND_LINE and not await self.is_administrator(by):
            raise RomergoError("permission_denied", "Only an administrator can manage accounts.")

    async def _account(self, username: str) -> User:
        found = await self.ledger.user_named(str(username).strip().lower())
        if found is None:
            raise RomergoError("not_found", f'User "{username}" does not exist.')
        return found
