"""Story state: a project's variables, and where conditions and effects are written.

Conditions and effects are stored as the text the author wrote (checked when saved; parsed when
the story is played or checked), so a renamed variable is a rewrite of that text.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "story_variables",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("project_id", sa.String(), sa.ForeignKey("projects.id"), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("initial", sa.JSON(), nullable=True),
        sa.Column("description", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_story_variables_project_name", "story_variables", ["project_id", "name"], unique=True)
    with op.batch_alter_table("choices") as table:
        table.add_column(sa.Column("condition", sa.String(), nullable=True))
        table.add_column(sa.Column("effects", sa.String(), nullable=True))
    with op.batch_alter_table("dialogue_lines") as table:
        table.add_column(sa.Column("condition", sa.String(), nullable=True))
    with op.batch_alter_table("scenes") as table:
        table.add_column(sa.Column("entry_effects", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("scenes") as table:
        table.drop_column("entry_effects")
    with op.batch_alter_table("dialogue_lines") as table:
        table.drop_column("condition")
    with op.batch_alter_table("choices") as table:
        table.drop_column("effects")
        table.drop_column("condition")
    op.drop_index("ix_story_variables_project_name", "story_variables")
    op.drop_table("story_variables")
