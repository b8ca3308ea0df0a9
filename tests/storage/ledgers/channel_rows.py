"""A small story with a room in it, written straight into the tables the channel ledger reads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from storage import Database
from storage.tables import Channel, ChannelMember, Chapter, Command, Project, Revision, Scene, User

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Room:
    owner_id: str
    project_id: str
    channel_id: str
    client_id: str


async def a_room(db: Database, name: str = "writer") -> Room:
    """An owner, a project with two chapters (the second made first), a live room and an agent in it."""
    room = Room(f"u-{name}", f"p-{name}", f"ch-{name}", f"agent-{name}")
    async with db.write() as session:
        session.add(User(id=room.owner_id, username=name, created_at=NOW))
        await session.flush()
        session.add(
            Project(id=room.project_id, owner_id=room.owner_id, title="Tides", created_at=NOW, updated_at=NOW)
        )
        await session.flush()
        for ident, position in ((f"late-{name}", 2), (f"early-{name}", 1)):
            session.add(
                Chapter(
                    id=ident,
                    project_id=room.project_id,
                    title=ident,
                    position=position,
                    created_at=NOW,
                    updated_at=NOW,
                )
            )
        session.add(
            Channel(
                id=room.channel_id,
                user_id=room.owner_id,
                project_id=room.project_id,
                code_hash=f"hash-{name}",
                code_issued_at=NOW,
                permissions={"read": True},
                confirmation_mode="never",
                created_at=NOW,
                expires_at=NOW + timedelta(days=1),
            )
        )
        await session.flush()
        session.add(
            ChannelMember(
                channel_id=room.channel_id,
                client_id=room.client_id,
                agent_name="Scribe",
                joined_at=NOW,
                last_seen_at=NOW,
                polling_until=NOW + timedelta(seconds=30),
            )
        )
    return room


async def a_command(db: Database, room: Room, seq: int, state: str = "queued", **columns: Any) -> str:
    ident = f"cmd-{room.channel_id}-{seq}"
    async with db.write() as session:
        session.add(
            Command(
                id=ident,
                channel_id=room.channel_id,
                seq=seq,
                text=f"#{seq}",
                state=state,
                created_at=NOW,
                **columns,
            )
        )
    return ident


async def a_scene(db: Database, room: Room, ident: str, chapter_id: str) -> None:
    async with db.write() as session:
        session.add(
            Scene(
                id=ident,
                project_id=room.project_id,
                chapter_id=chapter_id,
                title=ident,
                position=1,
                created_at=NOW,
                updated_at=NOW,
            )
        )


async def a_revision(
    db: Database,
    room: Room,
    entity: tuple[str, str],
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    command_id: str | None = None,
    at: datetime = NOW,
) -> None:
    async with db.write() as session:
        session.add(
            Revision(
                project_id=room.project_id,
                entity_type=entity[0],
                entity_id=entity[1],
                action="update" if before and after else "create" if after else "delete",
                before=before,
                after=after,
                actor_type="agent",
                actor_id=room.client_id,
                command_id=command_id,
                tool="romergo_update_scene",
                created_at=at,
            )
        )
