"""What the story ledger's reads hand up: plain records, made from rows in storage.

Each entity's record names its fields as its table names its columns, in the same order, so the
pages, the tools and the story check read a record as they would read a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(slots=True)
class LineRow:
    """A dialogue line as whole-project reads use it: plain values, not an ORM object (a long story
    has tens of thousands of lines, and building ORM objects for them took seconds).

    Not frozen, though nothing changes one: a frozen dataclass sets each field through
    `object.__setattr__`, which made building 50,000 of them 4× slower."""

    id: str
    scene_id: str
    position: int
    character_id: str | None
    text: str
    condition: str | None = None


@dataclass(frozen=True, slots=True)
class ProjectRows:
    """A whole project but its asset bytes: one statement per table. `assets` holds the live ones."""

    project: ProjectRecord
    chapters: list[ChapterRecord]
    scenes: list[SceneRecord]
    lines: list[LineRow]
    choices: list[ChoiceRecord]
    characters: list[CharacterRecord]
    assets: list[AssetRecord]
    variables: list[VariableRecord]
    role: str | None = None
    """The reader's role in the project, when a read on their behalf found it."""


@dataclass(frozen=True, slots=True)
class MediaHead:
    """A live asset's first bytes and its length, read in the database (never the whole file)."""

    head: bytes
    length: int


@dataclass(frozen=True, slots=True)
class ProjectOwner:
    """Who owns the project something lies in, whether the project is deleted, and the role of
    the one asking in it (None when they are not a member)."""

    project_id: str
    owner_id: str
    deleted_at: datetime | None
    role: str | None


@dataclass(frozen=True, slots=True)
class ChoiceWithTarget:
    """A scene's choice with the title and chapter of the scene it leads to (None when it leads
    nowhere, or the target is gone): what the scene view lists."""

    choice: ChoiceRecord
    target_title: str | None
    target_chapter_id: str | None


@dataclass(frozen=True, slots=True)
class SceneRows:
    """A scene with its chapter and project, its lines and choices in order, the project's
    characters, the live assets its and its chapter's slots name, and the newest revision of the
    scene and each of its lines by id."""

    scene: SceneRecord
    chapter: ChapterRecord
    project: ProjectRecord
    lines: list[LineRecord]
    choices: list[ChoiceWithTarget]
    characters: list[CharacterRecord]
    media: list[AssetRecord]
    revisions: dict[str, int]


@dataclass(frozen=True, slots=True)
class ChapterRows:
    """A chapter with its project, its scenes in order and the newest revision of each by id."""

    chapter: ChapterRecord
    project: ProjectRecord
    scenes: list[SceneRecord]
    revisions: dict[str, int]


@dataclass(frozen=True, slots=True)
class RevisionRecord:
    """One recorded change of one entity, with its snapshots before and after."""

    id: int
    project_id: str
    entity_type: str
    entity_id: str
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    actor_type: str
    actor_id: str
    client_id: str | None
    command_id: str | None
    tool: str | None
    batch_id: str | None
    reverts: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CommandRecord:
    """A command as the panel numbers it (1 is its channel's first)."""

    command_id: str
    channel_id: str
    number: int
    text: str


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which page of a project's history: the newest `limit` revisions older than `before`, of
    one scene (itself and what lies or lay in it: `lying_in`, (entity type, the snapshot's key
    naming its scene) pairs), one agent or one command (its changes and their undo); and the
    (table, title column) pairs that name the project's entities."""

    limit: int
    before: int | None = None
    scene_id: str | None = None
    lying_in: tuple[tuple[str, str], ...] = ()
    agent: str | None = None
    command_id: str | None = None
    named: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryRows:
    """A page of a project's history: its revisions newest first (one more than asked, when
    there is an older page), the commands they name, the names of the agents that changed the
    project, and the titles of its entities."""

    revisions: list[RevisionRecord]
    commands: dict[str, CommandRecord]
    agents: dict[str, str]
    titles: dict[str, str]


@dataclass(frozen=True, slots=True)
class LastChangeRecord:
    revision: RevisionRecord
    agent_name: str | None
    """For an agent's change: the name it introduced itself with in a channel, else registered."""
    command_number: int | None


@dataclass(frozen=True, slots=True)
class SpokenLine:
    text: str
    speaker: str | None
    """The speaking character's name; None for narration."""


# The story's entities as a write transaction reads and writes them (`StoryTransaction`): the same
# attribute names as the columns, so the snapshots and the API's shapes read them as they read rows.


@dataclass(frozen=True, slots=True)
class CharacterRecord:
    id: str
    project_id: str
    name: str
    color: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class VariableRecord:
    id: str
    project_id: str
    name: str
    type: str
    initial: Any
    description: str
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ChapterRecord:
    id: str
    project_id: str
    title: str
    position: int
    music_asset_id: str | None
    background_asset_id: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SceneRecord:
    id: str
    project_id: str
    chapter_id: str
    title: str
    position: int
    is_start: bool
    is_ending: bool
    background_asset_id: str | None
    music_asset_id: str | None
    entry_effects: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class LineRecord:
    id: str
    project_id: str
    scene_id: str
    position: int
    character_id: str | None
    text: str
    condition: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ChoiceRecord:
    id: str
    project_id: str
    scene_id: str
    position: int
    label: str
    target_scene_id: str | None
    condition: str | None
    effects: str | None


@dataclass(frozen=True, slots=True)
class VariableMentions:
    """What may use a variable: the rows whose expressions contain its name somewhere (a cheap
    filter; the core checks the tokens)."""

    scenes: list[SceneRecord]
    lines: list[LineRecord]
    choices: list[ChoiceRecord]


# Projects, publishing, assets, copies


@dataclass(frozen=True, slots=True)
class ProjectRecord:
    id: str
    owner_id: str
    title: str
    created_at: datetime
    updated_at: datetime
    published: bool
    share_id: str | None
    published_at: datetime | None
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class AssetRecord:
    """An imported file's description; its bytes stay apart (`StoryTransaction.asset_bytes`)."""

    id: str
    project_id: str
    kind: str
    name: str
    tags: list[str]
    mime: str
    size: int
    sha256: str
    blob_id: str
    created_at: datetime
    deleted_at: datetime | None


# Members


@dataclass(frozen=True, slots=True)
class MemberRecord:
    """Someone's role in a project: "owner", "editor" or "viewer" (the core says what each may)."""

    project_id: str
    user_id: str
    role: str
    added_at: datetime
    added_by: str | None


@dataclass(frozen=True, slots=True)
class NamedMember:
    """A member with their account's name: what a list of members shows."""

    member: MemberRecord
    username: str


@dataclass(frozen=True, slots=True)
class HeldProject:
    """A project with the role of the one asking in it (None when they are not a member)."""

    project: ProjectRecord
    role: str | None

    @property
    def deleted_at(self) -> datetime | None:
        return self.project.deleted_at


# Invitations


@dataclass(frozen=True, slots=True)
class InvitationRecord:
    """A one-time link to join a project in `role`, kept as the SHA-256 of its secret."""

    id: str
    project_id: str
    role: str
    secret_hash: str
    for_user_id: str | None
    created_by: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None
    used_by: str | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class NamedInvitation:
    """An invitation with the names of the account that made it and of the one it is for."""

    invitation: InvitationRecord
    inviter: str
    invitee: str | None
