"""The entity shapes: read straight from the records, the same fields for tool results and revisions."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from romergo.story import snapshots
from romergo.story.records import AssetRecord, ChoiceRecord, ProjectRecord, SceneRecord
from romergo.story.shapes import AssetEntity, ProjectEntity, SceneEntity

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def scene_record() -> SceneRecord:
    return SceneRecord(
        id="scn_1",
        project_id="prj_1",
        chapter_id="chp_1",
        title="Harbour",
        position=2,
        is_start=True,
        is_ending=False,
        background_asset_id="ast_1",
        music_asset_id=None,
        entry_effects=None,
        created_at=NOW,
        updated_at=NOW,
    )


def test_a_tool_result_is_the_record_read_into_its_shape_with_its_entity_type():
    entity = SceneEntity.model_validate(scene_record())
    assert entity.model_dump() == {
        "entity_type": "scene",
        "id": "scn_1",
        "chapter_id": "chp_1",
        "title": "Harbour",
        "position": 2,
        "is_start": True,
        "is_ending": False,
        "background_asset_id": "ast_1",
        "music_asset_id": None,
        "entry_effects": None,
    }


def test_a_scene_snapshot_keeps_the_keys_stored_revisions_have():
    choice = ChoiceRecord(
        id="chc_1",
        project_id="prj_1",
        scene_id="scn_1",
        label="Go",
        target_scene_id=None,
        position=0,
        condition=None,
        effects=None,
    )
    assert snapshots.scene(scene_record(), [choice]) == {
        "id": "scn_1",
        "project_id": "prj_1",
        "chapter_id": "chp_1",
        "title": "Harbour",
        "position": 2,
        "is_start": True,
        "is_ending": False,
        "background_asset_id": "ast_1",
        "music_asset_id": None,
        "choices": [{"id": "chc_1", "label": "Go", "target_scene_id": None, "position": 0}],
    }
    assert "choices" not in snapshots.scene(scene_record())


def test_project_and_asset_snapshots_add_what_undo_needs_beyond_the_public_shape():
    project = ProjectRecord(
        id="prj_1",
        owner_id="usr_1",
        title="T",
        created_at=NOW,
        updated_at=NOW,
        published=True,
        share_id="s",
        published_at=None,
        deleted_at=None,
    )
    assert snapshots.project(project) == {"id": "prj_1", "title": "T", "published": True, "share_id": "s"}
    assert "share_id" not in ProjectEntity.model_validate(project).model_dump()
    asset = AssetRecord(
        id="ast_1",
        project_id="prj_1",
        kind="music",
        name="Waves",
        tags=["sea"],
        mime="audio/ogg",
        size=10,
        sha256="abc",
        blob_id="blb_1",
        created_at=NOW,
        deleted_at=None,
    )
    live = snapshots.asset(asset)
    assert live == {
        "id": "ast_1",
        "project_id": "prj_1",
        "kind": "music",
        "name": "Waves",
        "tags": ["sea"],
        "mime": "audio/ogg",
        "size": 10,
        "sha256": "abc",
        "deleted": False,
    }
    assert snapshots.asset(replace(asset, deleted_at=NOW))["deleted"] is True
    public = set(AssetEntity.model_validate(asset).model_dump())
    assert public == {"entity_type", *live} - {"sha256", "deleted"}
