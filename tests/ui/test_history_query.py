"""The history page's address-bar filters: bad values mean "no filter" or an empty history, never an
error (they come from whoever typed or shared the link)."""

from __future__ import annotations

import pytest

from romergo.story import HistoryFilter
from tests.support.story import small_story
from ui.pages.history import _clean, _revision_id


@pytest.mark.parametrize("value", [None, "", "x" * 101])
def test_a_missing_or_oversized_filter_is_no_filter(value):
    assert _clean(value) is None


@pytest.mark.parametrize("value", [None, "", "abc", "-3", "1.5", "9" * 16])
def test_a_bad_page_position_is_the_newest_page(value):
    assert _revision_id(value) is None


def test_a_good_page_position_is_a_revision_id():
    assert _revision_id("42") == 42


async def test_unknown_filter_values_show_an_empty_history(services, actor):
    story = await small_story(services, actor)
    for chosen in (
        HistoryFilter(agent="client-nobody"),
        HistoryFilter(command_id="cmd_nope"),
        HistoryFilter(scene_id="scn_nope"),
    ):
        page = await services.history.history(actor, story.project_id, chosen)
        assert (page.entries, page.older) == ([], None)
    assert (await services.history.history(actor, story.project_id, before=1)).entries == []
    everything = await services.history.history(actor, story.project_id, limit=10_000)
    assert len(everything.entries) == 5  # project, chapter, two scenes, character
