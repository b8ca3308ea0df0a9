"""Entities made without their constructor (`storage.core_tables.loaded`), for the busy path, and
records made from a table's row (`record_maker`) or from the columns they hold (`record_columns`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, inspect, select
from sqlalchemy.orm import Session

from storage.channels.records import RoomRecord
from storage.core_tables import core_table, loaded, record_columns, record_maker, width
from storage.story.records import ChapterRecord, SceneRecord
from storage.tables import Channel, Command, Scene

AT = datetime(2026, 12, 6, 21, 0, tzinfo=UTC)
POSTED = {
    "id": "cmd_x",
    "channel_id": "chn_x",
    "seq": 3,
    "text": "Tidy the opening",
    "state": "queued",
    "created_at": AT,
}


def test_loaded_entities_carry_the_orm_state_a_session_needs():
    # They are made as SQLAlchemy's loader makes entities (the mapper's class manager); if a release
    # moves that, this fails here first rather than deep in a room's or a scene's view.
    command = loaded(Command, [POSTED.get(column.key) for column in core_table(Command).columns])
    scene = loaded(Scene, [None] * width(Scene))

    assert inspect(command).transient and inspect(scene).transient
    engine = create_engine("sqlite://")
    core_table(Command).create(engine)
    with Session(engine) as session:
        session.add(command)
        session.commit()
        stored = session.scalars(select(Command)).one()
    assert (stored.id, stored.seq, stored.state) == ("cmd_x", 3, "queued")


def test_a_record_is_made_from_a_row_of_its_tables_columns_in_order():
    values = ("scn_1", "prj_1", "chp_1", "Opening", 0, True, False, None, "ast_1", None, AT, AT)
    scene = record_maker(SceneRecord, Scene)(values)

    assert scene == SceneRecord(*values)
    assert (scene.title, scene.is_start, scene.music_asset_id) == ("Opening", True, "ast_1")


def test_a_record_whose_fields_are_not_the_tables_columns_is_refused():
    with pytest.raises(TypeError, match="ChapterRecord's fields are not Scene's columns"):
        record_maker(ChapterRecord, Scene)


def test_a_record_that_leaves_a_column_out_selects_the_columns_it_holds_in_its_own_order():
    columns = record_columns(RoomRecord, Channel)

    assert [column.name for column in columns] == [field for field in RoomRecord.__dataclass_fields__]
    assert "code_hash" not in {column.name for column in columns}
    assert all(column.table is core_table(Channel) for column in columns)


def test_a_record_field_that_is_no_column_is_refused():
    with pytest.raises(KeyError):
        record_columns(ChapterRecord, Channel)
