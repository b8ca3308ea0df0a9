"""Story core: users, projects, chapters, scenes, lines, choices, characters, assets, revisions.

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _stamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("username", sa.String(), nullable=False),
        sa.Column("password_hash", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_users_username", "users", ["username"], unique=True)

    op.create_table(
        "projects",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("owner_id", sa.String(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        *_stamps(),
        sa.Column("published", sa.Boolean(), nullable=False),
        sa.Column("share_id", sa.String(), nullable=True, unique=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("published_snapshot", sa.JSON(), nullable=True),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_projects_owner_id", "projects", ["owner_id"])

    op.create_table(
        "chapters",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("music_asset_id", sa.String(), nullable=True),
        sa.Column("background_asset_id", sa.String(), nullable=True),
        *_stamps(),
    )
    op.create_index("ix_chapters_project_position", "chapters", ["project_id", "position"])

    op.create_table(
        "scenes",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("chapter_id", sa.String(), sa.ForeignKey("chapters.id"), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("is_start", sa.Boolean(), nullable=False),
        sa.Column("is_ending", sa.Boolean(), nullable=False),
        sa.Column("background_asset_id", sa.String(), nullable=True),
        sa.Column("music_asset_id", sa.String(), nullable=True),
        *_stamps(),
    )
    op.create_index("ix_scenes_project_id", "scenes", ["project_id"])
    op.create_index("ix_scenes_chapter_position", "scenes", ["chapter_id", "position"])

    op.create_table(
        "dialogue_lines",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("scene_id", sa.String(), sa.ForeignKey("scenes.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("character_id", sa.String(), nullable=True),
        sa.Column("text", sa.String(), nullable=False),
        *_stamps(),
    )
    op.create_index("ix_dialogue_lines_project_id", "dialogue_lines", ["project_id"])
    op.create_index("ix_dialogue_lines_scene_position", "dialogue_lines", ["scene_id", "position"])

    op.create_table(
        "choices",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("scene_id", sa.String(), sa.ForeignKey("scenes.id"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(), nullable=False),
        sa.Column("target_scene_id", sa.String(), nullable=True),
    )
    op.create_index("ix_choices_project_id", "choices", ["project_id"])
    op.create_index("ix_choices_scene_position", "choices", ["scene_id", "position"])

    op.create_table(
        "characters",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("color", sa.String(), nullable=False),
        *_stamps(),
    )
    op.create_index("ix_characters_project_id", "characters", ["project_id"])

    op.create_table(
        "asset_blobs",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "assets",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("mime", sa.String(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(), nullable=False),
        sa.Column("blob_id", sa.String(), sa.ForeignKey("asset_blobs.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_assets_project_id", "assets", ["project_id"])

    op.create_table(
        "revisions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("entity_type", sa.String(), nullable=False),
        sa.Column("entity_id", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("actor_type", sa.String(), nullable=False),
        sa.Column("actor_id", sa.String(), nullable=False),
        sa.Column("command_id", sa.String(), nullable=True),
        sa.Column("tool", sa.String(), nullable=True),
        sa.Column("client_id", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_revisions_project_id", "revisions", ["project_id", "id"])
    op.create_index("ix_revisions_command_id", "revisions", ["command_id"])


def downgrade() -> None:
    for table in (
        "revisions",
        "assets",
        "asset_blobs",
        "characters",
        "choices",
        "dialogue_lines",
        "scenes",
        "chapters",
        "projects",
        "users",
    ):
        op.drop_table(table)
