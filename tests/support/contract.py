"""CONTRACT.md §1.2's domain tools and their categories, copied from the contract (not from the
code under test) so tests can check the code against it."""

from __future__ import annotations

DOMAIN_TOOL_CATEGORIES: dict[str, str] = {
    "romergo_list_projects": "read",
    "romergo_get_project_outline": "read",
    "romergo_get_chapter": "read",
    "romergo_get_scene": "read",
    "romergo_search_assets": "read",
    "romergo_preview_scene": "read",
    "romergo_check_story": "read",
    "romergo_search_story": "read",
    "romergo_list_variables": "read",
    "romergo_simulate_playthrough": "read",
    "romergo_list_command_changes": "read",
    "romergo_add_chapter": "edit",
    "romergo_update_chapter": "edit",
    "romergo_add_scene": "edit",
    "romergo_update_scene": "edit",
    "romergo_move_scene": "edit",
    "romergo_add_dialogue_line": "edit",
    "romergo_update_dialogue_line": "edit",
    "romergo_move_dialogue_line": "edit",
    "romergo_delete_dialogue_line": "edit",
    "romergo_set_choices": "edit",
    "romergo_add_character": "edit",
    "romergo_update_character": "edit",
    "romergo_duplicate_scene": "edit",
    "romergo_duplicate_chapter": "edit",
    "romergo_add_variable": "edit",
    "romergo_update_variable": "edit",
    "romergo_delete_variable": "edit",
    "romergo_set_scene_background": "media",
    "romergo_set_scene_music": "media",
    "romergo_set_chapter_music": "media",
    "romergo_import_asset": "media",
    "romergo_publish_project": "publish",
    "romergo_unpublish_project": "publish",
    "romergo_delete_scene": "delete",
    "romergo_delete_chapter": "delete",
    "romergo_delete_asset": "delete",
    "romergo_delete_character": "delete",
}

PAGED_TOOLS: frozenset[str] = frozenset(
    {
        "romergo_get_project_outline",
        "romergo_get_chapter",
        "romergo_get_scene",
        "romergo_preview_scene",
        "romergo_search_assets",
        "romergo_check_story",
        "romergo_search_story",
        "romergo_list_command_changes",
        "romergo_list_variables",
        "romergo_list_projects",
        "romergo_simulate_playthrough",
    }
)
"""The tools whose results come in pages (`page`, `page_size`, `next_page`), as the contract lists them."""
