"""Story state through the agent's tools: variables added, renamed and deleted; conditions
and effects set on choices, lines and scenes; and a simulated play-through of the demo that walks
the agent to the demo's state problem with the evidence."""

from __future__ import annotations

from romergo.common.actors import system_actor
from romergo.demo import story as demo_story
from romergo.demo.seed import seed_demo
from tests.support.tools import agent_of, furnished_story, story_state, unrevised


async def test_simulating_the_demo_leads_to_its_state_problem_and_to_the_keys_ending(services, author):
    project, _ = await seed_demo(services, author.id)
    beacon, signal = demo_story.DELIBERATE_STATE_PROBLEM
    async with agent_of(services, "writer") as agent:
        check = await agent.ok("romergo_check_story", project_id=project.id)
        to_the_beacon = await agent.ok(
            "romergo_simulate_playthrough",
            project_id=project.id,
            choices=["Climb to the lighthouse", "Go inside", "Light the lamp", signal],
        )
        with_the_key = await agent.ok(
            "romergo_simulate_playthrough",
            project_id=project.id,
            choices=[
                "Ask around the tavern",
                "Follow the stranger",
                "Hide in the cave",
                "Slip away to the pier",
                "Show Tom his key",
            ],
        )
    never = [p for p in check["problems"] if p["code"] == "never_true_condition"]
    assert len(never) == 1 and signal in never[0]["message"] and "lens_mended" in never[0]["message"]

    assert [step["title"] for step in to_the_beacon["steps"]] == [
        "Arrival at the Harbor",
        "The Lighthouse Door",
        "The Lamp Room",
        beacon,
    ]
    assert to_the_beacon["outcome"] == "hidden" and signal in to_the_beacon["message"]
    last = to_the_beacon["steps"][-1]
    assert last["state"] == {"has_key": False, "lens_mended": False}
    assert {"label": signal, "shown": False, "condition": "lens_mended"}.items() <= next(
        c for c in last["choices"] if c["label"] == signal
    ).items()

    steps = with_the_key["steps"]
    assert with_the_key["outcome"] == "ending" and steps[-1]["title"] == "A New Keeper"
    cave = next(step for step in steps if step["title"] == "The Smugglers' Cave")
    pier = next(step for step in steps if step["title"] == "Confrontation on the Pier")
    assert cave["state"]["has_key"] is True  # the cave's entry effect
    assert pier["lines_hidden"] == 0 and pier["picked"] == "Show Tom his key"


async def test_the_agent_declares_a_variable_uses_it_renames_it_and_deletes_it(services, actor):
    story = await furnished_story(services, actor)
    async with agent_of(services, "writer") as agent:
        added = await agent.ok(
            "romergo_add_variable",
            project_id=story.project_id,
            name="courage",
            type="number",
            initial=1,
            description="How brave the hero feels",
        )
        entering = await agent.ok(
            "romergo_update_scene", scene_id=story.first_scene_id, entry_effects="set courage = courage + 1"
        )
        line = await agent.ok(
            "romergo_add_dialogue_line",
            scene_id=story.first_scene_id,
            text="I fear nothing.",
            condition="courage >= 2",
        )
        choices = await agent.ok(
            "romergo_set_choices",
            scene_id=story.first_scene_id,
            choices=[
                {
                    "label": "Charge",
                    "target_scene_id": story.second_scene_id,
                    "condition": "courage > 1",
                    "effects": "set courage = 0",
                }
            ],
        )
        in_use = await agent.error("romergo_delete_variable", variable_id=added["id"])
        renamed = await agent.ok("romergo_update_variable", variable_id=added["id"], name="nerve", initial=2)
        scene = await agent.ok("romergo_get_scene", scene_id=story.first_scene_id)
        await agent.ok("romergo_update_scene", scene_id=story.first_scene_id, entry_effects="")
        await agent.ok("romergo_update_dialogue_line", line_id=line["id"], condition="")
        await agent.ok(
            "romergo_set_choices",
            scene_id=story.first_scene_id,
            choices=[{"label": "Charge", "target_scene_id": story.second_scene_id}],
        )
        deleted = await agent.ok("romergo_delete_variable", variable_id=added["id"])
        listed = await agent.ok("romergo_list_variables", project_id=story.project_id)

    assert unrevised(added) == {
        "entity_type": "variable",
        "id": added["id"],
        "project_id": story.project_id,
        "name": "courage",
        "type": "number",
        "initial": 1,
        "description": "How brave the hero feels",
    }
    assert entering["entry_effects"] == "set courage = courage + 1"
    assert line["condition"] == "courage >= 2"
    [charge] = choices["choices"]
    assert (charge["condition"], charge["effects"]) == ("courage > 1", "set courage = 0")
    assert in_use.startswith("[conflict] ") and 'the choice "Charge"' in in_use
    assert unrevised(renamed) == unrevised(added) | {"name": "nerve", "initial": 2}
    assert scene["scene"]["entry_effects"] == "set nerve = nerve + 1"
    assert [ln["condition"] for ln in scene["lines"] if ln["id"] == line["id"]] == ["nerve >= 2"]
    assert (scene["choices"][0]["condition"], scene["choices"][0]["effects"]) == (
        "nerve > 1",
        "set nerve = 0",
    )
    assert deleted == {"entity_type": "variable", "id": added["id"], "deleted": True}
    assert listed["variables"] == []


async def test_bad_variables_conditions_and_effects_are_refused_and_change_nothing(services, actor):
    story = await furnished_story(services, actor)
    flag = await services.variables.add_variable(actor, story.project_id, "has_key", "flag")
    async with agent_of(services, "writer") as agent:
        before = await story_state(services)
        refusals = [
            await agent.error("romergo_add_variable", project_id=story.project_id, name="2fast", type="flag"),
            await agent.error("romergo_add_variable", project_id=story.project_id, name="and", type="flag"),
            await agent.error(
                "romergo_add_variable", project_id=story.project_id, name="HAS_KEY", type="flag"
            ),
            await agent.error(
                "romergo_add_variable",
                project_id=story.project_id,
                name="gold",
                type="number",
                initial="lots",
            ),
            await agent.error("romergo_add_variable", project_id=story.project_id, name="gold", type="coins"),
            await agent.error("romergo_update_variable", variable_id=flag.id, initial=3),
            await agent.error("romergo_update_variable", variable_id="var_nope", name="x"),
            await agent.error(
                "romergo_update_scene", scene_id=story.first_scene_id, entry_effects="set has_key = 1"
            ),
            await agent.error(
                "romergo_add_dialogue_line",
                scene_id=story.first_scene_id,
                text="Hm.",
                condition="has_key and",
            ),
            await agent.error("romergo_update_dialogue_line", line_id=story.spoken_id, condition="gold > 2"),
            await agent.error(
                "romergo_set_choices",
                scene_id=story.first_scene_id,
                choices=[
                    {"label": "Go", "target_scene_id": None, "condition": "has_key", "effects": "has_key"}
                ],
            ),
        ]
    assert await story_state(services) == before
    codes = [text.split("]")[0] + "]" for text in refusals]
    assert (
        codes
        == ["[invalid_argument]"] * 2
        + ["[conflict]"]
        + ["[invalid_argument]"] * 3
        + ["[not_found]"]
        + ["[invalid_argument]"] * 4
    ), refusals
    assert "⟨here⟩" in refusals[7] and "'has_key' is a flag" in refusals[7]
    assert "there is no variable called 'gold'" in refusals[9]
    assert "an effect starts with 'set'" in refusals[10]


async def test_variables_belong_to_the_owner(services, actor):
    story = await furnished_story(services, actor)
    theirs = await services.variables.add_variable(actor, story.project_id, "secret", "text", "shh")
    await services.accounts.create_user("intruder")
    async with agent_of(services, "intruder") as agent:
        before = await story_state(services)
        refused = [
            await agent.error("romergo_update_variable", variable_id=theirs.id, name="mine"),
            await agent.error("romergo_delete_variable", variable_id=theirs.id),
            await agent.error("romergo_list_variables", project_id=story.project_id),
        ]
    assert all(text.startswith("[not_found] ") for text in refused) and "shh" not in str(refused)
    assert await story_state(services) == before
    assert (await services.variables.list_variables(system_actor(actor.user_id), story.project_id))[
        0
    ].initial == "shh"
