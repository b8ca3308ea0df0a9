"""A stand-in for the model behind a harness: a local HTTP server speaking the model APIs the
harnesses call (Anthropic Messages, OpenAI Responses and Chat Completions, Gemini), answering with
the steps of a `Loop` and keeping every exchange for the test to read.

Each API module (`tests.harnesses.model.<api>`) turns a request into an `Exchange` (the tools
offered, the tool results so far as the model received them) and the `Step` into that API's
answer. What is common lives here: the server on its own thread, the current script and the record.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.routing import BaseRoute

from tests.harnesses.model.loop import Answer, Loop, Step, ToolCall, offered_name

IDLE = "Nothing to do."
"""The answer to a request that offers no Romergo tool (a harness's own title or summary request)."""


@dataclass(frozen=True)
class Exchange:
    api: str
    offered: list[str]
    """Tool names as the harness offered them to the model."""
    results: list[str]
    """The tool results the harness handed back, oldest first, as the model received them."""


@dataclass
class Conversation:
    """The script the stand-in follows now and everything the harness sent it."""

    loop: Loop | None = None
    exchanges: list[Exchange] = field(default_factory=list)

    def answer(self, exchange: Exchange) -> Step:
        """The next step for `exchange`, with the tool's name as this harness offered it."""
        self.exchanges.append(exchange)
        if self.loop is None or not any(
            name.endswith("romergo_join_builder_channel") for name in exchange.offered
        ):
            return Answer(IDLE)
        step = self.loop.step(exchange.results)
        if isinstance(step, ToolCall):
            return ToolCall(offered_name(step.tool, exchange.offered), step.arguments)
        return step

    @property
    def results(self) -> list[str]:
        """The longest run of tool results any request carried: what the model was shown."""
        return max((exchange.results for exchange in self.exchanges), key=len, default=[])


Routes = Callable[[Conversation], Sequence[BaseRoute]]
"""An API module's routes, given the shared conversation."""


class StandInModel:
    """The server; `routes` come from the API modules, each given the shared conversation.

    Its socket is bound and listening before the server's thread starts, so its address is known
    at once and a harness that calls early waits in the kernel's queue, not on a refused connection.
    """

    def __init__(self, routes: Routes) -> None:
        self.conversation = Conversation()
        app = Starlette(routes=list(routes(self.conversation)))
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="stand-in-model", daemon=True
        )

    def start(self) -> StandInModel:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()

    @contextmanager
    def following(self, loop: Loop) -> Iterator[Conversation]:
        """Follow `loop` (from a fresh record) for the length of the block."""
        self.conversation.loop = loop
        self.conversation.exchanges = []
        try:
            yield self.conversation
        finally:
            self.conversation.loop = None
