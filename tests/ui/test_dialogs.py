"""Dialogs: a refused title stays in the dialog with the service's message; Cancel changes nothing."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from nicegui import Client, ui

from romergo.common.errors import RomergoError
from romergo.story.views import ChapterOutline
from tests.support.waiting import until
from tests.ui.tabs import Fakes, click
from ui.components.dialogs import RENAME_CHAPTER, FormDialog, ask_for_change, confirm_chapter_deletion


def alerts(tab: Client) -> list[str]:
    return [
        e.text
        for e in tab.elements.values()
        if isinstance(e, ui.label) and e.props.get("role") == "alert" and e.visible and not e.is_deleted
    ]


def has_field(tab: Client, label: str) -> bool:
    return any(isinstance(e, ui.input) and e.props.get("label") == label for e in tab.elements.values())


def has_button(tab: Client, label: str) -> bool:
    return any(isinstance(e, ui.button) and e.text == label for e in tab.elements.values())


def field(tab: Client, label: str) -> ui.input:
    return next(e for e in tab.elements.values() if isinstance(e, ui.input) and e.props.get("label") == label)


async def test_a_refused_title_keeps_the_dialog_open_with_the_reason(client: Client) -> None:
    with client:
        tried: list[str] = []

        async def rename(text: str) -> None:
            tried.append(text)
            if not text.strip():
                raise RomergoError("invalid_argument", "A title cannot be empty.")

        host = ui.column()
        asked = asyncio.create_task(ask_for_change(Fakes().ctx(), host, RENAME_CHAPTER, rename, value="Old"))
        await until(lambda: has_field(client, "Chapter title"), what="the dialog")
        field(client, "Chapter title").value = "  "
        click(client, "Save")
        await until(lambda: alerts(client), what="the refusal")
        assert alerts(client) == ["A title cannot be empty."]
        assert not asked.done()

        field(client, "Chapter title").value = "New"
        click(client, "Save")
        assert await asyncio.wait_for(asked, 1) is True
        assert tried == ["  ", "New"]


async def test_cancel_closes_without_saving(client: Client) -> None:
    with client:
        saved: list[bool] = []

        async def save() -> bool:
            saved.append(True)
            return True

        form = FormDialog(ui.column(), "Edit Ada")
        running = asyncio.create_task(form.run(save))
        await until(lambda: form.dialog.value, what="the dialog to open")
        click(client, "Cancel")
        assert await asyncio.wait_for(running, 1) is False
        assert saved == []
        assert form.dialog.is_deleted


async def test_deleting_a_chapter_says_how_many_scenes_go_with_it(client: Client) -> None:
    with client:
        entry = ChapterOutline(cast(Any, SimpleNamespace(title="Dawn")), [cast(Any, None)] * 2)
        asked = asyncio.create_task(confirm_chapter_deletion(ui.column(), entry))
        await until(lambda: has_button(client, "Delete"), what="the question")
        texts = [e.text for e in client.elements.values() if isinstance(e, ui.label)]
        assert "Delete the chapter “Dawn”?" in texts
        assert "It has 2 scenes; they are deleted with it, with their dialogue and choices." in texts
        click(client, "Delete")
        assert await asyncio.wait_for(asked, 1) is True
