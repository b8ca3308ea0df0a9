"""Personal access tokens (`romergo token create`) and the settings page's list of connections."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import exists, or_
from sqlmodel import col, select

from romergo.agents.base import TOKEN_PREFIX, AgentBase, client_name
from romergo.agents.identity import AgentKind
from romergo.agents.records import Connection
from romergo.agents.scopes import ALL_SCOPES, PERSONAL_DEFAULT, SHORT_NAMES, ordered
from romergo.clock import utcnow
from romergo.errors import RomergoError, invalid
from romergo.ids import new_id, new_secret, sha256_hex
from storage.tables import AgentClient, AgentGrant, AgentToken, User

MAX_EXPIRES_DAYS = 3650


class PersonalOps(AgentBase):
    # -- personal access tokens ------------------------------------------------------------------

    async def create_personal_token(
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
        token = TOKEN_PREFIX["personal"] + new_secret(32)
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
            grant = AgentGrant(
                id=new_id("grt"),
                user_id=user.id,
                client_id=client.id,
                kind="personal",
                scopes=chosen,
                created_at=now,
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

    # -- the settings page -----------------------------------------------------------------------

    async def connections(self, user_id: str) -> list[Connection]:
        """Connected clients and personal tokens that can still be used, most recently used first."""
        now = utcnow()
        usable_token = exists().where(
            col(AgentToken.grant_id) == col(AgentGrant.id),
            or_(col(AgentToken.expires_at).is_(None), col(AgentToken.expires_at) > now),
            or_(col(AgentToken.kind) != "refresh", col(AgentToken.used_at).is_(None)),
        )
        async with self.db.read() as session:
            rows = (
                await session.exec(
                    select(AgentGrant, AgentClient)
                    .join(AgentClient, col(AgentClient.id) == col(AgentGrant.client_id))
                    .where(
                        col(AgentGrant.user_id) == user_id,
                        col(AgentGrant.revoked_at).is_(None),
                        or_(col(AgentGrant.expires_at).is_(None), col(AgentGrant.expires_at) > now),
                        usable_token,
                    )
                )
            ).all()
        merged: dict[str, Connection] = {}
        for grant, client in rows:
            before = merged.get(client.id)
            kind: AgentKind = "personal" if grant.kind == "personal" else "oauth"
            scopes = set(grant.scopes) | set(before.scopes if before else ())
            uses = [moment for moment in (grant.last_used_at, before and before.last_used_at) if moment]
            merged[client.id] = Connection(
                client_id=client.id,
                name=client.name,
                kind=kind,
                scopes=tuple(ordered(scopes)),
                created_at=min(grant.created_at, before.created_at) if before else grant.created_at,
                last_used_at=max(uses) if uses else None,
                expires_at=grant.expires_at,
            )
        return sorted(merged.values(), key=lambda c: c.last_used_at or c.created_at, reverse=True)


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
