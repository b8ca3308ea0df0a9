"""The story ledger on a database (`romergo.story.ledger.StoryLedger`): the same statements on
SQLite and PostgreSQL, each read one read of the database's. The core names the story's entities
by their type ("scene", "character"); which table holds each is this package's (`entity_tables`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from storage.database import Database
from storage.story import history, owners, projects, revisions
from storage.story.chapter_rows import chapter_rows
from storage.story.read_marks import store_marks
from storage.story.records import (
    AssetRecord,
    ChapterRows,
    HistoryQuery,
    HistoryRows,
    LastChangeRecord,
    MediaHead,
    ProjectOwner,
    ProjectRows,
    RevisionRecord,
    SceneRows,
    SpokenLine,
)
from storage.story.scene_rows import scene_rows
from storage.story.transaction import ThreadRead, Transaction
from storage.story.writes import SessionStoryTransaction


class DatabaseStoryLedger:
    def __init__(self, db: Database) -> None:
        self.db = db

    def within(self, transaction: Transaction) -> SessionStoryTransaction:
        return SessionStoryTransaction(transaction)

    async def owner_of(self, entity_type: str, entity_id: str, member_id: str) -> ProjectOwner | None:
        return await owners.owner_of(self.db, entity_type, entity_id, member_id)

    async def scene(self, reader_id: str, scene_id: str) -> SceneRows | None:
        return await scene_rows(self.db, reader_id, scene_id)

    async def chapter(self, reader_id: str, chapter_id: str) -> ChapterRows | None:
        return await chapter_rows(self.db, reader_id, chapter_id)

    async def whole_project(
        self, reader_id: str, project_id: str, *, shape_only: bool = False, with_text: bool = True
    ) -> ProjectRows | None:
        # Off the event loop where the database allows: on the loop, a long story's read held
        # every other call for ~0.1 s (`Database.read_in_thread`).
        def read(session: ThreadRead) -> ProjectRows | None:
            found = projects.readable_project(session, reader_id, project_id)
            return (
                None
                if found is None
                else projects.project_rows(session, found[0], shape_only, with_text, found[1])
            )

        return await self.db.read_in_thread(read)

    async def project_with_media(
        self, reader_id: str, project_id: str
    ) -> tuple[ProjectRows, dict[str, MediaHead]] | None:
        def read(session: ThreadRead) -> tuple[ProjectRows, dict[str, MediaHead]] | None:
            found = projects.readable_project(session, reader_id, project_id)
            if found is None:
                return None
            project = found[0]
            rows = projects.project_rows(session, project, shape_only=False, with_text=False, role=found[1])
            return rows, projects.media_heads(session, project.id)

        return await self.db.read_in_thread(read)

    async def project_with_files(
        self, reader_id: str, project_id: str
    ) -> tuple[ProjectRows, dict[str, bytes]] | None:
        def read(session: ThreadRead) -> tuple[ProjectRows, dict[str, bytes]] | None:
            found = projects.readable_project(session, reader_id, project_id)
            if found is None:
                return None
            project = found[0]
            rows = projects.project_rows(session, project, shape_only=False, with_text=True, role=found[1])
            return rows, projects.files(session, [asset.blob_id for asset in rows.assets])

        return await self.db.read_in_thread(read)

    async def chapter_ids(self, reader_id: str, project_id: str) -> list[str] | None:
        async with self.db.read() as session:
            return await projects.chapter_ids(session, reader_id, project_id)

    async def project_with_revisions(
        self,
        reader_id: str,
        project_id: str,
        types: Collection[str],
        *,
        shape_only: bool = False,
        with_text: bool = True,
    ) -> tuple[dict[str, int], ProjectRows] | None:
        def read(session: ThreadRead) -> tuple[dict[str, int], ProjectRows] | None:
            readable = projects.readable_project(session, reader_id, project_id)
            if readable is None:
                return None
            # The revisions before the rows: `newest_revisions` says why.
            found = revisions.newest_revisions_in(session, project_id, types)
            project, role = readable
            return found, projects.project_rows(session, project, shape_only, with_text, role=role)

        return await self.db.read_in_thread(read)

    async def latest_revisions(
        self, reader_id: str, project_id: str, types: Collection[str], ids: Collection[str] | None = None
    ) -> dict[str, int] | None:
        async with self.db.read() as session:
            if not await projects.is_readable(session, reader_id, project_id):
                return None
            return await revisions.newest_revisions(session, project_id, types, ids)

    async def history(self, reader_id: str, project_id: str, query: HistoryQuery) -> HistoryRows | None:
        return await history.history_page(self.db, reader_id, project_id, query)

    async def command_changes(
        self, reader_id: str, command_id: str, named: Sequence[tuple[str, str]]
    ) -> tuple[list[RevisionRecord], dict[str, str]]:
        return await history.command_changes(self.db, reader_id, command_id, named)

    async def titles(
        self,
        reader_id: str,
        project_id: str,
        named: Sequence[tuple[str, str]],
        wanted: Collection[str] | None = None,
        *,
        with_lines: bool = False,
    ) -> tuple[dict[str, str], dict[str, SpokenLine]] | None:
        return await history.titles(self.db, reader_id, project_id, named, wanted, with_lines)

    async def last_change(self, project_id: str, entity_type: str, entity_id: str) -> LastChangeRecord | None:
        return await history.last_change(self.db, project_id, entity_type, entity_id)

    async def published_story(self, share_id: str) -> dict[str, Any] | None:
        async with self.db.read() as session:
            return await SessionStoryTransaction(session).published_story(share_id)

    async def asset_file(self, asset_id: str) -> tuple[AssetRecord, bytes] | None:
        async with self.db.read() as session:
            story = SessionStoryTransaction(session)
            asset = await story.asset(asset_id)
            data = None if asset is None else await story.asset_bytes(asset.blob_id)
            return None if asset is None or data is None else (asset, data)

    async def remember_reads(self, client_id: str, marks: Mapping[str, int]) -> None:
        if marks:
            async with self.db.write() as session:
                await store_marks(self.db, session, client_id, marks)
