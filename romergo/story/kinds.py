"""The kinds of story entity, in one registry: what each kind is, and every rule that depends on it.

Undo (`restore`, `undo`), the review of a change set (`review`), the history, the ownership checks
(`owners`, `base`), and what a room records and shows of changes (`channels.changes`,
`channels.reporting`, `channels.room_view`) look a kind up here or iterate the registry; they keep
no table of kinds of their own. A rule that differs by kind is a field of the kind's entry (data,
or a small function from `restore_moves`), so a new kind is one entry, and a field the review
shows is one line of one entry.

This module is read by the transaction seam itself (`base`, through `owners`): it and the moves it
names import no story service at runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, get_args

from romergo.story import in_chapters, snapshots
from romergo.story import restore_moves as moves

if TYPE_CHECKING:
    from romergo.story.in_chapters import Chapters
    from romergo.story.restore_moves import PutList, Recreate, Remove, Snapshot

EntityType = Literal[
    "project", "chapter", "scene", "dialogue_line", "choice", "character", "asset", "variable"
]
ENTITY_TYPES: tuple[EntityType, ...] = get_args(EntityType)
Action = Literal["created", "updated", "deleted", "moved"]
"""What a change did to an entity (a revision's `action`, a reviewed entry's)."""

FieldKind = Literal["text", "flag", "image", "audio", "color"]
"""How the page shows a reviewed field."""
Reading = Literal["text", "flag", "asset", "speaker", "value", "list"]
"""How a reviewed field's stored value reads in words (`review` turns each into text)."""


@dataclass(frozen=True)
class Parent:
    """The entity a row is ordered under: a change of `column` (or of `position`) is a move."""

    column: str
    kind: EntityType


@dataclass(frozen=True)
class Held:
    """Entities of `kind` a snapshot carries under `key` (a scene's lines, a chapter's scenes)."""

    key: str
    kind: EntityType


@dataclass(frozen=True)
class ReviewField:
    """A field the review of a change shows: snapshot key, the author's label, how it is shown."""

    key: str
    label: str
    shown: FieldKind = "text"
    reads: Reading = "text"


@dataclass(frozen=True)
class Reach:
    """How a room limited to some chapters treats it: where it lies or is used (`chapters`), and
    whether it is `shared` (readable from every room; a change needs every chapter using it) or
    lies inside its chapters (the room must cover them, for reads as for changes)."""

    chapters: Chapters
    shared: bool = False


@dataclass(frozen=True)
class Kind:
    """One kind of story entity, with every rule the code that handles all kinds asks of it."""

    entity_type: EntityType
    label: str
    """What errors and the room's refusals call it (`Scene "…" does not exist`)."""
    word: str
    """Its word in sentences for people ("line" for a dialogue line)."""
    title_key: str
    """The snapshot field that names it to a person."""
    snapshot: Snapshot
    """Its revision snapshot as undo takes it (`tree`: with what it owns, before a removal)."""
    remove: Remove | None
    """How undo takes away one the change set created; None: undo leaves that (`kept_created`)."""
    recreate: Recreate | None
    """How undo brings back one the change set deleted; None: undo leaves that (`kept_deleted`)."""
    parent: Parent | None = None
    inside: EntityType | None = None
    """Recorded inside that kind's snapshot, never with revisions of its own (a scene's choices)."""
    holds: tuple[Held, ...] = ()
    """What a snapshot taken before its removal carries: the review says how many."""
    guards: tuple[Held, ...] = ()
    """Held entities whose arrival since a change set created it keep undo from removing it."""
    lists: Mapping[str, PutList] = field(default_factory=dict)
    """Snapshot lists undo writes back row by row when the set changed them (a scene's choices)."""
    kept_created: str = ""
    """Why undo leaves one the change set created (said to the author); so for `kept_deleted`."""
    kept_deleted: str = ""
    kept_fields: frozenset[str] = frozenset()
    """Fields undo never writes back; `kept_fields_note` says so to the author."""
    kept_fields_note: str = ""
    review_fields: tuple[ReviewField, ...] = ()
    worded: str | None = None
    """The field the review shows as a word diff."""
    place_word: str = "place"
    """What one of its positions is called ("Moved from place 1 to place 2")."""
    named_by_id: bool = False
    """Other entities name it by id (a choice's target, a speaker, a media slot): the review and the
    history name those ids with its title."""
    on_cards: bool = False
    """A confirmation card names it by its title."""
    reach: Reach | None = None
    """None: a room with some chapters neither places it nor limits it (the project, a variable)."""

    def title(self, snapshot: Mapping[str, Any]) -> str:
        value = snapshot.get(self.title_key)
        return value if isinstance(value, str) else ""


TITLE = ReviewField("title", "Title")
NAME = ReviewField("name", "Name")
BACKGROUND = ReviewField("background_asset_id", "Background", "image", "asset")
MUSIC = ReviewField("music_asset_id", "Music", "audio", "asset")

_ALL = (
    Kind(
        "project",
        label="Project",
        word="story",
        title_key="title",
        snapshot=moves.plain(snapshots.project),
        remove=None,
        recreate=None,
        kept_created="The story itself was created by this change; delete it from the story list.",
        kept_deleted="A deleted story comes back from the story list, not by undo.",
        kept_fields=frozenset({"published", "share_id"}),
        kept_fields_note="Publishing is not undone: unpublish or publish again from the story's page.",
        review_fields=(TITLE,),
    ),
    Kind(
        "chapter",
        label="Chapter",
        word="chapter",
        title_key="title",
        snapshot=moves.chapter_snapshot,
        remove=moves.delete_chapter,
        recreate=moves.chapter_from,
        parent=Parent("project_id", "project"),
        holds=(Held("scenes", "scene"),),
        guards=(Held("scenes", "scene"),),
        review_fields=(TITLE, BACKGROUND, MUSIC),
        named_by_id=True,
        on_cards=True,
        reach=Reach(in_chapters.the_chapter),
    ),
    Kind(
        "scene",
        label="Scene",
        word="scene",
        title_key="title",
        snapshot=moves.scene_snapshot,
        remove=moves.delete_scene,
        recreate=moves.scene_from,
        parent=Parent("chapter_id", "chapter"),
        holds=(Held("lines", "dialogue_line"), Held("choices", "choice")),
        guards=(Held("lines", "dialogue_line"),),
        lists={"choices": moves.put_choices},
        review_fields=(
            TITLE,
            ReviewField("is_start", "Start scene", "flag", "flag"),
            ReviewField("is_ending", "Ending", "flag", "flag"),
            BACKGROUND,
            MUSIC,
            ReviewField("entry_effects", "On entering"),
        ),
        named_by_id=True,
        on_cards=True,
        reach=Reach(in_chapters.of_scene),
    ),
    Kind(
        "dialogue_line",
        label="Dialogue line",
        word="line",
        title_key="text",
        snapshot=moves.plain(snapshots.line),
        remove=moves.delete_line,
        recreate=moves.line_from,
        parent=Parent("scene_id", "scene"),
        review_fields=(
            ReviewField("character_id", "Speaker", reads="speaker"),
            ReviewField("condition", "Shown only when"),
        ),
        worded="text",
        place_word="line",
        reach=Reach(in_chapters.of_line),
    ),
    Kind(
        "choice",
        label="Choice",
        word="choice",
        title_key="label",
        snapshot=moves.plain(snapshots.choice),
        remove=None,
        recreate=None,
        parent=Parent("scene_id", "scene"),
        inside="scene",
    ),
    Kind(
        "character",
        label="Character",
        word="character",
        title_key="name",
        snapshot=moves.plain(snapshots.character),
        remove=moves.delete_silent_character,
        recreate=moves.character_from,
        review_fields=(NAME, ReviewField("color", "Colour", "color")),
        named_by_id=True,
        on_cards=True,
        reach=Reach(in_chapters.speaking, shared=True),
    ),
    Kind(
        "asset",
        label="Asset",
        word="asset",
        title_key="name",
        snapshot=moves.plain(snapshots.asset),
        remove=moves.hide_asset,
        recreate=moves.show_asset,
        review_fields=(NAME, ReviewField("tags", "Tags", reads="list")),
        named_by_id=True,
        on_cards=True,
        reach=Reach(in_chapters.using_asset, shared=True),
    ),
    Kind(
        "variable",
        label="Variable",
        word="variable",
        title_key="name",
        snapshot=moves.plain(snapshots.variable),
        remove=moves.delete_variable,
        recreate=moves.variable_from,
        review_fields=(
            NAME,
            ReviewField("initial", "Starts as", reads="value"),
            ReviewField("description", "Description"),
        ),
        on_cards=True,
    ),
)

KINDS: Mapping[EntityType, Kind] = MappingProxyType({kind.entity_type: kind for kind in _ALL})
_BY_NAME: Mapping[str, Kind] = MappingProxyType({kind.entity_type: kind for kind in _ALL})
LABELS: Mapping[str, str] = MappingProxyType({kind.entity_type: kind.label for kind in _ALL})
"""Each kind's `label`, for callers holding a kind's name as a plain string."""


def kind_named(name: str) -> Kind | None:
    """The kind a plain string names (a stored revision's, an argument's); None if none does."""
    return _BY_NAME.get(name)


def field_label(entity_type: str, key: str) -> str | None:
    """What the author calls one field of a kind (the review's label), None for a field the review
    does not show."""
    kind = kind_named(entity_type)
    labels = {shown.key: shown.label for shown in kind.review_fields} if kind is not None else {}
    return labels.get(key)


def under(entity_type: EntityType) -> tuple[EntityType, ...]:
    """The kinds that lie directly in one of `entity_type` (a scene's lines and choices)."""
    return tuple(
        kind.entity_type for kind in _ALL if kind.parent is not None and kind.parent.kind == entity_type
    )


def reached(*, shared: bool) -> tuple[EntityType, ...]:
    """The kinds a limited room places in its chapters: shared ones (used there) or the others
    (lying there)."""
    return tuple(kind.entity_type for kind in _ALL if kind.reach is not None and kind.reach.shared == shared)


def within(entity_type: EntityType) -> tuple[EntityType, ...]:
    """`entity_type` and every kind that lies in one of it, however deep (a chapter's scenes, and
    their lines and choices)."""
    return (entity_type, *(inner for kind in under(entity_type) for inner in within(kind)))
