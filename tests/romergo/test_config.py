"""Settings come from CONTRACT.md §9's defaults, the environment, then explicit flags."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from romergo.channels.waiting import MAX_WAIT
from romergo.common.config import LONGEST_HEARTBEAT_SECONDS, Environment, settings_from_env

README = Path(__file__).resolve().parents[2] / "README.md"


def test_defaults_match_the_contract():
    settings = settings_from_env({})
    assert (settings.limits.max_title_chars, settings.limits.max_line_chars) == (200, 2000)
    assert (settings.limits.max_image_mb, settings.limits.max_audio_mb) == (10, 20)
    assert (settings.channel_ttl_hours, settings.join_code_minutes) == (12, 15)
    assert (settings.command_lease_seconds, settings.confirmation_ttl_seconds) == (600, 300)
    assert (settings.access_token_minutes, settings.refresh_token_days) == (60, 30)
    assert (settings.rate_limit_per_minute, settings.max_waits_per_client) == (120, 20)
    assert settings.heartbeat_seconds == 10
    assert settings.base_url == "http://127.0.0.1:8080"
    assert str(settings.data_dir) == "data"


def test_environment_and_flags():
    env = {
        "ROMERGO_MAX_TITLE_CHARS": "80",
        "ROMERGO_DATA_DIR": "/srv/r",
        "ROMERGO_PUBLIC_URL": "https://r.example/",
    }
    settings = settings_from_env(env, port=9000)
    assert settings.limits.max_title_chars == 80
    assert str(settings.data_dir) == "/srv/r"
    assert settings.base_url == "https://r.example"
    assert settings.port == 9000
    assert settings_from_env(env, data_dir="/elsewhere").data_dir.as_posix() == "/elsewhere"


@pytest.mark.parametrize("value", ["ten", "-5", "0", "1.5"])
def test_bad_numbers_are_refused_with_the_variable_named(value):
    with pytest.raises(ValueError, match="ROMERGO_COMMAND_LEASE_SECONDS"):
        settings_from_env({"ROMERGO_COMMAND_LEASE_SECONDS": value})


def test_progress_may_come_as_often_as_every_second_and_no_rarer_than_a_plain_wait_is_long():
    assert settings_from_env({"ROMERGO_HEARTBEAT_SECONDS": "1"}).heartbeat_seconds == 1
    assert settings_from_env({"ROMERGO_HEARTBEAT_SECONDS": "50"}).heartbeat_seconds == 50
    assert LONGEST_HEARTBEAT_SECONDS == MAX_WAIT


@pytest.mark.parametrize("value", ["51", "600", "0", "-1", "0.5", "often"])
def test_a_heartbeat_out_of_range_is_refused_with_the_variable_named(value):
    with pytest.raises(ValueError, match="ROMERGO_HEARTBEAT_SECONDS"):
        settings_from_env({"ROMERGO_HEARTBEAT_SECONDS": value})


@pytest.mark.parametrize(
    "value",
    ["romergo.example", "ftp://r.example", "https://r.example/romergo", "https://u@r.example", "https://"],
)
def test_a_public_url_is_a_bare_origin(value):
    with pytest.raises(ValueError, match="ROMERGO_PUBLIC_URL"):
        settings_from_env({"ROMERGO_PUBLIC_URL": value})


def test_the_mcp_url_and_agent_settings():
    settings = settings_from_env(
        {
            "ROMERGO_PUBLIC_URL": "https://r.example",
            "ROMERGO_REGISTRATIONS_PER_MINUTE": "5",
            "ROMERGO_ALLOWED_HOSTS": " Romergo.lan:* , 10.0.0.2:8080",
        }
    )
    assert settings.mcp_url == "https://r.example/mcp"
    assert settings.registrations_per_minute == 5
    assert settings.allowed_hosts == ("romergo.lan:*", "10.0.0.2:8080")
    assert settings_from_env({}).mcp_url == "http://127.0.0.1:8080/mcp"
    with pytest.raises(ValueError, match="ROMERGO_ALLOWED_HOSTS"):
        settings_from_env({"ROMERGO_ALLOWED_HOSTS": "https://r.example/"})


def test_trusted_proxies_are_none_by_default_and_must_be_addresses():
    assert settings_from_env({}).trusted_proxies == ()
    given = settings_from_env({"ROMERGO_TRUSTED_PROXIES": "10.0.0.5, 192.168.1.0/24,::1"})
    assert given.trusted_proxies == ("10.0.0.5", "192.168.1.0/24", "::1")
    with pytest.raises(ValueError, match="ROMERGO_TRUSTED_PROXIES"):
        settings_from_env({"ROMERGO_TRUSTED_PROXIES": "proxy.lan"})


def test_port_zero_means_any_free_port_and_out_of_range_is_refused():
    assert settings_from_env({}, port=0).port == 0
    assert settings_from_env({}).port == 8080
    with pytest.raises(ValueError, match="--port"):
        settings_from_env({}, port=70000)


def test_several_instances_are_assumed_on_postgresql_and_can_be_pinned():
    assert not settings_from_env({}).many_instances
    postgres = {"ROMERGO_DATABASE_URL": "postgresql+asyncpg://db/romergo"}
    assert settings_from_env(postgres).many_instances
    assert not settings_from_env({**postgres, "ROMERGO_INSTANCES": "one"}).many_instances
    assert settings_from_env({**postgres, "ROMERGO_INSTANCES": " Many "}).many_instances


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ROMERGO_INSTANCES": "several"}, "must be one or many"),
        ({"ROMERGO_INSTANCES": "many"}, "needs PostgreSQL"),
    ],
)
def test_a_bad_instances_setting_is_refused(env, message):
    with pytest.raises(ValueError, match=message):
        settings_from_env(env)


def test_slow_client_settings_default_to_ten_seconds_and_256_connections():
    assert (settings_from_env({}).request_head_seconds, settings_from_env({}).connections_per_address) == (
        10,
        256,
    )
    chosen = settings_from_env({"ROMERGO_REQUEST_HEAD_SECONDS": "4", "ROMERGO_CONNECTIONS_PER_ADDRESS": "32"})
    assert (chosen.request_head_seconds, chosen.connections_per_address) == (4, 32)
    for name in ("ROMERGO_REQUEST_HEAD_SECONDS", "ROMERGO_CONNECTIONS_PER_ADDRESS"):
        with pytest.raises(ValueError, match=name):
            settings_from_env({name: "0"})


def test_the_process_environment_reads_as_a_given_mapping(monkeypatch):
    variables = {
        "ROMERGO_DATA_DIR": "/srv/r",
        "ROMERGO_MAX_LINE_CHARS": " 500 ",
        "ROMERGO_ALLOWED_HOSTS": "Romergo.lan:*,10.0.0.2",
        "ROMERGO_TRUSTED_PROXIES": "10.0.0.0/24",
        "ROMERGO_CIMD_ALLOW_PRIVATE": "yes",
        "ROMERGO_JOIN_CODE_MINUTES": "",
    }
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    from_process = settings_from_env()
    assert from_process == settings_from_env(variables)
    assert from_process.limits.max_line_chars == 500
    assert from_process.allowed_hosts == ("romergo.lan:*", "10.0.0.2")
    assert from_process.cimd_allow_private
    assert from_process.join_code_minutes == 15
    monkeypatch.setenv("ROMERGO_MAX_LINE_CHARS", "lots")
    with pytest.raises(ValueError, match=r"^ROMERGO_MAX_LINE_CHARS must be a whole number, got 'lots'$"):
        settings_from_env()


def test_blank_variables_keep_their_defaults_and_others_are_not_settings():
    blank = {name: " " for name in _variables_read()}
    assert settings_from_env(blank) == settings_from_env({})
    unrelated = {"ROMERGO_TOKEN": "rgp_x", "ROMERGO_TEST_POSTGRES": "postgresql://db", "romergo_port": "1"}
    assert settings_from_env(unrelated) == settings_from_env({})


@pytest.mark.parametrize(
    ("env", "line"),
    [
        ({"ROMERGO_MAX_IMAGE_MB": "ten"}, "ROMERGO_MAX_IMAGE_MB must be a whole number, got 'ten'"),
        ({"ROMERGO_CHANNEL_TTL_HOURS": "-5"}, "ROMERGO_CHANNEL_TTL_HOURS must be positive, got -5"),
        (
            {"ROMERGO_CIMD_ALLOW_PRIVATE": "maybe"},
            "ROMERGO_CIMD_ALLOW_PRIVATE must be 1 or 0 (true or false), got 'maybe'",
        ),
        ({"ROMERGO_INSTANCES": "several"}, "ROMERGO_INSTANCES must be one or many, got 'several'"),
        (
            {"ROMERGO_PUBLIC_URL": "r.example"},
            "ROMERGO_PUBLIC_URL (--public-url) must look like https://host[:port], without a path; "
            "got 'r.example'",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_its_variable(env, line):
    with pytest.raises(ValueError) as refused:
        settings_from_env(env)
    assert str(refused.value) == line


def test_a_public_url_flag_wins_over_the_variable_even_a_bad_one():
    settings = settings_from_env({"ROMERGO_PUBLIC_URL": "not a url"}, public_url="https://r.example")
    assert settings.base_url == "https://r.example"
    with pytest.raises(ValueError, match="ROMERGO_PUBLIC_URL"):
        settings_from_env({"ROMERGO_PUBLIC_URL": "https://r.example"}, public_url="r.example")


def test_the_readme_lists_every_variable_read_and_no_other():
    table = README.read_text().split("## Configuration", 1)[1].split("\n\n", 2)[1]
    assert set(re.findall(r"`(ROMERGO_[A-Z_]+)`", table)) == _variables_read()


def _variables_read() -> set[str]:
    return {str(field.validation_alias) for field in Environment.model_fields.values()}


def test_sign_in_with_a_provider_is_off_by_default_and_makes_no_account_by_default():
    settings = settings_from_env({})
    assert settings.oidc_issuer is None and settings.oidc_client_id is None
    assert (settings.oidc_allowed_domains, settings.oidc_allowed_groups) == ((), ())
    assert settings.oidc_create_accounts is False


def test_the_provider_settings_are_read_as_lists_and_a_flag():
    settings = settings_from_env(
        {
            "ROMERGO_OIDC_ISSUER": "https://id.team.example/realms/team",
            "ROMERGO_OIDC_CLIENT_ID": "romergo",
            "ROMERGO_OIDC_ALLOWED_DOMAINS": "Team.example, @studio.example",
            "ROMERGO_OIDC_ALLOWED_GROUPS": "writers, editors",
            "ROMERGO_OIDC_CREATE_ACCOUNTS": "1",
        }
    )
    assert settings.oidc_issuer == "https://id.team.example/realms/team"
    assert settings.oidc_allowed_domains == ("team.example", "studio.example")
    assert settings.oidc_allowed_groups == ("writers", "editors")
    assert settings.oidc_create_accounts is True


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ROMERGO_OIDC_ISSUER": "https://id.team.example"}, "ROMERGO_OIDC_CLIENT_ID"),
        ({"ROMERGO_OIDC_ISSUER": "http://id.team.example", "ROMERGO_OIDC_CLIENT_ID": "r"}, "https"),
        ({"ROMERGO_OIDC_ISSUER": "id.team.example", "ROMERGO_OIDC_CLIENT_ID": "r"}, "issuer URL"),
        ({"ROMERGO_OIDC_ALLOWED_DOMAINS": "ada@team.example"}, "ROMERGO_OIDC_ALLOWED_DOMAINS"),
    ],
)
def test_bad_provider_settings_are_refused_naming_the_variable(env, message):
    with pytest.raises(ValueError, match=message):
        settings_from_env(env)


def test_a_provider_on_loopback_may_speak_plain_http():
    settings = settings_from_env(
        {"ROMERGO_OIDC_ISSUER": "http://127.0.0.1:9000", "ROMERGO_OIDC_CLIENT_ID": "r"}
    )
    assert settings.oidc_issuer == "http://127.0.0.1:9000"
