"""docs/security.md, line by line: which tests attack each bullet against a real server process.

Every bullet of the checklist names the tests that prove it. They are black-box tests of a server
started as a subprocess (tests/security, the HTTP tests of tests/mcp_tools, the browser tests);
most live in tests/security, some next to the feature they guard. This module fails when a bullet
has no test, when the document gains a bullet nobody mapped, or when a named test disappears or
stops running against a real server.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKLIST = ROOT / "docs" / "security.md"

OAUTH = "tests/mcp_tools/test_oauth_http.py"
CHANNEL = "tests/mcp_tools/test_channel_http.py"
SESSIONS = "tests/security/test_sessions_and_secrets.py"
PROVIDER = "tests/oidc/test_provider_sign_in.py"
RULES = "tests/security/test_channel_rules.py"
UNTRUSTED = "tests/security/test_untrusted_output.py"

PROOFS: dict[str, list[str]] = {
    # Gaps the mcp SDK's built-in authorization server leaves to the app
    "`/register` accepts any redirect-URI scheme": [
        f"{OAUTH}::test_registration_refuses_unsafe_redirect_uris",
    ],
    "`/authorize` redirects validation and scope errors": [
        f"{OAUTH}::test_a_bad_authorization_request_gets_an_error_page_never_a_redirect",
        f"{OAUTH}::test_a_sound_request_leads_to_sign_in_then_consent_and_loopback_ports_may_differ",
    ],
    "Query parameters already in a registered redirect URI": [
        f"{OAUTH}::test_the_final_redirect_carries_exactly_one_server_made_code_state_and_iss",
    ],
    "No store of used codes, no refresh rotation": [
        f"{OAUTH}::test_a_reused_code_is_refused_and_kills_the_first_exchanges_tokens",
        f"{OAUTH}::test_refresh_rotates_and_reusing_the_old_refresh_token_revokes_the_family",
    ],
    "The audience check is off": [
        "tests/mcp_tools/test_lifecycle.py::test_a_token_issued_for_another_address_is_refused",
        f"{OAUTH}::test_a_token_for_another_resource_is_never_issued",
    ],
    "DNS-rebinding protection covers `/mcp` only": [
        "tests/security/test_rebinding_and_bodies.py::test_a_foreign_host_is_refused_on_every_route",
        "tests/security/test_rebinding_and_bodies.py::test_socket_io_refuses_a_foreign_origin_and_serves_its_own",
        "tests/security/test_rebinding_and_bodies.py::test_a_foreign_origin_cannot_post",
    ],
    # OAuth and tokens
    "Metadata: `issuer` exact": [
        f"{OAUTH}::test_metadata_comes_from_configuration_not_from_request_headers",
        "tests/security/test_oauth_grants.py::test_registration_refuses_every_flow_but_the_code_flow",
        "tests/security/test_oauth_grants.py::test_the_token_endpoint_knows_only_code_and_refresh_grants",
    ],
    "Discovery URLs come from configuration": [
        f"{OAUTH}::test_metadata_comes_from_configuration_not_from_request_headers",
        "tests/security/test_forwarded_headers.py",
    ],
    "Redirect URIs match exactly": [
        f"{OAUTH}::test_codes_belong_to_their_client_and_redirect_uri",
        f"{OAUTH}::test_a_sound_request_leads_to_sign_in_then_consent_and_loopback_ports_may_differ",
        "tests/security/test_oauth_grants.py::test_a_code_presented_with_another_redirect_uri_is_an_invalid_grant",
    ],
    "Consent: requires a signed-in user": [
        f"{OAUTH}::test_a_sound_request_leads_to_sign_in_then_consent_and_loopback_ports_may_differ",
        f"{OAUTH}::test_the_consent_form_is_single_use_and_bound_to_session_and_origin",
        f"{OAUTH}::test_the_consent_page_is_never_cached_framed_or_leaked_and_shows_names_as_text",
        f"{OAUTH}::test_consent_cannot_grant_what_was_not_offered",
    ],
    "Codes ≤ 10 min, single use": [
        f"{SESSIONS}::test_codes_live_ten_minutes_at_most_and_access_tokens_an_hour",
        f"{OAUTH}::test_a_wrong_verifier_is_refused_and_the_right_one_still_works",
        f"{OAUTH}::test_codes_belong_to_their_client_and_redirect_uri",
        f"{OAUTH}::test_a_reused_code_is_refused_and_kills_the_first_exchanges_tokens",
    ],
    "Tokens: ≥ 128 bits of randomness": [
        f"{SESSIONS}::test_codes_live_ten_minutes_at_most_and_access_tokens_an_hour",
        "tests/mcp_tools/test_lifecycle.py::test_tokens_survive_a_restart_and_only_their_hashes_are_stored",
        f"{OAUTH}::test_revoking_the_refresh_token_kills_the_access_token_of_the_same_grant",
        f"{OAUTH}::test_tokens_are_never_accepted_in_the_query_string",
    ],
    "Personal access tokens: shown once": [
        f"{OAUTH}::test_personal_tokens_work_at_mcp_but_not_at_the_token_endpoint",
        f"{SESSIONS}::test_an_expired_token_gets_the_401_challenge",
        "tests/browser/test_agent_oauth.py::test_personal_tokens_are_listed_and_revoked_on_the_settings_page",
    ],
    "Bodies bounded on every endpoint (413)": [
        f"{OAUTH}::test_bodies_above_5_mib_are_refused",
        "tests/security/test_rebinding_and_bodies.py::test_a_streamed_body_over_the_limit_gets_413",
        "tests/mcp_tools/test_lifecycle.py::test_registrations_are_rate_limited_per_address",
        f"{SESSIONS}::test_sign_in_attempts_are_rate_limited",
    ],
    # The MCP endpoint and the channel
    "401 with `WWW-Authenticate: Bearer resource_metadata=...`": [
        f"{OAUTH}::test_a_missing_or_garbage_token_gets_401_pointing_at_the_metadata",
        f"{SESSIONS}::test_an_expired_token_gets_the_401_challenge",
        "tests/mcp_tools/test_lifecycle.py::test_a_token_issued_for_another_address_is_refused",
        "tests/security/test_step_up.py::test_a_tool_beyond_the_tokens_scopes_gets_the_step_up_challenge",
    ],
    "Identity only from the verified token": [
        f"{RULES}::test_identity_comes_from_the_token_never_from_arguments_or_meta",
        "tests/mcp_tools/test_tools_http.py::test_no_tool_reads_or_changes_another_users_project",
    ],
    "Foreign `Origin` on `/mcp` → 403": [
        f"{OAUTH}::test_the_mcp_endpoint_refuses_foreign_hosts_and_origins",
    ],
    "Join codes: enough entropy": [
        f"{CHANNEL}::test_join_codes_are_checked",
        f"{CHANNEL}::test_ending_releases_a_waiting_poll_at_once",
        f"{CHANNEL}::test_leaving_keeps_the_room_so_changes_need_a_command",
    ],
    "Only the owner creates commands": [
        f"{RULES}::test_no_mcp_tool_can_do_what_only_the_owner_does",
        f"{CHANNEL}::test_an_agent_token_cannot_act_as_the_owner",
        f"{CHANNEL}::test_an_agent_token_cannot_decide_a_confirmation",
        f"{OAUTH}::test_registration_refuses_the_control_scope",
    ],
    "Confirmations: bound to room, client, command": [
        f"{RULES}::test_a_confirmation_is_decided_by_the_owner_only_and_runs_its_action_once",
        "tests/browser/test_agent_panel.py::test_allow_once_and_reject_in_the_panel_decide_a_waiting_tool_call",
    ],
    "Proof of stopping": [
        "tests/security/test_revoked_agent.py::test_revoking_an_agent_ends_its_memberships_and_releases_its_wait",
        "tests/browser/test_room_reach.py::test_a_room_limited_to_chapters_says_so_and_keeps_the_agent_out",
        "tests/browser/test_room_reach.py::test_one_agent_is_removed_from_the_panel_and_the_other_stays",
    ],
    "Room reach": [
        "tests/browser/test_room_reach.py::test_a_room_limited_to_chapters_says_so_and_keeps_the_agent_out",
        "tests/security/test_room_reach_start_mark.py",
        "tests/security/test_room_reach_story_check.py",
        "tests/security/test_room_reach_narrowed_history.py",
    ],
    "Long-polls per `client_id` are capped": [
        f"{RULES}::test_long_polls_are_capped_per_client",
        f"{CHANNEL}::test_a_dropped_agent_gets_its_command_again_and_the_other_never_does",
        "tests/security/test_revoked_agent.py::test_revoking_an_agent_ends_its_memberships_and_releases_its_wait",
    ],
    # Untrusted content (prompt injection)
    "Project text reaches the agent only inside an envelope": [
        f"{UNTRUSTED}::test_every_response_wraps_project_text_with_a_fresh_nonce",
        "tests/security/test_untrusted_lookalikes.py::test_lookalike_closing_markers_in_a_line_reach_the_agent_escaped",
    ],
    "Text that imitates a command": [
        f"{UNTRUSTED}::test_text_that_imitates_a_command_or_an_approval_stays_inert_data",
    ],
    "Whatever form of a tool result reaches the model": [
        f"{UNTRUSTED}::test_control_and_invisible_characters_are_escaped_in_text_and_in_data",
        "tests/security/test_untrusted_structured_content.py",
        "tests/mcp_tools/test_pages_fit.py",
        f"{UNTRUSTED}::test_control_characters_and_ansi_escapes_never_enter_the_story",
        "tests/mcp_tools/test_tools_http.py::test_a_200_kb_scene_pages_over_http",
    ],
    "Tool descriptions, server instructions and prompts": [
        f"{UNTRUSTED}::test_tool_descriptions_instructions_and_prompts_never_contain_project_data",
    ],
    "The confirmation dialog shows the tool": [
        "tests/browser/test_agent_panel.py::test_allow_once_and_reject_in_the_panel_decide_a_waiting_tool_call",
    ],
    # Bounded work
    "No input from outside runs unbounded on the event loop": [
        "tests/security/test_import_counts.py",
        "tests/security/test_hostile_patterns_compile.py",
        "tests/security/test_hostile_patterns_match.py",
    ],
    "Archives are inflated with real byte caps": [
        "tests/security/test_import_inflation.py",
        "tests/security/test_import_malformed.py",
        "tests/security/test_import_parsers_linear.py",
    ],
    "Numbers in a story's state": [
        "tests/security/test_state_number_ranges.py",
    ],
    "A restore copies only the files its manifest lists": [
        "tests/security/test_restore_trusts_its_manifest.py",
    ],
    "Outbound fetches (client metadata documents)": [
        "tests/security/test_client_metadata_deadline.py",
        "tests/security/test_client_metadata_addresses.py",
    ],
    "Slow clients cannot hold the server": [
        "tests/security/test_slow_clients.py",
    ],
    # Web UI
    "Session cookies HttpOnly, SameSite": [
        f"{SESSIONS}::test_the_session_cookie_is_http_only_and_same_site",
        "tests/security/test_secure_cookie.py::test_the_session_cookie_is_secure_when_served_over_https",
        f"{SESSIONS}::test_an_idle_session_ends",
        "tests/browser/test_sign_in.py::test_password_sign_in_renews_the_session_and_sign_out_ends_it",
    ],
    "Authorization code flow through authlib": [
        f"{PROVIDER}::test_the_code_flow_asks_for_a_code_with_pkce_state_and_nonce",
        f"{PROVIDER}::test_a_callback_with_another_state_is_refused",
        f"{PROVIDER}::test_a_callback_in_another_browser_is_refused",
    ],
    "The ID token is checked before anyone is signed in": [
        f"{PROVIDER}::test_a_first_sign_in_creates_the_account_and_lands_signed_in",
        f"{PROVIDER}::test_a_callback_in_another_browser_is_refused",
    ],
    "Who it is (`romergo/access/accounts/identities.py`)": [
        f"{PROVIDER}::test_a_first_sign_in_creates_the_account_and_lands_signed_in",
        f"{PROVIDER}::test_an_identity_linked_by_the_administrator_signs_in_as_that_account",
        f"{PROVIDER}::test_an_address_outside_the_allowed_domains_is_refused",
        f"{PROVIDER}::test_an_unverified_address_is_refused",
    ],
    "The session it starts is the same server-side session as a password sign-in": [
        f"{PROVIDER}::test_a_first_sign_in_creates_the_account_and_lands_signed_in",
        "tests/browser/test_sign_in.py::test_password_sign_in_renews_the_session_and_sign_out_ends_it",
    ],
    "State-changing requests check CSRF": [
        "tests/browser/test_sign_in.py::test_sign_in_from_another_site_is_refused",
        "tests/browser/test_sign_in.py::test_sign_out_needs_its_form_token",
        "tests/browser/test_invitations.py::test_joining_needs_the_pages_form_token",
        "tests/security/test_rebinding_and_bodies.py::test_a_foreign_origin_cannot_post",
    ],
    "Story and agent text render as text": [
        "tests/browser/test_agent_panel.py::test_agent_text_is_shown_as_text_never_as_html",
        f"{SESSIONS}::test_pages_carry_a_content_security_policy_and_nosniff",
    ],
    "Uploads: size limits enforced server-side": [
        "tests/browser/test_assets.py::test_an_oversized_upload_is_refused_by_the_server_and_saves_nothing",
        "tests/browser/test_upload_session.py::test_an_upload_needs_the_session_of_the_tab_that_shows_the_box",
        f"{SESSIONS}::test_uploads_are_typed_from_their_content_and_served_with_nosniff",
    ],
    "No token, code, password or join code in logs or URLs": [
        f"{SESSIONS}::test_no_token_code_password_or_join_code_reaches_the_log",
        f"{OAUTH}::test_tokens_are_never_accepted_in_the_query_string",
        "tests/browser/test_invitations.py::test_someone_joins_by_a_link_and_the_used_link_is_refused",
    ],
}
REAL_SERVER = re.compile(r"RunningServer|server: RunningServer|\bserver\b|open_page|author")


def bullets() -> list[str]:
    return [line[2:] for line in CHECKLIST.read_text(encoding="utf-8").splitlines() if line.startswith("- ")]


def test_every_bullet_of_the_checklist_has_its_tests():
    listed = bullets()
    assert len(listed) >= 30
    unmapped = [bullet for bullet in listed if not any(bullet.startswith(key) for key in PROOFS)]
    stale = [key for key in PROOFS if not any(bullet.startswith(key) for bullet in listed)]
    assert (unmapped, stale) == ([], [])


def test_every_named_test_exists_and_attacks_a_real_server():
    missing = []
    for proofs in PROOFS.values():
        assert proofs
        for proof in proofs:
            path, _, name = proof.partition("::")
            source = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).exists() else ""
            functions = {
                node.name: node
                for node in ast.walk(ast.parse(source or "pass"))
                if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)
            }
            if not source or (name and name not in functions):
                missing.append(proof)
            elif name and not REAL_SERVER.search(ast.unparse(functions[name].args)):
                missing.append(f"{proof} (takes no server)")
    assert missing == []
