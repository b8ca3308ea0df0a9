"""Entity → plain dict: what a Revision stores as before/after and what undo restores.

The fields come from the entity shapes (`romergo.story.shapes`), so a revision, a tool result and the
row agree on every name. Stored revisions keep reading: the keys are the ones they always had.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from romergo.story.ledger import (
    AssetRecord,
    ChapterRecord,
    CharacterRecord,
    ChoiceRecord,
    LineRecord,
    ProjectRecord,
    SceneRecord,
    VariableRecord,
)
from romergo.story.records import LineRow
from romergo.story.shapes import (
    AssetSnapshot,
    ChapterEntity,
    CharacterEntity,
    ChoiceEntity,
    LineEntity,
    ProjectSnapshot,
    SceneSnapshot,
    VariableEntity,
    snapshot,
)


def project(row: ProjectRecord) -> dict[str, Any]:
    return snapshot(ProjectSnapshot.model_validate(row))


def chapter(row: ChapterRecord) -> dict[str, Any]:
    return snapshot(ChapterEntity.model_validate(row))


def scene(row: SceneRecord, choices: Sequence[ChoiceRecord] | None = None) -> dict[str, Any]:
    """The scene; with `choices`, its choices too (they change and are undone with the scene)."""
    data = snapshot(SceneSnapshot.model_validate(row))
    if choices is not None:
        data["choices"] = [choice(c) for c in choices]
    return data


def choice(row: ChoiceRecord) -> dict[str, Any]:
    return snapshot(ChoiceEntity.model_validate(row))


def line(row: LineRecord | LineRow | Mapping[str, Any]) -> dict[str, Any]:
    """A line as an entity, as a whole-project read holds it (a replace across a long story), or
    as the column values of a row written without an entity (an import's)."""
    return snapshot(LineEntity.model_validate(row))


def character(row: CharacterRecord) -> dict[str, Any]:
    return snapshot(CharacterEntity.model_validate(row))


def asset(row: AssetRecord) -> dict[str, Any]:
    return snapshot(AssetSnapshot.model_validate(row))


def variable(row: VariableRecord) -> dict[str, Any]:
    return snapshot(VariableEntity.model_validate(row))
