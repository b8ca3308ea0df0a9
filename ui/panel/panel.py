"""The agent panel: the author's agent, present in the editor.

Built once per tab in the shell's right drawer, so it stays while the author moves between pages.
It follows the author's project: for each project it shows that project's latest channel, its
whole history (read from the channel's events, so it survives page changes, reloads and
restarts) and keeps it live from the bus. Every action goes through `act` (session first).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Protocol

from nicegui import ui
from nicegui.events import ScrollEventArguments

from romergo.channels import ChannelView, channel_topic, presence_topic
from romergo.common.errors import RomergoError
from romergo.demo import DEMO_AGENT_NAME
from romergo.story.review import EntityReview
from ui.actions import act
from ui.context import PageContext
from ui.live import live
from ui.panel.cards import CardActions, CardView
from ui.panel.model import Card, Conversation, Notice, presence, refused_words
from ui.panel.room import open_invite, open_settings, reach_words
from ui.panel.undo import undo_command

HISTORY_WINDOW = 2000


class DemoLauncher(Protocol):
    async def start(self, user_id: str, username: str, code: str) -> str:
        """Start the scripted demo agent for this user with this join code; returns what happened."""
        ...


class AgentPanel:
    def __init__(self, ctx: PageContext, demo: DemoLauncher | None = None) -> None:
        self.ctx = ctx
        self.demo = demo
        self.project_id: str | None = None
        self.channel: ChannelView | None = None
        self.conversation = Conversation()
        self.cards: dict[str, CardView] = {}
        self.drawn_seq = 0
        with ui.column().classes("w-full h-full no-wrap gap-2 p-3").props('data-testid="agent-panel"'):
            with ui.row().classes("w-full items-center justify-between no-wrap"):
                ui.label("Your agent").classes("text-h6")
                self.gear = ui.button(icon="settings", on_click=self.open_settings).props(
                    'flat round dense aria-label="Channel settings" title="Channel settings"'
                )
            self.reach = ui.label("").classes("text-caption text-grey-8").props('data-testid="room-reach"')
            self.presence = ui.label("").classes("text-caption text-grey-8")
            self.presence.props('data-testid="presence" aria-live="polite"')
            self.scripted = ui.label("Scripted demo agent: fixed rules, no AI model").classes(
                "text-caption text-orange-9"
            )
            self.scripted.visible = False
            self.host = ui.element("div")  # dialogs live here, outside what redraws
            self.body = ui.column().classes("w-full grow no-wrap gap-2")
        ui.timer(10, self.refresh_presence)
        ctx.place.listeners.append(self.follow_place)
        ctx.place.card_listeners.append(self.show_card)

    # -- following the author -------------------------------------------------------------------

    def follow_place(self) -> None:
        project_id = self.ctx.place.project_id
        if project_id is not None and project_id != self.project_id:
            self.project_id = project_id
            ui.timer(0, self.load, once=True)
        elif project_id is None and self.project_id is None:
            self._draw_without_project()

    def show_card(self, command_id: str) -> None:
        """Scroll the command's card into view and mark it; say so when this panel does not hold it."""
        view = self.cards.get(command_id)
        if view is None:
            ui.notify("That command belongs to an earlier channel of this story.", type="info")
            return
        view.element.classes(add="ring-2 ring-primary")
        ui.run_javascript(f'getHtmlElement({view.element.id})?.scrollIntoView({{block: "center"}})')

    async def load(self) -> None:
        self.channel, self.conversation, self.cards, self.drawn_seq = None, Conversation(), {}, 0
        if self.project_id is None:
            self._draw_without_project()
            return
        try:
            channels = await self.ctx.services.channels.owner.channels_of_project(
                self.ctx.user.id, self.project_id
            )
        except RomergoError:
            channels = []
        self.channel = channels[0] if channels else None
        if self.channel is not None:
            await self._read_history()
        await self._show_reach()
        self._draw()
        await self.refresh_presence()

    async def _read_history(self) -> None:
        assert self.channel is not None
        after = max(0, self.channel.cursor - HISTORY_WINDOW)
        while True:
            events, cursor = await self.ctx.services.channels.owner.events(
                self.ctx.user.id, self.channel.channel_id, after
            )
            self.conversation.apply(events)
            if not events or cursor <= after:
                return
            after = cursor

    async def _show_reach(self) -> None:
        """The header says what the room covers: "Chapters 2–3, read + edit + media, …"."""
        live = self.channel is not None and self.channel.state == "live"
        self.reach.text = await reach_words(self.ctx, self.channel) if live and self.channel else ""
        self.reach.visible = bool(self.reach.text)

    # -- drawing --------------------------------------------------------------------------------

    def _draw_without_project(self) -> None:
        self.body.clear()
        with self.body:
            ui.label("Open a project to invite your agent into it.").classes("text-grey-7")
        self.presence.text = ""
        self.gear.visible = False

    def _draw(self) -> None:
        self.body.clear()
        self.cards, self.drawn_seq = {}, 0  # everything below is drawn anew from the conversation
        live_channel = self.channel is not None and self.channel.state == "live"
        self.gear.visible = live_channel
        with self.body:
            if self.channel is not None:
                self.channel_topic = live(
                    self.ctx.services.bus, channel_topic(self.channel.channel_id), self.on_events
                )
                live(
                    self.ctx.services.bus,
                    presence_topic(self.channel.channel_id),
                    lambda _: self.refresh_presence(),
                )
                self.following, self.scroll_position = True, 0.0
                with ui.scroll_area(on_scroll=self._scrolled).classes(
                    "w-full grow border border-gray-200 rounded"
                ) as self.scroll:
                    self.items = ui.column().classes("w-full gap-2")
                self.new_activity = ui.button("New activity", icon="arrow_downward", on_click=self._to_newest)
                self.new_activity.props(
                    'dense rounded unelevated color=primary size=sm data-testid="new-activity"'
                )
                self.new_activity.classes("self-center").visible = False
                self.refusals = ui.column().classes("w-full gap-0").props('data-testid="refused-after-end"')
                self._draw_new_items()
                self._to_bottom()
            if live_channel:
                self._composer()
            else:
                if self.channel is not None:
                    # The conversation already says the channel ended, and when: said once.
                    ui.label("To go on, invite your agent again.").classes("text-grey-8").props(
                        'data-testid="channel-ended"'
                    )
                ui.button("Invite your agent", on_click=self.open_invite).props("unelevated color=primary")
                ui.label(
                    "Your own agent (Claude, ChatGPT, Codex, any MCP client) joins this project with a code; "
                    "you decide what it may do."
                ).classes("text-caption text-grey-7")

    def _draw_new_items(self) -> None:
        items: list[tuple[int, Card | Notice]] = [
            (c.seq, c) for c in self.conversation.cards if c.seq > self.drawn_seq
        ]
        items += [(n.seq, n) for n in self.conversation.notices if n.seq > self.drawn_seq]
        for seq, item in sorted(items, key=lambda pair: pair[0]):
            with self.items:
                if isinstance(item, Card):
                    self.cards[item.command_id] = CardView(item, self._card_actions(), self._live())
                else:
                    ui.label(item.text).classes("text-caption text-grey-7 self-center")
            self.drawn_seq = max(self.drawn_seq, seq)
        self._draw_refusals()

    def _draw_refusals(self) -> None:
        """What the agent still tried after the room closed to it: proof that it got nothing."""
        self.refusals.clear()
        with self.refusals:
            for line in refused_words(self.conversation.refused):
                ui.label(line).classes("text-caption text-red-9")

    def _live(self) -> bool:
        return self.channel is not None and self.channel.state == "live" and not self.conversation.ended

    def _card_actions(self) -> CardActions:
        return CardActions(
            self.decide,
            self.answer,
            self.cancel,
            self.retry,
            self.undo,
            self.review,
            self.project_id or "",
            self.names,
        )

    def _composer(self) -> None:
        with ui.row().classes("w-full items-end no-wrap gap-1"):
            self.message = ui.textarea("Message your agent").props("outlined autogrow dense").classes("grow")
            self.message.on("keydown.enter.exact.prevent", self.send)
            ui.button("Send", on_click=self.send).props("unelevated color=primary")

    # -- live -----------------------------------------------------------------------------------

    async def on_events(self, _: object = None) -> None:
        if self.channel is None:
            return
        events, _cursor = await self.ctx.services.channels.owner.events(
            self.ctx.user.id, self.channel.channel_id, self.conversation.last_seq
        )
        changed = self.conversation.apply(events)
        if any(event.kind in ("channel_ended", "settings_changed") for event in events):
            self.channel = await self.ctx.services.channels.owner.get_channel(
                self.ctx.user.id, self.channel.channel_id
            )
            await self._show_reach()
            if self.channel.state != "live":
                self._draw()
                await self.refresh_presence()
                return
        for command_id in changed:
            card = self.conversation.card(command_id)
            if card is not None and command_id in self.cards:
                self.cards[command_id].update(card, self._live())
        self._draw_new_items()
        if events:
            self._follow()
        await self.refresh_presence()

    def _follow(self) -> None:
        """Something new: show it, unless the author scrolled up to read (then say there is more)."""
        if self.following:
            self._to_bottom()
        else:
            self.new_activity.visible = True

    def _scrolled(self, event: ScrollEventArguments) -> None:
        """The area reports a scroll when it moves and when its content grows. At the bottom the
        author reads the newest; a move up means they went back to read something older."""
        went_up = event.vertical_position < self.scroll_position
        self.scroll_position = event.vertical_position
        if event.vertical_percentage >= 0.98 or event.vertical_size <= event.vertical_container_size:
            self.following = True
            self.new_activity.visible = False
        elif went_up:
            # Only the author scrolls up; following the newest only ever scrolls down (and may
            # report a place above a bottom that has grown meanwhile: that is not the author).
            self.following = False

    def _to_bottom(self) -> None:
        # After the browser has drawn what just arrived: scrolled at once, the area would scroll to
        # the bottom of what it held before the new event (Vue renders on its next tick).
        script = (
            "requestAnimationFrame(() => requestAnimationFrame(() => "
            f"runMethod({self.scroll.id}, 'setScrollPercentage', ['vertical', 1, 0])))"
        )
        self.scroll.client.run_javascript(script)

    def _to_newest(self) -> None:
        self.following = True
        self.new_activity.visible = False
        self._to_bottom()

    async def refresh_presence(self) -> None:
        if self.channel is None:
            self.presence.text = "No agent invited to this project yet" if self.project_id else ""
            return
        try:
            view = await self.ctx.services.channels.owner.get_channel(
                self.ctx.user.id, self.channel.channel_id
            )
        except RomergoError:
            return
        if view.state != "live":
            self.presence.text = ""  # the conversation says it ended; no second "ended" above it
            return
        self.presence.text = presence(view.members, self.conversation, datetime.now(UTC))
        self.scripted.visible = any(member.agent_name == DEMO_AGENT_NAME for member in view.members)

    # -- the author's actions -------------------------------------------------------------------

    async def send(self) -> None:
        text = (self.message.value or "").strip()
        if not text or self.channel is None:
            return
        channel_id = self.channel.channel_id
        context = self.ctx.place.context_data()
        outcome = await act(
            self.ctx,
            lambda: self.ctx.services.channels.owner.post_command(
                self.ctx.user.id, channel_id, text, context
            ),
        )
        if outcome.ok:
            self.message.value = ""

    async def answer(self, card: Card, text: str) -> bool:
        if not text.strip() or self.channel is None:
            return False
        channel_id, context = self.channel.channel_id, self.ctx.place.context_data()
        outcome = await act(
            self.ctx,
            lambda: self.ctx.services.channels.owner.post_command(
                self.ctx.user.id, channel_id, text, context, in_reply_to=card.command_id
            ),
        )
        return outcome.ok

    async def decide(self, confirmation_id: str, decision: str) -> None:
        await act(
            self.ctx,
            lambda: self.ctx.services.channels.confirmations.decide_confirmation(
                self.ctx.user.id, confirmation_id, decision
            ),
        )

    async def cancel(self, card: Card) -> None:
        await act(
            self.ctx,
            lambda: self.ctx.services.channels.owner.cancel_command(self.ctx.user.id, card.command_id),
        )

    async def retry(self, card: Card) -> None:
        await act(
            self.ctx,
            lambda: self.ctx.services.channels.owner.retry_command(self.ctx.user.id, card.command_id),
        )

    async def undo(self, card: Card, redo: bool) -> None:
        await undo_command(self.ctx, self.host, card, redo=redo)

    async def review(self, card: Card) -> list[EntityReview]:
        return await self.ctx.services.history.command_review(self.ctx.actor, card.command_id)

    async def names(self, ids: set[str]) -> dict[str, str]:
        return await self.ctx.services.history.names_of(self.ctx.actor, self.project_id or "", ids)

    async def open_invite(self) -> None:
        await open_invite(self)

    async def open_settings(self) -> None:
        await open_settings(self)

    def demo_starter(self) -> Callable[[str], Awaitable[None]] | None:
        if self.demo is None:
            return None
        demo = self.demo

        async def start(code: str) -> None:
            if not await self.ctx.still_signed_in():
                return
            message = await demo.start(self.ctx.user.id, self.ctx.user.username, code)
            ui.notify(message, type="info")

        return start
