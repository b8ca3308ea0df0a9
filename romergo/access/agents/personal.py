"""Personal access tokens (`romergo token create`): for scripts and headless agents."""

from __future__ import annotations

from datetime import timedelta

from romergo.access.agents.base import client_name, new_token
from romergo.access.agents.ledger import PersonalTokenLedger
from romergo.access.agents.scopes import ALL_SCOPES, PERSONAL_DEFAULT, SHORT_NAMES, ordered
from romergo.common.clock import utcnow
from romergo.common.errors import RomergoError, invalid
from romergo.common.ids import new_id, sha256_hex

MAX_EXPIRES_DAYS = 3650


class PersonalTokens:
    def __init__(self, ledger: PersonalTokenLedger) -> None:
        self.ledger = ledger

    async def create(
        self,
        username: str,
        *,
        name: str | None = None,
        scopes: list[str] | None = None,
        expires_days: int = 90,
    ) -> tuple[str, str]:
        """A token for scripts and headless agents: its own client, shown once. Returns (token, client_id)."""
        clean_name = client_name(name or "Personal access token")
        chosen = ordered(scopes if scopes is not None else list(PERSONAL_DEFAULT))
        if not chosen:
            raise invalid("A personal token needs at least one scope.")
        if not isinstance(expires_days, int) or not 1 <= expires_days <= MAX_EXPIRES_DAYS:
            raise invalid(f"A personal token expires after 1 to {MAX_EXPIRES_DAYS} days.")
        token = new_token("personal")
        now = utcnow()
        expires_at = now + timedelta(days=expires_days)
        client_id = new_id("agt")
        kept = await self.ledger.add(
            username,
            client_id=client_id,
            grant_id=new_id("grt"),
            token_hash=sha256_hex(token),
            name=clean_name,
            scopes=chosen,
            created_at=now,
            expires_at=expires_at,
        )
        if not kept:
            raise RomergoError("not_found", f'User "{username}" does not exist or is deactivated.')
        return token, client_id


def parse_scopes(spec: str) -> list[str]:
    """`read,edit,media` (or full `romergo:read` names) → scope names; `invalid_argument` if unknown."""
    names = [item.strip() for item in spec.split(",") if item.strip()]
    if not names:
        raise invalid(f"Name at least one scope: {', '.join(SHORT_NAMES)}.")
    chosen = []
    for item in names:
        scope = SHORT_NAMES.get(item, item if item in ALL_SCOPES else None)
        if scope is None:
            raise invalid(f'Unknown scope "{item}"; choose from {", ".join(SHORT_NAMES)}.')
        chosen.append(scope)
    return ordered(chosen)
