"""Grants: one user's consent to one client (or one personal token), and their revocation.

Every code and token is issued under a grant, so revoking the grant (from the settings page,
`/revoke`, or because a code or refresh token was replayed) kills all of them at once.
"""

from __future__ import annotations

from dataclasses import replace

from romergo.access.agents.identity import AgentKind
from romergo.access.agents.last_use import last_uses
from romergo.access.agents.ledger import GrantLedger, UsableGrant
from romergo.access.agents.records import Connection
from romergo.access.agents.scopes import ordered
from romergo.common.clock import utcnow


class Grants:
    def __init__(self, ledger: GrantLedger) -> None:
        self.ledger = ledger
        self.last_uses = last_uses(ledger)
        """When each grant was last used, noted by the bearer check and written a few at a time."""

    async def revoke(self, grant_ids: list[str]) -> int:
        """Revoke these grants (the ones still live); returns how many were."""
        return await self.ledger.revoke(grant_ids, utcnow())

    async def revoke_client(self, user_id: str, client_id: str) -> int:
        """What "Revoke" on the settings page does: every live grant of this user to this client."""
        return await self.ledger.revoke_client(user_id, client_id, utcnow())

    async def live_clients(self, user_id: str) -> list[str]:
        """Every client holding a grant of this user not yet revoked (an account deactivated
        revokes them all, whether or not a token is left under them)."""
        return await self.ledger.live_clients(user_id)

    async def connections(self, user_id: str) -> list[Connection]:
        """Connected clients and personal tokens that can still be used, most recently used first."""
        merged: dict[str, Connection] = {}
        for grant in await self.ledger.usable(user_id, utcnow()):
            used = [moment for moment in (grant.last_used_at, self.last_uses.noted(grant.grant_id)) if moment]
            # What this process noted and has not written yet is newer than what was read.
            grant = replace(grant, last_used_at=max(used) if used else None)
            merged[grant.client_id] = _merge(merged.get(grant.client_id), grant)
        return sorted(merged.values(), key=lambda c: c.last_used_at or c.created_at, reverse=True)


def _merge(before: Connection | None, grant: UsableGrant) -> Connection:
    """One row per client: a client with several live grants shows their union."""
    kind: AgentKind = "personal" if grant.kind == "personal" else "oauth"
    scopes = set(grant.scopes) | set(before.scopes if before else ())
    uses = [moment for moment in (grant.last_used_at, before and before.last_used_at) if moment]
    return Connection(
        client_id=grant.client_id,
        name=grant.client_name,
        kind=kind,
        scopes=tuple(ordered(scopes)),
        created_at=min(grant.created_at, before.created_at) if before else grant.created_at,
        last_used_at=max(uses) if uses else None,
        expires_at=grant.expires_at,
    )
