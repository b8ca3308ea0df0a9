"""An open form's notice: it says who changed its entity as soon as a change of that entity is
published, asks about nothing else, and stops when the form goes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from nicegui import Client, background_tasks, ui

from romergo.common.actors import user_actor
from romergo.common.bus import project_topic
from romergo.story import EntityChange, StoryChanged
from romergo.story.based_on import ChangedBy
from romergo.story.last_change import LastChange
from tests.support.waiting import until
from tests.ui.tabs import USER_ID, Fakes
from ui.draft_watch import ChangeNotice, Edited, change_notice

PROJECT = "prj_1"
TOM = Edited(PROJECT, "character", "chr_tom")
OPENED = 5
SAYS = "Changed since you opened it, by {who}. Save merges what you changed."


@dataclass
class History:
    """Who made each entity's newest change, as the history service answers; counts the questions."""

    newest: dict[str, LastChange] = field(default_factory=dict)
    asked: int = 0

    async def last_change(
        self, actor: object, project_id: str, entity_type: str, entity_id: str
    ) -> LastChange | None:
        self.asked += 1
        return self.newest.get(entity_id)


def by_agent(revision: int) -> LastChange:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return LastChange(
        revision, ChangedBy("agent", "usr_author", "cli_1", "cmd_1", "tool", at), "bat_1", "Scribe", 4
    )


def by_another_tab(revision: int) -> LastChange:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    return LastChange(revision, ChangedBy("user", USER_ID, None, None, None, at), "bat_2", None, None)


def changed(*entities: tuple[str, str]) -> StoryChanged:
    changes = tuple(EntityChange(kind, entity_id, "updated") for kind, entity_id in entities)
    return StoryChanged(PROJECT, changes, user_actor(USER_ID, "author"))


def refreshing() -> bool:
    return any(task.get_name() == "live refresh" for task in background_tasks.running_tasks)


async def opened_notice(fakes: Fakes, history: History) -> ChangeNotice:
    """A form's notice, once its first look (for a change the page had not shown) is done."""
    notice = change_notice(fakes.ctx(), TOM, OPENED)
    await until(lambda: history.asked == 1 and not refreshing(), what="the first look")
    return notice


async def test_the_notice_says_who_changed_the_entity_as_soon_as_its_change_is_published(
    client: Client,
) -> None:
    history = History({TOM.entity_id: by_agent(OPENED)})
    fakes = Fakes(history=history)
    with client:
        notice = await opened_notice(fakes, history)
        assert notice.text == ""  # not changed since the form opened

        history.newest[TOM.entity_id] = by_agent(OPENED + 2)
        fakes.bus.publish(project_topic(PROJECT), changed(("character", TOM.entity_id)))

        await until(lambda: notice.text, what="the notice")
    assert notice.text == SAYS.format(who="your agent “Scribe”, command #4")
    assert notice.props["role"] == "status"


async def test_a_change_of_something_else_asks_nothing_and_says_nothing(client: Client) -> None:
    history = History({TOM.entity_id: by_agent(OPENED)})
    fakes = Fakes(history=history)
    with client:
        notice = await opened_notice(fakes, history)
        history.newest[TOM.entity_id] = by_agent(OPENED + 1)  # as if it had changed: only a look would tell

        fakes.bus.publish(
            project_topic(PROJECT), changed(("character", "chr_mara"), ("scene", TOM.entity_id))
        )

        assert not refreshing()
    assert (history.asked, notice.text) == (1, "")


async def test_a_wake_up_that_names_nothing_is_looked_into(client: Client) -> None:
    """What another process relays, or a wake-up of every page, carries no changes."""
    history = History({TOM.entity_id: by_agent(OPENED)})
    fakes = Fakes(history=history)
    with client:
        notice = await opened_notice(fakes, history)
        history.newest[TOM.entity_id] = by_another_tab(OPENED + 1)

        fakes.bus.publish(project_topic(PROJECT))

        await until(lambda: notice.text, what="the notice")
    assert notice.text == SAYS.format(who="you, in another tab")


async def test_a_change_made_before_the_form_opened_but_not_yet_shown_is_said_at_once(client: Client) -> None:
    history = History({TOM.entity_id: by_agent(OPENED + 3)})
    with client:
        notice = change_notice(Fakes(history=history).ctx(), TOM, OPENED)

        await until(lambda: notice.text, what="the notice")
    assert notice.text == SAYS.format(who="your agent “Scribe”, command #4")


async def test_the_watch_ends_with_the_form(client: Client) -> None:
    history = History({TOM.entity_id: by_agent(OPENED)})
    fakes = Fakes(history=history)
    topic = project_topic(PROJECT)
    with client:
        with ui.column() as form:
            notice = await opened_notice(fakes, history)
        assert fakes.bus.listener_count(topic) == 1
        form.delete()

        history.newest[TOM.entity_id] = by_agent(OPENED + 1)
        fakes.bus.publish(topic, changed(("character", TOM.entity_id)))

    assert fakes.bus.listener_count(topic) == 0
    assert (history.asked, notice.text) == (1, "")
