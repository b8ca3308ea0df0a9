"""The six things the demo agent can do, each ending in a truthful reply it has checked.

Every rule reads what it needs, makes at most one change through the public tools (passing the
command id), reads the result back, and replies with a summary of exactly what changed. Missing
context (no open scene, no selection) becomes a question to the owner.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from demo_agent.intents import HELP, Intent
from demo_agent.rewrite import rewrite_span
from demo_agent.session import ToolCaller, ToolFailure, data_of

TRANSITION_CODES = (
    *("dangling_target", "unreachable_scene", "dead_end", "loop_without_exit", "no_start_scene"),
    "blank_scene",
)
ADVICE = {
    "dangling_target": "Point the choice at an existing scene, or remove it.",
    "unreachable_scene": "Add a choice in another scene that leads here, or delete the scene.",
    "dead_end": "Add a choice that leads on, or mark the scene as an ending.",
    "loop_without_exit": "Give one of these scenes a choice that leads out of the loop.",
    "no_start_scene": "Mark one scene as the start of the story.",
    "missing_background": "Pick a background for the scene or its chapter.",
    "missing_music": "Pick music for the scene or its chapter.",
    "empty_scene": "Write at least one line of dialogue or narration.",
    "unknown_speaker": "Choose an existing character for the line, or make it narration.",
    "blank_scene": "Write a line and a choice that leads on (or mark it as an ending), or delete the scene.",
    "empty_choice_label": "Give the choice a label the player can read.",
    "duplicate_choice_label": "Word the choices differently so the player can tell them apart.",
    "unreadable_media": "Import the file again and pick it for the scenes that use it.",
    "never_true_condition": "Set the variable in an effect somewhere on the way, or change the condition.",
    "unset_variable": "Set it in a choice's effects or a scene's entry effects, or stop reading it.",
    "undeclared_variable": "Declare the variable, or correct its name.",
    "stuck_choices": "Give the scene a choice without a condition, or one that holds when the others do not.",
    "blocked_scene": "Make one of the conditions on the way to it hold somewhere.",
}


class NeedsAnswer(Exception):
    """The rule cannot go on without the owner: ask them."""


@dataclass
class Work:
    call: ToolCaller
    command: dict[str, Any]
    context: dict[str, Any]
    report: Callable[[str, str, dict[str, Any] | None], Awaitable[None]]

    @property
    def command_id(self) -> str:
        return str(self.command["command_id"])

    @property
    def project_id(self) -> str:
        return str(self.context.get("project_id") or "")

    async def read(self, tool: str, **arguments: Any) -> Any:
        return data_of(await self.call(tool, arguments))

    async def change(self, tool: str, **arguments: Any) -> Any:
        return data_of(await self.call(tool, {**arguments, "command_id": self.command_id}))

    async def already_done(self) -> list[dict[str, Any]]:
        """After a redelivery: what this command already changed, so nothing is done twice."""
        if not self.command.get("redelivered"):
            return []
        changes = await self.read("romergo_list_command_changes", command_id=self.command_id)
        return list(changes.get("changes", [])) if isinstance(changes, dict) else []

    def scene_url(self, scene_id: str) -> str:
        return f"/projects/{self.project_id}/scenes/{scene_id}"

    def chapter_url(self, chapter_id: str) -> str:
        return f"/projects/{self.project_id}/chapters/{chapter_id}"

    def require_scene(self) -> str:
        scene_id = self.context.get("scene_id")
        if not scene_id:
            raise NeedsAnswer(
                "Which scene do you mean? Open the scene in the editor and send the command again."
            )
        return str(scene_id)


async def describe(work: Work) -> None:
    scene_id = work.require_scene()
    await work.report("status", "Reading the scene.", None)
    view = await work.read("romergo_get_scene", scene_id=scene_id)
    scene = view["scene"]
    speakers = sorted({line["speaker"] for line in view["lines"] if line.get("speaker")})
    parts = [f'"{scene["title"]}"']
    if scene.get("is_start"):
        parts.append("is where the story starts")
    if scene.get("is_ending"):
        parts.append("is an ending")
    text = " ".join(parts) + f". It has {len(view['lines'])} line(s)"
    text += f", spoken by {', '.join(speakers)}" if speakers else ", all narration"
    text += f"; background: {_slot(view['background'])}; music: {_slot(view['music'])}."
    if view["choices"]:
        options = "; ".join(f'"{c["label"]}" → {c.get("target_title") or "nowhere"}' for c in view["choices"])
        text += f" Choices: {options}."
    else:
        text += " It offers no choices."
    await work.report(
        "reply",
        text,
        _summary(
            "no_changes",
            text,
            [],
            [_check("Read the scene", True, scene["title"])],
            [(scene["title"], work.scene_url(scene_id))],
        ),
    )


async def change_music(work: Work) -> None:
    chapter_id = work.context.get("chapter_id")
    scene_id = work.context.get("scene_id")
    if not chapter_id and scene_id:
        chapter_id = (await work.read("romergo_get_scene", scene_id=scene_id))["scene"]["chapter_id"]
    if not chapter_id:
        raise NeedsAnswer("Which chapter's music should I change? Open a scene or chapter and ask again.")
    chapter = await work.read("romergo_get_chapter", chapter_id=chapter_id)
    done = await work.already_done()
    if not any(c.get("tool") == "romergo_set_chapter_music" for c in done):
        tracks = await work.read("romergo_search_assets", project_id=work.project_id, kind="music")
        choice = _next_asset(tracks["assets"], chapter.get("music_asset_id"))
        if choice is None:
            raise NeedsAnswer(
                "There is no other music in this project. Import a track first, then ask again."
            )
        await work.report("status", f'Setting "{choice["name"]}" as the music of "{chapter["title"]}".', None)
        await work.change("romergo_set_chapter_music", chapter_id=chapter_id, asset_id=choice["id"])
    after = await work.read("romergo_get_chapter", chapter_id=chapter_id)
    name = _asset_name(
        await work.read("romergo_search_assets", project_id=work.project_id, kind="music"),
        after.get("music_asset_id"),
    )
    ok = after.get("music_asset_id") not in (None, chapter.get("music_asset_id")) or bool(done)
    note = ""
    if scene_id:
        scene = await work.read("romergo_get_scene", scene_id=scene_id)
        if scene["music"].get("source") == "scene":
            title = scene["scene"]["title"]
            note = f' Note: "{title}" has its own music, which plays instead of the chapter\'s.'
    text = f'The chapter "{after["title"]}" now plays "{name}".{note}'
    await work.report(
        "reply",
        text,
        _summary(
            "success" if ok else "failed",
            text,
            [_entity("chapter", chapter_id, after["title"], work.chapter_url(chapter_id))],
            [_check("Chapter music reads back as the new track", ok, name)],
            [(after["title"], work.chapter_url(chapter_id))],
        ),
    )


async def change_background(work: Work) -> None:
    scene_id = work.require_scene()
    before = await work.read("romergo_get_scene", scene_id=scene_id)
    done = await work.already_done()
    if not any(c.get("tool") == "romergo_set_scene_background" for c in done):
        images = await work.read("romergo_search_assets", project_id=work.project_id, kind="background")
        choice = _next_asset(images["assets"], before["background"].get("asset_id"))
        if choice is None:
            raise NeedsAnswer(
                "There is no other background in this project. Import an image first, then ask again."
            )
        await work.report("status", f'Putting "{choice["name"]}" behind "{before["scene"]["title"]}".', None)
        await work.change("romergo_set_scene_background", scene_id=scene_id, asset_id=choice["id"])
    after = await work.read("romergo_get_scene", scene_id=scene_id)
    ok = after["background"].get("source") == "scene" and (
        after["background"].get("asset_id") != before["background"].get("asset_id") or bool(done)
    )
    title = after["scene"]["title"]
    text = f'"{title}" now shows "{after["background"].get("name")}" as its background.'
    await work.report(
        "reply",
        text,
        _summary(
            "success" if ok else "failed",
            text,
            [_entity("scene", scene_id, title, work.scene_url(scene_id))],
            [
                _check(
                    "Scene background reads back as the new image", ok, str(after["background"].get("name"))
                )
            ],
            [(title, work.scene_url(scene_id))],
        ),
    )


async def rewrite_selection(work: Work) -> None:
    selection = work.context.get("selection") or {}
    if (
        selection.get("entity_type") != "dialogue_line"
        or not selection.get("entity_id")
        or not selection.get("text")
    ):
        raise NeedsAnswer(
            "Select the words in a dialogue line that I should rewrite, then send the command again."
        )
    scene_id = work.require_scene()
    line_id = selection["entity_id"]
    view = await work.read("romergo_get_scene", scene_id=scene_id)
    line = next((item for item in view["lines"] if item["id"] == line_id), None)
    if line is None:
        raise NeedsAnswer("I cannot find the selected line in this scene any more. Select it again, please.")
    done = await work.already_done()
    if not any(c.get("entity_id") == line_id for c in done):
        start, end = _span(line["text"], selection)
        if start is None:
            raise NeedsAnswer("The selected words are no longer in that line. Select them again, please.")
        new_text = rewrite_span(line["text"], start, end)
        await work.report("status", "Rewriting the selected words (a scripted, deterministic rewrite).", None)
        await work.change("romergo_update_dialogue_line", line_id=line_id, text=new_text)
    after = await work.read("romergo_get_scene", scene_id=scene_id)
    final: dict[str, Any] = next((item for item in after["lines"] if item["id"] == line_id), {})
    ok = final.get("text") not in (None, line["text"]) or bool(done)
    text = f'Scripted demo rewrite (deterministic, no AI): the line now reads "{final.get("text")}".'
    await work.report(
        "reply",
        text,
        _summary(
            "success" if ok else "failed",
            text,
            [_entity("dialogue_line", line_id, str(final.get("text", ""))[:300], work.scene_url(scene_id))],
            [_check("The line reads back with the rewrite", ok, str(final.get("text", ""))[:120])],
            [(after["scene"]["title"], work.scene_url(scene_id))],
        ),
    )


async def check_transitions(work: Work) -> None:
    await work.report("status", "Running the story check.", None)
    problems = (await work.read("romergo_check_story", project_id=work.project_id))["problems"]
    found = [p for p in problems if p["code"] in TRANSITION_CODES]
    if found:
        text = "The transitions have problems: " + " ".join(
            f"{p['message']} {ADVICE.get(p['code'], '')}" for p in found
        )
    else:
        text = (
            "Every scene can be reached from the start, every choice leads somewhere, and every path can end."
        )
    checks = [_check(code, not any(p["code"] == code for p in found), "") for code in TRANSITION_CODES]
    links = [(p["message"][:300], work.scene_url(p["scene_id"])) for p in found if p.get("scene_id")]
    await work.report("reply", text, _summary("no_changes", text, [], checks, links))


async def explain(work: Work) -> None:
    problems = (await work.read("romergo_check_story", project_id=work.project_id))["problems"]
    scene_id = work.context.get("scene_id")
    here = [p for p in problems if scene_id and p.get("scene_id") == scene_id]
    chosen = here or [p for p in problems if p["severity"] in ("error", "warning")]
    if not chosen:
        text = "The story check finds nothing wrong here. Tell me what you expected, and I will look again."
        await work.report(
            "reply", text, _summary("no_changes", text, [], [_check("Story check", True, "no problems")], [])
        )
        return
    where = "this scene" if here else "the story"
    reasons = " ".join(f"{p['message']} {ADVICE.get(p['code'], '')}".strip() for p in chosen)
    played = await _played_from(work, str(scene_id)) if here else ""
    text = f"Here is why {where} does not work as expected: {reasons}{played}"
    checks = [_check(p["code"], False, p["message"]) for p in chosen]
    links = [(p["message"][:300], work.scene_url(p["scene_id"])) for p in chosen if p.get("scene_id")]
    await work.report("reply", text, _summary("no_changes", text, [], checks, links))


async def _played_from(work: Work, scene_id: str) -> str:
    """Evidence from a simulated play-through: entering the scene with the starting values, which
    choices the player sees and which stay hidden, and why. Empty when the room cannot simulate."""
    try:
        played = await work.read(
            "romergo_simulate_playthrough", project_id=work.project_id, start_scene=scene_id, choices=[]
        )
    except ToolFailure:
        return ""
    step = played["steps"][0]
    hidden = [c for c in step["choices"] if not c["shown"]]
    if not hidden:
        return ""
    state = ", ".join(f"{name} = {json.dumps(value)}" for name, value in sorted(step["state"].items()))
    shown = "; ".join(f'"{c["label"]}" is hidden (it needs {c["condition"]})' for c in hidden)
    return f" I played the story from this scene with the starting values ({state}): {shown}."


async def ask_for_help(work: Work) -> None:
    raise NeedsAnswer(HELP)


RULES: dict[Intent, Callable[[Work], Awaitable[None]]] = {
    Intent.DESCRIBE: describe,
    Intent.MUSIC: change_music,
    Intent.REWRITE: rewrite_selection,
    Intent.BACKGROUND: change_background,
    Intent.CHECK_TRANSITIONS: check_transitions,
    Intent.EXPLAIN: explain,
    Intent.UNKNOWN: ask_for_help,
}


def _next_asset(assets: list[dict[str, Any]], current: str | None) -> dict[str, Any] | None:
    ordered = sorted(assets, key=lambda a: (a["name"].casefold(), a["id"]))
    others = [a for a in ordered if a["id"] != current]
    if not others:
        return None
    names = [a["id"] for a in ordered]
    if current in names:
        after = ordered[names.index(current) + 1 :] + ordered[: names.index(current)]
        return after[0]
    return others[0]


def _asset_name(found: dict[str, Any], asset_id: str | None) -> str:
    return next((a["name"] for a in found.get("assets", []) if a["id"] == asset_id), "none")


def _slot(slot: dict[str, Any]) -> str:
    if not slot.get("asset_id"):
        return "none"
    origin = " (from the chapter)" if slot.get("source") == "chapter" else ""
    return f'"{slot.get("name")}"{origin}'


def _span(text: str, selection: dict[str, Any]) -> tuple[int | None, int]:
    start, end, chosen = selection.get("start"), selection.get("end"), selection.get("text", "")
    if isinstance(start, int) and isinstance(end, int) and text[start:end] == chosen:
        return start, end
    found = text.find(chosen)
    return (found, found + len(chosen)) if found >= 0 else (None, 0)


def _entity(kind: str, ident: str, title: str, url: str) -> dict[str, str]:
    return {"type": kind, "id": ident, "title": title, "url": url}


def _check(name: str, passed: bool, detail: str) -> dict[str, Any]:
    return {"name": name, "passed": passed, "detail": detail}


def _summary(
    status: str,
    description: str,
    changed: list[dict[str, str]],
    checks: list[dict[str, Any]],
    links: list[tuple[str, str]],
) -> dict[str, Any]:
    return {
        "status": status,
        "description": description,
        "changed_entities": changed,
        "checks": checks,
        "links": [{"title": title, "url": url} for title, url in links],
    }


def no_changes(description: str) -> dict[str, Any]:
    """The summary of a reply that changed nothing (the room refused, or there was nothing to do)."""
    return _summary("no_changes", description, [], [], [])
