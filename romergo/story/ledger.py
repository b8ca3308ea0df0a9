"""What the story needs from a database: the story ledger.

Its reads name their reader: a read of something that lies in a project the reader is not a member
of, or that is deleted, finds nothing (None), as a missing one does, and the caller answers
`not_found` in the same words for all three. Its transaction (`StoryTransaction`) is the reads and
writes of one unit of work, in records; the unit of work (`romergo.story.base`) keeps the rules.
The implementation lives in `storage.story`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from romergo.story.membership_ledger import MembershipTransaction
from romergo.story.restoring_ledger import RestoringReads, StoryImports
from storage.story.records import (
    AssetRecord,
    ChapterRecord,
    ChapterRows,
    CharacterRecord,
    ChoiceRecord,
    CommandRecord,
    HeldProject,
    HistoryQuery,
    HistoryRows,
    LastChangeRecord,
    LineRecord,
    MediaHead,
    MemberRecord,
    NamedMember,
    ProjectOwner,
    ProjectRecord,
    ProjectRows,
    RevisionRecord,
    SceneRecord,
    SceneRows,
    SpokenLine,
    VariableMentions,
    VariableRecord,
)
from storage.story.transaction import Transaction

__all__ = [
    "AssetRecord",
    "ChapterRecord",
    "ChapterRows",
    "CharacterRecord",
    "ChoiceRecord",
    "CommandRecord",
    "HeldProject",
    "HistoryQuery",
    "HistoryRows",
    "LastChangeRecord",
    "LineRecord",
    "MediaHead",
    "MemberRecord",
    "NamedMember",
    "ProjectOwner",
    "ProjectRecord",
    "ProjectRows",
    "RevisionRecord",
    "SceneRecord",
    "SceneRows",
    "SpokenLine",
    "StoryLedger",
    "StoryTransaction",
    "VariableMentions",
    "VariableRecord",
]


class StoryLedger(Protocol):
    def within(self, transaction: Transaction) -> StoryTransaction:
        """The reads and writes of the unit of work that holds `transaction`."""
        ...

    async def owner_of(self, entity_type: str, entity_id: str, member_id: str) -> ProjectOwner | None:
        """The project an entity of `entity_type` lies in, whoever owns it, with the role of
        `member_id` in it, in one statement (the call guard's question)."""
        ...

    async def scene(self, reader_id: str, scene_id: str) -> SceneRows | None:
        """A scene with all it shows, in one snapshot."""
        ...

    async def chapter(self, reader_id: str, chapter_id: str) -> ChapterRows | None:
        """A chapter with its scenes in order, in one snapshot."""
        ...

    async def whole_project(
        self, reader_id: str, project_id: str, *, shape_only: bool = False, with_text: bool = True
    ) -> ProjectRows | None:
        """The whole project in one statement per table, off the event loop where the database
        allows. `shape_only`: without lines, choices and variables; `with_text=False`: every
        line with its text left empty."""
        ...

    async def project_with_media(
        self, reader_id: str, project_id: str
    ) -> tuple[ProjectRows, dict[str, MediaHead]] | None:
        """The whole project (lines without their text) and each live asset's first bytes."""
        ...

    async def project_with_files(
        self, reader_id: str, project_id: str
    ) -> tuple[ProjectRows, dict[str, bytes]] | None:
        """The whole project and its live assets' bytes by blob id, in one read (an export)."""
        ...

    async def chapter_ids(self, reader_id: str, project_id: str) -> list[str] | None:
        """The project's chapters in story order."""
        ...

    async def project_with_revisions(
        self,
        reader_id: str,
        project_id: str,
        types: Collection[str],
        *,
        shape_only: bool = False,
        with_text: bool = True,
    ) -> tuple[dict[str, int], ProjectRows] | None:
        """The newest revisions of the project's entities of these types, then the whole project
        (`whole_project`), in one read off the event loop where the database allows: what a read
        that hands on revisions with what it shows (the outline, a search) needs."""
        ...

    async def latest_revisions(
        self, reader_id: str, project_id: str, types: Collection[str], ids: Collection[str] | None = None
    ) -> dict[str, int] | None:
        """The newest revision of each entity of these types (of `ids`, or all), by id; an entity
        never changed is missing."""
        ...

    async def history(self, reader_id: str, project_id: str, query: HistoryQuery) -> HistoryRows | None:
        """A page of the project's history with what names its entries, in one read."""
        ...

    async def command_changes(
        self, reader_id: str, command_id: str, named: Sequence[tuple[str, str]]
    ) -> tuple[list[RevisionRecord], dict[str, str]]:
        """What a command changed, oldest first, and the titles of its project's entities of the
        `named` (entity type, title field) pairs; nothing for a command outside the reader's projects."""
        ...

    async def titles(
        self,
        reader_id: str,
        project_id: str,
        named: Sequence[tuple[str, str]],
        wanted: Collection[str] | None = None,
        *,
        with_lines: bool = False,
    ) -> tuple[dict[str, str], dict[str, SpokenLine]] | None:
        """The titles of the project's entities of the `named` (entity type, title field) pairs by id
        (of `wanted` only, if given); `with_lines`: also each wanted line's text and speaker."""
        ...

    async def last_change(self, project_id: str, entity_type: str, entity_id: str) -> LastChangeRecord | None:
        """The newest change of one entity; None when it never changed (whoever owns the project:
        the caller asks `owner_of` first)."""
        ...

    async def published_story(self, share_id: str) -> dict[str, Any] | None:
        """The public copy behind a share link (`StoryTransaction.published_story`), read on
        behalf of nobody."""
        ...

    async def asset_file(self, asset_id: str) -> tuple[AssetRecord, bytes] | None:
        """An asset, deleted or not, with its bytes, in one read on behalf of nobody: the caller
        says which a share link may show."""
        ...

    async def remember_reads(self, client_id: str, marks: Mapping[str, int]) -> None:
        """Store the revisions an agent saw, in a write of their own, never moving a mark back."""
        ...


class StoryTransaction(MembershipTransaction, RestoringReads, StoryImports, Protocol):
    """One unit of work's reads and writes, in records. Nothing here checks who asks: the unit of
    work checks the asker's role (`romergo.story.roles`) on what it reads, and records the
    revisions of what it writes. Members and invitations: `MembershipTransaction`."""

    # What the unit of work itself reads and writes around a service's changes
    async def project_holding(self, entity_type: str, entity_id: str, member_id: str) -> HeldProject | None:
        """The project the entity lies in (a project is its own), whoever owns it, with the role of
        `member_id` in it (None when there is no such entity), read with the entity in one
        statement: reading the entity's record next reads nothing."""
        ...

    async def touch_project(self, project_id: str, at: datetime) -> ProjectRecord:
        """The project stamped as changed `at`, as it now is."""
        ...

    async def write_revisions(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Revisions (their columns, as the unit of work makes them) in one statement, their
        numbers in the order given."""
        ...

    async def latest_revisions(
        self, project_id: str, types: Collection[str], ids: Collection[str] | None = None
    ) -> dict[str, int]:
        """The newest revision of each entity of these types (of `ids`, or all), by id, as this
        transaction sees them; an entity never changed is missing."""
        ...

    async def newest_revision(
        self, project_id: str, entity_type: str, entity_id: str
    ) -> RevisionRecord | None:
        """The entity's newest change; None when it never changed."""
        ...

    async def snapshot_at(
        self, project_id: str, entity_type: str, entity_id: str, revision: int
    ) -> dict[str, Any] | None:
        """The entity as it was at `revision`: the `before` of its first later change (None when
        there is none, or when the entity did not exist then)."""
        ...

    async def mark_and_newest(
        self, client_id: str, project_id: str, entity_type: str, entity_id: str
    ) -> tuple[int | None, int | None]:
        """The revision of the entity the agent's read mark holds, and the entity's newest, in
        one statement (None for either that is not there)."""
        ...

    async def insert_rows(self, entity_type: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """New entities of `entity_type` (their columns) in one statement."""
        ...

    async def update_rows(self, entity_type: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Entities of `entity_type` changed in one statement: each row names its "id" and sets
        the same columns as the first."""
        ...

    # Characters and variables

    async def character(self, character_id: str) -> CharacterRecord | None: ...
    async def characters(self, project_id: str) -> list[CharacterRecord]: ...
    async def count_characters(self, project_id: str) -> int: ...
    async def scenes_where_speaking(self, character_id: str) -> list[str]:
        """The titles of the scenes where the character speaks, in story order."""
        ...

    async def add_character(self, record: CharacterRecord) -> None: ...
    async def save_character(self, record: CharacterRecord) -> None: ...
    async def remove_character(self, character_id: str) -> None: ...
    async def variable(self, variable_id: str) -> VariableRecord | None: ...
    async def variables(self, project_id: str) -> list[VariableRecord]: ...
    async def add_variable(self, record: VariableRecord) -> None: ...
    async def save_variable(self, record: VariableRecord) -> None: ...
    async def remove_variable(self, variable_id: str) -> None: ...
    async def variable_mentions(self, project_id: str, name: str) -> VariableMentions:
        """The scenes, lines and choices whose expressions contain `name` anywhere."""
        ...

    async def scene(self, scene_id: str) -> SceneRecord | None: ...
    async def choices_of(self, scene_id: str) -> list[ChoiceRecord]:
        """The scene's choices in order."""
        ...

    async def save_scene(self, record: SceneRecord) -> None: ...
    async def save_line(self, record: LineRecord) -> None: ...
    async def save_choice(self, record: ChoiceRecord) -> None: ...

    # Lines, scenes, choices, chapters
    async def line(self, line_id: str) -> LineRecord | None: ...
    async def lines_of(self, scene_id: str) -> list[LineRecord]:
        """The scene's lines in order."""
        ...

    async def add_line(self, record: LineRecord) -> None: ...
    async def remove_line(self, line_id: str) -> None: ...
    async def has_scenes(self, project_id: str) -> bool: ...
    async def start_scenes(self, project_id: str) -> list[SceneRecord]:
        """The project's scenes marked as its start (one, unless something went wrong)."""
        ...

    async def add_scene(self, record: SceneRecord) -> None: ...
    async def add_choice(self, record: ChoiceRecord) -> None: ...
    async def remove_choice(self, choice_id: str) -> None: ...
    async def scenes_of(self, chapter_id: str) -> list[SceneRecord]:
        """The chapter's scenes in order."""
        ...

    async def remove_scene(self, scene_id: str) -> None:
        """The scene with its lines and choices."""
        ...

    async def chapter(self, chapter_id: str) -> ChapterRecord | None: ...
    async def chapters_of(self, project_id: str) -> list[ChapterRecord]:
        """The project's chapters in order."""
        ...

    async def add_chapter(self, record: ChapterRecord) -> None: ...
    async def save_chapter(self, record: ChapterRecord) -> None: ...
    async def chapters_where_speaking(self, character_id: str) -> set[str]:
        """The chapters where the character speaks a line."""
        ...

    async def chapters_using(self, project_id: str, asset_id: str) -> set[str]:
        """The chapters whose media slots, or whose scenes' slots, hold the asset."""
        ...

    async def remove_chapter(self, chapter_id: str) -> None:
        """The chapter alone, once its scenes are removed."""
        ...

    # Projects, publishing, assets, copies
    async def project(self, project_id: str) -> ProjectRecord | None: ...
    async def projects_of(self, member_id: str) -> list[HeldProject]:
        """The projects `member_id` is a member of, with their role, but the deleted ones, the
        latest changed first."""
        ...

    async def add_project(self, record: ProjectRecord) -> None:
        """The project written with its owner as its one member (role "owner")."""
        ...

    async def save_project(self, record: ProjectRecord) -> None: ...
    async def whole_project(self, project_id: str, *, shape_only: bool, with_text: bool) -> ProjectRows:
        """The whole project this transaction has read (`StoryLedger.whole_project` says what the
        flags leave out), as the transaction sees it."""
        ...

    async def put_published_story(self, project_id: str, snapshot: dict[str, Any] | None) -> None:
        """The project's public copy becomes `snapshot`; None takes it down."""
        ...

    async def published_story(self, share_id: str) -> dict[str, Any] | None:
        """The public copy behind a share link of a published, live project; None when there is none."""
        ...

    async def asset(self, asset_id: str) -> AssetRecord | None:
        """The asset, deleted or not."""
        ...

    async def live_assets(self, project_id: str, kind: str | None = None) -> list[AssetRecord]:
        """The project's assets but the deleted ones (of `kind`, if given), by name."""
        ...

    async def asset_bytes(self, blob_id: str) -> bytes | None: ...
    async def add_asset(self, record: AssetRecord, data: bytes) -> None: ...
    async def save_asset(self, record: AssetRecord) -> None: ...
    async def scenes_using_asset(self, project_id: str, asset_id: str) -> list[SceneRecord]:
        """The project's scenes whose own slots name the asset."""
        ...

    async def chapters_using_asset(self, project_id: str, asset_id: str) -> list[ChapterRecord]:
        """The project's chapters whose own slots name the asset."""
        ...
