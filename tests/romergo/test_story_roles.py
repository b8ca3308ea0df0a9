"""Who may do what in a story, through the story services: every read is any member's, every
write an owner's or an editor's, deleting the story the owner's alone; someone who is not a member
finds nothing. A refused write changes nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from romergo.common.actors import Actor, user_actor
from romergo.common.errors import RomergoError
from romergo.services import Services
from romergo.story.base import collect_batches
from romergo.story.choice_lists import ChoiceSpec
from romergo.story.patterns import SearchQuery
from tests.support.story import TINY_PNG, SmallStory, database_state, small_story

DATABASES = ("sqlite",)  # the rule is the core's; the ledgers' contract tests run on both


@dataclass
class Story:
    services: Services
    story: SmallStory
    line_id: str
    variable_id: str
    asset_id: str
    batch: str


Action = Callable[[Story, Actor], Awaitable[Any]]


def _s(story: Story) -> SmallStory:
    return story.story


READS: dict[str, Action] = {
    "get_project": lambda s, a: s.services.projects.get_project(a, _s(s).project_id),
    "outline": lambda s, a: s.services.reads.outline(a, _s(s).project_id),
    "project_data": lambda s, a: s.services.reads.project_data(a, _s(s).project_id),
    "project_of": lambda s, a: s.services.reads.project_of(a, "scene", _s(s).first_scene_id),
    "revisions": lambda s, a: s.services.reads.revisions(a, _s(s).project_id, ("scene",)),
    "check_story": lambda s, a: s.services.reads.check_story(a, _s(s).project_id),
    "story_map": lambda s, a: s.services.reads.story_map(a, _s(s).project_id),
    "simulate": lambda s, a: s.services.reads.simulate(a, _s(s).project_id),
    "chapter_ids": lambda s, a: s.services.reads.chapter_ids(a, _s(s).project_id),
    "scene_view": lambda s, a: s.services.scenes.scene_view(a, _s(s).first_scene_id),
    "chapter_outline": lambda s, a: s.services.chapters.chapter_outline(a, _s(s).chapter_id),
    "find_assets": lambda s, a: s.services.assets.find_assets(a, _s(s).project_id),
    "assets_with_usage": lambda s, a: s.services.assets.assets_with_usage(a, _s(s).project_id),
    "asset_content": lambda s, a: s.services.assets.asset_content(a, s.asset_id),
    "list_variables": lambda s, a: s.services.variables.list_variables(a, _s(s).project_id),
    "search": lambda s, a: s.services.search.search(a, _s(s).project_id, SearchQuery("Hello")),
    "history": lambda s, a: s.services.history.history(a, _s(s).project_id),
    "names": lambda s, a: s.services.history.names(a, _s(s).project_id),
    "last_change": lambda s, a: s.services.history.last_change(
        a, _s(s).project_id, "scene", _s(s).first_scene_id
    ),
    "members": lambda s, a: s.services.members.members(a, _s(s).project_id),
}

WRITES: dict[str, Action] = {
    "rename_project": lambda s, a: s.services.projects.rename_project(a, _s(s).project_id, "Renamed"),
    "add_chapter": lambda s, a: s.services.chapters.add_chapter(a, _s(s).project_id, "Two"),
    "update_chapter": lambda s, a: s.services.chapters.update_chapter(a, _s(s).chapter_id, "Uno"),
    "move_chapter": lambda s, a: s.services.chapters.move_chapter(a, _s(s).chapter_id, 0),
    "delete_chapter": lambda s, a: s.services.chapters.delete_chapter(a, _s(s).chapter_id),
    "add_scene": lambda s, a: s.services.scenes.add_scene(a, _s(s).chapter_id, "Middle"),
    "update_scene": lambda s, a: s.services.scenes.update_scene(a, _s(s).first_scene_id, "Dawn"),
    "move_scene": lambda s, a: s.services.scenes.move_scene(a, _s(s).first_scene_id, _s(s).chapter_id, 1),
    "delete_scene": lambda s, a: s.services.scenes.delete_scene(a, _s(s).second_scene_id),
    "set_choices": lambda s, a: s.services.scenes.set_choices(
        a, _s(s).first_scene_id, [ChoiceSpec("On", _s(s).second_scene_id)]
    ),
    "set_scene_background": lambda s, a: s.services.scenes.set_scene_background(
        a, _s(s).first_scene_id, s.asset_id
    ),
    "add_line": lambda s, a: s.services.lines.add_line(a, _s(s).first_scene_id, "More", _s(s).hero_id),
    "update_line": lambda s, a: s.services.lines.update_line(a, s.line_id, "Hello there"),
    "move_line": lambda s, a: s.services.lines.move_line(a, s.line_id, 0),
    "delete_line": lambda s, a: s.services.lines.delete_line(a, s.line_id),
    "add_character": lambda s, a: s.services.characters.add_character(a, _s(s).project_id, "Villain"),
    "update_character": lambda s, a: s.services.characters.update_character(a, _s(s).hero_id, "Heroine"),
    "import_asset": lambda s, a: s.services.assets.import_asset(
        a, _s(s).project_id, "background", "Sea", TINY_PNG
    ),
    "update_asset": lambda s, a: s.services.assets.update_asset(a, s.asset_id, "Skies"),
    "delete_asset": lambda s, a: s.services.assets.delete_asset(a, s.asset_id),
    "add_variable": lambda s, a: s.services.variables.add_variable(a, _s(s).project_id, "gold", "number", 1),
    "update_variable": lambda s, a: s.services.variables.update_variable(
        a, s.variable_id, description="Luck"
    ),
    "delete_variable": lambda s, a: s.services.variables.delete_variable(a, s.variable_id),
    "duplicate_scene": lambda s, a: s.services.copies.duplicate_scene(a, _s(s).first_scene_id),
    "duplicate_chapter": lambda s, a: s.services.copies.duplicate_chapter(a, _s(s).chapter_id),
    "publish_project": lambda s, a: s.services.publishing.publish_project(a, _s(s).project_id),
    "replace": lambda s, a: s.services.search.replace(a, _s(s).project_id, SearchQuery("Hello"), "Hi"),
    "undo": lambda s, a: s.services.undo.undo(a, f"batch:{s.batch}"),
}

OWNERS_ALONE: dict[str, Action] = {
    "delete_project": lambda s, a: s.services.projects.delete_project(a, _s(s).project_id),
}


async def _story(services: Services, owner: Actor) -> Story:
    story = await small_story(services, owner)
    line = await services.lines.add_line(owner, story.first_scene_id, "Hello", story.hero_id)
    variable = await services.variables.add_variable(owner, story.project_id, "luck", "flag", False)
    asset = await services.assets.import_asset(owner, story.project_id, "background", "Sky", TINY_PNG)
    with collect_batches() as batches:
        await services.characters.update_character(owner, story.hero_id, color="#123456")
    return Story(services, story, line.id, variable.id, asset.id, batches[0])


async def _member(services: Services, owner: Actor, story: Story, name: str, role: str) -> Actor:
    user = await services.accounts.create_user(name)
    if role != "owner":
        await services.members.add_member(owner, story.story.project_id, name, role)
    return user_actor(user.id, user.username)


async def _as(services: Services, actor: Actor, role: str) -> tuple[Story, Actor]:
    story = await _story(services, actor)
    if role == "owner":
        return story, actor
    return story, await _member(services, actor, story, f"{role}-member", role)


ROLES = ("owner", "editor", "viewer")


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("name", sorted(READS))
async def test_every_member_reads(services, actor, role, name):
    story, member = await _as(services, actor, role)
    await READS[name](story, member)


@pytest.mark.parametrize("name", sorted(READS))
async def test_someone_who_is_not_a_member_finds_nothing(services, actor, name):
    story = await _story(services, actor)
    stranger = await services.accounts.create_user("stranger")
    with pytest.raises(RomergoError) as refused:
        await READS[name](story, user_actor(stranger.id, stranger.username))
    assert refused.value.code == "not_found"


@pytest.mark.parametrize("role", ("owner", "editor"))
@pytest.mark.parametrize("name", sorted(WRITES))
async def test_an_owner_and_an_editor_write(services, actor, role, name):
    story, member = await _as(services, actor, role)
    await WRITES[name](story, member)


@pytest.mark.parametrize("name", sorted({**WRITES, **OWNERS_ALONE}))
async def test_a_viewers_write_is_refused_and_changes_nothing(services, actor, name):
    story, viewer = await _as(services, actor, "viewer")
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await {**WRITES, **OWNERS_ALONE}[name](story, viewer)
    assert refused.value.code == "permission_denied"
    assert "viewer" in refused.value.message
    assert await database_state(services) == before


async def test_only_the_owner_deletes_the_story(services, actor):
    story, editor = await _as(services, actor, "editor")
    before = await database_state(services)
    with pytest.raises(RomergoError) as refused:
        await OWNERS_ALONE["delete_project"](story, editor)
    assert refused.value.code == "permission_denied"
    assert await database_state(services) == before

    await OWNERS_ALONE["delete_project"](story, actor)
    with pytest.raises(RomergoError) as gone:
        await READS["get_project"](story, editor)
    assert gone.value.code == "not_found"


@pytest.mark.parametrize("name", sorted(WRITES))
async def test_someone_who_is_not_a_member_cannot_write_and_learns_nothing(services, actor, name):
    story = await _story(services, actor)
    stranger = await services.accounts.create_user("stranger")
    with pytest.raises(RomergoError) as refused:
        await WRITES[name](story, user_actor(stranger.id, stranger.username))
    assert refused.value.code == "not_found"


async def test_a_member_lists_the_projects_they_belong_to_with_their_role(services, actor):
    story, editor = await _as(services, actor, "editor")
    theirs = await services.projects.create_project(editor, "Their own")
    listed = await services.projects.projects_with_roles(editor)
    assert [(project.id, role.value) for project, role in listed] == [
        (theirs.id, "owner"),
        (story.story.project_id, "editor"),
    ]
    assert [project.id for project in await services.projects.list_projects(editor)] == [
        theirs.id,
        story.story.project_id,
    ]
    outline = await services.reads.outline(editor, story.story.project_id)
    assert outline.role is not None and outline.role.value == "editor"
