"""Settings: every default of CONTRACT.md §9, each overridable by its environment variable.

`Settings` is the plain value the services are given; `Environment` reads the `ROMERGO_*` variables
(pydantic-settings) and `settings_from_env` lays flags over them over the defaults. Built once in
`app.py` (or the command line) and passed down; nothing reads the environment elsewhere.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BeforeValidator, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MIB = 1024 * 1024
"""Bytes in a mebibyte: every size limit is set in MB and checked in bytes."""
MAX_AGENT_BODY = 5 * MIB
"""Request bodies where agents and OAuth clients post: `/mcp`, `/token`, `/register` (CONTRACT.md §5)."""


MCP_PATH = "/mcp"
"""Where agents reach the MCP endpoint; `{base_url}/mcp` is the audience of every OAuth token."""

LONGEST_HEARTBEAT_SECONDS = 50
"""A parked wait's progress notifications come at least this often: the longest wait without them
(`channels.waiting.MAX_WAIT`) is the silence every client already takes."""


@dataclass(frozen=True)
class Limits:
    max_title_chars: int = 200
    max_line_chars: int = 2000
    max_image_mb: int = 10
    max_audio_mb: int = 20
    # The MCP import tool carries base64 inside a JSON body, so it has a lower bound of its own.
    max_tool_import_mb: int = 3

    @property
    def max_image_bytes(self) -> int:
        return self.max_image_mb * MIB

    @property
    def max_audio_bytes(self) -> int:
        return self.max_audio_mb * MIB


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("data")
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8080
    public_url: str | None = None
    limits: Limits = field(default_factory=Limits)
    channel_ttl_hours: int = 12
    join_code_minutes: int = 15
    command_lease_seconds: int = 600
    confirmation_ttl_seconds: int = 300
    access_token_minutes: int = 60
    refresh_token_days: int = 30
    rate_limit_per_minute: int = 120
    max_waits_per_client: int = 20
    registrations_per_minute: int = 20
    heartbeat_seconds: int = 10
    """How often a parked call sends a progress notification to a client that asked for them."""
    request_head_seconds: int = 10
    """How long a request head may take to arrive; a body must keep pace within the same window."""
    connections_per_address: int = 256
    """Open connections from one client address (trusted proxies are held only to the total cap)."""
    allowed_hosts: tuple[str, ...] = ()
    """Extra `Host` values every route accepts besides the public URL's and loopback ones."""
    trusted_proxies: tuple[str, ...] = ()
    """Peers whose `X-Forwarded-For` / `-Proto` are believed (addresses or networks); none by default,
    so a client cannot pick its own address (and with it a fresh rate limit) by sending a header."""
    cimd_allow_private: bool = False
    """Fetch agents' client metadata documents from private and loopback addresses, and over
    plain http on loopback: for developing an agent on this machine, never in production."""
    signin_link_minutes: int = 15
    invitation_days: int = 7
    """How long a link inviting someone into a story stays open."""
    session_idle_hours: int = 24 * 7
    session_absolute_days: int = 30
    instances: str | None = None
    """`one` or `many` (`ROMERGO_INSTANCES`); unset: `many` on PostgreSQL, `one` on SQLite."""
    oidc_issuer: str | None = None
    """The team's OpenID Connect provider (its issuer URL). Unset: no "Sign in with" button, and
    sign-in stays the password and the link, as for a single author."""
    oidc_client_id: str | None = None
    oidc_client_secret: str | None = None
    """Unset for a public client: the code flow is bound to the browser by PKCE either way."""
    oidc_provider_name: str = "your identity provider"
    """What the sign-in button calls the provider: "Sign in with <name>"."""
    oidc_allowed_domains: tuple[str, ...] = ()
    """E-mail domains whose (verified) addresses may sign in; empty: any the provider signs in."""
    oidc_allowed_groups: tuple[str, ...] = ()
    """Provider groups (the ID token's `groups` claim) of which one is needed; empty: no group needed."""
    oidc_create_accounts: bool = False
    """Create an account on an identity's first sign-in. Off: only identities an administrator
    linked to an account (`romergo user link`) sign in."""

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{(self.data_dir / 'romergo.db').resolve()}"

    @property
    def many_instances(self) -> bool:
        """Several processes share the database: MCP is served stateless (any instance answers any
        call) and rate limits are counted in the database. Single-process SQLite keeps both local."""
        if self.instances is not None:
            return self.instances == "many"
        return not self.resolved_database_url.startswith("sqlite")

    @property
    def base_url(self) -> str:
        """Where browsers and agents reach this server; the OAuth issuer and resource base."""
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host  # noqa: S104 - compared, not bound
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint's URL: the resource indicator (audience) of OAuth tokens."""
        return f"{self.base_url}{MCP_PATH}"


def settings_from_env(
    env: Mapping[str, str] | None = None,
    *,
    data_dir: str | Path | None = None,
    host: str | None = None,
    port: int | None = None,
    public_url: str | None = None,
) -> Settings:
    """Explicit arguments (CLI flags) win over the environment, which wins over the defaults.

    `env` stands for the process environment (the command line run in process for a server's). A bad
    value raises `ValueError` with one line naming its variable: start-up prints it and stops."""
    try:
        read = Environment() if env is None else Environment.model_validate(env)
    except ValidationError as error:
        raise ValueError(_first_problem(error)) from None
    chosen = read.model_dump(exclude_none=True)
    limits = Limits(**{name: chosen.pop(name) for name in _LIMIT_NAMES if name in chosen})
    if data_dir:
        chosen["data_dir"] = Path(data_dir)
    if host:
        chosen["host"] = host
    if port is not None:
        chosen["port"] = _port(port)
    # Checked once chosen: a `--public-url` flag makes the variable's value irrelevant, even a bad one.
    if public_url or read.public_url:
        try:
            chosen["public_url"] = _public_url(public_url or read.public_url or "")
        except ValueError as error:
            raise ValueError(f"{_PREFIX}PUBLIC_URL {error}") from None
    return Settings(limits=limits, **chosen)


_PREFIX = "ROMERGO_"
_LIMIT_NAMES = frozenset(item.name for item in fields(Limits))


def _port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be from 0 (any free port) to 65535, got {port}")
    return port


def _first_problem(error: ValidationError) -> str:
    """One line, `ROMERGO_X <what is wrong>`, for the first bad variable."""
    problem = error.errors()[0]
    name = str(problem["loc"][0]) if problem["loc"] else ""
    return f"{name} {_reason(problem)}".strip()


def _reason(problem: ErrorDetails) -> str:
    if problem["type"] in ("int_parsing", "int_type", "int_from_float"):
        return f"must be a whole number, got {problem['input']!r}"
    if problem["type"] == "greater_than":
        return f"must be positive, got {problem['input']}"
    if problem["type"] == "less_than_equal":
        return f"must be at most {problem.get('ctx', {}).get('le')}, got {problem['input']}"
    return str(problem.get("ctx", {}).get("error", problem["msg"]))


# The variables' readers. Each turns a blank value into "unset" first: `ROMERGO_X=` in a shell or a
# compose file means "no value", as it always has here.


def _unset_if_blank(value: object) -> object:
    return None if isinstance(value, str) and value.strip() == "" else value


def _reading(parse: Callable[[str], object]) -> BeforeValidator:
    def read(value: object) -> object:
        value = _unset_if_blank(value)
        return value if value is None or not isinstance(value, str) else parse(value)

    return BeforeValidator(read)


def _public_url(raw: str) -> str:
    """The OAuth issuer and token audience base: `http(s)://host[:port]`, nothing else."""
    parts = urlsplit(raw.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or "@" in parts.netloc
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
    ):
        raise ValueError(f"(--public-url) must look like https://host[:port], without a path; got {raw!r}")
    return raw.strip()


def _instances(raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("one", "many"):
        raise ValueError(f"must be one or many, got {raw!r}")
    return value


def _issuer(raw: str) -> str:
    """An issuer is compared exactly with the ID token's `iss`: https, or http on loopback only."""
    value = raw.strip()
    parts = urlsplit(value)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if not parts.hostname or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError(f"must be the provider's issuer URL, got {raw!r}")
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise ValueError(f"must be an https URL (http only on loopback), got {raw!r}")
    return value


def _domains(raw: str) -> tuple[str, ...]:
    """Comma-separated e-mail domains (`example.com`), compared lowercased."""
    domains = tuple(item.strip().lower().removeprefix("@") for item in raw.split(",") if item.strip())
    for domain in domains:
        if "@" in domain or "/" in domain or " " in domain or "." not in domain:
            raise ValueError(f"takes e-mail domains like example.com, got {domain!r}")
    return domains


def _groups(raw: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in raw.split(",") if item.strip())


def _flag(raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ("0", "1", "true", "false", "yes", "no"):
        raise ValueError(f"must be 1 or 0 (true or false), got {raw!r}")
    return value in ("1", "true", "yes")


def _hosts(raw: str) -> tuple[str, ...]:
    """Comma-separated `host` or `host:port` values (`host:*` for any port)."""
    hosts = tuple(item.strip().lower() for item in raw.split(",") if item.strip())
    for host in hosts:
        if "/" in host or "@" in host or " " in host:
            raise ValueError(f"takes host or host:port values, got {host!r}")
    return hosts


def _networks(raw: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (`10.0.0.5`, `10.0.0.0/24`)."""
    networks = tuple(item.strip() for item in raw.split(",") if item.strip())
    for network in networks:
        try:
            ipaddress.ip_network(network, strict=False)
        except ValueError:
            raise ValueError(f"takes IP addresses or networks, got {network!r}") from None
    return networks


def _variable(name: str) -> Any:
    """The field reads `ROMERGO_<NAME>`, the spelling the README's Configuration table lists."""
    return Field(default=None, validation_alias=f"{_PREFIX}{name}")


Text = Annotated[str | None, BeforeValidator(_unset_if_blank)]
Count = Annotated[Annotated[int, Field(gt=0)] | None, BeforeValidator(_unset_if_blank)]
"""A positive whole number."""
Heartbeat = Annotated[
    Annotated[int, Field(gt=0, le=LONGEST_HEARTBEAT_SECONDS)] | None, BeforeValidator(_unset_if_blank)
]
"""Seconds between progress notifications: a longer silence than a plain wait's would let clients
cut the kept-alive waits the notifications exist for."""
Names = Annotated[tuple[str, ...] | None, NoDecode]
"""A comma-separated list, split by its reader rather than decoded as JSON."""


class Environment(BaseSettings):
    """The `ROMERGO_*` variables; an unset one keeps its default (`Settings`, `Limits`).

    pydantic-settings reads them from the process environment; a given mapping goes through the same
    fields (`model_validate`), so names and checks are one set either way."""

    model_config = SettingsConfigDict(case_sensitive=True, extra="ignore", frozen=True)

    data_dir: Annotated[Path | None, BeforeValidator(_unset_if_blank)] = _variable("DATA_DIR")
    database_url: Text = _variable("DATABASE_URL")
    public_url: Text = _variable("PUBLIC_URL")
    instances: Annotated[Text, _reading(_instances)] = _variable("INSTANCES")
    max_title_chars: Count = _variable("MAX_TITLE_CHARS")
    max_line_chars: Count = _variable("MAX_LINE_CHARS")
    max_image_mb: Count = _variable("MAX_IMAGE_MB")
    max_audio_mb: Count = _variable("MAX_AUDIO_MB")
    channel_ttl_hours: Count = _variable("CHANNEL_TTL_HOURS")
    join_code_minutes: Count = _variable("JOIN_CODE_MINUTES")
    command_lease_seconds: Count = _variable("COMMAND_LEASE_SECONDS")
    confirmation_ttl_seconds: Count = _variable("CONFIRMATION_TTL_SECONDS")
    access_token_minutes: Count = _variable("ACCESS_TOKEN_MINUTES")
    refresh_token_days: Count = _variable("REFRESH_TOKEN_DAYS")
    rate_limit_per_minute: Count = _variable("RATE_LIMIT_PER_MINUTE")
    max_waits_per_client: Count = _variable("MAX_WAITS_PER_CLIENT")
    registrations_per_minute: Count = _variable("REGISTRATIONS_PER_MINUTE")
    heartbeat_seconds: Heartbeat = _variable("HEARTBEAT_SECONDS")
    request_head_seconds: Count = _variable("REQUEST_HEAD_SECONDS")
    connections_per_address: Count = _variable("CONNECTIONS_PER_ADDRESS")
    allowed_hosts: Annotated[Names, _reading(_hosts)] = _variable("ALLOWED_HOSTS")
    trusted_proxies: Annotated[Names, _reading(_networks)] = _variable("TRUSTED_PROXIES")
    cimd_allow_private: Annotated[bool | None, _reading(_flag)] = _variable("CIMD_ALLOW_PRIVATE")
    oidc_issuer: Annotated[Text, _reading(_issuer)] = _variable("OIDC_ISSUER")
    oidc_client_id: Text = _variable("OIDC_CLIENT_ID")
    oidc_client_secret: Text = _variable("OIDC_CLIENT_SECRET")
    oidc_provider_name: Text = _variable("OIDC_PROVIDER_NAME")
    oidc_allowed_domains: Annotated[Names, _reading(_domains)] = _variable("OIDC_ALLOWED_DOMAINS")
    oidc_allowed_groups: Annotated[Names, _reading(_groups)] = _variable("OIDC_ALLOWED_GROUPS")
    oidc_create_accounts: Annotated[bool | None, _reading(_flag)] = _variable("OIDC_CREATE_ACCOUNTS")

    @model_validator(mode="after")
    def _many_instances_need_postgresql(self) -> Environment:
        if self.instances == "many" and not (self.database_url or "").startswith("postgresql"):
            raise ValueError(
                "ROMERGO_INSTANCES=many needs PostgreSQL (ROMERGO_DATABASE_URL=postgresql+asyncpg://...): "
                "instances on one SQLite file would not see each other's wake-ups"
            )
        return self

    @model_validator(mode="after")
    def _a_provider_needs_its_client(self) -> Environment:
        if self.oidc_issuer and not self.oidc_client_id:
            raise ValueError(
                "ROMERGO_OIDC_ISSUER needs ROMERGO_OIDC_CLIENT_ID: the client Romergo is registered as there"
            )
        return self
