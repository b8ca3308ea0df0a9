"""Page parts are built in a NiceGUI tab of their own, without a server or a browser."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from nicegui import Client, core
from nicegui.page import page as nicegui_page


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    """A NiceGUI client of its own, without a server: enough to build and refresh elements."""
    before = core.loop
    core.loop = asyncio.get_running_loop()  # what NiceGUI schedules its tasks on
    tab = Client(nicegui_page("/"), request=None)
    yield tab  # each test enters it: the slot stack belongs to the test's own task
    tab.delete()
    core.loop = before
