"""Characters: who speaks. Names are unique within a project; one who still speaks cannot be deleted."""

from __future__ import annotations

from dataclasses import dataclass, replace

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import RomergoError
from romergo.common.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.based_on import based_on
from romergo.story.ledger import CharacterRecord

MAX_SCENES_NAMED = 5
PALETTE = ("#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#2c3e50", "#b7950b")


@dataclass(frozen=True)
class CharacterService:
    store: StoryStore
    limits: Limits

    async def add_character(
        self, actor: Actor, project_id: str, name: str, color: str | None = None
    ) -> CharacterRecord:
        clean = validation.title(name, self.limits, "Character name")
        chosen = None if color is None else validation.color(color)
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            await _ensure_unique(tx, project_id, clean, None)
            count = await tx.story.count_characters(project_id)
            now = utcnow()
            character = CharacterRecord(
                id=new_id("chr"),
                project_id=project_id,
                name=clean,
                color=chosen or PALETTE[count % len(PALETTE)],
                created_at=now,
                updated_at=now,
            )
            await tx.story.add_character(character)
            tx.record("character", character.id, "created", None, snapshots.character(character))
        return character

    async def update_character(
        self,
        actor: Actor,
        character_id: str,
        name: str | None = None,
        color: str | None = None,
        *,
        expected_revision: int | None = None,
    ) -> CharacterRecord:
        clean = None if name is None else validation.title(name, self.limits, "Character name")
        chosen = None if color is None else validation.color(color)
        async with self.store.write(actor) as tx:
            character = await tx.character(character_id)
            before = snapshots.character(character)
            given = {key: value for key, value in (("name", clean), ("color", chosen)) if value is not None}
            mine = await based_on(tx, "character", character.id, before, given, expected_revision)
            if "name" in mine:
                await _ensure_unique(tx, character.project_id, mine["name"], character.id)
            changed = replace(character, **mine, updated_at=utcnow())
            if tx.changed("character", character.id, before, snapshots.character(changed)):
                await tx.story.save_character(changed)
                character = changed
        return character

    async def delete_character(self, actor: Actor, character_id: str) -> None:
        """Refused with `conflict`, naming the scenes, while any line is spoken by the character."""
        async with self.store.write(actor) as tx:
            character = await tx.character(character_id)
            scenes = await tx.story.scenes_where_speaking(character.id)
            if scenes:
                shown = ", ".join(f'"{title}"' for title in scenes[:MAX_SCENES_NAMED])
                more = f" and {len(scenes) - MAX_SCENES_NAMED} more" if len(scenes) > MAX_SCENES_NAMED else ""
                raise RomergoError(
                    "conflict",
                    f'"{character.name}" still speaks in {shown}{more}: give those lines to another '
                    "speaker or make them narration first.",
                )
            await tx.story.remove_character(character.id)
            tx.record("character", character.id, "deleted", snapshots.character(character), None)


async def _ensure_unique(tx: Mutation, project_id: str, name: str, own_id: str | None) -> None:
    for other in await tx.story.characters(project_id):
        if other.id != own_id and other.name.casefold() == name.casefold():
            raise RomergoError(
                "conflict", f'A character named "{other.name}" already exists in this project.'
            )
