"""The story map's data: layers from the start, the check's problems as marks, choices as
arrows (a choice to nowhere included), and a layout laid out once per shape of the story."""

from __future__ import annotations

import subprocess
import sys

from romergo.common.actors import system_actor
from romergo.demo import story as demo_story
from romergo.demo.seed import seed_demo
from romergo.story import ChoiceSpec
from romergo.story.story_map import layered_layout
from tests.support.story import small_story


def test_layers_follow_the_distance_from_the_start_and_strays_go_below():
    ids = ["a", "b", "c", "d", "stray", "stray2"]
    edges = [("a", "b"), ("b", "c"), ("a", "d"), ("d", "a"), ("stray", "stray2")]
    layout = layered_layout(ids, edges, ["a"])
    layer = {scene_id: y for scene_id, (_, y) in layout.items()}
    assert (layer["a"], layer["b"], layer["d"], layer["c"]) == (0, 1, 1, 2)
    assert layer["stray"] == 3 and layer["stray2"] == 4  # below everything the start reaches
    xs = [x for x, y in layout.values() if y == 1]
    assert len(set(xs)) == 2  # two scenes in one layer never share a place


def test_the_server_loads_the_layout_engine_without_matplotlib_or_numpy_and_leaves_them_importable():
    # A fresh interpreter: this one may have imported them already. The test extras install both,
    # so igraph's drawing half would import matplotlib here if it were let, and igraph's `Graph`
    # constructor numpy (docs/performance.md: 11 MB, and the first map's time).
    probe = (
        "import sys\n"
        "from app import load_layout_engine\n"
        "from romergo.story.story_map import layered_layout\n"
        "load_layout_engine()\n"
        "assert layered_layout(['a', 'b'], [('a', 'b')], ['a'])['b'][1] == 1\n"
        "assert 'matplotlib' not in sys.modules, 'igraph pulled matplotlib in'\n"
        "assert 'numpy' not in sys.modules, 'igraph pulled numpy in'\n"
        "import matplotlib\n"
        "print(matplotlib.__name__)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "matplotlib"


def test_with_other_threads_running_the_layout_engine_is_a_plain_import():
    probe = (
        "import sys, threading\n"
        "from app import load_layout_engine\n"
        "stop = threading.Event()\n"
        "threading.Thread(target=stop.wait).start()\n"
        "load_layout_engine()\n"
        "stop.set()\n"
        "assert sys.modules.get('matplotlib', 'absent') is not None\n"
        "print('igraph' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


async def test_the_demo_map_marks_the_unreachable_cellar(services, author):
    project, _ = await seed_demo(services, author.id)
    actor = system_actor(author.id)
    story_map = await services.reads.story_map(actor, project.id)
    data = await services.reads.project_data(actor, project.id)
    assert len(story_map.nodes) == len(data.scenes) == 12
    assert len(story_map.arrows) == len(data.choices)
    by_title = {node.title: node for node in story_map.nodes}
    cellar = by_title[demo_story.DELIBERATE_PROBLEM_SCENE]
    assert cellar.marks == ("unreachable",) and cellar.serious
    start = next(node for node in story_map.nodes if node.is_start)
    assert start.y == 0 and not start.marks
    assert cellar.y > max(node.y for node in story_map.nodes if node is not cellar)
    assert [title for _, title in story_map.chapters] == [c.title for c in data.chapters_in_order()]


async def test_a_choice_to_nowhere_is_an_arrow_without_target_and_layouts_are_kept(services, actor):
    story = await small_story(services, actor)
    await services.scenes.update_scene(actor, story.first_scene_id, is_start=True)
    await services.scenes.set_choices(actor, story.first_scene_id, [ChoiceSpec("On", story.second_scene_id)])
    first = await services.reads.story_map(actor, story.project_id)
    await services.lines.add_line(actor, story.first_scene_id, "Words change nothing of the shape.")
    second = await services.reads.story_map(actor, story.project_id)
    assert [(n.x, n.y) for n in first.nodes] == [(n.x, n.y) for n in second.nodes]
    await services.scenes.delete_scene(actor, story.second_scene_id)
    third = await services.reads.story_map(actor, story.project_id)
    (arrow,) = third.arrows
    assert (arrow.source, arrow.target, arrow.label) == (story.first_scene_id, None, "On")
    (node,) = third.nodes
    assert "choice leads nowhere" in node.marks and node.serious
