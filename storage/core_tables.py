"""The tables as SQLAlchemy Core `Table`s, for statements built once on the busy path.

A statement on a table skips the ORM's loading and bulk-write steps, which a statement on an entity
goes through; the busy path's prebuilt statements are written on these (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any, NamedTuple, TypeVar

from sqlalchemy import Column, Table, inspect
from sqlalchemy.orm import ClassManager

from storage.records import Record
from storage.tables import (
    AgentActivity,
    AgentClient,
    AgentGrant,
    AgentRead,
    AgentToken,
    Channel,
    ChannelEvent,
    ChannelMember,
    Choice,
    Command,
    DialogueLine,
    Invitation,
    Project,
    ProjectMember,
    RateCount,
    Revision,
    ServerSetting,
    User,
)

M = TypeVar("M")


def core_table(model: type[Any]) -> Table:
    """The `Table` a sqlmodel table class maps (typed: sqlmodel declares no `__table__`)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


AGENT_ACTIVITY = core_table(AgentActivity)
AGENT_READS = core_table(AgentRead)
AGENT_CLIENTS = core_table(AgentClient)
AGENT_GRANTS = core_table(AgentGrant)
AGENT_TOKENS = core_table(AgentToken)
CHANNELS = core_table(Channel)
CHANNEL_EVENTS = core_table(ChannelEvent)
CHANNEL_MEMBERS = core_table(ChannelMember)
CHOICES = core_table(Choice)
COMMANDS = core_table(Command)
DIALOGUE_LINES = core_table(DialogueLine)
INVITATIONS = core_table(Invitation)
PROJECTS = core_table(Project)
PROJECT_MEMBERS = core_table(ProjectMember)
RATE_COUNTS = core_table(RateCount)
REVISIONS = core_table(Revision)
SERVER_SETTINGS = core_table(ServerSetting)
USERS = core_table(User)


def loaded(model: type[M], values: Sequence[Any]) -> M:
    """An entity of `model` from a row of its table's columns, in table order (`select(core_table(
    model))`), made the way SQLAlchemy's loader makes one: no constructor, no validation.

    For views read on the driver (`Database.read_rows`): the entity belongs to no session and is
    for reading; building it costs ~2 µs, against ~80 µs for a statement through the ORM."""
    shape = _shape(model)
    entity: M = shape.manager.new_instance()
    entity.__dict__.update(zip(shape.keys, values, strict=True))
    return entity


def record_maker(shape: type[Record], model: type[Any]) -> Callable[[Sequence[Any]], Record]:
    """What makes a `shape` record from a row of `model`'s table's columns, in table order (`select(
    core_table(model))`): the record's fields are the columns, in the same order (checked here, once).

    For reads that hand records up: a plain dataclass costs less to make than an entity."""
    names = tuple(field.name for field in fields(shape))
    if names != _shape(model).keys:
        raise TypeError(f"{shape.__name__}'s fields are not {model.__name__}'s columns in order")
    return lambda values: shape(*values)


def record_columns(shape: type[Any], model: type[Any]) -> tuple[Column[Any], ...]:
    """The columns of `model`'s table that a `shape` record holds, in the record's order: what a
    statement selects for a record that leaves a column out (a room's record holds no code hash),
    made with `shape(*values)`. Fails for a field that is no column."""
    table = core_table(model)
    return tuple(table.c[field.name] for field in fields(shape))


def width(model: type[Any]) -> int:
    """How many columns `model`'s table has: where its part of a joined row ends."""
    return len(_shape(model).keys)


class _Shape(NamedTuple):
    keys: tuple[str, ...]
    """The table's column keys, in table order."""
    manager: ClassManager[Any]
    """Makes an instance with its ORM state and without `__init__`, as SQLAlchemy's own loader and
    `Session.merge` do (`mapper.class_manager.new_instance()`). The mapper's `class_manager` is
    public, its `new_instance` is not in the reference; SQLAlchemy documents that loading skips
    `__init__` (sqlalchemy/sqlalchemy#9930, discussion #9928) but offers no documented call that does
    it alone. tests/storage/test_core_tables.py fails first if that changes."""


def _shape(model: type[Any]) -> _Shape:
    shape = _SHAPES.get(model)
    if shape is None:
        keys = tuple(column.key for column in core_table(model).columns)
        shape = _SHAPES[model] = _Shape(keys, inspect(model).class_manager)
    return shape


_SHAPES: dict[type[Any], _Shape] = {}
