"""The tables as SQLAlchemy Core `Table`s, for statements built once on the busy path (issue 16).

A statement on a table skips the ORM's loading and bulk-write steps, which a statement on an entity
goes through; the busy path's prebuilt statements are written on these (docs/performance.md).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table

from storage.tables import (
    AgentClient,
    AgentGrant,
    AgentToken,
    Channel,
    ChannelEvent,
    ChannelMember,
    Command,
    DialogueLine,
    RateCount,
    Revision,
    ServerSetting,
    User,
)


def core_table(model: type[Any]) -> Table:
    """The `Table` a sqlmodel table class maps (typed: sqlmodel declares no `__table__`)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


AGENT_CLIENTS = core_table(AgentClient)
AGENT_GRANTS = core_table(AgentGrant)
AGENT_TOKENS = core_table(AgentToken)
CHANNELS = core_table(Channel)
CHANNEL_EVENTS = core_table(ChannelEvent)
CHANNEL_MEMBERS = core_table(ChannelMember)
COMMANDS = core_table(Command)
DIALOGUE_LINES = core_table(DialogueLine)
RATE_COUNTS = core_table(RateCount)
REVISIONS = core_table(Revision)
SERVER_SETTINGS = core_table(ServerSetting)
USERS = core_table(User)
