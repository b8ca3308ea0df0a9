"""Declaring a tool: one decorated function, its category and its result; the seam does the rest.

A topic module keeps a `Toolbox` and declares each tool on it:

    @tools.tool("edit", "Add a scene", "...", ADDS, target=("chapter", "chapter_id"), result=SceneEntity)
    async def romergo_add_scene(call: Call, chapter_id: ChapterId, title: Title, ...) -> Scene:
        return await call.services.scenes.add_scene(call.actor, chapter_id, title, position)

The function's parameters after `call` are the tool's arguments: the SDK builds the input schema
from them, and `run_tool` gets them (bound, defaults filled in) for the guard's fingerprint and
the owner's confirmation dialog. With `result`, the return value (a row or a model) is read into
that model and sent in the untrusted-content envelope; without it, the function returns its own
annotated result (paged reads, channel tools).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar, get_args, get_origin

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from mcp_tools.envelope import Envelope, envelope, unescape
from mcp_tools.paging import MAX_PAGE_CHARS
from mcp_tools.schemas import plain_schema
from mcp_tools.tooling import Category, ToolSpec, run_tool
from romergo.channels import ChannelService
from romergo.channels.reach import TargetKind
from romergo.common.actors import Actor
from romergo.services import Services

ToolFn = Callable[..., Awaitable[Any]]
F = TypeVar("F", bound=ToolFn)


@dataclass(frozen=True)
class Call:
    """What a tool body works with: the core, the actor its revisions record, the MCP context."""

    services: Services
    actor: Actor
    ctx: Context[Any, Any] | None

    @property
    def channels(self) -> ChannelService:
        return self.services.channels


@dataclass(frozen=True)
class Declared:
    spec: ToolSpec
    fn: ToolFn
    result: type[BaseModel] | None


class Toolbox:
    """The tools one topic module declares, built into SDK tools once the services exist."""

    def __init__(self) -> None:
        self.declared: list[Declared] = []

    def tool(
        self,
        category: Category,
        title: str,
        description: str,
        annotations: ToolAnnotations,
        *,
        target: tuple[TargetKind, str] | None = None,
        action: Callable[[dict[str, Any]], str] | None = None,
        result: type[BaseModel] | None = None,
        also: tuple[tuple[TargetKind, str], ...] = (),
        whole_project: bool = False,
    ) -> Callable[[F], F]:
        """Declare the decorated function as the tool of the same name (`ToolSpec` says what the
        other arguments mean)."""

        def declare(fn: F) -> F:
            spec = ToolSpec(
                fn.__name__, category, title, description, annotations, target, action, also, whole_project
            )
            self.declared.append(Declared(spec, fn, result))
            return fn

        return declare


def build_tools(services: Services, toolboxes: Iterable[Toolbox]) -> list[Tool]:
    """The SDK tools for `MCPServer(tools=...)`, in declaration order."""
    return [_sdk_tool(services, declared) for box in toolboxes for declared in box.declared]


def _sdk_tool(services: Services, declared: Declared) -> Tool:
    spec = declared.spec
    tool = Tool.from_function(
        _bound(services, declared),
        name=spec.name,
        title=spec.title,
        description=spec.description,
        annotations=spec.annotations,
        structured_output=True,
        meta=_listing_meta(declared.fn),
    )
    # The SDK has no public opt-out of its JSON pre-parsing (see _TextKeepingMetadata), so the
    # tool gets the same metadata with that one step replaced, and its output schema in the form
    # agents check fastest (`schemas.plain_schema`). The one place Romergo subclasses SDK internals.
    metadata = tool.fn_metadata
    keeping = _TextKeepingMetadata(
        arg_model=metadata.arg_model,
        output_schema=metadata.output_schema and plain_schema(metadata.output_schema),
        output_model=metadata.output_model,
        wrap_output=metadata.wrap_output,
    )
    return tool.model_copy(update={"fn_metadata": keeping})


def _listing_meta(fn: ToolFn) -> dict[str, Any] | None:
    """What the tool listing tells harnesses beyond the schemas.

    A tool that takes `page_size` may answer with a page of up to MAX_PAGE_CHARS; Claude Code
    saves a longer result to a file and shows its model a 2 KB preview (without `next_page`)
    unless the tool declares how large its results may be."""
    if "page_size" in inspect.signature(fn).parameters:
        return {"anthropic/maxResultSizeChars": MAX_PAGE_CHARS}
    return None


def _bound(services: Services, declared: Declared) -> ToolFn:
    """The function the SDK sees: the declared one without `call`, plus the MCP context."""
    signature = inspect.signature(declared.fn, eval_str=True)
    _call, *parameters = signature.parameters.values()
    arguments_of = signature.replace(parameters=parameters)
    result = declared.result

    async def tool(ctx: Context[Any, Any], **given: Any) -> Any:
        bound = arguments_of.bind(**given)
        bound.apply_defaults()
        # The guard shows and fingerprints the arguments as JSON: models (choices) become objects.
        arguments: dict[str, Any] = to_jsonable_python(bound.arguments)

        async def body(actor: Actor) -> Any:
            value = await declared.fn(Call(services, actor, ctx), **bound.arguments)
            return envelope(result.model_validate(value)) if result is not None else value

        return await run_tool(services, declared.spec, arguments, body, ctx)

    # Built at run time from the declared model, so it is a value to mypy, not a type.
    returns: Any = signature.return_annotation
    if result is not None:
        returns = Annotated[CallToolResult, Envelope[result]]  # type: ignore[valid-type]
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context[Any, Any])
    tool.__signature__ = arguments_of.replace(  # type: ignore[attr-defined]
        parameters=[*parameters, context], return_annotation=returns
    )
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {
        "ctx": Context[Any, Any],
        "return": returns,
    }
    tool.__name__ = declared.spec.name
    return tool


class _TextKeepingMetadata(FuncMetadata):
    """The SDK's argument parsing, except that text stays text, and text copied from a result is
    the exact text again.

    For any argument not annotated exactly `str`, the SDK first tries `json.loads` on a string
    value (some clients send lists as JSON text). For an optional text argument (`str | None`)
    that turns a dialogue line reading `null` into "unchanged" and one reading `true` or `[1]`
    into a type error. Arguments that accept text keep the string they were sent.

    Results show invisible characters as `\\u{hex}` (`mcp_tools.envelope`); every string in the
    arguments, nested ones included, has those escapes read back before it is checked.

    `FuncMetadata` is not exported by the SDK and has no hook for this: the behaviour is the open
    upstream bug modelcontextprotocol/python-sdk#3055 (`str | None` taken for a non-string; also
    #1873). tests/mcp_tools/test_declare.py fails if the SDK stops calling `pre_parse_json` on a
    tool call, and tells when upstream fixed it and this class can go.
    """

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        parsed = super().pre_parse_json(data)
        for name, field in self.arg_model.model_fields.items():
            key = field.alias or name
            if isinstance(data.get(key), str) and _accepts_text(field.annotation):
                parsed[key] = data[key]
        return {key: _unescaped(value) for key, value in parsed.items()}


def _unescaped(value: Any) -> Any:
    if isinstance(value, str):
        return unescape(value)
    if isinstance(value, dict):
        return {unescape(str(key)): _unescaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_unescaped(item) for item in value]
    return value


def _accepts_text(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return _accepts_text(get_args(annotation)[0])
    return annotation is str or any(_accepts_text(arg) for arg in get_args(annotation))
