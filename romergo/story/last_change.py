"""Who made the newest change of one entity, in the words a person needs: which agent, under which
command as the panel numbers it (#1 is its channel's first), or which write of the author's.

An open draft asks this when the entity it was opened on changes, and a conflict view asks it to
say who made the other change: one entity at a time, never once per line of a page.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select

from romergo.story.base import UnitOfWork
from romergo.story.based_on import ChangedBy
from storage.tables import AgentClient, ChannelMember, Command, Revision


@dataclass(frozen=True)
class LastChange:
    revision: int
    by: ChangedBy
    batch_id: str | None
    """The write it was part of: a tab knows its own writes by these (`ui.edits`)."""
    agent_name: str | None
    """For an agent: the name it introduced itself with."""
    command_number: int | None
    """For a change made under a command: its number in its channel, as the panel shows it."""


async def last_change(
    uow: UnitOfWork, project_id: str, entity_type: str, entity_id: str
) -> LastChange | None:
    statement = (
        select(Revision)
        .where(
            Revision.project_id == project_id,
            Revision.entity_type == entity_type,
            Revision.entity_id == entity_id,
        )
        .order_by(col(Revision.id).desc())
        .limit(1)
    )
    row = (await uow.session.exec(statement)).first()
    if row is None or row.id is None:
        return None
    by = ChangedBy(row.actor_type, row.actor_id, row.client_id, row.command_id, row.tool, row.created_at)
    return LastChange(
        row.id,
        by,
        row.batch_id,
        await _agent_name(uow, row.client_id) if row.actor_type == "agent" else None,
        await _command_number(uow, row.command_id),
    )


async def _agent_name(uow: UnitOfWork, client_id: str | None) -> str | None:
    if client_id is None:
        return None
    introduced = (
        select(ChannelMember.agent_name)
        .where(ChannelMember.client_id == client_id)
        .order_by(col(ChannelMember.joined_at).desc())
        .limit(1)
    )
    name = (await uow.session.exec(introduced)).first()
    if name:
        return name
    registered = select(AgentClient.name).where(AgentClient.id == client_id)
    return (await uow.session.exec(registered)).first()


async def _command_number(uow: UnitOfWork, command_id: str | None) -> int | None:
    if command_id is None:
        return None
    command = (await uow.session.exec(select(Command).where(Command.id == command_id))).first()
    if command is None:
        return None
    earlier = select(func.count()).where(
        Command.channel_id == command.channel_id, col(Command.seq) <= command.seq
    )
    return int((await uow.session.exec(earlier)).one())
