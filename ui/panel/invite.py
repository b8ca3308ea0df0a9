"""Inviting the agent: the room's settings, then the join code with a start prompt and snippets.

The settings form (rights, confirmations, and the room's reach: the whole project or chosen
chapters) is shared by "Invite your agent" (before the channel exists) and "Channel settings"
(any time after). The join code is shown once, right after it is made: only its hash is stored.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nicegui import ui

from romergo.channels.instructions import PREFIXED_TOOL_NAMES
from romergo.channels.reach import MODE_WORDS
from romergo.channels.vocabulary import DEFAULT_PERMISSIONS, PERMISSIONS, ConfirmationMode
from ui.components.copy_button import copy_button

MODES = {mode.value: words.capitalize() for mode, words in MODE_WORDS.items()}


@dataclass
class RoomSettings:
    permissions: dict[str, bool]
    confirmation_mode: str
    scope: dict[str, Any] | None = None
    """None: the whole project; else `{chapter_ids: [...]}`."""


@dataclass(frozen=True)
class ChapterChoice:
    chapter_id: str
    title: str


@dataclass
class _ReachPicker:
    whole: ui.checkbox
    chapters: dict[str, ui.checkbox] = field(default_factory=dict)

    def scope(self) -> dict[str, Any] | None:
        if self.whole.value:
            return None
        return {"chapter_ids": [chapter_id for chapter_id, box in self.chapters.items() if box.value]}


def settings_form(
    chapters: list[ChapterChoice], current: RoomSettings | None = None
) -> Callable[[], RoomSettings]:
    """Checkboxes for the rights, a select for the confirmation mode and the room's reach;
    returns a reader."""
    values = current or RoomSettings(dict(DEFAULT_PERMISSIONS), ConfirmationMode.NONE.value)
    ui.label("What may your agent do in this project?").classes("text-subtitle2")
    boxes = {}
    with ui.row().classes("gap-1"):
        for name in PERMISSIONS:
            boxes[name] = ui.checkbox(name.capitalize(), value=bool(values.permissions.get(name)))
    mode = ui.select(MODES, value=values.confirmation_mode, label="Confirmation mode").props("outlined dense")
    mode.classes("w-full")
    ui.label("Publish and delete are off unless you turn them on. You can change this at any time.").classes(
        "text-caption text-grey-7"
    )
    picker = _reach_picker(chapters, values.scope)
    return lambda: RoomSettings(
        {name: bool(box.value) for name, box in boxes.items()}, str(mode.value), picker.scope()
    )


def _reach_picker(chapters: list[ChapterChoice], scope: dict[str, Any] | None) -> _ReachPicker:
    """ "Whole project", or the chapters (with their scenes) the agent may see and touch."""
    chosen = set(scope["chapter_ids"]) if scope else set()
    ui.label("Which part of the story may it see and touch?").classes("text-subtitle2")
    picker = _ReachPicker(ui.checkbox("Whole project", value=scope is None))
    with ui.column().classes("gap-0 pl-4").props('data-testid="room-chapters"') as column:
        for number, chapter in enumerate(chapters, 1):
            picker.chapters[chapter.chapter_id] = ui.checkbox(
                f"{number}. {chapter.title}", value=chapter.chapter_id in chosen
            )
    column.bind_visibility_from(picker.whole, "value", backward=lambda whole: not whole)
    ui.label(
        "Characters and the asset library stay readable; changing one used elsewhere needs the whole project."
    ).classes("text-caption text-grey-7")
    return picker


def start_prompt(code: str, mcp_url: str, reach: str = "") -> str:
    """What the owner pastes into their agent; `reach` is the room in plain words (no titles)."""
    room = f" The room covers: {reach}." if reach else ""
    return (
        f"Join my Romergo Builder channel with the code {code}.{room} "
        f"If you do not have Romergo's tools, its MCP server ({mcp_url}) must be added to you first: "
        "tell me, and I will add it and give you this prompt again. "
        f"{PREFIXED_TOOL_NAMES} "
        "Use romergo_join_builder_channel, then keep calling romergo_wait_for_builder_command. "
        "Run each new command once, then send the result or your question back with "
        "romergo_report_builder_event. Keep waiting for my next command until I explicitly ask you to stop."
    )


def snippets(mcp_url: str) -> dict[str, str]:
    desktop = {"mcpServers": {"romergo": {"command": "npx", "args": ["-y", "mcp-remote", mcp_url]}}}
    return {
        "Claude Code": f"claude mcp add --transport http -s user romergo {mcp_url}",
        "Codex": (
            f"codex mcp add romergo --url {mcp_url}\n"
            "# it signs in by itself; offline: codex mcp login romergo --oauth-client-registration dcr"
        ),
        "Claude Desktop": json.dumps(desktop, indent=2),
        "Other MCP clients": (
            f"Streamable HTTP endpoint: {mcp_url}\nSign-in: OAuth 2.1 (the client opens the consent page)"
        ),
    }


SNIPPET_LANGUAGES = {"Claude Code": "bash", "Codex": "toml", "Claude Desktop": "json"}
"""How each snippet is coloured; the others are plain text, shown uncoloured."""


def demo_agent_command(base_url: str, code: str) -> str:
    """The terminal command that runs the demo agent, with the path of this install's `romergo`
    (the README's `romergo` is `.venv/bin/romergo` after its set-up, not on the PATH)."""
    romergo = Path(sys.executable).parent / "romergo"
    shown = str(romergo) if romergo.exists() else "romergo"
    return f"{shown} demo-agent --url {base_url} --code {code}"


def code_view(
    code: str, mcp_url: str, try_demo: Callable[[str], Awaitable[None]] | None = None, reach: str = ""
) -> None:
    """The join code, the start prompt to paste into the agent, and how to connect each client."""
    with ui.row().classes("w-full items-center no-wrap gap-1"):
        field = ui.input("Join code", value=code).props("readonly outlined dense").classes("grow")
        field.props('input-class="font-mono"')
        copy_button(code, "Copy code")
    ui.label(
        "Add Romergo to your agent first (the connection snippets are below), then paste this into it:"
    ).classes("text-subtitle2 mt-2")
    prompt = start_prompt(code, mcp_url, reach)
    with ui.row().classes("w-full items-start no-wrap gap-1"):
        ui.textarea("Start prompt", value=prompt).props("readonly outlined autogrow dense").classes("grow")
        copy_button(prompt, "Copy prompt")
    ui.label(f"MCP URL: {mcp_url}").classes("text-caption font-mono")
    with ui.expansion("Connect your agent").classes("w-full"):
        for client, text in snippets(mcp_url).items():
            ui.label(client).classes("text-subtitle2")
            _snippet(text, SNIPPET_LANGUAGES.get(client), f"Copy snippet for {client}")
    if try_demo is not None:
        ui.button("Try the demo agent", on_click=lambda: try_demo(code)).props(
            "outline color=primary"
        ).classes("w-full")
        ui.label("A scripted agent (no AI) that shows the loop with six example commands.").classes(
            "text-caption text-grey-7"
        )
        ui.label("Or run it in a terminal:").classes("text-caption text-grey-7")
        base_url = mcp_url.removesuffix("/mcp")
        _snippet(demo_agent_command(base_url, code), "bash", "Copy the demo agent command")


def _snippet(text: str, language: str | None, label: str) -> None:
    """A block to copy: wrapped inside the dialog (a long command never runs past its edge),
    coloured only when it is code, with one copy button that works on any origin."""
    with ui.row().classes("w-full items-start no-wrap gap-1"):
        if language is not None:
            # ui.code's own copy button needs a secure context: the snippet class hides it.
            ui.code(text, language=language).classes("snippet grow min-w-0 text-xs").style(
                "white-space: pre-wrap; word-break: break-all"
            ).props(f'aria-label="{label}"')
        else:
            ui.label(text).classes(
                "grow min-w-0 text-xs font-mono whitespace-pre-wrap break-all bg-grey-2 rounded p-2"
            )
        copy_button(text, label)
