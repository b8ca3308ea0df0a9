"""A new story's scenes and choices, many at once (an import): multi-row statements of the records'
values. An ORM entity for each of a long story's 2,000 scenes and ~4,000 choices cost more than
writing them; these rows are not in the session's identity map, and nothing of the import reads
them back before it commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Table, insert

from storage.core_tables import CHOICES, core_table
from storage.records import DataclassInstance, columns_of
from storage.story.records import ChoiceRecord, SceneRecord
from storage.story.transaction import Transaction
from storage.tables import Scene

SCENES = core_table(Scene)


class StoryImports:
    """The story ledger transaction's writes of many new rows (`SessionStoryTransaction`'s)."""

    session: Transaction

    async def add_scenes(self, records: Sequence[SceneRecord]) -> None:
        """Written at once, as `add_scene` writes one (their chapters are: `add_chapter`)."""
        await self._inserted(SCENES, records)

    async def add_choices(self, records: Sequence[ChoiceRecord]) -> None:
        """Written at once (their scenes are: `add_scenes`, `add_scene`)."""
        await self._inserted(CHOICES, records)

    async def _inserted(self, table: Table, records: Sequence[DataclassInstance]) -> None:
        if records:
            await self.session.exec(insert(table), params=[columns_of(record) for record in records])
