"""What undo, restore and an import need of the story ledger's transaction, beside its per-kind
reads and writes (`ledger.StoryTransaction`, which has both; storage: `storage.story.restoring`
and `storage.story.imports`).

Undo and restore name any kind of entity by its type ("scene", as `romergo.story.kinds` lists
them) and read the revisions of a change set and of what came after it; an import writes a new
story's many rows at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from storage.story.records import ChoiceRecord, RevisionRecord, SceneRecord


class RestoringReads(Protocol):
    async def entity(self, entity_type: str, entity_id: str) -> Any | None:
        """The record of an entity of any kind (an asset deleted or not); None when there is none."""
        ...

    async def save_entity(self, entity_type: str, record: Any) -> None:
        """The entity takes the record's values."""
        ...

    async def lying_in(self, entity_type: str, parent_column: str, parent_id: str) -> list[Any]:
        """The records of `entity_type` whose `parent_column` names `parent_id`, in order of
        position where the kind has one."""
        ...

    async def change_set(self, kind: str, ident: str) -> list[RevisionRecord]:
        """The revisions of one command (`kind` "command") or of one write ("batch"), oldest first."""
        ...

    async def reverted_by(self, change_set: str) -> str | None:
        """The batch of the newest revision that takes back `change_set` (`command:<id>` or
        `batch:<id>`); None when nothing does."""
        ...

    async def changes_after(
        self, project_id: str, entity_type: str, entity_id: str, revision_id: int
    ) -> list[RevisionRecord]:
        """The entity's revisions newer than `revision_id`, oldest first."""


class StoryImports(Protocol):
    async def add_scenes(self, records: Sequence[SceneRecord]) -> None:
        """Scenes written at once, as `add_scene` writes one: into chapters already written."""
        ...

    async def add_choices(self, records: Sequence[ChoiceRecord]) -> None:
        """Choices written at once, of scenes already written."""
        ...
