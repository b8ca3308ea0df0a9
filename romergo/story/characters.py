"""Characters: who speaks. Names are unique within a project; one who still speaks cannot be deleted."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, func, select

from romergo.actors import Actor
from romergo.clock import utcnow
from romergo.config import Limits
from romergo.errors import RomergoError
from romergo.ids import new_id
from romergo.story import snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.based_on import based_on
from storage.tables import Chapter, Character, DialogueLine, Scene

MAX_SCENES_NAMED = 5
PALETTE = ("#c0392b", "#2980b9", "#27ae60", "#8e44ad", "#d35400", "#16a085", "#2c3e50", "#b7950b")


@dataclass(frozen=True)
class CharacterService:
    store: StoryStore
    limits: Limits

    async def add_character(
        self, actor: Actor, project_id: str, name: str, color: str | None = None
    ) -> Character:
        clean = validation.title(name, self.limits, "Character name")
        chosen = None if color is None else validation.color(color)
        async with self.store.write(actor) as tx:
            await tx.project_by_id(project_id)
            await _ensure_unique(tx, project_id, clean, None)
            count = (
                await tx.session.exec(
                    select(func.count()).select_from(Character).where(Character.project_id == project_id)
                )
            ).one()
            now = utcnow()
            character = Character(
                id=new_id("chr"),
                project_id=project_id,
                name=clean,
                color=chosen or PALETTE[count % len(PALETTE)],
                created_at=now,
                updated_at=now,
            )
            tx.session.add(character)
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
    ) -> Character:
        clean = None if name is None else validation.title(name, self.limits, "Character name")
        chosen = None if color is None else validation.color(color)
        async with self.store.write(actor) as tx:
            character = await tx.character(character_id)
            before = snapshots.character(character)
            given = {key: value for key, value in (("name", clean), ("color", chosen)) if value is not None}
            mine = await based_on(tx, "character", character.id, before, given, expected_revision)
            if "name" in mine:
                await _ensure_unique(tx, character.project_id, mine["name"], character.id)
                character.name = mine["name"]
            if "color" in mine:
                character.color = mine["color"]
            tx.save("character", character, before, snapshots.character(character))
        return character

    async def delete_character(self, actor: Actor, character_id: str) -> None:
        """Refused with `conflict`, naming the scenes, while any line is spoken by the character."""
        async with self.store.write(actor) as tx:
            character = await tx.character(character_id)
            scenes = await _scenes_where_speaking(tx, character.id)
            if scenes:
                shown = ", ".join(f'"{title}"' for title in scenes[:MAX_SCENES_NAMED])
                more = f" and {len(scenes) - MAX_SCENES_NAMED} more" if len(scenes) > MAX_SCENES_NAMED else ""
                raise RomergoError(
                    "conflict",
                    f'"{character.name}" still speaks in {shown}{more}: give those lines to another '
                    "speaker or make them narration first.",
                )
            before = snapshots.character(character)
            await tx.session.delete(character)
            tx.record("character", character.id, "deleted", before, None)


async def _scenes_where_speaking(tx: Mutation, character_id: str) -> list[str]:
    # In story order: chapter by chapter, scene by scene.
    statement = (
        select(Scene.title)
        .join(DialogueLine, col(DialogueLine.scene_id) == Scene.id)
        .join(Chapter, col(Chapter.id) == Scene.chapter_id)
        .where(DialogueLine.character_id == character_id)
        .group_by(col(Scene.id), col(Scene.title), col(Chapter.position), col(Scene.position))
        .order_by(col(Chapter.position), col(Scene.position))
    )
    return list((await tx.session.exec(statement)).all())


async def _ensure_unique(tx: Mutation, project_id: str, name: str, own_id: str | None) -> None:
    statement = select(Character).where(Character.project_id == project_id)
    for other in (await tx.session.exec(statement)).all():
        if other.id != own_id and other.name.casefold() == name.casefold():
            raise RomergoError(
                "conflict", f'A character named "{other.name}" already exists in this project.'
            )
