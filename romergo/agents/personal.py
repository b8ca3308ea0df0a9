"""Personal access tokens (`romergo token create`): for scripts and headless agents."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import select

from romergo.agents.base import client_name, new_token
from romergo.agents.grants import new_grant
from romergo.agents.scopes import ALL_SCOPES, PERSONAL_DEFAULT, SHORT_NAMES, ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import new_id, sha256_hex
from storage import Database
from storage.tables import AgentClient, AgentToken, User

MAX_EXPIRES_DAYS = 3650


class PersonalTokens:
    def __init__(self, db: Database) -> None:
        self.db = db

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
        async with self.db.write() as session:
            user = (await session.exec(select(User).where(User.username == username))).first()
            if user is None:
                raise RomergoError("not_found", f'User "{username}" does not exist.')
            client = AgentClient(
                id=new_id("agt"),
                kind="personal",
                name=clean_name,
                user_id=user.id,
                scopes=chosen,
                created_at=now,
            )
            session.add(client)
            await session.flush()
            grant = new_grant(
                user_id=user.id,
                client_id=client.id,
                kind="personal",
                scopes=chosen,
                now=now,
                expires_at=expires_at,
            )
            session.add(grant)
            await session.flush()
            session.add(
                AgentToken(
                    token_hash=sha256_hex(token),
                    kind="personal",
                    grant_id=grant.id,
                    client_id=client.id,
                    scopes=chosen,
                    created_at=now,
                    expires_at=expires_at,
                )
            )
        return token, client.id


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
