"""Find and replace across a project: scene and chapter titles, dialogue, choice labels, character names.

Results are grouped by scene in story order (chapter by chapter); chapter titles and character
names, which belong to no scene, come after as "elsewhere". A replace works on what the story
holds when it runs, computes every new text first and
refuses the whole replace, naming the entity, if one would break a rule (an empty title, a
duplicate character name, a line over the limit); otherwise it is one write, so one revision set
that Ctrl+Z or the history's undo takes back as a whole. Given the revisions its search saw
(`SearchResults.revisions`), a replace changes only texts whose entity is still at that revision
(a choice's label is its scene's): a text changed since, or not shown by the search, is skipped and
reported (`Replaced.skipped`), not replaced blindly.

The query is checked in the server (`patterns.checked_query`) and then compiled and run in a worker
process (`PatternWorkers`), never on the event loop. A replace matches before it opens its write,
so a slow pattern never holds other writers back; inside the write it matches again only the
texts that changed in between.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as copied
from typing import Any, Literal

from romergo.common.actors import Actor
from romergo.common.clock import utcnow
from romergo.common.config import Limits
from romergo.common.errors import RomergoError, invalid
from romergo.story import bulk, snapshots, validation
from romergo.story.base import Mutation, StoryStore
from romergo.story.bulk import BulkUpdate
from romergo.story.ledger import SceneRecord
from romergo.story.pattern_workers import PatternWorkers
from romergo.story.patterns import SearchQuery, checked_query, checked_replacement
from romergo.story.read_marks import note_read
from romergo.story.reads import load_project, project_data_of, read_with_revisions, whole_project
from romergo.story.views import ProjectData

SearchField = Literal["scene_title", "line", "choice_label", "chapter_title", "character_name"]
FIELDS: tuple[SearchField, ...] = ("scene_title", "line", "choice_label", "chapter_title", "character_name")
MAX_HITS = 1000
OWNER_TYPES = ("scene", "dialogue_line", "chapter", "character")


@dataclass(frozen=True)
class Hit:
    """One text that matches: where it lives and where in it the query matched."""

    field: SearchField
    entity_id: str
    """The scene, line, choice, chapter or character holding the text."""
    text: str
    spans: tuple[tuple[int, int], ...]
    speaker: str | None = None
    """For a line: who says it (None for narration)."""


@dataclass(frozen=True)
class Text:
    """One text a search looks at: where it lives, and who says it for a line."""

    field: SearchField
    entity_id: str
    text: str
    speaker: str | None = None
    owner: str = ""
    """The entity whose revision covers the text: the text's own, or a choice's scene."""


@dataclass(frozen=True)
class SceneHits:
    scene_id: str
    title: str
    chapter_id: str
    chapter_title: str
    hits: list[Hit]


@dataclass(frozen=True)
class SearchResults:
    scenes: list[SceneHits]
    elsewhere: list[Hit]
    """Chapter titles and character names."""
    matches: int
    """Every match in the project, also those past `MAX_HITS` texts."""
    texts: int
    """How many texts match; `truncated` when more than were returned."""
    truncated: bool = False
    revisions: dict[str, int] = field(default_factory=dict)
    """What the search saw: the revision of each returned hit's entity (a choice's: its scene's),
    by id. Give it to `replace` so that it changes nothing edited since."""


@dataclass(frozen=True)
class Target:
    """One text to replace in ("Replace" on one result); a replace without targets does them all."""

    field: SearchField
    entity_id: str


@dataclass(frozen=True)
class Replaced:
    texts: int
    matches: int
    batch_id: str | None
    """The write's change set (`batch:<id>` undoes it); None when nothing matched."""
    changed: list[Target] = field(default_factory=list)
    skipped: list[Target] = field(default_factory=list)
    """Matching texts left alone: changed since the search that was given, or not shown by it."""


@dataclass(frozen=True)
class StorySearch:
    store: StoryStore
    limits: Limits
    patterns: PatternWorkers

    async def search(
        self, actor: Actor, project_id: str, query: SearchQuery, fields: Iterable[SearchField] = FIELDS
    ) -> SearchResults:
        query = checked_query(query)
        wanted = _fields(fields)
        revisions, rows = await read_with_revisions(self.store.ledger, actor, project_id, OWNER_TYPES)
        data = project_data_of(rows)
        texts = [text for text in _texts(data, actor.reach) if text.field in wanted]
        found = await self.patterns.spans(query, [text.text for text in texts])
        hits = [
            (Hit(text.field, text.entity_id, text.text, tuple(spans), text.speaker), text.owner)
            for text, spans in zip(texts, found, strict=True)
            if spans
        ]
        results = _results(data, [hit for hit, _ in hits])
        shown = {owner for _, owner in hits[:MAX_HITS]}
        return copied(results, revisions={owner: revisions.get(owner, 0) for owner in shown})

    async def replace(
        self,
        actor: Actor,
        project_id: str,
        query: SearchQuery,
        replacement: str,
        fields: Iterable[SearchField] = FIELDS,
        only: Sequence[Target] | None = None,
        seen: Mapping[str, int] | None = None,
    ) -> Replaced:
        """`only` some of the texts; with `seen` (`SearchResults.revisions`), only texts unchanged
        since that search."""
        query = checked_query(query)
        replacement = checked_replacement(replacement)
        wanted = _fields(fields)
        chosen = None if only is None else {(t.field, t.entity_id) for t in only}

        def targets(data: ProjectData) -> list[Text]:
            return [
                text
                for text in _texts(data, actor.reach)
                if text.field in wanted and (chosen is None or (text.field, text.entity_id) in chosen)
            ]

        longest = max(self.limits.max_line_chars, self.limits.max_title_chars)
        before = targets(await whole_project(self.store, actor, project_id))
        replaced = await self.patterns.replaced(query, replacement, [text.text for text in before], longest)
        async with self.store.write(actor) as tx:
            data = await load_project(tx, project_id)
            current = targets(data)
            looked_at = {text.text for text in before}
            changed_since = [text.text for text in current if text.text not in looked_at]
            if changed_since:
                replaced.update(await self.patterns.replaced(query, replacement, changed_since, longest))
            skipped: list[Text] = []
            if seen is not None:
                current, skipped = await _unchanged_since(tx, project_id, current, seen)
            # Checking every new text of a long story is pure Python (~1 s at 50,000 lines): in a
            # worker thread, while the loop serves other calls (other writers wait their turn).
            edits, matches, line_changes = await asyncio.to_thread(
                _edits, data, current, replaced, self.limits
            )
            await _apply(tx, data, edits, line_changes)
            batch = tx.batch_id if tx.changes else None
        changed = [Target(hit.field, hit.entity_id) for hit, _ in edits]
        left = [Target(text.field, text.entity_id) for text in skipped if text.text in replaced]
        return Replaced(len(edits), matches, batch, changed, left)


def _fields(fields: Iterable[SearchField]) -> frozenset[SearchField]:
    chosen = frozenset(fields)
    unknown = sorted(chosen - set(FIELDS))
    if unknown:
        raise invalid(f"Unknown field {unknown[0]!r}; search in: {', '.join(FIELDS)}.")
    if not chosen:
        raise invalid("Choose at least one kind of text to search.")
    return chosen


def _texts(data: ProjectData, reach: frozenset[str] | None) -> Iterable[Text]:
    """Every text in story order: per scene its title, lines, choices; then the rest. An agent in a
    room limited to some chapters (`reach`) sees their scenes and titles only."""
    speakers = {character.id: character.name for character in data.characters}
    for scene in data.scenes_in_order():
        if reach is not None and scene.chapter_id not in reach:
            continue
        yield Text("scene_title", scene.id, scene.title, owner=scene.id)
        for line in data.lines_of(scene.id):
            speaker = speakers.get(line.character_id) if line.character_id else None
            yield Text("line", line.id, line.text, speaker, owner=line.id)
        for choice in data.choices_of(scene.id):
            yield Text("choice_label", choice.id, choice.label, owner=scene.id)
    for chapter in data.chapters_in_order():
        if reach is not None and chapter.id not in reach:
            continue
        yield Text("chapter_title", chapter.id, chapter.title, owner=chapter.id)
    for character in sorted(data.characters, key=lambda c: c.name.casefold()):
        yield Text("character_name", character.id, character.name, owner=character.id)


async def _unchanged_since(
    tx: Mutation, project_id: str, texts: list[Text], seen: Mapping[str, int]
) -> tuple[list[Text], list[Text]]:
    """The texts whose entity is still at the revision the search saw, and the rest."""
    now = await tx.story.latest_revisions(project_id, OWNER_TYPES, {text.owner for text in texts})
    note_read(now)  # what a tool call read, the agent saw
    fresh: list[Text] = []
    stale: list[Text] = []
    for text in texts:
        unchanged = text.owner in seen and now.get(text.owner, 0) == seen[text.owner]
        (fresh if unchanged else stale).append(text)
    return fresh, stale


def _results(data: ProjectData, hits: list[Hit]) -> SearchResults:
    shown = hits[:MAX_HITS]
    scene_of = {line.id: line.scene_id for line in data.lines}
    scene_of.update({choice.id: choice.scene_id for choice in data.choices})
    scenes = {scene.id: scene for scene in data.scenes}
    groups: dict[str, SceneHits] = {}
    elsewhere: list[Hit] = []
    for hit in shown:
        scene_id = hit.entity_id if hit.field == "scene_title" else scene_of.get(hit.entity_id)
        if scene_id is None:
            elsewhere.append(hit)
            continue
        if scene_id not in groups:
            scene = scenes[scene_id]
            chapter = data.chapter_of(scene)
            title = chapter.title if chapter else ""
            groups[scene_id] = SceneHits(scene.id, scene.title, scene.chapter_id, title, [])
        groups[scene_id].hits.append(hit)
    matches = sum(len(hit.spans) for hit in hits)
    return SearchResults(list(groups.values()), elsewhere, matches, len(hits), len(hits) > MAX_HITS)


def _edits(
    data: ProjectData, texts: list[Text], replaced: dict[str, tuple[str, int]], limits: Limits
) -> tuple[list[tuple[Text, str]], int, list[BulkUpdate]]:
    """Every new text, checked (else nothing is replaced), how many matches they replace, and the
    lines' changes as rows: a replace may touch every line of a long story, too many for entities."""
    edits: list[tuple[Text, str]] = []
    matches = 0
    for text in texts:
        if text.text in replaced:
            new_text, count = replaced[text.text]
            edits.append((text, _checked(text, new_text, limits)))
            matches += count
    _no_duplicate_names(data, edits)
    lines = {line.id: line for line in data.lines}
    now = utcnow()
    line_changes: list[BulkUpdate] = []
    for text, new_text in edits:
        if text.field == "line":
            before = snapshots.line(lines[text.entity_id])
            after = {**before, "text": new_text}
            line_changes.append(
                BulkUpdate(text.entity_id, before, after, {"text": new_text, "updated_at": now})
            )
    return edits, matches, line_changes


async def _apply(
    tx: Mutation, data: ProjectData, edits: list[tuple[Text, str]], line_changes: list[BulkUpdate]
) -> None:
    """Write the checked texts; one revision per line, scene, chapter or character."""
    scene_of_choice = {choice.id: choice.scene_id for choice in data.choices}
    scenes: dict[str, list[tuple[Text, str]]] = {}
    for hit, text in edits:
        if hit.field == "line":
            continue  # written below, as rows
        if hit.field == "chapter_title":
            chapter = await tx.chapter(hit.entity_id)
            retitled = copied(chapter, title=text, updated_at=utcnow())
            if tx.changed("chapter", chapter.id, snapshots.chapter(chapter), snapshots.chapter(retitled)):
                await tx.story.save_chapter(retitled)
        elif hit.field == "character_name":
            character = await tx.character(hit.entity_id)
            renamed = copied(character, name=text, updated_at=utcnow())
            if tx.changed(
                "character", character.id, snapshots.character(character), snapshots.character(renamed)
            ):
                await tx.story.save_character(renamed)
        else:
            scene_id = hit.entity_id if hit.field == "scene_title" else scene_of_choice[hit.entity_id]
            scenes.setdefault(scene_id, []).append((hit, text))
    for scene_id, scene_edits in scenes.items():
        await _apply_to_scene(tx, await tx.scene(scene_id), scene_edits)
    await bulk.updated_in_bulk(tx, "dialogue_line", line_changes)


async def _apply_to_scene(tx: Mutation, scene: SceneRecord, edits: list[tuple[Text, str]]) -> None:
    """A scene's title and its choices' labels: one revision of the scene (choices are undone with it)."""
    choices = await tx.story.choices_of(scene.id)
    labels = {hit.entity_id: text for hit, text in edits if hit.field == "choice_label"}
    titles = [text for hit, text in edits if hit.field == "scene_title"]
    retitled = copied(scene, title=titles[-1]) if titles else scene
    relabeled = [copied(c, label=labels[c.id]) if c.id in labels else c for c in choices]
    before, after = snapshots.scene(scene, choices), snapshots.scene(retitled, relabeled)
    if tx.changed("scene", scene.id, before, after):
        await tx.story.save_scene(copied(retitled, updated_at=utcnow()))
        for was, now in zip(choices, relabeled, strict=True):
            if now != was:
                await tx.story.save_choice(now)


def _checked(hit: Text, text: str, limits: Limits) -> str:
    what = {
        "scene_title": "Scene title",
        "line": "Line text",
        "choice_label": "Choice label",
        "chapter_title": "Chapter title",
        "character_name": "Character name",
    }[hit.field]
    try:
        if hit.field == "line":
            return validation.line_text(text, limits)
        return validation.title(text, limits, what)
    except RomergoError as error:
        raise invalid(
            f'Replacing in "{_short(hit.text)}" is refused: {error.message} Nothing was replaced.'
        ) from None


def _no_duplicate_names(data: ProjectData, checked: list[tuple[Text, str]]) -> None:
    names: dict[str, Any] = {c.id: c.name for c in data.characters}
    names.update({hit.entity_id: text for hit, text in checked if hit.field == "character_name"})
    seen: dict[str, str] = {}
    for character_id, name in names.items():
        key = name.casefold()
        if key in seen and seen[key] != character_id:
            raise invalid(f'Two characters would both be called "{name}". Nothing was replaced.')
        seen[key] = character_id


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
