"""Dialogue lines: spoken by a character of the project, or narration (no character)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.based_on import based_on
from romergo.story.ledger import LineRecord
from romergo.story.positions import moved, placed, renumbered
from romergo.story.state.variables import checked_condition, declared


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()
"""For `update_line(character_id=...)`: keep the speaker. None turns the line into narration."""


@dataclass(frozen=True)
class LineService:
    store: StoryStore
    limits: Limits

    async def add_line(
        self,
        actor: Actor,
        scene_id: str,
        text: str,
        character_id: str | None = None,
        position: int | None = None,
        condition: str | None = None,
    ) -> LineRecord:
        """`condition`: the line shows only when it holds."""
        clean = validation.line_text(text, self.limits)
        position = validation.position(position)
        async with self.store.write(actor) as tx:
            scene = await tx.scene(scene_id)
            speaker = await _speaker(tx, character_id)
            shown_when = checked_condition(
                condition, await declared(tx, scene.project_id), "The line's condition"
            )
            siblings = await tx.story.lines_of(scene.id)
            now = utcnow()
            new = LineRecord(
                id=new_id("lin"),
                project_id=scene.project_id,
                scene_id=scene.id,
                position=0,
                character_id=speaker,
                text=clean,
                condition=shown_when,
                created_at=now,
                updated_at=now,
            )
            in_order = placed(siblings, new, position)
            line = next(record for record in in_order if record.id == new.id)
            await tx.story.add_line(line)
            await _save_positions(tx, siblings, [r for r in in_order if r.id != line.id])
            tx.record("dialogue_line", line.id, "created", None, snapshots.line(line))
        return line

    async def update_line(
        self,
        actor: Actor,
        line_id: str,
        text: str | None = None,
        character_id: str | _Unchanged | None = UNCHANGED,
        condition: str | None = None,
        *,
        expected_revision: int | None = None,
    ) -> LineRecord:
        """Only given fields change; `condition=""` clears the line's condition. With
        `expected_revision`, merged with what changed since (`romergo.story.based_on`)."""
        clean = None if text is None else validation.line_text(text, self.limits)
        async with self.store.write(actor) as tx:
            line = await tx.line(line_id)
            before = snapshots.line(line)
            mine: dict[str, object] = {}
            if clean is not None:
                mine["text"] = clean
            if condition is not None:
                types = await declared(tx, line.project_id)
                mine["condition"] = checked_condition(condition, types, "The line's condition")
            if not isinstance(character_id, _Unchanged):
                mine["character_id"] = await _speaker(tx, character_id)
            merged = await based_on(tx, "dialogue_line", line.id, before, mine, expected_revision)
            changed = replace(line, **merged, updated_at=utcnow())
            if tx.changed("dialogue_line", line.id, before, snapshots.line(changed)):
                await tx.story.save_line(changed)
                line = changed
        return line

    async def move_line(self, actor: Actor, line_id: str, position: int) -> LineRecord:
        new_position = validation.position(position)
        async with self.store.write(actor) as tx:
            line = await tx.line(line_id)
            siblings = await tx.story.lines_of(line.scene_id)
            in_order = placed(siblings, line, new_position)
            # A move is not an edit of the line: its `updated_at` stays.
            now = next(record for record in in_order if record.id == line.id)
            tx.changed("dialogue_line", line.id, snapshots.line(line), snapshots.line(now), "moved")
            await _save_positions(tx, siblings, in_order)
        return now

    async def delete_line(self, actor: Actor, line_id: str) -> None:
        async with self.store.write(actor) as tx:
            line = await tx.line(line_id)
            siblings = await tx.story.lines_of(line.scene_id)
            await tx.story.remove_line(line.id)
            await _save_positions(tx, siblings, renumbered([r for r in siblings if r.id != line.id]))
            tx.record("dialogue_line", line.id, "deleted", snapshots.line(line), None)


async def _save_positions(tx: Mutation, before: list[LineRecord], after: list[LineRecord]) -> None:
    """The lines whose place changed take their new one (a renumbering is no change of theirs)."""
    for record in moved(before, after):
        await tx.story.save_line(record)


async def _speaker(tx: Mutation, character_id: str | None) -> str | None:
    if character_id is None:
        return None
    return (await tx.character(character_id)).id
