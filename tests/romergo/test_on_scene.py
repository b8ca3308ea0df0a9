"""Who is on a scene: tabs follow their place, drafts belong to the tab's scene, agents count until
their command is done, and every change wakes that scene's listeners only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from romergo.common.bus import EventBus
from romergo.story.on_scene import AgentAtWork, BeingEdited, ScenePresence, on_scene_topic


def presence_with_wakeups() -> tuple[ScenePresence, list[str]]:
    bus = EventBus()
    woken: list[str] = []
    for scene in ("scn_a", "scn_b"):
        bus.listen(on_scene_topic(scene), _noting(woken, scene))
    return ScenePresence(bus), woken


def _noting(woken: list[str], scene: str) -> Callable[[object], None]:
    return lambda _: woken.append(scene)


def test_a_tab_moving_to_another_scene_leaves_the_first_with_its_drafts():
    presence, woken = presence_with_wakeups()
    presence.tab_at("tab1", "scn_a", "usr_1", "mara")
    presence.editing("tab1", "line_1", is_open=True)
    assert presence.on("scn_a").being_edited() == [BeingEdited("line_1", "mara")]

    presence.tab_at("tab1", "scn_b", "usr_1", "mara")

    assert presence.on("scn_a").tabs == ()
    assert [tab.editing for tab in presence.on("scn_b").tabs] == [()]
    assert woken == ["scn_a", "scn_a", "scn_a", "scn_b"]


def test_coming_back_to_the_same_scene_keeps_the_drafts_and_wakes_nobody():
    presence, woken = presence_with_wakeups()
    presence.tab_at("tab1", "scn_a", "usr_1", "mara")
    presence.editing("tab1", "line_1", is_open=True)
    presence.editing("tab1", "line_1", is_open=True)
    presence.tab_at("tab1", "scn_a", "usr_1", "mara")
    assert presence.on("scn_a").being_edited() == [BeingEdited("line_1", "mara")]
    assert woken == ["scn_a", "scn_a"]


def test_a_line_open_in_two_tabs_of_one_author_is_named_once_and_closing_one_keeps_it():
    presence, _ = presence_with_wakeups()
    for tab in ("tab1", "tab2"):
        presence.tab_at(tab, "scn_a", "usr_1", "mara")
        presence.editing(tab, "line_1", is_open=True)
    assert presence.on("scn_a").being_edited() == [BeingEdited("line_1", "mara")]

    presence.tab_closed("tab1")
    assert presence.on("scn_a").being_edited() == [BeingEdited("line_1", "mara")]
    presence.editing("tab2", "line_1", is_open=False)
    assert presence.on("scn_a").being_edited() == []
    assert [tab.tab_id for tab in presence.on("scn_a").tabs] == ["tab2"]


def test_a_draft_of_a_tab_on_no_scene_is_not_recorded():
    presence, woken = presence_with_wakeups()
    presence.editing("tab1", "line_1", is_open=True)
    presence.tab_closed("tab1")
    assert presence.on("scn_a").tabs == ()
    assert woken == []


def test_an_agent_works_on_a_scene_until_its_command_is_done():
    presence, woken = presence_with_wakeups()
    work = AgentAtWork("cli_1", "Scribe", "chn_1", "cmd_1", 4, datetime.now(UTC))
    presence.agent_working("scn_a", work)
    presence.agent_working("scn_a", work)
    presence.agent_working("scn_b", work)
    assert [(a.name, a.command_number) for a in presence.on("scn_a").agents] == [("Scribe", 4)]

    presence.command_done("cmd_2")
    presence.command_done("cmd_1")

    assert presence.on("scn_a").agents == presence.on("scn_b").agents == ()
    assert woken == ["scn_a", "scn_b", "scn_a", "scn_b"]
