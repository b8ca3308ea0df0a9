"""The database schema at head. Alembic migrations in `storage/migrations` build exactly this.

Conventions: string ids made by the core (`prefix_random`), timezone-aware UTC datetimes, JSON for
snapshots and tag lists. References the story can legitimately lose (a choice's target scene, a
line's speaker) are plain strings without foreign keys, so the story check can report them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary
from sqlmodel import Field, SQLModel


class User(SQLModel, table=True):
    __tablename__ = "users"
    id: str = Field(primary_key=True)
    username: str = Field(unique=True, index=True)
    password_hash: str | None = None
    created_at: datetime
    last_sign_in_at: datetime | None = None
    administrator: bool = False
    deactivated_at: datetime | None = None


class Project(SQLModel, table=True):
    __tablename__ = "projects"
    id: str = Field(primary_key=True)
    owner_id: str = Field(foreign_key="users.id", index=True)
    title: str
    created_at: datetime
    updated_at: datetime
    published: bool = False
    share_id: str | None = Field(default=None, unique=True)
    published_at: datetime | None = None
    deleted_at: datetime | None = None


class ProjectMember(SQLModel, table=True):
    """Someone who may work on a project, and in which role ("owner", "editor", "viewer"; the core
    says what each may). The project's owner (`projects.owner_id`) is always its member as owner."""

    __tablename__ = "project_members"
    project_id: str = Field(foreign_key="projects.id", primary_key=True)
    user_id: str = Field(foreign_key="users.id", primary_key=True, index=True)
    role: str
    added_at: datetime
    added_by: str | None = Field(default=None, foreign_key="users.id")


class PublishedStory(SQLModel, table=True):
    """The frozen public copy of a published project, behind its share link.

    A table of its own, not a column of `projects`: at 2,000 scenes it is megabytes. As a column it
    was read and decoded with every project row the story services load (each scene view, each
    edit), and SQLite rewrites a whole row on UPDATE, so each edit, which stamps the project's
    `updated_at`, wrote it to disk again: ~30× slower views and edits of a published long story
    (docs/performance.md)."""

    __tablename__ = "published_stories"
    project_id: str = Field(primary_key=True, foreign_key="projects.id")
    snapshot: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class Chapter(SQLModel, table=True):
    __tablename__ = "chapters"
    __table_args__ = (Index("ix_chapters_project_position", "project_id", "position"),)
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id")
    title: str
    position: int
    music_asset_id: str | None = None
    background_asset_id: str | None = None
    created_at: datetime
    updated_at: datetime


class Scene(SQLModel, table=True):
    __tablename__ = "scenes"
    __table_args__ = (Index("ix_scenes_chapter_position", "chapter_id", "position"),)
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    chapter_id: str = Field(foreign_key="chapters.id")
    title: str
    position: int
    is_start: bool = False
    is_ending: bool = False
    background_asset_id: str | None = None
    music_asset_id: str | None = None
    entry_effects: str | None = None
    """Effects (`set …`) applied when the player enters the scene."""
    created_at: datetime
    updated_at: datetime


class DialogueLine(SQLModel, table=True):
    __tablename__ = "dialogue_lines"
    __table_args__ = (Index("ix_dialogue_lines_scene_position", "scene_id", "position"),)
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    scene_id: str = Field(foreign_key="scenes.id")
    position: int
    character_id: str | None = None
    text: str
    condition: str | None = None
    """Shown only when this holds."""
    created_at: datetime
    updated_at: datetime


class Choice(SQLModel, table=True):
    __tablename__ = "choices"
    __table_args__ = (Index("ix_choices_scene_position", "scene_id", "position"),)
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    scene_id: str = Field(foreign_key="scenes.id")
    position: int
    label: str
    target_scene_id: str | None = None
    condition: str | None = None
    """Offered only when this holds."""
    effects: str | None = None
    """Applied when the player picks it."""


class StoryVariable(SQLModel, table=True):
    """What a story remembers: a flag, a number or a text, with its value when a play-through starts."""

    __tablename__ = "story_variables"
    __table_args__ = (Index("ix_story_variables_project_name", "project_id", "name", unique=True),)
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id")
    name: str
    type: str
    initial: Any = Field(default=None, sa_column=Column(JSON, nullable=True))
    description: str = ""
    created_at: datetime
    updated_at: datetime


class Character(SQLModel, table=True):
    __tablename__ = "characters"
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    name: str
    color: str
    created_at: datetime
    updated_at: datetime


class AssetBlob(SQLModel, table=True):
    """Bytes live apart from the asset row so that listing assets never loads them."""

    __tablename__ = "asset_blobs"
    id: str = Field(primary_key=True)
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class Asset(SQLModel, table=True):
    __tablename__ = "assets"
    id: str = Field(primary_key=True)
    project_id: str = Field(foreign_key="projects.id", index=True)
    kind: str
    name: str
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    mime: str
    size: int
    sha256: str
    blob_id: str = Field(foreign_key="asset_blobs.id")
    created_at: datetime
    deleted_at: datetime | None = None


class Revision(SQLModel, table=True):
    """One entity change with full before/after snapshots: the base of history, diff and undo."""

    __tablename__ = "revisions"
    __table_args__ = (
        Index("ix_revisions_project_id", "project_id", "id"),
        Index("ix_revisions_entity", "project_id", "entity_type", "entity_id", "id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    project_id: str = Field(foreign_key="projects.id")
    entity_type: str
    entity_id: str
    action: str
    before: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    after: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    actor_type: str
    actor_id: str
    command_id: str | None = Field(default=None, index=True)
    tool: str | None = None
    client_id: str | None = None
    created_at: datetime
    batch_id: str | None = Field(default=None, index=True)
    """The write this change was part of: what Ctrl+Z takes back as one."""
    reverts: str | None = Field(default=None, index=True)
    """For an undo: what it took back, `command:<id>` or `batch:<id>`."""


class WebSession(SQLModel, table=True):
    """A signed-in browser. The cookie holds a random token; only its SHA-256 is stored here."""

    __tablename__ = "web_sessions"
    token_hash: str = Field(primary_key=True)
    user_id: str = Field(foreign_key="users.id", index=True)
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime


class SigninLink(SQLModel, table=True):
    """The one-time link `romergo serve` prints: valid 15 minutes, consumed on first use."""

    __tablename__ = "signin_links"
    token_hash: str = Field(primary_key=True)
    user_id: str = Field(foreign_key="users.id")
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None


class ProviderIdentity(SQLModel, table=True):
    """An account at the team's OpenID Connect provider linked to a user: (issuer, subject) is how
    the provider names a person for good, unlike an e-mail address or a username."""

    __tablename__ = "provider_identities"
    issuer: str = Field(primary_key=True)
    subject: str = Field(primary_key=True)
    user_id: str = Field(foreign_key="users.id", index=True)
    linked_at: datetime


class Channel(SQLModel, table=True):
    """A room: one owner, one project, a join code (hashed), settings, and one event sequence."""

    __tablename__ = "channels"
    __table_args__ = (
        # A call's rooms are found through the owner's open rooms and the project's newest, never
        # by walking every room an agent joined or the owner opened (migration 0012).
        Index("ix_channels_owner_open", "user_id", "ended_at", "expires_at"),
        Index("ix_channels_project_owner_newest", "project_id", "user_id", "created_at", "id"),
        Index("ix_channels_open_expiry", "ended_at", "expires_at"),  # the sweeper's expiries
    )
    id: str = Field(primary_key=True)
    user_id: str = Field(foreign_key="users.id")
    project_id: str = Field(foreign_key="projects.id")
    code_hash: str = Field(index=True)
    code_issued_at: datetime
    permissions: dict[str, bool] = Field(sa_column=Column(JSON, nullable=False))
    confirmation_mode: str
    scope: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """What the room covers: None for the whole project, else `{"chapter_ids": [...]}`."""
    last_seq: int = 0
    created_at: datetime
    expires_at: datetime
    ended_at: datetime | None = None
    end_reason: str | None = None


class ChannelMember(SQLModel, table=True):
    """An agent (OAuth client or personal token) that joined a channel. Leaving keeps the row."""

    __tablename__ = "channel_members"
    channel_id: str = Field(foreign_key="channels.id", primary_key=True)
    client_id: str = Field(primary_key=True, index=True)
    agent_name: str
    joined_at: datetime
    left_at: datetime | None = None
    last_seen_at: datetime
    polling_until: datetime | None = None
    """While a wait is open: when it will end at the latest. Presence reads it as "listening"."""
    left_reason: str | None = None
    """Why `left_at` is set: "left" (the agent), "removed" (the owner), "revoked" (its grant)."""


class Command(SQLModel, table=True):
    __tablename__ = "commands"
    __table_args__ = (
        Index("ix_commands_channel_state", "channel_id", "state", "seq"),
        # What a client holds in a room, reached through the room: its id alone would lead
        # through every command it ever took, in every room (migration 0012).
        Index("ix_commands_channel_claimer", "channel_id", "claimed_by", "state", "seq"),
        # The sweeper's: the few commands whose lease may have run out, not every command.
        Index("ix_commands_lease", "state", "last_activity_at"),
    )
    id: str = Field(primary_key=True)
    channel_id: str = Field(foreign_key="channels.id")
    seq: int
    text: str
    context: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    state: str
    claimed_by: str | None = None
    reserved_for: str | None = None
    in_reply_to: str | None = None
    retry_of: str | None = None
    deliveries: int = 0
    created_at: datetime
    claimed_at: datetime | None = None
    last_activity_at: datetime | None = None
    finished_at: datetime | None = None


class ChannelEvent(SQLModel, table=True):
    """The channel's history: every step, numbered by the channel's one sequence."""

    __tablename__ = "channel_events"
    __table_args__ = (Index("ux_channel_events_seq", "channel_id", "seq", unique=True),)
    id: int | None = Field(default=None, primary_key=True)
    channel_id: str = Field(foreign_key="channels.id")
    seq: int
    kind: str
    command_id: str | None = None
    actor_type: str
    actor_id: str
    actor_name: str
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    at: datetime


class Confirmation(SQLModel, table=True):
    """An action waiting for the owner's "Allow once": bound to command, tool and argument fingerprint."""

    __tablename__ = "confirmations"
    __table_args__ = (
        Index("ix_confirmations_match", "command_id", "tool", "fingerprint"),
        Index("ix_confirmations_open_expiry", "state", "expires_at"),  # the sweeper's expiries
    )
    id: str = Field(primary_key=True)
    channel_id: str = Field(foreign_key="channels.id", index=True)
    command_id: str = Field(foreign_key="commands.id")
    client_id: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    fingerprint: str
    action: str
    state: str
    """pending → granted → consumed, or rejected / expired / cancelled."""
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None


class ServerSetting(SQLModel, table=True):
    """A value every instance on this database shares: the server secret (`romergo.access.secrets`)."""

    __tablename__ = "server_settings"
    name: str = Field(primary_key=True)
    value: str


class RateCount(SQLModel, table=True):
    """Attempts for one key in one fixed window, when several instances share their limits."""

    __tablename__ = "rate_counts"
    key: str = Field(primary_key=True)
    period: int = Field(primary_key=True)
    """The window's number: seconds since the epoch divided by the window's length."""
    count: int
    expires_at: int = Field(index=True)
    """Seconds since the epoch after which no limiter reads this row (the sweeper deletes it)."""


# The agents' tables have a module of their own; they stay importable from here.
from storage.agent_tables import (  # noqa: E402
    AgentActivity,
    AgentAuthorization,
    AgentClient,
    AgentCode,
    AgentGrant,
    AgentRead,
    AgentToken,
    TrustedClientDocument,
)
from storage.invitation_tables import Invitation  # noqa: E402

__all__ = [
    "AgentActivity",
    "AgentAuthorization",
    "AgentClient",
    "AgentCode",
    "AgentGrant",
    "AgentRead",
    "AgentToken",
    "Invitation",
    "TrustedClientDocument",
]
