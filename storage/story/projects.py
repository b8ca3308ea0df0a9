"""A whole project in one statement per table: the check, the map, search, a play-through, an
export and the project page read it. A long story has 2,000 scenes and 50,000 lines, so lines and
choices come as the driver returns them, the other tables as records, never as ORM objects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import bindparam, func, literal
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from storage.core_tables import core_table, record_maker
from storage.records import Record, record_of
from storage.story.members import membership
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRow,
    MediaHead,
    ProjectRecord,
    ProjectRows,
    SceneRecord,
    VariableRecord,
)
from storage.story.transaction import ThreadRead, Transaction
from storage.tables import (
    Asset,
    AssetBlob,
    Chapter,
    Character,
    Choice,
    DialogueLine,
    Project,
    ProjectMember,
    Scene,
    StoryVariable,
)

MEDIA_HEAD_BYTES = 16
"""Enough of a media file to tell its type by its signature."""


def readable_project(session: ThreadRead, reader_id: str, project_id: str) -> tuple[Project, str] | None:
    """The project with the reader's role in it, if they are its member and it is not deleted."""
    if not isinstance(project_id, str):
        return None
    found = session.exec(_READABLE, params={"project_id": project_id, "member_id": reader_id}).first()
    return None if found is None else (found[0], found[1])


def project_rows(
    session: ThreadRead, project: Project, shape_only: bool, with_text: bool, role: str | None = None
) -> ProjectRows:
    """`shape_only`: chapters, scenes, characters and assets, without lines, choices and variables
    (the outline and asset usage show nothing of them). `with_text=False`: every line, its text
    left empty (the story check looks only at where lines are and who speaks them; 50,000 texts
    were a third of its time). `role`: the reader's, as `readable_project` found it."""
    project_id = project.id

    def records(table: Any, make: Callable[[Sequence[Any]], Record]) -> list[Record]:
        return _records(session, table, make, project_id)

    assets = [asset for asset in records(Asset, _asset) if asset.deleted_at is None]
    variables = [] if shape_only else records(StoryVariable, _variable)
    return ProjectRows(
        project=record_of(ProjectRecord, project),
        chapters=records(Chapter, _chapter),
        scenes=records(Scene, _scene),
        lines=[] if shape_only else _line_rows(session, project_id, with_text),
        choices=[] if shape_only else _choice_rows(session, project_id),
        characters=records(Character, _character),
        assets=assets,
        variables=sorted(variables, key=lambda v: v.name.casefold()),
        role=role,
    )


async def project_rows_within(
    transaction: Transaction, project: Project, shape_only: bool, with_text: bool
) -> ProjectRows:
    """`project_rows` inside a unit of work's transaction (a change that reads the story it changes)."""
    await transaction.flush()  # its reads go to the connection, past the session's pending changes
    sync = transaction.sync_session  # the session run_sync hands over, as sqlmodel types it
    return await transaction.run_sync(lambda _: project_rows(sync, project, shape_only, with_text))


def media_heads(session: ThreadRead, project_id: str) -> dict[str, MediaHead]:
    """Each live asset's first bytes and length, read in the database (never the whole files)."""
    statement = (
        select(Asset.id, func.substr(AssetBlob.data, 1, MEDIA_HEAD_BYTES), func.length(AssetBlob.data))
        .join(AssetBlob, col(AssetBlob.id) == Asset.blob_id)
        .where(Asset.project_id == project_id, col(Asset.deleted_at).is_(None))
    )
    rows = session.exec(statement).all()
    return {asset_id: MediaHead(bytes(head or b""), int(length or 0)) for asset_id, head, length in rows}


def files(session: ThreadRead, blob_ids: list[str]) -> dict[str, bytes]:
    """The bytes of these blobs by id."""
    if not blob_ids:
        return {}
    rows = session.exec(select(AssetBlob).where(col(AssetBlob.id).in_(blob_ids)))
    return {blob.id: blob.data for blob in rows.all()}


def _line_rows(session: ThreadRead, project_id: str, with_text: bool) -> list[LineRow]:
    columns = [
        col(DialogueLine.id),
        col(DialogueLine.scene_id),
        col(DialogueLine.position),
        col(DialogueLine.character_id),
        col(DialogueLine.text) if with_text else literal(""),
        col(DialogueLine.condition),
    ]
    return [LineRow(*row) for row in _plain_rows(session, DialogueLine, project_id, columns)]


def _choice_rows(session: ThreadRead, project_id: str) -> list[ChoiceRecord]:
    columns = [
        col(Choice.id),
        col(Choice.project_id),
        col(Choice.scene_id),
        col(Choice.position),
        col(Choice.label),
        col(Choice.target_scene_id),
        col(Choice.condition),
        col(Choice.effects),
    ]
    return [ChoiceRecord(*row) for row in _plain_rows(session, Choice, project_id, columns)]


def _records(
    session: ThreadRead, table: Any, make: Callable[[Sequence[Any]], Record], project_id: str
) -> list[Record]:
    """The project's rows of `table` as records: the driver's values go through the columns' types
    (dates, flags, JSON), but no ORM object is made."""
    statement = sa_select(core_table(table)).where(col(table.project_id) == project_id)
    return [make(row) for row in session.connection().execute(statement)]


_chapter, _scene = record_maker(ChapterRecord, Chapter), record_maker(SceneRecord, Scene)
_character, _asset = record_maker(CharacterRecord, Character), record_maker(AssetRecord, Asset)
_variable = record_maker(VariableRecord, StoryVariable)


def _plain_rows(session: ThreadRead, table: Any, project_id: str, columns: list[Any]) -> list[Any]:
    """The project's rows of `table` as the driver returns them: no ORM objects, and no result rows
    either (SQLAlchemy's own select: sqlmodel's typed one takes at most four columns).

    A long story has tens of thousands of lines, and making a result row of each cost as much again
    as fetching them. Only for columns the driver returns as Python wants them (text and
    numbers here): no result processing runs on this path."""
    statement = sa_select(*columns).where(col(table.project_id) == project_id)
    result = session.connection().execute(statement)
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()


async def is_readable(transaction: Transaction, reader_id: str, project_id: str) -> bool:
    """Whether the reader is a member of the project and it is not deleted, on the event loop."""
    if not isinstance(project_id, str):
        return False
    params = {"project_id": project_id, "member_id": reader_id}
    return (await transaction.exec(_READABLE, params=params)).first() is not None


async def chapter_ids(transaction: Transaction, reader_id: str, project_id: str) -> list[str] | None:
    """The project's chapters in story order (what a room's scope is made of)."""
    if not await is_readable(transaction, reader_id, project_id):
        return None
    statement = select(Chapter.id).where(Chapter.project_id == project_id).order_by(col(Chapter.position))
    return list((await transaction.exec(statement)).all())


_READABLE = (
    select(Project, ProjectMember.role)
    .join(ProjectMember, membership(Project.id))
    .where(col(Project.id) == bindparam("project_id"), col(Project.deleted_at).is_(None))
)
