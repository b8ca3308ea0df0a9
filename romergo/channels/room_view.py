"""What an agent in a limited room is shown of what was recorded: kept to the room's reach as it
is now, not as it was when it was recorded.

The owner can narrow a room at any time, so what happened before (a command's selection, the calls
of the room's agents, the changes a command made) is held against the current reach each time it
is shown to an agent (`reach` guards the calls themselves):
- a command keeps the owner's typed text and its context's ids (the agent can say it cannot reach
  them); its selected text stays home when any place the context names lies outside the room
  (`keep_to_reach`), when it is posted and again when a wait delivers it;
- a change recorded for a chapter, scene, line or choice outside the room keeps its entity, action,
  tool and time; its title becomes `OUTSIDE_TITLE` and its before and after are withheld
  (`changes_in_reach`). Characters, assets, variables and the project are readable from every room;
- in the conversation a joining agent gets (`conversation_in_reach`), tool events and confirmation
  requests keep the tool's name and outcome but not their arguments, action or error message: a
  past call's arguments may quote what lies outside, and no rule can tell which. The owner's and
  the agents' own words (commands, reports) stay: they are the conversation, and they are no
  record of the story.
Where an entity no longer exists, the place it was last recorded in counts; one never found is
taken to lie outside.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from romergo.channels.changes import command_changes
from romergo.channels.ledger import RoomReads
from romergo.channels.models import EventView
from romergo.channels.reach import scope_chapters
from romergo.channels.vocabulary import EventKind
from romergo.story.kinds import KINDS, kind_named, under, within

OUTSIDE_TITLE = "(outside this room's chapters)"
"""The title a withheld change carries in a limited room, in place of the entity's own."""
IN_A_CHAPTER: tuple[str, ...] = within("chapter")
"""The entities that lie in one chapter; the others are readable from every room."""
WITHHELD_FIELDS: dict[EventKind, dict[str, Any]] = {
    EventKind.TOOL_STARTED: {"arguments": {}},
    EventKind.TOOL_FAILED: {"message": ""},
    EventKind.CONFIRMATION_REQUESTED: {"arguments": {}, "action": ""},
}
"""What the conversation of a limited room leaves out of these events."""

EntityRef = tuple[str, str]
"""(entity type, entity id)."""


async def keep_to_reach(reads: RoomReads, room: Room, context: dict[str, Any]) -> dict[str, Any]:
    """A command's context, without the selected text when a place it names (its chapter, its
    scene, the selected entity) lies outside the room: the ids stay, the words do not travel."""
    named = _selection_places(room, context)
    if named is None:
        return context
    return _selection_kept(context, room, named, await Whereabouts.read(reads, room.project_id, named))


def keep_to_reach_now(reads: PlaceReads, room: Room, context: dict[str, Any]) -> dict[str, Any]:
    """`keep_to_reach` inside a write on the database's driver (a post reads with its room)."""
    named = _selection_places(room, context)
    if named is None:
        return context
    return _selection_kept(context, room, named, Whereabouts.read_now(reads, room.project_id, named))


def _selection_places(room: Room, context: dict[str, Any]) -> list[EntityRef] | None:
    """The places a context's selection names that lie in a chapter; None when there is nothing to
    check (a room of the whole project, or no selection)."""
    selection = context.get("selection")
    if scope_chapters(room.scope) is None or not isinstance(selection, dict):
        return None
    refs = [("chapter", context.get("chapter_id")), ("scene", context.get("scene_id"))]
    refs.append((str(selection.get("entity_type")), selection.get("entity_id")))
    return [(kind, ident) for kind, ident in refs if kind in IN_A_CHAPTER and isinstance(ident, str)]


def _selection_kept(
    context: dict[str, Any], room: Room, named: list[EntityRef], where: Whereabouts
) -> dict[str, Any]:
    covered = scope_chapters(room.scope)
    assert covered is not None
    if all(where.inside(covered, ref) for ref in named):
        return context
    return {**context, "selection": None}


async def changes_in_reach(
    reads: RoomReads, room: Room, changes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A command's recorded changes (`changes.recorded_change`) as the room sees them now."""
    covered = scope_chapters(room.scope)
    if covered is None:
        return changes
    outside = await _outside(reads, room.project_id, covered, changes)
    return [
        {**change, "title": OUTSIDE_TITLE, "before": None, "after": None}
        if (change["entity_type"], change["entity_id"]) in outside
        else change
        for change in changes
    ]


async def conversation_in_reach(reads: RoomReads, room: Room, events: list[EventView]) -> list[EventView]:
    """A room's recent events as an agent joining it may see them now."""
    if scope_chapters(room.scope) is None:
        return events
    return [await _event_in_reach(reads, room, event) for event in events]


class Room(Protocol):
    """The columns of a room this module reads (its `RoomRecord`, or a post's `PostingRoom`)."""

    @property
    def project_id(self) -> str: ...

    @property
    def scope(self) -> dict[str, Any] | None: ...


async def _event_in_reach(reads: RoomReads, room: Room, event: EventView) -> EventView:
    data = event.data
    if event.kind in WITHHELD_FIELDS:
        data = {**data, **WITHHELD_FIELDS[event.kind]}
    elif event.kind == EventKind.COMMAND and isinstance(data.get("context"), dict):
        data = {**data, "context": await keep_to_reach(reads, room, data["context"])}
    elif event.kind == EventKind.CHANGES_RECORDED:
        data = {**data, "changes": await _listed_in_reach(reads, room, event.command_id, data)}
    return replace(event, data=data)


async def _listed_in_reach(
    reads: RoomReads, room: Room, command_id: str | None, data: dict[str, Any]
) -> list[dict[str, Any]]:
    """A `changes_recorded` event's list: each change placed as the command's revisions record it."""
    covered = scope_chapters(room.scope)
    assert covered is not None
    listed = [change for change in data.get("changes", []) if isinstance(change, dict)]
    revisions = await command_changes(reads, command_id) if command_id else []
    outside = await _outside(reads, room.project_id, covered, revisions, _refs(listed))
    return [
        {**change, "title": OUTSIDE_TITLE}
        if (change.get("entity_type"), change.get("entity_id")) in outside
        else change
        for change in listed
    ]


async def _outside(
    reads: RoomReads,
    project_id: str,
    covered: frozenset[str],
    changes: list[dict[str, Any]],
    more: Sequence[EntityRef] = (),
) -> set[EntityRef]:
    """The entities of `changes` (and `more`) that lie outside `covered`, or whose recorded before or
    after does."""
    recorded: dict[EntityRef, tuple[set[str], set[str]]] = {}
    for change in changes:
        chapters, named = recorded.setdefault((change["entity_type"], change["entity_id"]), (set(), set()))
        more_chapters, more_scenes = _recorded_places(change)
        chapters |= more_chapters
        named |= more_scenes
    scenes = [scene for _, named in recorded.values() for scene in named]
    where = await Whereabouts.read(reads, project_id, [*recorded, *more], scenes)
    outside = {
        ref for ref, (chapters, named) in recorded.items() if not where.inside(covered, ref, chapters, named)
    }
    return outside | {ref for ref in more if not where.inside(covered, ref)}


def _refs(listed: list[dict[str, Any]]) -> list[EntityRef]:
    return [(str(change.get("entity_type")), str(change.get("entity_id"))) for change in listed]


@dataclass(frozen=True)
class Whereabouts:
    """Where entities lie: each scene's chapter, each line's and choice's scene, as they are now, or
    for one that no longer exists, as its last revision recorded it."""

    scene_chapters: dict[str, str]
    parent_scenes: dict[EntityRef, str]

    @classmethod
    async def read(
        cls, reads: RoomReads, project_id: str, refs: Iterable[EntityRef], scene_ids: Iterable[str] = ()
    ) -> Whereabouts:
        refs = list(refs)
        parents: dict[EntityRef, str] = {}
        for kind, ids, column in _in_scenes(refs):
            found = await reads.parents_now_or_recorded(project_id, kind, ids, column)
            parents.update({(kind, ident): scene for ident, scene in found.items()})
        scenes = _scenes_named(refs, scene_ids, parents)
        chapters = await reads.parents_now_or_recorded(project_id, "scene", scenes, "chapter_id")
        return cls(chapters, parents)

    @classmethod
    def read_now(cls, reads: PlaceReads, project_id: str, refs: list[EntityRef]) -> Whereabouts:
        """`read` inside a write on the database's driver."""
        parents: dict[EntityRef, str] = {}
        for kind, ids, column in _in_scenes(refs):
            found = reads.parents_now_or_recorded(project_id, kind, ids, column)
            parents.update({(kind, ident): scene for ident, scene in found.items()})
        scenes = _scenes_named(refs, (), parents)
        chapters = reads.parents_now_or_recorded(project_id, "scene", scenes, "chapter_id")
        return cls(chapters, parents)

    def chapter_of(self, ref: EntityRef) -> str | None:
        """The chapter an entity lies in; None when it is not known."""
        kind, ident = ref
        if kind == "chapter":
            return ident
        scene = ident if kind == "scene" else self.parent_scenes.get(ref)
        return None if scene is None else self.scene_chapters.get(scene)

    def inside(
        self,
        covered: frozenset[str],
        ref: EntityRef,
        chapters: Iterable[str] = (),
        scenes: Iterable[str] = (),
    ) -> bool:
        """Whether the entity, and the chapters and scenes a record of it names, lie in `covered`."""
        if ref[0] not in IN_A_CHAPTER:
            return True
        places = [self.chapter_of(ref), *chapters, *(self.scene_chapters.get(s) for s in scenes)]
        return all(place is not None and place in covered for place in places)


class PlaceReads(Protocol):
    """`RoomReads.parents_now_or_recorded` inside a write on the database's driver
    (`storage.channels.places`)."""

    def parents_now_or_recorded(
        self, project_id: str, entity_type: str, ids: set[str], parent_column: str
    ) -> dict[str, str]: ...


def _in_scenes(refs: list[EntityRef]) -> list[tuple[str, set[str], str]]:
    """For each kind that lies in a scene: the ids of it among `refs`, its scene column."""
    found: list[tuple[str, set[str], str]] = []
    for kind in under("scene"):
        entry = KINDS[kind]
        assert entry.parent is not None
        ids = {ident for ref_kind, ident in refs if ref_kind == kind}
        found.append((kind, ids, entry.parent.column))
    return found


def _scenes_named(refs: list[EntityRef], scene_ids: Iterable[str], parents: dict[EntityRef, str]) -> set[str]:
    """The scenes whose chapters say where `refs` lie."""
    return {ident for kind, ident in refs if kind == "scene"} | set(scene_ids) | set(parents.values())


def _recorded_places(change: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The chapters and scenes a recorded change's own before and after name."""
    places: dict[str, set[str]] = {"chapter": set(), "scene": set()}
    kind = kind_named(change["entity_type"])
    parent = kind.parent if kind is not None else None
    if parent is not None and parent.kind in places:
        for snapshot in (change.get("before"), change.get("after")):
            if isinstance(snapshot, dict) and isinstance(snapshot.get(parent.column), str):
                places[parent.kind].add(snapshot[parent.column])
    return places["chapter"], places["scene"]
